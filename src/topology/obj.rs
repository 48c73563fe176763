//! Topology's helpers over objects: references, owner references, map merging and
//! plan order, over the shared accessors of [`crate::model::object`].

use serde_json::{Map, Value};

pub use crate::model::object::{
    api_version, get, group_of, kind, name, namespace, remove, set, str_at, string_map,
};

/// The namespace of a Cluster's ClusterClass: `spec.topology.classNamespace`, defaulting
/// to the Cluster's own namespace.
pub fn class_namespace(cluster: &Value) -> &str {
    match str_at(cluster, &["spec", "topology", "classNamespace"]) {
        "" => namespace(cluster),
        n => n,
    }
}

/// `util.MergeMap`: the first map wins on key conflicts.
pub fn merge_maps(maps: &[&Map<String, Value>]) -> Map<String, Value> {
    let mut out = Map::new();
    for m in maps {
        for (k, v) in m.iter() {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    out
}

/// An ObjectReference `{apiVersion, kind, name, namespace}` to `obj`.
pub fn ref_to(obj: &Value) -> Value {
    let mut m = Map::new();
    m.insert("apiVersion".into(), Value::from(api_version(obj)));
    m.insert("kind".into(), Value::from(kind(obj)));
    m.insert("name".into(), Value::from(name(obj)));
    m.insert("namespace".into(), Value::from(namespace(obj)));
    Value::Object(m)
}

/// An owner reference to the Cluster, as `ownerrefs.OwnerReferenceTo` builds it offline
/// (uid empty).
pub fn owner_ref_to_cluster(cluster_name: &str) -> Value {
    serde_json::json!({
        "apiVersion": "cluster.x-k8s.io/v1beta1",
        "kind": "Cluster",
        "name": cluster_name,
        "uid": "",
    })
}

/// `lessByKindAndName`.
pub fn sort_by_kind_and_name(objs: &mut [Value]) {
    objs.sort_by(|a, b| (kind(a), name(a)).cmp(&(kind(b), name(b))));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn set_creates_parents_and_get_reads_them() {
        let mut v = json!({});
        set(&mut v, &["a", "b"], json!(1));
        assert_eq!(get(&v, &["a", "b"]), Some(&json!(1)));
        assert_eq!(remove(&mut v, &["a", "b"]), Some(json!(1)));
        assert_eq!(v, json!({"a": {}}));
    }

    #[test]
    fn merge_maps_first_wins() {
        let a = json!({"x": "a"});
        let b = json!({"x": "b", "y": "b"});
        let m = merge_maps(&[a.as_object().unwrap(), b.as_object().unwrap()]);
        assert_eq!(Value::Object(m), json!({"x": "a", "y": "b"}));
    }
}
