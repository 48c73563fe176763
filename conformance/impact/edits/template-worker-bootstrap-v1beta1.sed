# The workers' KubeadmConfigTemplate of a v1beta1 class gains a kubelet argument.
/^kind: KubeadmConfigTemplate$/,$ s/^        nodeRegistration: {} #.*$/        nodeRegistration:\n          kubeletExtraArgs:\n            eviction-hard: nodefs.available<1%/
