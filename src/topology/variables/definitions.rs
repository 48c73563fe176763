//! ClusterClass-side variable rules (internal/topology/variables/
//! clusterclass_variable_validation.go), the subset that needs no CEL compiler: unique,
//! non-empty names without `.` and other than `builtin`; supported types;
//! `additionalProperties` and `properties` mutually exclusive; `x-kubernetes-validations`
//! rule/message/reason constraints; `example` and `enum` values valid against the schema.

use serde_json::Value;

use super::field_error::{child, index, invalid_object_message, key, BadValue, FieldError};
use super::openapi;
use super::schema::Schema;
use crate::error::{Error, Result};
use crate::yaml::read::go_quote;

const TYPES: &[&str] = &["array", "boolean", "integer", "number", "object", "string"];
const REASONS: &[&str] = &[
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

/// Field errors for `spec.variables` of a ClusterClass.
pub fn variable_definition_errors(cluster_class: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let vars = cluster_class
        .pointer("/spec/variables")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let base = "spec.variables";
    let mut seen: Vec<&str> = Vec::new();
    for v in vars {
        let name = v.get("name").and_then(Value::as_str).unwrap_or("");
        if seen.contains(&name) {
            errs.push(FieldError::invalid(
                &child(&key(base, name), "name"),
                BadValue::Str(name.into()),
                format!(
                    "variable name must be unique. Variable with name {} is defined more than once",
                    go_quote(name)
                ),
            ));
        }
        seen.push(name);
    }
    for v in vars {
        let name = v.get("name").and_then(Value::as_str).unwrap_or("");
        let path = key(base, name);
        let name_path = child(&path, "name");
        if name.is_empty() {
            errs.push(FieldError::required(
                &name_path,
                "variable name must be defined",
            ));
        }
        if name == "builtin" {
            errs.push(FieldError::invalid(
                &name_path,
                BadValue::Str(name.into()),
                "\"builtin\" is a reserved variable name",
            ));
        }
        if name.contains('.') {
            errs.push(FieldError::invalid(
                &name_path,
                BadValue::Str(name.into()),
                "variable name cannot contain \".\"",
            ));
        }
        let schema_path = format!("{path}.schema.openAPIV3Schema");
        match v
            .pointer("/schema/openAPIV3Schema")
            .map(|s| Schema::from_value(s, &schema_path))
        {
            Some(Ok(s)) => schema_errors(&s, &schema_path, &mut errs),
            Some(Err(e)) => errs.push(FieldError::invalid(
                &schema_path,
                BadValue::Str(String::new()),
                e.message().to_string(),
            )),
            None => {}
        }
    }
    errs
}

fn schema_errors(s: &Schema, path: &str, errs: &mut Vec<FieldError>) {
    if !s.type_.is_empty() && !TYPES.contains(&s.type_.as_str()) {
        let valid: Vec<String> = TYPES.iter().map(|t| t.to_string()).collect();
        errs.push(FieldError::not_supported(
            &child(path, "type"),
            BadValue::Str(s.type_.clone()),
            &valid,
        ));
        return;
    }
    let mut w = Vec::new();
    if let Some(ex) = &s.example {
        let oa = openapi::validate(s, ex, "", &mut w);
        errs.extend(
            openapi::to_field_errors(&oa, &child(path, "example"), "")
                .into_iter()
                .map(keep_type_value),
        );
    }
    for (i, e) in s.enum_.iter().enumerate() {
        let oa = openapi::validate(s, e, "", &mut w);
        errs.extend(
            openapi::to_field_errors(&oa, &index(&child(path, "enum"), i), "")
                .into_iter()
                .map(keep_type_value),
        );
    }
    if let Some(ap) = &s.additional_properties {
        if !s.properties.is_empty() {
            errs.push(FieldError::forbidden(
                path,
                "additionalProperties and properties are mutually exclusive",
            ));
        }
        schema_errors(ap, &child(path, "additionalProperties"), errs);
    }
    for (k, p) in &s.properties {
        schema_errors(p, &key(&child(path, "properties"), k), errs);
    }
    if let Some(it) = &s.items {
        schema_errors(it, &child(path, "items"), errs);
    }
    for (i, r) in s.validations.iter().enumerate() {
        let rp = index(&child(path, "x-kubernetes-validations"), i);
        let msg = r.message.trim();
        let has_nl = |t: &str| t.contains('\n') || t.contains('\r');
        if r.rule.trim().is_empty() {
            errs.push(FieldError::required(
                &child(&rp, "rule"),
                "rule is not specified",
            ));
        } else if !r.message.is_empty() && msg.is_empty() {
            errs.push(FieldError::invalid(
                &child(&rp, "message"),
                BadValue::Str(r.message.clone()),
                "message must be non-empty if specified",
            ));
        } else if r.message.len() > 2048 {
            let head: String = r.message.chars().take(10).collect();
            errs.push(FieldError::invalid(
                &child(&rp, "message"),
                BadValue::Str(format!("{head}...")),
                "message must have a maximum length of 2048 characters",
            ));
        } else if has_nl(msg) {
            errs.push(FieldError::invalid(
                &child(&rp, "message"),
                BadValue::Str(r.message.clone()),
                "message must not contain line breaks",
            ));
        } else if has_nl(r.rule.trim()) && msg.is_empty() {
            errs.push(FieldError::required(
                &child(&rp, "message"),
                "message must be specified if rule contains line breaks",
            ));
        }
        if !r.message_expression.is_empty() && r.message_expression.trim().is_empty() {
            errs.push(FieldError::required(
                &child(&rp, "messageExpression"),
                "messageExpression must be non-empty if specified",
            ));
        }
        if !r.reason.is_empty() && !REASONS.contains(&r.reason.as_str()) {
            let valid: Vec<String> = REASONS.iter().map(|t| t.to_string()).collect();
            errs.push(FieldError::not_supported(
                &child(&rp, "reason"),
                BadValue::Str(r.reason.clone()),
                &valid,
            ));
        }
    }
}

/// Example/enum errors keep kube-openapi's own bad values (the type name for type errors),
/// not a variable's raw JSON; we only know the text form, so the value is omitted there.
fn keep_type_value(mut e: FieldError) -> FieldError {
    e.bad_value = BadValue::Str(String::new());
    e
}

/// The ClusterClass webhook's variable checks; `Ok` when there is nothing to report.
pub fn validate_cluster_class_variables(cluster_class: &Value) -> Result<()> {
    let errs = variable_definition_errors(cluster_class);
    if errs.is_empty() {
        return Ok(());
    }
    let name = cluster_class
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    Err(Error::new(invalid_object_message(
        "ClusterClass.cluster.x-k8s.io",
        name,
        &errs,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(cc: Value) -> Vec<String> {
        variable_definition_errors(&cc)
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn names() {
        let t = texts(
            json!({"spec": {"variables": [{"name": "a"}, {"name": "a"}, {"name": "builtin"}, {"name": "x.y"}]}}),
        );
        assert_eq!(t, vec![
            "spec.variables[a].name: Invalid value: \"a\": variable name must be unique. Variable with name \"a\" is defined more than once",
            "spec.variables[builtin].name: Invalid value: \"builtin\": \"builtin\" is a reserved variable name",
            "spec.variables[x.y].name: Invalid value: \"x.y\": variable name cannot contain \".\"",
        ]);
    }

    #[test]
    fn schema_rules() {
        let t = texts(json!({"spec": {"variables": [
            {"name": "t", "schema": {"openAPIV3Schema": {"type": "map"}}},
            {"name": "o", "schema": {"openAPIV3Schema": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}}},
            {"name": "r", "schema": {"openAPIV3Schema": {"type": "string", "x-kubernetes-validations": [{"rule": " "}, {"rule": "true", "reason": "Bad"}]}}}
        ]}}));
        assert_eq!(t, vec![
            "spec.variables[t].schema.openAPIV3Schema.type: Unsupported value: \"map\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
            "spec.variables[o].schema.openAPIV3Schema: Forbidden: additionalProperties and properties are mutually exclusive",
            "spec.variables[r].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Required value: rule is not specified",
            "spec.variables[r].schema.openAPIV3Schema.x-kubernetes-validations[1].reason: Unsupported value: \"Bad\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"",
        ]);
    }

    #[test]
    fn examples_and_enums_must_validate() {
        let t = texts(
            json!({"spec": {"variables": [{"name": "e", "schema": {"openAPIV3Schema": {"type": "integer", "maximum": 3, "example": 5, "enum": [1, 9]}}}]}}),
        );
        assert_eq!(t, vec![
            "spec.variables[e].schema.openAPIV3Schema.example: Invalid value: \"\": should be less than or equal to 3",
            "spec.variables[e].schema.openAPIV3Schema.example: Unsupported value: \"\": supported values: \"1\", \"9\"",
            "spec.variables[e].schema.openAPIV3Schema.enum[1]: Invalid value: \"\": should be less than or equal to 3",
        ]);
        assert!(texts(json!({"spec": {"variables": [{"name": "ok", "schema": {"openAPIV3Schema": {"type": "string", "example": "x"}}}]}})).is_empty());
    }
}
