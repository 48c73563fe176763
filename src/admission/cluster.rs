//! Cluster API v1.14.2's Cluster webhook (`core/webhooks/admission/cluster.go`) on a
//! `cluster.x-k8s.io/v1beta2` Cluster: defaulting ([`default`]), then validation on
//! create ([`validate_create`], Go's `validate(ctx, nil, cluster)`), against the
//! Cluster's ClusterClass as the ClusterClass controller left it.
//!
//! Offline, the class lookup (`pollClusterClassForCluster`) is the class given: `None`
//! is "not found" (the webhook's warning; no variable defaulting, no class rules), and a
//! class its controller does not reconcile ([`Class::reconciled`]: paused, or variables
//! it cannot compute or that conflict) is used by validation with the webhook's warning
//! but not by defaulting. The feature gates are those of [`topology::MACHINE_TAINT_PROPAGATION`]
//! and `ClusterTopology=true`. The rules of an update (an old Cluster) are not run:
//! capi-render renders new Clusters.
//!
//! Submodules: [`gotypes`] (Go's view of a decoded field), [`labels`] (apimachinery
//! v0.36.3's label checks), [`topology`] (the class-free topology rules), [`checks`]
//! (the rules that read the class).

pub mod checks;
pub mod gotypes;
pub mod labels;
pub mod topology;

use serde_json::Value;

use crate::model::object as obj;
use crate::topology::variables::field_error::{
    index as at_index, invalid_object_message, BadValue, FieldError,
};
use crate::topology::variables::index::Definitions;

/// The qualified kind `apierrors.NewInvalid` names.
pub const QUALIFIED_KIND: &str = "Cluster.cluster.x-k8s.io";

/// The annotation that pauses a controller's reconcile of an object
/// (`annotations.HasPaused`: present, whatever its value).
const PAUSED: &str = "cluster.x-k8s.io/paused";

/// A ClusterClass as the Cluster webhook finds it, prepared once for all its Clusters.
pub struct Class<'a> {
    /// The admitted (defaulted) ClusterClass.
    pub cc: &'a Value,
    /// `clusterClassIsReconciled`: the controller reconciled it (observed generation,
    /// `VariablesReady` true). Offline: not paused, and its status variables computed
    /// without conflict. A caller that knows more (e.g. a template reference that does
    /// not resolve, which fails the controller's reconcile) sets it to false.
    pub reconciled: bool,
    /// `status.variables`, indexed (`None` when they could not be computed).
    definitions: Option<Definitions>,
}

impl<'a> Class<'a> {
    pub fn new(cc: &'a Value) -> Self {
        let status = status_variables(cc);
        let conflict = status
            .as_ref()
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|v| v.get("definitionsConflict") == Some(&Value::Bool(true)));
        let paused = obj::get(cc, &["metadata", "annotations", PAUSED]).is_some();
        Class {
            cc,
            reconciled: !paused && status.is_some() && !conflict,
            definitions: status
                .as_ref()
                .map(crate::topology::variables::definitions_of),
        }
    }
}

/// The class's `status.variables`: those the admitted class carries (set by the
/// ClusterClass stage), else computed from its inline `spec.variables` as the v1beta2
/// render path computes them. `None`: they cannot be computed (the controller fails).
pub fn status_variables(cc: &Value) -> Option<Value> {
    match obj::get(cc, &["status", "variables"]) {
        Some(v @ Value::Array(_)) => Some(v.clone()),
        _ => crate::topology::variables::status_variables(cc).ok(),
    }
}

/// The webhook's refusal as Go prints it: `apierrors.NewInvalid(...).Error()`.
pub fn refusal(cluster: &Value, errs: &[FieldError]) -> String {
    invalid_object_message(QUALIFIED_KIND, obj::name(cluster), errs)
}

/// `GetClassKey().String()`: `namespace/name`, the namespace `classRef.namespace` or
/// the Cluster's.
fn class_key(cluster: &Value) -> String {
    let ns = match obj::str_at(cluster, &["spec", "topology", "classRef", "namespace"]) {
        "" => obj::namespace(cluster),
        ns => ns,
    };
    let name = obj::str_at(cluster, &["spec", "topology", "classRef", "name"]);
    format!("{ns}/{name}")
}

/// The Cluster defaulting webhook of v1.14.2 on a v1beta2 Cluster (in place), against
/// its admitted class (defaulted, with `status.variables`) if found. Err: the webhook's
/// refusal as Go prints it (the `apierrors.NewInvalid` message).
pub fn default(cluster: &mut Value, class: Option<&Value>) -> Result<(), String> {
    let class = class.map(Class::new);
    default_with(cluster, class.as_ref()).0
}

/// [`default`] with the class prepared once; also returns the warnings of variable
/// validation (what capi-render could not check, e.g. an unsupported CEL function).
pub fn default_with(
    cluster: &mut Value,
    class: Option<&Class>,
) -> (Result<(), String>, Vec<String>) {
    if !gotypes::topology_is_defined(cluster) {
        return (Ok(()), Vec::new());
    }
    let version = obj::str_at(cluster, &["spec", "topology", "version"]);
    if !version.starts_with('v') {
        let v = format!("v{version}");
        obj::set(cluster, &["spec", "topology", "version"], Value::String(v));
    }
    if obj::str_at(cluster, &["spec", "topology", "classRef", "name"]).is_empty() {
        let e = FieldError::required("spec.topology.classRef.name", "cannot be empty");
        return (Err(refusal(cluster, &[e])), Vec::new());
    }
    // Not found or not reconciled: variables are neither defaulted nor validated.
    let Some(defs) = class
        .filter(|c| c.reconciled)
        .and_then(|c| c.definitions.as_ref())
    else {
        return (Ok(()), Vec::new());
    };
    drop_definition_from(cluster);
    let (errs, warnings) = crate::topology::variables::default_and_validate_errors(cluster, defs);
    if errs.is_empty() {
        (Ok(()), warnings)
    } else {
        (Err(refusal(cluster, &errs)), warnings)
    }
}

