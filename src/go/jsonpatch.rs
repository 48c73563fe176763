//! RFC 6902 JSON Patch as evanphx/json-patch v5.9.11 applies it (`DecodePatch`, then
//! `Apply` with default options): the cluster-api-operator's `patches` (R7.1.2, the
//! list decoded into `[]*RFC6902{op, path, value, from}` with Go's `encoding/json` and
//! re-encoded) and the ClusterClass JSON patches of the topology engine.
//!
//! The document edits themselves (add, remove, replace) are done by the `json-patch`
//! crate, but for an add into an object: that is an insert at the container already
//! resolved here, done directly ([`object_insert`]). What evanphx does differently
//! from RFC 6902 is resolved here first, so that every operation reaches the crate as
//! a canonical pointer:
//!
//! * `value` absent is `null` (the Go struct re-encodes it as `"value": null`);
//!   `from` empty is absent (`omitempty`), so `move`/`copy` without `from` fail to decode;
//! * array indices are read with `strconv.Atoi` (`+1`, `007` accepted), and negative
//!   indices count from the end (`SupportNegativeIndices`, on by default);
//! * a path that does not start with `/` addresses its last segment in the root
//!   (evanphx skips the first segment); an empty segment in the middle of a path
//!   stays on the same container;
//! * `replace` on a missing object key fails; `test` of a missing key against `null`
//!   passes;
//! * `test` compares numbers by their JSON text (`1` equals `1.0`);
//! * `move` removes first and resolves the destination afterwards (no "move inside
//!   itself" check), `copy` of path `""` copies the whole document.
//!
//! Error texts are evanphx's.

use json_patch::jsonptr::PointerBuf;
use json_patch::{AddOperation, PatchOperation, RemoveOperation, ReplaceOperation};
use serde_json::{Map, Value};

use super::json::{marshal, type_name};
use super::strconv::atoi;

/// One decoded `RFC6902` struct.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Op {
    pub op: String,
    pub path: String,
    /// `None` for `null` or absent (Go's nil `*apiextensionsv1.JSON`).
    pub value: Option<Value>,
    pub from: String,
}

/// `json.Unmarshal(patch, &[]*RFC6902{})`: `None` when that fails (the operator then
/// applies the patch as a merge patch); `Some(ops)` otherwise, `null` elements as `None`.
pub fn decode(patch: &Value) -> Option<Vec<Option<Op>>> {
    let items = match patch {
        Value::Null => return Some(Vec::new()),
        Value::Array(a) => a,
        _ => return None,
    };
    let mut out = Vec::new();
    for item in items {
        match item {
            Value::Null => out.push(None),
            Value::Object(m) => out.push(Some(decode_op(m)?)),
            _ => return None,
        }
    }
    Some(out)
}

fn decode_op(m: &Map<String, Value>) -> Option<Op> {
    let mut op = Op::default();
    // Go matches field names exactly, else case-insensitively; the later key wins. Keys
    // are visited in byte order, so an exact lowercase key comes after its variants.
    for (k, v) in m {
        let Some(field) = ["op", "path", "value", "from"]
            .into_iter()
            .find(|f| k.eq_ignore_ascii_case(f))
        else {
            continue; // unknown fields are ignored
        };
        if field == "value" {
            op.value = if v.is_null() { None } else { Some(v.clone()) };
            continue;
        }
        let s = match v {
            Value::Null => continue,
            Value::String(s) => s.clone(),
            _ => return None,
        };
        match field {
            "op" => op.op = s,
            "path" => op.path = s,
            _ => op.from = s,
        }
    }
    Some(op)
}

/// The operation as Go re-encodes it (`json.Marshal(r.Patches)` element).
fn reencoded(op: &Op) -> Value {
    let mut m = Map::new();
    m.insert("op".into(), Value::String(op.op.clone()));
    m.insert("path".into(), Value::String(op.path.clone()));
    m.insert("value".into(), op.value.clone().unwrap_or(Value::Null));
    if !op.from.is_empty() {
        m.insert("from".into(), Value::String(op.from.clone()));
    }
    Value::Object(m)
}

