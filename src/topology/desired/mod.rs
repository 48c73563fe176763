//! The topology controller's desired objects for one Cluster (topology.md §1–§4, R0.2),
//! before patches: [`compute`] and the helpers every object kind shares; one file per
//! object kind.

use serde_json::{json, Map, Value};

use super::blueprint::Blueprint;
use super::clone::{self, CloneInput, CLUSTER_NAME_LABEL, OWNED_LABEL};
use super::names::{self, Strategy};
use super::obj;
use crate::error::{Error, ErrorKind, Result};

mod cluster;
mod control_plane;
mod health_checks;
mod infrastructure;
mod workers;

use cluster::*;
use control_plane::*;
use health_checks::*;
use infrastructure::*;
use workers::*;

pub const DEPLOYMENT_NAME_LABEL: &str = "topology.cluster.x-k8s.io/deployment-name";
pub const POOL_NAME_LABEL: &str = "topology.cluster.x-k8s.io/pool-name";
const HOLD_UPGRADE: &str = "topology.cluster.x-k8s.io/hold-upgrade-sequence";
const DEFER_UPGRADE: &str = "topology.cluster.x-k8s.io/defer-upgrade";

/// One MachineDeployment topology's objects.
pub struct MdState {
    pub topology: Value,
    pub class: String,
    pub bootstrap_template: Value,
    pub infra_template: Value,
    pub object: Value,
    pub mhc: Option<Value>,
}

/// One MachinePool topology's objects.
pub struct MpState {
    pub topology: Value,
    pub class: String,
    pub bootstrap_object: Value,
    pub infra_object: Value,
    pub object: Value,
}

/// The desired state (`scope.ClusterState`).
pub struct Desired {
    pub cluster: Value,
    pub infra_cluster: Value,
    pub control_plane: Value,
    pub cp_infra_template: Option<Value>,
    pub cp_mhc: Option<Value>,
    pub mds: Vec<MdState>,
    pub mps: Vec<MpState>,
}

struct Ctx<'a> {
    cluster: &'a Value,
    name: &'a str,
    ns: &'a str,
}

impl Ctx<'_> {
    fn seed(&self, role: &str) -> String {
        names::seed(self.ns, self.name, role)
    }
}

fn topo<'a>(cluster: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut p = vec!["spec", "topology"];
    p.extend_from_slice(path);
    obj::get(cluster, &p).filter(|v| !v.is_null())
}

fn naming_template(v: Option<&Value>) -> Option<&str> {
    v.and_then(|s| obj::get(s, &["template"]))
        .and_then(Value::as_str)
}

/// Compute all desired objects in R0.2's order.
pub fn compute(cluster: &Value, bp: &Blueprint) -> Result<Desired> {
    let ctx = Ctx {
        cluster,
        name: obj::name(cluster),
        ns: obj::namespace(cluster),
    };
    let infra_cluster = infrastructure_cluster(&ctx, bp)?;
    let cp_infra_template = match &bp.cp_infra_template {
        Some(t) => Some(cp_infra_template(&ctx, bp, t)?),
        None => None,
    };
    let control_plane = control_plane(&ctx, bp, cp_infra_template.as_ref())?;
    let cp_mhc = if cp_infra_template.is_some() {
        cp_mhc_class(cluster, bp).map(|check| {
            mhc(
                &control_plane,
                json!({"matchLabels": {OWNED_LABEL: "", "cluster.x-k8s.io/control-plane": ""}}),
                ctx.name,
                &check,
            )
        })
    } else {
        None
    };
    let desired_cluster = compute_cluster(cluster, &infra_cluster, &control_plane);
    let version = obj::str_at(cluster, &["spec", "topology", "version"]).to_string();
    let mut mds = Vec::new();
    if let Some(Value::Array(list)) = topo(cluster, &["workers", "machineDeployments"]) {
        for t in list {
            mds.push(machine_deployment(&ctx, bp, t, &version)?);
        }
    }
    let mut mps = Vec::new();
    if let Some(Value::Array(list)) = topo(cluster, &["workers", "machinePools"]) {
        for t in list {
            mps.push(machine_pool(&ctx, bp, t, &version)?);
        }
    }
    Ok(Desired {
        cluster: desired_cluster,
        infra_cluster,
        control_plane,
        cp_infra_template,
        cp_mhc,
        mds,
        mps,
    })
}

fn cc_ref<'a>(bp: &'a Blueprint, path: &[&str]) -> (&'a str, &'a str, &'a str) {
    let r = obj::get(&bp.cc, path).unwrap_or(&Value::Null);
    (
        obj::str_at(r, &["apiVersion"]),
        obj::str_at(r, &["kind"]),
        obj::str_at(r, &["name"]),
    )
}

/// The name of an object the Cluster already references (R1.6).
fn current_ref_name<'a>(cluster: &'a Value, field: &str) -> Option<&'a str> {
    Some(obj::str_at(cluster, &["spec", field, "name"])).filter(|n| !n.is_empty())
}
/// The kind `templateToObject` gives the object cloned from `t`.
fn object_kind(t: &Value) -> String {
    match obj::str_at(t, &["spec", "template", "kind"]) {
        "" => {
            let k = obj::kind(t);
            k.strip_suffix("Template").unwrap_or(k).to_string()
        }
        k => k.to_string(),
    }
}

/// A number read from YAML (f64) as the integer Go stored it.
pub fn int_value(v: &Value) -> Value {
    match v.as_f64() {
        Some(f) if f.fract() == 0.0 => Value::from(f as i64),
        _ => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mhc_check_selection() {
        let class = json!({"unhealthyConditions": [{"type": "Ready"}]});
        assert!(check_for(None, Some(&class)).is_some());
        assert!(check_for(Some(&json!({"enable": false})), Some(&class)).is_none());
        assert!(check_for(Some(&json!({"enable": true})), None).is_none());
        let t = json!({"maxUnhealthy": "40%"});
        assert_eq!(check_for(Some(&t), Some(&class)), Some(t.clone()));
    }

    #[test]
    fn mhc_gets_webhook_defaults() {
        let target = json!({"metadata": {"name": "c-x", "namespace": "ns"}});
        let m = mhc(
            &target,
            json!({}),
            "c",
            &json!({"remediationTemplate": {"name": "r"}}),
        );
        assert_eq!(m["spec"]["maxUnhealthy"], "100%");
        assert_eq!(m["spec"]["nodeStartupTimeout"], "10m0s");
        assert_eq!(m["spec"]["remediationTemplate"]["namespace"], "ns");
        assert_eq!(m["metadata"]["labels"][CLUSTER_NAME_LABEL], "c");
    }

    #[test]
    fn int_value_turns_integral_floats_into_integers() {
        assert_eq!(int_value(&json!(3.0)), json!(3));
        assert_eq!(int_value(&json!(1.5)), json!(1.5));
    }
}
