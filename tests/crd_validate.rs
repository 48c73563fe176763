//! `render` checks every input object against the CRD of its kind from the provider
//! components the tree installs (issue 42): unknown fields, enums and types are errors
//! naming the file, the document, the object and the field path; valid corpus inputs
//! pass. Needs the release corpus (`$CAPI_CORPUS`, default `../shared/corpus`; skipped
//! when absent).

use std::path::{Path, PathBuf};
use std::process::Command;

use capi_render::model::InputObject;
use capi_render::validate::{check_objects, CrdIndex};

fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

mod common;
use common::corpus;

fn objects(path: &Path, text: &str) -> Vec<InputObject> {
    capi_render::load::parse_file(&path.display().to_string(), text).unwrap()
}

fn index(corpus: &Path, version: &str) -> CrdIndex {
    let mut idx = CrdIndex::default();
    for f in [
        "cluster-api/{v}/core-components.yaml",
        "bootstrap-kubeadm/{v}/bootstrap-components.yaml",
        "control-plane-kubeadm/{v}/control-plane-components.yaml",
        "infrastructure-docker/{v}/infrastructure-components.yaml",
    ] {
        let p = corpus.join("repository").join(f.replace("{v}", version));
        let text = std::fs::read_to_string(&p).unwrap();
        for o in objects(&p, &text) {
            idx.add(&o.value);
        }
    }
    idx
}

#[test]
fn hostile_clusters_name_file_document_object_and_field() {
    let Some(corpus) = corpus() else { return };
    let p = Path::new("clusters/team-a.yaml");
    let text =
        std::fs::read_to_string(crate_root().join("fixtures/crd-validate/hostile-cluster.yaml"))
            .unwrap();
    let (errors, warnings) = check_objects(&objects(p, &text), &index(&corpus, "v1.10.10"));
    assert!(warnings.is_empty(), "{warnings:?}");
    let at = |doc: usize, who: &str, rest: &str| {
        format!("clusters/team-a.yaml: document {doc}: Cluster team-a/{who}: {rest}")
    };
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(
        errors[0].starts_with(&at(2, "alpha", "spec.topology.replicas: unknown field")),
        "{}",
        errors[0]
    );
    assert!(errors[1].starts_with(&at(3, "beta", "spec.topology.version: Invalid value: \"number\": spec.topology.version in body must be of type string: \"number\"")), "{}", errors[1]);
    assert!(errors[2].starts_with(&at(4, "gamma", "spec.topology.workers.machineDeployments[0].strategy.type: Unsupported value: \"Sometimes\"")), "{}", errors[2]);
}

#[test]
fn valid_corpus_class_and_cluster_pass() {
    let Some(corpus) = corpus() else { return };
    for v in ["v1.10.10", "v1.11.11"] {
        let dir = corpus.join("e2e-repository/infrastructure-docker").join(v);
        let mut all = Vec::new();
        for f in [
            "clusterclass-quick-start.yaml",
            "cluster-template-topology.yaml",
        ] {
            let text = std::fs::read_to_string(dir.join(f))
                .unwrap()
                .replace("${DOCKER_PRELOAD_IMAGES:-[]}", "[]")
                .replace("${CLUSTER_CLASS_NAMESPACE:-\"\"}", "default")
                .replace("${CLUSTER_CLASS_NAMESPACE:-${NAMESPACE}}", "default")
                .replace("${CONTROL_PLANE_MACHINE_COUNT}", "1")
                .replace("${WORKER_MACHINE_COUNT}", "1")
                .replace("${DOCKER_POD_CIDRS}", "192.168.0.0/16")
                .replace("${DOCKER_SERVICE_CIDRS}", "10.128.0.0/12")
                .replace("${DOCKER_SERVICE_DOMAIN}", "cluster.local")
                .replace("${KUBERNETES_VERSION}", "v1.32.0")
                .replace("${CLUSTER_NAME}", "c1")
                .replace("${CNI_RESOURCES}", "{}");
            assert!(!text.contains("${"), "{f}: a variable left");
            all.extend(objects(&dir.join(f), &text));
        }
        let (errors, warnings) = check_objects(&all, &index(&corpus, v));
        assert!(errors.is_empty(), "{v}: {errors:#?}");
        // ClusterResourceSet's CRD is installed by the core provider: every kind is known.
        assert!(warnings.is_empty(), "{v}: {warnings:?}");
    }
}

