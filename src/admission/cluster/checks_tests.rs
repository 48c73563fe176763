use super::*;
use serde_json::json;

fn texts(errs: Vec<FieldError>) -> Vec<String> {
    errs.iter().map(ToString::to_string).collect()
}

fn class() -> Value {
    json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "ClusterClass",
        "metadata": {"name": "cc", "namespace": "ns"},
        "spec": {
            "controlPlane": {"templateRef": {"apiVersion": "c/v1", "kind": "CT", "name": "ct"}},
            "workers": {
                "machineDeployments": [{"class": "w"}, {"class": "w-hc", "healthCheck": {"checks": {"nodeStartupTimeoutSeconds": 300}}}],
                "machinePools": [{"class": "p"}]}}})
}

fn cluster(topology: Value) -> Value {
    let mut t = json!({"classRef": {"name": "cc"}, "version": "v1.33.0"});
    if let (Some(m), Value::Object(extra)) = (t.as_object_mut(), topology) {
        m.extend(extra);
    }
    json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
        "metadata": {"name": "c1", "namespace": "ns"}, "spec": {"topology": t}})
}

#[test]
fn kubernetes_versions() {
    let mut cc = class();
    cc["spec"]["kubernetesVersions"] = json!(["v1.32.0", "v1.33.0"]);
    assert!(cluster_for_class_errors(&cluster(json!({})), &cc).is_empty());
    let c = cluster(json!({"version": "v1.3.2"}));
    assert_eq!(
        texts(cluster_for_class_errors(&c, &cc)),
        vec!["spec.topology.version: Invalid value: \"v1.3.2\": version must match one of the versions defined in the ClusterClass"]
    );
    // Without kubernetesVersions any version passes this rule.
    assert!(cluster_for_class_errors(&c, &class()).is_empty());
}

#[test]
fn worker_topologies_defined_and_unique() {
    let ok = cluster(json!({"workers": {
        "machineDeployments": [{"class": "w", "name": "a"}, {"class": "w", "name": "b"}],
        "machinePools": [{"class": "p", "name": "a"}]}}));
    assert!(cluster_for_class_errors(&ok, &class()).is_empty());
    let bad = cluster(json!({"workers": {
        "machineDeployments": [{"class": "w", "name": "a"}, {"class": "x", "name": "a"}, {"class": "w", "name": ""}],
        "machinePools": [{"class": "q", "name": "p"}, {"class": "p", "name": "p"}]}}));
    assert_eq!(texts(cluster_for_class_errors(&bad, &class())), vec![
        "spec.topology.workers.machineDeployments[1].class: Invalid value: \"x\": MachineDeploymentClass with name \"x\" does not exist in ClusterClass \"cc\"",
        "spec.topology.workers.machineDeployments[1].name: Invalid value: \"a\": name must be unique. MachineDeployment with name \"a\" is defined more than once",
        "spec.topology.workers.machineDeployments[2].name: Required value: name must not be empty",
        "spec.topology.workers.machinePools[0].class: Invalid value: \"q\": MachinePoolClass with name \"q\" does not exist in ClusterClass \"cc\"",
        "spec.topology.workers.machinePools[1].name: Invalid value: \"p\": name must be unique. MachinePool with name \"p\" is defined more than once",
    ]);
}

#[test]
fn control_plane_health_check() {
    let hc = json!({"controlPlane": {"healthCheck": {"checks": {"nodeStartupTimeoutSeconds": 10},
        "remediation": {"triggerIf": {"unhealthyLessThanOrEqualTo": "abc"}}}}});
    assert_eq!(texts(cluster_for_class_errors(&cluster(hc.clone()), &class())), vec![
        "spec.topology.controlPlane.healthCheck: Forbidden: can be only set if spec.controlPlane.machineInfrastructure is set in ClusterClass",
        "spec.topology.controlPlane.healthCheck.checks.nodeStartupTimeoutSeconds: Invalid value: 10: must be at least 30s",
        "spec.topology.controlPlane.healthCheck.remediation.triggerIf.unhealthyLessThanOrEqualTo: Invalid value: \"abc\": must be either an int or a percentage: invalid value for IntOrString: invalid type: string is not a percentage",
    ]);
    let mut cc = class();
    cc["spec"]["controlPlane"]["machineInfrastructure"] =
        json!({"templateRef": {"apiVersion": "i/v1", "kind": "MT", "name": "mt"}});
    let ok = json!({"controlPlane": {"healthCheck": {"checks": {"nodeStartupTimeoutSeconds": 0},
        "remediation": {"triggerIf": {"unhealthyLessThanOrEqualTo": "40%"}}}}});
    assert!(cluster_for_class_errors(&cluster(ok), &cc).is_empty());
}

