//! JSON merge patches (RFC 7386) as evanphx/json-patch v5.9.11 handles them: applying
//! one (`MergePatch`: the operator's `patches` entries that are not RFC 6902 arrays,
//! R7.1.2, and its `manifestPatches`, R7.2) and computing one (`CreateMergePatch`: the
//! topology plan's Cluster diff). It is not a Kubernetes strategic merge: lists are
//! replaced wholesale and `null` deletes a key. evanphx details kept by `merge_patch`:
//!
//! * a key whose current value is absent or `null` gets the patch value with its
//!   `null`s pruned, recursively, *including inside objects nested in lists*;
//! * a current non-object value is replaced by the pruned patch value; a non-object
//!   patch value replacing an object is taken as is (not pruned);
//! * a top-level patch that is not an object is the result itself (lists with their
//!   nested objects' `null`s pruned).

use serde_json::{Map, Value};

/// `pruneNulls`: drop `null` members of objects, recursively through objects and lists
/// (`null` list elements stay).
pub fn prune_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(prune_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(prune_nulls),
        _ => {}
    }
}

/// A copy of `v` with [`prune_nulls`] applied.
fn pruned(v: &Value) -> Value {
    let mut c = v.clone();
    prune_nulls(&mut c);
    c
}

/// `mergeDocs(doc, patch, false)`.
fn merge_docs(doc: &mut Map<String, Value>, patch: &Map<String, Value>) {
    for (k, v) in patch {
        if v.is_null() {
            doc.remove(k);
            continue;
        }
        match doc.get_mut(k) {
            None | Some(Value::Null) => {
                doc.insert(k.clone(), pruned(v));
            }
            Some(cur) => {
                let merged = merge(cur, v);
                *cur = merged;
            }
        }
    }
}

/// `merge(cur, patch, false)`.
fn merge(cur: &mut Value, patch: &Value) -> Value {
    let Value::Object(c) = cur else {
        return pruned(patch);
    };
    let Value::Object(p) = patch else {
        return patch.clone();
    };
    merge_docs(c, p);
    std::mem::take(cur)
}

/// `jsonpatch.MergePatch(doc, patch)` for a document that is a JSON object.
pub fn merge_patch(doc: &Value, patch: &Value) -> Value {
    match (doc, patch) {
        (Value::Object(d), Value::Object(p)) => {
            let mut d = d.clone();
            merge_docs(&mut d, p);
            Value::Object(d)
        }
        (_, Value::Null) => Value::Null,
        (_, Value::Object(p)) => pruned(&Value::Object(p.clone())),
        (_, Value::Array(_)) => pruned(patch),
        (_, other) => other.clone(),
    }
}

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

/// `reflect.DeepEqual` of the two values as `json.Unmarshal` decodes them (every
/// number a float64).
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rfc7386_basics() {
        let doc = json!({"a": "b", "c": {"d": "e", "f": "g"}, "l": [1, 2]});
        let got = merge_patch(&doc, &json!({"a": "z", "c": {"f": null}, "l": [3]}));
        assert_eq!(got, json!({"a": "z", "c": {"d": "e"}, "l": [3]}));
    }

    #[test]
    fn nulls_pruned_inside_lists_of_new_values() {
        let doc = json!({"spec": {"list": [{"a": 1}]}});
        let got = merge_patch(
            &doc,
            &json!({"spec": {"list": [{"a": null, "b": 1}, null]}, "new": {"x": null, "y": [{"z": null}]}}),
        );
        assert_eq!(
            got,
            json!({"spec": {"list": [{"b": 1}, null]}, "new": {"y": [{}]}})
        );
    }

    #[test]
    fn non_object_patch_value_replacing_object_is_not_pruned() {
        let doc = json!({"o": {"a": 1}});
        let got = merge_patch(&doc, &json!({"o": [{"x": null}]}));
        assert_eq!(got, json!({"o": [{"x": null}]}));
    }

    #[test]
    fn null_current_value_takes_pruned_patch() {
        let doc = json!({"metadata": {"creationTimestamp": null}});
        let got = merge_patch(
            &doc,
            &json!({"metadata": {"creationTimestamp": {"a": null, "b": 1}}}),
        );
        assert_eq!(got, json!({"metadata": {"creationTimestamp": {"b": 1}}}));
    }

    #[test]
    fn top_level_non_objects() {
        let doc = json!({"a": 1});
        assert_eq!(merge_patch(&doc, &json!("x")), json!("x"));
        assert_eq!(merge_patch(&doc, &json!(null)), json!(null));
        assert_eq!(merge_patch(&doc, &json!([{"a": null}])), json!([{}]));
    }

    #[test]
    fn created_patch_of_added_changed_and_removed() {
        let a = json!({"a": 1, "b": {"c": 1, "d": 2}, "e": 1});
        let b = json!({"a": 1, "b": {"c": 2, "d": 2}, "f": [1]});
        assert_eq!(create(&a, &b), json!({"b": {"c": 2}, "e": null, "f": [1]}));
    }

    #[test]
    fn prune_nulls_keeps_array_elements() {
        let mut v = json!({"a": null, "b": [null, {"c": null}]});
        prune_nulls(&mut v);
        assert_eq!(v, json!({"b": [null, {}]}));
    }
}
