# The ClusterClass gives its default-worker MachineDeployment class labels.
/^    machineDeployments:$/,/^    machinePools:$/ s/^    - class: default-worker$/    - class: default-worker\n      metadata:\n        labels:\n          class-tier: workers/
