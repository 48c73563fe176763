//! ClusterClass topologies: the topology controller's desired state for Clusters with
//! `spec.topology` (shared/spec/topology.md), as `clusterctl alpha topology plan`
//! v1.10.10 computes and writes it.
//!
//! Pipeline: [`input`] (validation, namespaces, webhook defaults) → [`variables`]
//! (status, defaulting, validation) → [`blueprint`] (the class and its templates) →
//! [`desired`] (objects, [`names`], [`clone`], [`builtins`]) → [`patches`] → [`dryrun`]
//! (what the dry-run client stores) → [`plan`] (files and summary).
//!
//! `cluster.x-k8s.io/v1beta2` Clusters render through [`v1beta2`] (converted to v1beta1
//! around the same pipeline, with HEAD's builtin variables); `topology plan` is
//! v1beta1-only.

pub mod blueprint;
pub mod builtins;
pub mod clone;
pub mod desired;
pub mod desired_view;
pub mod diff;
pub mod dryrun;
pub mod input;
pub mod mergepatch;
pub mod metadata_validation;
pub mod mhc_validation;
pub mod names;
pub mod obj;
pub mod patches;
pub mod plan;
pub mod v1beta2;
pub mod variables;
pub mod webhooks;

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
pub fn find_class<'a>(cluster: &Value, inputs: &'a [Value]) -> Option<&'a Value> {
    let class = obj::str_at(cluster, &["spec", "topology", "class"]);
    let ns = class_namespace(cluster);
    inputs
        .iter()
        .find(|o| input::is_cluster_class(o) && obj::name(o) == class && obj::namespace(o) == ns)
}

fn class_namespace(cluster: &Value) -> &str {
    match obj::str_at(cluster, &["spec", "topology", "classNamespace"]) {
        "" => obj::namespace(cluster),
        n => n,
    }
}

const WEBHOOKS: &str = "failed defaulting and validation on input objects";
const RECONCILE: &str = "failed to dry run the topology controller";

/// The webhooks' defaulting and validation of the ClusterClass and the Cluster
/// (clusterctl's `runDefaultAndValidationWebhooks`): the defaulted ClusterClass (if
/// any) and Cluster.
pub fn default_and_validate(cluster: &Value, inputs: &[Value]) -> Result<(Option<Value>, Value)> {
    let mut cc = find_class(cluster, inputs).cloned();
    if let Some(cc) = cc.as_mut() {
        default_and_validate_class(cc, inputs)?;
        // The ClusterClass controller's dry-run client holds every input object; adding
        // the Cluster decodes it into the Go struct (int32 ranges, JSON types).
        // clusterctl panics here; we return its message as an error.
        crate::typed::json_decode_check(cluster).map_err(|e| {
            e.wrap(format!(
                "failed to unmarshal the content of *unstructured.Unstructured into *v1beta1.{}",
                obj::kind(cluster)
            ))
            .wrap(format!(
                "failed to add object {} {}/{} to fake client",
                obj::kind(cluster),
                obj::namespace(cluster),
                obj::name(cluster)
            ))
        })?;
    }
    let on_clusters = |e: Error| {
        e.wrap("failed to run defaulting and validation on Clusters")
            .wrap(WEBHOOKS)
    };
    let mut c = cluster.clone();
    input::default_cluster(&mut c).map_err(on_clusters)?;
    if let Some(cc) = cc.as_ref() {
        let status = variables::status_variables(cc).map_err(|e| cc_reconcile_error(cc, e))?;
        variables::default_and_validate_cluster_variables(&mut c, &status).map_err(on_clusters)?;
    }
    webhooks::validate_cluster(&c, cc.as_ref()).map_err(on_clusters)?;
    Ok((cc, c))
}

/// The ClusterClass webhook (defaulting, validation) and the ClusterClass controller's
/// reference check on one input ClusterClass, as clusterctl runs them on every
/// ClusterClass of the input, with or without a Cluster.
pub fn default_and_validate_class(cc: &mut Value, inputs: &[Value]) -> Result<()> {
    input::default_cluster_class(cc);
    webhooks::validate_cluster_class(cc).map_err(|e| {
        e.wrap("failed to run defaulting and validation on ClusterClasses")
            .wrap(WEBHOOKS)
    })?;
    blueprint::check_references(cc, inputs).map_err(|e| {
        cc_reconcile_error(cc, e.wrap("failed to dry run the ClusterClass controller"))
    })
}

fn cc_reconcile_error(cc: &Value, e: Error) -> Error {
    e.wrap(format!(
        "ClusterClass {} could not be reconciled for dry run",
        obj::name(cc)
    ))
    .wrap("failed to reconcile ClusterClasses for defaulting and validating")
    .wrap(WEBHOOKS)
}

/// Plan one Cluster (namespaces already set) against the ClusterClasses and templates
/// in `inputs`: webhooks, then the topology reconcile.
pub fn plan_cluster(cluster: &Value, inputs: &[Value]) -> Result<ClusterPlan> {
    plan_cluster_with(cluster, inputs, false)
}

