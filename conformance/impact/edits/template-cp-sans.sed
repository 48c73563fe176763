# The KubeadmControlPlaneTemplate adds an API server certificate SAN.
s/host\.docker\.internal\]/host.docker.internal, cp.example.com]/
