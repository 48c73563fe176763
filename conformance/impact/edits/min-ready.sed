# md-0's minReadySeconds.
/^        name: md-0$/a\        minReadySeconds: 30
