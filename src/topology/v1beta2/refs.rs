//! References between v1beta1 and v1beta2 shapes.

use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::topology::obj;

/// A ClusterClass `templateRef` (`{apiVersion, kind, name}`) as the v1beta1 `ref`:
/// templates always live in the ClusterClass namespace.
pub fn template_ref_to_ref(tr: &Value, cc_ns: &str, path: &str) -> Result<Value> {
    for f in ["apiVersion", "kind", "name"] {
        if obj::str_at(tr, &[f]).is_empty() {
            return Err(Error::new(format!("{path}.{f}: Required value")));
        }
    }
    Ok(json!({
        "apiVersion": obj::str_at(tr, &["apiVersion"]),
        "kind": obj::str_at(tr, &["kind"]),
        "name": obj::str_at(tr, &["name"]),
        "namespace": cc_ns,
    }))
}

/// A v1beta1 object reference as v1beta2's `ContractVersionedObjectReference`
/// (`{apiGroup, kind, name}`).
pub fn contract_ref(r: &Value) -> Value {
    json!({
        "apiGroup": obj::group_of(obj::str_at(r, &["apiVersion"])),
        "kind": obj::str_at(r, &["kind"]),
        "name": obj::str_at(r, &["name"]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_ref_gets_the_class_namespace() {
        let tr = json!({"apiVersion": "a.io/v1", "kind": "K", "name": "n"});
        let r = template_ref_to_ref(&tr, "ns", "spec.x.templateRef").unwrap();
        assert_eq!(
            r,
            json!({"apiVersion": "a.io/v1", "kind": "K", "name": "n", "namespace": "ns"})
        );
    }

    #[test]
    fn template_ref_without_name_is_an_error_naming_the_field() {
        let e = template_ref_to_ref(
            &json!({"apiVersion": "a/v1", "kind": "K"}),
            "ns",
            "spec.x.templateRef",
        )
        .unwrap_err();
        assert!(
            e.message().contains("spec.x.templateRef.name"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn contract_ref_drops_version_and_namespace() {
        let r = json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "K", "name": "n", "namespace": "d"});
        assert_eq!(
            contract_ref(&r),
            json!({"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "K", "name": "n"})
        );
    }
}
