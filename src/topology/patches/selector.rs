//! `matchesSelector` (topology.md R6.5): which patch definitions apply to a template.

use serde_json::Value;

use super::{Holder, Item};
use crate::topology::obj;

fn name_matches(names: &[Value], class: &str) -> bool {
    names.iter().filter_map(Value::as_str).any(|n| {
        n == "*"
            || n == class
            || n.strip_prefix('*').is_some_and(|s| class.ends_with(s))
            || n.strip_suffix('*').is_some_and(|p| class.starts_with(p))
    })
}

fn worker_names(mr: &Value, key: &str) -> Option<Vec<Value>> {
    let v = mr.get(key).filter(|v| !v.is_null())?;
    Some(
        v.get("names")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
    )
}

/// Whether `selector` selects `item`.
pub fn matches(item: &Item, selector: &Value) -> bool {
    let t = &item.template;
    if obj::api_version(t) != obj::str_at(selector, &["apiVersion"])
        || obj::kind(t) != obj::str_at(selector, &["kind"])
    {
        return false;
    }
    let mr = selector.get("matchResources").unwrap_or(&Value::Null);
    let flag = |k: &str| mr.get(k).and_then(Value::as_bool).unwrap_or(false);
    if flag("infrastructureCluster") && item.holder == Holder::InfraCluster {
        return true;
    }
    if flag("controlPlane")
        && matches!(
            item.holder,
            Holder::ControlPlane | Holder::ControlPlaneInfra
        )
    {
        return true;
    }
    if let Some(names) = worker_names(mr, "machineDeploymentClass") {
        if let Holder::MachineDeployment { class, .. } = &item.holder {
            if name_matches(&names, class) {
                return true;
            }
        }
    }
    if let Some(names) = worker_names(mr, "machinePoolClass") {
        if let Holder::MachinePool { class, .. } = &item.holder {
            if name_matches(&names, class) {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wildcards() {
        let n = vec![json!("*-worker")];
        assert!(name_matches(&n, "default-worker"));
        assert!(!name_matches(&n, "worker-x"));
        assert!(name_matches(&[json!("def*")], "default-worker"));
        assert!(name_matches(&[json!("*")], "x"));
        assert!(!name_matches(&[json!("other")], "x"));
    }

    #[test]
    fn kind_and_holder_must_match() {
        let item = Item {
            holder: Holder::ControlPlaneInfra,
            template: json!({"apiVersion": "i/v1", "kind": "MT"}),
            builtin: json!({}),
            overrides: vec![],
            all_overrides: vec![],
        };
        let sel =
            json!({"apiVersion": "i/v1", "kind": "MT", "matchResources": {"controlPlane": true}});
        assert!(matches(&item, &sel));
        let sel = json!({"apiVersion": "i/v1", "kind": "MT", "matchResources": {"infrastructureCluster": true}});
        assert!(!matches(&item, &sel));
        let sel =
            json!({"apiVersion": "i/v2", "kind": "MT", "matchResources": {"controlPlane": true}});
        assert!(!matches(&item, &sel));
    }
}
