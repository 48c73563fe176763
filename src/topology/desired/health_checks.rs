//! MachineHealthChecks for the control plane and the workers (topology.md §4).

use super::*;

pub(super) fn is_zero(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::Object(m)) => m.iter().all(|(k, v)| k == "enable" || is_zero(Some(v))),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::String(s)) => s.is_empty(),
        _ => false,
    }
}

/// The MHC class part of a topology `machineHealthCheck` (everything but `enable`).
pub(super) fn topology_check(mhc: Option<&Value>) -> Option<Value> {
    let m = mhc?.as_object()?;
    let mut c = m.clone();
    c.remove("enable");
    if is_zero(Some(&Value::Object(c.clone()))) {
        None
    } else {
        Some(Value::Object(c))
    }
}

pub(super) fn enabled(mhc: Option<&Value>) -> bool {
    !matches!(mhc.and_then(|m| m.get("enable")), Some(Value::Bool(false)))
}

/// R3.7.1/R3.7.3: the check definition to use for the control plane, if enabled.
pub(super) fn cp_mhc_class(cluster: &Value, bp: &Blueprint) -> Option<Value> {
    let tm = topo(cluster, &["controlPlane", "machineHealthCheck"]);
    let cm =
        obj::get(&bp.cc, &["spec", "controlPlane", "machineHealthCheck"]).filter(|v| !v.is_null());
    check_for(tm, cm)
}

pub(super) fn check_for(tm: Option<&Value>, cm: Option<&Value>) -> Option<Value> {
    let tcheck = topology_check(tm);
    if (cm.is_none() && tcheck.is_none()) || !enabled(tm) {
        return None;
    }
    tcheck.or_else(|| cm.cloned())
}

/// `computeMachineHealthCheck` with the MHC webhook's defaults.
pub(super) fn mhc(target: &Value, selector: Value, cluster_name: &str, check: &Value) -> Value {
    let ns = obj::namespace(target);
    let mut spec = Map::new();
    spec.insert("clusterName".into(), Value::from(cluster_name));
    spec.insert("selector".into(), selector);
    for f in [
        "unhealthyConditions",
        "maxUnhealthy",
        "unhealthyRange",
        "nodeStartupTimeout",
        "remediationTemplate",
    ] {
        if let Some(v) = check.get(f).filter(|v| !v.is_null()) {
            spec.insert(f.into(), v.clone());
        }
    }
    spec.entry("maxUnhealthy")
        .or_insert_with(|| Value::from("100%"));
    spec.entry("nodeStartupTimeout")
        .or_insert_with(|| Value::from("10m0s"));
    if let Some(Value::Object(rt)) = spec.get_mut("remediationTemplate") {
        if rt
            .get("namespace")
            .and_then(Value::as_str)
            .unwrap_or("")
            .is_empty()
        {
            rt.insert("namespace".into(), Value::from(ns));
        }
    }
    json!({
        "apiVersion": "cluster.x-k8s.io/v1beta1",
        "kind": "MachineHealthCheck",
        "metadata": {
            "name": obj::name(target),
            "namespace": ns,
            "labels": {OWNED_LABEL: "", CLUSTER_NAME_LABEL: cluster_name},
            "ownerReferences": [obj::owner_ref_to_cluster(cluster_name)],
        },
        "spec": Value::Object(spec),
    })
}
