# The ClusterClass lists versions without v1.34 (a chained upgrade cannot cross it).
/^kind: ClusterClass$/,/^spec:$/ s/^spec:$/spec:\n  kubernetesVersions: [v1.33.2, v1.35.0]/
