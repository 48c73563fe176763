//! A `cluster.x-k8s.io/v1beta1` Cluster converted to v1beta2 as Cluster API v1.14.2's
//! conversion webhook does (`ConvertClusterV1Beta1ToHub`: `api/core/v1beta1/
//! conversion.go` and its generated functions), for a core provider of v1.11 or later,
//! whose controllers read every Cluster as v1beta2. Only what a new topology Cluster holds
//! is converted; status is dropped.

use serde_json::{Map, Value};

use super::{health_check, refs, seconds};
use crate::error::Result;
use crate::topology::obj;

/// v1beta1 duration fields and their v1beta2 `deletion.*Seconds`.
const TIMEOUTS: [(&str, &str); 3] = [
    ("nodeDrainTimeout", "nodeDrainTimeoutSeconds"),
    ("nodeVolumeDetachTimeout", "nodeVolumeDetachTimeoutSeconds"),
    ("nodeDeletionTimeout", "nodeDeletionTimeoutSeconds"),
];

/// The v1beta2 Cluster for a v1beta1 one; errors name the Cluster and the field.
pub fn cluster(c: &Value) -> Result<Value> {
    let key = format!("Cluster {}/{}", obj::namespace(c), obj::name(c));
    let mut out = c.clone();
    obj::set(&mut out, &["apiVersion"], Value::from(super::V1BETA2));
    obj::remove(&mut out, &["status"]);
    let Some(spec) = out.get_mut("spec").and_then(Value::as_object_mut) else {
        return Ok(out);
    };
    // `paused: false` becomes an unset pointer (Convert_bool_To_Pointer_bool).
    if spec.get("paused") == Some(&Value::Bool(false)) {
        spec.remove("paused");
    }
    for f in ["infrastructureRef", "controlPlaneRef"] {
        if let Some(r) = spec.get(f).filter(|r| !r.is_null()).cloned() {
            spec.insert(f.into(), refs::contract_ref(&r));
        }
    }
    if let Some(Value::Object(n)) = spec.get_mut("clusterNetwork") {
        if n.get("apiServerPort").is_some_and(Value::is_null) {
            n.remove("apiServerPort");
        }
    }
    let ep = spec.get("controlPlaneEndpoint");
    if ep.is_some_and(|e| obj::str_at(e, &["host"]).is_empty() && port(e) == 0) {
        spec.remove("controlPlaneEndpoint");
    }
    if let Some(t) = spec.get("topology").filter(|t| !t.is_null()).cloned() {
        let conv = topology(&t).map_err(|e| e.wrap(&key))?;
        spec.insert("topology".into(), conv);
    }
    Ok(out)
}

fn port(e: &Value) -> i64 {
    e.get("port").and_then(Value::as_i64).unwrap_or(0)
}

fn topology(t: &Value) -> Result<Value> {
    let mut out = t.as_object().cloned().unwrap_or_default();
    let mut class_ref = Map::new();
    if let Some(c) = out.remove("class") {
        class_ref.insert("name".into(), c);
    }
    if let Some(ns) = out.remove("classNamespace").filter(|v| v != "") {
        class_ref.insert("namespace".into(), ns);
    }
    out.insert("classRef".into(), Value::Object(class_ref));
    if let Some(cp) = t.get("controlPlane").filter(|v| !v.is_null()) {
        let conv = member(cp, "spec.topology.controlPlane", false)?;
        out.insert("controlPlane".into(), conv);
    }
    if let Some(w) = t.get("workers").filter(|v| !v.is_null()) {
        let mut wm = w.as_object().cloned().unwrap_or_default();
        for (list, is_md) in [("machineDeployments", true), ("machinePools", false)] {
            if let Some(Value::Array(ms)) = w.get(list) {
                let mut conv = Vec::with_capacity(ms.len());
                for (i, m) in ms.iter().enumerate() {
                    let path = format!("spec.topology.workers.{list}[{i}]");
                    conv.push(member(m, &path, is_md)?);
                }
                wm.insert(list.into(), Value::Array(conv));
            }
        }
        out.insert("workers".into(), Value::Object(wm));
    }
    if let Some(Value::Array(vars)) = out.get_mut("variables") {
        // ClusterVariable.definitionFrom is gone in v1beta2.
        for v in vars.iter_mut().filter_map(Value::as_object_mut) {
            v.remove("definitionFrom");
        }
    }
    Ok(Value::Object(out))
}

