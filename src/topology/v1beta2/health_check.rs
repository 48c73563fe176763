//! v1beta2 `healthCheck` (checks / remediation) and v1beta1 `machineHealthCheck`.

use serde_json::{Map, Value};

use super::seconds;
use crate::error::Result;
use crate::topology::obj;

/// A ClusterClass or Cluster topology `healthCheck` as v1beta1's `machineHealthCheck`
/// (`enabled` → `enable`). `path` names the field in errors.
pub fn to_v1beta1(hc: &Value, path: &str) -> Result<Value> {
    let mut out = Map::new();
    if let Some(e) = hc.get("enabled").filter(|v| !v.is_null()) {
        out.insert("enable".into(), e.clone());
    }
    let checks = hc.get("checks").cloned().unwrap_or(Value::Null);
    if let Some(s) = checks
        .get("nodeStartupTimeoutSeconds")
        .filter(|v| !v.is_null())
    {
        let p = format!("{path}.checks.nodeStartupTimeoutSeconds");
        out.insert("nodeStartupTimeout".into(), seconds::to_duration(s, &p)?);
    }
    if let Some(Value::Array(conds)) = checks.get("unhealthyNodeConditions") {
        let mut list = Vec::new();
        for (i, c) in conds.iter().enumerate() {
            let mut m = c.as_object().cloned().unwrap_or_default();
            let p = format!("{path}.checks.unhealthyNodeConditions[{i}].timeoutSeconds");
            let t = m.remove("timeoutSeconds").unwrap_or(Value::from(0));
            m.insert("timeout".into(), seconds::to_duration(&t, &p)?);
            list.push(Value::Object(m));
        }
        out.insert("unhealthyConditions".into(), Value::Array(list));
    }
    // `checks.unhealthyMachineConditions` has no v1beta1 equivalent: the converted
    // MachineHealthCheck takes it from the v1beta2 input (`mhc_source::machine_conditions`).
    let rem = hc.get("remediation").cloned().unwrap_or(Value::Null);
    if let Some(v) =
        obj::get(&rem, &["triggerIf", "unhealthyLessThanOrEqualTo"]).filter(|v| !v.is_null())
    {
        out.insert("maxUnhealthy".into(), v.clone());
    }
    if let Some(v) = obj::get(&rem, &["triggerIf", "unhealthyInRange"]).filter(|v| !v.is_null()) {
        out.insert("unhealthyRange".into(), v.clone());
    }
    if let Some(t) = rem.get("templateRef").filter(|v| !v.is_null()) {
        out.insert("remediationTemplate".into(), t.clone());
    }
    Ok(Value::Object(out))
}

/// A v1beta1 MachineHealthCheck `spec` as v1beta2's.
pub fn mhc_spec_to_v1beta2(spec: &Value) -> Result<Value> {
    let mut out = Map::new();
    for f in ["clusterName", "selector"] {
        if let Some(v) = spec.get(f) {
            out.insert(f.into(), v.clone());
        }
    }
    let mut checks = Map::new();
    if let Some(t) = spec.get("nodeStartupTimeout").filter(|v| !v.is_null()) {
        let s = seconds::from_duration(t, "spec.nodeStartupTimeout")?;
        checks.insert("nodeStartupTimeoutSeconds".into(), s);
    }
    if let Some(Value::Array(conds)) = spec.get("unhealthyConditions") {
        let mut list = Vec::new();
        for (i, c) in conds.iter().enumerate() {
            let mut m = c.as_object().cloned().unwrap_or_default();
            if let Some(t) = m.remove("timeout") {
                let p = format!("spec.unhealthyConditions[{i}].timeout");
                m.insert("timeoutSeconds".into(), seconds::from_duration(&t, &p)?);
            }
            list.push(Value::Object(m));
        }
        checks.insert("unhealthyNodeConditions".into(), Value::Array(list));
    }
    if !checks.is_empty() {
        out.insert("checks".into(), Value::Object(checks));
    }
    let mut trigger = Map::new();
    if let Some(v) = spec.get("maxUnhealthy").filter(|v| !v.is_null()) {
        trigger.insert("unhealthyLessThanOrEqualTo".into(), v.clone());
    }
    if let Some(v) = spec.get("unhealthyRange").filter(|v| !v.is_null()) {
        trigger.insert("unhealthyInRange".into(), v.clone());
    }
    let mut rem = Map::new();
    if !trigger.is_empty() {
        rem.insert("triggerIf".into(), Value::Object(trigger));
    }
    if let Some(t) = spec.get("remediationTemplate").filter(|v| !v.is_null()) {
        let mut r = Map::new();
        for f in ["apiVersion", "kind", "name"] {
            r.insert(f.into(), Value::from(obj::str_at(t, &[f])));
        }
        rem.insert("templateRef".into(), Value::Object(r));
    }
    if !rem.is_empty() {
        out.insert("remediation".into(), Value::Object(rem));
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn health_check_becomes_machine_health_check() {
        let hc = json!({
            "enabled": true,
            "checks": {"nodeStartupTimeoutSeconds": 600,
                "unhealthyNodeConditions": [{"type": "Ready", "status": "False", "timeoutSeconds": 300}]},
            "remediation": {"triggerIf": {"unhealthyLessThanOrEqualTo": "40%"},
                "templateRef": {"apiVersion": "a/v1", "kind": "T", "name": "t"}}});
        assert_eq!(
            to_v1beta1(&hc, "spec.x.healthCheck").unwrap(),
            json!({"enable": true, "nodeStartupTimeout": "10m0s",
                "unhealthyConditions": [{"type": "Ready", "status": "False", "timeout": "5m0s"}],
                "maxUnhealthy": "40%",
                "remediationTemplate": {"apiVersion": "a/v1", "kind": "T", "name": "t"}})
        );
    }

    #[test]
    fn machine_conditions_stay_out_of_v1beta1() {
        let hc = json!({"checks": {"unhealthyMachineConditions": [{"type": "X"}],
            "nodeStartupTimeoutSeconds": 60}});
        let v = to_v1beta1(&hc, "spec.controlPlane.healthCheck").unwrap();
        assert_eq!(v, json!({"nodeStartupTimeout": "1m0s"}));
    }

    #[test]
    fn mhc_spec_round_trips_to_v1beta2() {
        let spec = json!({"clusterName": "c", "selector": {"matchLabels": {"a": "b"}},
            "maxUnhealthy": 2, "unhealthyRange": "[1-3]", "nodeStartupTimeout": "10m0s",
            "unhealthyConditions": [{"type": "Ready", "status": "Unknown", "timeout": "5m0s"}],
            "remediationTemplate": {"apiVersion": "a/v1", "kind": "T", "name": "t", "namespace": "ns"}});
        assert_eq!(
            mhc_spec_to_v1beta2(&spec).unwrap(),
            json!({"clusterName": "c", "selector": {"matchLabels": {"a": "b"}},
                "checks": {"nodeStartupTimeoutSeconds": 600,
                    "unhealthyNodeConditions": [{"type": "Ready", "status": "Unknown", "timeoutSeconds": 300}]},
                "remediation": {"triggerIf": {"unhealthyLessThanOrEqualTo": 2, "unhealthyInRange": "[1-3]"},
                    "templateRef": {"apiVersion": "a/v1", "kind": "T", "name": "t"}}})
        );
    }
}
