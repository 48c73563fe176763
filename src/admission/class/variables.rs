//! `variables.ValidateClusterClassVariables` (v1.14.2) on `spec.variables`, through the
//! shared port in `topology::variables::definitions` (the same rules in v1.10 and v1.14:
//! names, duplicate names, `deprecatedV1Beta1Metadata` and `x-metadata`, structural
//! schema, defaults, examples and enums against the schema and its CEL rules, rule
//! fields, CEL compilation and cost) with apimachinery v0.36's texts; and the status
//! variables of `reconcileVariables`.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::list;
use crate::topology::variables::definitions::variable_definition_errors_v1beta2;
use crate::topology::variables::field_error::{ErrorType, FieldError};

/// The variable errors of the class, as v1.14.2 prints them.
pub(super) fn definition_errors(cc: &Value) -> Vec<FieldError> {
    variable_definition_errors_v1beta2(cc)
        .into_iter()
        .map(to_v036)
        .collect()
}

/// A field error of the shared (v0.32-worded) port in apimachinery v0.36's words: bad
/// values as v0.33+ prints them (a complex or nil value as JSON, a failed CEL rule's
/// value itself); label and annotation texts ([`super::meta`]); "1 item", "1 byte".
fn to_v036(mut e: FieldError) -> FieldError {
    e.bad_value = e.bad_value.since_v033();
    let metadata = [".deprecatedV1Beta1Metadata.", ".x-metadata."]
        .iter()
        .any(|m| format!("{}.", e.field).contains(m));
    if metadata {
        e = super::meta::to_v036(e);
    }
    if e.kind == ErrorType::TooMany && e.detail == "must have at most 1 items" {
        e.detail = "must have at most 1 item".into();
    }
    if e.kind == ErrorType::TooLong && e.detail == "may not be more than 1 bytes" {
        e.detail = "may not be more than 1 byte".into();
    }
    e
}

/// `reconcileVariables` for inline variables: one entry per name (a later definition of
/// a name replaces an earlier one, as Go's map does), `definitionsConflict: false`, one
/// `from: inline` definition in the v1beta2 shape, sorted by name.
pub(super) fn status_variables(cc: &Value) -> Value {
    let mut by_name: BTreeMap<&str, Value> = BTreeMap::new();
    for v in list(cc, &["spec", "variables"]) {
        let name = v.get("name").and_then(Value::as_str).unwrap_or("");
        let mut def = Map::new();
        def.insert("from".into(), json!("inline"));
        if let Some(r) = v.get("required").and_then(Value::as_bool) {
            def.insert("required".into(), Value::Bool(r));
        }
        if let Some(m) = metadata(v.get("deprecatedV1Beta1Metadata")) {
            def.insert("deprecatedV1Beta1Metadata".into(), m);
        }
        if let Some(s) = v
            .pointer("/schema/openAPIV3Schema")
            .filter(|s| s.is_object())
        {
            // `omitzero`: a schema with only empty lists and maps is not zero (its
            // slices and maps are not nil), though it prints as `{}`.
            let has_collection = [
                "properties",
                "required",
                "enum",
                "allOf",
                "oneOf",
                "anyOf",
                "x-kubernetes-validations",
            ]
            .iter()
            .any(|k| s.get(*k).is_some_and(|v| v.is_array() || v.is_object()));
            let s = typed_schema(s);
            if has_collection || s.as_object().is_some_and(|o| !o.is_empty()) {
                def.insert("schema".into(), json!({ "openAPIV3Schema": s }));
            }
        }
        let mut entry = Map::new();
        if !name.is_empty() {
            entry.insert("name".into(), Value::from(name));
        }
        entry.insert("definitionsConflict".into(), Value::Bool(false));
        entry.insert("definitions".into(), Value::Array(vec![Value::Object(def)]));
        by_name.insert(name, Value::Object(entry));
    }
    Value::Array(by_name.into_values().collect())
}

/// A `ClusterClassVariableMetadata` / `VariableSchemaMetadata` (`omitzero`; its maps
/// `omitempty`), `None` when zero.
fn metadata(m: Option<&Value>) -> Option<Value> {
    let m = m?;
    let mut out = Map::new();
    let mut zero = true;
    for k in ["labels", "annotations"] {
        if let Some(Value::Object(o)) = m.get(k) {
            zero = false;
            if !o.is_empty() {
                out.insert(k.into(), Value::Object(o.clone()));
            }
        }
    }
    (!zero).then_some(Value::Object(out))
}

/// A v1beta2 `JSONSchemaProps` after a typed round trip: its fields only, empty strings,
/// lists and maps dropped (`omitempty`), pointers (`*bool`, `*int64`, raw JSON) kept when
/// set, even `false`.
fn typed_schema(s: &Value) -> Value {
    let mut out = Map::new();
    let mut put = |k: &str, v: Value| {
        out.insert(k.to_string(), v);
    };
    for k in ["description", "type", "format", "pattern"] {
        if let Some(t) = s.get(k).and_then(Value::as_str).filter(|t| !t.is_empty()) {
            put(k, Value::from(t));
        }
    }
    for k in [
        "maxProperties",
        "minProperties",
        "maxItems",
        "minItems",
        "maxLength",
        "minLength",
        "maximum",
        "minimum",
    ] {
        if let Some(n) = s.get(k).filter(|n| n.is_number()) {
            put(k, n.clone());
        }
    }
    for k in [
        "uniqueItems",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-int-or-string",
    ] {
        if let Some(b) = s.get(k).filter(|b| b.is_boolean()) {
            put(k, b.clone());
        }
    }
    for k in ["example", "default"] {
        if let Some(x) = s.get(k).filter(|x| !x.is_null()) {
            put(k, x.clone());
        }
    }
    for k in ["additionalProperties", "items", "not"] {
        if let Some(x) = s.get(k).filter(|x| x.is_object()) {
            put(k, typed_schema(x));
        }
    }
    for k in ["allOf", "oneOf", "anyOf"] {
        if let Some(a) = s.get(k).and_then(Value::as_array).filter(|a| !a.is_empty()) {
            put(k, Value::Array(a.iter().map(typed_schema).collect()));
        }
    }
    if let Some(p) = s
        .get("properties")
        .and_then(Value::as_object)
        .filter(|p| !p.is_empty())
    {
        let p: Map<String, Value> = p
            .iter()
            .map(|(k, v)| (k.clone(), typed_schema(v)))
            .collect();
        put("properties", Value::Object(p));
    }
    for k in ["required", "enum"] {
        if let Some(a) = s.get(k).and_then(Value::as_array).filter(|a| !a.is_empty()) {
            put(k, Value::Array(a.clone()));
        }
    }
    if let Some(rules) = s
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty())
    {
        let rules = rules
            .iter()
            .map(|r| {
                let mut m = Map::new();
                for k in [
                    "rule",
                    "message",
                    "messageExpression",
                    "reason",
                    "fieldPath",
                ] {
                    if let Some(t) = r.get(k).and_then(Value::as_str).filter(|t| !t.is_empty()) {
                        m.insert(k.into(), Value::from(t));
                    }
                }
                Value::Object(m)
            })
            .collect();
        put("x-kubernetes-validations", Value::Array(rules));
    }
    if let Some(m) = metadata(s.get("x-metadata")) {
        put("x-metadata", m);
    }
    Value::Object(out)
}
