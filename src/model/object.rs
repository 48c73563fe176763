//! Accessors over objects held as `serde_json::Value` (Kubernetes' unstructured
//! objects): nested fields, metadata, the group and version of `apiVersion`. Every
//! stage reads objects through these; the Go behaviour each mirrors is named on it.

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

/// Set `path` to `value`, creating (or replacing non-object) intermediate maps, as
/// `unstructured.SetNestedField` does.
pub fn set(v: &mut Value, path: &[&str], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        *v = value;
        return;
    };
    let mut cur = v;
    for p in parents {
        cur = object_mut(cur)
            .entry(p.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    object_mut(cur).insert(last.to_string(), value);
}

/// `v` as a map, replacing a non-map with an empty one first.
fn object_mut(v: &mut Value) -> &mut Map<String, Value> {
    if !v.is_object() {
        *v = Value::Object(Map::new());
    }
    match v {
        Value::Object(m) => m,
        _ => unreachable!("replaced by a map above"),
    }
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

/// `GetName()`: `metadata.name` or `""`.
pub fn name(v: &Value) -> &str {
    str_at(v, &["metadata", "name"])
}

/// `GetNamespace()`: `metadata.namespace` or `""`.
pub fn namespace(v: &Value) -> &str {
    str_at(v, &["metadata", "namespace"])
}

/// `Kind namespace/name` (`Kind name` without a namespace), as messages name an object.
pub fn describe(v: &Value) -> String {
    match namespace(v) {
        "" => format!("{} {}", kind(v), name(v)),
        ns => format!("{} {ns}/{}", kind(v), name(v)),
    }
}

/// `GetKind()`: `kind` or `""`.
pub fn kind(v: &Value) -> &str {
    str_at(v, &["kind"])
}

/// `GetAPIVersion()`: `apiVersion` or `""`.
pub fn api_version(v: &Value) -> &str {
    str_at(v, &["apiVersion"])
}

/// `schema.ParseGroupVersion`: `(group, version)`, `None` when it does not parse (more
/// than one `/`). `""` and `"/"` are the empty group version; `v1` is the core group.
pub fn parse_group_version(api_version: &str) -> Option<(&str, &str)> {
    if api_version.is_empty() || api_version == "/" {
        return Some(("", ""));
    }
    match api_version.split_once('/') {
        None => Some(("", api_version)),
        Some((_, v)) if v.contains('/') => None,
        Some(gv) => Some(gv),
    }
}

/// The group of an apiVersion (`""` for the core group, and for one that does not
/// parse, as unstructured's `GroupVersionKind()` gives).
pub fn group_of(api_version: &str) -> &str {
    parse_group_version(api_version).map_or("", |(g, _)| g)
}

/// The version of an apiVersion (`""` when it does not parse).
pub fn version_of(api_version: &str) -> &str {
    parse_group_version(api_version).map_or("", |(_, v)| v)
}

/// The `metadata` map, created (replacing a non-map) as `unstructured.SetNestedField`
/// does.
pub fn metadata_mut(o: &mut Value) -> &mut Map<String, Value> {
    object_mut(object_mut(o).entry("metadata").or_insert(Value::Null))
}

/// `SetName`/`SetNamespace`/`SetLabels`: an empty value removes the field.
pub fn set_metadata_field(o: &mut Value, field: &str, v: Value) {
    let md = metadata_mut(o);
    let empty = match &v {
        Value::String(s) => s.is_empty(),
        Value::Object(m) => m.is_empty(),
        Value::Null => true,
        _ => false,
    };
    if empty {
        md.remove(field);
    } else {
        md.insert(field.to_string(), v);
    }
}

/// The strings of the list at `path` (non-string items skipped; absent: empty).
pub fn string_list(v: &Value, path: &[&str]) -> Vec<String> {
    get(v, path)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// A string map (labels, annotations) at `path`, its non-string values skipped (what a
/// typed `map[string]string` keeps after a lenient decode).
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

/// `unstructured.NestedStringMap` of `metadata.<field>` (`labels`, `annotations`):
/// `None` if absent or if any value is not a string.
pub fn nested_string_map(o: &Value, field: &str) -> Option<Map<String, Value>> {
    let m = get(o, &["metadata", field])?.as_object()?;
    m.values().all(Value::is_string).then(|| m.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn group_versions_parse_as_go_does() {
        assert_eq!(parse_group_version(""), Some(("", "")));
        assert_eq!(parse_group_version("/"), Some(("", "")));
        assert_eq!(parse_group_version("v1"), Some(("", "v1")));
        assert_eq!(
            parse_group_version("cluster.x-k8s.io/v1beta1"),
            Some(("cluster.x-k8s.io", "v1beta1"))
        );
        assert_eq!(parse_group_version("a/b/c"), None);
        assert_eq!(group_of("a/b/c"), "");
        assert_eq!(group_of("apps/v1"), "apps");
        assert_eq!(version_of("v1"), "v1");
        assert_eq!(version_of("apps/v1"), "v1");
    }

    #[test]
    fn nested_fields() {
        let mut o = json!({"metadata": "x", "kind": 3});
        assert_eq!(kind(&o), "");
        set(&mut o, &["metadata", "labels", "a"], json!("1"));
        assert_eq!(str_at(&o, &["metadata", "labels", "a"]), "1");
        assert_eq!(
            remove(&mut o, &["metadata", "labels", "a"]),
            Some(json!("1"))
        );
        assert_eq!(remove(&mut o, &["nope", "a"]), None);
        set_metadata_field(&mut o, "name", json!("n"));
        assert_eq!(name(&o), "n");
        set_metadata_field(&mut o, "name", json!(""));
        assert_eq!(get(&o, &["metadata", "name"]), None);
        let mut s = json!("scalar");
        metadata_mut(&mut s).insert("namespace".into(), json!("ns"));
        assert_eq!(namespace(&s), "ns");
    }

    #[test]
    fn string_maps() {
        let o = json!({"metadata": {"labels": {"a": "1", "b": 2}, "annotations": {"c": "3"}}});
        assert_eq!(
            string_map(&o, &["metadata", "labels"]),
            json!({"a": "1"}).as_object().cloned().unwrap()
        );
        assert_eq!(nested_string_map(&o, "labels"), None);
        assert_eq!(
            nested_string_map(&o, "annotations"),
            json!({"c": "3"}).as_object().cloned()
        );
        assert_eq!(nested_string_map(&o, "missing"), None);
        let l = json!({"a": {"b": ["x", 1, "y"]}});
        assert_eq!(string_list(&l, &["a", "b"]), ["x", "y"]);
        assert!(string_list(&l, &["a"]).is_empty());
    }
}
