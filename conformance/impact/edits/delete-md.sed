# md-0 is removed from the topology.
/^      machineDeployments:$/,/^      machinePools:$/{/^      machinePools:$/!d;}
/^      machinePools:$/i\      machineDeployments: []
