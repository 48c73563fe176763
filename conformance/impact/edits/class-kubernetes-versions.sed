# The ClusterClass lists the versions of chained upgrades (two patches of v1.34).
/^kind: ClusterClass$/,/^spec:$/ s/^spec:$/spec:\n  kubernetesVersions: [v1.31.4, v1.32.3, v1.33.2, v1.34.1, v1.34.3, v1.35.0]/
