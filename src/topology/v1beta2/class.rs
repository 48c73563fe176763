//! A `cluster.x-k8s.io/v1beta2` ClusterClass in the v1beta1 shape the engine reads
//! (as `api/core/v1beta1/conversion.go` converts it down).

use serde_json::{Map, Value};

use super::{health_check, refs, seconds};
use crate::error::{Error, Result};
use crate::topology::obj;

/// `deletion.*Seconds` and the v1beta1 duration fields they become.
pub const TIMEOUTS: [(&str, &str); 3] = [
    ("nodeDrainTimeoutSeconds", "nodeDrainTimeout"),
    ("nodeVolumeDetachTimeoutSeconds", "nodeVolumeDetachTimeout"),
    ("nodeDeletionTimeoutSeconds", "nodeDeletionTimeout"),
];

/// The v1beta1 ClusterClass for a v1beta2 one; errors name the ClusterClass and field.
pub fn to_v1beta1(cc: &Value) -> Result<Value> {
    let ns = obj::namespace(cc).to_string();
    let mut out = cc.clone();
    obj::set(&mut out, &["apiVersion"], Value::from(super::V1BETA1));
    let spec = obj::get(cc, &["spec"]).cloned().unwrap_or(Value::Null);
    let conv = spec_to_v1beta1(&spec, &ns)
        .map_err(|e| e.wrap(format!("ClusterClass {ns}/{}", obj::name(cc))))?;
    obj::set(&mut out, &["spec"], conv);
    if let Some(Value::Object(m)) = out.get_mut("status") {
        m.clear();
    }
    Ok(out)
}

fn spec_to_v1beta1(spec: &Value, ns: &str) -> Result<Value> {
    let mut out = spec.as_object().cloned().unwrap_or_default();
    for f in ["upgrade", "kubernetesVersions"] {
        out.remove(f);
    }
    if let Some(infra) = spec.get("infrastructure").filter(|v| !v.is_null()) {
        let mut m = Map::new();
        if let Some(tr) = infra.get("templateRef") {
            let r = refs::template_ref_to_ref(tr, ns, "spec.infrastructure.templateRef")?;
            m.insert("ref".into(), r);
        }
        out.insert("infrastructure".into(), Value::Object(m));
        if let Some(t) = naming(infra) {
            out.insert("infrastructureNamingStrategy".into(), t);
        }
    }
    if let Some(cp) = spec.get("controlPlane").filter(|v| !v.is_null()) {
        out.insert("controlPlane".into(), control_plane(cp, ns)?);
    }
    if let Some(w) = spec.get("workers").filter(|v| !v.is_null()) {
        let mut wm = Map::new();
        for (list, is_md) in [("machineDeployments", true), ("machinePools", false)] {
            if let Some(Value::Array(classes)) = w.get(list) {
                let mut conv = Vec::new();
                for (i, c) in classes.iter().enumerate() {
                    let p = format!("spec.workers.{list}[{i}]");
                    conv.push(worker_class(c, ns, is_md, &p)?);
                }
                wm.insert(list.into(), Value::Array(conv));
            }
        }
        out.insert("workers".into(), Value::Object(wm));
    }
    if let Some(Value::Array(vars)) = spec.get("variables") {
        out.insert(
            "variables".into(),
            Value::Array(vars.iter().map(variable).collect()),
        );
    }
    if let Some(Value::Array(ps)) = spec.get("patches") {
        out.insert(
            "patches".into(),
            Value::Array(ps.iter().map(patch).collect()),
        );
    }
    Ok(Value::Object(out))
}

/// `naming.template` as a v1beta1 `*NamingStrategy` (empty template = unset).
fn naming(holder: &Value) -> Option<Value> {
    match obj::str_at(holder, &["naming", "template"]) {
        "" => None,
        t => Some(serde_json::json!({ "template": t })),
    }
}

/// `deletion.*Seconds` of `holder` into `out` as v1beta1 durations.
pub fn timeouts_into(holder: &Value, out: &mut Map<String, Value>, path: &str) -> Result<()> {
    out.remove("deletion");
    for (secs, dur) in TIMEOUTS {
        if let Some(v) = obj::get(holder, &["deletion", secs]).filter(|v| !v.is_null()) {
            out.insert(
                dur.into(),
                seconds::to_duration(v, &format!("{path}.deletion.{secs}"))?,
            );
        }
    }
    Ok(())
}

