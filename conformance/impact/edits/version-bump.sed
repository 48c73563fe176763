# The Kubernetes version of the topology: v1.34.1 -> v1.35.0 (v1.32.0 -> v1.33.0).
s/version: v1\.34\.1$/version: v1.35.0/
s/version: v1\.32\.0$/version: v1.33.0/
