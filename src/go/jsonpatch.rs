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

/// `container.get(key)`: `Ok(None)` for a JSON `null`. A reference: what is kept of
/// it is cloned by the caller, after [`Budget::charge`].
fn con_get<'a>(con: &'a Value, key: &str) -> Result<Option<&'a Value>, GetError> {
    if key.is_empty() {
        return Ok(Some(con));
    }
    let v = match con {
        Value::Object(m) => m.get(key).ok_or_else(|| {
            GetError::Missing(format!("unable to get nonexistent key: {key}: {MISSING}"))
        })?,
        Value::Array(a) => &a[array_index(key, a.len()).map_err(GetError::Other)?],
        _ => return Err(GetError::Other("invalid value, expected object".into())),
    };
    Ok(if v.is_null() { None } else { Some(v) })
}

/// The value at `key` of the container at `tokens`, charged to `budget` as placed
/// `level` levels deep, then cloned (`null` for a JSON `null`).
fn take_copy(
    doc: &Value,
    tokens: &[String],
    key: &str,
    budget: &mut Budget,
    level: usize,
) -> Result<Value, GetError> {
    let con = at(doc, tokens).unwrap_or(&Value::Null);
    let v = con_get(con, key)?.unwrap_or(&Value::Null);
    budget.charge(v, level).map_err(GetError::Other)?;
    Ok(v.clone())
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

fn replace_root(
    doc: &mut Value,
    value: &Value,
    what: &str,
    budget: &mut Budget,
) -> Result<(), String> {
    match value {
        Value::Object(_) | Value::Array(_) => {
            budget.charge(value, 0)?;
            *doc = value.clone();
            Ok(())
        }
        _ => Err(what.to_string()),
    }
}

/// The level a key of the container at `tokens` is at.
fn level(tokens: &[String]) -> usize {
    tokens.len() + 1
}

fn apply_op(doc: &mut Value, op: &Op, budget: &mut Budget) -> Result<(), String> {
    let path = op.path.as_str();
    let null = Value::Null;
    let value = op.value.as_ref().unwrap_or(&null);
    match op.op.as_str() {
        "add" => {
            if path.is_empty() {
                return match value {
                    Value::Null => Err("invalid value, expected object".into()),
                    Value::Object(_) | Value::Array(_) => replace_root(doc, value, "", budget),
                    v => Err(format!(
                        "json: cannot unmarshal {} into Go value of type map[string]*jsonpatch.lazyNode",
                        type_name(v)
                    )),
                };
            }
            let (tokens, key) = find_object(doc, path).ok_or_else(|| {
                format!("add operation does not apply: doc is missing path: \"{path}\": {MISSING}")
            })?;
            budget
                .charge(value, level(&tokens))
                .map_err(|e| format!("error in add for path: '{path}': {e}"))?;
            con_add(doc, &tokens, &key, value.clone())
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
                    value,
                    "replace operation value must be object or array: %!w(<nil>)",
                    budget,
                );
            }
            let (tokens, key) = find_object(doc, path).ok_or_else(|| {
                format!("replace operation does not apply: doc is missing path: {path}: {MISSING}")
            })?;
            con_get(at(doc, &tokens).unwrap_or(&null), &key).map_err(|_| {
                format!("replace operation does not apply: doc is missing key: {path}: {MISSING}")
            })?;
            budget
                .charge(value, level(&tokens))
                .map_err(|e| format!("error in replace for path: '{path}': {e}"))?;
            con_set(doc, &tokens, &key, value.clone())
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
            // Charged at the destination's level, known from its path's segments.
            let to_level = path.split('/').count().saturating_sub(1);
            let val = take_copy(doc, &ftokens, &fkey, budget, to_level)
                .map_err(|e| format!("error in move for path: '{fkey}': {}", e.text()))?;
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
            let copy_err = |e: String| format!("error in copy for from: '{from}': {e}");
            let val = con_get(at(doc, &ftokens).unwrap_or(&null), &fkey)
                .map_err(|e| copy_err(e.text()))?
                .unwrap_or(&null);
            let (tokens, key) = find_object(doc, path).ok_or_else(|| {
                format!("copy operation does not apply: doc is missing destination path: {path}: {MISSING}")
            })?;
            budget.charge(val, level(&tokens)).map_err(copy_err)?;
            let val = val.clone();
            con_add(doc, &tokens, &key, val)
                .map_err(|e| format!("error while adding value during copy: {e}"))
        }
        "test" => {
            let failed = || format!("testing value {path} failed: test failed");
            if path.is_empty() {
                return if equal(doc, value) {
                    Ok(())
                } else {
                    Err(failed())
                };
            }
            let (tokens, key) = find_object(doc, path).ok_or_else(|| {
                format!("test operation does not apply: is missing path: {path}: {MISSING}")
            })?;
            let val = match con_get(at(doc, &tokens).unwrap_or(&null), &key) {
                Ok(v) => v,
                Err(GetError::Missing(_)) => None,
                Err(GetError::Other(e)) => {
                    return Err(format!("error in test for path: '{path}': {e}"))
                }
            };
            match (val, op.value.as_ref()) {
                (None, None) => Ok(()),
                (None, Some(_)) | (Some(_), None) => Err(failed()),
                (Some(v), Some(w)) if equal(v, w) => Ok(()),
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
    let mut budget = Budget::current();
    for op in ops.iter().flatten() {
        apply_op(doc, op, &mut budget).map_err(Failure::Apply)?;
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

mod budget;
use budget::Budget;

#[cfg(test)]
mod tests;
