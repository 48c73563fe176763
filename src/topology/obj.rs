//! Small helpers over `serde_json::Value` objects: nested fields, metadata, refs.

use serde_json::{Map, Value};

/// The value at `path` (object keys), if every step exists.
pub fn get<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut cur = v;
    for p in path {
        cur = cur.as_object()?.get(*p)?;
    }
    Some(cur)
}

/// The string at `path`, or `""`.
pub fn str_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    get(v, path).and_then(Value::as_str).unwrap_or("")
}

/// Set `path` to `value`, creating (or replacing non-object) intermediate maps.
pub fn set(v: &mut Value, path: &[&str], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        *v = value;
        return;
    };
    let mut cur = v;
    for p in parents {
        if !cur.is_object() {
            *cur = Value::Object(Map::new());
        }
        let m = cur.as_object_mut().expect("object");
        cur = m
            .entry(p.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    if !cur.is_object() {
        *cur = Value::Object(Map::new());
    }
    cur.as_object_mut()
        .expect("object")
        .insert(last.to_string(), value);
}

/// Remove the field at `path`; returns it.
pub fn remove(v: &mut Value, path: &[&str]) -> Option<Value> {
    let (last, parents) = path.split_last()?;
    let mut cur = v;
    for p in parents {
        cur = cur.as_object_mut()?.get_mut(*p)?;
    }
    cur.as_object_mut()?.remove(*last)
}

pub fn name(v: &Value) -> &str {
    str_at(v, &["metadata", "name"])
}

pub fn namespace(v: &Value) -> &str {
    str_at(v, &["metadata", "namespace"])
}

pub fn kind(v: &Value) -> &str {
    str_at(v, &["kind"])
}

pub fn api_version(v: &Value) -> &str {
    str_at(v, &["apiVersion"])
}

/// The group of an apiVersion (`""` for the core group).
pub fn group_of(api_version: &str) -> &str {
    match api_version.rsplit_once('/') {
        Some((g, _)) => g,
        None => "",
    }
}

/// A string map (labels, annotations) at `path`; non-string values are skipped.
pub fn string_map(v: &Value, path: &[&str]) -> Map<String, Value> {
    match get(v, path) {
        Some(Value::Object(m)) => m
            .iter()
            .filter(|(_, v)| v.is_string())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        _ => Map::new(),
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

    #[test]
    fn group_of_core_is_empty() {
        assert_eq!(group_of("v1"), "");
        assert_eq!(group_of("cluster.x-k8s.io/v1beta1"), "cluster.x-k8s.io");
    }
}
