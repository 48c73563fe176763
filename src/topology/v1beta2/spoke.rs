//! Generated v1beta2 CAPI objects written back as `cluster.x-k8s.io/v1beta1`, as Cluster
//! API v1.14.2's conversion webhook serves them to a v1beta1 client (`ConvertFrom`:
//! `Convert...HubToV1Beta1` in `core/webhooks/conversion` and `api/core/v1beta1/
//! conversion.go`), for a v1beta1 Cluster under a core provider of v1.11 or later. The
//! Cluster, MachineDeployments, MachinePools and MachineHealthChecks convert; provider
//! objects keep their apiVersion. What Go's typed v1beta1 structs always write
//! (`controlPlaneEndpoint`, a topology's `metadata: {}`, a Machine's `bootstrap`) is
//! written too. The round-trip annotation (`cluster.x-k8s.io/conversion-data`) is not:
//! it is the API server's storage bookkeeping, not desired state.

use serde_json::{json, Map, Value};

use super::{health_check, seconds};
use crate::error::Result;
use crate::topology::obj;

/// The apiVersion of a referenced kind (`group`, `kind`), as the conversion's
/// apiVersion getter finds it.
pub type Versions<'a> = &'a dyn Fn(&str, &str) -> Option<String>;

/// `o` as v1beta1 when it is a generated CAPI object, else unchanged.
pub fn object(mut o: Value, versions: Versions) -> Result<Value> {
    if obj::api_version(&o) != super::V1BETA2 {
        return Ok(o);
    }
    let kind = obj::kind(&o).to_string();
    let ns = obj::namespace(&o).to_string();
    let key = format!("{kind} {ns}/{}", obj::name(&o));
    obj::set(&mut o, &["apiVersion"], Value::from(super::V1BETA1));
    if let Some(spec) = o.get_mut("spec").and_then(Value::as_object_mut) {
        match kind.as_str() {
            "Cluster" => cluster_spec(spec, &ns, versions),
            "MachineDeployment" => deployment_spec(spec, &ns, versions),
            "MachinePool" => pool_spec(spec, &ns, versions),
            "MachineHealthCheck" => health_check_spec(spec, &ns),
            _ => Ok(()),
        }
        .map_err(|e| e.wrap(&key))?;
    }
    Ok(o)
}

/// A v1beta2 `{apiGroup, kind, name}` reference as v1beta1's object reference in `ns`
/// (`convertToObjectReference`).
fn object_ref(r: &Value, ns: &str, versions: Versions, path: &str) -> Result<Value> {
    let group = obj::str_at(r, &["apiGroup"]);
    let kind = obj::str_at(r, &["kind"]);
    let api_version = versions(group, kind).ok_or_else(|| {
        crate::error::Error::new(format!(
            "{path}: failed to convert object: no apiVersion for {kind}.{group} among the inputs"
        ))
    })?;
    Ok(
        json!({"apiVersion": api_version, "kind": kind, "name": obj::str_at(r, &["name"]), "namespace": ns}),
    )
}

fn is_set(v: Option<&Value>) -> bool {
    v.is_some_and(|v| !v.is_null() && v != &json!({}) && v != &json!([]) && v != "")
}

fn cluster_spec(spec: &mut Map<String, Value>, ns: &str, versions: Versions) -> Result<()> {
    for f in ["infrastructureRef", "controlPlaneRef"] {
        if let Some(r) = spec.get(f).filter(|r| is_set(Some(r))).cloned() {
            spec.insert(
                f.into(),
                object_ref(&r, ns, versions, &format!("spec.{f}"))?,
            );
        } else {
            spec.remove(f);
        }
    }
    if let Some(Value::Object(n)) = spec.get_mut("clusterNetwork") {
        if n.get("apiServerPort").is_some_and(|p| p == 0) {
            n.remove("apiServerPort");
        }
    }
    // APIEndpoint is a plain struct in v1beta1: always written.
    let ep = spec
        .get("controlPlaneEndpoint")
        .cloned()
        .unwrap_or(Value::Null);
    spec.insert(
        "controlPlaneEndpoint".into(),
        json!({"host": obj::str_at(&ep, &["host"]), "port": ep.get("port").cloned().unwrap_or(json!(0))}),
    );
    if let Some(t) = spec.get_mut("topology").and_then(Value::as_object_mut) {
        topology(t, ns)?;
    }
    Ok(())
}

