use super::*;
use crate::model::pointer::Pointer as _;
use serde_json::json;

fn texts(errs: &[FieldError]) -> Vec<String> {
    errs.iter().map(ToString::to_string).collect()
}

fn class() -> Value {
    json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "ClusterClass",
        "metadata": {"name": "cc", "namespace": "ns"},
        "spec": {
            "infrastructure": {"templateRef": {"apiVersion": "i/v1", "kind": "IT", "name": "it"}},
            "controlPlane": {"templateRef": {"apiVersion": "c/v1", "kind": "CT", "name": "ct"}},
            "workers": {"machineDeployments": [{"class": "w"}], "machinePools": [{"class": "p"}]},
            "variables": [
                {"name": "n", "required": true, "schema": {"openAPIV3Schema": {"type": "integer", "maximum": 5}}},
                {"name": "o", "required": false, "schema": {"openAPIV3Schema": {"type": "object", "default": {},
                    "properties": {"a": {"type": "string", "default": "x"}}}}}]}})
}

fn cluster(topology: Value) -> Value {
    json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
        "metadata": {"name": "c1", "namespace": "ns"}, "spec": {"topology": topology}})
}

fn topology() -> Value {
    json!({"classRef": {"name": "cc"}, "version": "v1.33.0",
        "variables": [{"name": "n", "value": 1}],
        "workers": {"machineDeployments": [{"class": "w", "name": "md-0"}],
            "machinePools": [{"class": "p", "name": "mp-0"}]}})
}

/// The full refusal of `validate_create`, as the API server prints it.
fn refused(c: &Value, cc: Option<&Value>) -> String {
    let (errs, _) = validate_create(c, cc);
    assert!(!errs.is_empty(), "admitted: {c}");
    refusal(c, &errs)
}

