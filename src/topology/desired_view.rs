//! The desired state as `render` writes it into a Git tree: the objects
//! `render_cluster` returns, without what clusterctl's dry-run store adds to them.
//!
//! `topology plan` reproduces the dry-run store byte for byte (resource versions,
//! `status`, `creationTimestamp: null`, the `<cluster>-shim` Secret that owns the
//! InfrastructureCluster and ControlPlane, owner references without UIDs). None of
//! that is desired state, and none of it could be applied from Git: a reference
//! without a UID is rejected by the API server (the same reason provider units carry
//! no owner references). This filter removes exactly those artefacts.

use serde_json::Value;

/// Strip the dry-run store's artefacts from one Cluster's rendered objects.
pub fn without_dry_run_artefacts(objects: Vec<Value>, cluster_name: &str) -> Vec<Value> {
    let shim = format!("{cluster_name}-shim");
    objects
        .into_iter()
        .filter(|o| {
            !(o["kind"] == "Secret"
                && o["apiVersion"] == "v1"
                && o["metadata"]["name"] == shim.as_str())
        })
        .map(clean)
        .collect()
}

fn clean(mut o: Value) -> Value {
    if let Some(m) = o.as_object_mut() {
        m.remove("status");
        if let Some(md) = m.get_mut("metadata").and_then(Value::as_object_mut) {
            md.remove("resourceVersion");
            if md.get("creationTimestamp").is_some_and(Value::is_null) {
                md.remove("creationTimestamp");
            }
            if let Some(refs) = md.get_mut("ownerReferences").and_then(Value::as_array_mut) {
                refs.retain(|r| {
                    r.get("uid")
                        .and_then(Value::as_str)
                        .is_some_and(|u| !u.is_empty())
                });
                if refs.is_empty() {
                    md.remove("ownerReferences");
                }
            }
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn store_artefacts_are_removed_and_desired_fields_kept() {
        let objs = vec![
            json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "DockerCluster",
                "metadata": {"name": "a-x", "namespace": "d", "resourceVersion": "1", "creationTimestamp": null,
                    "labels": {"l": "v"},
                    "ownerReferences": [{"apiVersion": "v1", "kind": "Secret", "name": "a-shim", "uid": ""}]},
                "spec": {"x": 1}, "status": {"ready": false}}),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a-shim", "namespace": "d"}}),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b-shim", "namespace": "d"}}),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
                "metadata": {"name": "a", "namespace": "d", "resourceVersion": "1002",
                    "ownerReferences": [{"apiVersion": "x/v1", "kind": "Owner", "name": "o", "uid": "1234"}]},
                "spec": {"topology": {}}}),
        ];
        let out = without_dry_run_artefacts(objs, "a");
        assert_eq!(out.len(), 3, "only the cluster's own shim Secret goes");
        assert_eq!(
            out[0],
            json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "DockerCluster",
                "metadata": {"name": "a-x", "namespace": "d", "labels": {"l": "v"}}, "spec": {"x": 1}})
        );
        assert_eq!(out[1]["metadata"]["name"], "b-shim");
        assert_eq!(out[2]["metadata"]["ownerReferences"][0]["uid"], "1234");
        assert!(out[2]["metadata"].get("resourceVersion").is_none());
    }
}
