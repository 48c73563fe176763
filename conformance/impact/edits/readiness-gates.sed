# A readiness gate on the control plane Machines.
/^    controlPlane:$/a\      readinessGates:\n      - conditionType: example.com/Ready
