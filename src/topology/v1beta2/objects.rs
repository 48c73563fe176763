//! The engine's desired objects (v1beta1 shapes) as HEAD's controller writes them
//! for a v1beta2 Cluster: Cluster, MachineDeployment, MachinePool and
//! MachineHealthCheck in `cluster.x-k8s.io/v1beta2`, refs as `{apiGroup, kind, name}`
//! (a ControlPlane's machine fields are already at its contract's paths: the engine writes
//! them there for v1beta2 Clusters), and the fields HEAD computes ([`head_fields`]).

use serde_json::{Map, Value};

use super::class::TIMEOUTS;
use super::{head_fields, health_check, refs, seconds, V1BETA1, V1BETA2};
use crate::error::Result;
use crate::model::pointer::Pointer as _;
use crate::topology::obj;

/// What the conversion reads besides the desired objects.
pub struct Inputs<'a> {
    /// The v1beta2 input Cluster.
    pub cluster: &'a Value,
    /// Its ClusterClass as given (v1beta2 or v1beta1).
    pub class: &'a Value,
    /// Whether a MachineHealthCheck's `maxUnhealthy` was set by the user (not a
    /// v1.10.10 webhook default, which HEAD does not write).
    pub explicit_max_unhealthy: &'a dyn Fn(&Value) -> bool,
}

/// Convert every desired object.
pub fn to_v1beta2(objs: Vec<Value>, inputs: &Inputs) -> Result<Vec<Value>> {
    let (cluster, explicit) = (inputs.cluster, inputs.explicit_max_unhealthy);
    let cp_ref = objs
        .iter()
        .find(|o| obj::kind(o) == "Cluster" && obj::api_version(o) == V1BETA1)
        .and_then(|c| obj::get(c, &["spec", "controlPlaneRef"]))
        .cloned()
        .unwrap_or(Value::Null);
    let mut out = Vec::with_capacity(objs.len());
    for mut o in objs {
        owner_refs_to_v1beta2(&mut o);
        let core = obj::api_version(&o) == V1BETA1;
        let kind = obj::kind(&o).to_string();
        let o = match kind.as_str() {
            "Cluster" if core => cluster_to_v1beta2(o, cluster),
            "MachineDeployment" if core => {
                let mut md = workers_to_v1beta2(o)?;
                head_fields::machine_deployment(&mut md, cluster, inputs.class);
                md
            }
            "MachinePool" if core => {
                let mut mp = workers_to_v1beta2(o)?;
                head_fields::machine_pool(&mut mp, cluster, inputs.class);
                mp
            }
            "MachineHealthCheck" if core => {
                let mut spec = obj::get(&o, &["spec"]).cloned().unwrap_or(Value::Null);
                if !explicit(&o) {
                    obj::remove(&mut spec, &["maxUnhealthy"]);
                }
                let conditions = super::mhc_source::machine_conditions(&o, cluster, inputs.class);
                obj::set(&mut o, &["spec"], health_check::mhc_spec_to_v1beta2(&spec)?);
                if let Some(c) = conditions {
                    obj::set(&mut o, &["spec", "checks", "unhealthyMachineConditions"], c);
                }
                obj::set(&mut o, &["apiVersion"], Value::from(V1BETA2));
                o
            }
            _ if is_control_plane(&o, &cp_ref) => {
                // The engine wrote the machine fields at the contract's paths.
                let v1beta2_contract = super::contract::is_v1beta2(obj::api_version(&o));
                let mut cp = o;
                head_fields::control_plane(&mut cp, cluster, inputs.class, v1beta2_contract);
                cp
            }
            _ => o,
        };
        out.push(o);
    }
    super::md_health::reconcile(&mut out, cluster, inputs.class)?;
    Ok(out)
}

