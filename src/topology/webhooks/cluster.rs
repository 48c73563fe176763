//! The Cluster webhook's validation (topology.md §9): the Cluster's name, version,
//! network, worker topologies and their classes, and MachineHealthChecks.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::go::quote::quote as q;
use crate::topology::mhc_validation::mhc_class_errors;
use crate::topology::obj;
use crate::topology::variables::field_error::{self as fe, BadValue, FieldError};

/// The Cluster webhook's validation errors, in Go's order: the name, the reference
/// namespaces, the CIDR blocks, then the topology's ([`topology_errors`]).
pub fn cluster_errors(cluster: &Value, cc: Option<&Value>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    // The Cluster name is used as a label value.
    let name = obj::name(cluster);
    for m in crate::topology::variables::metadata::label_value_errors(name) {
        errs.push(FieldError::invalid(
            "metadata.name",
            BadValue::Str(name.into()),
            format!("must be a valid label value {m}"),
        ));
    }
    // The references the Cluster webhook defaulted to the Cluster's namespace must not
    // point at another one.
    for r in ["infrastructureRef", "controlPlaneRef"] {
        if let Some(Value::Object(m)) = obj::get(cluster, &["spec", r]) {
            let ns = m.get("namespace").and_then(Value::as_str).unwrap_or("");
            if ns != obj::namespace(cluster) {
                errs.push(FieldError::invalid(
                    &format!("spec.{r}.namespace"),
                    BadValue::Str(ns.into()),
                    "must match metadata.namespace",
                ));
            }
        }
    }
    // `validateCIDRBlocks`: every pod and service CIDR must parse (Go's net.ParseCIDR).
    for part in ["pods", "services"] {
        if let Some(Value::Array(blocks)) =
            obj::get(cluster, &["spec", "clusterNetwork", part, "cidrBlocks"])
        {
            for (i, b) in blocks.iter().enumerate() {
                let b = b.as_str().unwrap_or("");
                if !is_go_cidr(b) {
                    errs.push(FieldError::invalid(
                        &fe::index(&format!("spec.clusterNetwork.{part}.cidrBlocks"), i),
                        BadValue::Str(b.to_string()),
                        format!("invalid CIDR address: {b}"),
                    ));
                }
            }
        }
    }
    if obj::get(cluster, &["spec", "topology"]).is_some_and(|t| !t.is_null()) {
        topology_errors(cluster, cc, &mut errs);
    }
    errs
}

/// `validateTopology`: the version, metadata, variables' `definitionFrom`, the upgrade
/// concurrency, then (with the ClusterClass) the worker topologies and health checks,
/// and the autoscaler annotations.
fn topology_errors(cluster: &Value, cc: Option<&Value>, errs: &mut Vec<FieldError>) {
    let v = obj::str_at(cluster, &["spec", "topology", "version"]);
    if !is_kube_semver(v) {
        errs.push(FieldError::invalid(
            "spec.topology.version",
            BadValue::Str(v.into()),
            "version must be a valid semantic version",
        ));
    }
    errs.extend(crate::topology::metadata_validation::topology_metadata_errors(cluster));
    definition_from(cluster, errs);
    upgrade_concurrency(cluster, errs);
    if let Some(cc) = cc {
        // `ValidateClusterForClusterClass`, only when the ClusterClass is known.
        for (field, what, class_what) in [
            (
                "machineDeployments",
                "MachineDeployment",
                "MachineDeploymentClass",
            ),
            ("machinePools", "MachinePool", "MachinePoolClass"),
        ] {
            worker_topologies(cluster, cc, (field, what, class_what), errs);
        }
        machine_health_checks(cluster, cc, errs);
    }
    autoscaler_annotations(cluster, cc, errs);
}

/// `validateTopologyDefinitionFrom`: no topology variable or override may set the
/// deprecated `definitionFrom` (the webhook's defaulting reports it first when the
/// ClusterClass is known; this is what remains when it is not).
fn definition_from(cluster: &Value, errs: &mut Vec<FieldError>) {
    let mut check = |vars: Option<&Value>, path: &str| {
        for v in vars.and_then(Value::as_array).into_iter().flatten() {
            let from = v.get("definitionFrom").and_then(Value::as_str);
            if from.is_some_and(|f| !f.is_empty()) {
                let name = obj::str_at(v, &["name"]);
                errs.push(FieldError::invalid(
                    &fe::key(path, name),
                    BadValue::Str(crate::topology::variables::index::raw_value(Some(v))),
                    format!(
                        "variable {} has DefinitionFrom set",
                        crate::go::quote::quote(name)
                    ),
                ));
            }
        }
    };
    check(
        obj::get(cluster, &["spec", "topology", "variables"]),
        "spec.topology.variables",
    );
    check(
        obj::get(
            cluster,
            &["spec", "topology", "controlPlane", "variables", "overrides"],
        ),
        "spec.topology.controlPlane.variables.overrides",
    );
    for field in ["machineDeployments", "machinePools"] {
        let list = obj::get(cluster, &["spec", "topology", "workers", field]);
        for t in list.and_then(Value::as_array).into_iter().flatten() {
            let base = fe::key(
                &format!("spec.topology.workers.{field}"),
                obj::str_at(t, &["name"]),
            );
            check(
                obj::get(t, &["variables", "overrides"]),
                &fe::child(&base, "variables.overrides"),
            );
        }
    }
}

