//! JSON merge patches as evanphx/json-patch v5 computes them (`CreateMergePatch`,
//! `MergePatch`'s null pruning), and Go's `encoding/json` text for them.

use serde_json::{Map, Value};

/// `CreateMergePatch(original, modified)` for two objects.
pub fn create(original: &Value, modified: &Value) -> Value {
    match (original, modified) {
        (Value::Object(a), Value::Object(b)) => Value::Object(diff(a, b)),
        _ => modified.clone(),
    }
}

fn same_type(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

fn diff(a: &Map<String, Value>, b: &Map<String, Value>) -> Map<String, Value> {
    let mut into = Map::new();
    for (k, bv) in b {
        match a.get(k) {
            None => {
                into.insert(k.clone(), bv.clone());
            }
            Some(av) if !same_type(av, bv) => {
                into.insert(k.clone(), bv.clone());
            }
            Some(Value::Object(am)) => {
                let d = diff(am, bv.as_object().expect("same type"));
                if !d.is_empty() {
                    into.insert(k.clone(), Value::Object(d));
                }
            }
            Some(av) => {
                if !json_equal(av, bv) {
                    into.insert(k.clone(), bv.clone());
                }
            }
        }
    }
    for k in a.keys() {
        if !b.contains_key(k) {
            into.insert(k.clone(), Value::Null);
        }
    }
    into
}

fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// `pruneNulls` as `MergePatch` applies it to values new to the document: null map
/// entries are removed at every depth (array elements stay, their maps are pruned).
pub fn prune_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            for x in m.values_mut() {
                prune_nulls(x);
            }
        }
        Value::Array(a) => {
            for x in a.iter_mut() {
                prune_nulls(x);
            }
        }
        _ => {}
    }
}

/// Go `json.Marshal` text (sorted keys, HTML-safe escaping, Go float format).
pub fn go_json(v: &Value) -> String {
    crate::typed::gojson::marshal(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_patch_of_added_changed_and_removed() {
        let a = json!({"a": 1, "b": {"c": 1, "d": 2}, "e": 1});
        let b = json!({"a": 1, "b": {"c": 2, "d": 2}, "f": [1]});
        assert_eq!(create(&a, &b), json!({"b": {"c": 2}, "e": null, "f": [1]}));
    }

    #[test]
    fn go_json_escapes_html() {
        assert_eq!(
            go_json(&json!({"b": "<&>", "a": 1.5})),
            r#"{"a":1.5,"b":"\u003c\u0026\u003e"}"#
        );
    }

    #[test]
    fn prune_nulls_keeps_array_elements() {
        let mut v = json!({"a": null, "b": [null, {"c": null}]});
        prune_nulls(&mut v);
        assert_eq!(v, json!({"b": [null, {}]}));
    }
}