#[test]
fn render_refuses_writes_nothing_and_no_validate_turns_it_off() {
    let Some(corpus) = corpus() else { return };
    let d = std::env::temp_dir().join(format!("capi-render-crd-validate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("clusters")).unwrap();
    std::fs::copy(
        crate_root().join("fixtures/gitops/corpus/providers.yaml"),
        d.join("providers.yaml"),
    )
    .unwrap();
    std::fs::copy(
        crate_root().join("fixtures/crd-validate/hostile-cluster.yaml"),
        d.join("clusters/team-a.yaml"),
    )
    .unwrap();
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_capi-render"))
            .current_dir(&d)
            .args([
                "render",
                "-f",
                "providers.yaml",
                "-f",
                "clusters/team-a.yaml",
                "--repository",
            ])
            .arg(corpus.join("repository"))
            .args(["-o", "out"])
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("clusters/team-a.yaml: document 2: Cluster team-a/alpha: spec.topology.replicas: unknown field"), "{err}");
    assert!(err.contains("--no-validate"), "{err}");
    assert!(!d.join("out").exists(), "a tree was written");
    let o = run(&["--no-validate"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("unknown field"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

/// The values a cluster template is generated with (the unset variables' stand-ins).
fn template_value(name: &str) -> Option<String> {
    Some(
        match name {
            "CLUSTER_NAME" => "c1",
            "NAMESPACE" => "default",
            "KUBERNETES_VERSION" => "v1.31.0",
            "WORKER_MACHINE_COUNT" | "CONTROL_PLANE_MACHINE_COUNT" => "1",
            "DOCKER_SERVICE_DOMAIN" => "cluster.local",
            "DOCKER_SERVICE_CIDRS" => "10.128.0.0/12",
            "DOCKER_POD_CIDRS" => "192.168.0.0/16",
            "DOCKER_SERVICE_IPV6_CIDRS" => "fd00:100:64::/108",
            "DOCKER_POD_IPV6_CIDRS" => "fd00:100:96::/48",
            "SERVER" => "https://127.0.0.1:6443",
            "CNI_RESOURCES" | "TOKEN" => "value",
            _ => return None,
        }
        .to_string(),
    )
}

/// Every cluster template and ClusterClass of every corpus release (the repository's
/// and the e2e suite's), envsubst-ed as `generate cluster` would with the variables'
/// defaults, checked as `render` checks them (through the defaulting webhooks' typed
/// round trip) against that release's CRDs: all valid, except the one upstream defect
/// the real API server refuses too (conformance/crd-validate.sh: the oracle agrees).
#[test]
fn corpus_templates_of_every_release_pass_as_applied() {
    let Some(corpus) = corpus() else { return };
    let mut versions: Vec<String> = std::fs::read_dir(corpus.join("repository/cluster-api"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    versions.sort();
    assert_eq!(versions.len(), 8, "{versions:?}");
    let mut all_errors = Vec::new();
    let mut checked = 0;
    for v in &versions {
        let idx = index(&corpus, v);
        let mut objs = Vec::new();
        for base in ["repository", "e2e-repository"] {
            let dir = corpus.join(base).join("infrastructure-docker").join(v);
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut files: Vec<PathBuf> = rd
                .map(|e| e.unwrap().path())
                .filter(|p| {
                    p.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with("cluster")
                })
                .collect();
            files.sort();
            for f in files {
                let text = std::fs::read_to_string(&f).unwrap();
                let out = capi_render::envsubst::process_bytes(&text, &template_value).unwrap();
                let shown = format!("{base}/{v}/{}", f.file_name().unwrap().to_string_lossy());
                objs.extend(objects(Path::new(&shown), &String::from_utf8(out).unwrap()));
                checked += 1;
            }
        }
        let (errors, warnings) = check_objects(&objs, &idx);
        assert!(warnings.is_empty(), "{v}: {warnings:?}");
        all_errors.extend(errors);
    }
    assert!(checked >= 70, "{checked} templates");
    assert_eq!(all_errors.len(), 1, "{all_errors:#?}");
    assert!(all_errors[0].starts_with(
        "repository/v1.11.11/clusterclass-in-memory.yaml: document 6: ClusterClass in-memory: spec.controlPlane.templateRef.healthCheck: unknown field"
    ), "{}", all_errors[0]);
}

fn validate_cmd(args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_capi-render"))
        .current_dir(crate_root())
        .arg("validate")
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `capi-render validate`: one line per problem, exit 1; a valid object exits 0; the
/// defaulting webhook's round trip drops `classNamespace: ""` (omitempty) before the
/// schema's `minLength: 1` sees it, which `--no-webhooks` (the API server alone) refuses.
#[test]
fn validate_command_lines_and_the_webhook_round_trip() {
    let Some(corpus) = corpus() else { return };
    let core = corpus.join("repository/cluster-api/v1.10.10/core-components.yaml");
    let core = core.to_str().unwrap();
    let (code, out, _) = validate_cmd(&[
        "--crds",
        core,
        "-f",
        "fixtures/crd-validate/hostile-cluster.yaml",
    ]);
    assert_eq!(code, Some(1), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[1], "fixtures/crd-validate/hostile-cluster.yaml: document 3: Cluster team-a/beta: spec.topology.version: Invalid value: \"number\": spec.topology.version in body must be of type string: \"number\"");
    assert_eq!(lines[2], "fixtures/crd-validate/hostile-cluster.yaml: document 4: Cluster team-a/gamma: spec.topology.workers.machineDeployments[0].strategy.type: Unsupported value: \"Sometimes\": supported values: \"RollingUpdate\", \"OnDelete\"");

    let d = std::env::temp_dir().join(format!("capi-render-crd-webhook-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let c = d.join("cluster.yaml");
    std::fs::write(
        &c,
        "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: c1\n  namespace: default\nspec:\n  topology:\n    class: quick-start\n    classNamespace: \"\"\n    version: v1.31.0\n",
    )
    .unwrap();
    let c = c.to_str().unwrap();
    let (code, out, _) = validate_cmd(&["--crds", core, "-f", c]);
    assert_eq!((code, out.as_str()), (Some(0), ""));
    let (code, out, _) = validate_cmd(&["--no-webhooks", "--crds", core, "-f", c]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("document 1: Cluster default/c1: spec.topology.classNamespace: Invalid value: \"\": spec.topology.classNamespace in body should be at least 1 chars long"),
        "{out}"
    );
    // A kind no CRD defines is a warning naming it, once.
    std::fs::write(
        d.join("other.yaml"),
        "apiVersion: ex.example.io/v1\nkind: Thing\nmetadata:\n  name: a\n---\napiVersion: ex.example.io/v1\nkind: Thing\nmetadata:\n  name: b\n",
    )
    .unwrap();
    let (code, _, err) =
        validate_cmd(&["--crds", core, "-f", d.join("other.yaml").to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        err.matches("Thing (ex.example.io/v1): no CRD").count(),
        1,
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A template of a provider the tree does not install is checked against the CRD of
/// the newest release of that provider in `--repository`; a kind no CRD defines
/// anywhere is a warning naming it; provider CRs (consumed, not applied) are neither.
#[test]
fn kinds_of_providers_outside_the_tree_are_checked_against_the_repository() {
    let Some(corpus) = corpus() else { return };
    let s = common::Scratch::new("crd-repo");
    let providers = "apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata: {name: cluster-api, namespace: capi-system}\nspec: {version: v1.14.2}\n";
    let template = |extra: &str| {
        format!("apiVersion: infrastructure.cluster.x-k8s.io/v1beta2\nkind: DockerMachineTemplate\nmetadata: {{name: worker, namespace: team-a}}\nspec:\n  template:\n    spec: {{{extra}}}\n---\napiVersion: infrastructure.example.io/v1\nkind: FooMachineTemplate\nmetadata: {{name: foo, namespace: team-a}}\nspec: {{}}\n")
    };
    std::fs::write(s.path().join("providers.yaml"), providers).unwrap();
    let run = |t: &str| {
        std::fs::write(s.path().join("templates.yaml"), t).unwrap();
        common::run(
            common::bin()
                .current_dir(s.path())
                .arg("--repository")
                .arg(corpus.join("repository"))
                .args([
                    "render",
                    "-f",
                    "providers.yaml",
                    "-f",
                    "templates.yaml",
                    "--stdout",
                ]),
            None,
        )
    };
    let ok = run(&template("customImage: kindest/node:v1.34.0"));
    let err = String::from_utf8_lossy(&ok.stderr).into_owned();
    assert!(ok.status.success(), "{err}");
    assert!(
        err.contains("FooMachineTemplate (infrastructure.example.io/v1): no CRD for it among the providers the tree installs or in --repository"),
        "{err}"
    );
    assert!(
        !err.contains("DockerMachineTemplate (") && !err.contains("CoreProvider"),
        "{err}"
    );
    // The docker provider is not in the tree: its repository release's CRD refuses a
    // field it does not declare.
    let bad = run(&template("customImage: kindest/node:v1.34.0, replicas: 3"));
    let err = String::from_utf8_lossy(&bad.stderr).into_owned();
    assert!(!bad.status.success());
    assert!(
        err.contains("templates.yaml: document 1: DockerMachineTemplate team-a/worker: spec.template.spec.replicas: unknown field"),
        "{err}"
    );
}
