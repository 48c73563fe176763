//! Access to the parts of a Deployment (as JSON, after the typed round trip) that the
//! customisation changes, with `unstructured.SetNestedField`'s "create or replace a
//! non-map" behaviour, and container `args` as a Go `[]string`.

use serde_json::{Map, Value};

/// The map at `path` under `o`, created (replacing non-maps) on the way.
pub fn map_at<'a>(o: &'a mut Value, path: &[&str]) -> &'a mut Map<String, Value> {
    let mut cur = o;
    for key in path {
        if !cur.is_object() {
            *cur = Value::Object(Map::new());
        }
        cur = cur
            .as_object_mut()
            .expect("object ensured above")
            .entry(key.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    if !cur.is_object() {
        *cur = Value::Object(Map::new());
    }
    cur.as_object_mut().expect("object ensured above")
}

/// `d.Spec.Template.Spec`.
pub fn pod_spec_mut(d: &mut Value) -> &mut Map<String, Value> {
    map_at(d, &["spec", "template", "spec"])
}

/// `d.Spec.Template.Spec.Containers` (a typed Deployment may hold `containers: null`).
pub fn containers_mut(d: &mut Value) -> Option<&mut Vec<Value>> {
    pod_spec_mut(d).get_mut("containers")?.as_array_mut()
}

/// A container's `name` (`""` when absent).
pub fn container_name(c: &Value) -> &str {
    c.get("name").and_then(Value::as_str).unwrap_or("")
}

/// A container's `args` as Go's `[]string`.
pub fn args(c: &Map<String, Value>) -> Vec<String> {
    match c.get("args") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| x.as_str().unwrap_or("").to_string())
            .collect(),
        _ => Vec::new(),
    }
}

/// Write `args` back (an empty list is omitted, as `omitempty` does).
pub fn set_args(c: &mut Map<String, Value>, args: Vec<String>) {
    if args.is_empty() {
        c.remove("args");
    } else {
        c.insert(
            "args".into(),
            Value::Array(args.into_iter().map(Value::String).collect()),
        );
    }
}
