//! The structural-schema rules apiextensions checks on a variable schema
//! (`structuralschema.ValidateStructural`, the subset a ClusterClass schema can break):
//! arrays need `items`, specified fields and items need a `type` (unless
//! int-or-string or preserve-unknown-fields), the int-or-string / preserve-unknown
//! combination, and value validations under `allOf`/`anyOf`/`oneOf`/`not` must not carry
//! types, defaults, descriptions, additionalProperties or extensions. Errors are sorted by
//! text, as apiextensions sorts them.

use super::field_error::{child, index, key, BadValue, FieldError};
use super::schema::Schema;

#[derive(Clone, Copy, PartialEq)]
enum Level {
    Item,
    Field,
}

/// Structural errors of a variable schema at `path` (the variable is a field of the
/// wrapper object CAPI builds).
pub fn structural_errors(s: &Schema, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    invariants(s, Level::Field, path, &mut errs);
    errs.sort_by_key(|e| e.to_string());
    errs
}

fn invariants(s: &Schema, lvl: Level, path: &str, errs: &mut Vec<FieldError>) {
    if s.type_ == "array" && s.items.is_none() {
        errs.push(FieldError::required(
            &child(path, "items"),
            "must be specified",
        ));
    }
    if let Some(it) = &s.items {
        invariants(it, Level::Item, &child(path, "items"), errs);
    }
    for (k, p) in &s.properties {
        invariants(p, Level::Field, &key(&child(path, "properties"), k), errs);
    }
    if let Some(ap) = &s.additional_properties {
        invariants(ap, Level::Field, &child(path, "additionalProperties"), errs);
    }
    pattern_errors(s, path, errs);
    if s.int_or_string && s.preserve_unknown_fields {
        errs.push(FieldError::invalid(
            &child(path, "x-kubernetes-preserve-unknown-fields"),
            BadValue::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    let int_or_string_any_of = s.int_or_string && is_int_or_string_pair(&s.any_of);
    for (name, list) in [
        ("allOf", &s.all_of),
        ("anyOf", &s.any_of),
        ("oneOf", &s.one_of),
    ] {
        if name == "anyOf" && int_or_string_any_of {
            continue;
        }
        for (i, sub) in list.iter().enumerate() {
            nested(sub, &index(&child(path, name), i), errs);
        }
    }
    if let Some(n) = &s.not {
        nested(n, &child(path, "not"), errs);
    }
    if s.type_.is_empty() && !s.int_or_string && !s.preserve_unknown_fields {
        let msg = match lvl {
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        errs.push(FieldError::required(&child(path, "type"), msg));
    }
}

/// A `pattern` must compile (Go's error text for the common mistakes, see `crate::go::regex`).
fn pattern_errors(s: &Schema, path: &str, errs: &mut Vec<FieldError>) {
    if s.pattern.is_empty() {
        return;
    }
    if let Err(e) = crate::go::regex::compile(&s.pattern) {
        let reason = crate::go::regex::go_error(&s.pattern, &e);
        errs.push(FieldError::invalid(
            &child(path, "pattern"),
            BadValue::Str(s.pattern.clone()),
            format!("must be a valid regular expression, but isn't: {reason}"),
        ));
    }
}

/// `anyOf: [{type: integer}, {type: string}]`, the int-or-string exception.
fn is_int_or_string_pair(any_of: &[Schema]) -> bool {
    any_of.len() == 2 && any_of[0].type_ == "integer" && any_of[1].type_ == "string"
}

/// A value validation under a junctor.
fn nested(s: &Schema, path: &str, errs: &mut Vec<FieldError>) {
    for (name, list) in [
        ("allOf", &s.all_of),
        ("anyOf", &s.any_of),
        ("oneOf", &s.one_of),
    ] {
        for (i, sub) in list.iter().enumerate() {
            nested(sub, &index(&child(path, name), i), errs);
        }
    }
    if let Some(n) = &s.not {
        nested(n, &child(path, "not"), errs);
    }
    pattern_errors(s, path, errs);
    if let Some(it) = &s.items {
        nested(it, &child(path, "items"), errs);
    }
    for (k, p) in &s.properties {
        nested(p, &key(&child(path, "properties"), k), errs);
    }
    let forbidden = |errs: &mut Vec<FieldError>, field: &str, what: &str| {
        errs.push(FieldError::forbidden(
            &child(path, field),
            format!("must {what} to be structural"),
        ));
    };
    if !s.type_.is_empty() {
        forbidden(errs, "type", "be empty");
    }
    if s.additional_properties.is_some() {
        forbidden(errs, "additionalProperties", "be undefined");
    }
    if s.default.is_some() {
        forbidden(errs, "default", "be undefined");
    }
    if !s.description.is_empty() {
        forbidden(errs, "description", "be empty");
    }
    if s.preserve_unknown_fields {
        forbidden(errs, "x-kubernetes-preserve-unknown-fields", "be false");
    }
    if s.int_or_string {
        forbidden(errs, "x-kubernetes-int-or-string", "be false");
    }
    if !s.validations.is_empty() {
        forbidden(errs, "x-kubernetes-validations", "be empty");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(v: serde_json::Value) -> Vec<String> {
        let s = Schema::from_value(&v, "s").unwrap();
        structural_errors(&s, "p")
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn types_and_items_are_required() {
        assert_eq!(
            texts(json!({"type": "object", "properties": {"a": {"maxLength": 2}, "b": {"type": "array"}}})),
            vec![
                "p.properties[a].type: Required value: must not be empty for specified object fields",
                "p.properties[b].items: Required value: must be specified",
            ]
        );
        assert_eq!(
            texts(json!({"type": "array", "items": {}})),
            vec!["p.items.type: Required value: must not be empty for specified array items"]
        );
        assert!(texts(json!({"x-kubernetes-int-or-string": true})).is_empty());
        assert!(texts(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"x": {"x-kubernetes-preserve-unknown-fields": true}}})).is_empty());
    }

    #[test]
    fn patterns_must_compile() {
        let t = texts(json!({"type": "string", "pattern": "[a"}));
        assert_eq!(t, vec!["p.pattern: Invalid value: \"[a\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ]: `[a`"]);
        assert!(texts(json!({"type": "string", "pattern": "^(?=a)"})).len() == 1);
        assert!(texts(json!({"type": "string", "pattern": "^a+$"})).is_empty());
    }

    #[test]
    fn junctors_must_not_carry_types() {
        assert_eq!(
            texts(
                json!({"type": "integer", "allOf": [{"type": "integer", "minimum": 1}], "not": {"default": 1}})
            ),
            vec![
                "p.allOf[0].type: Forbidden: must be empty to be structural",
                "p.not.default: Forbidden: must be undefined to be structural",
            ]
        );
        assert!(texts(json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]})).is_empty());
    }
}