/// A control plane / MachineDeployment / MachinePool topology: timeouts into
/// `deletion`, `machineHealthCheck` into `healthCheck`, a MachineDeployment's
/// `strategy` into `rollout.strategy`, `deletion.order` and `healthCheck.remediation`.
fn member(m: &Value, path: &str, is_md: bool) -> Result<Value> {
    let mut out = m.as_object().cloned().unwrap_or_default();
    let mut deletion = Map::new();
    for (dur, secs) in TIMEOUTS {
        if let Some(v) = out.remove(dur).filter(|v| !v.is_null()) {
            let s = seconds::from_duration(&v, &format!("{path}.{dur}"))?;
            deletion.insert(secs.into(), s);
        }
    }
    let mut health = match out.remove("machineHealthCheck").filter(|v| !v.is_null()) {
        Some(mhc) => health_check(&mhc, &format!("{path}.machineHealthCheck"))?,
        None => Map::new(),
    };
    if is_md {
        if let Some(s) = out.remove("strategy").filter(|v| !v.is_null()) {
            strategy(&s, &mut out, &mut deletion, &mut health);
        }
    }
    if !deletion.is_empty() {
        out.insert("deletion".into(), Value::Object(deletion));
    }
    if !health.is_empty() {
        out.insert("healthCheck".into(), Value::Object(health));
    }
    Ok(Value::Object(out))
}

/// A v1beta1 topology `machineHealthCheck` as v1beta2's `healthCheck`.
pub fn health_check(mhc: &Value, path: &str) -> Result<Map<String, Value>> {
    let mut spec = health_check::mhc_spec_to_v1beta2(mhc).map_err(|e| e.wrap(path))?;
    let mut out = spec.as_object_mut().map(std::mem::take).unwrap_or_default();
    if let Some(e) = mhc.get("enable").filter(|v| !v.is_null()) {
        out.insert("enabled".into(), e.clone());
    }
    if let Some(Value::Array(conds)) = mhc.get("unhealthyMachineConditions") {
        let mut list = Vec::with_capacity(conds.len());
        for (i, c) in conds.iter().enumerate() {
            let mut m = c.as_object().cloned().unwrap_or_default();
            if let Some(t) = m.remove("timeout") {
                let p = format!("{path}.unhealthyMachineConditions[{i}].timeout");
                m.insert("timeoutSeconds".into(), seconds::from_duration(&t, &p)?);
            }
            list.push(Value::Object(m));
        }
        let checks = out
            .entry("checks")
            .or_insert_with(|| Value::Object(Map::new()));
        obj::set(checks, &["unhealthyMachineConditions"], Value::Array(list));
    }
    Ok(out)
}