/// v1beta1's `definitionFrom` is no field of a v1beta2 ClusterVariable: decoding drops
/// it (the CRD stage has refused or pruned it already), so v1.14.2 never checks it.
fn drop_definition_from(cluster: &mut Value) {
    use crate::model::pointer::Pointer as _;
    let mut pointers = vec![
        "/spec/topology/variables".to_string(),
        "/spec/topology/controlPlane/variables/overrides".to_string(),
    ];
    for kind in ["machineDeployments", "machinePools"] {
        for i in 0..topology::workers(cluster, kind).len() {
            pointers.push(format!(
                "/spec/topology/workers/{kind}/{i}/variables/overrides"
            ));
        }
    }
    for p in pointers {
        if let Some(Value::Array(list)) = cluster.ptr_mut(&p) {
            for var in list.iter_mut().filter_map(Value::as_object_mut) {
                var.remove("definitionFrom");
            }
        }
    }
}

/// The Cluster validating webhook of v1.14.2 on create (no old Cluster): errors in Go's
/// order (empty: admitted), and its warnings.
pub fn validate_create(cluster: &Value, class: Option<&Value>) -> (Vec<FieldError>, Vec<String>) {
    let class = class.map(Class::new);
    validate_create_with(cluster, class.as_ref())
}

/// [`validate_create`] with the class prepared once.
pub fn validate_create_with(
    cluster: &Value,
    class: Option<&Class>,
) -> (Vec<FieldError>, Vec<String>) {
    let mut errs = Vec::new();
    let mut warnings = Vec::new();
    // The Cluster name is used as a label value.
    let name = obj::name(cluster);
    for m in labels::label_value_errors(name) {
        errs.push(FieldError::invalid(
            "metadata.name",
            BadValue::Str(name.into()),
            format!("must be a valid label value {m}"),
        ));
    }
    let topology_defined = gotypes::topology_is_defined(cluster);
    if !gotypes::contract_ref_is_defined(obj::get(cluster, &["spec", "controlPlaneRef"]))
        && !gotypes::contract_ref_is_defined(obj::get(cluster, &["spec", "infrastructureRef"]))
        && !topology_defined
    {
        errs.push(FieldError::forbidden(
            "spec",
            "one of spec.controlPlaneRef, spec.infrastructureRef or spec.topology must be set",
        ));
    }
    for part in ["pods", "services"] {
        errs.extend(cidr_block_errors(cluster, part));
    }
    if topology_defined {
        validate_topology(cluster, class, &mut errs, &mut warnings);
    }
    (errs, warnings)
}

/// `validateCIDRBlocks` on `spec.clusterNetwork.<part>.cidrBlocks`.
fn cidr_block_errors(cluster: &Value, part: &str) -> Vec<FieldError> {
    let path = format!("spec.clusterNetwork.{part}.cidrBlocks");
    obj::get(cluster, &["spec", "clusterNetwork", part, "cidrBlocks"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, b)| {
            let b = b.as_str().unwrap_or("");
            (!gotypes::is_go_cidr(b)).then(|| {
                FieldError::invalid(
                    &at_index(&path, i),
                    BadValue::Str(b.into()),
                    format!("invalid CIDR address: {b}"),
                )
            })
        })
        .collect()
}

/// `validateTopology` on create (the `ClusterTopology` gate on).
fn validate_topology(
    cluster: &Value,
    class: Option<&Class>,
    errs: &mut Vec<FieldError>,
    warnings: &mut Vec<String>,
) {
    if obj::str_at(cluster, &["spec", "topology", "classRef", "name"]).is_empty() {
        errs.push(FieldError::required(
            "spec.topology.class",
            "classRef.name cannot be empty",
        ));
        return;
    }
    errs.extend(topology::version_errors(cluster));
    errs.extend(topology::metadata_errors(cluster));
    errs.extend(topology::rollout_errors(cluster));
    errs.extend(topology::taint_errors(cluster));
    errs.extend(topology::upgrade_concurrency_errors(cluster));
    let key = class_key(cluster);
    match class {
        None => warnings.push(format!(
            "Cluster refers to ClusterClass {key}, but this ClusterClass does not exist. Cluster topology has not been fully validated. The ClusterClass must be created to reconcile the Cluster"
        )),
        Some(c) if !c.reconciled => warnings.push(format!(
            "Cluster refers to ClusterClass {key}, but this ClusterClass hasn't been successfully reconciled. Cluster topology has not been fully validated. Please take a look at the ClusterClass status"
        )),
        Some(_) => {}
    }
    if let Some(c) = class {
        errs.extend(checks::cluster_for_class_errors(cluster, c.cc));
    }
    errs.extend(checks::autoscaler_errors(cluster, class.map(|c| c.cc)));
}

#[cfg(test)]
#[path = "cluster/tests.rs"]
mod tests;
