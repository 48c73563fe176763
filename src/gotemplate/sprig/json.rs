//! encoding/json as sprig's toJson/toPrettyJson/toRawJson/fromJson use it:
//! sorted map keys, Go's float format, HTML escaping unless raw.

use crate::gotemplate::value::Value;

fn escape(s: &str, html: bool, out: &mut String) {
    crate::go::json::write_string(out, s, html);
}

/// Go's JSON number text of a float64 (`None` for NaN and infinities, which
/// `json.Marshal` refuses).
pub fn json_float(f: f64) -> Option<String> {
    f.is_finite().then(|| crate::go::float::json(f))
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
        // Go 1.22+ escapes \b and \f by name (encoding/json's encodeState.string).
        assert_eq!(
            to_json(
                &Value::from_json(&serde_json::json!("a\u{8}b\u{c}<")),
                false,
                false
            ),
            r#""a\bb\f<""#
        );
        assert_eq!(json_float(f64::NAN), None);
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