#[test]
fn enabled_needs_a_definition() {
    let on = json!({"controlPlane": {"healthCheck": {"enabled": true}},
        "workers": {"machineDeployments": [
            {"class": "w", "name": "a", "healthCheck": {"enabled": true}},
            {"class": "w-hc", "name": "b", "healthCheck": {"enabled": true}},
            {"class": "missing", "name": "c", "healthCheck": {"enabled": true}}]}});
    let t = texts(cluster_for_class_errors(&cluster(on), &class()));
    assert_eq!(t, vec![
        "spec.topology.workers.machineDeployments[2].class: Invalid value: \"missing\": MachineDeploymentClass with name \"missing\" does not exist in ClusterClass \"cc\"",
        "spec.topology.controlPlane.healthCheck.enable: Forbidden: cannot be set to true as healthCheck definition is not available in the Cluster topology or the ClusterClass",
        "spec.topology.workers.machineDeployments[a].healthCheck.enable: Forbidden: cannot be set to true as healthCheck definition is not available in the Cluster topology or the ClusterClass",
    ]);
    let mut cc = class();
    cc["spec"]["controlPlane"]["healthCheck"] =
        json!({"checks": {"nodeStartupTimeoutSeconds": 300}});
    let ok = json!({"controlPlane": {"healthCheck": {"enabled": true}},
        "workers": {"machineDeployments": [{"class": "w", "name": "a",
            "healthCheck": {"enabled": true, "checks": {"unhealthyNodeConditions": []}}}]}});
    assert!(cluster_for_class_errors(&cluster(ok), &cc).is_empty());
}

#[test]
fn machine_deployment_health_check_values() {
    let bad = json!({"workers": {"machineDeployments": [{"class": "w", "name": "a", "healthCheck": {
        "checks": {"nodeStartupTimeoutSeconds": 29},
        "remediation": {"maxInFlight": "3", "triggerIf": {"unhealthyLessThanOrEqualTo": "x%"}}}}]}});
    assert_eq!(texts(cluster_for_class_errors(&cluster(bad), &class())), vec![
        "spec.topology.workers.machineDeployments[a].healthCheck.checks.nodeStartupTimeoutSeconds: Invalid value: 29: must be at least 30s",
        "spec.topology.workers.machineDeployments[a].healthCheck.remediation.triggerIf.unhealthyLessThanOrEqualTo: Invalid value: \"x%\": must be either an int or a percentage: invalid value for IntOrString: invalid value \"x%\": strconv.Atoi: parsing \"x\": invalid syntax",
        "spec.topology.workers.machineDeployments[a].healthCheck.remediation.maxInFlight: Invalid value: \"3\": must be either an int or a percentage: invalid value for IntOrString: invalid type: string is not a percentage",
    ]);
    let ok = json!({"workers": {"machineDeployments": [{"class": "w", "name": "a", "healthCheck": {
        "checks": {"nodeStartupTimeoutSeconds": 30},
        "remediation": {"maxInFlight": 3, "triggerIf": {"unhealthyLessThanOrEqualTo": "50%"}}}}]}});
    assert!(cluster_for_class_errors(&cluster(ok), &class()).is_empty());
}

#[test]
fn autoscaler_annotations() {
    let with_replicas = |annotations: Value| {
        cluster(
            json!({"workers": {"machineDeployments": [{"class": "w", "name": "a", "replicas": 3,
            "metadata": {"annotations": annotations}}]}}),
        )
    };
    assert!(autoscaler_errors(&with_replicas(json!({})), Some(&class())).is_empty());
    let no_replicas = cluster(
        json!({"workers": {"machineDeployments": [{"class": "w", "name": "a",
        "metadata": {"annotations": {AUTOSCALER_MIN_SIZE: "1"}}}]}}),
    );
    assert!(autoscaler_errors(&no_replicas, Some(&class())).is_empty());
    let bad = with_replicas(json!({AUTOSCALER_MAX_SIZE: "5"}));
    assert_eq!(texts(autoscaler_errors(&bad, None)), vec![
        "spec.topology.workers.machineDeployments[a].replicas: Invalid value: 3: cannot be set for cluster \"c1\" in namespace \"ns\" if the same MachineDeploymentTopology has autoscaler annotations",
    ]);
    let mut cc = class();
    cc["spec"]["workers"]["machineDeployments"][0]["metadata"] =
        json!({"annotations": {AUTOSCALER_MIN_SIZE: "1"}});
    assert_eq!(texts(autoscaler_errors(&with_replicas(json!({})), Some(&cc))), vec![
        "spec.topology.workers.machineDeployments[a].replicas: Invalid value: 3: cannot be set for cluster \"c1\" in namespace \"ns\" if the source class \"w\" of this MachineDeploymentTopology has autoscaler annotations",
    ]);
    // Without the class only the topology's own annotations count.
    assert!(autoscaler_errors(&with_replicas(json!({})), None).is_empty());
}
