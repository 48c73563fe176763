//! ClusterClass variables (topology.md §5): `status.variables` from `spec.variables`,
//! structural-schema defaulting and validation, CEL `x-kubernetes-validations`.
//!
//! One file per purpose: `status` (status.variables), `schema` (the typed schema),
//! `index` (value/definition indexes), `defaulting`, `openapi` + `composition` +
//! `formats` + `crate::go::regex` (schema checks), `unknown_fields` (the pruning check), `cel/` (rules),
//! `validation` (the per-list orchestration), `definitions` + `structural` +
//! `metadata` (ClusterClass-side rules) and `field_error` (Go's texts; Go's JSON is
//! [`crate::go::json`]).
//!
//! For the topology engine: compute `status_variables(cc)` once, run
//! `validate_cluster_class_variables(cc)` (or merge `definitions::variable_definition_errors`
//! into the ClusterClass webhook's list), then `default_and_validate_cluster_variables`
//! on the Cluster — it is the Cluster webhook's `Default` for variables: defaulting and
//! validation errors are reported together, after which the Cluster holds the defaulted
//! variables. Errors are clusterctl's texts below "failed to run defaulting and
//! validation on Clusters: "; warnings name what capi-render could not check.

pub mod cel;
pub mod defaulting;
pub mod definitions;
pub mod field_error;
pub mod field_path;
pub mod formats;
pub mod index;
pub mod metadata;
pub mod openapi;
pub mod schema;
pub mod status;
pub mod structural;
pub mod unknown_fields;
pub mod validation;

use crate::model::pointer::Pointer as _;
use serde_json::Value;

use crate::error::{Error, Result};
use field_error::{invalid_object_message, key, FieldError};

pub use definitions::validate_cluster_class_variables;

/// `status.variables` of a v1beta1 ClusterClass computed from its `spec.variables`
/// (the ClusterClass reconciler, topology.md §5.1): a JSON array.
pub fn status_variables(cluster_class: &Value) -> Result<Value> {
    status::status_variables(cluster_class)
}

const CP_OVERRIDES: &str = "spec.topology.controlPlane.variables.overrides";
const TOPOLOGY_VARIABLES: &str = "spec.topology.variables";

/// The definitions of `status.variables`, indexed (once per ClusterClass: a prepared
/// class holds them for its Clusters).
pub fn definitions_of(status_variables: &Value) -> index::Definitions {
    index::Definitions::new(list_at(status_variables, ""))
}

fn list_at<'a>(v: &'a Value, pointer: &str) -> &'a [Value] {
    v.ptr(pointer)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The worker override lists: (JSON pointer to the list, field path), in topology order.
fn worker_override_lists(cluster: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (kind, field) in [
        ("machineDeployments", "machineDeployments"),
        ("machinePools", "machinePools"),
    ] {
        for (i, w) in list_at(cluster, &format!("/spec/topology/workers/{kind}"))
            .iter()
            .enumerate()
        {
            let name = w.get("name").and_then(Value::as_str).unwrap_or("");
            out.push((
                format!("/spec/topology/workers/{kind}/{i}/variables/overrides"),
                format!(
                    "{}.variables.overrides",
                    key(&format!("spec.topology.workers.{field}"), name)
                ),
            ));
        }
    }
    out
}

/// CAPI's webhook `DefaultVariables`: defaults `spec.topology.variables` (creating
/// variables with a top-level default) and the non-empty override lists of the control
/// plane, MachineDeployments and MachinePools (never creating). Returns the field errors;
/// a list with errors is left unchanged.
pub fn default_variables(cluster: &mut Value, status_variables: &Value) -> Vec<FieldError> {
    default_lists(cluster, &definitions_of(status_variables)).0
}

