//! Errors that teach, through the binary: a user's mistakes (a provider or version typo,
//! a value of the wrong type, a repeated key, a namespace mismatch, a KRM request without
//! options) fail with a non-zero exit, keep clusterctl's message on the first line where
//! clusterctl has one, and say what to do next (`  hint: ...`) or where (file, document,
//! field path).

mod common;

use std::fs;
use std::path::Path;
use std::process::Output;

use common::{bin, root, Scratch};

fn repo() -> String {
    root().join("fixtures/repository").display().to_string()
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    bin()
        .args(args)
        .current_dir(dir)
        .env_clear()
        .output()
        .unwrap()
}

fn run(args: &[&str]) -> Output {
    run_in(&root(), args)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn failed(o: &Output) -> String {
    let e = stderr(o);
    assert!(!o.status.success(), "expected a failure, got success: {e}");
    assert!(!e.contains("panicked"), "{e}");
    e
}

fn hint(e: &str) -> &str {
    e.lines()
        .find_map(|l| l.strip_prefix("  hint: "))
        .unwrap_or_else(|| panic!("no hint in: {e}"))
}

// ------------------------------------------------------------------ provider names

#[test]
fn provider_typo_suggests_the_closest_and_lists_the_repository() {
    let r = repo();
    let o = run(&["generate", "provider", "-i", "synht", "--repository", &r]);
    let e = failed(&o);
    // clusterctl's message stays first.
    assert!(
        e.lines()
            .next()
            .unwrap()
            .contains("infrastructure-synht: no such file or directory"),
        "{e}"
    );
    let h = hint(&e);
    assert!(h.contains("did you mean \"synth\"?"), "{h}");
    assert!(
        h.contains("InfrastructureProviders there: badimage, beta2, newfields, synth"),
        "{h}"
    );
}

#[test]
fn version_typo_lists_the_versions() {
    let r = repo();
    let o = run(&[
        "generate",
        "provider",
        "-i",
        "synth:v1.2.4",
        "--repository",
        &r,
    ]);
    let e = failed(&o);
    assert!(e.lines().next().unwrap().contains("stat "), "{e}");
    let h = hint(&e);
    assert!(
        h.contains("infrastructure-synth has no version v1.2.4; did you mean \"v1.2.3\"? versions there: v1.2.3, v1.3.0-beta.0"),
        "{h}"
    );
}

#[test]
fn unknown_provider_without_repository_lists_the_known_ones() {
    let o = run(&["generate", "provider", "-i", "dockr"]);
    let e = failed(&o);
    assert!(
        e.starts_with(
            "Error: failed to get configuration for the InfrastructureProvider with name dockr."
        ),
        "{e}"
    );
    let h = hint(&e);
    assert!(h.starts_with("did you mean \"docker\"?"), "{h}");
    assert!(h.contains("aws"), "{h}");
}

#[test]
fn provider_cr_typo_suggests_a_predefined_provider() {
    let d = Scratch::new("cr-typo");
    let f = d.write(
        "providers.yaml",
        "apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.0.0\n---\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: dockr\n  namespace: capd-system\nspec:\n  version: v1.0.0\n",
    );
    let r = repo();
    let o = run(&["render", "-f", &f, "--repository", &r, "--stdout"]);
    let e = failed(&o);
    assert!(e.contains("FetchConfigValidationError"), "{e}");
    let h = hint(&e);
    assert!(h.starts_with("did you mean \"docker\"?"), "{h}");
    assert!(h.contains("spec.fetchConfig"), "{h}");
}

// ------------------------------------------------------------------ strict decoding

const CLASS: &str = "fixtures/topology/no-patches/class.yaml";

fn cluster(topology_tail: &str) -> String {
    format!(
        "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: bare\n  namespace: default\nspec:\n  topology:\n    class: plain\n    version: v1.33.1\n    variables:\n    - name: registry\n      value: r\n{topology_tail}"
    )
}

/// The class and its templates, in namespace `default`, written to `dir/class.yaml`.
fn class_in_default(d: &Scratch) -> String {
    let class = fs::read_to_string(root().join(CLASS)).unwrap();
    d.write(
        "class.yaml",
        &class.replace(
            "metadata:\n  name: ",
            "metadata:\n  namespace: default\n  name: ",
        ),
    )
}

fn render_cluster(d: &Scratch, cluster_text: &str) -> Output {
    class_in_default(d);
    d.write("cluster.yaml", cluster_text);
    run_in(&d.0, &["render", "-f", ".", "--stdout"])
}

#[test]
fn render_rejects_a_duplicate_key_naming_file_and_line() {
    let d = Scratch::new("dup");
    let text = cluster("").replace(
        "spec:\n  topology:",
        "spec:\n  paused: false\nspec:\n  topology:",
    );
    let e = failed(&render_cluster(&d, &text));
    assert!(e.contains("cluster.yaml"), "{e}");
    assert!(e.contains("line 8: key \"spec\" already set in map"), "{e}");
}

#[test]
fn topology_plan_keeps_the_last_duplicate_as_clusterctl() {
    let d = Scratch::new("dup-plan");
    let class = class_in_default(&d);
    let c = d.write(
        "cluster.yaml",
        &cluster("").replace(
            "metadata:\n  name: bare",
            "metadata:\n  name: x\n  name: bare",
        ),
    );
    let o = run_in(
        &d.0,
        &["topology", "plan", "-f", &class, "-f", &c, "-o", "."],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("default/bare"));
}

#[test]
fn replicas_out_of_int32_range_is_an_error() {
    for (v, want) in [
        ("2147483648", "json: cannot unmarshal number 2147483648 into Go struct field MachineDeploymentTopology.spec.topology.workers.machineDeployments.replicas of type int32"),
        ("1e300", "json: cannot unmarshal number 1e+300 into Go struct field MachineDeploymentTopology.spec.topology.workers.machineDeployments.replicas of type int32"),
        ("one", "json: cannot unmarshal string into Go struct field MachineDeploymentTopology.spec.topology.workers.machineDeployments.replicas of type int32"),
    ] {
        let d = Scratch::new("replicas");
        let text = cluster(&format!(
            "    workers:\n      machineDeployments:\n      - class: default-worker\n        name: only\n        replicas: {v}\n"
        ));
        let e = failed(&render_cluster(&d, &text));
        assert!(e.contains(want), "{v}: {e}");
        // File and document.
        assert!(e.contains("cluster.yaml, document 1"), "{v}: {e}");
    }
}

// ------------------------------------------------------------------ topology plan

#[test]
fn namespace_mismatch_names_the_object() {
    let d = Scratch::new("ns");
    let class = class_in_default(&d);
    let c = d.write("cluster.yaml", &cluster(""));
    let o = run_in(
        &d.0,
        &[
            "topology", "plan", "-f", &class, "-f", &c, "-o", ".", "-n", "prod",
        ],
    );
    let e = failed(&o);
    assert!(e.contains("does not match the namespace \"prod\""), "{e}");
    assert!(
        hint(&e).contains("is in namespace \"default\", -n asks for \"prod\""),
        "{e}"
    );
    // The class without a namespace, the Cluster in `default`.
    let class = d.write(
        "class.yaml",
        &fs::read_to_string(root().join(CLASS)).unwrap(),
    );
    let o = run_in(
        &d.0,
        &["topology", "plan", "-f", &class, "-f", &c, "-o", "."],
    );
    let e = failed(&o);
    assert!(e.contains("should belong to the same namespace"), "{e}");
    let h = hint(&e);
    assert!(
        h.contains("ClusterClass \"plain\"") && h.contains("Cluster \"default/bare\""),
        "{h}"
    );
}

// ------------------------------------------------------------------ KRM

fn krm(dir: &Path, stdin: &str) -> Output {
    common::run(bin().arg("krm").current_dir(dir), Some(stdin.as_bytes()))
}

fn krm_error(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(1), "{}", stderr(o));
    let v = capi_render::yaml::parse_value(&String::from_utf8_lossy(&o.stdout)).unwrap();
    assert_eq!(v["kind"], "ResourceList");
    assert_eq!(v["results"][0]["severity"], "error");
    v["results"][0]["message"].as_str().unwrap().to_string()
}

