# The ClusterClass customImage patch of the pools changes (the DevMachinePool).
s/kindest\/node:{{ \.builtin\.machinePool\.version/kindest\/node-custom:{{ .builtin.machinePool.version/
