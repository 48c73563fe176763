//! Go's `encoding/json` as the stages need it byte for byte: `json.Marshal` text
//! (compact, map keys sorted, HTML-safe escaping, Go's number texts), how a number
//! comes back from JSON text (apimachinery: int64 when the text is an integer that
//! fits, else float64; `sigs.k8s.io/yaml`: always float64), and the type names of
//! `UnmarshalTypeError`.

use serde_json::{Map, Number, Value};

/// Go `encoding/json` text of a number held as Go float64/int64/uint64.
pub fn number_text(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    super::float::json(n.as_f64().unwrap_or(0.0))
}

/// A number after JSON text → apimachinery's `unmarshal` (UseNumber, then int64 if
/// the text is an integer that fits, else float64).
pub fn normalize_number(n: &Number) -> Value {
    let text = number_text(n);
    match text.parse::<i64>() {
        Ok(i) => Value::from(i),
        Err(_) => match n.as_f64() {
            Some(f) => Number::from_f64(f)
                .map(Value::Number)
                .unwrap_or(Value::Null),
            None => Value::Null,
        },
    }
}

/// Apply [`normalize_number`] throughout a JSON value (what a raw JSON field's
/// MarshalJSON → unmarshal round trip does, and how an `unstructured.Unstructured`
/// re-reads a patched document).
pub fn normalize_numbers(v: Value) -> Value {
    match v {
        Value::Number(n) => normalize_number(&n),
        Value::Array(a) => Value::Array(a.into_iter().map(normalize_numbers).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, x)| (k, normalize_numbers(x)))
                .collect::<Map<String, Value>>(),
        ),
        other => other,
    }
}

/// `json.Marshal` text of a JSON value: compact, map keys in byte order (serde_json's
/// map is a BTreeMap, like Go's sorted keys), Go's HTML-safe string escaping and Go's
/// number texts.
pub fn marshal(v: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, v);
    out
}

fn write_json(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number_text(n)),
        Value::String(s) => write_string(out, s, true),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k, true);
                out.push(':');
                write_json(out, item);
            }
            out.push('}');
        }
    }
}

/// Go's `encodeState.string`: a JSON string as Go writes it (Go 1.22+: `\b` and `\f`
/// escaped by name), `<`, `>` and `&` escaped when `escape_html` (`json.Marshal`; off
/// for an encoder with `SetEscapeHTML(false)`, sprig's `toRawJson`).
pub fn write_string(out: &mut String, s: &str, escape_html: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' if escape_html => out.push_str(&format!("\\u{:04x}", c as u32)),
            '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `json.MarshalIndent(v, "", "  ")`: [`marshal`]'s text, indented (empty maps and
/// lists stay `{}` / `[]`).
pub fn marshal_indent(v: &Value) -> String {
    let mut out = String::new();
    write_indented(v, 0, &mut out);
    out
}

/// [`marshal_indent`]'s text of `v` as it appears nested `depth` levels deep (the
/// lines after the first indented by `depth` more levels).
pub fn write_indented(v: &Value, depth: usize, out: &mut String) {
    let pad = |d: usize| "  ".repeat(d);
    match v {
        Value::Array(a) if !a.is_empty() => {
            out.push_str("[\n");
            for (i, x) in a.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                write_indented(x, depth + 1, out);
                out.push_str(if i + 1 < a.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push(']');
        }
        Value::Object(m) if !m.is_empty() => {
            out.push_str("{\n");
            for (i, (k, x)) in m.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                out.push_str(&marshal(&Value::from(k.as_str())));
                out.push_str(": ");
                write_indented(x, depth + 1, out);
                out.push_str(if i + 1 < m.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push('}');
        }
        _ => out.push_str(&marshal(v)),
    }
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

/// The integer a number decodes to with apimachinery's JSON decoder (integral and
/// within int64), or `None` when it stays a float64.
pub fn as_int64(n: &Number) -> Option<i64> {
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    if n.as_u64().is_some() {
        return None;
    }
    let f = n.as_f64()?;
    // Go marshals an integral float64 without a fraction ("7"), which decodes as int64
    // when it fits; 2^63 itself does not.
    if f.fract() == 0.0
        && f.abs() < 9.223_372_036_854_776e18
        && super::float::json(f)
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'-')
    {
        Some(f as i64)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marshal_sorts_keys_and_escapes_html() {
        let v = json!({"b": [1.0, 1.5, true, null, 2], "a": "<x&y>\n\u{2028}"});
        assert_eq!(
            marshal(&v),
            r#"{"a":"\u003cx\u0026y\u003e\n\u2028","b":[1,1.5,true,null,2]}"#
        );
    }

    #[test]
    fn marshal_indent_is_go_marshal_indent() {
        assert_eq!(
            marshal_indent(&json!({"a": [1], "b": {}, "c": []})),
            "{\n  \"a\": [\n    1\n  ],\n  \"b\": {},\n  \"c\": []\n}"
        );
    }

    #[test]
    fn numbers_as_go_rereads_them() {
        let v = normalize_numbers(json!({"a": 2.0, "b": 2.5, "c": [1e21, 3]}));
        assert!(v["a"].is_i64());
        assert!(v["b"].is_f64());
        assert!(v["c"][0].is_f64());
        assert!(v["c"][1].is_i64());
        let f = float_numbers(json!({"a": 1, "b": [2]}));
        assert!(f["a"].is_f64() && f["b"][0].is_f64());
    }

    #[test]
    fn integral_floats_decode_as_int64() {
        let n = |f: f64| Number::from_f64(f).unwrap();
        assert_eq!(as_int64(&n(7.0)), Some(7));
        assert_eq!(as_int64(&n(-3.0)), Some(-3));
        assert_eq!(as_int64(&n(1.5)), None);
        assert_eq!(as_int64(&n(1e21)), None);
        assert_eq!(as_int64(&Number::from(u64::MAX)), None);
    }
}
