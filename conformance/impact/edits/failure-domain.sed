# md-0 moves to failure domain fd1.
/^        name: md-0$/a\        failureDomain: fd1