fn topology(t: &mut Map<String, Value>, ns: &str) -> Result<()> {
    let class_ref = t.remove("classRef").unwrap_or(Value::Null);
    t.insert(
        "class".into(),
        Value::from(obj::str_at(&class_ref, &["name"])),
    );
    let cns = obj::str_at(&class_ref, &["namespace"]);
    if !cns.is_empty() {
        t.insert("classNamespace".into(), Value::from(cns));
    }
    t.entry("version").or_insert_with(|| Value::from(""));
    let cp = t.remove("controlPlane").unwrap_or(json!({}));
    t.insert(
        "controlPlane".into(),
        member(cp, ns, "spec.topology.controlPlane", false)?,
    );
    if let Some(w) = t.get_mut("workers").and_then(Value::as_object_mut) {
        for (list, is_md) in [("machineDeployments", true), ("machinePools", false)] {
            if let Some(Value::Array(ms)) = w.get_mut(list) {
                for (i, m) in ms.iter_mut().enumerate() {
                    let path = format!("spec.topology.workers.{list}[{i}]");
                    *m = member(std::mem::take(m), ns, &path, is_md)?;
                }
            }
        }
    }
    Ok(())
}

/// A control plane / MachineDeployment / MachinePool topology in v1beta1's shape.
fn member(m: Value, ns: &str, path: &str, is_md: bool) -> Result<Value> {
    let mut out = match m {
        Value::Object(o) => o,
        _ => Map::new(),
    };
    let deletion = out.remove("deletion").unwrap_or(Value::Null);
    let health = out.remove("healthCheck").unwrap_or(Value::Null);
    timeouts(&deletion, &mut out, path)?;
    out.entry("metadata").or_insert_with(|| json!({}));
    let mut max_in_flight = None;
    if is_md {
        let strategy = out
            .get_mut("rollout")
            .and_then(Value::as_object_mut)
            .and_then(|r| r.remove("strategy"));
        if out.get("rollout").is_some_and(|r| r == &json!({})) {
            out.remove("rollout");
        }
        max_in_flight = obj::get(&health, &["remediation", "maxInFlight"]).cloned();
        let s = md_strategy(strategy.as_ref(), &deletion, max_in_flight.as_ref());
        if let Some(s) = s {
            out.insert("strategy".into(), s);
        }
    }
    let mut rest = health.clone();
    if let Some(r) = rest.get_mut("remediation").and_then(Value::as_object_mut) {
        if max_in_flight.is_some() {
            r.remove("maxInFlight");
        }
    }
    if is_set(Some(&rest)) && rest != json!({"remediation": {}}) {
        let p = format!("{path}.healthCheck");
        let mut mhc = health_check::to_v1beta1(&rest, &p)?;
        machine_conditions(&rest, &mut mhc, &p)?;
        if let Some(t) = mhc
            .get_mut("remediationTemplate")
            .and_then(Value::as_object_mut)
        {
            t.insert("namespace".into(), Value::from(ns));
        }
        out.insert("machineHealthCheck".into(), mhc);
    }
    Ok(Value::Object(out))
}

/// `deletion.*Seconds` as v1beta1's durations.
fn timeouts(deletion: &Value, out: &mut Map<String, Value>, path: &str) -> Result<()> {
    for (dur, secs) in [
        ("nodeDrainTimeout", "nodeDrainTimeoutSeconds"),
        ("nodeVolumeDetachTimeout", "nodeVolumeDetachTimeoutSeconds"),
        ("nodeDeletionTimeout", "nodeDeletionTimeoutSeconds"),
    ] {
        if let Some(v) = deletion.get(secs).filter(|v| !v.is_null()) {
            let d = seconds::to_duration(v, &format!("{path}.deletion.{secs}"))?;
            out.insert(dur.into(), d);
        }
    }
    Ok(())
}

