# The workers' KubeadmConfigTemplate (md-0 and mp-0) changes a kubelet argument.
/^kind: KubeadmConfigTemplate$/,$ s/nodefs\.available<0%/nodefs.available<1%/
