# The KubeadmControlPlaneTemplate changes its initConfiguration only (the first machine's).
/^        initConfiguration:$/,/^        joinConfiguration:$/ s/nodefs\.available<0%/nodefs.available<1%/
