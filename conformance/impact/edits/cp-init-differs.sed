# The KubeadmControlPlaneTemplate's initConfiguration differs from its joinConfiguration.
/^        initConfiguration:$/,/^        joinConfiguration:$/ s/nodefs\.available<0%/nodefs.available<5%/
