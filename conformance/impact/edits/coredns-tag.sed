# The coreDNSImageTag variable (clusterConfiguration.dns).
s/value: ""$/value: v1.12.1/
