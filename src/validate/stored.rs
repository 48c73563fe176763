//! The object the API server validates, from the object as decoded
//! (customresource_handler.go `unstructuredSchemaCoercer.apply`, then the defaulter):
//! unknown fields pruned, nulls of non-nullable fields without a default dropped
//! (`PruneNonNullableNullsWithoutDefaults`), defaults filled (`structuraldefaulting`).
//! Only the checks see it; the output keeps the object as written.

use serde_json::Value;

use crate::topology::variables::defaulting::apply_defaults;
use crate::topology::variables::schema::Schema;

/// `v` as the schema validation sees it, against its CRD version's schema `s`. At the
/// root, `apiVersion`, `kind` and `metadata` are kept as they are (ObjectMeta is not
/// pruned by the schema).
pub fn as_stored(v: &Value, s: &Schema) -> Value {
    let mut x = v.clone();
    if let Value::Object(m) = &mut x {
        let root = ["apiVersion", "kind", "metadata"];
        m.retain(|k, _| {
            root.contains(&k.as_str())
                || s.preserve_unknown_fields
                || s.properties.contains_key(k)
                || s.additional_properties.is_some()
        });
        for (k, val) in m.iter_mut() {
            if let Some(p) = field_schema(s, k).filter(|_| !root.contains(&k.as_str())) {
                prune(val, p, false);
            }
        }
    }
    prune_nulls(&mut x, Some(s));
    apply_defaults(&mut x, s);
    x
}

fn field_schema<'a>(s: &'a Schema, k: &str) -> Option<&'a Schema> {
    s.properties.get(k).or(s.additional_properties.as_deref())
}

/// Drops the fields `s` does not declare, at every depth; under
/// `x-kubernetes-preserve-unknown-fields` (or inside `preserved`) undeclared fields stay
/// and only the declared ones are descended into, as `structuralpruning` does.
fn prune(x: &mut Value, s: &Schema, preserved: bool) {
    let keep = preserved || s.preserve_unknown_fields;
    match x {
        Value::Object(m) => {
            // An embedded resource keeps its apiVersion, kind and metadata as written
            // (pruning skips them, `metaFields`).
            let meta =
                |k: &str| s.embedded_resource && matches!(k, "apiVersion" | "kind" | "metadata");
            if !keep {
                m.retain(|k, _| meta(k) || field_schema(s, k).is_some());
            }
            for (k, v) in m.iter_mut() {
                if meta(k) {
                    continue;
                }
                if let Some(p) = field_schema(s, k) {
                    prune(v, p, false);
                }
            }
        }
        Value::Array(items) => {
            if let Some(it) = &s.items {
                for v in items.iter_mut() {
                    prune(v, it, keep);
                }
            }
        }
        _ => {}
    }
}

fn prune_nulls(x: &mut Value, s: Option<&Schema>) {
    match x {
        Value::Object(m) => {
            m.retain(|k, v| {
                let fs = s.and_then(|s| field_schema(s, k));
                !(v.is_null() && fs.is_some_and(|f| !f.nullable && f.default.is_none()))
            });
            for (k, v) in m.iter_mut() {
                prune_nulls(v, s.and_then(|s| field_schema(s, k)));
            }
        }
        Value::Array(items) => {
            for v in items.iter_mut() {
                prune_nulls(v, s.and_then(|s| s.items.as_deref()));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prunes_unknown_drops_nulls_and_defaults() {
        let s = Schema::from_value(
            &json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "a": {"type": "object"},
                "n": {"type": "object", "nullable": true},
                "d": {"type": "string", "default": "x"},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                    "properties": {"k": {"type": "object", "properties": {}}}}
            }}}}),
            "s",
        )
        .unwrap();
        let v = json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "m", "x": 1},
            "extra": 1, "spec": {"a": null, "n": null, "zz": 1,
            "free": {"any": 1, "k": {"gone": 1}}}});
        assert_eq!(
            as_stored(&v, &s),
            json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "m", "x": 1},
                "spec": {"n": null, "d": "x", "free": {"any": 1, "k": {}}}})
        );
    }
}
