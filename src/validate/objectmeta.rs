//! ObjectMeta as the API server reads it from a custom resource (apiextensions
//! `schema/objectmeta`): the root object's `metadata` and that of every
//! `x-kubernetes-embedded-resource` object. Its fields are decoded into
//! `metav1.ObjectMeta`: a field of the wrong type (a number as an annotation value, a
//! timestamp that is not RFC 3339) makes the whole `metadata` invalid, and then its
//! unknown fields are not listed; otherwise each field ObjectMeta does not have is an
//! unknown field. An embedded resource also needs `apiVersion` and `kind`
//! (`validateEmbeddedResource`).

use serde_json::{Map, Value};

use super::Problem;
use crate::topology::variables::schema::Schema;

/// The fields of ObjectMeta (k8s.io/apimachinery metav1.ObjectMeta), in JSON.
pub const OBJECT_META: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

fn problem(path: String, kind: &str, message: String) -> Problem {
    Problem {
        path,
        kind: kind.into(),
        message,
    }
}

/// The problems of `meta` (the `metadata` at `path`, "metadata" for the root).
pub fn metadata_problems(meta: Option<&Value>, path: &str) -> Vec<Problem> {
    let mut out = Vec::new();
    match meta {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            if let Some(why) = decode_error(m) {
                out.push(problem(
                    path.into(),
                    "Invalid value",
                    format!("Invalid value: {why}"),
                ));
                return out;
            }
            for k in m.keys().filter(|k| !OBJECT_META.contains(&k.as_str())) {
                out.push(problem(
                    format!("{path}.{k}"),
                    "unknown field",
                    "unknown field".into(),
                ));
            }
        }
        Some(_) => out.push(problem(
            path.into(),
            "Invalid value",
            "Invalid value: metadata must be an object".into(),
        )),
    }
    out
}

/// Why decoding `m` into metav1.ObjectMeta fails (Go's JSON rules: `null` is accepted
/// anywhere, unknown fields are ignored), if it does.
fn decode_error(m: &Map<String, Value>) -> Option<String> {
    let string = |v: &Value| matches!(v, Value::String(_) | Value::Null);
    let int = |v: &Value| v.is_null() || v.as_i64().is_some();
    let time = |v: &Value| match v {
        Value::Null => true,
        Value::String(s) => is_rfc3339(s),
        _ => false,
    };
    let string_map = |v: &Value| match v {
        Value::Null => true,
        Value::Object(o) => o.values().all(string),
        _ => false,
    };
    let list = |v: &Value, item: &dyn Fn(&Value) -> bool| match v {
        Value::Null => true,
        Value::Array(a) => a.iter().all(item),
        _ => false,
    };
    let object = |v: &Value, fields: &[(&str, &dyn Fn(&Value) -> bool)]| match v {
        Value::Null => true,
        Value::Object(o) => fields.iter().all(|(k, ok)| o.get(*k).is_none_or(|x| ok(x))),
        _ => false,
    };
    let boolean = |v: &Value| matches!(v, Value::Bool(_) | Value::Null);
    for (k, v) in m {
        let ok = match k.as_str() {
            "name" | "generateName" | "namespace" | "selfLink" | "uid" | "resourceVersion" => {
                string(v)
            }
            "generation" | "deletionGracePeriodSeconds" => int(v),
            "creationTimestamp" | "deletionTimestamp" => time(v),
            "labels" | "annotations" => string_map(v),
            "finalizers" => list(v, &string),
            "ownerReferences" => list(v, &|o| {
                object(
                    o,
                    &[
                        ("apiVersion", &string),
                        ("kind", &string),
                        ("name", &string),
                        ("uid", &string),
                        ("controller", &boolean),
                        ("blockOwnerDeletion", &boolean),
                    ],
                )
            }),
            "managedFields" => list(v, &|o| {
                object(
                    o,
                    &[
                        ("manager", &string),
                        ("operation", &string),
                        ("apiVersion", &string),
                        ("time", &time),
                        ("fieldsType", &string),
                        ("subresource", &string),
                    ],
                )
            }),
            _ => true,
        };
        if !ok {
            return Some(format!("metadata.{k} does not decode as ObjectMeta's {k}"));
        }
    }
    None
}

/// Go's `time.Parse(time.RFC3339, s)` succeeds (what metav1.Time reads).
fn is_rfc3339(s: &str) -> bool {
    crate::typed::gotime::parse_rfc3339(s).is_ok()
}