/// The `topology.cluster.x-k8s.io/upgrade-concurrency` annotation: an integer
/// (Go's `strconv.Atoi`) of at least 1.
fn upgrade_concurrency(cluster: &Value, errs: &mut Vec<FieldError>) {
    const KEY: &str = "topology.cluster.x-k8s.io/upgrade-concurrency";
    let Some(v) = obj::get(cluster, &["metadata", "annotations", KEY]) else {
        return;
    };
    let s = v.as_str().unwrap_or("");
    let field = format!("metadata.annotations.{KEY}");
    let message = match crate::go::strconv::atoi(s) {
        Err(e) => format!("could not parse the value of the annotation: {e}"),
        Ok(n) if n < 1 => "value cannot be less than 1".to_string(),
        Ok(_) => return,
    };
    errs.push(FieldError::invalid(
        &field,
        BadValue::Str(s.into()),
        message,
    ));
}

/// `Machine{Deployment,Pool}TopologiesAreValidAndDefinedInClusterClass`: per topology,
/// its name as a label value, its class in the ClusterClass, a non-empty name, and a
/// name not used before.
fn worker_topologies(
    cluster: &Value,
    cc: &Value,
    (field, what, class_what): (&str, &str, &str),
    errs: &mut Vec<FieldError>,
) {
    let Some(Value::Array(list)) = obj::get(cluster, &["spec", "topology", "workers", field])
    else {
        return;
    };
    let classes: BTreeSet<&str> = obj::get(cc, &["spec", "workers", field])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|x| obj::str_at(x, &["class"]))
        .collect();
    let base = format!("spec.topology.workers.{field}");
    let mut seen = BTreeSet::new();
    for (i, t) in list.iter().enumerate() {
        let at = fe::index(&base, i);
        let n = obj::str_at(t, &["name"]);
        for m in crate::topology::variables::metadata::label_value_errors(n) {
            errs.push(FieldError::invalid(
                &fe::child(&at, "name"),
                BadValue::Str(n.into()),
                format!("must be a valid label value {m}"),
            ));
        }
        let c = obj::str_at(t, &["class"]);
        if !classes.contains(c) {
            errs.push(FieldError::invalid(
                &fe::child(&at, "class"),
                BadValue::Str(c.into()),
                format!(
                    "{class_what} with name {} does not exist in ClusterClass {}",
                    q(c),
                    q(obj::name(cc))
                ),
            ));
        }
        if n.is_empty() {
            errs.push(FieldError::required(
                &fe::child(&at, "name"),
                "name must not be empty",
            ));
            continue;
        }
        if !seen.insert(n) {
            errs.push(FieldError::invalid(
                &fe::child(&at, "name"),
                BadValue::Str(n.into()),
                format!(
                    "name must be unique. {what} with name {} is defined more than once",
                    q(n)
                ),
            ));
        }
    }
}

const AUTOSCALER_MIN_SIZE: &str = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size";
const AUTOSCALER_MAX_SIZE: &str = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size";

fn has_autoscaler_annotation(annotations: Option<&Value>) -> bool {
    annotations
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key(AUTOSCALER_MIN_SIZE) || m.contains_key(AUTOSCALER_MAX_SIZE))
}

