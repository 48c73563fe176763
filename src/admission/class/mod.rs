//! Cluster API v1.14.2's ClusterClass admission (`core/webhooks/admission/clusterclass.go`)
//! on a `cluster.x-k8s.io/v1beta2` ClusterClass, given as the API server hands it to the
//! webhook (after the CRD schema: [`super::crds`], [`super::fields`]):
//! - [`default`]: v1.14.2 registers no defaulting webhook for ClusterClass (its manifests
//!   hold only `validate-cluster-x-k8s-io-v1beta2-clusterclass`), so nothing changes;
//! - [`validate_create`]: `ClusterClass.ValidateCreate`, every rule of `validate` with no
//!   old object, in Go's order: template references, worker class names, rollout, health
//!   checks, naming strategies, taints, variables, patches, metadata, `kubernetesVersions`;
//! - [`status_variables`]: what the ClusterClass controller's `reconcileVariables`
//!   (`core/reconcilers/clusterclass`) writes to `status.variables` for inline variables.
//!
//! The errors are Go's `field.Error`s with apimachinery v0.36's texts (a complex bad
//! value printed as JSON, label keys checked by `content.IsLabelKey`); refused, the
//! object's message is [`refusal`]. The update-only rules (compatibility with the old
//! class, classes and health checks in use by Clusters, Clusters' versions, autoscaler
//! annotations against Clusters' replicas) need the old object or the Clusters of the
//! management cluster and are not run: admission here is always a create.

use serde_json::Value;

use crate::topology::variables::field_error::{invalid_object_message, FieldError};

mod health;
mod json;
mod meta;
mod patches;
mod semver;
mod templates;
mod variables;

// Rules the Cluster webhook shares (taints, metadata, versions), for its port to reuse.
pub use meta::{label_key_errors, metadata_errors};
pub use semver::{compare_with_build_tags, parse_tolerant, Version};
pub use templates::machine_taints;

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod tests;

/// The feature gates the webhook reads (`feature.Gates` of v1.14.2). `ClusterTopology` is
/// always on: without it the webhook refuses every ClusterClass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gates {
    /// `RuntimeSDK` (default off): external patches are allowed.
    pub runtime_sdk: bool,
    /// `MachineTaintPropagation` (off in v1.14.2's defaults): taints may be set.
    pub machine_taint_propagation: bool,
}

impl Default for Gates {
    /// The gates the conformance oracle runs v1.14.2 with (`ClusterTopology=true,
    /// MachinePool=true, MachineTaintPropagation=true, RuntimeSDK=false`).
    fn default() -> Self {
        Gates {
            runtime_sdk: false,
            machine_taint_propagation: true,
        }
    }
}

/// The ClusterClass defaulting webhook of v1.14.2 on a v1beta2 ClusterClass (in place):
/// v1.14.2 has none, so the class is left as it is.
pub fn default(cc: &mut Value) {
    let _ = cc;
}

/// The ClusterClass validating webhook of v1.14.2 on create: its errors in Go's order
/// (empty: admitted), and its warnings (it gives none), under [`Gates::default`].
pub fn validate_create(cc: &Value) -> (Vec<FieldError>, Vec<String>) {
    validate_create_with(cc, &Gates::default())
}

/// [`validate_create`] under the given feature gates.
pub fn validate_create_with(cc: &Value, gates: &Gates) -> (Vec<FieldError>, Vec<String>) {
    let mut errs = Vec::new();
    templates::template_refs(cc, &mut errs);
    templates::unique_classes(cc, &mut errs);
    templates::rollout(cc, &mut errs);
    health::health_check_classes(cc, &mut errs);
    templates::naming_strategies(cc, &mut errs);
    templates::taints(cc, gates, &mut errs);
    errs.extend(variables::definition_errors(cc));
    patches::patches(cc, gates, &mut errs);
    meta::class_metadata(cc, &mut errs);
    semver::kubernetes_versions(cc, &mut errs);
    (errs, Vec::new())
}

/// `apierrors.NewInvalid(ClusterClass, name, errs).Error()`: the refusal as the API server
/// prints it.
pub fn refusal(cc: &Value, errs: &[FieldError]) -> String {
    invalid_object_message(
        "ClusterClass.cluster.x-k8s.io",
        crate::topology::obj::name(cc),
        errs,
    )
}

/// `status.variables` as v1.14.2's ClusterClass controller computes them (inline
/// definitions; a class with external variable discovery is not computed here).
pub fn status_variables(cc: &Value) -> Value {
    variables::status_variables(cc)
}

/// The list at `path` (empty when absent or not a list).
fn list<'a>(v: &'a Value, path: &[&str]) -> &'a [Value] {
    crate::topology::obj::get(v, path)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The string at `path` ("" when absent or not a string: Go's zero value).
fn text<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    crate::topology::obj::str_at(v, path)
}
