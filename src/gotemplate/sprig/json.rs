//! encoding/json as sprig's toJson/toPrettyJson/toRawJson/fromJson use it:
//! sorted map keys, Go's float format, HTML escaping unless raw.

use crate::gotemplate::budget;
use crate::gotemplate::value::Value;

fn escape(s: &str, html: bool, out: &mut String) {
    crate::go::json::write_string(out, s, html);
}

/// Go's JSON number text of a float64 (`None` for NaN and infinities, which
/// `json.Marshal` refuses).
pub fn json_float(f: f64) -> Option<String> {
    f.is_finite().then(|| crate::go::float::json(f))
}

/// Why writing stopped: a value Go refuses (`Err(None)`), or the output limit.
type W = Result<(), Option<String>>;

/// The output limit, checked as the text grows: before each indentation (a deep list
/// indents each line by twice its depth, quadratic in the depth) and after each value.
fn grow(out: &str, more: usize, limit: u64) -> W {
    let size = out.len() as u128 + more as u128;
    if size > u128::from(limit) {
        return Err(Some(budget::too_large(size)));
    }
    Ok(())
}

fn write(v: &Value, html: bool, indent: Option<usize>, out: &mut String, limit: u64) -> W {
    let nl = |out: &mut String, depth: usize| -> W {
        grow(out, 1 + 2 * depth, limit)?;
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
        Ok(())
    };
    match v {
        Value::Invalid | Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i, _) => out.push_str(&i.to_string()),
        Value::Float(f) => match json_float(*f) {
            Some(s) => out.push_str(&s),
            None => return Err(None),
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
                        nl(out, d + 1)?;
                    }
                    write(x, html, indent.map(|d| d + 1), out, limit)?;
                }
                if let Some(d) = indent {
                    nl(out, d)?;
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
                        nl(out, d + 1)?;
                    }
                    escape(k, html, out);
                    out.push(':');
                    if indent.is_some() {
                        out.push(' ');
                    }
                    write(x, html, indent.map(|d| d + 1), out, limit)?;
                }
                if let Some(d) = indent {
                    nl(out, d)?;
                }
            }
            out.push('}');
        }
    }
    grow(out, 0, limit)
}

/// json.Marshal (or MarshalIndent with two spaces); "" when Go would fail; an error
/// when the text would be over `--max-template-bytes` (checked as it grows).
pub fn to_json(v: &Value, html: bool, pretty: bool) -> Result<String, String> {
    let mut out = String::new();
    match write(
        v,
        html,
        if pretty { Some(0) } else { None },
        &mut out,
        budget::limit(),
    ) {
        Ok(()) => Ok(out),
        Err(None) => Ok(String::new()),
        Err(Some(e)) => Err(e),
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
            to_json(&v, true, false).unwrap(),
            r#"{"a":"\u003c\u0026\u003e","b":[1,2.5,null]}"#
        );
        assert_eq!(
            to_json(&v, false, false).unwrap(),
            r#"{"a":"<&>","b":[1,2.5,null]}"#
        );
        assert_eq!(json_float(1e21).unwrap(), "1e+21");
        assert_eq!(json_float(1e-7).unwrap(), "1e-7");
        assert_eq!(json_float(1e20).unwrap(), "100000000000000000000");
        // Go 1.22+ escapes \b and \f by name (encoding/json's encodeState.string).
        assert_eq!(
            to_json(
                &Value::from_json(&serde_json::json!("a\u{8}b\u{c}<")),
                false,
                false
            )
            .unwrap(),
            r#""a\bb\f<""#
        );
        assert_eq!(json_float(f64::NAN), None);
        assert_eq!(
            to_json(
                &Value::from_json(&serde_json::json!({"a": [1]})),
                true,
                true
            )
            .unwrap(),
            "{\n  \"a\": [\n    1\n  ]\n}"
        );
    }

    #[test]
    fn pretty_json_of_a_deep_list_stops_at_the_limit() {
        // 900 levels, each holding 200 numbers: every number's line is indented by
        // twice its depth (36 MB in all), refused as the text grows past 16 MiB.
        let mut v = Value::list(vec![]);
        for _ in 0..900 {
            let mut items = vec![v];
            items.extend((0..200).map(Value::int));
            v = Value::list(items);
        }
        let e = to_json(&v, true, true).unwrap_err();
        assert!(e.contains("template output limit"), "{e}");
        assert!(e.contains("--max-template-bytes"), "{e}");
        assert!(to_json(&v, true, false).is_ok());
    }
}
