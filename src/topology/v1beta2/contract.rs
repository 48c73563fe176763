//! The Cluster API contract a provider kind follows, as Cluster API v1.14.2 reads it from
//! the kind's CRD (`contract.GetContractVersionForVersion`: the `cluster.x-k8s.io/<contract>`
//! label listing the apiVersion's version). Offline there is no CRD: a kind served at
//! `…/v1beta2` follows the v1beta2 contract, any other version the v1beta1 contract (the
//! labels every provider release writes, and the ones the conformance oracle gives its
//! CRDs). The contract decides where the topology controller writes a ControlPlane's
//! machine fields: `spec.machineTemplate.spec.{infrastructureRef, readinessGates, taints,
//! deletion.*Seconds}` (v1beta2) or `spec.machineTemplate.{infrastructureRef,
//! readinessGates, taints, node*Timeout}` (v1beta1).

/// True when the kind at `api_version` follows the v1beta2 contract.
pub fn is_v1beta2(api_version: &str) -> bool {
    api_version.rsplit_once('/').map(|(_, v)| v) == Some("v1beta2")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_decides_the_contract() {
        assert!(is_v1beta2("controlplane.cluster.x-k8s.io/v1beta2"));
        for v1 in [
            "controlplane.cluster.x-k8s.io/v1beta1",
            "controlplane.cluster.x-k8s.io/v1alpha1",
            "controlplane.cluster.x-k8s.io/v1alpha2",
            "v1beta2",
            "",
        ] {
            assert!(!is_v1beta2(v1), "{v1}");
        }
    }
}