/// `default_variables`, also returning the JSON pointers of the lists whose defaulting
/// failed (those keep the user's input, where `value: null` has no raw bytes).
fn default_lists(cluster: &mut Value, defs: &index::Definitions) -> (Vec<FieldError>, Vec<String>) {
    let mut errs = Vec::new();
    let mut failed = Vec::new();
    let topology_values = index::strip_null_values(list_at(cluster, "/spec/topology/variables"));
    match defaulting::default_variables(&topology_values, defs, true, TOPOLOGY_VARIABLES) {
        Ok(v) => {
            if let Some(t) = cluster
                .ptr_mut("/spec/topology")
                .and_then(Value::as_object_mut)
            {
                t.insert("variables".into(), Value::Array(v));
            }
        }
        Err(e) => {
            errs.extend(e);
            failed.push("/spec/topology/variables".to_string());
        }
    }
    let mut lists = vec![(
        "/spec/topology/controlPlane/variables/overrides".to_string(),
        CP_OVERRIDES.to_string(),
    )];
    lists.extend(worker_override_lists(cluster));
    for (pointer, path) in lists {
        let values = index::strip_null_values(list_at(cluster, &pointer));
        if values.is_empty() {
            continue;
        }
        match defaulting::default_variables(&values, defs, false, &path) {
            Ok(v) => {
                if let Some(slot) = cluster.ptr_mut(&pointer) {
                    *slot = Value::Array(v);
                }
            }
            Err(e) => {
                errs.extend(e);
                failed.push(pointer);
            }
        }
    }
    (errs, failed)
}

/// The validation half of CAPI's `DefaultAndValidateVariables`: topology variables
/// (with required checks), then the control-plane, MachineDeployment and MachinePool
/// overrides (without).
pub fn validate_variables(cluster: &Value, status_variables: &Value) -> validation::Report {
    validate_lists(cluster, &definitions_of(status_variables))
}

fn validate_lists(cluster: &Value, defs: &index::Definitions) -> validation::Report {
    let mut report = validation::validate_variables(
        list_at(cluster, "/spec/topology/variables"),
        defs,
        true,
        TOPOLOGY_VARIABLES,
    );
    let mut lists = vec![(
        "/spec/topology/controlPlane/variables/overrides".to_string(),
        CP_OVERRIDES.to_string(),
    )];
    lists.extend(worker_override_lists(cluster));
    for (pointer, path) in lists {
        let values = list_at(cluster, &pointer);
        if values.is_empty() {
            continue;
        }
        let r = validation::validate_variables(values, defs, false, &path);
        report.errors.extend(r.errors);
        report.warnings.extend(r.warnings);
    }
    report
}

