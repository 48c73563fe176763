//! The Cluster rules of v1.14.2 that read the ClusterClass: `ValidateClusterForClusterClass`
//! (`kubernetesVersions`, `check.Machine{Deployment,Pool}TopologiesAreValidAndDefinedInClusterClass`,
//! `validateMachineHealthChecks`) and `validateAutoscalerAnnotationsForCluster`.

use std::collections::BTreeSet;

use serde_json::Value;

use super::gotypes::{health_check_is_defined, template_ref_is_defined, IntOrString};
use super::topology::{worker_path, workers};
use crate::go::quote::quote as q;
use crate::model::object as obj;
use crate::topology::variables::field_error::{child, index, BadValue, FieldError};

/// `ValidateClusterForClusterClass`.
pub fn cluster_for_class_errors(cluster: &Value, cc: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let versions = obj::get(cc, &["spec", "kubernetesVersions"])
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let version = obj::str_at(cluster, &["spec", "topology", "version"]);
    if !versions.is_empty() && !versions.iter().any(|v| v.as_str() == Some(version)) {
        errs.push(FieldError::invalid(
            "spec.topology.version",
            BadValue::Str(version.into()),
            "version must match one of the versions defined in the ClusterClass",
        ));
    }
    errs.extend(worker_topology_errors(
        cluster,
        cc,
        (
            "machineDeployments",
            "MachineDeployment",
            "MachineDeploymentClass",
        ),
    ));
    errs.extend(worker_topology_errors(
        cluster,
        cc,
        ("machinePools", "MachinePool", "MachinePoolClass"),
    ));
    errs.extend(health_check_errors(cluster, cc));
    errs
}

/// `check.Machine{Deployment,Pool}TopologiesAreValidAndDefinedInClusterClass`: each
/// topology's class exists in the ClusterClass, its name is set and not used before.
fn worker_topology_errors(
    cluster: &Value,
    cc: &Value,
    (kind, what, class_what): (&str, &str, &str),
) -> Vec<FieldError> {
    let classes: BTreeSet<&str> = obj::get(cc, &["spec", "workers", kind])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| obj::str_at(c, &["class"]))
        .collect();
    let base = format!("spec.topology.workers.{kind}");
    let mut seen = BTreeSet::new();
    let mut errs = Vec::new();
    for (i, t) in workers(cluster, kind).iter().enumerate() {
        let at = index(&base, i);
        let class = obj::str_at(t, &["class"]);
        if !classes.contains(class) {
            errs.push(FieldError::invalid(
                &child(&at, "class"),
                BadValue::Str(class.into()),
                format!(
                    "{class_what} with name {} does not exist in ClusterClass {}",
                    q(class),
                    q(obj::name(cc))
                ),
            ));
        }
        let name = obj::str_at(t, &["name"]);
        if name.is_empty() {
            errs.push(FieldError::required(
                &child(&at, "name"),
                "name must not be empty",
            ));
            continue;
        }
        if !seen.insert(name) {
            errs.push(FieldError::invalid(
                &child(&at, "name"),
                BadValue::Str(name.into()),
                format!(
                    "name must be unique. {what} with name {} is defined more than once",
                    q(name)
                ),
            ));
        }
    }
    errs
}

/// `validateMachineHealthCheckNodeStartupTimeoutSeconds` and
/// `validateMachineHealthCheckUnhealthyLessThanOrEqualTo` on a health check at `path`.
fn health_check_value_errors(hc: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Some(n) = obj::get(hc, &["checks", "nodeStartupTimeoutSeconds"])
        .and_then(Value::as_number)
        .and_then(crate::go::json::as_int64)
        .filter(|n| *n != 0 && *n < 30)
    {
        errs.push(FieldError::invalid(
            &child(path, "checks.nodeStartupTimeoutSeconds"),
            BadValue::Int(n),
            "must be at least 30s",
        ));
    }
    let v = IntOrString::of(obj::get(
        hc,
        &["remediation", "triggerIf", "unhealthyLessThanOrEqualTo"],
    ));
    if let Some((v, e)) = v.and_then(|v| v.scaled_value_error().map(|e| (v, e))) {
        errs.push(FieldError::invalid(
            &child(path, "remediation.triggerIf.unhealthyLessThanOrEqualTo"),
            BadValue::Str(v.text()),
            format!("must be either an int or a percentage: {e}"),
        ));
    }
    errs
}

/// `validateRemediationMaxInFlight` at `path` (`...healthCheck.remediation`).
fn max_in_flight_errors(remediation: Option<&Value>, path: &str) -> Vec<FieldError> {
    let v = IntOrString::of(remediation.and_then(|r| r.get("maxInFlight")));
    match v.and_then(|v| v.scaled_value_error().map(|e| (v, e))) {
        Some((v, e)) => vec![FieldError::invalid(
            &child(path, "maxInFlight"),
            BadValue::Str(v.text()),
            format!("must be either an int or a percentage: {e}"),
        )],
        None => Vec::new(),
    }
}

