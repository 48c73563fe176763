//! MachineDeployment MachineHealthChecks as Cluster API v1.14.2 decides them
//! (`IsMachineDeploymentMachineHealthCheckEnabled`, `MachineDeploymentMachineHealthCheckClass`,
//! `computeMachineHealthCheck` with the MachineHealthCheck webhook's defaults), from the
//! v1beta2 topology and the class as given. A health check "is defined" when any of its
//! checks or remediation fields is set, `remediation.maxInFlight` included (the v1beta1
//! `strategy.remediation.maxInFlight` the conversion webhook moves there): then a
//! MachineHealthCheck is created, from the topology's checks when the topology's health check
//! is defined (even with no checks), else from the class's; `enabled: false` on the topology
//! turns it off. v1.10's engine decides otherwise (an empty class check counts, maxInFlight
//! does not), so its MachineDeployment MachineHealthChecks are replaced here.

use serde_json::{json, Map, Value};

use super::{hub, V1BETA2};
use crate::error::Result;
use crate::topology::obj;

const DEPLOYMENT_LABEL: &str = "topology.cluster.x-k8s.io/deployment-name";
const OWNED_LABEL: &str = "topology.cluster.x-k8s.io/owned";
const CLUSTER_NAME_LABEL: &str = "cluster.x-k8s.io/cluster-name";
/// `clusterv1.DefaultNodeStartupTimeoutSeconds`, the webhook's default.
const DEFAULT_NODE_STARTUP_SECONDS: i64 = 600;

/// Go's `reflect.Value.IsZero` on a decoded struct field: null, `""`, or a map of zeros
/// (numbers and booleans fill pointers here, so they are never zero; a list, even
/// empty, is a non-nil slice).
fn go_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Object(m) => m.values().all(go_zero),
        _ => false,
    }
}

/// `IsDefined` of a v1beta2 health check: checks or remediation set.
pub fn is_defined(hc: &Value) -> bool {
    ["checks", "remediation"]
        .iter()
        .any(|k| hc.get(*k).is_some_and(|v| !go_zero(v)))
}

/// A MachineDeployment class entry's health check in v1beta2's shape: a v1beta2 class's
/// `healthCheck`; a v1beta1 class's `machineHealthCheck` and `strategy.remediation.
/// maxInFlight`, as the conversion webhook moves them.
pub fn class_health_check(entry: &Value) -> Result<Value> {
    if let Some(h) = entry.get("healthCheck") {
        return Ok(h.clone());
    }
    let mut hc = match entry.get("machineHealthCheck").filter(|v| !v.is_null()) {
        Some(m) => hub::health_check(m, "machineHealthCheck")?,
        None => Map::new(),
    };
    hc.remove("enabled");
    let mut out = Value::Object(hc);
    if let Some(m) = obj::get(entry, &["strategy", "remediation", "maxInFlight"]) {
        if !m.is_null() {
            obj::set(&mut out, &["remediation", "maxInFlight"], m.clone());
        }
    }
    Ok(out)
}

/// The health check v1.14 builds the MachineHealthCheck of topology `t` (v1beta2) from,
/// with class entry `entry`: None when it creates none.
pub fn decide(t: &Value, entry: &Value) -> Result<Option<Value>> {
    let own = t.get("healthCheck").cloned().unwrap_or(Value::Null);
    let class = class_health_check(entry)?;
    if (!is_defined(&own) && !is_defined(&class)) || own.get("enabled") == Some(&json!(false)) {
        return Ok(None);
    }
    Ok(Some(if is_defined(&own) { own } else { class }))
}

/// `v` as Go's typed fields hold it: a whole number (a YAML reader may give `300.0`) is
/// an integer.
fn typed_numbers(v: &Value) -> Value {
    match v {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
            _ => v.clone(),
        },
        Value::Array(a) => Value::Array(a.iter().map(typed_numbers).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), typed_numbers(v)))
                .collect(),
        ),
        _ => v.clone(),
    }
}

/// The fields of `v` (a map) that are set.
fn set_fields(v: Option<&Value>) -> Map<String, Value> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter(|(_, v)| !go_zero(v))
                .map(|(k, v)| (k.clone(), typed_numbers(v)))
                .collect()
        })
        .unwrap_or_default()
}

