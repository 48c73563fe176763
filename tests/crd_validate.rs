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

fn corpus() -> Option<PathBuf> {
    let p = std::env::var_os("CAPI_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate_root().join("../shared/corpus"));
    p.join("repository").is_dir().then_some(p)
}

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
