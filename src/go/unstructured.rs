//! apimachinery's `unstructured.Nested*` accessor errors: Go's `%v` and `%T` of a
//! value held in an `unstructured.Unstructured`, and the error text itself.
//!
//! How numbers were decoded decides their Go type: `sigs.k8s.io/yaml` gives every
//! number as `float64` ([`Numbers::Float64`]); apimachinery's JSON decoding gives an
//! integral number as `int64` and any other as `float64` ([`Numbers::Int64`]).

use serde_json::Value;

/// How the object's numbers were decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numbers {
    Float64,
    Int64,
}

fn int64(v: &Value, numbers: Numbers) -> Option<i64> {
    match (v, numbers) {
        (Value::Number(n), Numbers::Int64) => super::json::as_int64(n),
        _ => None,
    }
}

/// Go's `%T`.
pub fn type_name(v: &Value, numbers: Numbers) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(_) if int64(v, numbers).is_some() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Go's `%v` (maps with sorted keys, as `fmt` prints them).
pub fn value_text(v: &Value, numbers: Numbers) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => match int64(v, numbers) {
            Some(i) => i.to_string(),
            None => n.as_f64().map(super::float::format_g).unwrap_or_default(),
        },
        Value::Bool(b) => b.to_string(),
        Value::Array(a) => format!(
            "[{}]",
            a.iter()
                .map(|x| value_text(x, numbers))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Value::Object(m) => format!(
            "map[{}]",
            m.iter()
                .map(|(k, x)| format!("{k}:{}", value_text(x, numbers)))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    }
}

/// The error of a `Nested*` accessor that met `v` at `path` where it expected a
/// value of Go type `expected`.
pub fn accessor_error(path: &[&str], v: &Value, expected: &str, numbers: Numbers) -> String {
    format!(
        ".{} accessor error: {} is of the type {}, expected {expected}",
        path.join("."),
        value_text(v, numbers),
        type_name(v, numbers)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_follow_the_decoder() {
        let p = ["spec", "port"];
        assert_eq!(
            accessor_error(&p, &json!(10), "string", Numbers::Int64),
            ".spec.port accessor error: 10 is of the type int64, expected string"
        );
        assert_eq!(
            accessor_error(&p, &json!(10), "string", Numbers::Float64),
            ".spec.port accessor error: 10 is of the type float64, expected string"
        );
        assert_eq!(
            accessor_error(&p, &json!(6443.5), "int64", Numbers::Int64),
            ".spec.port accessor error: 6443.5 is of the type float64, expected int64"
        );
        assert_eq!(
            accessor_error(&p, &json!("6443"), "int64", Numbers::Int64),
            ".spec.port accessor error: 6443 is of the type string, expected int64"
        );
    }

    #[test]
    fn containers_print_as_fmt_does() {
        let v = json!({"b": [1, "x"], "a": null, "c": true});
        assert_eq!(
            value_text(&v, Numbers::Int64),
            "map[a:<nil> b:[1 x] c:true]"
        );
        assert_eq!(type_name(&v, Numbers::Int64), "map[string]interface {}");
        assert_eq!(type_name(&json!([]), Numbers::Float64), "[]interface {}");
        assert_eq!(type_name(&Value::Null, Numbers::Int64), "<nil>");
    }
}
