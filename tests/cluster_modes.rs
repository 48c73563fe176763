//! `render --clusters`: managed (the default: class units, the Cluster as given, the
//! desired objects for review), flatten (content-named templates, references moved,
//! no `spec.topology`) and desired (review on stdout only); and the rule of every mode:
//! `render -o` never writes a template whose spec changed under an existing name.
//! On the corpus: the v1.10.10 providers and its quick-start ClusterClass.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::Value;

mod common;
use common::{bin, run, Scratch};

const CP_IMAGE: &str = "kindest/node:{{ .builtin.controlPlane.version";

/// The corpus providers, the quick-start class in namespace `ns` and two Clusters of
/// it, under `dir`; `--repository` for the corpus.
fn inputs(corpus: &Path, dir: &Path) {
    let class = fs::read_to_string(
        corpus.join("repository/infrastructure-docker/v1.10.10/clusterclass-quick-start.yaml"),
    )
    .unwrap()
    .replace("metadata:\n", "metadata:\n  namespace: ns\n");
    fs::create_dir_all(dir.join("fleet")).unwrap();
    fs::write(dir.join("fleet/class.yaml"), class).unwrap();
    let cluster = |name: &str| {
        format!("apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: {name}\n  namespace: ns\nspec:\n  topology:\n    class: quick-start\n    version: v1.32.0\n    controlPlane:\n      replicas: 1\n    variables:\n    - name: imageRepository\n      value: \"\"\n    - name: etcdImageTag\n      value: \"\"\n    - name: coreDNSImageTag\n      value: \"\"\n    - name: podSecurityStandard\n      value:\n        enabled: false\n    workers:\n      machineDeployments:\n      - class: default-worker\n        name: md-0\n        replicas: 1\n")
    };
    fs::write(
        dir.join("fleet/clusters.yaml"),
        format!("{}---\n{}", cluster("a"), cluster("b")),
    )
    .unwrap();
    fs::copy(
        common::root().join("fixtures/gitops/corpus/providers.yaml"),
        dir.join("providers.yaml"),
    )
    .unwrap();
    // Inside the directory, as a repository would vendor it (`--from-lock` follows only
    // paths inside the repository).
    std::os::unix::fs::symlink(corpus.join("repository"), dir.join("repository")).unwrap();
}

fn render(corpus: &Path, dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut c = bin();
    let _ = corpus;
    c.current_dir(dir)
        .args(["--repository", "repository"])
        .args(["render", "-f", "providers.yaml", "-f", "fleet"])
        .args(extra);
    run(&mut c, None)
}

fn ok(o: &std::process::Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn yaml(p: &Path) -> Value {
    capi_render::yaml::parse_value(&fs::read_to_string(p).unwrap()).unwrap()
}

fn resources(p: &Path) -> Vec<String> {
    yaml(&p.join("kustomization.yaml"))["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// Every file under `dir` (relative path → content).
fn files(dir: &Path) -> BTreeMap<String, String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            (rel, fs::read_to_string(e.path()).unwrap())
        })
        .collect()
}

#[test]
fn managed_applies_class_units_and_clusters_and_keeps_the_desired_objects_for_review() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let s = Scratch::new("modes-managed");
    inputs(&corpus, s.path());
    ok(&render(
        &corpus,
        s.path(),
        &["-o", "out", "--flux", "--flux-path", "out"],
    ));
    let out = s.path().join("out");
    let root = resources(&out);
    let at = |d: &str| root.iter().position(|r| r == d).unwrap();
    // The namespaces unit first: the Namespace of the class and the Cluster (the
    // providers carry their own).
    assert_eq!(at("namespaces"), 0);
    assert_eq!(resources(&out.join("namespaces")), ["namespace-ns.yaml"]);
    assert!(at("providers/capi-system/core-cluster-api") < at("classes/ns/quick-start"));
    assert!(at("classes/ns/quick-start") < at("clusters/ns/a"));
    // The class unit: every template the class refers to, then the class.
    let class = resources(&out.join("classes/ns/quick-start"));
    assert_eq!(class.len(), 7, "{class:?}");
    assert_eq!(class.last().unwrap(), "clusterclass-quick-start.yaml");
    // The Cluster unit applies the Cluster as given (spec.topology, no refs).
    assert_eq!(resources(&out.join("clusters/ns/a")), ["cluster-a.yaml"]);
    let c = yaml(&out.join("clusters/ns/a/cluster-a.yaml"));
    assert_eq!(c["spec"]["topology"]["class"], "quick-start");
    assert!(c["spec"].get("infrastructureRef").is_none());
    // The review files are the desired objects, exactly as --clusters desired prints them.
    let review: BTreeMap<String, String> = files(&out.join("clusters/ns/a/desired"));
    assert_eq!(review.len(), 9, "{:?}", review.keys());
    let desired = ok(&render(
        &corpus,
        s.path(),
        &["--stdout", "--clusters", "desired", "-q"],
    ));
    for text in review.values() {
        assert!(desired.contains(text.trim_end()), "{text}");
    }
    // Flux: the Cluster after its class, the class after the providers of its kinds.
    let ks = yaml(&out.join("flux/cluster-ns-a.yaml"));
    assert_eq!(
        ks["spec"]["dependsOn"],
        serde_json::json!([{"name": "capi-system-core-cluster-api"}, {"name": "class-ns-quick-start"}, {"name": "namespaces"}])
    );
    let deps = yaml(&out.join("flux/class-ns-quick-start.yaml"))["spec"]["dependsOn"].clone();
    for p in [
        "capi-system-core-cluster-api",
        "capi-kubeadm-bootstrap-system-bootstrap-kubeadm",
        "capi-kubeadm-control-plane-system-control-plane-kubeadm",
        "capd-system-infrastructure-docker",
    ] {
        assert!(
            deps.as_array()
                .unwrap()
                .contains(&serde_json::json!({"name": p})),
            "{p}: {deps}"
        );
    }
    // --stdout prints what the tree applies: no desired object.
    let stdout = ok(&render(&corpus, s.path(), &["--stdout", "-q"]));
    assert!(
        stdout.contains("\nkind: ClusterClass\n")
            && !stdout.contains("\nkind: MachineDeployment\n")
    );
    // A no-change run keeps the Clusters (their review files are in place) and passes --check.
    let again = render(
        &corpus,
        s.path(),
        &["-o", "out", "--flux", "--flux-path", "out"],
    );
    ok(&again);
    let report = String::from_utf8_lossy(&again.stderr);
    assert!(report.contains(" 0 written, "), "{report}");
    ok(&render(
        &corpus,
        s.path(),
        &["-o", "out", "--check", "--flux", "--flux-path", "out"],
    ));
}

