//! Fields a value has that its schema does not declare, as apiextensions' pruning
//! reports them (`structuralpruning.PruneWithOptions` with `TrackUnknownFieldPaths`).
//! CAPI does not prune variable values: it rejects them when this list is not empty.

use serde_json::Value;

use super::schema::Schema;

/// What pruning leaves alone in an embedded resource (`metaFields`).
const META_FIELDS: &[&str] = &["apiVersion", "kind", "metadata"];

/// The sorted unknown field paths of the wrapped value `{variableValue: v}`, with CAPI's
/// `variableValue.` prefix trimmed (a root array keeps `variableValue[i]…`).
pub fn unknown_fields(v: &Value, s: &Schema) -> Vec<String> {
    let mut out = Vec::new();
    let mut parent = vec!["variableValue".to_string()];
    prune(v, Some(s), &mut parent, &mut out);
    out.sort();
    out.into_iter()
        .map(|p| {
            p.strip_prefix("variableValue.")
                .map(str::to_string)
                .unwrap_or(p)
        })
        .collect()
}

/// Whether pruning `v` against `s` would drop anything (a default "must not have unknown fields").
pub fn has_unknown_fields(v: &Value, s: &Schema) -> bool {
    let mut out = Vec::new();
    prune(v, Some(s), &mut vec![], &mut out);
    !out.is_empty()
}

fn append_key(parent: &mut Vec<String>, k: &str) {
    if !parent.is_empty() {
        parent.push(".".into());
    }
    parent.push(k.into());
}

fn record(parent: &[String], k: &str, out: &mut Vec<String>) {
    let mut p = parent.to_vec();
    append_key(&mut p, k);
    out.push(p.concat());
}

fn prune(x: &Value, s: Option<&Schema>, parent: &mut Vec<String>, out: &mut Vec<String>) {
    if let Some(s) = s.filter(|s| s.preserve_unknown_fields) {
        skip_prune(x, s, parent, out);
        return;
    }
    let len = parent.len();
    match x {
        Value::Object(map) => {
            let Some(s) = s else {
                for k in map.keys() {
                    record(parent, k, out);
                }
                return;
            };
            for (k, v) in map {
                // An embedded resource's apiVersion, kind and metadata are ObjectMeta's
                // business (CRD schemas only: `validate::objectmeta`).
                if s.embedded_resource && META_FIELDS.contains(&k.as_str()) {
                    continue;
                }
                if let Some(p) = s.properties.get(k) {
                    append_key(parent, k);
                    prune(v, Some(p), parent, out);
                } else if let Some(ap) = &s.additional_properties {
                    append_key(parent, k);
                    prune(v, Some(ap), parent, out);
                } else {
                    record(parent, k, out);
                }
                parent.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                parent.extend(["[".to_string(), i.to_string(), "]".to_string()]);
                prune(v, s.and_then(|s| s.items.as_deref()), parent, out);
                parent.truncate(len);
            }
        }
        _ => {}
    }
}

fn skip_prune(x: &Value, s: &Schema, parent: &mut Vec<String>, out: &mut Vec<String>) {
    let len = parent.len();
    match x {
        Value::Object(map) => {
            for (k, v) in map {
                if s.embedded_resource && META_FIELDS.contains(&k.as_str()) {
                    continue;
                }
                if let Some(p) = s.properties.get(k) {
                    append_key(parent, k);
                    prune(v, Some(p), parent, out);
                } else if let Some(ap) = &s.additional_properties {
                    append_key(parent, k);
                    prune(v, Some(ap), parent, out);
                }
                parent.truncate(len);
            }
        }
        Value::Array(items) => {
            if let Some(it) = &s.items {
                for (i, v) in items.iter().enumerate() {
                    parent.extend(["[".to_string(), i.to_string(), "]".to_string()]);
                    skip_prune(v, it, parent, out);
                    parent.truncate(len);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> Schema {
        Schema::from_value(&v, "s").unwrap()
    }

    #[test]
    fn reports_undeclared_fields_sorted() {
        let s = schema(
            json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}}),
        );
        assert_eq!(
            unknown_fields(&json!({"z": 1, "a": {"b": "x", "c": 2}}), &s),
            vec!["a.c", "z"]
        );
    }

    #[test]
    fn preserve_unknown_fields_and_arrays() {
        let s = schema(
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"a": {"type": "object"}}}),
        );
        assert_eq!(
            unknown_fields(&json!({"z": 1, "a": {"q": 1}}), &s),
            vec!["a.q"]
        );
        let s = schema(json!({"type": "array", "items": {"type": "object"}}));
        assert_eq!(
            unknown_fields(&json!([{"q": 1}]), &s),
            vec!["variableValue[0].q"]
        );
        let s = schema(json!({"type": "object", "additionalProperties": {"type": "string"}}));
        assert!(unknown_fields(&json!({"q": "x"}), &s).is_empty());
        assert!(!has_unknown_fields(&json!({"q": "x"}), &s));
        assert!(has_unknown_fields(
            &json!({"q": "x"}),
            &schema(json!({"type": "object"}))
        ));
    }
}
