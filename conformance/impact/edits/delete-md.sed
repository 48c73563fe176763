# md-0 is removed from the topology (the list goes: the CRD requires at least one item).
/^      machineDeployments:$/,/^      machinePools:$/{/^      machinePools:$/!d;}
