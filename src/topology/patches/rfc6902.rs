//! RFC 6902 `add` / `replace` / `remove` as evanphx/json-patch v5.9.11 applies them
//! (default options, negative indices allowed), with its error texts.

use serde_json::Value;

const MISSING: &str = "missing value";
const INVALID_INDEX: &str = "invalid index referenced";
const EXPECTED_OBJECT: &str = "invalid value, expected object";

fn decode_key(k: &str) -> String {
    k.replace("~1", "/").replace("~0", "~")
}

fn go_atoi(s: &str) -> Result<i64, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("strconv.Atoi: parsing {s:?}: invalid syntax"));
    }
    s.parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing {s:?}: value out of range"))
}

/// `findObject`: the container holding the last segment, and that segment.
fn find_container<'a>(doc: &'a mut Value, path: &str) -> Option<(&'a mut Value, String)> {
    let split: Vec<&str> = path.split('/').collect();
    if split.len() < 2 {
        return None;
    }
    let mut cur = doc;
    for part in &split[1..split.len() - 1] {
        let key = decode_key(part);
        cur = match cur {
            Value::Object(m) => m.get_mut(&key)?,
            Value::Array(a) => {
                let i = go_atoi(&key).ok()?;
                let len = a.len() as i64;
                let i = if i < 0 { i + len } else { i };
                if i < 0 || i >= len {
                    return None;
                }
                a.get_mut(i as usize)?
            }
            _ => return None,
        };
        if !(cur.is_object() || cur.is_array()) {
            return None;
        }
    }
    Some((cur, decode_key(split[split.len() - 1])))
}

fn invalid_index(i: i64) -> String {
    format!("Unable to access invalid index: {i}: {INVALID_INDEX}")
}

fn add(doc: &mut Value, path: &str, value: Value) -> Result<(), String> {
    if path.is_empty() {
        *doc = value;
        return Ok(());
    }
    let Some((con, key)) = find_container(doc, path) else {
        return Err(format!(
            "add operation does not apply: doc is missing path: \"{path}\": {MISSING}"
        ));
    };
    let wrap = |e: String| format!("error in add for path: '{path}': {e}");
    match con {
        Value::Object(m) => {
            m.insert(key, value);
            Ok(())
        }
        Value::Array(a) => {
            if key == "-" {
                a.push(value);
                return Ok(());
            }
            let i = go_atoi(&key)
                .map_err(|e| wrap(format!("value was not a proper array index: '{key}': {e}")))?;
            let size = a.len() as i64 + 1;
            if i >= size || i < -size {
                return Err(wrap(invalid_index(i)));
            }
            let idx = if i < 0 { i + size } else { i };
            a.insert(idx as usize, value);
            Ok(())
        }
        _ => Err(wrap(EXPECTED_OBJECT.into())),
    }
}

fn remove(doc: &mut Value, path: &str) -> Result<(), String> {
    let Some((con, key)) = find_container(doc, path) else {
        return Err(format!(
            "remove operation does not apply: doc is missing path: \"{path}\": {MISSING}"
        ));
    };
    let wrap = |e: String| format!("error in remove for path: '{path}': {e}");
    match con {
        Value::Object(m) => match m.remove(&key) {
            Some(_) => Ok(()),
            None => Err(wrap(format!(
                "unable to remove nonexistent key: {key}: {MISSING}"
            ))),
        },
        Value::Array(a) => {
            let i = go_atoi(&key).map_err(wrap)?;
            let len = a.len() as i64;
            if i >= len || i < -len {
                return Err(wrap(invalid_index(i)));
            }
            let idx = if i < 0 { i + len } else { i };
            a.remove(idx as usize);
            Ok(())
        }
        _ => Err(wrap(EXPECTED_OBJECT.into())),
    }
}