/// A MachineDeployment topology's v1beta1 `strategy` spread over v1beta2's fields.
fn strategy(
    s: &Value,
    out: &mut Map<String, Value>,
    deletion: &mut Map<String, Value>,
    health: &mut Map<String, Value>,
) {
    let mut strat = Map::new();
    if let Some(t) = s.get("type").filter(|v| !v.is_null()) {
        strat.insert("type".into(), t.clone());
    }
    let ru = s.get("rollingUpdate").filter(|v| !v.is_null());
    let mut rolling = Map::new();
    for f in ["maxUnavailable", "maxSurge"] {
        if let Some(v) = ru.and_then(|r| r.get(f)).filter(|v| !v.is_null()) {
            rolling.insert(f.into(), v.clone());
        }
    }
    if !rolling.is_empty() {
        strat.insert("rollingUpdate".into(), Value::Object(rolling));
    }
    if let Some(p) = ru
        .and_then(|r| r.get("deletePolicy"))
        .filter(|v| !v.is_null())
    {
        deletion.insert("order".into(), p.clone());
    }
    if let Some(m) = obj::get(s, &["remediation", "maxInFlight"]).filter(|v| !v.is_null()) {
        let rem = health
            .entry("remediation")
            .or_insert_with(|| Value::Object(Map::new()));
        obj::set(rem, &["maxInFlight"], m.clone());
    }
    if !strat.is_empty() {
        let rollout = out
            .entry("rollout")
            .or_insert_with(|| Value::Object(Map::new()));
        obj::set(rollout, &["strategy"], Value::Object(strat));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn v1beta1_cluster_converts_to_hub() {
        let c = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
            "metadata": {"name": "c", "namespace": "ns"},
            "spec": {"paused": false, "controlPlaneEndpoint": {"host": "", "port": 0},
                "topology": {"class": "k", "classNamespace": "other", "version": "v1.33.0",
                "controlPlane": {"replicas": 3, "nodeDrainTimeout": "90s",
                    "machineHealthCheck": {"enable": false, "maxUnhealthy": "40%"}},
                "workers": {"machineDeployments": [{"class": "w", "name": "md-0",
                    "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "deletePolicy": "Newest"},
                        "remediation": {"maxInFlight": 2}}}],
                    "machinePools": [{"class": "p", "name": "mp-0", "nodeDeletionTimeout": "1m"}]},
                "variables": [{"name": "v", "value": 1, "definitionFrom": "x"}]}}});
        let out = cluster(&c).unwrap();
        assert_eq!(out["apiVersion"], "cluster.x-k8s.io/v1beta2");
        assert!(out["spec"].get("paused").is_none());
        assert!(out["spec"].get("controlPlaneEndpoint").is_none());
        let t = &out["spec"]["topology"];
        assert_eq!(t["classRef"], json!({"name": "k", "namespace": "other"}));
        assert!(t.get("class").is_none() && t.get("classNamespace").is_none());
        let cp = &t["controlPlane"];
        assert_eq!(cp["deletion"], json!({"nodeDrainTimeoutSeconds": 90}));
        assert_eq!(
            cp["healthCheck"],
            json!({"enabled": false, "remediation": {"triggerIf": {"unhealthyLessThanOrEqualTo": "40%"}}})
        );
        let md = &t["workers"]["machineDeployments"][0];
        assert_eq!(
            md["rollout"],
            json!({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}})
        );
        assert_eq!(md["deletion"], json!({"order": "Newest"}));
        assert_eq!(
            md["healthCheck"],
            json!({"remediation": {"maxInFlight": 2}})
        );
        assert!(md.get("strategy").is_none());
        let mp = &t["workers"]["machinePools"][0];
        assert_eq!(mp["deletion"], json!({"nodeDeletionTimeoutSeconds": 60}));
        assert_eq!(t["variables"], json!([{"name": "v", "value": 1}]));
    }

    #[test]
    fn refs_become_contract_refs_and_bad_durations_name_the_field() {
        let c = json!({"metadata": {"name": "c", "namespace": "ns"},
            "spec": {"infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
                "kind": "DockerCluster", "name": "d", "namespace": "ns"}}});
        let out = cluster(&c).unwrap();
        assert_eq!(
            out["spec"]["infrastructureRef"],
            json!({"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerCluster", "name": "d"})
        );
        let bad = json!({"metadata": {"name": "c", "namespace": "ns"},
            "spec": {"topology": {"class": "k", "controlPlane": {"nodeDrainTimeout": 5}}}});
        let m = cluster(&bad).unwrap_err().to_string();
        assert!(
            m.contains("Cluster ns/c") && m.contains("spec.topology.controlPlane.nodeDrainTimeout"),
            "{m}"
        );
    }
}
