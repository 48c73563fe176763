use super::*;
use crate::impact::{ClusterAction, Part};
use serde_json::json;

fn class(patch_value: &str, worker_template: &str) -> Vec<Value> {
    vec![
        json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "ClusterClass",
        "metadata": {"name": "qs", "namespace": "default"},
        "spec": {
            "controlPlane": {"templateRef": {"kind": "KubeadmControlPlaneTemplate", "name": "cp"}},
            "workers": {"machineDeployments": [{"class": "default-worker",
                "bootstrap": {"templateRef": {"kind": "KubeadmConfigTemplate", "name": "boot"}},
                "infrastructure": {"templateRef": {"kind": "DockerMachineTemplate", "name": "worker"}}}]},
            "variables": [{"name": "imageRepository"}, {"name": "image"}],
            "patches": [
                {"name": "imageRepository", "definitions": [{
                    "selector": {"kind": "KubeadmControlPlaneTemplate", "matchResources": {"controlPlane": true}},
                    "jsonPatches": [{"op": "add", "path": "/spec/x", "valueFrom": {"variable": "imageRepository"}}]}]},
                {"name": "workerImage", "definitions": [{
                    "selector": {"kind": "DockerMachineTemplate",
                        "matchResources": {"machineDeploymentClass": {"names": ["default-worker"]}}},
                    "jsonPatches": [{"op": "add", "path": "/spec/y",
                        "valueFrom": {"template": patch_value}}]}]}
            ]}}),
        json!({"kind": "KubeadmControlPlaneTemplate", "metadata": {"name": "cp"}, "spec": {"a": 1}}),
        json!({"kind": "DockerMachineTemplate", "metadata": {"name": "worker"}, "spec": {"image": worker_template}}),
        json!({"kind": "KubeadmConfigTemplate", "metadata": {"name": "boot"}, "spec": {}}),
    ]
}

fn cluster(version: &str, repo: &str, md_replicas: u64) -> Value {
    json!({"kind": "Cluster", "metadata": {"name": "c", "namespace": "default"},
        "spec": {"topology": {"version": version, "classRef": {"name": "qs"},
            "variables": [{"name": "imageRepository", "value": repo}],
            "workers": {"machineDeployments": [
                {"class": "default-worker", "name": "md-0", "replicas": md_replicas}]}}}})
}

fn impact() -> ClusterImpact {
    let part = |name: &str, action| Part {
        name: name.into(),
        action,
        machines: 1,
        reasons: vec![],
    };
    ClusterImpact {
        namespace: "default".into(),
        name: "c".into(),
        class: "default/qs".into(),
        action: ClusterAction::Update,
        control_plane: Some(part("c-abcde", Action::Rollout)),
        machine_deployments: vec![part("md-0", Action::Rollout)],
        machine_pools: vec![],
        warnings: vec![],
        upgrade_plan: None,
    }
}

fn whats(o: &[Origin]) -> Vec<&str> {
    o.iter().map(|o| o.what.as_str()).collect()
}

#[test]
fn a_class_patch_reaches_what_its_selectors_match_and_reads_its_variables() {
    let f = class_facts(&class("{{ .image }}", "a")).unwrap();
    let (_, vars, targets) = &f.patches["workerImage"];
    assert_eq!(vars.iter().collect::<Vec<_>>(), ["image"]);
    assert_eq!(targets, &[Target::Md("default-worker".into())]);
    let (_, vars, targets) = &f.patches["imageRepository"];
    assert_eq!(vars.iter().collect::<Vec<_>>(), ["imageRepository"]);
    assert_eq!(targets, &[Target::ControlPlane]);
    // `.image` inside `.imageRepository` is not a read of `image`.
    assert!(!variables_of(
        &json!({"t": "{{ .imageRepository }}"}),
        &f.patches["workerImage"].1
    )
    .contains("image"));
}

#[test]
fn a_variable_is_credited_to_the_parts_its_patches_reach() {
    let f = class_facts(&class("x", "a")).unwrap();
    let (b, a) = (cluster("v1.34.1", "r1", 2), cluster("v1.34.1", "r2", 2));
    let o = origins(Some(&b), Some(&a), Some(&f), Some(&f));
    assert_eq!(whats(&o), ["variable imageRepository"]);
    let mut c = impact();
    attach(&mut c, Some(&a), &o);
    assert_eq!(
        c.control_plane.unwrap().reasons,
        ["from variable imageRepository"]
    );
    assert!(c.machine_deployments[0].reasons.is_empty());
}

#[test]
fn class_patches_templates_and_cluster_fields_are_origins() {
    let (fb, fa) = (
        class_facts(&class("x", "a")).unwrap(),
        class_facts(&class("y", "b")).unwrap(),
    );
    let (b, a) = (cluster("v1.34.1", "r", 2), cluster("v1.35.0", "r", 3));
    let o = origins(Some(&b), Some(&a), Some(&fb), Some(&fa));
    assert_eq!(
        whats(&o),
        [
            "Cluster spec.topology.version",
            "Cluster spec.topology.workers.machineDeployments[md-0].replicas",
            "ClusterClass patch workerImage",
            "template DockerMachineTemplate worker",
        ]
    );
    let mut c = impact();
    attach(&mut c, Some(&a), &o);
    assert_eq!(
        c.control_plane.unwrap().reasons,
        ["from Cluster spec.topology.version"]
    );
    assert_eq!(
        c.machine_deployments[0].reasons,
        [
            "from Cluster spec.topology.version",
            "from Cluster spec.topology.workers.machineDeployments[md-0].replicas",
            "from ClusterClass patch workerImage",
            "from template DockerMachineTemplate worker",
        ]
    );
}

#[test]
fn a_part_without_change_gets_no_origin() {
    let f = class_facts(&class("x", "a")).unwrap();
    let (b, a) = (cluster("v1.34.1", "r", 2), cluster("v1.35.0", "r", 2));
    let o = origins(Some(&b), Some(&a), Some(&f), Some(&f));
    let mut c = impact();
    c.machine_deployments[0].action = Action::None;
    attach(&mut c, Some(&a), &o);
    assert!(c.machine_deployments[0].reasons.is_empty());
    // A new Cluster has no origin of its own.
    assert!(origins(None, Some(&a), Some(&f), Some(&f)).is_empty());
}

#[test]
fn selector_names_match_with_wildcards() {
    assert!(glob("default-worker", "default-worker"));
    assert!(!glob("default-worker", "default-workers"));
    assert!(glob("*-worker", "default-worker"));
    assert!(glob("*", "anything"));
    assert!(glob("a*b*c", "aXbYc"));
    assert!(!glob("a*b*c", "aXcYb"));
    assert!(!glob("gpu-*", "default-worker"));
}