/// `DecodePatch` → `validatePatch`.
fn validate(ops: &[Option<Op>]) -> Result<(), String> {
    for op in ops {
        let err = match op {
            None => Some("unsupported operation".to_string()),
            Some(o) => match o.op.as_str() {
                "add" | "replace" | "remove" | "test" => None,
                "move" | "copy" if o.from.is_empty() => Some(
                    "failed to decode 'from': operation, missing from field: missing value"
                        .to_string(),
                ),
                "move" | "copy" => None,
                _ => Some("unsupported operation".to_string()),
            },
        };
        if let Some(e) = err {
            let data = match op {
                None => "null".to_string(),
                Some(o) => marshal(&reencoded(o)),
            };
            return Err(format!("invalid operation {data}: {e}"));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// evanphx path resolution

const MISSING: &str = "missing value";
const INVALID_INDEX: &str = "invalid index referenced";

fn invalid_index(i: i64) -> String {
    format!("Unable to access invalid index: {i}: {INVALID_INDEX}")
}

/// RFC 6901 token decoding (`~1` → `/`, `~0` → `~`, one pass).
fn decode_key(k: &str) -> String {
    let mut out = String::with_capacity(k.len());
    let mut it = k.chars().peekable();
    while let Some(c) = it.next() {
        if c == '~' {
            match it.peek() {
                Some('1') => {
                    out.push('/');
                    it.next();
                    continue;
                }
                Some('0') => {
                    out.push('~');
                    it.next();
                    continue;
                }
                _ => {}
            }
        }
        out.push(c);
    }
    out
}

fn at<'a>(doc: &'a Value, tokens: &[String]) -> Option<&'a Value> {
    let mut cur = doc;
    for t in tokens {
        cur = match cur {
            Value::Object(m) => m.get(t)?,
            Value::Array(a) => a.get(t.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn at_mut<'a>(doc: &'a mut Value, tokens: &[String]) -> Option<&'a mut Value> {
    let mut cur = doc;
    for t in tokens {
        cur = match cur {
            Value::Object(m) => m.get_mut(t)?,
            Value::Array(a) => a.get_mut(t.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// The crate's `add` into an object is `insert` at the container its pointer resolves
/// to, which [`at`] has just found: done here, without the crate walking the pointer
/// again (its walk unescapes each token with two `str::replace`s; the ClusterClass
/// patches of a fleet add hundreds of thousands of fields).
fn object_insert(
    doc: &mut Value,
    tokens: &[String],
    key: &str,
    value: Value,
) -> Result<(), String> {
    match at_mut(doc, tokens) {
        Some(Value::Object(m)) => {
            m.insert(key.to_string(), value);
            Ok(())
        }
        _ => Err("invalid value, expected object".into()),
    }
}

/// A resolved array index in `[0, len)` (negative counts from the end).
fn array_index(key: &str, len: usize) -> Result<usize, String> {
    let mut i = atoi(key)?;
    if i < 0 {
        if i < -(len as i64) {
            return Err(invalid_index(i));
        }
        i += len as i64;
    }
    if i >= len as i64 {
        return Err(invalid_index(i));
    }
    Ok(i as usize)
}

/// `findObject`: the container's canonical tokens and the (decoded) last key.
fn find_object(doc: &Value, path: &str) -> Option<(Vec<String>, String)> {
    let split: Vec<&str> = path.split('/').collect();
    if split.len() < 2 {
        return if path.is_empty() {
            Some((Vec::new(), String::new()))
        } else {
            None
        };
    }
    let mut tokens = Vec::new();
    let mut cur = doc;
    for part in &split[1..split.len() - 1] {
        let key = decode_key(part);
        if key.is_empty() {
            // `get("")` is the container itself.
            continue;
        }
        let (next, token) = match cur {
            Value::Object(m) => (m.get(&key)?, key),
            Value::Array(a) => {
                let i = array_index(&key, a.len()).ok()?;
                (&a[i], i.to_string())
            }
            _ => return None,
        };
        if !(next.is_object() || next.is_array()) {
            return None;
        }
        tokens.push(token);
        cur = next;
    }
    Some((tokens, decode_key(split[split.len() - 1])))
}

enum GetError {
    Missing(String),
    Other(String),
}

impl GetError {
    fn text(self) -> String {
        match self {
            GetError::Missing(s) | GetError::Other(s) => s,
        }
    }
}

/// `container.get(key)`: `Ok(None)` for a JSON `null`.
fn con_get(con: &Value, key: &str) -> Result<Option<Value>, GetError> {
    if key.is_empty() {
        return Ok(Some(con.clone()));
    }
    let v = match con {
        Value::Object(m) => m.get(key).ok_or_else(|| {
            GetError::Missing(format!("unable to get nonexistent key: {key}: {MISSING}"))
        })?,
        Value::Array(a) => &a[array_index(key, a.len()).map_err(GetError::Other)?],
        _ => return Err(GetError::Other("invalid value, expected object".into())),
    };
    Ok(if v.is_null() { None } else { Some(v.clone()) })
}

fn pointer(tokens: &[String], last: &str) -> PointerBuf {
    let mut p = PointerBuf::from_tokens(tokens.iter());
    p.push_back(last.to_string());
    p
}

fn crate_apply(doc: &mut Value, op: PatchOperation) -> Result<(), String> {
    json_patch::patch(doc, &[op]).map_err(|e| e.to_string())
}

/// `container.add(key, value)`.
fn con_add(doc: &mut Value, tokens: &[String], key: &str, value: Value) -> Result<(), String> {
    let con = at(doc, tokens).ok_or_else(|| "invalid value, expected object".to_string())?;
    let last = match con {
        Value::Object(_) => return object_insert(doc, tokens, key, value),
        Value::Array(a) => {
            if key == "-" {
                "-".to_string()
            } else {
                let mut i = atoi(key)
                    .map_err(|e| format!("value was not a proper array index: '{key}': {e}"))?;
                let size = a.len() as i64 + 1;
                if i >= size {
                    return Err(invalid_index(i));
                }
                if i < 0 {
                    if i < -size {
                        return Err(invalid_index(i));
                    }
                    i += size;
                }
                i.to_string()
            }
        }
        _ => return Err("invalid value, expected object".into()),
    };
    let path = pointer(tokens, &last);
    crate_apply(doc, PatchOperation::Add(AddOperation { path, value }))
}

/// `container.remove(key)`.
fn con_remove(doc: &mut Value, tokens: &[String], key: &str) -> Result<(), String> {
    let con = at(doc, tokens).ok_or_else(|| "invalid value, expected object".to_string())?;
    let last = match con {
        Value::Object(m) => {
            if !m.contains_key(key) {
                return Err(format!(
                    "unable to remove nonexistent key: {key}: {MISSING}"
                ));
            }
            key.to_string()
        }
        Value::Array(a) => array_index(key, a.len())?.to_string(),
        _ => return Err("invalid value, expected object".into()),
    };
    let path = pointer(tokens, &last);
    crate_apply(doc, PatchOperation::Remove(RemoveOperation { path }))
}

/// `container.set(key, value)` (after a successful `get`).
fn con_set(doc: &mut Value, tokens: &[String], key: &str, value: Value) -> Result<(), String> {
    let con = at(doc, tokens).ok_or_else(|| "invalid value, expected object".to_string())?;
    match con {
        Value::Object(_) => object_insert(doc, tokens, key, value),
        Value::Array(a) => {
            let i = array_index(key, a.len())?;
            let path = pointer(tokens, &i.to_string());
            crate_apply(
                doc,
                PatchOperation::Replace(ReplaceOperation { path, value }),
            )
        }
        _ => Err("invalid value, expected object".into()),
    }
}

fn replace_root(doc: &mut Value, value: &Value, what: &str) -> Result<(), String> {
    match value {
        Value::Object(_) | Value::Array(_) => {
            *doc = value.clone();
            Ok(())
        }
        _ => Err(what.to_string()),
    }
}

fn apply_op(doc: &mut Value, op: &Op) -> Result<(), String> {
    let path = op.path.as_str();
    let value = op.value.clone().unwrap_or(Value::Null);
    match op.op.as_str() {
        "add" => {
            if path.is_empty() {
                return match &value {
                    Value::Null => Err("invalid value, expected object".into()),
                    Value::Object(_) | Value::Array(_) => replace_root(doc, &value, ""),
                    v => Err(format!(
                        "json: cannot unmarshal {} into Go value of type map[string]*jsonpatch.lazyNode",
                        type_name(v)
                    )),
                };
            }
            let (tokens, key) = find_object(doc, path).ok_or_else(|| {
                format!("add operation does not apply: doc is missing path: \"{path}\": {MISSING}")
            })?;
            con_add(doc, &tokens, &key, value)
                .map_err(|e| format!("error in add for path: '{path}': {e}"))
        }
        "remove" => {
            let (tokens, key) = find_object(doc, path).ok_or_else(|| {
                format!(
                    "remove operation does not apply: doc is missing path: \"{path}\": {MISSING}"
                )
            })?;
            con_remove(doc, &tokens, &key)
                .map_err(|e| format!("error in remove for path: '{path}': {e}"))
        }
        "replace" => {
            if path.is_empty() {
                return replace_root(
                    doc,
                    &value,
                    "replace operation value must be object or array: %!w(<nil>)",
                );
            }
            let (tokens, key) = find_object(doc, path).ok_or_else(|| {
                format!("replace operation does not apply: doc is missing path: {path}: {MISSING}")
            })?;
            let con = at(doc, &tokens).cloned().unwrap_or(Value::Null);
            con_get(&con, &key).map_err(|_| {
                format!("replace operation does not apply: doc is missing key: {path}: {MISSING}")
            })?;
            con_set(doc, &tokens, &key, value)
                .map_err(|e| format!("error in remove for path: '{path}': {e}"))
        }
        "move" => {
            let from = op.from.as_str();
            if from.is_empty() {
                return Err(
                    "unable to move entire document to another path: invalid state detected".into(),
                );
            }
            let (ftokens, fkey) = find_object(doc, from).ok_or_else(|| {
                format!(
                    "move operation does not apply: doc is missing from path: {from}: {MISSING}"
                )
            })?;
            let con = at(doc, &ftokens).cloned().unwrap_or(Value::Null);
            let val = con_get(&con, &fkey)
                .map_err(|e| format!("error in move for path: '{fkey}': {}", e.text()))?
                .unwrap_or(Value::Null);
            con_remove(doc, &ftokens, &fkey)
                .map_err(|e| format!("error in move for path: '{fkey}': {e}"))?;
            let (tokens, key) = find_object(doc, path).ok_or_else(|| {
                format!("move operation does not apply: doc is missing destination path: {path}: {MISSING}")
            })?;
            con_add(doc, &tokens, &key, val)
                .map_err(|e| format!("error in move for path: '{path}': {e}"))
        }
        "copy" => {
            let from = op.from.as_str();
            let (ftokens, fkey) = find_object(doc, from).ok_or_else(|| {
                format!("copy operation does not apply: doc is missing from path: \"{from}\": {MISSING}")
            })?;
            let con = at(doc, &ftokens).cloned().unwrap_or(Value::Null);
            let val = con_get(&con, &fkey)
                .map_err(|e| format!("error in copy for from: '{from}': {}", e.text()))?
                .unwrap_or(Value::Null);
            let (tokens, key) = find_object(doc, path).ok_or_else(|| {
                format!("copy operation does not apply: doc is missing destination path: {path}: {MISSING}")
            })?;
            con_add(doc, &tokens, &key, val)
                .map_err(|e| format!("error while adding value during copy: {e}"))
        }
        "test" => {
            let failed = || format!("testing value {path} failed: test failed");
            if path.is_empty() {
                return if equal(doc, &value) {
                    Ok(())
                } else {
                    Err(failed())
                };
            }
            let (tokens, key) = find_object(doc, path).ok_or_else(|| {
                format!("test operation does not apply: is missing path: {path}: {MISSING}")
            })?;
            let con = at(doc, &tokens).cloned().unwrap_or(Value::Null);
            let val = match con_get(&con, &key) {
                Ok(v) => v,
                Err(GetError::Missing(_)) => None,
                Err(GetError::Other(e)) => {
                    return Err(format!("error in test for path: '{path}': {e}"))
                }
            };
            match (val, op.value.as_ref()) {
                (None, None) => Ok(()),
                (None, Some(_)) | (Some(_), None) => Err(failed()),
                (Some(v), Some(w)) if equal(&v, w) => Ok(()),
                _ => Err(failed()),
            }
        }
        other => Err(format!("Unexpected kind: {other}")),
    }
}

/// Why a patch failed: it does not decode (`DecodePatch`), or an operation (or a limit)
/// failed while applying.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    Decode(String),
    Apply(String),
}

/// Apply decoded operations to `doc` in place as `DecodePatch` + `Apply` do; the first
/// failure stops (`doc` may then be partly patched: callers patch a copy).
pub fn apply(doc: &mut Value, ops: &[Option<Op>]) -> Result<(), Failure> {
    validate(ops).map_err(Failure::Decode)?;
    crate::limits::check_json_patch(
        ops.len(),
        ops.iter()
            .flatten()
            .flat_map(|o| [o.path.as_str(), o.from.as_str()]),
    )
    .map_err(Failure::Apply)?;
    for op in ops.iter().flatten() {
        apply_op(doc, op).map_err(Failure::Apply)?;
    }
    Ok(())
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
        (Value::Number(x), Value::Number(y)) => {
            super::json::number_text(x) == super::json::number_text(y)
        }
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Null, Value::Null) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// With the operator's error prefixes.
    fn run(mut doc: Value, patch: Value) -> Result<Value, String> {
        let ops = decode(&patch).expect("decodes as RFC 6902");
        match apply(&mut doc, &ops) {
            Ok(()) => Ok(doc),
            Err(Failure::Decode(e)) => Err(format!("failed to decode RFC6902 patch: {e}")),
            Err(Failure::Apply(e)) => Err(format!("failed to apply RFC6902 patch: {e}")),
        }
    }

    fn doc() -> Value {
        json!({"kind": "Deployment", "spec": {"replicas": 1, "template": {"spec": {"containers": [
            {"name": "manager", "args": ["--a=1", "--b=2"]}, {"name": "proxy"}]}}}})
    }

    #[test]
    fn add_replace_remove() {
        let got = run(
            doc(),
            json!([
                {"op": "add", "path": "/spec/template/spec/containers/0/args/-", "value": "--c=3"},
                {"op": "replace", "path": "/spec/replicas", "value": 2},
                {"op": "remove", "path": "/spec/template/spec/containers/1"},
                {"op": "add", "path": "/metadata", "value": {"labels": {"a": "b"}}},
            ]),
        )
        .unwrap();
        assert_eq!(got["spec"]["replicas"], json!(2));
        assert_eq!(
            got["spec"]["template"]["spec"]["containers"],
            json!([{"name": "manager", "args": ["--a=1", "--b=2", "--c=3"]}])
        );
        assert_eq!(got["metadata"], json!({"labels": {"a": "b"}}));
    }

    #[test]
    fn negative_and_atoi_indices() {
        let got = run(doc(), json!([
            {"op": "replace", "path": "/spec/template/spec/containers/-2/args/-1", "value": "--b=9"},
            {"op": "add", "path": "/spec/template/spec/containers/+0/args/00", "value": "--first"},
        ]))
        .unwrap();
        assert_eq!(
            got["spec"]["template"]["spec"]["containers"][0]["args"],
            json!(["--first", "--a=1", "--b=9"])
        );
    }

    #[test]
    fn move_copy_test() {
        let got = run(
            doc(),
            json!([
                {"op": "test", "path": "/spec/replicas", "value": 1.0},
                {"op": "test", "path": "/spec/missing"},
                {"op": "copy", "from": "/spec/replicas", "path": "/spec/copy"},
                {"op": "move", "from": "/spec/copy", "path": "/spec/moved"},
            ]),
        )
        .unwrap();
        assert_eq!(got["spec"]["moved"], json!(1));
        assert!(got["spec"].get("copy").is_none());
    }

    #[test]
    fn missing_value_is_null() {
        let got = run(doc(), json!([{"op": "add", "path": "/spec/x"}])).unwrap();
        assert_eq!(got["spec"]["x"], Value::Null);
    }

    #[test]
    fn path_without_leading_slash_addresses_the_root() {
        let got = run(doc(), json!([{"op": "add", "path": "spec/x", "value": 1}])).unwrap();
        assert_eq!(got["x"], json!(1));
    }

    #[test]
    fn evanphx_error_texts() {
        let e = |p: Value| run(doc(), p).unwrap_err();
        assert_eq!(e(json!([{"op": "replace", "path": "/spec/nope", "value": 1}])),
            "failed to apply RFC6902 patch: replace operation does not apply: doc is missing key: /spec/nope: missing value");
        assert_eq!(e(json!([{"op": "add", "path": "/nope/x", "value": 1}])),
            "failed to apply RFC6902 patch: add operation does not apply: doc is missing path: \"/nope/x\": missing value");
        assert_eq!(e(json!([{"op": "remove", "path": "/spec/nope"}])),
            "failed to apply RFC6902 patch: error in remove for path: '/spec/nope': unable to remove nonexistent key: nope: missing value");
        assert_eq!(
            e(json!([{"op": "test", "path": "/spec/replicas", "value": 2}])),
            "failed to apply RFC6902 patch: testing value /spec/replicas failed: test failed"
        );
        assert_eq!(e(json!([{"op": "add", "path": "/spec/template/spec/containers/5", "value": {}}])),
            "failed to apply RFC6902 patch: error in add for path: '/spec/template/spec/containers/5': Unable to access invalid index: 5: invalid index referenced");
        assert_eq!(e(json!([{"op": "add", "path": "/spec/template/spec/containers/x", "value": {}}])),
            "failed to apply RFC6902 patch: error in add for path: '/spec/template/spec/containers/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax");
        assert_eq!(e(json!([{"op": "move", "path": "/a"}])),
            "failed to decode RFC6902 patch: invalid operation {\"op\":\"move\",\"path\":\"/a\",\"value\":null}: failed to decode 'from': operation, missing from field: missing value");
        assert_eq!(e(json!([{"op": "frob", "path": "/a", "value": "<x>"}])),
            "failed to decode RFC6902 patch: invalid operation {\"op\":\"frob\",\"path\":\"/a\",\"value\":\"\\u003cx\\u003e\"}: unsupported operation");
        assert_eq!(
            e(json!([null])),
            "failed to decode RFC6902 patch: invalid operation null: unsupported operation"
        );
    }

    #[test]
    fn decode_falls_back_for_non_rfc6902_shapes() {
        assert!(decode(&json!({"spec": {}})).is_none());
        assert!(decode(&json!([1])).is_none());
        assert!(decode(&json!([{"op": 1}])).is_none());
        assert_eq!(decode(&json!(null)), Some(vec![]));
        assert_eq!(
            decode(&json!([{"OP": "add", "Path": "/a", "extra": 1}])).unwrap()[0]
                .as_ref()
                .unwrap()
                .op,
            "add"
        );
    }

    // The error texts a ClusterClass patch reports (without the operator prefixes).
    #[test]
    fn patch_size_and_path_depth_are_limited() {
        let ops: Vec<Value> = (0..10_001)
            .map(|_| json!({"op": "add", "path": "/a", "value": 1}))
            .collect();
        let e = bare(json!({}), Value::Array(ops)).unwrap_err();
        assert!(e.contains("--max-patch-ops"), "{e}");
        let deep = "/a".repeat(200);
        let e = bare(json!({}), json!([{"op": "add", "path": deep, "value": 1}])).unwrap_err();
        assert!(e.contains("--max-patch-depth"), "{e:.300}");
    }

    #[test]
    fn add_prepend_append_and_replace() {
        let d = bare(
            json!({"a": [1, 2], "m": {"k": 1}}),
            json!([{"op": "add", "path": "/a/0", "value": 0}, {"op": "add", "path": "/a/-", "value": 3},
                   {"op": "replace", "path": "/m/k", "value": 2}, {"op": "add", "path": "/m/a~1b", "value": 1}]),
        )
        .unwrap();
        assert_eq!(d, json!({"a": [0, 1, 2, 3], "m": {"k": 2, "a/b": 1}}));
    }

    #[test]
    fn evanphx_error_texts_of_class_patches() {
        let e = bare(
            json!({"spec": {}}),
            json!([{"op": "add", "path": "/spec/x/y", "value": 1}]),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "add operation does not apply: doc is missing path: \"/spec/x/y\": missing value"
        );
        let e = bare(
            json!({"spec": {}}),
            json!([{"op": "remove", "path": "/spec/x"}]),
        )
        .unwrap_err();
        assert_eq!(e, "error in remove for path: '/spec/x': unable to remove nonexistent key: x: missing value");
        let e = bare(
            json!({"spec": {}}),
            json!([{"op": "replace", "path": "/spec/x", "value": 1}]),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "replace operation does not apply: doc is missing key: /spec/x: missing value"
        );
        let e = bare(
            json!({"a": []}),
            json!([{"op": "add", "path": "/a/3", "value": 1}]),
        )
        .unwrap_err();
        assert_eq!(e, "error in add for path: '/a/3': Unable to access invalid index: 3: invalid index referenced");
    }

    #[test]
    fn null_parents_are_missing() {
        let e = bare(
            json!({"spec": {"x": null}}),
            json!([{"op": "add", "path": "/spec/x/y", "value": 1}]),
        );
        assert!(e.unwrap_err().contains("doc is missing path"));
    }

    fn bare(mut doc: Value, patch: Value) -> Result<Value, String> {
        match apply(&mut doc, &decode(&patch).expect("decodes")) {
            Ok(()) => Ok(doc),
            Err(Failure::Decode(e) | Failure::Apply(e)) => Err(e),
        }
    }

    #[test]
    fn equality_compares_number_text() {
        assert!(equal(&json!({"a": 1}), &json!({"a": 1.0})));
        assert!(!equal(&json!({"a": 1}), &json!({"a": "1"})));
        assert!(!equal(&json!([1, 2]), &json!([1])));
    }
}