#[test]
fn a_valid_cluster_is_admitted_without_warnings() {
    let (errs, warnings) = validate_create(&cluster(topology()), Some(&class()));
    assert!(errs.is_empty(), "{:?}", texts(&errs));
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn issue_58_machine_pool_taint_with_a_reserved_key() {
    let mut t = topology();
    t["workers"]["machinePools"][0]["taints"] =
        json!([{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]);
    assert_eq!(
        refused(&cluster(t), Some(&class())),
        "Cluster.cluster.x-k8s.io \"c1\" is invalid: spec.topology.workers.machinePools[mp-0].taints[0].key: Invalid value: \"node.kubernetes.io/unschedulable\": taint key must not have the prefix node.kubernetes.io/, except for node.kubernetes.io/out-of-service"
    );
}

#[test]
fn issue_58_rolling_update_with_max_surge_and_max_unavailable_zero() {
    let mut t = topology();
    t["workers"]["machineDeployments"][0]["rollout"] = json!({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}});
    assert_eq!(
        refused(&cluster(t), Some(&class())),
        "Cluster.cluster.x-k8s.io \"c1\" is invalid: spec.topology.workers.machineDeployments[md-0].rollout.strategy.rollingUpdate: Invalid value: \"0\": maxUnavailable and maxSurge cannot both be 0"
    );
}

#[test]
fn name_must_be_a_label_value() {
    let ok = json!({"metadata": {"name": "thisNameContains.A_Non-Alphanumeric"},
        "spec": {"controlPlaneRef": {"apiGroup": "g", "kind": "K", "name": "cp1"}}});
    assert!(validate_create(&ok, None).0.is_empty());
    let long = "thisNameIsReallyMuchLongerThanTheMaximumLengthOfSixtyThreeCharacters";
    let mut bad = ok.clone();
    bad["metadata"]["name"] = json!(long);
    assert_eq!(
        texts(&validate_create(&bad, None).0),
        vec![format!("metadata.name: Invalid value: \"{long}\": must be a valid label value must be no more than 63 bytes")]
    );
    bad["metadata"]["name"] = json!("-thisNameStartsWithANonAlphanumeric");
    assert_eq!(
        texts(&validate_create(&bad, None).0),
        vec!["metadata.name: Invalid value: \"-thisNameStartsWithANonAlphanumeric\": must be a valid label value a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]
    );
}

#[test]
fn one_of_the_references_or_a_topology() {
    let forbidden = "spec: Forbidden: one of spec.controlPlaneRef, spec.infrastructureRef or spec.topology must be set";
    for spec in [
        json!({}),
        json!({"topology": {}}),
        json!({"controlPlaneRef": {"kind": ""}}),
    ] {
        let c = json!({"metadata": {"name": "c1"}, "spec": spec});
        assert_eq!(
            texts(&validate_create(&c, None).0),
            vec![forbidden],
            "{spec}"
        );
    }
    for spec in [
        json!({"infrastructureRef": {"apiGroup": "g", "kind": "K", "name": "i"}}),
        json!({"controlPlaneRef": {"apiGroup": "g", "kind": "K", "name": "cp"}}),
    ] {
        let c = json!({"metadata": {"name": "c1"}, "spec": spec});
        assert!(validate_create(&c, None).0.is_empty(), "{spec}");
    }
}

#[test]
fn cidr_blocks() {
    let with = |pods: Value, services: Value| {
        json!({"metadata": {"name": "cluster1"}, "spec": {
            "controlPlaneRef": {"apiGroup": "g", "kind": "K", "name": "cp1"},
            "clusterNetwork": {"pods": {"cidrBlocks": pods}, "services": {"cidrBlocks": services}}}})
    };
    let ok = with(
        json!(["2004::1234:abcd:ffff:c0a8:101/64", "10.10.10.10/24"]),
        json!([]),
    );
    assert!(validate_create(&ok, None).0.is_empty());
    let bad = with(
        json!(["10.10.10.10", "11.11.11.11"]),
        json!(["10.0.0.0/33"]),
    );
    assert_eq!(
        refusal(&bad, &validate_create(&bad, None).0),
        "Cluster.cluster.x-k8s.io \"cluster1\" is invalid: [spec.clusterNetwork.pods.cidrBlocks[0]: Invalid value: \"10.10.10.10\": invalid CIDR address: 10.10.10.10, spec.clusterNetwork.pods.cidrBlocks[1]: Invalid value: \"11.11.11.11\": invalid CIDR address: 11.11.11.11, spec.clusterNetwork.services.cidrBlocks[0]: Invalid value: \"10.0.0.0/33\": invalid CIDR address: 10.0.0.0/33]"
    );
}

#[test]
fn class_name_required_and_nothing_else_checked() {
    let mut t = topology();
    t["classRef"]["name"] = json!("");
    t["version"] = json!("bad");
    let (errs, warnings) = validate_create(&cluster(t), Some(&class()));
    assert_eq!(
        texts(&errs),
        vec!["spec.topology.class: Required value: classRef.name cannot be empty"]
    );
    assert!(warnings.is_empty());
}

#[test]
fn class_not_found_warns_and_skips_the_class_rules() {
    let mut t = topology();
    t["workers"]["machineDeployments"][0]["class"] = json!("nope");
    t["classRef"]["namespace"] = json!("other");
    let (errs, warnings) = validate_create(&cluster(t), None);
    assert!(errs.is_empty(), "{:?}", texts(&errs));
    assert_eq!(warnings, vec![
        "Cluster refers to ClusterClass other/cc, but this ClusterClass does not exist. Cluster topology has not been fully validated. The ClusterClass must be created to reconcile the Cluster"
    ]);
}

#[test]
fn a_paused_class_warns_but_its_rules_still_apply() {
    let mut cc = class();
    cc["metadata"]["annotations"] = json!({"cluster.x-k8s.io/paused": ""});
    let mut t = topology();
    t["workers"]["machineDeployments"][0]["class"] = json!("nope");
    let (errs, warnings) = validate_create(&cluster(t), Some(&cc));
    assert_eq!(texts(&errs), vec![
        "spec.topology.workers.machineDeployments[0].class: Invalid value: \"nope\": MachineDeploymentClass with name \"nope\" does not exist in ClusterClass \"cc\""
    ]);
    assert_eq!(warnings, vec![
        "Cluster refers to ClusterClass ns/cc, but this ClusterClass hasn't been successfully reconciled. Cluster topology has not been fully validated. Please take a look at the ClusterClass status"
    ]);
    assert!(!Class::new(&cc).reconciled);
    assert!(Class::new(&class()).reconciled);
}

#[test]
fn errors_come_in_go_order() {
    let mut c = cluster(topology());
    c["metadata"]["name"] = json!("c_");
    c["metadata"]["annotations"] = json!({"topology.cluster.x-k8s.io/upgrade-concurrency": "0"});
    c["spec"]["clusterNetwork"] = json!({"services": {"cidrBlocks": ["x"]}});
    let t = &mut c["spec"]["topology"];
    t["version"] = json!("v1.33");
    t["controlPlane"] = json!({"metadata": {"labels": {"k": "-"}}, "taints": [{"key": "node.cluster.x-k8s.io/outdated-revision", "effect": "NoSchedule"}]});
    t["workers"]["machineDeployments"][0]["rollout"] =
        json!({"strategy": {"rollingUpdate": {"maxSurge": "s"}}});
    t["workers"]["machineDeployments"][0]["replicas"] = json!(2);
    t["workers"]["machineDeployments"][0]["metadata"] = json!({"annotations": {"cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size": "1"}});
    t["workers"]["machinePools"][0]["class"] = json!("q");
    let paths: Vec<String> = validate_create(&c, Some(&class()))
        .0
        .iter()
        .map(|e| e.field.clone())
        .collect();
    assert_eq!(
        paths,
        vec![
        "metadata.name",
        "spec.clusterNetwork.services.cidrBlocks[0]",
        "spec.topology.version",
        "spec.topology.controlPlane.metadata.labels",
        "spec.topology.workers.machineDeployments[md-0].rollout.strategy.rollingUpdate.maxSurge",
        "spec.topology.controlPlane.taints[0].key",
        "metadata.annotations.topology.cluster.x-k8s.io/upgrade-concurrency",
        "spec.topology.workers.machinePools[0].class",
        "spec.topology.workers.machineDeployments[md-0].replicas",
    ]
    );
}

#[test]
fn default_prefixes_the_version_and_defaults_variables() {
    let mut t = topology();
    t["version"] = json!("1.33.0");
    t["workers"]["machineDeployments"][0]["variables"] =
        json!({"overrides": [{"name": "o", "value": {}}]});
    let mut c = cluster(t);
    assert_eq!(default(&mut c, Some(&class())), Ok(()));
    assert_eq!(c.ptr("/spec/topology/version"), Some(&json!("v1.33.0")));
    assert_eq!(
        c.ptr("/spec/topology/variables"),
        Some(&json!([{"name": "n", "value": 1}, {"name": "o", "value": {"a": "x"}}]))
    );
    assert_eq!(
        c.ptr("/spec/topology/workers/machineDeployments/0/variables/overrides"),
        Some(&json!([{"name": "o", "value": {"a": "x"}}]))
    );
    // A Cluster without a topology is left alone.
    let mut plain = json!({"metadata": {"name": "c1"}, "spec": {"topology": {}}});
    assert_eq!(default(&mut plain, Some(&class())), Ok(()));
    assert_eq!(plain.ptr("/spec/topology"), Some(&json!({})));
}

#[test]
fn default_refuses_an_empty_class_name() {
    let mut t = topology();
    t["classRef"]["name"] = json!("");
    let mut c = cluster(t);
    assert_eq!(
        default(&mut c, Some(&class())),
        Err("Cluster.cluster.x-k8s.io \"c1\" is invalid: spec.topology.classRef.name: Required value: cannot be empty".to_string())
    );
}

#[test]
fn default_refuses_invalid_variables() {
    let mut t = topology();
    t["variables"] = json!([{"name": "n", "value": 7}]);
    t["workers"]["machinePools"][0]["variables"] =
        json!({"overrides": [{"name": "n", "value": "x"}]});
    let mut c = cluster(t);
    assert_eq!(
        default(&mut c, Some(&class())),
        Err("Cluster.cluster.x-k8s.io \"c1\" is invalid: [spec.topology.variables[n].value: Invalid value: \"7\": should be less than or equal to 5, spec.topology.workers.machinePools[mp-0].variables.overrides[n].value: Invalid value: \"\\\"x\\\"\": must be of type integer: \"string\"]".to_string())
    );
    let mut missing = cluster(json!({"classRef": {"name": "cc"}, "version": "v1.33.0"}));
    assert_eq!(
        default(&mut missing, Some(&class())),
        Err("Cluster.cluster.x-k8s.io \"c1\" is invalid: spec.topology.variables: Required value: required variable \"n\" must be set".to_string())
    );
}

#[test]
fn default_skips_variables_without_a_reconciled_class() {
    let mut t = topology();
    t["variables"] = json!([{"name": "n", "value": 7}]);
    let mut paused = class();
    paused["metadata"]["annotations"] = json!({"cluster.x-k8s.io/paused": "true"});
    for cc in [None, Some(&paused)] {
        let mut c = cluster(t.clone());
        assert_eq!(default(&mut c, cc), Ok(()));
        assert_eq!(
            c.ptr("/spec/topology/variables"),
            Some(&json!([{"name": "n", "value": 7}]))
        );
    }
}

#[test]
fn default_ignores_v1beta1_definition_from() {
    let mut t = topology();
    t["variables"] = json!([{"name": "n", "value": 1, "definitionFrom": "inline"}]);
    let mut c = cluster(t);
    assert_eq!(default(&mut c, Some(&class())), Ok(()));
    assert_eq!(
        c.ptr("/spec/topology/variables/0"),
        Some(&json!({"name": "n", "value": 1}))
    );
}

#[test]
fn class_status_variables_are_read_when_set() {
    let mut cc = class();
    cc["status"] = json!({"variables": [{"name": "n", "definitions": [{"from": "inline", "required": false,
        "schema": {"openAPIV3Schema": {"type": "string"}}}]}]});
    let mut c = cluster(json!({"classRef": {"name": "cc"}, "version": "v1.33.0",
        "variables": [{"name": "n", "value": 1}]}));
    assert_eq!(
        default(&mut c, Some(&cc)),
        Err("Cluster.cluster.x-k8s.io \"c1\" is invalid: spec.topology.variables[n].value: Invalid value: \"1\": must be of type string: \"integer\"".to_string())
    );
    // Conflicting definitions: the controller does not reconcile the class.
    cc["status"]["variables"][0]["definitionsConflict"] = json!(true);
    assert!(!Class::new(&cc).reconciled);
}

#[test]
fn odd_shapes_do_not_panic() {
    for spec in [
        json!(null),
        json!(3),
        json!({"topology": "x"}),
        json!({"topology": {"workers": 1}}),
        json!({"topology": {"classRef": {"name": "cc"}, "workers": {"machineDeployments": [1, null]}, "controlPlane": {"taints": "x"}}}),
    ] {
        let mut c = json!({"metadata": {"name": "c1"}, "spec": spec});
        let _ = validate_create(&c, Some(&class()));
        let _ = default(&mut c, Some(&class()));
    }
}
