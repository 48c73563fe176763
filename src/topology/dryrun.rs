//! What `clusterctl alpha topology plan`'s dry-run client stores (topology.md R0.3):
//! the topology controller creates objects through a two-way merge patch helper
//! (allowed paths only, empty maps dropped, nulls pruned), the fake client sets
//! `resourceVersion` and keeps the kinds of clusterctl's scheme as Go structs.

use serde_json::{json, Map, Value};

use super::desired::Desired;
use super::obj;
use crate::error::{Error, Result};

/// The fixed `lastTransitionTime` of the Cluster's `TopologyReconciled` condition
/// (clusterctl writes the current time; capi-render is deterministic).
pub const CONDITION_TIME: &str = "1970-01-01T00:00:00Z";

const ALLOWED_ON_CREATE: &[&[&str]] = &[
    &["metadata", "labels"],
    &["metadata", "annotations"],
    &["spec"],
    &["apiVersion"],
    &["kind"],
    &["metadata", "name"],
    &["metadata", "namespace"],
    &["metadata", "ownerReferences"],
];

fn overlaps(a: &[String], b: &[&str]) -> bool {
    a.iter().zip(b.iter()).all(|(x, y)| x == y)
}

/// `dropDiff` against an empty original: fields outside the allowed (or inside
/// ignored) paths go, and so does every map left empty (not inside lists).
/// With `keep_empty`, maps left empty stay (a server-side apply of the desired object).
fn drop_diff(
    path: &mut Vec<String>,
    m: &mut Map<String, Value>,
    drop: &dyn Fn(&[String]) -> bool,
    keep_empty: bool,
) {
    let keys: Vec<String> = m.keys().cloned().collect();
    for k in keys {
        path.push(k.clone());
        if drop(path) {
            m.remove(&k);
        } else if let Some(Value::Object(child)) = m.get_mut(&k) {
            drop_diff(path, child, drop, keep_empty);
            if child.is_empty() && !keep_empty {
                m.remove(&k);
            }
        }
        path.pop();
    }
}

/// The object the two-way patch helper creates from a desired object.
pub fn create_intent(desired: &Value, ignore: &[Vec<String>]) -> Value {
    intent(desired, ignore, false)
}

fn intent(desired: &Value, ignore: &[Vec<String>], keep_empty: bool) -> Value {
    let mut v = desired.clone();
    if let Value::Object(m) = &mut v {
        let not_allowed = |p: &[String]| !ALLOWED_ON_CREATE.iter().any(|a| overlaps(p, a));
        drop_diff(&mut Vec::new(), m, &not_allowed, keep_empty);
        if !ignore.is_empty() {
            let ignored = |p: &[String]| {
                ignore
                    .iter()
                    .any(|i| p.len() >= i.len() && p[..i.len()] == i[..])
            };
            drop_diff(&mut Vec::new(), m, &ignored, keep_empty);
        }
    }
    crate::go::mergepatch::prune_nulls(&mut v);
    v
}

/// The fake client's stored form: `resourceVersion`, and the typed round trip for the
/// kinds clusterctl's scheme knows.
pub fn store(mut v: Value, resource_version: &str) -> Result<Value> {
    obj::set(
        &mut v,
        &["metadata", "resourceVersion"],
        Value::from(resource_version),
    );
    if crate::typed::is_supported(obj::api_version(&v), obj::kind(&v)) {
        v = crate::typed::round_trip(&v)
            .map_err(|e| e.wrap(format!("failed to create {}", obj::kind(&v))))?;
    }
    Ok(v)
}

/// The objects the topology controller builds as Go structs (converted to unstructured
/// before the patch helper): MachineDeployments, MachinePools, MachineHealthChecks. The
/// InfrastructureCluster, ControlPlane and templates stay unstructured.
fn typed(v: &Value) -> Result<Value> {
    let built_typed = obj::api_version(v) == "cluster.x-k8s.io/v1beta1"
        && matches!(
            obj::kind(v),
            "MachineDeployment" | "MachinePool" | "MachineHealthCheck"
        );
    if built_typed {
        crate::typed::round_trip(v)
    } else {
        Ok(v.clone())
    }
}

