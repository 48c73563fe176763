# Labels on the control plane and on md-0 (topology metadata).
/^    controlPlane:$/a\      metadata:\n        labels:\n          tier: control-plane
/^        name: md-0$/a\        metadata:\n          labels:\n            tier: workers