/// `validateAutoscalerAnnotationsForCluster`: a MachineDeployment topology that sets
/// `replicas` must not carry the autoscaler's min/max size annotations, nor may its
/// class's template (checked only when the ClusterClass is known).
fn autoscaler_annotations(cluster: &Value, cc: Option<&Value>, errs: &mut Vec<FieldError>) {
    let Some(Value::Array(mds)) = obj::get(
        cluster,
        &["spec", "topology", "workers", "machineDeployments"],
    ) else {
        return;
    };
    for md in mds {
        let Some(replicas) = md.get("replicas").filter(|v| !v.is_null()) else {
            continue;
        };
        let field = fe::child(
            &fe::key(
                "spec.topology.workers.machineDeployments",
                obj::str_at(md, &["name"]),
            ),
            "replicas",
        );
        let n = match replicas {
            Value::Number(n) => crate::go::json::as_int64(n),
            _ => None,
        };
        let value = || BadValue::Int(n.unwrap_or(0));
        let (name, ns) = (obj::name(cluster), obj::namespace(cluster));
        if has_autoscaler_annotation(obj::get(md, &["metadata", "annotations"])) {
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
            if has_autoscaler_annotation(obj::get(c, &["template", "metadata", "annotations"])) {
                errs.push(FieldError::invalid(
                    &field,
                    value(),
                    format!("cannot be set for cluster {} in namespace {} if the source class {} of this MachineDeploymentTopology has autoscaler annotations", q(name), q(ns), q(class)),
                ));
            }
        }
    }
}

/// CAPI's `version.KubeSemver` pattern,
/// `^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-0-9a-zA-Z_\.+]*)?$`: three
/// numbers without leading zeros, then any run of `-`, `.`, `+`, `_` and alphanumerics.
fn is_kube_semver(v: &str) -> bool {
    let Some(rest) = v.strip_prefix('v') else {
        return false;
    };
    // A number (`0`, or digits not starting with `0`) followed by `.`, twice.
    let mut rest = rest.as_bytes();
    for _ in 0..2 {
        let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if n == 0 || (n > 1 && rest[0] == b'0') || rest.get(n) != Some(&b'.') {
            return false;
        }
        rest = &rest[n + 1..];
    }
    // The third number's first digit; any further digits match the suffix class.
    rest.first().is_some_and(u8::is_ascii_digit)
        && rest[1..]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'+' | b'_'))
}

/// Go's `net.ParseCIDR` accepts `s`: an IPv4 or IPv6 address without zone, `/`, and a
/// decimal prefix length no longer than the address.
fn is_go_cidr(s: &str) -> bool {
    let Some((addr, bits)) = s.split_once('/') else {
        return false;
    };
    let max = if addr.contains(':') {
        if addr.parse::<std::net::Ipv6Addr>().is_err() {
            return false;
        }
        128
    } else {
        if addr.parse::<std::net::Ipv4Addr>().is_err() {
            return false;
        }
        32
    };
    !bits.is_empty()
        && bits.len() <= 9
        && bits.bytes().all(|b| b.is_ascii_digit())
        && bits.parse::<u32>().is_ok_and(|n| n <= max)
}

fn mhc_class_is_zero(mhc: &Value) -> bool {
    mhc.as_object().is_none_or(|m| {
        m.iter().all(|(k, v)| {
            k == "enable"
                || v.is_null()
                || v.as_array().is_some_and(Vec::is_empty)
                || v.as_str() == Some("")
                || v.as_object().is_some_and(|o| o.is_empty())
        })
    })
}

/// `validateMachineHealthChecks`: a class part needs CP machine infrastructure;
/// `enable: true` needs a definition somewhere.
fn machine_health_checks(cluster: &Value, cc: &Value, errs: &mut Vec<FieldError>) {
    let cannot = "cannot be set to true as MachineHealthCheck definition is not available in the Cluster topology or the ClusterClass";
    if let Some(m) = obj::get(
        cluster,
        &["spec", "topology", "controlPlane", "machineHealthCheck"],
    )
    .filter(|v| !v.is_null())
    {
        let p = "spec.topology.controlPlane.machineHealthCheck";
        let has_infra = obj::get(cc, &["spec", "controlPlane", "machineInfrastructure"])
            .is_some_and(|v| !v.is_null());
        if !mhc_class_is_zero(m) {
            if !has_infra {
                errs.push(FieldError::forbidden(
                    p,
                    "can be set only if spec.controlPlane.machineInfrastructure is set in ClusterClass",
                ));
            }
            errs.extend(mhc_class_errors(m, p, obj::namespace(cluster)));
        }
        let class_mhc = obj::get(cc, &["spec", "controlPlane", "machineHealthCheck"])
            .is_some_and(|v| !v.is_null());
        if m.get("enable") == Some(&Value::Bool(true)) && mhc_class_is_zero(m) && !class_mhc {
            errs.push(FieldError::forbidden(&fe::child(p, "enable"), cannot));
        }
    }
    if let Some(Value::Array(mds)) = obj::get(
        cluster,
        &["spec", "topology", "workers", "machineDeployments"],
    ) {
        for md in mds {
            let Some(m) = md.get("machineHealthCheck").filter(|v| !v.is_null()) else {
                continue;
            };
            let p = fe::child(
                &fe::key(
                    "spec.topology.workers.machineDeployments",
                    obj::str_at(md, &["name"]),
                ),
                "machineHealthCheck",
            );
            if !mhc_class_is_zero(m) {
                errs.extend(mhc_class_errors(m, &p, obj::namespace(cluster)));
            }
            let class = obj::get(cc, &["spec", "workers", "machineDeployments"])
                .and_then(Value::as_array)
                .and_then(|a| {
                    a.iter()
                        .find(|c| obj::str_at(c, &["class"]) == obj::str_at(md, &["class"]))
                });
            if let Some(class) = class {
                let class_mhc = class
                    .get("machineHealthCheck")
                    .is_some_and(|v| !v.is_null());
                if m.get("enable") == Some(&Value::Bool(true)) && mhc_class_is_zero(m) && !class_mhc
                {
                    errs.push(FieldError::forbidden(&fe::child(&p, "enable"), cannot));
                }
            }
        }
    }
}

