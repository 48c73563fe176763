//! The typed apps/v1 round trip as cluster-api-operator v0.29.0 does it: through the Go
//! types of k8s.io/api and apimachinery v0.35.8, the release it is built on
//! ([`crate::operator::release::COMPONENTS_K8S`]). Compared with clusterctl v1.10's v0.32.3, a zero
//! `creationTimestamp` is omitted (`omitzero`, v0.34 and later), and the pod-spec fields of
//! v0.33–v0.35 are kept: `hostnameOverride`, container `restartPolicyRules`, `workloadRef`,
//! env `fileKeyRef`, lifecycle `stopSignal`, `podCertificate` volume projections (v0.36's
//! `schedulingGroup` is dropped). Found with the Go oracle (`conformance/operator-customize.sh`).

use serde_json::Value;

use crate::components::filters::typed_round_trip;
use crate::error::Result;

/// `scheme.Scheme.Convert(obj, &typed)` then back, in k8s.io v0.35.8's types.
pub fn round_trip(o: &Value) -> Result<Value> {
    typed_round_trip(o, "apps/v1", crate::operator::release::COMPONENTS_K8S)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn zero_creation_timestamps_are_omitted_set_ones_kept() {
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d"},
            "spec": {"selector": {}, "template": {"metadata": {"creationTimestamp": "2024-01-02T03:04:05Z"},
                "spec": {"containers": [{"name": "c"}], "volumes": [{"name": "v", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]}}}});
        let t = round_trip(&d).unwrap();
        assert!(t["metadata"].get("creationTimestamp").is_none());
        assert_eq!(
            t["spec"]["template"]["metadata"]["creationTimestamp"],
            "2024-01-02T03:04:05Z"
        );
        assert!(
            t["spec"]["template"]["spec"]["volumes"][0]["ephemeral"]["volumeClaimTemplate"]
                .get("metadata")
                .is_none_or(|m| m.get("creationTimestamp").is_none())
        );
        assert_eq!(t["status"], json!({}));
    }

    #[test]
    fn the_pod_spec_fields_of_v0_35_are_kept_and_later_ones_dropped() {
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d"},
            "spec": {"selector": {}, "template": {"spec": {
                "hostnameOverride": "h",
                "workloadRef": {"name": "w", "podGroup": "g"},
                "schedulingGroup": {"podGroupName": "g"},
                "containers": [{"name": "c", "restartPolicyRules": [{"action": "Restart"}]}]}}}});
        let spec = &round_trip(&d).unwrap()["spec"]["template"]["spec"];
        assert_eq!(spec["hostnameOverride"], "h");
        assert_eq!(spec["workloadRef"], json!({"name": "w", "podGroup": "g"}));
        assert!(spec.get("schedulingGroup").is_none());
        assert_eq!(
            spec["containers"][0]["restartPolicyRules"],
            json!([{"action": "Restart"}])
        );
    }
}