fn control_plane(cp: &Value, ns: &str) -> Result<Value> {
    let mut out = cp.as_object().cloned().unwrap_or_default();
    for f in [
        "templateRef",
        "naming",
        "healthCheck",
        "machineInfrastructure",
    ] {
        out.remove(f);
    }
    if let Some(tr) = cp.get("templateRef") {
        let r = refs::template_ref_to_ref(tr, ns, "spec.controlPlane.templateRef")?;
        out.insert("ref".into(), r);
    }
    if let Some(tr) =
        obj::get(cp, &["machineInfrastructure", "templateRef"]).filter(|v| !v.is_null())
    {
        let p = "spec.controlPlane.machineInfrastructure.templateRef";
        let r = refs::template_ref_to_ref(tr, ns, p)?;
        out.insert(
            "machineInfrastructure".into(),
            serde_json::json!({ "ref": r }),
        );
    }
    if let Some(t) = naming(cp) {
        out.insert("namingStrategy".into(), t);
    }
    if let Some(hc) = cp.get("healthCheck").filter(|v| !v.is_null()) {
        let mhc = health_check::to_v1beta1(hc, "spec.controlPlane.healthCheck")?;
        out.insert("machineHealthCheck".into(), mhc);
    }
    timeouts_into(cp, &mut out, "spec.controlPlane")?;
    Ok(Value::Object(out))
}