fn replace(doc: &mut Value, path: &str, value: Value) -> Result<(), String> {
    if path.is_empty() {
        if value.is_object() || value.is_array() {
            *doc = value;
            return Ok(());
        }
        return Err("replace operation value must be object or array: %!w(<nil>)".into());
    }
    let Some((con, key)) = find_container(doc, path) else {
        return Err(format!(
            "replace operation does not apply: doc is missing path: {path}: {MISSING}"
        ));
    };
    let missing_key =
        || format!("replace operation does not apply: doc is missing key: {path}: {MISSING}");
    match con {
        Value::Object(m) => match m.get_mut(&key) {
            Some(slot) => {
                *slot = value;
                Ok(())
            }
            None => Err(missing_key()),
        },
        Value::Array(a) => {
            let i = go_atoi(&key).map_err(|_| missing_key())?;
            let len = a.len() as i64;
            if i >= len || i < -len {
                return Err(missing_key());
            }
            let idx = if i < 0 { i + len } else { i };
            a[idx as usize] = value;
            Ok(())
        }
        _ => Err(missing_key()),
    }
}

/// Apply the operations in order; the first failure stops.
pub fn apply(doc: &mut Value, ops: &[Value]) -> Result<(), String> {
    crate::limits::check_json_patch(
        ops.len(),
        ops.iter().flat_map(|o| {
            ["path", "from"]
                .into_iter()
                .filter_map(|k| o.get(k).and_then(Value::as_str))
        }),
    )?;
    for op in ops {
        let kind = op.get("op").and_then(Value::as_str).unwrap_or("");
        let path = op.get("path").and_then(Value::as_str).unwrap_or("");
        let value = op.get("value").cloned().unwrap_or(Value::Null);
        match kind {
            "add" => add(doc, path, value)?,
            "remove" => remove(doc, path)?,
            "replace" => replace(doc, path, value)?,
            k => return Err(format!("Unexpected kind: {k}")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(doc: Value, ops: Value) -> Result<Value, String> {
        let mut d = doc;
        apply(&mut d, ops.as_array().unwrap())?;
        Ok(d)
    }

    #[test]
    fn patch_size_and_path_depth_are_limited() {
        let ops: Vec<Value> = (0..10_001)
            .map(|_| json!({"op": "add", "path": "/a", "value": 1}))
            .collect();
        let e = run(json!({}), Value::Array(ops)).unwrap_err();
        assert!(e.contains("--max-patch-ops"), "{e}");
        let deep = "/a".repeat(200);
        let e = run(json!({}), json!([{"op": "add", "path": deep, "value": 1}])).unwrap_err();
        assert!(e.contains("--max-patch-depth"), "{e:.300}");
    }

    #[test]
    fn add_prepend_append_and_replace() {
        let d = run(
            json!({"a": [1, 2], "m": {"k": 1}}),
            json!([{"op": "add", "path": "/a/0", "value": 0}, {"op": "add", "path": "/a/-", "value": 3},
                   {"op": "replace", "path": "/m/k", "value": 2}, {"op": "add", "path": "/m/a~1b", "value": 1}]),
        )
        .unwrap();
        assert_eq!(d, json!({"a": [0, 1, 2, 3], "m": {"k": 2, "a/b": 1}}));
    }

    #[test]
    fn evanphx_error_texts() {
        let e = run(
            json!({"spec": {}}),
            json!([{"op": "add", "path": "/spec/x/y", "value": 1}]),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "add operation does not apply: doc is missing path: \"/spec/x/y\": missing value"
        );
        let e = run(
            json!({"spec": {}}),
            json!([{"op": "remove", "path": "/spec/x"}]),
        )
        .unwrap_err();
        assert_eq!(e, "error in remove for path: '/spec/x': unable to remove nonexistent key: x: missing value");
        let e = run(
            json!({"spec": {}}),
            json!([{"op": "replace", "path": "/spec/x", "value": 1}]),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "replace operation does not apply: doc is missing key: /spec/x: missing value"
        );
        let e = run(
            json!({"a": []}),
            json!([{"op": "add", "path": "/a/3", "value": 1}]),
        )
        .unwrap_err();
        assert_eq!(e, "error in add for path: '/a/3': Unable to access invalid index: 3: invalid index referenced");
    }

    #[test]
    fn null_parents_are_missing() {
        let e = run(
            json!({"spec": {"x": null}}),
            json!([{"op": "add", "path": "/spec/x/y", "value": 1}]),
        );
        assert!(e.unwrap_err().contains("doc is missing path"));
    }
}
