//! The typed apps/v1 round trip as the operator's k8s.io libraries (api/apimachinery
//! v0.34 and later; v0.35.8 for cluster-api-operator v0.29.0) do it, on top of our model ([`crate::components::filters::typed_round_trip`],
//! generated from v0.32.3 for clusterctl).
//!
//! The one difference that shows on Deployments and DaemonSets: apimachinery v0.34 tags
//! `ObjectMeta.CreationTimestamp` `omitempty,omitzero`, so the zero time is omitted
//! instead of printed as `creationTimestamp: null`. Found with the Go oracle
//! (`conformance/operator-customize.sh`). Fields added to the pod spec after v0.32 are
//! all `omitempty`, and the operator keeps them where our model drops them if a manifest
//! sets them: v0.34's `hostnameOverride` and container `restartPolicyRules`, v0.35's
//! `workloadRef` (kept by cluster-api-operator v0.29.0, dropped by v0.28.0).

use serde_json::Value;

use crate::components::filters::typed_round_trip;
use crate::error::Result;

/// `scheme.Scheme.Convert(obj, &typed)` then back, with v0.34's ObjectMeta encoding:
/// the object's own metadata, the pod template's, and ephemeral volume claim templates'.
pub fn round_trip(o: &Value) -> Result<Value> {
    let mut t = typed_round_trip(o, "apps/v1")?;
    crate::typed::omit_zero_creation_timestamps(&mut t);
    Ok(t)
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
}
