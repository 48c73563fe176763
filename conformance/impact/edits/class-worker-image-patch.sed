# The ClusterClass customImage patch of the workers changes (the worker DevMachineTemplate).
s/kindest\/node:{{ \.builtin\.machineDeployment\.version/kindest\/node-custom:{{ .builtin.machineDeployment.version/
