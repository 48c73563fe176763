//! CEL `x-kubernetes-validations` of variable values: our own evaluator for the CEL
//! subset ClusterClasses use (lexer, parser, values, operators/macros, library
//! functions), and the walk apiextensions' CEL validator makes over a value and its
//! schema. What we cannot evaluate is returned as a warning, never passed silently.

pub mod check;
pub mod cost;
pub mod decl;
pub mod depth;
pub mod eval;
pub mod lexer;
pub mod parser;
pub mod static_check;
pub mod value;

use serde_json::Value;

use super::field_error::{child, index, key, BadValue, ErrorType, FieldError};
use super::schema::{Schema, ValidationRule};
use eval::{EvalError, Scope};
use value::{from_json, Val};

/// Errors and warnings of a CEL validation run.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Outcome {
    pub errors: Vec<FieldError>,
    pub warnings: Vec<String>,
    /// A failed rule names the value it failed on, as the API server's CRD validation
    /// of apiextensions v0.36 does (an object or array: its type only), instead of the
    /// schema's type.
    pub crd_values: bool,
}

/// Evaluates every rule of `schema` and its nested schemas against `value`; `fld_path`
/// names `value`; `raw` is the variable's JSON (the bad value CAPI reports). Without
/// `raw` (ClusterClass default checks) apiextensions' own bad value is kept: the type of
/// the schema the rule is on.
pub fn validate(
    schema: &Schema,
    value: &Value,
    fld_path: &str,
    raw: Option<&str>,
    out: &mut Outcome,
) {
    if value.is_null() {
        return;
    }
    for rule in &schema.validations {
        validate_rule(rule, schema, value, fld_path, raw, out);
    }
    for (i, a) in schema.all_of.iter().enumerate() {
        if a.has_validations() {
            out.warnings.push(format!("x-kubernetes-validations inside allOf[{i}] at {fld_path} are not evaluated by capi-render"));
        }
    }
    match value {
        Value::Array(items) => {
            if let Some(s) = &schema.items {
                for (i, item) in items.iter().enumerate() {
                    validate(s, item, &index(fld_path, i), raw, out);
                }
            }
        }
        Value::Object(map) => {
            if let Some(ap) = &schema.additional_properties {
                for (k, v) in map {
                    validate(ap, v, &key(fld_path, k), raw, out);
                }
            }
            for (k, v) in map {
                if let Some(s) = schema.properties.get(k) {
                    validate(s, v, &child(fld_path, k), raw, out);
                }
            }
        }
        _ => {}
    }
}

/// `ruleErrorString`: the trimmed message, or the trimmed rule.
fn rule_error_string(rule: &ValidationRule) -> String {
    if rule.message.is_empty() {
        rule.rule.trim().to_string()
    } else {
        rule.message.trim().to_string()
    }
}

/// `ruleMessageOrDefault`.
fn rule_message_or_default(rule: &ValidationRule) -> String {
    if rule.message.is_empty() {
        format!("failed rule: {}", rule_error_string(rule))
    } else {
        rule.message.trim().to_string()
    }
}

/// `fieldPath` normalised as apiextensions' `ValidFieldPath` prints it: `.a.b` → `a.b`,
/// `['k']` → `[k]`.
fn normalized_field_path(fp: &str) -> String {
    let mut out = String::new();
    let mut rest = fp.trim();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            out = child(&out, &r[..end]);
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix("['") {
            let end = r.find("']").unwrap_or(r.len());
            out = key(&out, &r[..end]);
            rest = r.get(end + 2..).unwrap_or("");
        } else {
            out.push_str(rest);
            break;
        }
    }
    out
}

