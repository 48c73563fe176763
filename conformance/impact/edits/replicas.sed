# Replicas: control plane 3 -> 5, md-0 2 -> 4, mp-0 1 -> 3.
s/^      replicas: 3$/      replicas: 5/
s/^        replicas: 2$/        replicas: 4/
s/^        replicas: 1$/        replicas: 3/
