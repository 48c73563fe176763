//! Detect the components' own Namespace, and add one when there is none (R7.2 steps 6–8).

use serde_json::{json, Value};

use super::{kind, name};
use crate::config::Clusterctl;
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

/// Append a Namespace named `target` if there is none: `{kind: Namespace, metadata:
/// {name}}` with no apiVersion as clusterctl v1.10.10 writes it, with `apiVersion: v1`
/// as v1.14.2 does.
pub fn add_namespace_if_missing(objs: &mut Vec<Value>, target: &str, c: Clusterctl) {
    if !objs.iter().any(|o| kind(o) == "Namespace") {
        objs.push(match c {
            Clusterctl::V1_10 => json!({"kind": "Namespace", "metadata": {"name": target}}),
            Clusterctl::V1_14 => {
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": target}})
            }
        });
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
    fn namespace_added_without_api_version_by_v1_10_with_it_by_v1_14() {
        let mut objs = vec![json!({"kind": "Service"})];
        add_namespace_if_missing(&mut objs, "ns", Clusterctl::V1_10);
        assert_eq!(
            objs[1],
            json!({"kind": "Namespace", "metadata": {"name": "ns"}})
        );
        add_namespace_if_missing(&mut objs, "other", Clusterctl::V1_10);
        assert_eq!(objs.len(), 2);
        let mut objs = vec![json!({"kind": "Service"})];
        add_namespace_if_missing(&mut objs, "ns", Clusterctl::V1_14);
        assert_eq!(
            objs[1],
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}})
        );
    }
}
