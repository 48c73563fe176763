//! A Cluster whose ClusterClass lives in another namespace (`spec.topology.classNamespace`;
//! v1beta2 `classRef.namespace`): rendered against that namespace's class and
//! templates, exactly as the same Cluster with the class in its own namespace; its unit
//! follows the class unit of the other namespace; a change there re-renders it; a class
//! that is not among the inputs is named with the classes that are.
//! On the corpus's v1.10.10 quick-start ClusterClass.

use std::fs;
use std::path::Path;

mod common;
use common::{bin, run, Scratch};

/// The quick-start class and its templates, every document in namespace `ns`.
fn class_in(corpus: &Path, ns: &str) -> String {
    fs::read_to_string(
        corpus.join("repository/infrastructure-docker/v1.10.10/clusterclass-quick-start.yaml"),
    )
    .unwrap()
    .replace("metadata:\n", &format!("metadata:\n  namespace: {ns}\n"))
}

fn cluster(class_ns: Option<&str>) -> String {
    let class_ns = class_ns
        .map(|n| format!("    classNamespace: {n}\n"))
        .unwrap_or_default();
    format!("apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: alpha\n  namespace: team-a\nspec:\n  topology:\n    class: quick-start\n{class_ns}    version: v1.32.0\n    controlPlane:\n      replicas: 1\n    variables:\n    - name: imageRepository\n      value: \"\"\n    - name: etcdImageTag\n      value: \"\"\n    - name: coreDNSImageTag\n      value: \"\"\n    - name: podSecurityStandard\n      value:\n        enabled: false\n    workers:\n      machineDeployments:\n      - class: default-worker\n        name: md-0\n        replicas: 1\n")
}

fn render(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut c = bin();
    c.current_dir(dir).args(["render", "-f", "in"]).args(args);
    run(&mut c, None)
}

fn ok(o: &std::process::Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn setup(s: &Scratch, class_ns: &str, cluster_text: &str) {
    let Some(c) = common::corpus() else { return };
    fs::create_dir_all(s.path().join("in")).unwrap();
    fs::write(s.path().join("in/class.yaml"), class_in(&c, class_ns)).unwrap();
    fs::write(s.path().join("in/cluster.yaml"), cluster_text).unwrap();
}

#[test]
fn a_class_of_another_namespace_renders_as_one_of_its_own() {
    if common::corpus().is_none() {
        return;
    }
    let cross = Scratch::new("xns-cross");
    setup(&cross, "platform", &cluster(Some("platform")));
    let local = Scratch::new("xns-local");
    setup(&local, "team-a", &cluster(None));
    let a = ok(&render(
        cross.path(),
        &["--clusters", "desired", "--stdout"],
    ));
    let b = ok(&render(
        local.path(),
        &["--clusters", "desired", "--stdout"],
    ));
    assert!(a.contains("kind: DockerMachineTemplate"), "{a}");
    assert!(a.contains("    classNamespace: platform\n"), "{a}");
    // The generated objects are the Cluster's namespace's, whatever the class's.
    assert!(!a.contains("namespace: platform"), "{a}");
    assert_eq!(a.replace("    classNamespace: platform\n", ""), b);
}

#[test]
fn the_cluster_unit_follows_the_class_unit_and_a_class_change_rerenders_it() {
    let Some(c) = common::corpus() else { return };
    let s = Scratch::new("xns-tree");
    setup(&s, "platform", &cluster(Some("platform")));
    let out = s.path().join("out");
    let out_s = out.to_str().unwrap();
    ok(&render(s.path(), &["-o", out_s]));
    let root = fs::read_to_string(out.join("kustomization.yaml")).unwrap();
    let class_at = root.find("classes/platform/quick-start").expect(&root);
    let cluster_at = root.find("clusters/team-a/alpha").expect(&root);
    assert!(class_at < cluster_at, "{root}");
    // Flux and Argo CD order the two units the same way: `dependsOn` and sync waves.
    let o = render(
        s.path(),
        &[
            "-o",
            "gitops",
            "--flux",
            "--argocd",
            "--argocd-repo",
            "https://git.example/x.git",
        ],
    );
    ok(&o);
    let ks = fs::read_to_string(s.path().join("gitops/flux/cluster-team-a-alpha.yaml")).unwrap();
    assert!(
        ks.contains("  dependsOn:\n  - name: class-platform-quick-start\n"),
        "{ks}"
    );
    let wave = |f: &str| {
        let app = fs::read_to_string(s.path().join("gitops/argocd").join(f)).unwrap();
        let w = app
            .split("argocd.argoproj.io/sync-wave: \"")
            .nth(1)
            .expect(&app);
        w[..w.find('"').unwrap()].parse::<i64>().unwrap()
    };
    assert!(
        wave("class-platform-quick-start.yaml") < wave("cluster-team-a-alpha.yaml"),
        "the Cluster's Application syncs after its class's"
    );
    // Nothing changed: nothing written.
    let o = render(s.path(), &["-o", out_s]);
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("0 written"), "{err}");
    // The class's namespace changes (a patch's image): the Cluster's desired objects
    // follow, and `--check` sees it first.
    let edited = class_in(&c, "platform").replace("kindest/node:", "mirror.example/node:");
    assert_ne!(edited, class_in(&c, "platform"));
    fs::write(s.path().join("in/class.yaml"), edited).unwrap();
    let o = render(s.path(), &["--check", out_s]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = render(s.path(), &["-o", out_s]);
    ok(&o);
    let review = fs::read_dir(out.join("clusters/team-a/alpha/desired"))
        .unwrap()
        .map(|e| fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<String>();
    assert!(review.contains("mirror.example"), "{review}");
    // And the run after that keeps everything again.
    let o = render(s.path(), &["-o", out_s]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("0 written"), "{err}");
}

#[test]
fn a_class_not_among_the_inputs_is_named_with_those_that_are() {
    if common::corpus().is_none() {
        return;
    }
    let s = Scratch::new("xns-missing");
    setup(&s, "platform", &cluster(Some("platfrom")));
    let o = render(s.path(), &["--stdout"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("failed to retrieve ClusterClass platfrom/quick-start"),
        "{err}"
    );
    assert!(
        err.contains("did you mean \"platform/quick-start\"?"),
        "{err}"
    );
    assert!(err.contains("in/cluster.yaml"), "{err}");
}
