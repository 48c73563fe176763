# Labels on mp-0.
/^        name: mp-0$/a\        metadata:\n          labels:\n            tier: pool
