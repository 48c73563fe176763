//! What the API server does with a Cluster or ClusterClass against its CRD
//! (apiextensions-apiserver): [`decode`] (unknown fields refused or pruned, as
//! `--field-validation` says; nulls pruned; the schema's defaults applied), then, after the
//! defaulting webhooks, [`validate`] (the structural schema, the embedded list types, and
//! the CEL rules unless a blocking error came first — `customResourceStrategy.Validate`).

use serde_json::Value;

use super::crds::VersionSchema;
use super::{fields, FieldValidation, Refusal};
use crate::topology::variables::field_error::{aggregate, json_bad_value, ErrorType, FieldError};
use crate::topology::variables::{cel, openapi, unknown_fields::unknown_fields};

/// The object as decoded and stored, and the warnings of decoding it.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub value: Value,
    pub warnings: Vec<String>,
}

/// The unknown field paths of `raw`: its `metadata`'s (ObjectMeta) and its body's.
fn unknown_paths(raw: &Value, vs: &VersionSchema) -> Vec<String> {
    let mut out: Vec<String> =
        crate::validate::objectmeta::metadata_problems(raw.get("metadata"), "metadata")
            .into_iter()
            .filter(|p| p.kind == "unknown field")
            .map(|p| p.path)
            .collect();
    let mut body = raw.clone();
    if let Some(m) = body.as_object_mut() {
        m.remove("metadata");
    }
    out.extend(unknown_fields(&body, &vs.schema));
    out
}

/// Decodes `raw` (`kind`, its apiVersion's schema `vs`) as the API server does under
/// `mode`: `Err` lists the unknown fields under strict validation.
pub fn decode(raw: &Value, vs: &VersionSchema, mode: FieldValidation) -> Result<Decoded, Refusal> {
    let api = raw.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = raw.get("kind").and_then(Value::as_str).unwrap_or("");
    let unknown = unknown_paths(raw, vs);
    let mut warnings = Vec::new();
    if !unknown.is_empty() {
        let lines: Vec<String> = unknown
            .iter()
            .map(|p| fields::unknown_field_line(api, kind, p))
            .collect();
        match mode {
            FieldValidation::Strict => {
                return Err(Refusal {
                    message: format!(
                        "{} field(s) unknown to {api} {kind} (field validation strict, kubectl's default; the API server refuses the object):",
                        unknown.len()
                    ),
                    field: unknown[0].clone(),
                    lines,
                    hint: "use the field this version names, or remove it; --field-validation warn prunes unknown fields as the API server does for a server-side apply that does not ask for strict validation".into(),
                })
            }
            FieldValidation::Warn => {
                warnings.extend(lines.into_iter().map(|l| format!("{l}: pruned (--field-validation warn)")));
            }
        }
    }
    let value = crate::validate::stored::as_stored(raw, &vs.schema);
    Ok(Decoded { value, warnings })
}

/// `field.Duplicate` of a list-map item: its key as JSON (`{"name":"a"}`, `{}`).
fn duplicate(path: String, key: Option<(&str, &Value)>) -> FieldError {
    let shown = match key {
        Some((k, v)) => serde_json::json!({ k: v }),
        None => serde_json::json!({}),
    };
    FieldError::new(ErrorType::Duplicate, &path, json_bad_value(&shown), "")
}

/// `structurallisttype.ValidateListSetsAndMaps` over the raw schema `s`: duplicate items
/// of a `set`, duplicate keys of a `map` (one key, the only form the core CRDs use).
fn list_types(s: &Value, v: &Value, path: &str, out: &mut Vec<FieldError>) {
    use crate::topology::variables::field_error::{child, index, key};
    match v {
        Value::Object(m) => {
            let props = s.get("properties").and_then(Value::as_object);
            let additional = s.get("additionalProperties").filter(|a| a.is_object());
            for (k, item) in m {
                if let Some(sub) = props.and_then(|p| p.get(k)) {
                    list_types(sub, item, &child(path, k), out);
                } else if let Some(sub) = additional {
                    list_types(sub, item, &key(path, k), out);
                }
            }
        }
        Value::Array(items) => {
            match s.get("x-kubernetes-list-type").and_then(Value::as_str) {
                Some("set") => {
                    let mut seen = std::collections::HashMap::new();
                    for (i, x) in items.iter().enumerate() {
                        let n = seen.entry(x.to_string()).or_insert(0);
                        *n += 1;
                        if *n == 2 {
                            use crate::topology::variables::field_error::{go_sharp_v, BadValue};
                            out.push(FieldError::new(
                                ErrorType::Duplicate,
                                &index(path, i),
                                BadValue::GoSyntax(go_sharp_v(x)),
                                "",
                            ));
                        }
                    }
                }
                Some("map") => {
                    let keys: Vec<&str> = s
                        .get("x-kubernetes-list-map-keys")
                        .and_then(Value::as_array)
                        .map(|a| a.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    if let [k] = keys[..] {
                        let mut seen = std::collections::HashMap::new();
                        for (i, x) in items.iter().enumerate() {
                            let kv = x.get(k);
                            let n = seen.entry(kv.map(Value::to_string)).or_insert(0);
                            *n += 1;
                            if *n == 2 {
                                out.push(duplicate(index(path, i), kv.map(|v| (k, v))));
                            }
                        }
                    }
                }
                _ => {}
            }
            if let Some(sub) = s.get("items") {
                for (i, x) in items.iter().enumerate() {
                    list_types(sub, x, &index(path, i), out);
                }
            }
        }
        _ => {}
    }
}

/// The error types after which the API server runs no CEL rule (`hasBlockingErr`).
fn blocking(e: &FieldError) -> bool {
    matches!(
        e.kind,
        ErrorType::NotSupported
            | ErrorType::Required
            | ErrorType::TooLong
            | ErrorType::TooMany
            | ErrorType::TypeInvalid
    )
}

/// The API server's validation of the decoded (and webhook-defaulted) object `v` of
/// `kind` named `name` against `vs`: `Err` is its `Kind.cluster.x-k8s.io "name" is
/// invalid: ...` refusal.
pub fn validate(v: &Value, vs: &VersionSchema, kind: &str, name: &str) -> Result<(), Refusal> {
    let mut warnings = Vec::new();
    let oa = openapi::validate(&vs.schema, v, "", &mut warnings);
    let mut errs: Vec<FieldError> = openapi::to_field_errors(&oa, "", None)
        .into_iter()
        .map(|mut e| {
            e.field = e.field.trim_start_matches('.').to_string();
            e
        })
        .collect();
    list_types(&vs.raw, v, "", &mut errs);
    if vs.schema.has_validations() {
        if errs.iter().any(blocking) {
            errs.push(FieldError::new(
                ErrorType::Invalid,
                "<nil>",
                crate::topology::variables::field_error::BadValue::GoSyntax("null".into()),
                "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            ));
        } else {
            let mut c = cel::Outcome {
                crd_values: true,
                ..cel::Outcome::default()
            };
            cel::validate(&vs.schema, v, "", None, &mut c);
            errs.extend(c.errors);
        }
    }
    if errs.is_empty() {
        return Ok(());
    }
    Err(Refusal {
        message: format!(
            "{kind}.cluster.x-k8s.io {} is invalid: {}",
            crate::go::quote::quote(name),
            aggregate(&errs)
        ),
        field: errs[0].field.clone(),
        lines: Vec::new(),
        hint: "fix the field named above: the CRD schema of the core provider refuses it".into(),
    })
}
