# The etcdImageTag variable.
s/value: 3\.5\.21-0$/value: 3.5.22-0/
