//! The rules of v1.14.2's `validateTopology` that need no ClusterClass: the version,
//! `validateTopologyMetadata`, `validateTopologyRollout`, `validateTopologyTaints` and
//! the upgrade-concurrency annotation.

use serde_json::Value;

use super::gotypes::IntOrString;
use super::labels::{label_key_errors, object_meta_errors};
use crate::model::object as obj;
use crate::topology::variables::field_error::{child, index, key, BadValue, FieldError};

/// The `MachineTaintPropagation` feature gate. Off by default in v1.14.2 (every taint
/// is then refused); capi-render follows a management cluster that enables it, as the
/// conformance oracle does (`ClusterTopology=true,MachinePool=true,MachineTaintPropagation=true`),
/// and renders the taints it propagates.
pub const MACHINE_TAINT_PROPAGATION: bool = true;

/// `clusterv1.ClusterTopologyUpgradeConcurrencyAnnotation`.
pub const UPGRADE_CONCURRENCY: &str = "topology.cluster.x-k8s.io/upgrade-concurrency";

/// The worker topologies of a kind (`machineDeployments`, `machinePools`).
pub fn workers<'a>(cluster: &'a Value, kind: &str) -> &'a [Value] {
    obj::get(cluster, &["spec", "topology", "workers", kind])
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// `spec.topology.workers.<kind>[<name>]`: Go's `Key(md.Name)` path of a worker topology.
pub fn worker_path(kind: &str, w: &Value) -> String {
    key(
        &format!("spec.topology.workers.{kind}"),
        obj::str_at(w, &["name"]),
    )
}

/// The version: a `v` prefix, then blang `semver.Parse` of the rest.
pub fn version_errors(cluster: &Value) -> Vec<FieldError> {
    let v = obj::str_at(cluster, &["spec", "topology", "version"]);
    let mut errs = Vec::new();
    if !v.starts_with('v') {
        errs.push(FieldError::invalid(
            "spec.topology.version",
            BadValue::Str(v.into()),
            "must start with v",
        ));
    }
    if !super::gotypes::is_blang_semver(v.strip_prefix('v').unwrap_or(v)) {
        errs.push(FieldError::invalid(
            "spec.topology.version",
            BadValue::Str(v.into()),
            "version must be a valid semantic version",
        ));
    }
    errs
}

/// `validateTopologyMetadata`: the control plane's, then every MachineDeployment's and
/// MachinePool's metadata.
pub fn metadata_errors(cluster: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_errors(
        obj::get(cluster, &["spec", "topology", "controlPlane", "metadata"]),
        "spec.topology.controlPlane.metadata",
    );
    for kind in ["machineDeployments", "machinePools"] {
        for w in workers(cluster, kind) {
            let path = child(&worker_path(kind, w), "metadata");
            errs.extend(object_meta_errors(w.get("metadata"), &path));
        }
    }
    errs
}

/// `validateRolloutStrategy` (the MachineDeployment webhook's), at `path`
/// (`...rollout.strategy`).
pub fn rolling_update_errors(rolling_update: Option<&Value>, path: &str) -> Vec<FieldError> {
    let ru = child(path, "rollingUpdate");
    let unavailable = IntOrString::of(rolling_update.and_then(|r| r.get("maxUnavailable")));
    let surge = IntOrString::of(rolling_update.and_then(|r| r.get("maxSurge")));
    let mut errs = Vec::new();
    for (field, v) in [("maxUnavailable", &unavailable), ("maxSurge", &surge)] {
        if let Some(e) = v.as_ref().and_then(IntOrString::scaled_value_error) {
            errs.push(FieldError::invalid(
                &child(&ru, field),
                BadValue::Str(v.as_ref().map(IntOrString::text).unwrap_or_default()),
                format!("must be either an int or a percentage: {e}"),
            ));
        }
    }
    if let (Some(IntOrString::Int(0)), Some(IntOrString::Int(0))) = (&unavailable, &surge) {
        errs.push(FieldError::invalid(
            &ru,
            BadValue::Str("0".into()),
            "maxUnavailable and maxSurge cannot both be 0",
        ));
    }
    errs
}

/// `validateTopologyRollout`: every MachineDeployment topology's rolling update.
pub fn rollout_errors(cluster: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for md in workers(cluster, "machineDeployments") {
        let path = child(&worker_path("machineDeployments", md), "rollout.strategy");
        let ru = obj::get(md, &["rollout", "strategy", "rollingUpdate"]);
        errs.extend(rolling_update_errors(ru, &path));
    }
    errs
}

