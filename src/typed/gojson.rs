//! Small pieces of Go's encoding/json and encoding/base64 behaviour the round trip
//! depends on: how a float64 is written and how a number comes back from JSON text
//! (int64 when the text parses as one, else float64). base64 for `[]byte` is
//! [`crate::go::base64`].

use serde_json::{Number, Value};

/// Go `encoding/json` text of a number held as Go float64/int64/uint64.
pub fn number_text(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    crate::go::float::json(n.as_f64().unwrap_or(0.0))
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
/// MarshalJSON → unmarshal round trip does).
pub fn normalize_numbers(v: &Value) -> Value {
    match v {
        Value::Number(n) => normalize_number(n),
        Value::Array(a) => Value::Array(a.iter().map(normalize_numbers).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), normalize_numbers(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `json.Marshal` text of a JSON value: compact, map keys in byte order (serde_json's
/// map is a BTreeMap, like Go's sorted keys), Go's HTML-safe string escaping and Go's
/// number texts. The one copy every stage that quotes or hashes Go JSON uses.
pub fn marshal(v: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, v);
    out
}

fn write_json(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&json_number_text(n)),
        Value::String(s) => write_json_string(out, s),
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
                write_json_string(out, k);
                out.push(':');
                write_json(out, item);
            }
            out.push('}');
        }
    }
}

/// A number's `encoding/json` text (integers as such, floats in Go's format).
pub fn json_number_text(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        crate::go::float::json(n.as_f64().unwrap_or(0.0))
    }
}

/// Go's `encodeState.string` with `escapeHTML` on.
fn write_json_string(out: &mut String, s: &str) {
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
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}