/// `checks.unhealthyMachineConditions` (v1beta1 has them since v1.13).
fn machine_conditions(hc: &Value, mhc: &mut Value, path: &str) -> Result<()> {
    let Some(Value::Array(conds)) = obj::get(hc, &["checks", "unhealthyMachineConditions"]) else {
        return Ok(());
    };
    let mut list = Vec::with_capacity(conds.len());
    for (i, c) in conds.iter().enumerate() {
        let mut m = c.as_object().cloned().unwrap_or_default();
        let p = format!("{path}.checks.unhealthyMachineConditions[{i}].timeoutSeconds");
        let t = m.remove("timeoutSeconds").unwrap_or(Value::from(0));
        m.insert("timeout".into(), seconds::to_duration(&t, &p)?);
        list.push(Value::Object(m));
    }
    obj::set(mhc, &["unhealthyMachineConditions"], Value::Array(list));
    Ok(())
}

/// v1beta1's MachineDeployment `strategy` from v1beta2's rollout strategy, deletion order
/// and remediation `maxInFlight`; `None` when all are unset.
fn md_strategy(
    rollout: Option<&Value>,
    deletion: &Value,
    max_in_flight: Option<&Value>,
) -> Option<Value> {
    let mut s = Map::new();
    if let Some(r) = rollout.filter(|r| is_set(Some(r))) {
        s.insert(
            "type".into(),
            r.get("type").cloned().unwrap_or(Value::from("")),
        );
        if let Some(ru) = r.get("rollingUpdate").filter(|v| is_set(Some(v))) {
            s.insert("rollingUpdate".into(), ru.clone());
        }
    }
    if let Some(o) = deletion.get("order").filter(|v| is_set(Some(v))) {
        let ru = s.entry("rollingUpdate").or_insert_with(|| json!({}));
        obj::set(ru, &["deletePolicy"], o.clone());
    }
    if let Some(m) = max_in_flight.filter(|v| !v.is_null()) {
        s.insert("remediation".into(), json!({"maxInFlight": m}));
    }
    (!s.is_empty()).then_some(Value::Object(s))
}

/// A MachineDeployment's or MachinePool's Machine template: references, timeouts, and
/// `minReadySeconds` lifted to the spec (v1beta1 keeps it there).
fn machine_template(spec: &mut Map<String, Value>, ns: &str, versions: Versions) -> Result<()> {
    let Some(tmpl) = spec.get_mut("template").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    tmpl.entry("metadata").or_insert_with(|| json!({}));
    let ms = tmpl.entry("spec").or_insert_with(|| json!({}));
    let Some(ms) = ms.as_object_mut() else {
        return Ok(());
    };
    let ir = ms.get("infrastructureRef").cloned().unwrap_or(Value::Null);
    let ir = if is_set(Some(&ir)) {
        object_ref(&ir, ns, versions, "spec.template.spec.infrastructureRef")?
    } else {
        json!({})
    };
    ms.insert("infrastructureRef".into(), ir);
    let mut boot = ms
        .remove("bootstrap")
        .and_then(|b| b.as_object().cloned())
        .unwrap_or_default();
    if let Some(r) = boot.get("configRef").filter(|r| is_set(Some(r))).cloned() {
        let p = "spec.template.spec.bootstrap.configRef";
        boot.insert("configRef".into(), object_ref(&r, ns, versions, p)?);
    } else {
        boot.remove("configRef");
    }
    ms.insert("bootstrap".into(), Value::Object(boot));
    let deletion = ms.remove("deletion").unwrap_or(Value::Null);
    timeouts(&deletion, ms, "spec.template.spec")?;
    for f in ["version", "providerID", "failureDomain"] {
        if ms.get(f).is_some_and(|v| v == "") {
            ms.remove(f);
        }
    }
    if let Some(m) = ms.remove("minReadySeconds") {
        spec.insert("minReadySeconds".into(), m);
    }
    Ok(())
}

fn deployment_spec(spec: &mut Map<String, Value>, ns: &str, versions: Versions) -> Result<()> {
    machine_template(spec, ns, versions)?;
    let rollout = spec.remove("rollout").unwrap_or(Value::Null);
    let deletion = spec.remove("deletion").unwrap_or(Value::Null);
    let remediation = spec.remove("remediation").unwrap_or(Value::Null);
    let mif = remediation.get("maxInFlight");
    if let Some(s) = md_strategy(rollout.get("strategy"), &deletion, mif) {
        spec.insert("strategy".into(), s);
    }
    if let Some(a) = rollout.get("after").filter(|v| is_set(Some(v))) {
        spec.insert("rolloutAfter".into(), a.clone());
    }
    if let Some(t) = spec.remove("machineNaming") {
        if is_set(t.get("template")) {
            spec.insert("machineNamingStrategy".into(), t);
        }
    }
    spec.entry("clusterName").or_insert_with(|| Value::from(""));
    spec.entry("selector").or_insert_with(|| json!({}));
    Ok(())
}

