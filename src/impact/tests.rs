use super::*;
use serde_json::json;

/// The desired objects of a v1beta2 Cluster `c` at `version` with one
/// MachineDeployment `md-0` of `replicas`, its template `image`, and `labels` on its
/// machine template.
fn desired(version: &str, replicas: u64, image: &str, labels: Value) -> Vec<Value> {
    vec![
        json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
               "metadata": {"name": "c", "namespace": "ns"},
               "spec": {"topology": {"classRef": {"name": "qs"}, "version": version}}}),
        json!({"apiVersion": "controlplane.cluster.x-k8s.io/v1beta2", "kind": "KubeadmControlPlane",
               "metadata": {"name": "c-abcde", "namespace": "ns"},
               "spec": {"replicas": 3, "version": version,
                        "machineTemplate": {"spec": {"infrastructureRef":
                            {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerMachineTemplate", "name": "c-cp-xyz"}}}}}),
        json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DockerMachineTemplate",
               "metadata": {"name": "c-cp-xyz", "namespace": "ns"},
               "spec": {"template": {"spec": {"customImage": "cp"}}}}),
        json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DockerMachineTemplate",
               "metadata": {"name": "c-md-0-xyz", "namespace": "ns"},
               "spec": {"template": {"spec": {"customImage": image}}}}),
        json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachineDeployment",
               "metadata": {"name": "c-md-0-fghij", "namespace": "ns",
                            "labels": {DEPLOYMENT_LABEL: "md-0"}},
               "spec": {"replicas": replicas,
                        "template": {"metadata": {"labels": labels},
                                     "spec": {"version": version, "infrastructureRef":
                                        {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerMachineTemplate", "name": "c-md-0-xyz"}}}}}),
    ]
}

fn base() -> Vec<Value> {
    desired("v1.31.2", 2, "img", json!({"tier": "a"}))
}

fn impact(after: &[Value]) -> ClusterImpact {
    cluster("ns", "c", Some(&base()), Some(after))
}

#[test]
fn a_version_bump_rolls_the_control_plane_and_every_machine_deployment() {
    let c = impact(&desired("v1.32.0", 2, "img", json!({"tier": "a"})));
    assert_eq!(c.action, ClusterAction::Update);
    assert_eq!(c.class, "ns/qs");
    let cp = c.control_plane.as_ref().unwrap();
    assert_eq!(
        (cp.name.as_str(), cp.action, cp.machines),
        ("c-abcde", Action::Rollout, 3)
    );
    assert_eq!(cp.reasons, vec!["spec.version: v1.31.2 → v1.32.0"]);
    let md = &c.machine_deployments[0];
    assert_eq!(
        (md.name.as_str(), md.action, md.machines),
        ("md-0", Action::Rollout, 2)
    );
    assert_eq!(
        md.reasons,
        vec!["spec.template.spec.version: v1.31.2 → v1.32.0"]
    );
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn machine_template_labels_propagate_in_place() {
    let c = impact(&desired("v1.31.2", 2, "img", json!({"tier": "b"})));
    let md = &c.machine_deployments[0];
    assert_eq!((md.action, md.machines), (Action::InPlace, 2));
    assert_eq!(
        md.reasons,
        vec!["spec.template.metadata.labels.tier: a → b"]
    );
    assert_eq!(c.control_plane.as_ref().unwrap().action, Action::None);
}

#[test]
fn replicas_change_in_place_and_count_the_machines_added() {
    let c = impact(&desired("v1.31.2", 5, "img", json!({"tier": "a"})));
    let md = &c.machine_deployments[0];
    assert_eq!((md.action, md.machines), (Action::InPlace, 3));
    assert_eq!(md.reasons, vec!["spec.replicas: 2 → 5"]);
}

#[test]
fn a_template_spec_changed_under_its_name_is_rotated_and_rolls() {
    let c = impact(&desired("v1.31.2", 2, "img2", json!({"tier": "a"})));
    let md = &c.machine_deployments[0];
    assert_eq!((md.action, md.machines), (Action::Rollout, 2));
    assert_eq!(
        md.reasons,
        vec!["DockerMachineTemplate c-md-0-xyz changes: the topology controller rotates it to a new template (spec.template.spec.customImage)"]
    );
}

#[test]
fn a_rotated_template_name_rolls_with_both_names() {
    let mut after = desired("v1.31.2", 2, "img2", json!({"tier": "a"}));
    after[3]["metadata"]["name"] = json!("c-md-0-new");
    after[4]["spec"]["template"]["spec"]["infrastructureRef"]["name"] = json!("c-md-0-new");
    let md = &impact(&after).machine_deployments[0];
    assert_eq!(md.action, Action::Rollout);
    assert_eq!(
        md.reasons[0],
        "spec.template.spec.infrastructureRef.name: c-md-0-xyz → c-md-0-new"
    );
    assert!(
        md.reasons[1].starts_with("DockerMachineTemplate c-md-0-xyz rotated"),
        "{:?}",
        md.reasons
    );
}

#[test]
fn a_deleted_cluster_warns_with_its_machines() {
    let c = cluster("ns", "c", Some(&base()), None);
    assert_eq!(c.action, ClusterAction::Delete);
    assert_eq!(c.machines(), 5);
    assert_eq!(
        c.warnings,
        vec!["Cluster ns/c is deleted: the workload cluster and its 5 machines are destroyed"]
    );
    let created = cluster("ns", "c", None, Some(&base()));
    assert_eq!(created.action, ClusterAction::Create);
    assert!(created.warnings.is_empty());
}

#[test]
fn a_skipped_minor_and_workers_ahead_are_warned() {
    let mut after = desired("v1.33.0", 2, "img", json!({"tier": "a"}));
    after[1]["spec"]["version"] = json!("v1.32.0");
    let c = impact(&after);
    assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
    assert!(
        c.warnings[0].contains("v1.31.2 → v1.33.0 skips a minor"),
        "{:?}",
        c.warnings
    );
    assert!(c.warnings[1].contains("md-0 runs Kubernetes v1.33.0, ahead of its control plane"));
}

#[test]
fn v1beta1_machine_deployments_compare_the_whole_template_spec() {
    let mut b = base();
    b[4]["apiVersion"] = json!("cluster.x-k8s.io/v1beta1");
    let mut a = b.clone();
    a[4]["spec"]["template"]["spec"]["nodeDrainTimeout"] = json!("5m");
    let md = &cluster("ns", "c", Some(&b), Some(&a)).machine_deployments[0];
    assert_eq!(md.action, Action::InPlace);
    a[4]["spec"]["template"]["spec"]["failureDomain"] = json!("fd-1");
    let md = &cluster("ns", "c", Some(&b), Some(&a)).machine_deployments[0];
    assert_eq!(md.action, Action::Rollout);
}

#[test]
fn headline_and_sections_summarise_the_fleet() {
    let bumped = impact(&desired("v1.32.0", 2, "img", json!({"tier": "a"})));
    let labels = cluster(
        "ns",
        "d",
        Some(&base()),
        Some(&desired("v1.31.2", 2, "img", json!({"tier": "b"}))),
    );
    let deleted = cluster("ns", "e", Some(&base()), None);
    let all = vec![bumped.clone(), labels, deleted];
    assert_eq!(
        report::headline(&all),
        "2 Clusters changed · 1 control plane rolls (3 machines) · 1 MachineDeployment rolls (2 machines) · 1 in place · 1 Cluster deleted (5 machines)"
    );
    assert_eq!(report::headline(&[]), "no Cluster changes");
    assert_eq!(
        report::section(&bumped),
        "Cluster ns/c: update\n  control plane c-abcde: rollout (3 machines)\n    spec.version: v1.31.2 → v1.32.0\n  MachineDeployment md-0: rollout (2 machines)\n    spec.template.spec.version: v1.31.2 → v1.32.0\n"
    );
    let changed: BTreeSet<String> = ["ns/qs".to_string()].into();
    let w = report::class_warnings(&all, &changed, &BTreeSet::new());
    assert_eq!(w.len(), 1);
    assert!(
        w[0].starts_with("ClusterClass ns/qs changes roll 1 Cluster (5 machines replaced): ns/c;"),
        "{w:?}"
    );
    let w = report::class_warnings(&all, &BTreeSet::new(), &changed);
    assert_eq!(
        w,
        vec!["ClusterClass ns/qs is removed while Clusters use it: ns/c, ns/d"]
    );
}

#[test]
fn one_machine_is_written_in_the_singular() {
    let one = cluster(
        "ns",
        "c",
        Some(&desired("v1.31.2", 1, "img", json!({"tier": "a"}))),
        Some(&desired("v1.32.0", 1, "img", json!({"tier": "a"}))),
    );
    let h = report::headline(std::slice::from_ref(&one));
    assert!(h.ends_with("1 MachineDeployment rolls (1 machine)"), "{h}");
    assert!(report::section(&one).contains("  MachineDeployment md-0: rollout (1 machine)\n"));
    assert_eq!(super::machines(0), "0 machines");
}

#[test]
fn parts_of_a_cluster_rendered_without_its_external_patches_are_unknown() {
    let why = "ClusterClass ns/qs patch \"ext\" calls runtime extension handlers gen.x, which capi-render does not call offline".to_string();
    let with = |mut objs: Vec<Value>| {
        objs.push(super::pending_fact(std::slice::from_ref(&why)));
        objs
    };
    // Labels only: in place without the extension's patches, unknown with them.
    let labels = cluster(
        "ns",
        "c",
        Some(&with(base())),
        Some(&with(desired("v1.31.2", 2, "img", json!({"tier": "b"})))),
    );
    let md = &labels.machine_deployments[0];
    assert_eq!((md.action, md.machines), (Action::Unknown, 2), "{md:?}");
    assert_eq!(md.reasons.last(), Some(&why));
    // The control plane, unchanged in the objects at hand, is unknown with its replicas.
    let cp = labels.control_plane.as_ref().unwrap();
    assert_eq!((cp.action, cp.machines), (Action::Unknown, 3));
    assert_eq!(cp.reasons, [why.clone()]);
    // A version bump rolls whatever the extension patches.
    let bumped = cluster(
        "ns",
        "c",
        Some(&with(base())),
        Some(&with(desired("v1.32.0", 2, "img", json!({"tier": "a"})))),
    );
    assert!(bumped.parts().all(|(_, p)| p.action == Action::Rollout));
    // Without the fact nothing is deferred.
    assert_eq!(super::pending_of(Some(&base())), Vec::<String>::new());
    assert_eq!(
        impact(&desired("v1.31.2", 2, "img", json!({"tier": "b"}))).machine_deployments[0].action,
        Action::InPlace
    );
}
