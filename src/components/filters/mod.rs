//! One transformation per file, each a small function over the object list
//! (kustomize's `api/filters` is the model). They run in clusterctl's order,
//! driven by [`super::render`].

pub mod add_namespace;
pub mod common_labels;
pub mod fix_images;
pub mod order;
pub mod target_namespace;

use serde_json::{Map, Value};

/// `unstructured.GetKind()`: the `kind` string or "".
pub fn kind(o: &Value) -> &str {
    o.get("kind").and_then(Value::as_str).unwrap_or("")
}

/// `unstructured.GetName()`.
pub fn name(o: &Value) -> &str {
    o.get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// `unstructured.GetNamespace()`.
pub fn namespace(o: &Value) -> &str {
    o.get("metadata")
        .and_then(|m| m.get("namespace"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The group of `apiVersion` (`""` for the core group).
pub fn group(o: &Value) -> &str {
    let av = o.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    match av.split_once('/') {
        Some((g, _)) => g,
        None => "",
    }
}

/// The version of `apiVersion`.
pub fn version(o: &Value) -> &str {
    let av = o.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    match av.split_once('/') {
        Some((_, v)) => v,
        None => av,
    }
}

/// The `metadata` map, created (replacing a non-map) as `unstructured.SetNestedField` does.
pub fn metadata_mut(o: &mut Value) -> &mut Map<String, Value> {
    if !o.is_object() {
        *o = Value::Object(Map::new());
    }
    let m = o.as_object_mut().expect("object ensured above");
    let md = m
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !md.is_object() {
        *md = Value::Object(Map::new());
    }
    md.as_object_mut().expect("object ensured above")
}

/// A string map field of metadata (`labels`, `annotations`) as
/// `NestedStringMap` reads it: `None` if absent or if any value is not a string.
pub fn string_map(o: &Value, field: &str) -> Option<Map<String, Value>> {
    let m = o.get("metadata")?.get(field)?.as_object()?;
    if m.values().all(Value::is_string) {
        Some(m.clone())
    } else {
        None
    }
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
