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

/// The corpus class (placeholders at their defaults) with `kubernetesVersions`, and the
/// quick-start Cluster at `version`, in `dir`.
fn chained_inputs(dir: &std::path::Path, version: &str, versions: &str) {
    let class = corpus_text(CLASS).replacen(
        "kind: ClusterClass\nmetadata:\n  name: quick-start\nspec:\n",
        &format!("kind: ClusterClass\nmetadata:\n  name: quick-start\nspec:\n  kubernetesVersions: {versions}\n"),
        1,
    );
    assert!(class.contains("kubernetesVersions"));
    let cluster = std::fs::read_to_string(
        common::root().join("fixtures/topology-v1beta2/cluster-quick-start.yaml"),
    )
    .unwrap()
    .replace("version: v1.34.1\n", &format!("version: {version}\n"));
    write_inputs(dir, &class, &cluster);
}

/// `dir` with `class.yaml` and `cluster.yaml`.
fn write_inputs(dir: &std::path::Path, class: &str, cluster: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("class.yaml"), class).unwrap();
    std::fs::write(dir.join("cluster.yaml"), cluster).unwrap();
}

/// `diff -f A --against B --output-format FMT`'s stdout; it must exit 1 (changes).
fn diff_output(a: &std::path::Path, b: &std::path::Path, fmt: &str) -> String {
    let o = common::run(
        common::bin()
            .args(["diff", "-f"])
            .arg(a)
            .arg("--against")
            .arg(b)
            .args(["--output-format", fmt]),
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn a_chained_upgrade_shows_its_plan_and_a_class_missing_a_minor_is_refused() {
    let Some(_) = common::corpus_path(CLASS) else {
        return;
    };
    let s = common::Scratch::new("impact-chained");
    let versions = "[v1.33.2, v1.34.1, v1.34.3, v1.35.0]";
    chained_inputs(&s.path().join("a"), "v1.33.2", versions);
    chained_inputs(&s.path().join("b"), "v1.35.0", versions);
    let diff = |fmt: &str| diff_output(&s.path().join("a"), &s.path().join("b"), fmt);
    let text = diff("text");
    assert!(
        text.contains("  upgrade plan: control plane v1.34.3 → v1.35.0; workers v1.35.0\n"),
        "{text}"
    );
    assert!(!text.contains("skips a minor"), "{text}");
    let v: Value = serde_json::from_str(&diff("json")).unwrap();
    assert_eq!(
        v["impact"]["clusters"][0]["upgradePlan"],
        json!({"controlPlane": ["v1.34.3", "v1.35.0"], "workers": ["v1.35.0"]})
    );

    // Without v1.34 in the class, Cluster API v1.14.2's ClusterClass webhook refuses the
    // class (kubernetesVersions may skip no minor): diff refuses the change, naming the
    // rule, before any impact is computed.
    chained_inputs(&s.path().join("a"), "v1.33.2", "[v1.33.2, v1.34.1]");
    chained_inputs(&s.path().join("b"), "v1.35.0", "[v1.33.2, v1.35.0]");
    let o = common::run(
        common::bin()
            .args(["diff", "-f"])
            .arg(s.path().join("a"))
            .arg("--against")
            .arg(s.path().join("b")),
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(o.stdout.is_empty());
    assert!(
        err.contains("admission webhook \"validation.clusterclass.cluster.x-k8s.io\" denied the request: ClusterClass.cluster.x-k8s.io \"quick-start\" is invalid: spec.kubernetesVersion[1]: Invalid value: \"v1.35.0\""),
        "{err}"
    );
}

/// The e2e quick-start-runtimesdk class (one external patch) and its Cluster in `dir`,
/// with `edit` applied to the Cluster's text and `class_edit` to the class's.
fn runtimesdk_inputs(dir: &std::path::Path, edit: (&str, &str), class_edit: (&str, &str)) {
    let class = corpus_text(&format!("{E2E}/clusterclass-quick-start-runtimesdk.yaml"))
        .replace(class_edit.0, class_edit.1);
    let cluster = std::fs::read_to_string(
        common::root().join("fixtures/topology-v1beta2/cluster-runtimesdk.yaml"),
    )
    .unwrap()
    .replace(edit.0, edit.1);
    write_inputs(dir, &class, &cluster);
}

#[test]
fn a_class_with_external_patches_is_decided_at_run_time() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let s = common::Scratch::new("impact-runtimesdk");
    let (a, b) = (s.path().join("a"), s.path().join("b"));
    let same = ("", "");
    runtimesdk_inputs(&a, same, same);
    let diff = || {
        let v: Value = serde_json::from_str(&diff_output(&a, &b, "json")).unwrap();
        v["impact"]["clusters"].clone()
    };
    let why = "ClusterClass default/quick-start-runtimesdk patch \"test-patch\" calls runtime extension handlers generate-patches.k8s-upgrade-with-runtimesdk, validate-topology.k8s-upgrade-with-runtimesdk, discover-variables.k8s-upgrade-with-runtimesdk, which capi-render does not call offline";

    // Labels: in place by the objects at hand, but the extension may patch anything.
    let labels = "      replicas: 1\n      metadata:\n        labels:\n          tier: gold\n";
    runtimesdk_inputs(&b, ("      replicas: 1\n", labels), same);
    let c = diff();
    let cp = &c[0]["controlPlane"];
    assert_eq!(
        (cp["action"].as_str(), cp["machines"].as_u64()),
        (Some("unknown"), Some(1)),
        "{c}"
    );
    assert!(
        cp["reasons"].as_array().unwrap().contains(&json!(why)),
        "{c}"
    );

    // The class alone changes (another generate handler): the Cluster's objects at
    // hand are the same, what the extension returns is not known.
    runtimesdk_inputs(
        &b,
        same,
        (
            "generate-patches.k8s-upgrade-with-runtimesdk",
            "generate-patches.other",
        ),
    );
    let c = diff();
    assert_eq!(c.as_array().map(Vec::len), Some(1), "{c}");
    assert_eq!(c[0]["name"], "rsdk");
    assert_eq!(c[0]["controlPlane"]["action"], "unknown", "{c}");

    // A version bump rolls the control plane whatever the extension patches.
    runtimesdk_inputs(&b, ("version: v1.34.1", "version: v1.35.0"), same);
    let c = diff();
    assert_eq!(c[0]["controlPlane"]["action"], "rollout", "{c}");

    // render itself still refuses the class: it never writes a desired state without
    // the extension's patches.
    let o = common::run(
        common::bin().args(["render", "--stdout", "-f"]).arg(&a),
        None,
    );
    assert_ne!(o.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("needs a runtime extension"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