fn validate_rule(
    rule: &ValidationRule,
    schema: &Schema,
    value: &Value,
    fld_path: &str,
    raw: Option<&str>,
    out: &mut Outcome,
) {
    if rule.rule.trim().is_empty() {
        return;
    }
    let expr = match parser::parse(&rule.rule) {
        Ok(e) => e,
        Err(e) => {
            out.warnings.push(format!(
                "CEL rule {:?} at {fld_path} was not evaluated: {e}",
                rule.rule
            ));
            return;
        }
    };
    // Transition rules need the old value; offline there is none, and apiextensions
    // skips them too.
    if parser::references(&expr, "oldSelf") {
        return;
    }
    let undefined = static_check::undefined_fields(&expr, schema);
    if !undefined.is_empty() {
        out.warnings.push(format!(
            "CEL rule {:?} at {fld_path} selects undefined field(s) {}: the ClusterClass webhook rejects it (compilation failed)",
            rule.rule,
            undefined.iter().map(|f| format!("'{f}'")).collect::<Vec<_>>().join(", ")
        ));
    }
    let self_val = from_json(value, Some(schema));
    let scope = Scope::root(vec![("self".to_string(), self_val)]);
    let crd_bad = out.crd_values.then(|| match value {
        Value::Object(_) | Value::Array(_) => BadValue::Omit,
        v => super::field_error::json_bad_value(v),
    });
    let bad = || BadValue::Str(raw.unwrap_or(&schema.type_).to_string());
    let result = eval::eval(&expr, &scope);
    match result {
        Ok(Val::Bool(true)) => {}
        Ok(_) => {
            let path = if rule.field_path.is_empty() {
                fld_path.to_string()
            } else {
                child(fld_path, &normalized_field_path(&rule.field_path))
            };
            let detail = message(rule, &scope, fld_path, out);
            // The value the rule failed on (CRD validation: `crd_values`).
            // apiextensions v0.33+ reports a failed rule with the value itself (omitted
            // for an object or a list) rather than the schema's type.
            let failed = || match raw {
                _ if crd_bad.is_some() => crd_bad.clone().unwrap_or_else(bad),
                Some(_) => bad(),
                None => BadValue::Versioned {
                    before_v033: Box::new(bad()),
                    since_v033: Box::new(match schema.type_.as_str() {
                        "object" | "array" => BadValue::Omit,
                        _ => super::openapi::go_value(value),
                    }),
                },
            };
            let mut e = match rule.reason.as_str() {
                "FieldValueForbidden" => FieldError::forbidden(&path, detail),
                "FieldValueRequired" => FieldError::required(&path, detail),
                "FieldValueDuplicate" => FieldError::new(ErrorType::Duplicate, &path, failed(), ""),
                _ => FieldError::invalid(&path, failed(), detail),
            };
            e.bad_value = failed();
            out.errors.push(e);
        }
        Err(EvalError::Runtime(m)) if m.starts_with("no such overload") => out.errors.push(FieldError::invalid(
            fld_path,
            bad(),
            format!("'{m}': call arguments did not match a supported operator, function or macro signature for rule: {}", rule_error_string(rule)),
        )),
        Err(EvalError::Runtime(m)) => {
            out.errors.push(FieldError::invalid(fld_path, bad(), format!("{m} evaluating rule: {}", rule_error_string(rule))))
        }
        Err(EvalError::Unsupported(what)) => out.warnings.push(format!(
            "CEL rule {:?} at {fld_path} was not evaluated: {what} is not supported by capi-render",
            rule.rule
        )),
    }
}

