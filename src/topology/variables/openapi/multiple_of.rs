//! `multipleOf` on a number (CRD schemas), as kube-openapi's number validator checks it
//! (`validate/validator.go` numberValidator, `validate/values.go`): the factor is first
//! checked against the schema's type (an `integer` schema needs an integral factor;
//! otherwise the range error is reported and the value is checked as a float); then an
//! integer value is checked against the factor converted to int64 (a factor below 1
//! becomes 0, which "must be positive"), a float against the factor itself.

use serde_json::Value;

use super::{go_value, msg, Code, OaError};
use crate::topology::variables::field_error::go_v_float;
use crate::topology::variables::schema::Schema;

/// The errors of `multipleOf: factor` for the number `v` (`int` when it decodes as an
/// int64, else the float `f`), at `path`.
pub(super) fn check(
    s: &Schema,
    factor: f64,
    int: Option<i64>,
    f: f64,
    path: &str,
    v: &Value,
) -> Vec<OaError> {
    let err = |text: String| OaError::new(Code::Other, path, text).with_value(go_value(v));
    let mut out = Vec::new();
    if let Some(e) = range_error(s, factor, path) {
        out.push(OaError::new(Code::Other, path, e));
        if !float_multiple(f, factor) {
            out.push(err(not_multiple(path, &go_v_float(factor), factor)));
        }
        return out;
    }
    match int {
        Some(i) => {
            // Go's int64(float64): truncation toward zero (saturating here; a factor
            // beyond int64 failed the range check of an integer schema already).
            let fi = factor.trunc() as i64;
            if fi <= 0 {
                out.push(err(format!(
                    "factor MultipleOf declared for {path} must be positive: {fi}"
                )));
            } else if i.wrapping_div(fi).wrapping_mul(fi) != i {
                out.push(err(not_multiple(path, &fi.to_string(), factor)));
            }
        }
        None => {
            if factor <= 0.0 {
                out.push(err(format!(
                    "factor MultipleOf declared for {path} must be positive: {}",
                    go_v_float(factor)
                )));
            } else if !float_multiple(f, factor) {
                out.push(err(not_multiple(path, &go_v_float(factor), factor)));
            }
        }
    }
    out
}

fn not_multiple(path: &str, shown: &str, _factor: f64) -> String {
    msg(path, &format!("should be a multiple of {shown}"))
}

/// `IsValueValidAgainstRange(factor, type, format)`: an `integer` schema's factor must
/// convert to its integer type without loss.
fn range_error(s: &Schema, factor: f64, path: &str) -> Option<String> {
    if s.type_ != "integer" {
        // number: float32 formats would check the float32 range; others nothing.
        if matches!(s.format.as_str(), "float" | "float32") && factor.abs() > f32::MAX as f64 {
            return Some(format!(
                "MultipleOf value must be of type number with format {} in {path}",
                s.format
            ));
        }
        return None;
    }
    let (lo, hi) = match s.format.as_str() {
        "int32" => (i32::MIN as f64, i32::MAX as f64),
        "uint32" => (0.0, u32::MAX as f64),
        "uint64" => (0.0, u64::MAX as f64),
        _ => (i64::MIN as f64, i64::MAX as f64),
    };
    if factor.fract() == 0.0 && factor >= lo && factor <= hi {
        return None;
    }
    Some(if s.format.is_empty() {
        format!("MultipleOf value must be of type integer (default format) in {path}")
    } else {
        format!(
            "MultipleOf value must be of type integer with format {} in {path}",
            s.format
        )
    })
}

/// kube-openapi's `MultipleOf` for floats: `data / factor` (or `1 / factor * data`
/// for a factor below 1) must be a JSON integer (`swag.IsFloat64AJSONInteger`).
fn float_multiple(data: f64, factor: f64) -> bool {
    let mult = if factor < 1.0 {
        1.0 / factor * data
    } else {
        data / factor
    };
    is_json_integer(mult)
}

/// `swag.IsFloat64AJSONInteger`.
fn is_json_integer(f: f64) -> bool {
    const MAX: f64 = ((1u64 << 53) - 1) as f64;
    if f.is_nan() || f.is_infinite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    // Go's uint64(f) on amd64: a negative value goes through int64.
    let g = if f >= 0.0 {
        f.trunc()
    } else {
        (f.trunc() as i64) as u64 as f64
    };
    if f == g || f == (f.trunc() as i64) as f64 {
        return true;
    }
    let diff = (f - g).abs();
    if f == 0.0 || g == 0.0 || diff < 4.9406564584124654e-324 {
        return false;
    }
    diff / (f.abs() + g.abs()).min(f64::MAX) < 1e-9
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: Value, v: Value) -> Vec<String> {
        let s = Schema::from_crd_value(&schema, "s").unwrap();
        let mut w = Vec::new();
        super::super::validate(&s, &v, "ratio", &mut w)
            .into_iter()
            .map(|e| e.message)
            .collect()
    }

    #[test]
    fn multiple_of_as_kube_openapi_checks_it() {
        let half = json!({"type": "number", "multipleOf": 0.5});
        assert!(errors(half.clone(), json!(1.5)).is_empty());
        assert_eq!(
            errors(half.clone(), json!(0.3)),
            vec!["ratio in body should be a multiple of 0.5"]
        );
        // An integer value is checked against int64(0.5) = 0.
        assert_eq!(
            errors(half, json!(2)),
            vec!["factor MultipleOf declared for ratio must be positive: 0"]
        );
        let three = json!({"type": "integer", "multipleOf": 3});
        assert!(errors(three.clone(), json!(9)).is_empty());
        assert_eq!(
            errors(three, json!(10)),
            vec!["ratio in body should be a multiple of 3"]
        );
        let frac = json!({"type": "integer", "multipleOf": 1.5});
        assert_eq!(
            errors(frac, json!(3)),
            vec!["MultipleOf value must be of type integer (default format) in ratio"]
        );
        assert!(errors(json!({"type": "number", "multipleOf": 0.1}), json!(0.3)).is_empty());
        // A ClusterClass variable schema has no multipleOf.
        let s = Schema::from_value(&json!({"type": "number", "multipleOf": 0.5}), "s").unwrap();
        assert_eq!(s.multiple_of, None);
    }
}
