//! CAPI's `ValidateClusterVariables` / `ValidateMachineVariables`
//! (internal/topology/variables/cluster_variable_validation.go): required variables,
//! definitions, then per value the OpenAPI schema checks, unknown fields and CEL rules.

use serde_json::Value;

use super::cel;
use super::field_error::{child, key, BadValue, FieldError};
use super::index::{raw_value, values_index, Definition, Definitions};
use super::openapi;
use super::unknown_fields::unknown_fields;
use crate::go::quote::quote as go_quote;

/// Errors and warnings of a validation run.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Report {
    pub errors: Vec<FieldError>,
    pub warnings: Vec<String>,
}

/// Validates a list of variables; `validate_required` is set for `spec.topology.variables`.
pub fn validate_variables(
    values: &[Value],
    definitions: &Definitions,
    validate_required: bool,
    fld_path: &str,
) -> Report {
    let mut report = Report::default();
    if let Err(e) = values_index(values, fld_path) {
        report.errors = e;
        return report;
    }
    let defs = match definitions.index(fld_path) {
        Ok(d) => d,
        Err(e) => {
            report.errors = e;
            return report;
        }
    };
    if validate_required {
        // Go ranges over a map here; we report in name order.
        for (name, d) in defs {
            let set = values
                .iter()
                .any(|v| v.get("name").and_then(Value::as_str) == Some(name.as_str()));
            if d.required && !set {
                report.errors.push(FieldError::required(
                    fld_path,
                    format!("required variable {} must be set", go_quote(name)),
                ));
            }
        }
    }
    for v in values {
        let name = v.get("name").and_then(Value::as_str).unwrap_or("");
        let path = key(fld_path, name);
        match defs.get(name) {
            None => report.errors.push(FieldError::invalid(
                &path,
                BadValue::Str(raw_value(Some(v))),
                "variable is not defined",
            )),
            Some(d) => validate_variable(v, d, &path, &mut report),
        }
    }
    report
}

/// `ValidateClusterVariable`: schema, then unknown fields, then CEL; each stage stops the
/// checks of this variable when it finds errors.
pub fn validate_variable(variable: &Value, def: &Definition, fld_path: &str, report: &mut Report) {
    let raw = raw_value(Some(variable));
    let value = variable.get("value").cloned().unwrap_or(Value::Null);
    let value_path = child(fld_path, "value");
    let oa = openapi::validate(&def.schema, &value, "", &mut report.warnings);
    if !oa.is_empty() {
        report
            .errors
            .extend(openapi::to_field_errors(&oa, &value_path, Some(&raw)));
        return;
    }
    let unknown = unknown_fields(&value, &def.schema);
    if !unknown.is_empty() {
        report.errors.push(FieldError::invalid(
            fld_path,
            BadValue::Str(raw.clone()),
            format!(
                "failed validation: {} field(s) are not specified in the variable schema of variable {}",
                go_quote(&unknown.join(",")),
                go_quote(&def.name)
            ),
        ));
        return;
    }
    let mut out = cel::Outcome::default();
    cel::validate(&def.schema, &value, &value_path, Some(&raw), &mut out);
    report.errors.extend(out.errors);
    report.warnings.extend(out.warnings);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn status(name: &str, required: bool, s: Value) -> Value {
        json!({"name": name, "definitionsConflict": false, "definitions": [{"from": "inline", "required": required, "schema": {"openAPIV3Schema": s}}]})
    }

    fn texts(r: &Report) -> Vec<String> {
        r.errors.iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn required_and_undefined() {
        let defs = vec![
            status("a", true, json!({"type": "string"})),
            status("b", true, json!({"type": "string"})),
        ];
        let r = validate_variables(
            &[
                json!({"name": "b", "value": "x"}),
                json!({"name": "c", "value": 1}),
            ],
            &Definitions::new(&defs),
            true,
            "spec.topology.variables",
        );
        assert_eq!(
            texts(&r),
            vec![
                "spec.topology.variables: Required value: required variable \"a\" must be set",
                "spec.topology.variables[c]: Invalid value: \"1\": variable is not defined",
            ]
        );
        let r = validate_variables(&[], &Definitions::new(&defs), false, "p");
        assert!(r.errors.is_empty());
    }

    #[test]
    fn schema_errors_stop_before_unknown_fields() {
        let defs = vec![status(
            "o",
            false,
            json!({"type": "object", "properties": {"a": {"type": "integer", "maximum": 2}}}),
        )];
        let r = validate_variables(
            &[json!({"name": "o", "value": {"a": 3, "z": 1}})],
            &Definitions::new(&defs),
            true,
            "v",
        );
        assert_eq!(texts(&r), vec!["v[o].value.a: Invalid value: \"{\\\"a\\\":3,\\\"z\\\":1}\": a in body should be less than or equal to 2"]);
        let r = validate_variables(
            &[json!({"name": "o", "value": {"a": 1, "z": 1}})],
            &Definitions::new(&defs),
            true,
            "v",
        );
        assert_eq!(texts(&r), vec![
            "v[o]: Invalid value: \"{\\\"a\\\":1,\\\"z\\\":1}\": failed validation: \"z\" field(s) are not specified in the variable schema of variable \"o\""
        ]);
    }
}