fn worker_class(c: &Value, ns: &str, is_md: bool, path: &str) -> Result<Value> {
    let mut out = Map::new();
    let mut template = Map::new();
    for (key, value) in c.as_object().into_iter().flatten() {
        match key.as_str() {
            "metadata" => {
                template.insert("metadata".into(), value.clone());
            }
            "bootstrap" | "infrastructure" => {
                let p = format!("{path}.{key}.templateRef");
                let tr = value.get("templateRef").unwrap_or(&Value::Null);
                let r = refs::template_ref_to_ref(tr, ns, &p)?;
                template.insert(key.clone(), serde_json::json!({ "ref": r }));
            }
            "naming" => {
                if let Some(t) = naming(c) {
                    out.insert("namingStrategy".into(), t);
                }
            }
            "healthCheck" if is_md => {
                let p = format!("{path}.healthCheck");
                out.insert(
                    "machineHealthCheck".into(),
                    health_check::to_v1beta1(value, &p)?,
                );
            }
            "deletion" => {
                timeouts_into(c, &mut out, path)?;
                if let Some(o) = value.get("order").filter(|v| !v.is_null()) {
                    set_in(
                        &mut out,
                        &["strategy", "rollingUpdate", "deletePolicy"],
                        o.clone(),
                    );
                }
            }
            "rollout" => {
                if let Some(s) = value.get("strategy").filter(|v| !v.is_null()) {
                    merge_strategy(&mut out, s);
                }
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    if obj::str_at(c, &["class"]).is_empty() {
        return Err(Error::new(format!("{path}.class: Required value")));
    }
    out.insert("template".into(), Value::Object(template));
    Ok(Value::Object(out))
}

/// v1beta2 `rollout.strategy` into v1beta1 `strategy` (keeping a converted
/// `deletePolicy`).
pub fn merge_strategy(out: &mut Map<String, Value>, s: &Value) {
    let policy = out
        .get("strategy")
        .and_then(|v| obj::get(v, &["rollingUpdate", "deletePolicy"]))
        .cloned();
    let mut st = s.clone();
    if let Some(p) = policy {
        obj::set(&mut st, &["rollingUpdate", "deletePolicy"], p);
    }
    out.insert("strategy".into(), st);
}

/// A variable: `deprecatedV1Beta1Metadata` is v1beta1's `metadata`.
fn variable(v: &Value) -> Value {
    let mut out = v.clone();
    if let Some(m) = out.as_object_mut() {
        if let Some(md) = m.remove("deprecatedV1Beta1Metadata") {
            m.insert("metadata".into(), md);
        }
    }
    out
}

/// `obj::set` on a map.
fn set_in(m: &mut Map<String, Value>, path: &[&str], value: Value) {
    let mut v = Value::Object(std::mem::take(m));
    obj::set(&mut v, path, value);
    if let Value::Object(back) = v {
        *m = back;
    }
}

/// A patch: empty `enabledIf` / `valueFrom.variable|template` strings mean unset.
fn patch(p: &Value) -> Value {
    let mut out = p.clone();
    if obj::get(&out, &["enabledIf"]).is_some_and(|v| v.as_str() == Some("")) {
        obj::remove(&mut out, &["enabledIf"]);
    }
    if let Some(Value::Array(defs)) = out.get_mut("definitions") {
        for d in defs {
            if let Some(Value::Array(jps)) = d.get_mut("jsonPatches") {
                for jp in jps {
                    for f in ["variable", "template"] {
                        if obj::get(jp, &["valueFrom", f]).is_some_and(|v| v.as_str() == Some("")) {
                            obj::remove(jp, &["valueFrom", f]);
                        }
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cc() -> Value {
        json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "ClusterClass",
            "metadata": {"name": "k", "namespace": "ns"},
            "spec": {
                "infrastructure": {"templateRef": {"apiVersion": "i/v1", "kind": "IT", "name": "it"},
                    "naming": {"template": "{{ .cluster.name }}-x"}},
                "controlPlane": {"templateRef": {"apiVersion": "c/v1beta2", "kind": "CT", "name": "ct"},
                    "machineInfrastructure": {"templateRef": {"apiVersion": "i/v1", "kind": "MT", "name": "mt"}},
                    "naming": {"template": ""},
                    "deletion": {"nodeDrainTimeoutSeconds": 60},
                    "healthCheck": {"checks": {"nodeStartupTimeoutSeconds": 30}}},
                "workers": {"machineDeployments": [{"class": "w",
                    "metadata": {"labels": {"l": "v"}},
                    "bootstrap": {"templateRef": {"apiVersion": "b/v1", "kind": "BT", "name": "bt"}},
                    "infrastructure": {"templateRef": {"apiVersion": "i/v1", "kind": "MT", "name": "mt"}},
                    "deletion": {"order": "Oldest", "nodeDeletionTimeoutSeconds": 10},
                    "rollout": {"strategy": {"type": "RollingUpdate"}},
                    "naming": {"template": "{{ .machineDeployment.topologyName }}"}}]},
                "variables": [{"name": "v", "required": true,
                    "deprecatedV1Beta1Metadata": {"labels": {"a": "b"}},
                    "schema": {"openAPIV3Schema": {"type": "string"}}}],
                "patches": [{"name": "p", "enabledIf": "",
                    "definitions": [{"selector": {}, "jsonPatches": [{"op": "add", "path": "/a",
                        "valueFrom": {"variable": "v", "template": ""}}]}]}]}})
    }

    #[test]
    fn class_converts_to_v1beta1_shape() {
        let out = to_v1beta1(&cc()).unwrap();
        assert_eq!(out["apiVersion"], "cluster.x-k8s.io/v1beta1");
        let s = &out["spec"];
        assert_eq!(
            s["infrastructure"],
            json!({"ref": {"apiVersion": "i/v1", "kind": "IT", "name": "it", "namespace": "ns"}})
        );
        assert_eq!(
            s["infrastructureNamingStrategy"]["template"],
            "{{ .cluster.name }}-x"
        );
        assert_eq!(s["controlPlane"]["ref"]["name"], "ct");
        assert_eq!(
            s["controlPlane"]["machineInfrastructure"]["ref"]["namespace"],
            "ns"
        );
        assert!(s["controlPlane"].get("namingStrategy").is_none());
        assert_eq!(s["controlPlane"]["nodeDrainTimeout"], "1m0s");
        assert_eq!(
            s["controlPlane"]["machineHealthCheck"]["nodeStartupTimeout"],
            "30s"
        );
        let md = &s["workers"]["machineDeployments"][0];
        assert_eq!(md["template"]["metadata"]["labels"]["l"], "v");
        assert_eq!(md["template"]["bootstrap"]["ref"]["kind"], "BT");
        assert_eq!(md["template"]["infrastructure"]["ref"]["name"], "mt");
        assert_eq!(md["nodeDeletionTimeout"], "10s");
        assert_eq!(
            md["strategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"deletePolicy": "Oldest"}})
        );
        assert_eq!(
            md["namingStrategy"]["template"],
            "{{ .machineDeployment.topologyName }}"
        );
        assert!(md.get("deletion").is_none() && md.get("rollout").is_none());
        assert_eq!(s["variables"][0]["metadata"]["labels"]["a"], "b");
        assert!(s["variables"][0].get("deprecatedV1Beta1Metadata").is_none());
        assert!(s["patches"][0].get("enabledIf").is_none());
        let jp = &s["patches"][0]["definitions"][0]["jsonPatches"][0];
        assert_eq!(jp["valueFrom"], json!({"variable": "v"}));
    }

    #[test]
    fn missing_template_ref_names_class_and_field() {
        let mut c = cc();
        c["spec"]["workers"]["machineDeployments"][0]["bootstrap"] = json!({});
        let e = to_v1beta1(&c).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("ClusterClass ns/k"), "{m}");
        assert!(
            m.contains("spec.workers.machineDeployments[0].bootstrap.templateRef.apiVersion"),
            "{m}"
        );
    }

    #[test]
    fn odd_values_do_not_panic() {
        for spec in [
            json!(null),
            json!(3),
            json!({"workers": "x"}),
            json!({"controlPlane": {"deletion": "x"}}),
        ] {
            let mut c = cc();
            c["spec"] = spec;
            let _ = to_v1beta1(&c);
        }
    }
}