/// `taints.ValidateMachineTaints` on the list at `path`.
pub fn machine_taint_errors(taints: Option<&Value>, path: &str) -> Vec<FieldError> {
    let list = taints
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let mut errs = Vec::new();
    if !MACHINE_TAINT_PROPAGATION && !list.is_empty() {
        errs.push(FieldError::forbidden(
            path,
            "taints are not allowed to be set when the feature gate MachineTaintPropagation is disabled",
        ));
    }
    for (i, t) in list.iter().enumerate() {
        let at = child(&index(path, i), "key");
        let k = obj::str_at(t, &["key"]);
        let reserved = match k {
            "node.cluster.x-k8s.io/uninitialized" | "node.cluster.x-k8s.io/outdated-revision" => {
                Some("taint key is not allowed")
            }
            _ if k.starts_with("node.kubernetes.io/") && k != "node.kubernetes.io/out-of-service" => {
                Some("taint key must not have the prefix node.kubernetes.io/, except for node.kubernetes.io/out-of-service")
            }
            _ if k.starts_with("node.cloudprovider.kubernetes.io/") => {
                Some("taint key must not have the prefix node.cloudprovider.kubernetes.io/")
            }
            "node-role.kubernetes.io/master" => {
                Some("taint is deprecated since 1.24 and should not be used anymore")
            }
            _ => None,
        };
        if let Some(m) = reserved {
            errs.push(FieldError::invalid(&at, BadValue::Str(k.into()), m));
        }
        for m in label_key_errors(k) {
            errs.push(FieldError::invalid(&at, BadValue::Str(k.into()), m));
        }
    }
    errs
}

/// `validateTopologyTaints`: the control plane's, every MachineDeployment's and every
/// MachinePool's taints.
pub fn taint_errors(cluster: &Value) -> Vec<FieldError> {
    let mut errs = machine_taint_errors(
        obj::get(cluster, &["spec", "topology", "controlPlane", "taints"]),
        "spec.topology.controlPlane.taints",
    );
    for kind in ["machineDeployments", "machinePools"] {
        for w in workers(cluster, kind) {
            let path = child(&worker_path(kind, w), "taints");
            errs.extend(machine_taint_errors(w.get("taints"), &path));
        }
    }
    errs
}