/// The MachineHealthCheck spec for health check `hc` (defaulted as the webhook does).
fn spec(hc: &Value, cluster_name: &str, topology_name: &str) -> Value {
    let mut checks = set_fields(hc.get("checks"));
    checks
        .entry("nodeStartupTimeoutSeconds")
        .or_insert(json!(DEFAULT_NODE_STARTUP_SECONDS));
    let rem = hc.get("remediation");
    let mut remediation = Map::new();
    for f in ["triggerIf", "templateRef"] {
        let set = set_fields(rem.and_then(|r| r.get(f)));
        if !set.is_empty() {
            remediation.insert(f.into(), Value::Object(set));
        }
    }
    let mut spec = json!({
        "clusterName": cluster_name,
        "selector": {"matchLabels": {DEPLOYMENT_LABEL: topology_name, OWNED_LABEL: ""}},
        "checks": checks,
    });
    if !remediation.is_empty() {
        spec["remediation"] = Value::Object(remediation);
    }
    spec
}

fn is_core(o: &Value, kind: &str) -> bool {
    obj::api_version(o) == V1BETA2 && obj::kind(o) == kind
}

/// Replace the MachineDeployment MachineHealthChecks among `out` (v1beta2 objects) by
/// v1.14's: `cluster` is the v1beta2 input Cluster, `class` its ClusterClass as given.
pub fn reconcile(out: &mut Vec<Value>, cluster: &Value, class: &Value) -> Result<()> {
    let cluster_name = obj::name(cluster).to_string();
    let topologies = obj::get(
        cluster,
        &["spec", "topology", "workers", "machineDeployments"],
    )
    .and_then(Value::as_array)
    .cloned()
    .unwrap_or_default();
    let classes = obj::get(class, &["spec", "workers", "machineDeployments"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mds: Vec<(String, String, String)> = out
        .iter()
        .filter(|o| is_core(o, "MachineDeployment"))
        .map(|md| {
            let topo = obj::str_at(md, &["metadata", "labels", DEPLOYMENT_LABEL]);
            (obj::name(md).into(), obj::namespace(md).into(), topo.into())
        })
        .collect();
    for (name, ns, topo_name) in mds {
        let t = topologies
            .iter()
            .find(|m| obj::str_at(m, &["name"]) == topo_name)
            .cloned()
            .unwrap_or(Value::Null);
        let class_name = obj::str_at(&t, &["class"]);
        let entry = classes
            .iter()
            .find(|c| obj::str_at(c, &["class"]) == class_name)
            .cloned()
            .unwrap_or(Value::Null);
        let at = out
            .iter()
            .position(|o| is_core(o, "MachineHealthCheck") && obj::name(o) == name);
        match (decide(&t, &entry)?, at) {
            (None, Some(i)) => {
                out.remove(i);
            }
            (None, None) => {}
            (Some(hc), Some(i)) => {
                out[i]["spec"] = spec(&hc, &cluster_name, &topo_name);
            }
            (Some(hc), None) => out.push(json!({
                "apiVersion": V1BETA2,
                "kind": "MachineHealthCheck",
                "metadata": {"name": name, "namespace": ns,
                    "labels": {CLUSTER_NAME_LABEL: cluster_name, OWNED_LABEL: ""}},
                "spec": spec(&hc, &cluster_name, &topo_name),
            })),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_in_flight_alone_defines_a_health_check() {
        let t =
            json!({"name": "md", "class": "w", "healthCheck": {"remediation": {"maxInFlight": 1}}});
        let class = json!({"class": "w", "machineHealthCheck": {"maxUnhealthy": "40%"}});
        // The topology's health check is defined: its (empty) checks win over the class's.
        let hc = decide(&t, &class).unwrap().unwrap();
        assert_eq!(hc, json!({"remediation": {"maxInFlight": 1}}));
        assert_eq!(
            spec(&hc, "c", "md"),
            json!({"clusterName": "c", "checks": {"nodeStartupTimeoutSeconds": 600},
                "selector": {"matchLabels": {DEPLOYMENT_LABEL: "md", OWNED_LABEL: ""}}})
        );
        // A v1beta1 class's strategy.remediation.maxInFlight defines the class's.
        let limited = json!({"class": "w", "strategy": {"remediation": {"maxInFlight": "50%"}}});
        let bare = json!({"name": "md", "class": "w"});
        assert_eq!(
            decide(&bare, &limited).unwrap(),
            Some(json!({"remediation": {"maxInFlight": "50%"}}))
        );
        let off = json!({"name": "md", "class": "w", "healthCheck": {"enabled": false}});
        assert_eq!(decide(&off, &limited).unwrap(), None);
    }

    #[test]
    fn empty_health_checks_are_not_defined() {
        let bare = json!({"name": "md", "class": "w"});
        assert_eq!(
            decide(&bare, &json!({"class": "w", "machineHealthCheck": {}})).unwrap(),
            None
        );
        assert_eq!(
            decide(&bare, &json!({"class": "w", "healthCheck": {"checks": {}, "remediation": {"templateRef": {}}}})).unwrap(),
            None
        );
        assert!(is_defined(
            &json!({"checks": {"unhealthyNodeConditions": []}})
        ));
    }

    #[test]
    fn whole_numbers_become_integers() {
        assert_eq!(
            typed_numbers(&json!({"a": [300.0, 1.5, "x"], "b": 7})),
            json!({"a": [300, 1.5, "x"], "b": 7})
        );
        assert!(typed_numbers(&json!(300.0)).is_i64());
    }

    #[test]
    fn class_checks_convert_from_v1beta1() {
        let entry = json!({"class": "w", "machineHealthCheck": {"maxUnhealthy": "40%", "nodeStartupTimeout": "15m",
            "unhealthyConditions": [{"type": "Ready", "status": "Unknown", "timeout": "300s"}]}});
        let hc = decide(&json!({"class": "w"}), &entry).unwrap().unwrap();
        assert_eq!(
            spec(&hc, "c", "md"),
            json!({"clusterName": "c",
                "checks": {"nodeStartupTimeoutSeconds": 900,
                    "unhealthyNodeConditions": [{"type": "Ready", "status": "Unknown", "timeoutSeconds": 300}]},
                "remediation": {"triggerIf": {"unhealthyLessThanOrEqualTo": "40%"}},
                "selector": {"matchLabels": {DEPLOYMENT_LABEL: "md", OWNED_LABEL: ""}}})
        );
    }

    #[test]
    fn reconcile_adds_replaces_and_removes() {
        let md = |n: &str, t: &str| {
            json!({"apiVersion": V1BETA2, "kind": "MachineDeployment",
            "metadata": {"name": n, "namespace": "ns", "labels": {DEPLOYMENT_LABEL: t}}})
        };
        let mhc = |n: &str| {
            json!({"apiVersion": V1BETA2, "kind": "MachineHealthCheck",
            "metadata": {"name": n, "namespace": "ns"}, "spec": {"old": true}})
        };
        let mut out = vec![
            md("c-a", "a"),
            md("c-b", "b"),
            mhc("c-b"),
            md("c-d", "d"),
            mhc("c-d"),
        ];
        let cluster = json!({"metadata": {"name": "c"}, "spec": {"topology": {"workers": {"machineDeployments": [
            {"name": "a", "class": "w", "healthCheck": {"remediation": {"maxInFlight": 1}}},
            {"name": "b", "class": "w", "healthCheck": {"checks": {"nodeStartupTimeoutSeconds": 60}}},
            {"name": "d", "class": "empty"}]}}}});
        let class = json!({"spec": {"workers": {"machineDeployments": [{"class": "w"},
            {"class": "empty", "machineHealthCheck": {}}]}}});
        reconcile(&mut out, &cluster, &class).unwrap();
        let names: Vec<_> = out
            .iter()
            .map(|o| format!("{}/{}", obj::kind(o), obj::name(o)))
            .collect();
        assert_eq!(
            names,
            [
                "MachineDeployment/c-a",
                "MachineDeployment/c-b",
                "MachineHealthCheck/c-b",
                "MachineDeployment/c-d",
                "MachineHealthCheck/c-a"
            ]
        );
        assert_eq!(
            out[2]["spec"]["checks"],
            json!({"nodeStartupTimeoutSeconds": 60})
        );
        assert_eq!(out[4]["metadata"]["labels"][CLUSTER_NAME_LABEL], "c");
    }
}