#[test]
fn krm_without_function_config_is_an_error() {
    let d = Scratch::new("krm-nofc");
    let o = krm(
        &d.0,
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
    );
    let m = krm_error(&o);
    assert!(m.contains("no functionConfig"), "{m}");
}

#[test]
fn krm_refuses_inputs_outside_the_kustomization() {
    let d = Scratch::new("krm-paths");
    for p in ["/etc", "../outside", "a/../../b"] {
        let rl = format!(
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  apiVersion: capi-render.io/v1alpha1\n  kind: RenderConfig\n  metadata:\n    name: x\n  spec:\n    inputs: [{p:?}]\n"
        );
        let m = krm_error(&krm(&d.0, &rl));
        assert!(m.starts_with("functionConfig.spec.inputs[0]: "), "{p}: {m}");
    }
}

#[test]
fn krm_stdin_errors_speak_plainly() {
    let d = Scratch::new("krm-multi");
    let o = krm(
        &d.0,
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n...\nkind: Other\n",
    );
    let m = krm_error(&o);
    assert!(!m.contains("from_str"), "{m}");
    assert!(m.contains("more than one YAML document"), "{m}");
}

#[test]
fn a_cluster_in_two_files_names_both_files() {
    let s = Scratch::new("two-files");
    let clusters =
        fs::read_to_string(root().join("fixtures/quickstart/clusters/clusters.yaml")).unwrap();
    let first = clusters.split("\n---\n").next().unwrap().to_string();
    assert!(first.contains("kind: Cluster"), "{first}");
    fs::create_dir_all(s.path().join("in")).unwrap();
    fs::copy(
        root().join("fixtures/quickstart/clusters/class.yaml"),
        s.path().join("in/class.yaml"),
    )
    .unwrap();
    fs::write(s.path().join("in/a.yaml"), &first).unwrap();
    fs::write(s.path().join("in/b.yaml"), &first).unwrap();
    for mode in [&["-o", "out"][..], &["--stdout"]] {
        let mut args = vec!["render", "-f", "in"];
        args.extend_from_slice(mode);
        let e = failed(&run_in(s.path(), &args));
        assert!(
            e.contains("is in two inputs: in/a.yaml (document 1) and in/b.yaml (document 1)"),
            "{e}"
        );
    }
    assert!(!s.path().join("out").exists());
}

#[test]
fn a_provider_crs_version_typo_lists_the_versions_in_release_order() {
    let s = Scratch::new("cr-version");
    for v in ["v1.9.11", "v1.10.10", "v1.10.9"] {
        let d = s.path().join("repo/cluster-api").join(v);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("metadata.yaml"), "").unwrap();
    }
    fs::write(
        s.path().join("cr.yaml"),
        "apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.10.19\n",
    )
    .unwrap();
    let o = run_in(
        s.path(),
        &[
            "--repository",
            "repo",
            "render",
            "-f",
            "cr.yaml",
            "--stdout",
        ],
    );
    let e = failed(&o);
    assert!(
        e.contains("CoreProvider capi-system/cluster-api (cr.yaml, document 1)"),
        "{e}"
    );
    assert!(
        hint(&e).contains("cluster-api has no version v1.10.19; did you mean \"v1.10.10\"? versions there: v1.9.11, v1.10.9, v1.10.10"),
        "{e}"
    );
}
