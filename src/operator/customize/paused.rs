//! The proposal's `paused` (operator.md R0.4/§2.4): not implemented by the real
//! operator; our documented extension.
//!
//! Every Deployment that gets the provider's *main* spec (R6.2: the only Deployment,
//! or each `ca*-controller-manager` one when there are several) is scaled to 0 replicas
//! after its customisation (§6.3–§6.4), and the count it would otherwise have had is
//! kept as a decimal string in the annotation
//! `management.cluster.x-k8s.io/original-controller-replicas`: the manifest's
//! `spec.replicas`, or what `deployment.replicas` set, or Go's default `1` when neither
//! gives one. Deployments customised from `additionalDeployments` and untouched ones
//! keep their replicas. Patches (§7) run afterwards, so a patch that sets `replicas`
//! explicitly still wins.

use serde_json::Value;

use super::podspec::map_at;

/// The annotation that keeps the replica count of a paused Deployment.
pub const ORIGINAL_REPLICAS_ANNOTATION: &str =
    "management.cluster.x-k8s.io/original-controller-replicas";

/// Scale `d` (a Deployment after the typed round trip) to 0, remembering its count.
pub fn pause(d: &mut Value) {
    let original = d
        .get("spec")
        .and_then(|s| s.get("replicas"))
        .and_then(|r| r.as_i64().or_else(|| r.as_f64().map(|f| f as i64)))
        .unwrap_or(1);
    map_at(d, &["spec"]).insert("replicas".into(), Value::from(0));
    map_at(d, &["metadata", "annotations"]).insert(
        ORIGINAL_REPLICAS_ANNOTATION.into(),
        Value::String(original.to_string()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scales_to_zero_and_keeps_the_count() {
        let mut d =
            json!({"metadata": {"name": "d", "annotations": {"a": "b"}}, "spec": {"replicas": 3}});
        pause(&mut d);
        assert_eq!(d["spec"]["replicas"], json!(0));
        assert_eq!(
            d["metadata"]["annotations"],
            json!({"a": "b", ORIGINAL_REPLICAS_ANNOTATION: "3"})
        );
    }

    #[test]
    fn absent_replicas_is_go_default_one() {
        let mut d = json!({"metadata": {"name": "d"}, "spec": {}});
        pause(&mut d);
        assert_eq!(d["spec"]["replicas"], json!(0));
        assert_eq!(
            d["metadata"]["annotations"][ORIGINAL_REPLICAS_ANNOTATION],
            "1"
        );
    }

    #[test]
    fn zero_stays_zero() {
        let mut d = json!({"metadata": {"name": "d"}, "spec": {"replicas": 0}});
        pause(&mut d);
        assert_eq!(
            d["metadata"]["annotations"][ORIGINAL_REPLICAS_ANNOTATION],
            "0"
        );
    }
}