/// The upgrade-concurrency annotation: `strconv.Atoi`, at least 1.
pub fn upgrade_concurrency_errors(cluster: &Value) -> Vec<FieldError> {
    let Some(v) = obj::get(cluster, &["metadata", "annotations", UPGRADE_CONCURRENCY]) else {
        return Vec::new();
    };
    let s = v.as_str().unwrap_or("");
    let detail = match crate::go::strconv::atoi(s) {
        Err(e) => format!("could not parse the value of the annotation: {e}"),
        Ok(n) if n < 1 => "value cannot be less than 1".to_string(),
        Ok(_) => return Vec::new(),
    };
    vec![FieldError::invalid(
        &format!("metadata.annotations.{UPGRADE_CONCURRENCY}"),
        BadValue::Str(s.into()),
        detail,
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(errs: Vec<FieldError>) -> Vec<String> {
        errs.iter().map(ToString::to_string).collect()
    }

    fn with_topology(t: Value) -> Value {
        json!({"metadata": {"name": "c1", "namespace": "ns"}, "spec": {"topology": t}})
    }

    #[test]
    fn version() {
        assert!(version_errors(&with_topology(json!({"version": "v1.33.0"}))).is_empty());
        assert_eq!(
            texts(version_errors(&with_topology(json!({"version": "1.17.2"})))),
            vec!["spec.topology.version: Invalid value: \"1.17.2\": must start with v"]
        );
        assert_eq!(
            texts(version_errors(&with_topology(json!({"version": "v1"})))),
            vec!["spec.topology.version: Invalid value: \"v1\": version must be a valid semantic version"]
        );
        assert_eq!(
            texts(version_errors(&with_topology(json!({"version": "invalid"})))),
            vec![
                "spec.topology.version: Invalid value: \"invalid\": must start with v",
                "spec.topology.version: Invalid value: \"invalid\": version must be a valid semantic version",
            ]
        );
    }

    #[test]
    fn metadata() {
        let ok = with_topology(json!({"controlPlane": {"metadata": {"labels": {"a": "b"}}},
            "workers": {"machinePools": [{"name": "mp", "metadata": {"annotations": {"x/y": "z"}}}]}}));
        assert!(metadata_errors(&ok).is_empty());
        let bad = with_topology(
            json!({"controlPlane": {"metadata": {"labels": {"a": "b c"}}},
            "workers": {"machineDeployments": [{"name": "md", "metadata": {"annotations": {"-x": ""}}}],
                "machinePools": [{"name": "mp", "metadata": {"labels": {"k": "-"}}}]}}),
        );
        let t = texts(metadata_errors(&bad));
        assert_eq!(t.len(), 3);
        assert!(t[0].starts_with("spec.topology.controlPlane.metadata.labels: Invalid value: \"b c\": a valid label must"), "{t:?}");
        assert!(t[1].starts_with("spec.topology.workers.machineDeployments[md].metadata.annotations: Invalid value: \"-x\": name part must consist"), "{t:?}");
        assert!(t[2].starts_with("spec.topology.workers.machinePools[mp].metadata.labels: Invalid value: \"-\": a valid label"), "{t:?}");
    }

    fn md_rollout(ru: Value) -> Value {
        with_topology(json!({"workers": {"machineDeployments": [
            {"name": "md-0", "class": "w", "rollout": {"strategy": {"type": "RollingUpdate", "rollingUpdate": ru}}}]}}))
    }

    #[test]
    fn rollout() {
        for ok in [
            json!({"maxSurge": 1, "maxUnavailable": 0}),
            json!({"maxSurge": "0%", "maxUnavailable": 0}),
            json!({"maxSurge": 0}),
            json!({}),
        ] {
            assert!(rollout_errors(&md_rollout(ok.clone())).is_empty(), "{ok}");
        }
        assert_eq!(
            texts(rollout_errors(&md_rollout(json!({"maxSurge": 0, "maxUnavailable": 0})))),
            vec!["spec.topology.workers.machineDeployments[md-0].rollout.strategy.rollingUpdate: Invalid value: \"0\": maxUnavailable and maxSurge cannot both be 0"]
        );
        assert_eq!(
            texts(rollout_errors(&md_rollout(json!({"maxSurge": "a", "maxUnavailable": "1x%"})))),
            vec![
                "spec.topology.workers.machineDeployments[md-0].rollout.strategy.rollingUpdate.maxUnavailable: Invalid value: \"1x%\": must be either an int or a percentage: invalid value for IntOrString: invalid value \"1x%\": strconv.Atoi: parsing \"1x\": invalid syntax",
                "spec.topology.workers.machineDeployments[md-0].rollout.strategy.rollingUpdate.maxSurge: Invalid value: \"a\": must be either an int or a percentage: invalid value for IntOrString: invalid type: string is not a percentage",
            ]
        );
    }

    #[test]
    fn taints() {
        let ok = with_topology(
            json!({"controlPlane": {"taints": [{"key": "node.kubernetes.io/out-of-service", "effect": "NoExecute"}]},
            "workers": {"machinePools": [{"name": "mp", "taints": [{"key": "example.com/gpu", "effect": "NoSchedule"}]}]}}),
        );
        assert!(taint_errors(&ok).is_empty());
        let bad = with_topology(json!({
            "controlPlane": {"taints": [{"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"}]},
            "workers": {
                "machineDeployments": [{"name": "md", "taints": [
                    {"key": "node.cluster.x-k8s.io/uninitialized", "effect": "NoSchedule"},
                    {"key": "node.cloudprovider.kubernetes.io/x", "effect": "NoSchedule"},
                    {"key": "a/b/c", "effect": "NoSchedule"}]}],
                "machinePools": [{"name": "mp", "taints": [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]}]}}));
        assert_eq!(texts(taint_errors(&bad)), vec![
            "spec.topology.controlPlane.taints[0].key: Invalid value: \"node-role.kubernetes.io/master\": taint is deprecated since 1.24 and should not be used anymore",
            "spec.topology.workers.machineDeployments[md].taints[0].key: Invalid value: \"node.cluster.x-k8s.io/uninitialized\": taint key is not allowed",
            "spec.topology.workers.machineDeployments[md].taints[1].key: Invalid value: \"node.cloudprovider.kubernetes.io/x\": taint key must not have the prefix node.cloudprovider.kubernetes.io/",
            "spec.topology.workers.machineDeployments[md].taints[2].key: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
            "spec.topology.workers.machinePools[mp].taints[0].key: Invalid value: \"node.kubernetes.io/unschedulable\": taint key must not have the prefix node.kubernetes.io/, except for node.kubernetes.io/out-of-service",
        ]);
    }

    #[test]
    fn upgrade_concurrency() {
        let with = |v: &str| json!({"metadata": {"annotations": {UPGRADE_CONCURRENCY: v}}});
        assert!(upgrade_concurrency_errors(&with("2")).is_empty());
        assert!(upgrade_concurrency_errors(&json!({})).is_empty());
        assert_eq!(
            texts(upgrade_concurrency_errors(&with("-1"))),
            vec!["metadata.annotations.topology.cluster.x-k8s.io/upgrade-concurrency: Invalid value: \"-1\": value cannot be less than 1"]
        );
        assert_eq!(
            texts(upgrade_concurrency_errors(&with("abc"))),
            vec!["metadata.annotations.topology.cluster.x-k8s.io/upgrade-concurrency: Invalid value: \"abc\": could not parse the value of the annotation: strconv.Atoi: parsing \"abc\": invalid syntax"]
        );
    }
}
