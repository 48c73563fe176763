# The KubeadmControlPlaneTemplate sets joinConfiguration.discovery (used by joins only).
/^        joinConfiguration:$/a\          discovery:\n            bootstrapToken:\n              unsafeSkipCAVerification: true
