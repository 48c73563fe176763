//! ClusterClass topologies: the topology controller's desired state for Clusters with
//! `spec.topology` (shared/spec/topology.md), as `clusterctl alpha topology plan`
//! v1.10.10 computes and writes it.
//!
//! Pipeline: [`input`] (validation, namespaces, webhook defaults) → [`variables`]
//! (status, defaulting, validation) → [`blueprint`] (the class and its templates) →
//! [`desired`] (objects, [`names`], [`clone`], [`builtins`]) → [`patches`] → [`dryrun`]
//! (what the dry-run client stores) → [`plan`] (files and summary).

pub mod blueprint;
pub mod builtins;
pub mod clone;
pub mod desired;
pub mod diff;
pub mod dryrun;
pub mod input;
pub mod mergepatch;
pub mod names;
pub mod obj;
pub mod patches;
pub mod plan;
pub mod variables;

use serde_json::Value;

use crate::error::{Error, Result};

/// One Cluster's plan: the objects the reconcile creates and the Cluster before and
/// after it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterPlan {
    pub created: Vec<Value>,
    pub cluster_before: Value,
    pub cluster_after: Value,
}

/// The ClusterClass a Cluster uses, among `inputs`.
pub fn find_class<'a>(cluster: &Value, inputs: &'a [Value]) -> Result<&'a Value> {
    let class = obj::str_at(cluster, &["spec", "topology", "class"]);
    let ns = match obj::str_at(cluster, &["spec", "topology", "classNamespace"]) {
        "" => obj::namespace(cluster),
        n => n,
    };
    inputs
        .iter()
        .find(|o| input::is_cluster_class(o) && obj::name(o) == class && obj::namespace(o) == ns)
        .ok_or_else(|| {
            Error::new(format!(
                "Cluster.cluster.x-k8s.io {:?} is invalid: spec.topology.class: Invalid value: {class:?}: Cluster refers to ClusterClass {ns}/{class}, but this ClusterClass does not exist",
                obj::name(cluster)
            ))
        })
}

/// Plan one Cluster (namespaces already set) against the ClusterClasses and templates
/// in `inputs`.
pub fn plan_cluster(cluster: &Value, inputs: &[Value]) -> Result<ClusterPlan> {
    let mut cc = find_class(cluster, inputs)?.clone();
    input::default_cluster_class(&mut cc);
    let status = variables::status_variables(&cc)?;
    let mut c = cluster.clone();
    input::default_cluster(&mut c)?;
    variables::default_cluster_variables(&mut c, &status)?;
    variables::validate_cluster_variables(&c, &status)?;
    let bp = blueprint::Blueprint::load(&cc, inputs)?;
    let mut d = desired::compute(&c, &bp)?;
    patches::apply(&mut d, &bp, &c)?;
    let created = dryrun::created(&d, &c)?;
    let before = dryrun::cluster_before(&c)?;
    let after = dryrun::cluster_after(&before, &d.cluster)?;
    Ok(ClusterPlan {
        created,
        cluster_before: before,
        cluster_after: after,
    })
}

/// The desired objects of one Cluster in a stable order: the created objects sorted by
/// kind and name (the plan's order), then the reconciled Cluster.
pub fn render_cluster(cluster: &Value, inputs: &[Value]) -> Result<Vec<Value>> {
    let p = plan_cluster(cluster, inputs)?;
    let mut out = p.created;
    plan::sort_by_kind_and_name(&mut out);
    out.push(p.cluster_after);
    Ok(out)
}

/// Every topology Cluster among `objects` rendered against the ClusterClasses and
/// templates of its namespace; Clusters in input order. Objects without a namespace
/// are in `default`.
pub fn render_fleet(objects: &[Value]) -> Result<Vec<(String, Vec<Value>)>> {
    let mut objs = objects.to_vec();
    input::set_missing_namespaces(&mut objs, "");
    let mut out = Vec::new();
    for c in objs.iter().filter(|o| input::is_cluster(o)) {
        if obj::get(c, &["spec", "topology"]).is_none_or(Value::is_null) {
            continue;
        }
        let ns = obj::namespace(c);
        let same_ns: Vec<Value> = objs
            .iter()
            .filter(|o| obj::namespace(o) == ns && !input::is_cluster(o))
            .cloned()
            .collect();
        let key = format!("{ns}/{}", obj::name(c));
        let rendered = render_cluster(c, &same_ns).map_err(|e| e.wrap(format!("Cluster {key}")))?;
        out.push((key, rendered));
    }
    Ok(out)
}