/// Whether `healthCheck.enabled` is `true`.
fn enabled(hc: Option<&Value>) -> bool {
    hc.and_then(|h| h.get("enabled")) == Some(&Value::Bool(true))
}

fn enable_without_definition(path: &str) -> FieldError {
    FieldError::forbidden(
        &child(path, "enable"),
        "cannot be set to true as healthCheck definition is not available in the Cluster topology or the ClusterClass",
    )
}

/// `validateMachineHealthChecks`: the control plane's health check (only with the
/// class's machine infrastructure), its values, and `enabled: true` only with a
/// definition in the topology or the class; then each MachineDeployment's.
fn health_check_errors(cluster: &Value, cc: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let path = "spec.topology.controlPlane.healthCheck";
    let hc = obj::get(
        cluster,
        &["spec", "topology", "controlPlane", "healthCheck"],
    );
    if let Some(hc) = hc.filter(|h| health_check_is_defined(Some(h))) {
        let infra = obj::get(
            cc,
            &[
                "spec",
                "controlPlane",
                "machineInfrastructure",
                "templateRef",
            ],
        );
        if !template_ref_is_defined(infra) {
            errs.push(FieldError::forbidden(
                path,
                "can be only set if spec.controlPlane.machineInfrastructure is set in ClusterClass",
            ));
        }
        errs.extend(health_check_value_errors(hc, path));
    }
    let class_hc = obj::get(cc, &["spec", "controlPlane", "healthCheck"]);
    if enabled(hc) && !health_check_is_defined(hc) && !health_check_is_defined(class_hc) {
        errs.push(enable_without_definition(path));
    }
    let classes = obj::get(cc, &["spec", "workers", "machineDeployments"])
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for md in workers(cluster, "machineDeployments") {
        let path = child(&worker_path("machineDeployments", md), "healthCheck");
        let hc = md.get("healthCheck");
        if let Some(hc) = hc.filter(|h| health_check_is_defined(Some(h))) {
            errs.extend(health_check_value_errors(hc, &path));
            errs.extend(max_in_flight_errors(
                hc.get("remediation"),
                &child(&path, "remediation"),
            ));
        }
        let class = obj::str_at(md, &["class"]);
        let Some(md_class) = classes.iter().find(|c| obj::str_at(c, &["class"]) == class) else {
            continue;
        };
        if enabled(hc)
            && !health_check_is_defined(hc)
            && !health_check_is_defined(md_class.get("healthCheck"))
        {
            errs.push(enable_without_definition(&path));
        }
    }
    errs
}

const AUTOSCALER_MIN_SIZE: &str = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size";
const AUTOSCALER_MAX_SIZE: &str = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size";

fn has_autoscaler_annotation(metadata: Option<&Value>) -> bool {
    metadata
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key(AUTOSCALER_MIN_SIZE) || m.contains_key(AUTOSCALER_MAX_SIZE))
}

/// `validateAutoscalerAnnotationsForCluster`: a MachineDeployment topology that sets
/// `replicas` carries no autoscaler min/max size annotation, nor does any class of its
/// name in the ClusterClass (when there is one).
pub fn autoscaler_errors(cluster: &Value, cc: Option<&Value>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let (name, ns) = (obj::name(cluster), obj::namespace(cluster));
    for md in workers(cluster, "machineDeployments") {
        let Some(replicas) = md.get("replicas").filter(|v| !v.is_null()) else {
            continue;
        };
        let field = child(&worker_path("machineDeployments", md), "replicas");
        let value = || {
            BadValue::Int(
                replicas
                    .as_number()
                    .and_then(crate::go::json::as_int64)
                    .unwrap_or_default(),
            )
        };
        if has_autoscaler_annotation(md.get("metadata")) {
            errs.push(FieldError::invalid(
                &field,
                value(),
                format!("cannot be set for cluster {} in namespace {} if the same MachineDeploymentTopology has autoscaler annotations", q(name), q(ns)),
            ));
        }
        let Some(cc) = cc else { continue };
        let class = obj::str_at(md, &["class"]);
        let classes = obj::get(cc, &["spec", "workers", "machineDeployments"])
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|c| obj::str_at(c, &["class"]) == class);
        for c in classes {
            if has_autoscaler_annotation(c.get("metadata")) {
                errs.push(FieldError::invalid(
                    &field,
                    value(),
                    format!("cannot be set for cluster {} in namespace {} if the source class {} of this MachineDeploymentTopology has autoscaler annotations", q(name), q(ns), q(class)),
                ));
            }
        }
    }
    errs
}

#[cfg(test)]
#[path = "checks_tests.rs"]
mod tests;