/// The error detail of a failed rule: the evaluated `messageExpression` when it yields
/// a usable string, otherwise the message or `failed rule: <rule>`.
fn message(rule: &ValidationRule, scope: &Scope, fld_path: &str, out: &mut Outcome) -> String {
    if rule.message_expression.trim().is_empty() {
        return rule_message_or_default(rule);
    }
    let evaluated = parser::parse(&rule.message_expression)
        .map_err(|e| EvalError::Unsupported(e.to_string()))
        .and_then(|e| eval::eval(&e, scope));
    match evaluated {
        Ok(Val::Str(s))
            if !s.trim().is_empty() && !s.trim().contains('\n') && s.trim().len() <= 5 * 1024 =>
        {
            s.trim().to_string()
        }
        Ok(_) | Err(EvalError::Runtime(_)) => rule_message_or_default(rule),
        Err(EvalError::Unsupported(what)) => {
            out.warnings.push(format!(
                "CEL messageExpression {:?} at {fld_path} was not evaluated: {what} is not supported by capi-render",
                rule.message_expression
            ));
            rule_message_or_default(rule)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(schema: Value, v: Value) -> Outcome {
        let s = Schema::from_value(&schema, "s").unwrap();
        let mut out = Outcome::default();
        validate(
            &s,
            &v,
            "spec.topology.variables[x].value",
            Some(&crate::go::json::marshal(&v)),
            &mut out,
        );
        out
    }

    #[test]
    fn failing_rule_with_message_and_default_message() {
        let o = run(
            json!({"type": "integer", "x-kubernetes-validations": [{"rule": "self > 3", "message": "too small"}, {"rule": "self % 2 == 0"}]}),
            json!(1),
        );
        let texts: Vec<String> = o.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            texts,
            vec![
            "spec.topology.variables[x].value: Invalid value: \"1\": too small",
            "spec.topology.variables[x].value: Invalid value: \"1\": failed rule: self % 2 == 0",
        ]
        );
    }

    #[test]
    fn nested_rules_field_path_reason_and_message_expression() {
        let o = run(
            json!({"type": "object", "properties": {"r": {"type": "object",
                "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}},
                "x-kubernetes-validations": [{"rule": "self.end >= self.start", "messageExpression": "'end %d < start %d'.format([self.end, self.start])", "fieldPath": ".end", "reason": "FieldValueForbidden"}]}}}),
            json!({"r": {"start": 5, "end": 2}}),
        );
        assert_eq!(
            o.errors[0].to_string(),
            "spec.topology.variables[x].value.r.end: Forbidden: end 2 < start 5"
        );
    }

    #[test]
    fn runtime_errors_and_unsupported_functions() {
        let o = run(
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "x-kubernetes-validations": [{"rule": "self.a == 'x'"}]}),
            json!({}),
        );
        assert_eq!(
            o.errors[0].detail,
            "no such key: a evaluating rule: self.a == 'x'"
        );
        let o = run(
            json!({"type": "string", "x-kubernetes-validations": [{"rule": "isURL(self)"}]}),
            json!("x"),
        );
        assert!(o.errors.is_empty());
        assert_eq!(o.warnings.len(), 1);
        assert!(o.warnings[0].contains("function isURL"));
    }

    #[test]
    fn data_of_the_wrong_type_fails_the_rules_that_read_it() {
        // apiextensions converts lazily: the read of `x.name` (a number where the schema
        // says string) fails the evaluation; `size()` reads no element.
        let schema = json!({"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}},
            "x-kubernetes-validations": [{"rule": "self.all(x, self.exists_one(y, x.name == y.name))"}, {"rule": "self.size() < 5"}]});
        let o = run(schema.clone(), json!([{"name": 12}, {"name": "b"}]));
        assert_eq!(o.errors.len(), 1, "{o:?}");
        assert_eq!(
            o.errors[0].detail,
            "invalid data, expected string, got int64 evaluating rule: self.all(x, self.exists_one(y, x.name == y.name))"
        );
        assert!(run(schema, json!([{"name": "a"}, {"name": "b"}]))
            .errors
            .is_empty());
    }

    #[test]
    fn transition_rules_are_skipped_and_items_are_indexed() {
        let o = run(
            json!({"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}),
            json!("x"),
        );
        assert_eq!(o, Outcome::default());
        let o = run(
            json!({"type": "array", "items": {"type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith('a')"}]}}),
            json!(["a", "b"]),
        );
        assert_eq!(o.errors[0].field, "spec.topology.variables[x].value[1]");
    }

    #[test]
    fn undefined_fields_warn() {
        let o = run(
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "x-kubernetes-validations": [{"rule": "!has(self.zz) || self.a == 'x'"}]}),
            json!({"a": "x"}),
        );
        assert!(o.errors.is_empty());
        assert_eq!(o.warnings.len(), 1);
        assert!(o.warnings[0].contains("'zz'"), "{:?}", o.warnings);
    }

    #[test]
    fn field_paths() {
        assert_eq!(normalized_field_path(".a.b"), "a.b");
        assert_eq!(normalized_field_path(".m['k.x']"), "m[k.x]");
    }
}
