//! kube-openapi's `allOf` / `anyOf` / `oneOf` / `not` checks, with its messages and its
//! choice of the failing alternative to report (the first one with the highest
//! `MatchCount`).

use serde_json::Value;

use super::{effective_format, kind, type_check, types_of, validate, Code, Kind, OaError};
use crate::go::quote::quote as go_quote;
use crate::topology::variables::schema::Schema;

/// The failing alternative kube-openapi reports: the first one with the highest match count.
fn best_failure(alternatives: &[Schema], results: &[Vec<OaError>], v: &Value) -> usize {
    let mut best: Option<(usize, usize)> = None;
    for (i, (a, r)) in alternatives.iter().zip(results).enumerate() {
        if r.is_empty() {
            continue;
        }
        let count = match_count(a, v);
        if best.is_none_or(|(_, c)| count > c) {
            best = Some((i, count));
        }
    }
    best.map_or(0, |(i, _)| i)
}

/// kube-openapi's `Result.MatchCount` of validating `v` against `s`: one per validator
/// that applies plus one, the type validator's own one when it passes, the composition
/// validator's one plus the counts it merges, the number validator's one, the array
/// validator's one plus its items', and the counts of an object's property validators.
pub fn match_count(s: &Schema, v: &Value) -> usize {
    let format = effective_format(&s.format);
    let k = kind(v);
    let type_ok = |s: &Schema| usize::from(type_check(s, v, k, &format, "").is_empty());
    if k == Kind::Nil {
        return type_ok(s);
    }
    let mut n = 1;
    if !types_of(s).is_empty() || !format.is_empty() {
        n += 1 + type_ok(s);
    }
    n += 2 + composition_count(s, v);
    if k == Kind::Str {
        n += 1;
        if !format.is_empty() {
            n += 1;
        }
    }
    if matches!(k, Kind::Int | Kind::Float) {
        n += 2;
    }
    if let Value::Array(items) = v {
        n += 2;
        if let Some(it) = &s.items {
            n += items.iter().map(|i| match_count(it, i)).sum::<usize>();
        }
    }
    n += 1; // enum (common) validator
    if let Value::Object(map) = v {
        n += 1;
        for (key, item) in map {
            if let Some(p) = s.properties.get(key) {
                n += match_count(p, item);
            } else if let Some(ap) = &s.additional_properties {
                n += match_count(ap, item);
            }
        }
    }
    n
}

/// The counts the composition validator merges (before its own one).
fn composition_count(s: &Schema, v: &Value) -> usize {
    let mut w = Vec::new();
    let mut n = 0;
    if !s.any_of.is_empty() {
        let mut best: Option<usize> = None;
        for a in &s.any_of {
            if validate(a, v, "", &mut w).is_empty() {
                best = Some(match_count(a, v));
                break;
            }
            let c = match_count(a, v);
            if best.is_none_or(|b| c > b) {
                best = Some(c);
            }
        }
        n += best.unwrap_or(0);
    }
    if !s.one_of.is_empty() {
        let ok: Vec<bool> = s
            .one_of
            .iter()
            .map(|a| validate(a, v, "", &mut w).is_empty())
            .collect();
        let valid = ok.iter().filter(|o| **o).count();
        if valid == 1 {
            n += s
                .one_of
                .iter()
                .zip(&ok)
                .find(|(_, o)| **o)
                .map_or(0, |(a, _)| match_count(a, v));
        } else if valid == 0 {
            n += s
                .one_of
                .iter()
                .map(|a| match_count(a, v))
                .fold(None, |b: Option<usize>, c| Some(b.map_or(c, |b| b.max(c))))
                .unwrap_or(0);
        }
    }
    n += s.all_of.iter().map(|a| match_count(a, v)).sum::<usize>();
    n
}

/// allOf / anyOf / oneOf / not, with kube-openapi's messages and choice of the reported
/// failing alternative.
pub fn composition_check(
    s: &Schema,
    v: &Value,
    path: &str,
    warnings: &mut Vec<String>,
) -> Vec<OaError> {
    let mut out = Vec::new();
    let quoted = go_quote(path);
    if !s.any_of.is_empty() {
        let results: Vec<Vec<OaError>> = s
            .any_of
            .iter()
            .map(|a| validate(a, v, path, warnings))
            .collect();
        if !results.iter().any(Vec::is_empty) {
            out.push(OaError::new(
                Code::Composite,
                path,
                format!("{quoted} must validate at least one schema (anyOf)"),
            ));
            out.extend(
                results[best_failure(&s.any_of, &results, v)]
                    .iter()
                    .cloned(),
            );
        }
    }
    if !s.one_of.is_empty() {
        let results: Vec<Vec<OaError>> = s
            .one_of
            .iter()
            .map(|a| validate(a, v, path, warnings))
            .collect();
        let valid = results.iter().filter(|r| r.is_empty()).count();
        if valid != 1 {
            let extra = if valid == 0 {
                "Found none valid".to_string()
            } else {
                format!("Found {valid} valid alternatives")
            };
            out.push(OaError::new(
                Code::Composite,
                path,
                format!("{quoted} must validate one and only one schema (oneOf). {extra}"),
            ));
            if valid == 0 {
                out.extend(
                    results[best_failure(&s.one_of, &results, v)]
                        .iter()
                        .cloned(),
                );
            }
        }
    }
    if !s.all_of.is_empty() {
        let mut validated = 0;
        for a in &s.all_of {
            let r = validate(a, v, path, warnings);
            if r.is_empty() {
                validated += 1;
            }
            out.extend(r);
        }
        if validated != s.all_of.len() {
            let extra = if validated == 0 {
                ". None validated"
            } else {
                ""
            };
            out.push(OaError::new(
                Code::Composite,
                path,
                format!("{quoted} must validate all the schemas (allOf){extra}"),
            ));
        }
    }
    if let Some(n) = &s.not {
        if validate(n, v, path, warnings).is_empty() {
            out.push(OaError::new(
                Code::Composite,
                path,
                format!("{quoted} must not validate the schema (not)"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::variables::openapi::test_errors as errs;
    use serde_json::json;

    #[test]
    fn any_of_reports_the_best_failure() {
        // The second alternative applies more validators (a type), so it is reported.
        assert_eq!(
            errs(
                json!({"anyOf": [{"pattern": "^a"}, {"type": "string", "maxLength": 2}]}),
                json!("bcd")
            ),
            vec![
                r#"v: Invalid value: "\"bcd\"": "" must validate at least one schema (anyOf)"#,
                "v: Too long: may not be more than 2 bytes"
            ]
        );
        let s = Schema::from_value(&json!({"type": "integer", "minimum": 1}), "s").unwrap();
        assert_eq!(match_count(&s, &json!(5)), 8);
    }

    #[test]
    fn all_of_and_not() {
        assert_eq!(
            errs(
                json!({"type": "integer", "allOf": [{"minimum": 1}, {"maximum": 3}]}),
                json!(5)
            ),
            vec![
                r#"v: Invalid value: "5": should be less than or equal to 3"#,
                r#"v: Invalid value: "5": "" must validate all the schemas (allOf)"#,
            ]
        );
        assert_eq!(
            errs(
                json!({"type": "string", "not": {"pattern": "^x"}}),
                json!("xy")
            ),
            vec![r#"v: Invalid value: "\"xy\"": "" must not validate the schema (not)"#]
        );
    }
}