fn pool_spec(spec: &mut Map<String, Value>, ns: &str, versions: Versions) -> Result<()> {
    machine_template(spec, ns, versions)?;
    spec.entry("clusterName").or_insert_with(|| Value::from(""));
    Ok(())
}

fn health_check_spec(spec: &mut Map<String, Value>, ns: &str) -> Result<()> {
    let checks = spec.remove("checks").unwrap_or(Value::Null);
    let remediation = spec.remove("remediation").unwrap_or(Value::Null);
    let hc = json!({"checks": checks, "remediation": remediation});
    let mut mhc = health_check::to_v1beta1(&hc, "spec")?;
    machine_conditions(&hc, &mut mhc, "spec")?;
    if let Some(m) = mhc.as_object_mut() {
        m.remove("enable");
        if let Some(t) = m
            .get_mut("remediationTemplate")
            .and_then(Value::as_object_mut)
        {
            t.insert("namespace".into(), Value::from(ns));
        }
        spec.extend(std::mem::take(m));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn versions(g: &str, k: &str) -> Option<String> {
        Some(format!("{g}/v1beta1")).filter(|_| !k.is_empty())
    }

    #[test]
    fn generated_objects_convert_back_to_v1beta1() {
        let md = json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachineDeployment",
            "metadata": {"name": "md", "namespace": "ns"},
            "spec": {"clusterName": "c", "deletion": {"order": "Newest"},
                "rollout": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}},
                "template": {"spec": {"clusterName": "c", "minReadySeconds": 7,
                    "deletion": {"nodeDeletionTimeoutSeconds": 45},
                    "bootstrap": {"configRef": {"apiGroup": "bootstrap.cluster.x-k8s.io", "kind": "KubeadmConfigTemplate", "name": "b"}},
                    "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerMachineTemplate", "name": "i"}}}}});
        let out = object(md, &versions).unwrap();
        assert_eq!(out["apiVersion"], "cluster.x-k8s.io/v1beta1");
        let s = &out["spec"];
        assert_eq!(s["minReadySeconds"], 7);
        assert_eq!(
            s["strategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "deletePolicy": "Newest"}})
        );
        let ms = &s["template"]["spec"];
        assert_eq!(ms["nodeDeletionTimeout"], "45s");
        assert_eq!(
            ms["infrastructureRef"],
            json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "DockerMachineTemplate", "name": "i", "namespace": "ns"})
        );
        let provider =
            json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "X"});
        assert_eq!(object(provider.clone(), &versions).unwrap(), provider);
    }

    #[test]
    fn cluster_topology_and_unknown_ref_versions() {
        let c = json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
            "metadata": {"name": "c", "namespace": "ns"},
            "spec": {"topology": {"classRef": {"name": "k"}, "version": "v1.33.0",
                "controlPlane": {"replicas": 1, "healthCheck": {"checks": {"nodeStartupTimeoutSeconds": 600}}}},
                "controlPlaneRef": {"apiGroup": "g", "kind": "", "name": "cp"}}});
        let out = object(c.clone(), &versions).unwrap_err().to_string();
        assert!(
            out.contains("Cluster ns/c") && out.contains("spec.controlPlaneRef"),
            "{out}"
        );
        let mut ok = c;
        ok["spec"]
            .as_object_mut()
            .unwrap()
            .remove("controlPlaneRef");
        let out = object(ok, &versions).unwrap();
        let t = &out["spec"]["topology"];
        assert_eq!(t["class"], "k");
        assert_eq!(t["controlPlane"]["metadata"], json!({}));
        assert_eq!(
            t["controlPlane"]["machineHealthCheck"]["nodeStartupTimeout"],
            "10m0s"
        );
        assert_eq!(
            out["spec"]["controlPlaneEndpoint"],
            json!({"host": "", "port": 0})
        );
    }
}
