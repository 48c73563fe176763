//! encoding/json as sprig's toJson/toPrettyJson/toRawJson/fromJson use it:
//! sorted map keys, Go's float format, HTML escaping unless raw.

use crate::gotemplate::fmt::format_float;
use crate::gotemplate::value::Value;

fn escape(s: &str, html: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' if html => out.push_str(&format!("\\u{:04x}", c as u32)),
            '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Go's JSON number text of a float64.
pub fn json_float(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let a = f.abs();
    if a != 0.0 && !(1e-6..1e21).contains(&a) {
        let s = format_float(f, 'e', None);
        // e-07 → e-7
        let b = s.as_bytes();
        let n = b.len();
        if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            return Some(format!("{}{}", &s[..n - 2], &s[n - 1..]));
        }
        if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'+' && b[n - 2] == b'0' {
            return Some(format!("{}{}", &s[..n - 2], &s[n - 1..]));
        }
        return Some(s);
    }
    Some(format_float(f, 'f', None))
}

fn write(v: &Value, html: bool, indent: Option<usize>, out: &mut String) -> bool {
    let nl = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    match v {
        Value::Invalid | Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i, _) => out.push_str(&i.to_string()),
        Value::Float(f) => match json_float(*f) {
            Some(s) => out.push_str(&s),
            None => return false,
        },
        Value::Str(s) => escape(s, html, out),
        Value::Semver(sv) => escape(&sv.to_string(), html, out),
        Value::List(l, _) => {
            out.push('[');
            if !l.is_empty() {
                for (i, x) in l.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    if let Some(d) = indent {
                        nl(out, d + 1);
                    }
                    if !write(x, html, indent.map(|d| d + 1), out) {
                        return false;
                    }
                }
                if let Some(d) = indent {
                    nl(out, d);
                }
            }
            out.push(']');
        }
        Value::Map(m, _) => {
            out.push('{');
            if !m.is_empty() {
                for (i, (k, x)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    if let Some(d) = indent {
                        nl(out, d + 1);
                    }
                    escape(k, html, out);
                    out.push(':');
                    if indent.is_some() {
                        out.push(' ');
                    }
                    if !write(x, html, indent.map(|d| d + 1), out) {
                        return false;
                    }
                }
                if let Some(d) = indent {
                    nl(out, d);
                }
            }
            out.push('}');
        }
    }
    true
}

/// json.Marshal (or MarshalIndent with two spaces); "" when Go would fail.
pub fn to_json(v: &Value, html: bool, pretty: bool) -> String {
    let mut out = String::new();
    if write(v, html, if pretty { Some(0) } else { None }, &mut out) {
        out
    } else {
        String::new()
    }
}

/// json.Unmarshal into interface{}.
pub fn from_json(s: &str) -> Result<Value, String> {
    match serde_json::from_str::<serde_json::Value>(s) {
        Ok(j) => Ok(Value::from_json(&j)),
        Err(e) => Err(format!("capi-render: invalid JSON: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_json_output() {
        let v = Value::from_json(&serde_json::json!({"b": [1, 2.5, null], "a": "<&>"}));
        assert_eq!(
            to_json(&v, true, false),
            r#"{"a":"\u003c\u0026\u003e","b":[1,2.5,null]}"#
        );
        assert_eq!(to_json(&v, false, false), r#"{"a":"<&>","b":[1,2.5,null]}"#);
        assert_eq!(json_float(1e21).unwrap(), "1e+21");
        assert_eq!(json_float(1e-7).unwrap(), "1e-7");
        assert_eq!(json_float(1e20).unwrap(), "100000000000000000000");
        assert_eq!(
            to_json(
                &Value::from_json(&serde_json::json!({"a": [1]})),
                true,
                true
            ),
            "{\n  \"a\": [\n    1\n  ]\n}"
        );
    }
}
