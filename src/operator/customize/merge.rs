//! RFC 7386 JSON merge patch as evanphx/json-patch v5.9.11 `MergePatch` applies it
//! (used by `patches` entries that are not RFC 6902 arrays, R7.1.2, and by
//! `manifestPatches`, R7.2). It is not a Kubernetes strategic merge: lists are
//! replaced wholesale and `null` deletes a key. evanphx details kept:
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
pub fn prune_nulls(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, x)| !x.is_null())
                .map(|(k, x)| (k.clone(), prune_nulls(x)))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(prune_nulls).collect()),
        other => other.clone(),
    }
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
                doc.insert(k.clone(), prune_nulls(v));
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
        return prune_nulls(patch);
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
        (_, Value::Object(p)) => prune_nulls(&Value::Object(p.clone())),
        (_, Value::Array(_)) => prune_nulls(patch),
        (_, other) => other.clone(),
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
}
