//! Go `encoding/json` details the patch stages depend on: the compact text Go prints
//! (error messages quote it), how an `unstructured.Unstructured` re-reads a patched
//! document (numbers become `int64` when their text is an integer, R7.1), what
//! `sigs.k8s.io/yaml` gives (every number a `float64`, R7.2), and evanphx/json-patch's
//! value equality (numbers compared by their compact text).

use serde_json::{Map, Number, Value};

/// The text Go's `encoding/json` prints for a number.
pub use crate::typed::gojson::json_number_text as number_text;

/// `json.Marshal` text: compact, map keys in byte order, HTML-escaped.
pub fn to_text(v: &Value) -> String {
    crate::typed::gojson::marshal(v)
}

/// The JSON type name Go's `UnmarshalTypeError` uses.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// apimachinery `util/json` re-reading Go-printed JSON: a number whose text is an
/// integer that fits `int64` becomes an integer, anything else a float.
pub fn unstructured_numbers(v: Value) -> Value {
    match v {
        Value::Number(n) => {
            let t = number_text(&n);
            match t.parse::<i64>() {
                Ok(i) => Value::from(i),
                Err(_) => Value::from(n.as_f64().unwrap_or(0.0)),
            }
        }
        Value::Array(a) => Value::Array(a.into_iter().map(unstructured_numbers).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, x)| (k, unstructured_numbers(x)))
                .collect::<Map<String, Value>>(),
        ),
        other => other,
    }
}

/// `sigs.k8s.io/yaml.Unmarshal` into `map[string]interface{}`: every number a float64.
pub fn float_numbers(v: Value) -> Value {
    match v {
        Value::Number(n) => Value::Number(Number::from_f64(n.as_f64().unwrap_or(0.0)).unwrap_or(n)),
        Value::Array(a) => Value::Array(a.into_iter().map(float_numbers).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, x)| (k, float_numbers(x)))
                .collect::<Map<String, Value>>(),
        ),
        other => other,
    }
}

/// evanphx/json-patch `lazyNode.equal`: objects by keys, arrays element-wise, strings
/// by decoded value, numbers (and literals) by their compact text.
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| equal(v, w))
        }
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => number_text(x) == number_text(y),
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Null, Value::Null) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_text_escapes_html_and_sorts_keys() {
        assert_eq!(
            to_text(&json!({"b": "<a&b>", "a": [1, 1.5, 2.0, null, true]})),
            r#"{"a":[1,1.5,2,null,true],"b":"\u003ca\u0026b\u003e"}"#
        );
    }

    #[test]
    fn numbers_as_go_rereads_them() {
        let v = unstructured_numbers(json!({"a": 2.0, "b": 2.5, "c": [1e21, 3]}));
        assert!(v["a"].is_i64());
        assert!(v["b"].is_f64());
        assert!(v["c"][0].is_f64());
        assert!(v["c"][1].is_i64());
        let f = float_numbers(json!({"a": 1, "b": [2]}));
        assert!(f["a"].is_f64() && f["b"][0].is_f64());
    }

    #[test]
    fn equality_compares_number_text() {
        assert!(equal(&json!({"a": 1}), &json!({"a": 1.0})));
        assert!(!equal(&json!({"a": 1}), &json!({"a": "1"})));
        assert!(!equal(&json!([1, 2]), &json!([1])));
    }
}