/// The Cluster webhook's `ValidateCreate` verdict as the plan reports it.
pub fn validate_cluster(cluster: &Value, cc: Option<&Value>) -> Result<()> {
    let errs = cluster_errors(cluster, cc);
    if errs.is_empty() {
        return Ok(());
    }
    Err(Error::new(fe::invalid_object_message(
        "Cluster.cluster.x-k8s.io",
        obj::name(cluster),
        &errs,
    ))
    .wrap(format!(
        "failed validation of cluster.x-k8s.io/v1beta1, Kind=Cluster {}/{}",
        obj::namespace(cluster),
        obj::name(cluster)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kube_semver_pattern() {
        for ok in [
            "v1.33.1",
            "v0.0.0",
            "v1.33.01",
            "v1.33.1.0",
            "v1.33.1-",
            "v1.33.1+build_1.x",
            "v10.200.3000-rc.1",
        ] {
            assert!(is_kube_semver(ok), "{ok}");
        }
        for bad in [
            "1.33.1",
            "v1.33",
            "v01.33.1",
            "v1.033.1",
            "v1.33.1 ",
            "v1.33.1\n",
            "v1..1",
            "v1.33.",
            "v1.33.x",
            "vbanana",
            "",
        ] {
            assert!(!is_kube_semver(bad), "{bad:?}");
        }
    }

    #[test]
    fn cluster_checks() {
        let cc = json!({"metadata": {"name": "k"}, "spec": {"workers": {"machineDeployments": [{"class": "a"}]}}});
        let c = json!({"spec": {"topology": {"version": "vbanana", "workers": {"machineDeployments": [
            {"name": "x", "class": "a"}, {"name": "x", "class": "b"}]}}}});
        let fields: Vec<_> = cluster_errors(&c, Some(&cc))
            .into_iter()
            .map(|e| e.field)
            .collect();
        // Go's order: per topology, its class, then its name's uniqueness.
        assert_eq!(
            fields,
            [
                "spec.topology.version",
                "spec.topology.workers.machineDeployments[1].class",
                "spec.topology.workers.machineDeployments[1].name"
            ]
        );
        // Without the ClusterClass the worker topologies are not checked.
        assert_eq!(cluster_errors(&c, None).len(), 1);
    }

    #[test]
    fn replicas_and_autoscaler_annotations_exclude_each_other() {
        let ann = json!({AUTOSCALER_MAX_SIZE: "5"});
        let cc = json!({"metadata": {"name": "k"}, "spec": {"workers": {"machineDeployments": [
            {"class": "a", "template": {"metadata": {"annotations": ann}}}, {"class": "b"}]}}});
        let c = json!({"metadata": {"name": "c", "namespace": "n"},
            "spec": {"topology": {"version": "v1.30.0", "workers": {"machineDeployments": [
            {"name": "x", "class": "b", "replicas": 2, "metadata": {"annotations": {AUTOSCALER_MIN_SIZE: "1"}}},
            {"name": "y", "class": "a", "replicas": 3},
            {"name": "z", "class": "a", "metadata": {"annotations": ann}}]}}}});
        let errs = cluster_errors(&c, Some(&cc));
        let got: Vec<(String, String)> = errs
            .iter()
            .map(|e| (e.field.clone(), e.detail.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("spec.topology.workers.machineDeployments[x].replicas".to_string(),
                 "cannot be set for cluster \"c\" in namespace \"n\" if the same MachineDeploymentTopology has autoscaler annotations".to_string()),
                ("spec.topology.workers.machineDeployments[y].replicas".to_string(),
                 "cannot be set for cluster \"c\" in namespace \"n\" if the source class \"a\" of this MachineDeploymentTopology has autoscaler annotations".to_string()),
            ]
        );
        // Without the class, only the topology's own annotations count.
        assert_eq!(cluster_errors(&c, None).len(), 1);
    }
}
