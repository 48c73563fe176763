//! Where a desired MachineHealthCheck's checks come from. Whether its `maxUnhealthy` was
//! set by the user: v1.10.10's MachineHealthCheck webhook defaults it to `100%`, HEAD's
//! (v1beta2) defaults only `nodeStartupTimeoutSeconds`, so a defaulted value is not
//! written for v1beta2. Its `unhealthyMachineConditions`, which v1beta1 cannot carry, read
//! from the v1beta2 health check it comes from.

use serde_json::Value;

use crate::topology::obj;

const CONTROL_PLANE_LABEL: &str = "cluster.x-k8s.io/control-plane";
const DEPLOYMENT_LABEL: &str = "topology.cluster.x-k8s.io/deployment-name";

/// The health checks the desired MachineHealthCheck `mhc` comes from, found by its
/// selector's labels: the topology's (control plane, or the MachineDeployment of that
/// name) and the ClusterClass's (the control plane, or that MachineDeployment's class),
/// each the `field` of its spec (`machineHealthCheck` in v1beta1, `healthCheck` in v1beta2).
fn sources<'a>(
    mhc: &Value,
    cluster: &'a Value,
    class: &'a Value,
    field: &str,
) -> (Option<&'a Value>, Option<&'a Value>) {
    let labels = obj::get(mhc, &["spec", "selector", "matchLabels"]);
    let topology = obj::get(cluster, &["spec", "topology"]).unwrap_or(&Value::Null);
    if labels.and_then(|l| l.get(CONTROL_PLANE_LABEL)).is_some() {
        return (
            obj::get(topology, &["controlPlane", field]),
            obj::get(class, &["spec", "controlPlane", field]),
        );
    }
    let md_name = labels
        .and_then(|l| l.get(DEPLOYMENT_LABEL))
        .and_then(Value::as_str)
        .unwrap_or("");
    let md = obj::get(topology, &["workers", "machineDeployments"])
        .and_then(Value::as_array)
        .and_then(|a| a.iter().find(|m| obj::str_at(m, &["name"]) == md_name));
    let class_name = md.map(|m| obj::str_at(m, &["class"])).unwrap_or("");
    let mdc = obj::get(class, &["spec", "workers", "machineDeployments"])
        .and_then(Value::as_array)
        .and_then(|a| a.iter().find(|c| obj::str_at(c, &["class"]) == class_name));
    (
        md.and_then(|m| m.get(field)),
        mdc.and_then(|c| c.get(field)),
    )
}

/// `mhc` (desired, v1beta1 shape) against the v1beta1-shaped Cluster `c1` and its
/// ClusterClass `cc1`: true when the health check it comes from sets `maxUnhealthy`.
pub fn explicit_max_unhealthy(mhc: &Value, c1: &Value, cc1: &Value) -> bool {
    let (topo_check, class_check) = sources(mhc, c1, cc1, "machineHealthCheck");
    let defines = |c: &Value| {
        c.as_object()
            .is_some_and(|m| m.keys().any(|k| k != "enable"))
    };
    let effective = match topo_check {
        Some(t) if defines(t) => Some(t),
        _ => class_check,
    };
    effective.is_some_and(|c| c.get("maxUnhealthy").is_some_and(|v| !v.is_null()))
}

/// A v1beta2 `healthCheck` that `IsDefined`: checks or remediation set.
fn is_defined(hc: &Value) -> bool {
    let set = |k: &str| {
        hc.get(k)
            .and_then(Value::as_object)
            .is_some_and(|m| m.values().any(|v| !v.is_null()))
    };
    set("checks") || set("remediation")
}

/// `checks.unhealthyMachineConditions` of the v1beta2 health check `mhc` (desired, v1beta1
/// shape) comes from: the topology's (`cluster`, v1beta2) when it is defined, else the
/// ClusterClass's (`class` as given; a v1beta1 class has none).
pub fn machine_conditions(mhc: &Value, cluster: &Value, class: &Value) -> Option<Value> {
    let (topo_check, class_check) = sources(mhc, cluster, class, "healthCheck");
    let effective = match topo_check {
        Some(t) if is_defined(t) => Some(t),
        _ => class_check,
    };
    effective
        .and_then(|c| obj::get(c, &["checks", "unhealthyMachineConditions"]))
        .filter(|v| v.as_array().is_some_and(|a| !a.is_empty()))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cc() -> Value {
        json!({"spec": {"controlPlane": {"machineHealthCheck": {"maxUnhealthy": "33%"}},
            "workers": {"machineDeployments": [{"class": "w", "machineHealthCheck": {"nodeStartupTimeout": "1m0s"}}]}}})
    }

    fn cluster(cp_check: Value) -> Value {
        json!({"spec": {"topology": {"controlPlane": {"machineHealthCheck": cp_check},
            "workers": {"machineDeployments": [{"class": "w", "name": "md-0"}]}}}})
    }

    fn mhc(labels: Value) -> Value {
        json!({"spec": {"selector": {"matchLabels": labels}, "maxUnhealthy": "100%"}})
    }

    #[test]
    fn class_value_counts_unless_topology_defines_its_own_check() {
        let cp = mhc(json!({CONTROL_PLANE_LABEL: ""}));
        assert!(explicit_max_unhealthy(
            &cp,
            &cluster(json!({"enable": true})),
            &cc()
        ));
        let own = cluster(json!({"nodeStartupTimeout": "2m0s"}));
        assert!(!explicit_max_unhealthy(&cp, &own, &cc()));
    }

    #[test]
    fn machine_deployment_found_by_topology_name_and_class() {
        let md = mhc(json!({DEPLOYMENT_LABEL: "md-0"}));
        assert!(!explicit_max_unhealthy(&md, &cluster(json!(null)), &cc()));
        let mut c = cc();
        c["spec"]["workers"]["machineDeployments"][0]["machineHealthCheck"]["maxUnhealthy"] =
            json!(2);
        assert!(explicit_max_unhealthy(&md, &cluster(json!(null)), &c));
    }

    #[test]
    fn machine_conditions_from_the_topology_when_defined_else_the_class() {
        let cond = json!([{"type": "NodeReady", "status": "False", "timeoutSeconds": 300}]);
        let class = json!({"spec": {"controlPlane": {"healthCheck": {"checks": {"unhealthyMachineConditions": cond}}},
            "workers": {"machineDeployments": [{"class": "w", "healthCheck": {"checks": {"unhealthyMachineConditions": cond}}}]}}});
        let c = |cp: Value| {
            json!({"spec": {"topology": {"controlPlane": {"healthCheck": cp},
            "workers": {"machineDeployments": [{"class": "w", "name": "md-0"}]}}}})
        };
        let cp = mhc(json!({CONTROL_PLANE_LABEL: ""}));
        assert_eq!(
            machine_conditions(&cp, &c(json!({"enabled": true})), &class),
            Some(cond.clone())
        );
        let own = c(json!({"checks": {"nodeStartupTimeoutSeconds": 60}}));
        assert_eq!(machine_conditions(&cp, &own, &class), None);
        let md = mhc(json!({DEPLOYMENT_LABEL: "md-0"}));
        assert_eq!(machine_conditions(&md, &own, &class), Some(cond));
        assert_eq!(machine_conditions(&md, &own, &json!({})), None);
    }

    #[test]
    fn odd_shapes_are_not_explicit() {
        assert!(!explicit_max_unhealthy(&json!(3), &json!(null), &json!([])));
    }
}
