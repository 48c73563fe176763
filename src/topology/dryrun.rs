//! What `clusterctl alpha topology plan`'s dry-run client stores (topology.md R0.3):
//! the topology controller creates objects through a two-way merge patch helper
//! (allowed paths only, empty maps dropped, nulls pruned), the fake client sets
//! `resourceVersion` and keeps the kinds of clusterctl's scheme as Go structs.

use serde_json::{json, Value};

use super::desired::Desired;
use super::{intent, obj};
use crate::error::{Error, Result};

/// The fixed `lastTransitionTime` of the Cluster's `TopologyReconciled` condition
/// (clusterctl writes the current time; capi-render is deterministic).
pub const CONDITION_TIME: &str = "1970-01-01T00:00:00Z";

/// The fake client's stored form: `resourceVersion`, and the typed round trip for the
/// kinds clusterctl's scheme knows.
pub fn store(mut v: Value, resource_version: &str) -> Result<Value> {
    obj::set(
        &mut v,
        &["metadata", "resourceVersion"],
        Value::from(resource_version),
    );
    intent::normalise(v)
}

/// The cluster shim Secret (`clustershim.New`).
pub fn shim(cluster: &Value) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": format!("{}-shim", obj::name(cluster)),
            "namespace": obj::namespace(cluster),
            "ownerReferences": [obj::owner_ref_to_cluster(obj::name(cluster))],
        },
        "type": "cluster.x-k8s.io/secret",
    })
}

fn shim_ref(cluster: &Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Secret", "name": format!("{}-shim", obj::name(cluster)), "uid": ""})
}

fn with_owner(mut o: Value, r: Value) -> Value {
    let mut refs = obj::get(&o, &["metadata", "ownerReferences"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    refs.push(r);
    obj::set(&mut o, &["metadata", "ownerReferences"], Value::Array(refs));
    o
}

/// The objects a new Cluster's reconcile creates, as the dry-run client returns them,
/// in creation order: the Cluster's shim Secret (created directly, not through the
/// patch helper: all fields kept), then [`intent::creation_order`], the
/// InfrastructureCluster and ControlPlane owned by the shim.
pub fn created(desired: &Desired, cluster: &Value) -> Result<Vec<Value>> {
    let mut out = vec![store(shim(cluster), "1")?];
    for step in intent::creation_order(desired, true)? {
        let object = if step.cluster_owned {
            with_owner(step.object.clone(), shim_ref(cluster))
        } else {
            step.object.clone()
        };
        let intent = intent::create_intent(intent::typed_build(&object)?, &step.ignore);
        out.push(store(intent, "1")?);
    }
    Ok(out)
}

/// The Cluster as the dry-run client holds it before the reconcile (`.original.yaml`).
pub fn cluster_before(cluster: &Value) -> Result<Value> {
    let mut c = cluster.clone();
    obj::set(&mut c, &["metadata", "resourceVersion"], Value::from("999"));
    crate::typed::round_trip(&c).map_err(|e| Error::new(format!("failed to convert Cluster: {e}")))
}

/// The Cluster after the reconcile (`.modified.yaml`): labels and refs from the desired
/// Cluster ([`intent::reconciled_cluster`]), the `TopologyReconciled` conditions, three
/// more resource versions.
pub fn cluster_after(before: &Value, desired_cluster: &Value) -> Result<Value> {
    let mut c = intent::reconciled_cluster(before.clone(), desired_cluster);
    obj::set(
        &mut c,
        &["metadata", "resourceVersion"],
        Value::from("1002"),
    );
    obj::set(
        &mut c,
        &["status", "conditions"],
        json!([{"lastTransitionTime": CONDITION_TIME, "status": "True", "type": "TopologyReconciled"}]),
    );
    obj::set(
        &mut c,
        &["status", "v1beta2", "conditions"],
        json!([{"lastTransitionTime": CONDITION_TIME, "message": "", "reason": "ReconcileSucceeded",
            "status": "True", "type": "TopologyReconciled"}]),
    );
    crate::typed::round_trip(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_unstructured_objects_get_resource_version_only() {
        let v = store(
            json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "n"}}),
            "1",
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "n", "resourceVersion": "1"}})
        );
    }
}
