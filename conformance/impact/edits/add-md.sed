# A second MachineDeployment, md-1.
/^          propagation: Always$/a\      - class: default-worker\n        name: md-1\n        replicas: 3
