//! A `cluster.x-k8s.io/v1beta2` Cluster with `spec.topology` in the v1beta1 shape the
//! engine reads (as `api/core/v1beta1/conversion.go` converts it down).

use serde_json::Value;

use super::class::timeouts_into;
use super::health_check;
use crate::error::{Error, Result};
use crate::topology::obj;

/// The v1beta1 Cluster for a v1beta2 one; errors name the Cluster and field.
pub fn to_v1beta1(c: &Value) -> Result<Value> {
    let key = format!("Cluster {}/{}", obj::namespace(c), obj::name(c));
    let mut out = c.clone();
    obj::set(&mut out, &["apiVersion"], Value::from(super::V1BETA1));
    for f in ["infrastructureRef", "controlPlaneRef"] {
        if !obj::str_at(c, &["spec", f, "name"]).is_empty() {
            return Err(Error::new(format!(
                "{key}: spec.{f} is set: capi-render renders new Clusters only (changes to existing topology objects are not supported)"
            )));
        }
        obj::remove(&mut out, &["spec", f]);
    }
    if let Some(t) = obj::get(c, &["spec", "topology"]).filter(|v| !v.is_null()) {
        let conv = topology(t).map_err(|e| e.wrap(&key))?;
        obj::set(&mut out, &["spec", "topology"], conv);
    }
    obj::remove(&mut out, &["status"]);
    Ok(out)
}

fn topology(t: &Value) -> Result<Value> {
    let mut out = t.as_object().cloned().unwrap_or_default();
    out.remove("classRef");
    let class = obj::str_at(t, &["classRef", "name"]);
    if class.is_empty() {
        return Err(Error::new("spec.topology.classRef.name: Required value"));
    }
    out.insert("class".into(), Value::from(class));
    let ns = obj::str_at(t, &["classRef", "namespace"]);
    if !ns.is_empty() {
        out.insert("classNamespace".into(), Value::from(ns));
    }
    if let Some(cp) = t.get("controlPlane").filter(|v| !v.is_null()) {
        out.insert(
            "controlPlane".into(),
            member(cp, "spec.topology.controlPlane")?,
        );
    }
    if let Some(w) = t.get("workers").filter(|v| !v.is_null()) {
        let mut wm = w.as_object().cloned().unwrap_or_default();
        for list in ["machineDeployments", "machinePools"] {
            if let Some(Value::Array(ms)) = w.get(list) {
                let mut conv = Vec::new();
                for (i, m) in ms.iter().enumerate() {
                    conv.push(member(m, &format!("spec.topology.workers.{list}[{i}]"))?);
                }
                wm.insert(list.into(), Value::Array(conv));
            }
        }
        out.insert("workers".into(), Value::Object(wm));
    }
    if let Some(Value::Array(vars)) = t.get("variables") {
        let bad = vars.iter().position(|v| v.get("definitionFrom").is_some());
        if let Some(i) = bad {
            return Err(Error::new(format!(
                "spec.topology.variables[{i}].definitionFrom: field not declared in schema (removed in v1beta2)"
            )));
        }
    }
    Ok(Value::Object(out))
}

/// A control plane / MachineDeployment / MachinePool topology.
fn member(m: &Value, path: &str) -> Result<Value> {
    let mut out = m.as_object().cloned().unwrap_or_default();
    out.remove("healthCheck");
    out.remove("rollout");
    if let Some(hc) = m.get("healthCheck").filter(|v| !v.is_null()) {
        let mhc = health_check::to_v1beta1(hc, &format!("{path}.healthCheck"))?;
        out.insert("machineHealthCheck".into(), mhc);
    }
    timeouts_into(m, &mut out, path)?;
    // `deletion.order` is chosen apart from the rollout strategy in HEAD: it is set on
    // the converted MachineDeployment (`head_fields`), not merged into `strategy`
    // (which would replace the class's rollout strategy).
    if let Some(s) = obj::get(m, &["rollout", "strategy"]).filter(|v| !v.is_null()) {
        out.insert("strategy".into(), s.clone());
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cluster_converts_to_v1beta1_shape() {
        let c = json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
            "metadata": {"name": "c", "namespace": "ns"},
            "spec": {"topology": {"classRef": {"name": "k", "namespace": "other"}, "version": "v1.33.0",
                "controlPlane": {"replicas": 3, "deletion": {"nodeDrainTimeoutSeconds": 90},
                    "healthCheck": {"enabled": false}},
                "workers": {"machineDeployments": [{"class": "w", "name": "md-0",
                    "deletion": {"order": "Newest"},
                    "rollout": {"strategy": {"type": "OnDelete"}}}]},
                "variables": [{"name": "v", "value": 1}]}}});
        let out = to_v1beta1(&c).unwrap();
        assert_eq!(out["apiVersion"], "cluster.x-k8s.io/v1beta1");
        let t = &out["spec"]["topology"];
        assert_eq!(t["class"], "k");
        assert_eq!(t["classNamespace"], "other");
        assert!(t.get("classRef").is_none());
        assert_eq!(t["controlPlane"]["nodeDrainTimeout"], "1m30s");
        assert_eq!(
            t["controlPlane"]["machineHealthCheck"],
            json!({"enable": false})
        );
        let md = &t["workers"]["machineDeployments"][0];
        assert_eq!(md["strategy"], json!({"type": "OnDelete"}));
        assert!(md.get("deletion").is_none());
        assert_eq!(t["variables"], json!([{"name": "v", "value": 1}]));
    }

    #[test]
    fn missing_class_ref_names_cluster_and_field() {
        let c = json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
            "metadata": {"name": "c", "namespace": "ns"}, "spec": {"topology": {"version": "v1.33.0"}}});
        let m = to_v1beta1(&c).unwrap_err().to_string();
        assert!(
            m.contains("Cluster ns/c") && m.contains("spec.topology.classRef.name"),
            "{m}"
        );
    }

    #[test]
    fn existing_refs_are_new_clusters_only_errors() {
        let c = json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
            "metadata": {"name": "c", "namespace": "ns"},
            "spec": {"infrastructureRef": {"apiGroup": "g", "kind": "K", "name": "x"},
                "topology": {"classRef": {"name": "k"}}}});
        let m = to_v1beta1(&c).unwrap_err().to_string();
        assert!(
            m.contains("spec.infrastructureRef") && m.contains("new Clusters only"),
            "{m}"
        );
    }

    #[test]
    fn odd_values_do_not_panic() {
        for t in [
            json!(3),
            json!({"classRef": "x"}),
            json!({"classRef": {"name": "k"}, "workers": {"machineDeployments": [3]}}),
        ] {
            let c = json!({"metadata": {"name": "c"}, "spec": {"topology": t}});
            let _ = to_v1beta1(&c);
        }
    }
}
