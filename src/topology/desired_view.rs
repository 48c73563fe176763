//! The desired state as `render` writes it into a Git tree: the objects of
//! [`intent::creation_order`] in the form the topology controller sends them, and the
//! reconciled Cluster, held as Go structs like `topology plan`'s, but never passed
//! through the dry-run store ([`super::dryrun`] adds resource versions, the
//! `<cluster>-shim` Secret and conditions for `topology plan` only).
//!
//! The Git form ([`git_form`]) leaves out what the API server owns and what could not
//! be applied from Git: `status` and the `creationTimestamp: null` of a Go struct,
//! `resourceVersion`, and owner references without a UID (offline, the Cluster has
//! none, and the API server rejects a reference without one — the same reason
//! provider units carry no owner references).

use serde_json::Value;

use super::desired::Desired;
use super::intent;
use crate::error::{Error, Result};

/// The desired objects of one Cluster in creation order, in the Git form. With
/// `applied` (v1beta2 Clusters, CAPI v1.14), the provider objects are created by
/// server-side apply: empty maps and nulls kept, no round trip through clusterctl v1.10's Go
/// types (the CAPI kinds still are: `v1beta2::objects` converts them from that form).
pub fn objects(d: &Desired, applied: bool) -> Result<Vec<Value>> {
    intent::creation_order(d, !applied)?
        .iter()
        .map(|step| {
            let capi = crate::topology::obj::api_version(step.object) == "cluster.x-k8s.io/v1beta1";
            if applied && !capi {
                // The desired state as CAPI v1.14's `desiredstate` computes it: the
                // InfrastructureCluster's ignore paths (a zero `controlPlaneEndpoint`)
                // are the patch helper's, not the desired object's.
                return Ok(git_form(intent::applied_intent(step.object.clone())));
            }
            let sent = intent::create_intent(intent::typed_build(step.object)?, &step.ignore);
            Ok(git_form(intent::normalise(sent)?))
        })
        .collect()
}

/// The Cluster after the reconcile wrote the desired Cluster into it, in the Git form.
pub fn cluster(current: &Value, desired_cluster: &Value) -> Result<Value> {
    let held = crate::typed::round_trip(current)
        .map_err(|e| Error::new(format!("failed to convert Cluster: {e}")))?;
    let after = crate::typed::round_trip(&intent::reconciled_cluster(held, desired_cluster))?;
    Ok(git_form(after))
}

/// An object without the fields Git must not hold (module docs).
fn git_form(mut o: Value) -> Value {
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
    fn git_form_drops_server_fields_and_uidless_owner_refs() {
        let o = json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "DockerCluster",
            "metadata": {"name": "a-x", "namespace": "d", "resourceVersion": "1", "creationTimestamp": null,
                "labels": {"l": "v"},
                "ownerReferences": [{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "name": "a", "uid": ""}]},
            "spec": {"x": 1}, "status": {"ready": false}});
        assert_eq!(
            git_form(o),
            json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "DockerCluster",
                "metadata": {"name": "a-x", "namespace": "d", "labels": {"l": "v"}}, "spec": {"x": 1}})
        );
        let kept = json!({"metadata": {"creationTimestamp": "2020-01-01T00:00:00Z",
            "ownerReferences": [{"kind": "Owner", "name": "o", "uid": "1234"}, {"kind": "Cluster", "name": "a"}]}});
        assert_eq!(
            git_form(kept),
            json!({"metadata": {"creationTimestamp": "2020-01-01T00:00:00Z",
                "ownerReferences": [{"kind": "Owner", "name": "o", "uid": "1234"}]}})
        );
    }

    #[test]
    fn objects_never_carry_the_dry_run_store() {
        let d = Desired {
            cluster: json!({}),
            infra_cluster: json!({"apiVersion": "i/v1", "kind": "I", "metadata": {"name": "c-i", "namespace": "n",
                "ownerReferences": [{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "name": "c", "uid": ""}]},
                "spec": {"controlPlaneEndpoint": {"host": "", "port": 0}, "y": 2}}),
            control_plane: json!({"apiVersion": "cp/v1", "kind": "CP", "metadata": {"name": "c-cp", "namespace": "n"},
                "spec": {"z": {}}}),
            cp_infra_template: None,
            cp_mhc: None,
            mds: Vec::new(),
            mps: Vec::new(),
        };
        let out = objects(&d, false).unwrap();
        assert_eq!(
            out,
            vec![
                json!({"apiVersion": "i/v1", "kind": "I", "metadata": {"name": "c-i", "namespace": "n"}, "spec": {"y": 2}}),
                json!({"apiVersion": "cp/v1", "kind": "CP", "metadata": {"name": "c-cp", "namespace": "n"}}),
            ]
        );
    }
}
