//! R6.1.1: `Namespace` objects are dropped (the provider namespace already exists,
//! since the provider CR lives in it). The check is on `kind` only, any group.

use serde_json::Value;

use crate::components::filters::kind;

/// `customizeObjectsFn`'s `o.GetKind() == namespaceKind`.
pub fn is_namespace(o: &Value) -> bool {
    kind(o) == "Namespace"
}

/// Drop every `Namespace` object, keeping the order of the others.
pub fn drop_namespaces(objs: Vec<Value>) -> Vec<Value> {
    objs.into_iter().filter(|o| !is_namespace(o)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn namespaces_of_any_group_are_dropped() {
        let objs = vec![
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}),
            json!({"apiVersion": "example.io/v1", "kind": "Namespace", "metadata": {"name": "b"}}),
        ];
        let out = drop_namespaces(objs);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["kind"], "Service");
    }
}