/// The problems of the embedded resources in `v` (schema `s`, at `path`): each one's
/// `apiVersion` and `kind` (required, strings, well-formed) and its `metadata`.
pub fn embedded_problems(v: &Value, s: &Schema, path: &str, out: &mut Vec<Problem>) {
    let child = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match v {
        Value::Object(m) => {
            if s.embedded_resource && !path.is_empty() {
                embedded_resource(m, path, out);
            }
            for (k, x) in m {
                if s.embedded_resource && matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                if let Some(p) = s.properties.get(k) {
                    embedded_problems(x, p, &child(k), out);
                } else if let Some(ap) = &s.additional_properties {
                    embedded_problems(x, ap, &format!("{path}[{k}]"), out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(it) = &s.items {
                for (i, x) in items.iter().enumerate() {
                    embedded_problems(x, it, &format!("{path}[{i}]"), out);
                }
            }
        }
        _ => {}
    }
}

/// `validateEmbeddedResource` and the metadata coercion of one embedded object.
fn embedded_resource(m: &Map<String, Value>, path: &str, out: &mut Vec<Problem>) {
    for k in ["apiVersion", "kind"] {
        match m.get(k) {
            None => out.push(problem(
                format!("{path}.{k}"),
                "Required value",
                "Required value".into(),
            )),
            Some(Value::String(t)) if t.is_empty() => out.push(problem(
                format!("{path}.{k}"),
                "Invalid value",
                "Invalid value: \"\": must not be empty".into(),
            )),
            Some(Value::String(t)) => {
                let bad = if k == "apiVersion" {
                    group_version_error(t)
                } else {
                    dns1035_label_error(&t.to_lowercase())
                };
                if let Some(why) = bad {
                    out.push(problem(
                        format!("{path}.{k}"),
                        "Invalid value",
                        format!("Invalid value: {t:?}: {why}"),
                    ));
                }
            }
            Some(_) => out.push(problem(
                format!("{path}.{k}"),
                "Invalid value",
                "Invalid value: must be a string".into(),
            )),
        }
    }
    out.extend(metadata_problems(
        m.get("metadata"),
        &format!("{path}.metadata"),
    ));
}

/// `schema.ParseGroupVersion`'s error.
fn group_version_error(t: &str) -> Option<String> {
    crate::model::object::parse_group_version(t)
        .is_none()
        .then(|| format!("unexpected GroupVersion string: {t}"))
}

/// `IsDNS1035Label` (of the lowercased kind).
fn dns1035_label_error(t: &str) -> Option<String> {
    let b = t.as_bytes();
    let ok = !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_lowercase()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-');
    (!ok).then(|| "may have mixed case, but should otherwise match: a DNS-1035 label".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn object_meta_decodes_or_the_whole_metadata_is_invalid() {
        let p = metadata_problems(Some(&json!({"name": "a", "lables": {}})), "metadata");
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].path.as_str(), p[0].kind.as_str()),
            ("metadata.lables", "unknown field")
        );
        let p = metadata_problems(
            Some(&json!({"name": "a", "lables": {}, "annotations": {"a": 1}})),
            "metadata",
        );
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].path.as_str(), p[0].kind.as_str()),
            ("metadata", "Invalid value")
        );
        for bad in [
            json!({"generation": 1.5}),
            json!({"creationTimestamp": "yesterday"}),
            json!({"finalizers": [1]}),
            json!({"ownerReferences": [{"controller": "yes"}]}),
        ] {
            assert_eq!(
                metadata_problems(Some(&bad), "m")[0].kind,
                "Invalid value",
                "{bad}"
            );
        }
        for good in [
            json!({"creationTimestamp": null, "labels": null, "annotations": {"a": null}}),
            json!({"creationTimestamp": "2024-01-02T03:04:05Z", "generation": 3}),
            json!({"deletionTimestamp": "2024-02-29T23:59:59.5+05:30"}),
        ] {
            assert!(metadata_problems(Some(&good), "m").is_empty(), "{good}");
        }
    }

    #[test]
    fn embedded_resources_need_api_version_and_kind_and_their_metadata_is_object_meta() {
        let s = Schema::from_crd_value(
            &json!({"type": "object", "properties": {"template": {
                "type": "object", "x-kubernetes-embedded-resource": true,
                "properties": {"spec": {"type": "object"}}}}}),
            "s",
        )
        .unwrap();
        let mut out = Vec::new();
        embedded_problems(
            &json!({"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}}),
            &s,
            "",
            &mut out,
        );
        assert!(out.is_empty(), "{out:?}");
        embedded_problems(
            &json!({"template": {"kind": "Bad_Kind", "metadata": {"bogus": 1}}}),
            &s,
            "",
            &mut out,
        );
        let got: Vec<(&str, &str)> = out
            .iter()
            .map(|p| (p.path.as_str(), p.kind.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("template.apiVersion", "Required value"),
                ("template.kind", "Invalid value"),
                ("template.metadata.bogus", "unknown field"),
            ]
        );
    }
}
