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

/// clusterctl's `scheme.Scheme.Convert(obj, &typed)` followed by the conversion back:
/// the object must carry the typed struct's `target` apiVersion; its content then
/// goes through [`crate::typed::round_trip_as`].
pub fn typed_round_trip(o: &Value, target: &str) -> crate::Result<Value> {
    let k = kind(o);
    let av = o.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if av != target {
        let (tg, tv) = target.split_once('/').unwrap_or(("", target));
        let registered = group_of(av) == tg && crate::typed::is_supported(av, k)
            || matches!(
                (group_of(av), version_of(av)),
                ("apps", "v1beta1" | "v1beta2")
                    | ("rbac.authorization.k8s.io", "v1beta1" | "v1alpha1")
            );
        return Err(crate::Error::new(if registered {
            format!(
                "converting ({}.{k}) to ({tv}.{k}): unknown conversion",
                version_of(av)
            )
        } else {
            format!("no kind \"{k}\" is registered for version \"{av}\" in scheme \"pkg/runtime/scheme.go:100\"")
        }));
    }
    crate::typed::round_trip_as(o, target, k)
        .map_err(|e| crate::typed::scheme_convert_error(target, k, &e))
}

fn group_of(api_version: &str) -> &str {
    api_version.split_once('/').map(|(g, _)| g).unwrap_or("")
}

fn version_of(api_version: &str) -> &str {
    api_version
        .split_once('/')
        .map(|(_, v)| v)
        .unwrap_or(api_version)
}
