//! Detect the components' own Namespace, and add one when there is none (R7.2 steps 6–8).

use serde_json::{json, Value};

use super::{kind, name};
use crate::error::{Error, Result};

/// The name of the (single) `Namespace` object, or "".
pub fn default_target_namespace(objs: &[Value]) -> Result<String> {
    let mut ns = String::new();
    for o in objs.iter().filter(|o| kind(o) == "Namespace") {
        if !ns.is_empty() {
            return Err(Error::new(
                "Invalid manifest. There should be no more than one resource with Kind Namespace in the provider components yaml",
            ));
        }
        ns = name(o).to_string();
    }
    Ok(ns)
}

/// Append `{kind: Namespace, metadata: {name}}` (no apiVersion, as v1.10.10) if missing.
pub fn add_namespace_if_missing(objs: &mut Vec<Value>, target: &str) {
    if !objs.iter().any(|o| kind(o) == "Namespace") {
        objs.push(json!({"kind": "Namespace", "metadata": {"name": target}}));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_namespaces_are_an_error() {
        let objs = vec![
            json!({"kind": "Namespace", "metadata": {"name": "a"}}),
            json!({"kind": "Namespace", "metadata": {"name": "b"}}),
        ];
        assert!(default_target_namespace(&objs)
            .unwrap_err()
            .message()
            .contains("no more than one"));
        assert_eq!(default_target_namespace(&objs[..1]).unwrap(), "a");
    }

    #[test]
    fn namespace_added_without_api_version() {
        let mut objs = vec![json!({"kind": "Service"})];
        add_namespace_if_missing(&mut objs, "ns");
        assert_eq!(
            objs[1],
            json!({"kind": "Namespace", "metadata": {"name": "ns"}})
        );
        add_namespace_if_missing(&mut objs, "other");
        assert_eq!(objs.len(), 2);
    }
}
