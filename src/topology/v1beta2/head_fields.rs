//! Fields HEAD's controller computes from v1beta2 ClusterClasses and Clusters that have
//! no v1beta1 equivalent (topology.md §12), set on the converted desired objects:
//! MachineDeployment `deletion.order` (topology over class, independent of the
//! rollout strategy), `remediation.maxInFlight`, `rollout.after` and machine `taints`;
//! MachinePool and ControlPlane machine `taints`.

use serde_json::Value;

use crate::topology::obj;

const DEPLOYMENT_LABEL: &str = "topology.cluster.x-k8s.io/deployment-name";
const POOL_LABEL: &str = "topology.cluster.x-k8s.io/pool-name";

fn present(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !v.is_null() && v.as_str() != Some(""))
}

/// The topology's value at `path`, else the class's.
fn first<'a>(topology: &'a Value, class: &'a Value, path: &[&str]) -> Option<&'a Value> {
    present(obj::get(topology, path)).or_else(|| present(obj::get(class, path)))
}

/// The topology and class entries (`list`: machineDeployments / machinePools) of the
/// worker whose topology name is in label `label` of `o`.
fn worker_sources(
    o: &Value,
    label: &str,
    list: &str,
    cluster: &Value,
    cc: &Value,
) -> (Value, Value) {
    let name = obj::str_at(o, &["metadata", "labels", label]);
    let topology = obj::get(cluster, &["spec", "topology", "workers", list])
        .and_then(Value::as_array)
        .and_then(|a| a.iter().find(|m| obj::str_at(m, &["name"]) == name))
        .cloned()
        .unwrap_or(Value::Null);
    let class_name = obj::str_at(&topology, &["class"]);
    let class = obj::get(cc, &["spec", "workers", list])
        .and_then(Value::as_array)
        .and_then(|a| a.iter().find(|c| obj::str_at(c, &["class"]) == class_name))
        .cloned()
        .unwrap_or(Value::Null);
    (topology, class)
}

/// A v1beta2 MachinePool's machine taints (topology over class).
pub fn machine_pool(mp: &mut Value, cluster: &Value, cc: &Value) {
    let (topology, class) = worker_sources(mp, POOL_LABEL, "machinePools", cluster, cc);
    if let Some(t) = first(&topology, &class, &["taints"]) {
        obj::set(mp, &["spec", "template", "spec", "taints"], t.clone());
    }
}

/// A v1beta2 MachineDeployment; `cluster` is the v1beta2 input Cluster and `cc` its
/// ClusterClass as given (v1beta2 or v1beta1).
pub fn machine_deployment(md: &mut Value, cluster: &Value, cc: &Value) {
    let (topology, class) = worker_sources(md, DEPLOYMENT_LABEL, "machineDeployments", cluster, cc);
    // A v1beta1 class's order is its strategy's deletePolicy.
    let class_order = present(obj::get(&class, &["deletion", "order"])).or_else(|| {
        present(obj::get(
            &class,
            &["strategy", "rollingUpdate", "deletePolicy"],
        ))
    });
    match present(obj::get(&topology, &["deletion", "order"])).or(class_order) {
        Some(o) => obj::set(md, &["spec", "deletion", "order"], o.clone()),
        None => {
            obj::remove(md, &["spec", "deletion", "order"]);
            let empty = obj::get(md, &["spec", "deletion"]).and_then(Value::as_object);
            if empty.is_some_and(|m| m.is_empty()) {
                obj::remove(md, &["spec", "deletion"]);
            }
        }
    }
    // A v1beta1 class's maxInFlight is its strategy's remediation.
    let path = ["healthCheck", "remediation", "maxInFlight"];
    let class_in_flight = present(obj::get(&class, &path)).or_else(|| {
        present(obj::get(
            &class,
            &["strategy", "remediation", "maxInFlight"],
        ))
    });
    if let Some(m) = present(obj::get(&topology, &path)).or(class_in_flight) {
        obj::set(md, &["spec", "remediation", "maxInFlight"], m.clone());
    }
    rollout(md, &topology);
    if let Some(t) = first(&topology, &class, &["taints"]) {
        obj::set(md, &["spec", "template", "spec", "taints"], t.clone());
    }
}

