//! R6.1.2: owner references to the provider CR on every namespaced object
//! (cluster-api `util.EnsureOwnerRef` over unstructured `Get/SetOwnerReferences`).
//!
//! Offline the CR's UID is unknown, so [`super::CustomizeInput::owner_uid`] defaults to
//! `None` and no reference is written; with a UID the operator's exact behaviour is
//! reproduced:
//!
//! * only objects with a non-empty `metadata.namespace` get a reference;
//! * existing references are read as `metav1.OwnerReference` and written back through
//!   it: unknown fields are dropped, missing strings become `""`, `controller` and
//!   `blockOwnerDeletion` are kept only when they are booleans; a list holding a
//!   non-object (or a non-list) reads as no references at all;
//! * a reference with the same API *group* (version ignored), kind and name is
//!   replaced in place, otherwise the new one is appended.

use serde_json::{Map, Value};

use crate::model::object::{metadata_mut, namespace, parse_group_version};

/// The provider's API version, `operator.cluster.x-k8s.io/v1alpha2`.
pub const OPERATOR_API_VERSION: &str = "operator.cluster.x-k8s.io/v1alpha2";

fn same_object(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    let s = |m: &Map<String, Value>, k: &str| {
        m.get(k).and_then(Value::as_str).unwrap_or("").to_string()
    };
    let gv = |m| parse_group_version(m).map(|(g, _)| g);
    match (gv(&s(a, "apiVersion")), gv(&s(b, "apiVersion"))) {
        (Some(ga), Some(gb)) => {
            ga == gb && s(a, "kind") == s(b, "kind") && s(a, "name") == s(b, "name")
        }
        _ => false,
    }
}

/// `extractOwnerReference` then `ToUnstructured(&OwnerReference)`.
fn normalize(r: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for k in ["apiVersion", "kind", "name", "uid"] {
        let v = r.get(k).and_then(Value::as_str).unwrap_or("");
        out.insert(k.into(), Value::String(v.into()));
    }
    for k in ["controller", "blockOwnerDeletion"] {
        if let Some(Value::Bool(b)) = r.get(k) {
            out.insert(k.into(), Value::Bool(*b));
        }
    }
    out
}

/// `GetOwnerReferences`: `None` when absent or malformed (Go's nil).
fn existing(o: &Value) -> Vec<Map<String, Value>> {
    let Some(Value::Array(items)) = o.get("metadata").and_then(|m| m.get("ownerReferences")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for i in items {
        match i.as_object() {
            Some(m) => out.push(normalize(m)),
            None => return Vec::new(),
        }
    }
    out
}

/// Ensure the owner reference `{apiVersion, kind, name, uid}` on a namespaced object.
pub fn ensure_owner_ref(o: &mut Value, kind: &str, name: &str, uid: &str) {
    if namespace(o).is_empty() {
        return;
    }
    let mut refs = existing(o);
    let mut new = Map::new();
    new.insert(
        "apiVersion".into(),
        Value::String(OPERATOR_API_VERSION.into()),
    );
    new.insert("kind".into(), Value::String(kind.into()));
    new.insert("name".into(), Value::String(name.into()));
    new.insert("uid".into(), Value::String(uid.into()));
    match refs.iter().position(|r| same_object(r, &new)) {
        Some(i) => refs[i] = new,
        None => refs.push(new),
    }
    metadata_mut(o).insert(
        "ownerReferences".into(),
        Value::Array(refs.into_iter().map(Value::Object).collect()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn namespaced_objects_get_the_reference_cluster_scoped_do_not() {
        let mut ns =
            json!({"kind": "Service", "metadata": {"name": "s", "namespace": "capi-system"}});
        let mut cs = json!({"kind": "ClusterRole", "metadata": {"name": "r"}});
        ensure_owner_ref(&mut ns, "CoreProvider", "cluster-api", "u-1");
        ensure_owner_ref(&mut cs, "CoreProvider", "cluster-api", "u-1");
        assert_eq!(
            ns["metadata"]["ownerReferences"],
            json!([{"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": "CoreProvider",
                    "name": "cluster-api", "uid": "u-1"}])
        );
        assert!(cs["metadata"].get("ownerReferences").is_none());
    }

    #[test]
    fn same_group_kind_name_is_replaced_others_normalised_and_kept() {
        let mut o = json!({"kind": "Service", "metadata": {"name": "s", "namespace": "n", "ownerReferences": [
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "x", "controller": true, "extra": 1},
            {"apiVersion": "operator.cluster.x-k8s.io/v1alpha1", "kind": "CoreProvider", "name": "cluster-api", "uid": "old"},
        ]}});
        ensure_owner_ref(&mut o, "CoreProvider", "cluster-api", "new");
        assert_eq!(
            o["metadata"]["ownerReferences"],
            json!([
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "x", "controller": true},
                {"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": "CoreProvider", "name": "cluster-api", "uid": "new"},
            ])
        );
    }

    #[test]
    fn malformed_list_reads_as_empty() {
        let mut o = json!({"kind": "Service", "metadata": {"name": "s", "namespace": "n", "ownerReferences": [1]}});
        ensure_owner_ref(&mut o, "BootstrapProvider", "kubeadm", "u");
        assert_eq!(
            o["metadata"]["ownerReferences"].as_array().unwrap().len(),
            1
        );
    }
}