fn cluster_name(cluster: &Value) -> (&str, &str) {
    let md = |k: &str| {
        cluster
            .ptr(&format!("/metadata/{k}"))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    (md("namespace"), md("name"))
}

/// The error the Cluster webhook's `Default` returns, wrapped as clusterctl's plan
/// wraps it: `failed defaulting of cluster.x-k8s.io/v1beta1, Kind=Cluster ns/name:
/// Cluster.cluster.x-k8s.io "name" is invalid: [...]`.
pub fn cluster_webhook_error(cluster: &Value, errs: &[FieldError]) -> Error {
    let (ns, name) = cluster_name(cluster);
    let api_version = cluster
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("cluster.x-k8s.io/v1beta1");
    Error::new(invalid_object_message(
        "Cluster.cluster.x-k8s.io",
        name,
        errs,
    ))
    .wrap(format!(
        "failed defaulting of {api_version}, Kind=Cluster {ns}/{name}"
    ))
}

/// Webhook-equivalent defaulting of a Cluster's `spec.topology.variables` and of the
/// per-MachineDeployment/MachinePool overrides against the ClusterClass's
/// `status.variables`. Mutates `cluster`.
pub fn default_cluster_variables(cluster: &mut Value, status_variables: &Value) -> Result<()> {
    let errs = default_variables(cluster, status_variables);
    if errs.is_empty() {
        Ok(())
    } else {
        Err(cluster_webhook_error(cluster, &errs))
    }
}

/// Webhook-equivalent validation of a Cluster's variables (types, schema, CEL). Errors
/// name the Cluster, the variable and the schema path; returns warnings (e.g. an
/// unsupported CEL function) that must be shown to the user.
pub fn validate_cluster_variables(
    cluster: &Value,
    status_variables: &Value,
) -> Result<Vec<String>> {
    let report = validate_variables(cluster, status_variables);
    if report.errors.is_empty() {
        Ok(report.warnings)
    } else {
        Err(cluster_webhook_error(cluster, &report.errors))
    }
}

/// Both steps as the Cluster webhook's `Default` runs them (`DefaultAndValidateVariables`):
/// defaulting errors and validation errors are reported together in one message.
/// Returns the warnings.
pub fn default_and_validate_cluster_variables(
    cluster: &mut Value,
    defs: &index::Definitions,
) -> Result<Vec<String>> {
    let (errs, warnings) = default_and_validate_errors(cluster, defs);
    if errs.is_empty() {
        Ok(warnings)
    } else {
        Err(cluster_webhook_error(cluster, &errs))
    }
}

/// [`default_and_validate_cluster_variables`] returning Go's field errors themselves
/// (defaulting's, then validation's) and the warnings, for callers that print the
/// refusal their own way (the v1.14.2 admission of [`crate::admission::cluster`]).
pub fn default_and_validate_errors(
    cluster: &mut Value,
    defs: &index::Definitions,
) -> (Vec<FieldError>, Vec<String>) {
    let (mut errs, failed) = default_lists(cluster, defs);
    // Validation sees the failed lists as Go decodes user input (a copy of the Cluster
    // only when there is one).
    let mut view = std::borrow::Cow::Borrowed(&*cluster);
    for pointer in failed {
        if let Some(slot) = view.to_mut().ptr_mut(&pointer) {
            let stripped =
                index::strip_null_values(slot.as_array().map(Vec::as_slice).unwrap_or(&[]));
            *slot = Value::Array(stripped);
        }
    }
    let report = validate_lists(&view, defs);
    errs.extend(report.errors);
    (errs, report.warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn class() -> Value {
        json!({"spec": {"variables": [
            {"name": "n", "required": true, "schema": {"openAPIV3Schema": {"type": "integer", "maximum": 5}}},
            {"name": "o", "schema": {"openAPIV3Schema": {"type": "object", "default": {}, "properties": {"a": {"type": "string", "default": "x"}}}}}
        ]}})
    }

    #[test]
    fn defaults_topology_and_overrides() {
        let status = status_variables(&class()).unwrap();
        let mut c = json!({"metadata": {"name": "c1", "namespace": "default"}, "spec": {"topology": {
            "variables": [{"name": "n", "value": 1}],
            "workers": {"machineDeployments": [{"name": "md-0", "variables": {"overrides": [{"name": "o", "value": {}}]}}, {"name": "md-1"}]}}}});
        let warnings =
            default_and_validate_cluster_variables(&mut c, &definitions_of(&status)).unwrap();
        assert!(warnings.is_empty());
        assert_eq!(
            c.ptr("/spec/topology/variables").unwrap(),
            &json!([{"name": "n", "value": 1}, {"name": "o", "value": {"a": "x"}}])
        );
        assert_eq!(
            c.ptr("/spec/topology/workers/machineDeployments/0/variables/overrides")
                .unwrap(),
            &json!([{"name": "o", "value": {"a": "x"}}])
        );
        assert!(c
            .ptr("/spec/topology/workers/machineDeployments/1/variables")
            .is_none());
    }

    #[test]
    fn errors_name_the_cluster_variable_and_path() {
        let status = status_variables(&class()).unwrap();
        let mut c = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "metadata": {"name": "c1", "namespace": "default"}, "spec": {"topology": {
            "variables": [{"name": "n", "value": 7}],
            "workers": {"machineDeployments": [{"name": "md-0", "variables": {"overrides": [{"name": "n", "value": "x"}]}}]}}}});
        let err =
            default_and_validate_cluster_variables(&mut c, &definitions_of(&status)).unwrap_err();
        assert_eq!(
            err.message(),
            "failed defaulting of cluster.x-k8s.io/v1beta1, Kind=Cluster default/c1: Cluster.cluster.x-k8s.io \"c1\" is invalid: [spec.topology.variables[n].value: Invalid value: \"7\": should be less than or equal to 5, spec.topology.workers.machineDeployments[md-0].variables.overrides[n].value: Invalid value: \"\\\"x\\\"\": must be of type integer: \"string\"]"
        );
        assert!(validate_cluster_variables(&c, &status).is_err());
        let mut missing = json!({"metadata": {"name": "c1"}, "spec": {"topology": {}}});
        assert!(default_cluster_variables(&mut missing, &status).is_ok());
        let err = validate_cluster_variables(&missing, &status).unwrap_err();
        assert!(
            err.message().ends_with(
                "spec.topology.variables: Required value: required variable \"n\" must be set"
            ),
            "{}",
            err.message()
        );
    }
}
