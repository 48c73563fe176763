//! Admission end to end on the corpus of `fixtures/admission/` (the inputs); the
//! whole corpus is compared with Cluster API's own admission by
//! `conformance/admission.sh`.

use serde_json::Value;

use super::*;

fn docs(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    crate::yaml::read::parse_documents(&text).unwrap()
}

fn find<'a>(objs: &'a [Value], kind: &str) -> &'a Value {
    objs.iter().find(|o| o["kind"] == kind).unwrap()
}

/// The base class admitted, then `cluster_file`'s Cluster: its refusal message.
fn cluster_refusal(cluster_file: &str, mode: FieldValidation) -> Option<Refusal> {
    let class = docs("fixtures/admission/base/class.yaml");
    let cc = admit_class(find(&class, "ClusterClass"), None, mode)
        .unwrap()
        .value;
    let prepared = cluster::Class::new(&cc);
    let c = docs(cluster_file);
    admit_cluster(find(&c, "Cluster"), Some(&prepared), None, mode).err()
}

#[test]
fn the_base_cluster_is_admitted() {
    assert_eq!(
        cluster_refusal(
            "fixtures/admission/base/cluster.yaml",
            FieldValidation::Strict
        ),
        None
    );
}

#[test]
fn a_machine_pool_taint_with_a_reserved_key_is_refused() {
    let r = cluster_refusal(
        "fixtures/admission/cluster/mp-taint-reserved-key.yaml",
        FieldValidation::Strict,
    )
    .unwrap();
    assert!(r.message.ends_with("spec.topology.workers.machinePools[mp-0].taints[0].key: Invalid value: \"node.kubernetes.io/unschedulable\": taint key must not have the prefix node.kubernetes.io/, except for node.kubernetes.io/out-of-service"), "{}", r.message);
    assert!(r.message.starts_with("admission webhook \"validation.cluster.cluster.x-k8s.io\" denied the request: Cluster.cluster.x-k8s.io \"c1\" is invalid: "));
}

#[test]
fn zero_surge_and_zero_unavailable_are_refused() {
    let r = cluster_refusal(
        "fixtures/admission/cluster/md-rollout-zero-surge-zero-unavailable.yaml",
        FieldValidation::Strict,
    )
    .unwrap();
    assert!(r.message.ends_with("spec.topology.workers.machineDeployments[md-0].rollout.strategy.rollingUpdate: Invalid value: \"0\": maxUnavailable and maxSurge cannot both be 0"), "{}", r.message);
}

#[test]
fn a_class_variable_without_required_is_refused_by_the_crd() {
    let class = docs("fixtures/admission/class/class-variable-without-required.yaml");
    let r = admit_class(find(&class, "ClusterClass"), None, FieldValidation::Strict).unwrap_err();
    assert_eq!(
        r.message,
        "ClusterClass.cluster.x-k8s.io \"adm\" is invalid: [spec.variables[0].required: Required value, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"
    );
}

#[test]
fn a_v1beta1_field_in_a_v1beta2_class_is_refused_or_pruned() {
    let class = docs("fixtures/admission/class/class-v1beta1-machinehealthcheck.yaml");
    let cc = find(&class, "ClusterClass");
    let r = admit_class(cc, None, FieldValidation::Strict).unwrap_err();
    assert_eq!(r.field, "spec.controlPlane.machineHealthCheck");
    assert_eq!(
        r.lines,
        vec!["spec.controlPlane.machineHealthCheck: unknown field in cluster.x-k8s.io/v1beta2 (v1beta2 calls it healthCheck)"]
    );
    let a = admit_class(cc, None, FieldValidation::Warn).unwrap();
    assert!(a
        .value
        .pointer("/spec/controlPlane/machineHealthCheck")
        .is_none());
    assert_eq!(a.warnings.len(), 1, "{:?}", a.warnings);
    assert!(a.warnings[0].contains("pruned"));
}

#[test]
fn duplicates_and_cel_name_the_value_as_the_api_server_does() {
    let r = cluster_refusal(
        "fixtures/admission/cluster/crd-cluster-list-map-duplicate.yaml",
        FieldValidation::Strict,
    )
    .unwrap();
    assert!(
        r.message.ends_with("Duplicate value: {\"name\":\"md-0\"}"),
        "{}",
        r.message
    );
    let r = cluster_refusal(
        "fixtures/admission/cluster/crd-cluster-cel.yaml",
        FieldValidation::Strict,
    )
    .unwrap();
    assert!(
        r.message
            .contains("type: Invalid value: \"Ready\": type must not be one of"),
        "{}",
        r.message
    );
}

#[test]
fn health_check_and_autoscaler_rules_read_integers() {
    let r = cluster_refusal(
        "fixtures/admission/cluster/cluster-cp-healthcheck-startup-timeout.yaml",
        FieldValidation::Strict,
    )
    .unwrap();
    assert!(r.message.ends_with("spec.topology.controlPlane.healthCheck.checks.nodeStartupTimeoutSeconds: Invalid value: 10: must be at least 30s"), "{}", r.message);
    let r = cluster_refusal(
        "fixtures/admission/cluster/cluster-md-replicas-autoscaler.yaml",
        FieldValidation::Strict,
    )
    .unwrap();
    assert!(
        r.message
            .contains("replicas: Invalid value: 2: cannot be set"),
        "{}",
        r.message
    );
}

#[test]
fn a_class_health_check_reads_its_integer_as_go_decodes_it() {
    // YAML integers reach us as Go's float64 (sigs.k8s.io/yaml); 10 is still 10.
    let class = docs("fixtures/admission/class/class-cp-healthcheck-startup-timeout.yaml");
    let r = admit_class(find(&class, "ClusterClass"), None, FieldValidation::Strict).unwrap_err();
    assert!(r.message.ends_with("spec.controlPlane.healthCheck.checks.nodeStartupTimeoutSeconds: Invalid value: 10: must be at least 30s"), "{}", r.message);
}
