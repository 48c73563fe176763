# The imageRepository variable (a ClusterClass patch sets it on the KCP).
s/value: registry\.example\.com$/value: registry.example.org/