#[test]
fn managed_follows_a_class_change_in_place_and_refuses_a_template_changed_under_its_name() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let s = Scratch::new("modes-refuse");
    inputs(&corpus, s.path());
    ok(&render(&corpus, s.path(), &["-o", "out"]));
    // A patch of the ClusterClass changes: the class changes in place, the review files follow.
    let class = s.path().join("fleet/class.yaml");
    let text = fs::read_to_string(&class).unwrap();
    fs::write(
        &class,
        text.replace(CP_IMAGE, &format!("registry.example/{CP_IMAGE}")),
    )
    .unwrap();
    ok(&render(&corpus, s.path(), &["-o", "out"]));
    let review = files(&s.path().join("out/clusters/ns/a/desired"));
    assert!(review
        .values()
        .any(|t| t.contains("registry.example/kindest/node:v1.32.0")));
    // A template's spec edited under its name: refused, naming the file; OUT unchanged.
    let text = fs::read_to_string(&class).unwrap();
    let edited = text.replacen(
        "      extraMounts:",
        "      preLoadImages: [\"x\"]\n      extraMounts:",
        1,
    );
    assert_ne!(edited, text);
    fs::write(&class, edited).unwrap();
    let before = common::snapshot(&s.path().join("out"));
    let o = render(&corpus, s.path(), &["-o", "out"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("out/classes/ns/quick-start/dockermachinetemplate-quick-start-")
            && err.contains("spec changed under the same name"),
        "{err}"
    );
    assert!(
        err.contains("give the changed template a new name"),
        "{err}"
    );
    assert_eq!(common::snapshot(&s.path().join("out")), before);
}

#[test]
fn flatten_names_templates_by_content_and_moves_every_reference() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let s = Scratch::new("modes-flatten");
    inputs(&corpus, s.path());
    ok(&render(
        &corpus,
        s.path(),
        &["-o", "out", "--clusters", "flatten"],
    ));
    let unit = s.path().join("out/clusters/ns/a");
    let before = files(&unit);
    assert!(!s.path().join("out/classes").exists() && !unit.join("desired").exists());
    let c = yaml(&unit.join("cluster-a.yaml"));
    assert!(c["spec"].get("topology").is_none());
    assert!(c["spec"]["controlPlaneRef"]["name"].is_string());
    // The class's control-plane image patch changes: only that template gets a new name.
    let class = s.path().join("fleet/class.yaml");
    let text = fs::read_to_string(&class).unwrap();
    fs::write(
        &class,
        text.replace(CP_IMAGE, &format!("registry.example/{CP_IMAGE}")),
    )
    .unwrap();
    ok(&render(
        &corpus,
        s.path(),
        &["-o", "out", "--clusters", "flatten"],
    ));
    let after = files(&unit);
    let gone: Vec<&String> = before.keys().filter(|k| !after.contains_key(*k)).collect();
    let new: Vec<&String> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    assert_eq!(gone.len(), 1, "{gone:?}");
    assert_eq!(new.len(), 1, "{new:?}");
    assert!(
        gone[0].starts_with("dockermachinetemplate-a-")
            && new[0].starts_with("dockermachinetemplate-a-")
    );
    let renamed = yaml(&unit.join(new[0]));
    let name = renamed["metadata"]["name"].as_str().unwrap();
    let kcp = after
        .iter()
        .find(|(k, _)| k.starts_with("kubeadmcontrolplane-"))
        .unwrap()
        .1;
    assert!(kcp.contains(&format!("name: {name}\n")), "{kcp}");
    // Every template kept its name kept its spec; the lock replays the mode.
    for (k, t) in &after {
        if before.get(k).is_some_and(|b| b != t) && k.contains("template-") {
            panic!("{k} changed in place");
        }
    }
    ok(&run(
        bin()
            .current_dir(s.path())
            .args(["render", "--from-lock", "out", "--check"]),
        None,
    ));
}

#[test]
fn desired_is_for_review_only() {
    let s = Scratch::new("modes-desired");
    let o = run(
        bin().current_dir(s.path()).args([
            "render",
            "-f",
            "x.yaml",
            "-o",
            "out",
            "--clusters",
            "desired",
        ]),
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--clusters desired prints"));
    assert!(!s.path().join("out").exists());
}