fn owner_refs_to_v1beta2(o: &mut Value) {
    if let Some(Value::Array(rs)) = obj::get(o, &["metadata", "ownerReferences"]).cloned() {
        let conv: Vec<Value> = rs
            .into_iter()
            .map(|mut r| {
                if obj::api_version(&r) == V1BETA1 {
                    obj::set(&mut r, &["apiVersion"], Value::from(V1BETA2));
                }
                r
            })
            .collect();
        obj::set(o, &["metadata", "ownerReferences"], Value::Array(conv));
    }
}

/// The ControlPlane the Cluster references.
fn is_control_plane(o: &Value, cp_ref: &Value) -> bool {
    obj::kind(o) == obj::str_at(cp_ref, &["kind"]) && obj::name(o) == obj::str_at(cp_ref, &["name"])
}

/// The reconciled Cluster: the input's v1beta2 topology with the defaulted variables and
/// the defaulted version (the webhook's `v` prefix), refs as
/// `ContractVersionedObjectReference`s.
fn cluster_to_v1beta2(mut c: Value, input: &Value) -> Value {
    obj::set(&mut c, &["apiVersion"], Value::from(V1BETA2));
    for f in ["infrastructureRef", "controlPlaneRef"] {
        if let Some(r) = obj::get(&c, &["spec", f]).cloned() {
            obj::set(&mut c, &["spec", f], refs::contract_ref(&r));
        }
    }
    let vars = obj::get(&c, &["spec", "topology", "variables"]).cloned();
    let version = obj::get(&c, &["spec", "topology", "version"]).cloned();
    let mut topology = obj::get(input, &["spec", "topology"])
        .cloned()
        .unwrap_or(Value::Null);
    if let Some(v) = version.filter(|_| obj::get(&topology, &["version"]).is_some()) {
        obj::set(&mut topology, &["version"], v);
    }
    if let Some(Value::Array(vs)) = vars {
        obj::set(&mut topology, &["variables"], without_definition_from(vs));
    }
    defaulted_overrides(&c, &mut topology);
    obj::set(&mut c, &["spec", "topology"], topology);
    let ep = obj::get(&c, &["spec", "controlPlaneEndpoint"]);
    if ep.is_some_and(|e| {
        obj::str_at(e, &["host"]).is_empty()
            && e.get("port").and_then(Value::as_i64).unwrap_or(0) == 0
    }) {
        obj::remove(&mut c, &["spec", "controlPlaneEndpoint"]);
    }
    obj::remove(&mut c, &["status"]);
    // CAPI v1.14 tracks the current upgrade step on the Cluster only during an upgrade:
    // a new Cluster has no upgrade plan, so the annotation goes (an emptied map with it).
    obj::remove(
        &mut c,
        &["metadata", "annotations", UPGRADE_STEP_ANNOTATION],
    );
    if obj::get(&c, &["metadata", "annotations"])
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty)
    {
        obj::remove(&mut c, &["metadata", "annotations"]);
    }
    c
}

fn without_definition_from(vs: Vec<Value>) -> Value {
    let vs = vs.into_iter().map(|mut v| {
        obj::remove(&mut v, &["definitionFrom"]);
        v
    });
    Value::Array(vs.collect())
}

/// The webhook's defaulted override lists (control plane, each MachineDeployment and
/// MachinePool, in topology order) from the engine's Cluster `c` into the v1beta2
/// `topology`, where the topology has the list.
fn defaulted_overrides(c: &Value, topology: &mut Value) {
    let overrides = ["variables", "overrides"];
    let mut lists: Vec<(Vec<String>, Value)> = Vec::new();
    if let Some(Value::Array(o)) = obj::get(
        c,
        &["spec", "topology", "controlPlane", "variables", "overrides"],
    ) {
        lists.push((
            vec!["controlPlane".into()],
            without_definition_from(o.clone()),
        ));
    }
    for kind in ["machineDeployments", "machinePools"] {
        let workers = obj::get(c, &["spec", "topology", "workers", kind]).and_then(Value::as_array);
        for (i, w) in workers.into_iter().flatten().enumerate() {
            if let Some(Value::Array(o)) = obj::get(w, &overrides) {
                let at = vec!["workers".into(), kind.into(), i.to_string()];
                lists.push((at, without_definition_from(o.clone())));
            }
        }
    }
    for (at, list) in lists {
        let pointer = format!("/{}/variables/overrides", at.join("/"));
        if let Some(slot) = topology.ptr_mut(&pointer) {
            *slot = list;
        }
    }
}

