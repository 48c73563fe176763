//! The rollout impact of v1beta2 Clusters (Cluster API v1.14.2's rules) on the corpus
//! quick-start ClusterClass of infrastructure-docker v1.14.2: a Kubernetes version bump
//! rolls the control plane, the MachineDeployment and the MachinePool; replicas and
//! machine template labels change in place.

use capi_render::impact::{self, Action, ClusterAction};
use capi_render::topology::{self, input};
use serde_json::{json, Value};

mod common;
use common::v1beta2::*;

const CLASS: &str = "repository/infrastructure-docker/v1.14.2/clusterclass-quick-start.yaml";

/// The desired objects of the quick-start Cluster after `edit`.
fn desired(edit: impl Fn(&mut Value)) -> Vec<Value> {
    let mut objs = fixture("cluster-quick-start.yaml");
    objs.extend(corpus_objects(CLASS));
    input::set_missing_namespaces(&mut objs, "");
    let (mut c, rest) = cluster_and_rest(objs);
    edit(&mut c);
    topology::render_cluster(&c, &rest).unwrap()
}

fn summary(c: &impact::ClusterImpact) -> Vec<(String, Action, u64)> {
    c.parts()
        .map(|(_, p)| (p.name.clone(), p.action, p.machines))
        .collect()
}

#[test]
fn v1beta2_version_bump_rolls_everything_and_replicas_labels_are_in_place() {
    let Some(_) = common::corpus_path(CLASS) else {
        return;
    };
    let base = desired(|_| {});
    assert!(
        base.iter()
            .any(|o| o["apiVersion"] == "cluster.x-k8s.io/v1beta2"
                && o["kind"] == "MachineDeployment")
    );
    let bumped = desired(|c| c["spec"]["topology"]["version"] = json!("v1.35.0"));
    let i = impact::cluster("default", "qs", Some(&base), Some(&bumped));
    assert_eq!(i.action, ClusterAction::Update);
    let s = summary(&i);
    assert_eq!(s[0].1, Action::Rollout, "{s:?}");
    assert_eq!(s[0].2, 3);
    assert_eq!(s[1], ("md-0".to_string(), Action::Rollout, 2));
    assert_eq!(s[2], ("mp-0".to_string(), Action::Rollout, 1));
    assert!(i
        .control_plane
        .as_ref()
        .unwrap()
        .reasons
        .contains(&"spec.version: v1.34.1 → v1.35.0".to_string()));

    let scaled = desired(|c| {
        let md = &mut c["spec"]["topology"]["workers"]["machineDeployments"][0];
        md["replicas"] = json!(5);
        md["metadata"] = json!({"labels": {"tier": "gold"}});
    });
    let i = impact::cluster("default", "qs", Some(&base), Some(&scaled));
    let s = summary(&i);
    assert_eq!(s[0].1, Action::None, "{s:?}");
    assert_eq!(
        s[1],
        ("md-0".to_string(), Action::InPlace, 5),
        "{:?}",
        i.machine_deployments
    );
    assert_eq!(s[2].1, Action::None, "{s:?}");
}