/// InfrastructureCluster ignore paths: an empty endpoint host / zero port.
fn infra_ignore_paths(infra: &Value) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let p = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    if obj::get(infra, &["spec", "controlPlaneEndpoint", "host"]).and_then(Value::as_str)
        == Some("")
    {
        out.push(p(&["spec", "controlPlaneEndpoint", "host"]));
    }
    if obj::get(infra, &["spec", "controlPlaneEndpoint", "port"]).and_then(Value::as_f64)
        == Some(0.0)
    {
        out.push(p(&["spec", "controlPlaneEndpoint", "port"]));
    }
    out
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
/// in creation order.
///
/// With `applied` (v1beta2 Clusters), the objects are created as CAPI v1.13's topology
/// controller creates them, by server-side apply of the desired object: the provider
/// objects keep their empty maps and are not round-tripped through clusterctl v1.10's Go
/// types (the CAPI kinds still are: `v1beta2::objects` converts them from that form).
pub fn created(desired: &Desired, cluster: &Value, applied: bool) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    let mut create = |d: &Value, ignore: &[Vec<String>]| -> Result<()> {
        let capi = obj::api_version(d) == "cluster.x-k8s.io/v1beta1";
        if applied && !capi {
            let mut v = intent(d, ignore, true);
            obj::set(&mut v, &["metadata", "resourceVersion"], Value::from("1"));
            out.push(v);
            return Ok(());
        }
        let intent = create_intent(&typed(d)?, ignore);
        out.push(store(intent, "1")?);
        Ok(())
    };
    // The shim is created directly (not through the patch helper): all fields kept.
    let s = shim(cluster);
    let infra = with_owner(desired.infra_cluster.clone(), shim_ref(cluster));
    let cp = with_owner(desired.control_plane.clone(), shim_ref(cluster));
    let stored_shim = store(s, "1")?;
    create(&infra, &infra_ignore_paths(&desired.infra_cluster))?;
    if let Some(t) = &desired.cp_infra_template {
        create(t, &[])?;
    }
    create(&cp, &[])?;
    if let Some(m) = &desired.cp_mhc {
        create(m, &[])?;
    }
    for md in &desired.mds {
        create(&md.infra_template, &[])?;
        create(&md.bootstrap_template, &[])?;
        create(&md.object, &[])?;
        if let Some(m) = &md.mhc {
            create(m, &[])?;
        }
    }
    for mp in &desired.mps {
        create(&mp.infra_object, &[])?;
        create(&mp.bootstrap_object, &[])?;
        create(&mp.object, &[])?;
    }
    out.insert(0, stored_shim);
    Ok(out)
}

/// The Cluster as the dry-run client holds it before the reconcile (`.original.yaml`).
pub fn cluster_before(cluster: &Value) -> Result<Value> {
    let mut c = cluster.clone();
    obj::set(&mut c, &["metadata", "resourceVersion"], Value::from("999"));
    crate::typed::round_trip(&c).map_err(|e| Error::new(format!("failed to convert Cluster: {e}")))
}

/// The Cluster after the reconcile (`.modified.yaml`): labels and refs from the desired
/// Cluster, the `TopologyReconciled` conditions, three more resource versions.
pub fn cluster_after(before: &Value, desired_cluster: &Value) -> Result<Value> {
    let mut c = before.clone();
    for p in [
        &["metadata", "labels"][..],
        &["metadata", "annotations"],
        &["spec"],
    ] {
        if let Some(v) = obj::get(desired_cluster, p) {
            let mut intent = json!({});
            obj::set(&mut intent, p, v.clone());
            let intent = create_intent(&intent, &[]);
            if let Some(v) = obj::get(&intent, p) {
                merge_into(&mut c, p, v.clone());
            }
        }
    }
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

/// Merge `v` into `target` at `path`: maps merge key by key (recursively), anything
/// else replaces what is there.
fn merge_into(target: &mut Value, path: &[&str], v: Value) {
    let cur = path
        .iter()
        .try_fold(&mut *target, |t, k| t.as_object_mut()?.get_mut(*k));
    match (cur, v) {
        (Some(Value::Object(cur)), Value::Object(new)) => merge_maps(cur, new),
        (_, v) => obj::set(target, path, v),
    }
}

fn merge_maps(cur: &mut Map<String, Value>, new: Map<String, Value>) {
    for (k, x) in new {
        match (cur.get_mut(&k), x) {
            (Some(Value::Object(c)), Value::Object(n)) => merge_maps(c, n),
            (_, x) => {
                cur.insert(k, x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_intent_drops_empty_maps_and_disallowed_fields() {
        let d = json!({"apiVersion": "a/v1", "kind": "K", "status": {"x": 1},
            "metadata": {"name": "n", "creationTimestamp": null, "labels": {}},
            "spec": {"a": {}, "b": {"c": {}}, "l": [{}], "n": {"x": null}}});
        let v = create_intent(&d, &[]);
        assert_eq!(
            v,
            json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "n"},
            "spec": {"l": [{}], "n": {}}})
        );
    }

    #[test]
    fn ignore_paths_drop_endpoint() {
        let d = json!({"spec": {"controlPlaneEndpoint": {"host": "", "port": 0}, "x": 1}});
        let v = create_intent(&d, &infra_ignore_paths(&d));
        assert_eq!(v, json!({"spec": {"x": 1}}));
    }

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