/// The Cluster annotation on which CAPI's topology controller tracks upgrade steps.
pub const UPGRADE_STEP_ANNOTATION: &str = "topology.internal.cluster.x-k8s.io/upgrade-step";

/// `node*Timeout` durations in `m` as a `deletion` map of `*Seconds`.
fn deletion_seconds(m: &mut Map<String, Value>, path: &str) -> Result<Map<String, Value>> {
    let mut d = Map::new();
    for (secs, dur) in TIMEOUTS {
        if let Some(v) = m.remove(dur).filter(|v| !v.is_null()) {
            d.insert(
                secs.into(),
                seconds::from_duration(&v, &format!("{path}.{dur}"))?,
            );
        }
    }
    Ok(d)
}

/// A MachineDeployment or MachinePool.
fn workers_to_v1beta2(mut o: Value) -> Result<Value> {
    obj::set(&mut o, &["apiVersion"], Value::from(V1BETA2));
    let mut spec = obj::get(&o, &["spec"])
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut tspec = obj::get(&o, &["spec", "template", "spec"])
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    if let Some(r) = obj::get(&Value::Object(tspec.clone()), &["bootstrap", "configRef"]).cloned() {
        let mut b = Value::Object(Map::new());
        obj::set(&mut b, &["configRef"], refs::contract_ref(&r));
        if let Some(ds) = tspec.get("bootstrap").and_then(|b| b.get("dataSecretName")) {
            obj::set(&mut b, &["dataSecretName"], ds.clone());
        }
        tspec.insert("bootstrap".into(), b);
    }
    if let Some(r) = tspec.get("infrastructureRef").cloned() {
        tspec.insert("infrastructureRef".into(), refs::contract_ref(&r));
    }
    let d = deletion_seconds(&mut tspec, "spec.template.spec")?;
    if !d.is_empty() {
        tspec.insert("deletion".into(), Value::Object(d));
    }
    if let Some(m) = spec.remove("minReadySeconds") {
        tspec.insert("minReadySeconds".into(), m);
    }
    if let Some(mut st) = spec.remove("strategy") {
        // v1beta1's `strategy.remediation` is v1beta2's `spec.remediation` (`head_fields`).
        obj::remove(&mut st, &["remediation"]);
        if let Some(p) = obj::remove(&mut st, &["rollingUpdate", "deletePolicy"]) {
            let mut del = Value::Object(Map::new());
            obj::set(&mut del, &["order"], p);
            spec.insert("deletion".into(), del);
        }
        if obj::get(&st, &["rollingUpdate"])
            .is_some_and(|r| r.as_object().is_some_and(Map::is_empty))
        {
            obj::remove(&mut st, &["rollingUpdate"]);
        }
        if st.as_object().is_some_and(|m| !m.is_empty()) {
            spec.insert("rollout".into(), serde_json::json!({ "strategy": st }));
        }
    }
    let mut s = Value::Object(spec);
    obj::set(&mut s, &["template", "spec"], Value::Object(tspec));
    obj::set(&mut o, &["spec"], s);
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn to_v1beta2(objs: Vec<Value>, cluster: &Value) -> Result<Vec<Value>> {
        let inputs = Inputs {
            cluster,
            class: &Value::Null,
            explicit_max_unhealthy: &|_| true,
        };
        super::to_v1beta2(objs, &inputs)
    }

    #[test]
    fn defaulted_max_unhealthy_is_dropped() {
        let m = json!({"apiVersion": V1BETA1, "kind": "MachineHealthCheck",
            "spec": {"clusterName": "c", "maxUnhealthy": "100%", "nodeStartupTimeout": "10m0s"}});
        let inputs = Inputs {
            cluster: &json!({}),
            class: &Value::Null,
            explicit_max_unhealthy: &|_| false,
        };
        let out = super::to_v1beta2(vec![m.clone()], &inputs).unwrap();
        assert_eq!(
            out[0]["spec"],
            json!({"clusterName": "c", "checks": {"nodeStartupTimeoutSeconds": 600}})
        );
        let out = to_v1beta2(vec![m], &json!({})).unwrap();
        assert_eq!(
            out[0]["spec"]["remediation"]["triggerIf"]["unhealthyLessThanOrEqualTo"],
            "100%"
        );
    }

    fn cluster_after() -> Value {
        json!({"apiVersion": V1BETA1, "kind": "Cluster", "metadata": {"name": "c", "namespace": "ns"},
            "spec": {"controlPlaneEndpoint": {"host": "", "port": 0},
                "infrastructureRef": {"apiVersion": "i.io/v1beta2", "kind": "DC", "name": "c-1", "namespace": "ns"},
                "controlPlaneRef": {"apiVersion": "cp.io/v1beta2", "kind": "KCP", "name": "c-2", "namespace": "ns"},
                "topology": {"class": "k", "variables": [{"name": "v", "value": 2}]}},
            "status": {"phase": "x"}})
    }

    fn input() -> Value {
        json!({"apiVersion": V1BETA2, "kind": "Cluster",
            "spec": {"topology": {"classRef": {"name": "k"}, "variables": []}}})
    }

    #[test]
    fn cluster_gets_contract_refs_and_its_v1beta2_topology() {
        let out = to_v1beta2(vec![cluster_after()], &input()).unwrap();
        let c = &out[0];
        assert_eq!(c["apiVersion"], V1BETA2);
        assert_eq!(
            c["spec"]["infrastructureRef"],
            json!({"apiGroup": "i.io", "kind": "DC", "name": "c-1"})
        );
        assert_eq!(
            c["spec"]["controlPlaneRef"],
            json!({"apiGroup": "cp.io", "kind": "KCP", "name": "c-2"})
        );
        assert_eq!(
            c["spec"]["topology"],
            json!({"classRef": {"name": "k"}, "variables": [{"name": "v", "value": 2}]})
        );
        assert!(c["spec"].get("controlPlaneEndpoint").is_none());
        assert!(c.get("status").is_none());
        assert!(c["metadata"].get("annotations").is_none());
    }

    #[test]
    fn cluster_loses_the_upgrade_step_annotation_and_keeps_others() {
        let mut after = cluster_after();
        after["metadata"]["annotations"] = json!({UPGRADE_STEP_ANNOTATION: "v1.32.0", "a": "b"});
        let out = to_v1beta2(vec![after], &input()).unwrap();
        assert_eq!(out[0]["metadata"]["annotations"], json!({"a": "b"}));
    }

    #[test]
    fn cluster_takes_the_defaulted_overrides() {
        let mut after = cluster_after();
        after["spec"]["topology"]["controlPlane"] = json!({"variables": {"overrides": [{"name": "o", "value": {"a": 1, "d": 2}, "definitionFrom": ""}]}});
        after["spec"]["topology"]["workers"] = json!({"machineDeployments": [{"name": "m0"},
            {"name": "m1", "variables": {"overrides": [{"name": "o", "value": [{"x": 1, "d": 2}]}]}}]});
        let mut inp = input();
        inp["spec"]["topology"]["controlPlane"] =
            json!({"replicas": 1, "variables": {"overrides": [{"name": "o", "value": {"a": 1}}]}});
        inp["spec"]["topology"]["workers"] = json!({"machineDeployments": [{"name": "m0", "class": "c"},
            {"name": "m1", "class": "c", "variables": {"overrides": [{"name": "o", "value": [{"x": 1}]}]}}]});
        let out = to_v1beta2(vec![after], &inp).unwrap();
        let t = &out[0]["spec"]["topology"];
        assert_eq!(
            t["controlPlane"],
            json!({"replicas": 1, "variables": {"overrides": [{"name": "o", "value": {"a": 1, "d": 2}}]}})
        );
        assert_eq!(
            t["workers"]["machineDeployments"][0],
            json!({"name": "m0", "class": "c"})
        );
        assert_eq!(
            t["workers"]["machineDeployments"][1]["variables"]["overrides"][0]["value"],
            json!([{"x": 1, "d": 2}])
        );
    }

    #[test]
    fn cluster_keeps_the_defaulted_topology_version() {
        let mut after = cluster_after();
        after["spec"]["topology"]["version"] = json!("v1.33.0");
        let mut inp = input();
        inp["spec"]["topology"]["version"] = json!("1.33.0");
        let out = to_v1beta2(vec![after], &inp).unwrap();
        assert_eq!(out[0]["spec"]["topology"]["version"], "v1.33.0");
    }

    #[test]
    fn machine_deployment_takes_v1beta2_shape() {
        let md = json!({"apiVersion": V1BETA1, "kind": "MachineDeployment", "metadata": {"name": "md",
                "labels": {"topology.cluster.x-k8s.io/deployment-name": "md-0"},
                "ownerReferences": [{"apiVersion": V1BETA1, "kind": "Cluster", "name": "c"}]},
            "spec": {"clusterName": "c", "minReadySeconds": 5,
                "strategy": {"type": "RollingUpdate", "rollingUpdate": {"deletePolicy": "Oldest", "maxSurge": 1}},
                "template": {"spec": {"clusterName": "c", "version": "v1.34.1",
                    "bootstrap": {"configRef": {"apiVersion": "b.io/v1beta2", "kind": "KCT", "name": "b", "namespace": "ns"}},
                    "infrastructureRef": {"apiVersion": "i.io/v1beta2", "kind": "DMT", "name": "i", "namespace": "ns"},
                    "nodeDeletionTimeout": "30s"}}}});
        // The order comes from the v1beta2 inputs (here the topology), as HEAD picks it.
        let cluster = json!({"spec": {"topology": {"workers": {"machineDeployments": [
            {"name": "md-0", "class": "w", "deletion": {"order": "Oldest"}}]}}}});
        let out = to_v1beta2(vec![md], &cluster).unwrap();
        let m = &out[0];
        assert_eq!(m["apiVersion"], V1BETA2);
        assert_eq!(m["metadata"]["ownerReferences"][0]["apiVersion"], V1BETA2);
        assert_eq!(m["spec"]["deletion"], json!({"order": "Oldest"}));
        assert_eq!(
            m["spec"]["rollout"],
            json!({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}})
        );
        assert!(m["spec"].get("strategy").is_none() && m["spec"].get("minReadySeconds").is_none());
        let t = &m["spec"]["template"]["spec"];
        assert_eq!(t["minReadySeconds"], 5);
        assert_eq!(
            t["bootstrap"],
            json!({"configRef": {"apiGroup": "b.io", "kind": "KCT", "name": "b"}})
        );
        assert_eq!(
            t["infrastructureRef"],
            json!({"apiGroup": "i.io", "kind": "DMT", "name": "i"})
        );
        assert_eq!(t["deletion"], json!({"nodeDeletionTimeoutSeconds": 30}));
        assert!(t.get("nodeDeletionTimeout").is_none());
    }

    #[test]
    fn odd_objects_do_not_panic() {
        let odd = vec![
            json!(3),
            json!({"apiVersion": V1BETA1, "kind": "MachineDeployment", "spec": 4}),
            json!({"apiVersion": V1BETA1, "kind": "MachineHealthCheck"}),
            json!({"apiVersion": V1BETA1, "kind": "Cluster", "spec": []}),
        ];
        let _ = to_v1beta2(odd, &json!(null));
    }
}
