# The ClusterClass podSecurityStandard patch changes what it writes (every Cluster's KCP).
s/enforce-version: "latest"/enforce-version: "v1.34"/