/// Go's zero value of a decoded field: null, `""`, or a map of zero values (numbers and
/// booleans are never taken for zero here: the fields they fill are pointers).
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Object(m) => m.values().all(is_zero),
        _ => false,
    }
}

/// A MachineDeployment's `rollout`: a topology `rollout` that is set replaces the class's
/// whole (its strategy, even when it has none, and its `after`).
fn rollout(md: &mut Value, topology: &Value) {
    let Some(r) = obj::get(topology, &["rollout"]).filter(|r| !is_zero(r)) else {
        return;
    };
    if obj::get(r, &["strategy"]).is_none_or(is_zero) {
        obj::remove(md, &["spec", "rollout", "strategy"]);
    }
    if let Some(a) = present(r.get("after")) {
        obj::set(md, &["spec", "rollout", "after"], a.clone());
    }
    if obj::get(md, &["spec", "rollout"]).is_some_and(is_zero) {
        obj::remove(md, &["spec", "rollout"]);
    }
}

/// The ControlPlane's machine taints (topology over class), at the contract's path, and
/// the topology's `rollout.after` (`spec.rollout.after` in both contracts).
pub fn control_plane(cp: &mut Value, cluster: &Value, cc: &Value, v1beta2_contract: bool) {
    let topology = obj::get(cluster, &["spec", "topology", "controlPlane"]).unwrap_or(&Value::Null);
    if let Some(a) = present(obj::get(topology, &["rollout", "after"])) {
        obj::set(cp, &["spec", "rollout", "after"], a.clone());
    }
    let class = obj::get(cc, &["spec", "controlPlane"]).unwrap_or(&Value::Null);
    if let Some(t) = first(topology, class, &["taints"]) {
        let path: &[&str] = if v1beta2_contract {
            &["spec", "machineTemplate", "spec", "taints"]
        } else {
            &["spec", "machineTemplate", "taints"]
        };
        obj::set(cp, path, t.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn md() -> Value {
        json!({"metadata": {"labels": {DEPLOYMENT_LABEL: "md-0"}},
            "spec": {"rollout": {"strategy": {"type": "RollingUpdate"}}, "template": {"spec": {}}}})
    }

    fn cluster(md_topology: Value) -> Value {
        json!({"spec": {"topology": {"workers": {"machineDeployments": [md_topology]}}}})
    }

    fn cc() -> Value {
        json!({"spec": {"workers": {"machineDeployments": [{"class": "w",
            "deletion": {"order": "Oldest"},
            "taints": [{"key": "k", "effect": "NoSchedule"}],
            "healthCheck": {"remediation": {"maxInFlight": 2}}}]}}})
    }

    #[test]
    fn class_values_apply_when_the_topology_has_none() {
        let mut m = md();
        machine_deployment(
            &mut m,
            &cluster(json!({"class": "w", "name": "md-0",
            "rollout": {"strategy": {"type": "OnDelete"}, "after": "2030-01-01T00:00:00Z"}})),
            &cc(),
        );
        assert_eq!(m["spec"]["deletion"], json!({"order": "Oldest"}));
        assert_eq!(m["spec"]["remediation"], json!({"maxInFlight": 2}));
        assert_eq!(m["spec"]["rollout"]["after"], "2030-01-01T00:00:00Z");
        assert_eq!(m["spec"]["template"]["spec"]["taints"][0]["key"], "k");
    }

    #[test]
    fn topology_values_win() {
        let mut m = md();
        machine_deployment(
            &mut m,
            &cluster(json!({"class": "w", "name": "md-0",
            "deletion": {"order": "Newest"}, "taints": [],
            "healthCheck": {"remediation": {"maxInFlight": "50%"}}})),
            &cc(),
        );
        assert_eq!(m["spec"]["deletion"], json!({"order": "Newest"}));
        assert_eq!(m["spec"]["remediation"], json!({"maxInFlight": "50%"}));
        assert_eq!(m["spec"]["template"]["spec"]["taints"], json!([]));
    }

    #[test]
    fn a_topology_rollout_replaces_the_class_strategy() {
        let mut m = md();
        let c = cluster(
            json!({"class": "w", "name": "md-0", "rollout": {"after": "2031-01-01T00:00:00Z"}}),
        );
        machine_deployment(&mut m, &c, &cc());
        assert_eq!(
            m["spec"]["rollout"],
            json!({"after": "2031-01-01T00:00:00Z"})
        );
        // An empty topology rollout leaves the class's strategy.
        let mut m = md();
        let c = cluster(json!({"class": "w", "name": "md-0", "rollout": {"strategy": {}}}));
        machine_deployment(&mut m, &c, &cc());
        assert_eq!(
            m["spec"]["rollout"],
            json!({"strategy": {"type": "RollingUpdate"}})
        );
        assert!(is_zero(&json!({"a": {"b": ""}, "c": null})));
        assert!(!is_zero(&json!({"a": 0})));
    }

    #[test]
    fn control_plane_rollout_after_from_the_topology() {
        let c = json!({"spec": {"topology": {"controlPlane": {"rollout": {"after": "2030-01-01T00:00:00Z"}}}}});
        let mut cp = json!({"spec": {"replicas": 1}});
        control_plane(&mut cp, &c, &json!({}), true);
        assert_eq!(
            cp["spec"]["rollout"],
            json!({"after": "2030-01-01T00:00:00Z"})
        );
        let mut cp = json!({});
        control_plane(&mut cp, &json!({}), &json!({}), false);
        assert_eq!(cp, json!({}));
    }

    #[test]
    fn control_plane_taints_follow_the_contract() {
        let c = json!({"spec": {"topology": {"controlPlane": {}}}});
        let k = json!({"spec": {"controlPlane": {"taints": [{"key": "a"}]}}});
        let mut cp = json!({});
        control_plane(&mut cp, &c, &k, true);
        assert_eq!(
            cp["spec"]["machineTemplate"]["spec"]["taints"][0]["key"],
            "a"
        );
        let mut cp = json!({});
        control_plane(&mut cp, &c, &k, false);
        assert_eq!(cp["spec"]["machineTemplate"]["taints"][0]["key"], "a");
    }

    #[test]
    fn v1beta1_class_order_is_its_delete_policy() {
        let k = json!({"spec": {"workers": {"machineDeployments": [{"class": "w",
            "strategy": {"rollingUpdate": {"deletePolicy": "Random"}}}]}}});
        let mut m = md();
        machine_deployment(&mut m, &cluster(json!({"class": "w", "name": "md-0"})), &k);
        assert_eq!(m["spec"]["deletion"], json!({"order": "Random"}));
    }

    #[test]
    fn machine_pool_taints_from_the_class() {
        let k = json!({"spec": {"workers": {"machinePools": [{"class": "p", "taints": [{"key": "x"}]}]}}});
        let c = json!({"spec": {"topology": {"workers": {"machinePools": [{"class": "p", "name": "mp-0"}]}}}});
        let mut mp = json!({"metadata": {"labels": {POOL_LABEL: "mp-0"}}});
        machine_pool(&mut mp, &c, &k);
        assert_eq!(
            mp["spec"]["template"]["spec"]["taints"],
            json!([{"key": "x"}])
        );
    }

    #[test]
    fn odd_shapes_do_not_panic() {
        let mut m = json!(3);
        machine_deployment(&mut m, &json!(null), &json!([]));
        control_plane(&mut m, &json!("x"), &json!(null), true);
    }
}