/// [`plan_cluster`], with HEAD's builtin variables when `head_builtins` (v1beta2
/// Clusters converted by [`v1beta2`]).
pub(crate) fn plan_cluster_with(
    cluster: &Value,
    inputs: &[Value],
    head_builtins: bool,
) -> Result<ClusterPlan> {
    let (cc, c) = default_and_validate(cluster, inputs)?;
    let cc = cc.ok_or_else(|| {
        let name = obj::str_at(&c, &["spec", "topology", "class"]);
        Error::new(format!(
            "failed to retrieve ClusterClass {}/{name}: clusterclasses.cluster.x-k8s.io {name:?} not found",
            class_namespace(&c)
        ))
        .wrap(RECONCILE)
    })?;
    reconcile(&c, &cc, inputs, head_builtins).map_err(|e| e.wrap(RECONCILE))
}

/// `getCurrentState` for the objects a Cluster already references. capi-render plans
/// new Clusters only: an existing, topology-owned object is reported as unsupported.
fn current_state(c: &Value, inputs: &[Value]) -> Result<()> {
    for field in ["infrastructureRef", "controlPlaneRef"] {
        let Some(r) =
            obj::get(c, &["spec", field]).filter(|r| !obj::str_at(r, &["name"]).is_empty())
        else {
            continue;
        };
        let kind = obj::str_at(r, &["kind"]);
        let key = format!(
            "{}/{}",
            obj::str_at(r, &["namespace"]),
            obj::str_at(r, &["name"])
        );
        let found = blueprint::resolve(inputs, r, obj::namespace(c)).map_err(|e| {
            let inner = e.message().split_once(": ").map(|x| x.1).unwrap_or("").to_string();
            Error::new(format!(
                "failed to read {kind} {key}: failed to retrieve {kind} {key}: failed to retrieve {kind} {key}: {inner}"
            ))
        })?;
        if obj::get(&found, &["metadata", "labels", clone::OWNED_LABEL]).is_none() {
            return Err(Error::new(format!(
                "{kind} {key} referenced from Cluster {}/{} is not topology owned",
                obj::namespace(c),
                obj::name(c)
            )));
        }
        return Err(Error::new(format!(
            "{kind} {key} already exists: capi-render plans new Clusters only (changes to existing topology objects are not supported)"
        )));
    }
    Ok(())
}

fn reconcile(c: &Value, cc: &Value, inputs: &[Value], head_builtins: bool) -> Result<ClusterPlan> {
    current_state(c, inputs)
        .map_err(|e| e.wrap("error reading current state of the Cluster topology"))?;
    let desired_err =
        |e: Error| e.wrap("error computing the desired state of the Cluster topology");
    let mut bp = blueprint::Blueprint::load(cc, inputs)
        .map_err(|e| e.wrap("error reading the ClusterClass"))?;
    bp.head_builtins = head_builtins;
    let mut d = desired::compute(c, &bp).map_err(desired_err)?;
    patches::apply(&mut d, &bp, c).map_err(|e| desired_err(e.wrap("failed to apply patches")))?;
    if obj::name(c).is_empty() {
        // The dry-run client's object tracker refuses to patch a Cluster without a name
        // (twice: the patch helper retries).
        let one = format!(
            "failed to patch Cluster {}/: Cluster.cluster.x-k8s.io \"\" is invalid: metadata.name: Required value: name is required",
            obj::namespace(c)
        );
        let first = one.replacen(
            ": Cluster.cluster.x-k8s.io",
            ": failed to ensure object is available in fake object tracker: failed to add object to fake object tracker: Cluster.cluster.x-k8s.io",
            1,
        );
        return Err(Error::new(format!(
            "[error reconciling the Cluster topology: {first}, {one}]"
        )));
    }
    let created = dryrun::created(&d, c)?;
    let before = dryrun::cluster_before(c)?;
    let after = dryrun::cluster_after(&before, &d.cluster)?;
    Ok(ClusterPlan {
        created,
        cluster_before: before,
        cluster_after: after,
    })
}

/// The desired objects of one Cluster in a stable order: the created objects sorted by
/// kind and name (the plan's order), then the reconciled Cluster.
/// A `cluster.x-k8s.io/v1beta2` Cluster renders with HEAD semantics ([`v1beta2`]).
pub fn render_cluster(cluster: &Value, inputs: &[Value]) -> Result<Vec<Value>> {
    if v1beta2::is_cluster(cluster) {
        return v1beta2::render_cluster(cluster, inputs);
    }
    v1beta2::check_v1beta1_cluster_class(cluster, inputs)?;
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
    let any_cluster = |o: &Value| input::is_cluster(o) || v1beta2::is_cluster(o);
    for c in objs.iter().filter(|o| any_cluster(o)) {
        if obj::get(c, &["spec", "topology"]).is_none_or(Value::is_null) {
            continue;
        }
        let ns = obj::namespace(c);
        let same_ns: Vec<Value> = objs
            .iter()
            .filter(|o| obj::namespace(o) == ns && !any_cluster(o))
            .cloned()
            .collect();
        let key = format!("{ns}/{}", obj::name(c));
        let rendered = render_cluster(c, &same_ns).map_err(|e| e.wrap(format!("Cluster {key}")))?;
        out.push((key, rendered));
    }
    Ok(out)
}
