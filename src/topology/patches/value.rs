//! `valueFrom.variable` lookups (`patches/variables/value.go`, topology.md R6.7):
//! `name[.key[i]...]` into the variables map.

use serde_json::{Map, Value};

use crate::error::{Error, Result};

struct Segment<'a> {
    path: &'a str,
    index: Option<usize>,
}

fn parse_segment(segment: &str) -> Result<Segment<'_>> {
    let (l, r) = (segment.find('['), segment.find(']'));
    match (l, r) {
        (None, None) => Ok(Segment {
            path: segment,
            index: None,
        }),
        (Some(l), Some(r)) => {
            let text = segment.get(l + 1..r).unwrap_or("");
            let i: i64 = crate::go::strconv::atoi(text).map_err(|e| {
                Error::new(format!(
                    "failed to parse array index in path segment {}: {e}",
                    crate::go::quote::quote(segment)
                ))
            })?;
            if i < 0 {
                return Err(Error::new(format!(
                    "invalid array index {i} in path segment {segment:?}"
                )));
            }
            Ok(Segment {
                path: &segment[..l],
                index: Some(i as usize),
            })
        }
        _ => Err(Error::new(format!(
            "failed to parse path segment {segment:?}"
        ))),
    }
}

fn element(v: &Value, seg: &Segment, full: &str) -> Result<Value> {
    let arr = v.as_array().ok_or_else(|| {
        Error::new(format!(
            "variable {full:?} is invalid: failed to get array {:?}: value doesn't contain array; it contains {}",
            seg.path,
            fastjson_type(v)
        ))
    })?;
    let i = seg.index.unwrap_or(0);
    arr.get(i).cloned().ok_or_else(|| {
        Error::new(format!(
            "variable {full:?} is invalid: array does not have index {i}"
        ))
    })
}

fn fastjson_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(true) => "true",
        Value::Bool(false) => "false",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `GetVariableValue`.
pub fn lookup(variables: &Map<String, Value>, path: &str) -> Result<Value> {
    let mut split = path.split('.');
    let name = split.next().unwrap_or("");
    let rel: Vec<&str> = split.collect();
    let seg = parse_segment(name).map_err(|e| e.wrap(format!("variable {path:?} is invalid")))?;
    let mut v = variables
        .get(seg.path)
        .cloned()
        .ok_or_else(|| Error::new(format!("variable {name:?} does not exist")))?;
    if seg.index.is_some() {
        v = element(&v, &seg, path)?;
    }
    for p in rel {
        let s = parse_segment(p)
            .map_err(|e| e.wrap(format!("variable {path:?} has invalid syntax")))?;
        let next = v.as_object().and_then(|m| m.get(s.path)).cloned();
        v = next.ok_or_else(|| {
            Error::new(format!(
                "variable {path:?} does not exist: failed to lookup segment {:?}",
                s.path
            ))
        })?;
        if s.index.is_some() {
            v = element(&v, &s, path)?;
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars() -> Map<String, Value> {
        json!({"a": {"b": [{"c": 1}, {"c": 2}]}, "s": "x", "l": [5, 6]})
            .as_object()
            .unwrap()
            .clone()
    }

    #[test]
    fn nested_paths_and_indexes() {
        assert_eq!(lookup(&vars(), "a.b[1].c").unwrap(), json!(2));
        assert_eq!(lookup(&vars(), "l[0]").unwrap(), json!(5));
        assert_eq!(lookup(&vars(), "s").unwrap(), json!("x"));
    }

    #[test]
    fn errors_are_go_texts() {
        assert_eq!(
            lookup(&vars(), "zz").unwrap_err().message(),
            "variable \"zz\" does not exist"
        );
        assert_eq!(
            lookup(&vars(), "a.x").unwrap_err().message(),
            "variable \"a.x\" does not exist: failed to lookup segment \"x\""
        );
        assert!(lookup(&vars(), "l[9]")
            .unwrap_err()
            .message()
            .contains("array does not have index 9"));
        assert!(lookup(&vars(), "a.b[").is_err());
        assert!(lookup(&vars(), "l[-1]")
            .unwrap_err()
            .message()
            .contains("invalid array index -1"));
    }
}
