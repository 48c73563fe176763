//! Declarative providers end to end (`render::render_paths` / `render_objects`):
//!
//! * the corpus providers as CRs render the objects `generate provider` renders (and so
//!   clusterctl, which `tests/golden_clusterctl.rs` and `golden/operator` pin), byte for
//!   byte apart from the documented differences: the plain Namespace first, the
//!   operator's typed Deployment round trip, and no `creationTimestamp: null` on the
//!   kinds clusterctl's components pipeline round-trips (the operator's Cluster API
//!   v1.13 with apimachinery v0.35 omits it where clusterctl v1.10.10 prints it);
//! * ConfigMap sources (plain, gzip-compressed, the operator's stored ConfigMap) and an
//!   OCI layout give the same objects as the equivalent local repository;
//! * every input kind in every API version renders;
//! * every error fixture (`fixtures/operator/errors/*.yaml`, `# expect:` lines) fails
//!   with a message naming the objects involved.
//!
//! Corpus-based tests are skipped with a note when `$CAPI_CORPUS` is absent.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use capi_render::config::Config;
use capi_render::generate::{generate_provider, ProviderOutput};
use capi_render::model::{InputObject, RenderOptions, RenderSet, RenderedUnit, UnitKind};
use capi_render::operator::configmap::{provider_configmap, ANNOTATION_COMPRESSED};
use capi_render::provider::ProviderType;
use capi_render::render::{render_objects, render_paths};
use serde_json::{json, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[path = "../common/mod.rs"]
mod common;
mod sources;
use common::corpus;

fn fixture(p: &str) -> PathBuf {
    PathBuf::from("fixtures/operator").join(p)
}

fn repo_opts(corpus: &Path) -> RenderOptions {
    RenderOptions {
        repository: Some(corpus.join("repository")),
        ..Default::default()
    }
}

fn render(paths: &[PathBuf], opts: &RenderOptions) -> RenderSet {
    std::env::set_current_dir(root()).unwrap();
    render_paths(paths, opts).unwrap_or_else(|e| panic!("render failed: {e}"))
}

fn info(u: &RenderedUnit) -> &capi_render::model::ProviderInfo {
    match &u.kind {
        UnitKind::Provider(p) => p,
        _ => panic!("not a provider unit"),
    }
}

/// The documented "typed Deployment round trip" difference, applied to both sides.
fn normalise(objs: &[Value]) -> Vec<Value> {
    let out: Vec<Value> = objs
        .iter()
        .map(|o| {
            if o["kind"] == "Deployment" {
                capi_render::operator::customize::typed::round_trip(o).unwrap()
            } else {
                o.clone()
            }
        })
        .map(drop_null_creation_timestamps)
        .collect();
    out
}

/// The kinds clusterctl's components pipeline round-trips (fixImages, the target
/// namespace filters) without a `creationTimestamp: null`: clusterctl v1.10.10 (k8s.io
/// v0.32.3, golden/operator) prints it where the operator's v0.35.8 omits it.
fn drop_null_creation_timestamps(mut o: Value) -> Value {
    fn drop(meta: Option<&mut Value>) {
        if let Some(Value::Object(m)) = meta {
            if m.get("creationTimestamp").is_some_and(Value::is_null) {
                m.remove("creationTimestamp");
            }
        }
    }
    let round_tripped = matches!(
        o["kind"].as_str().unwrap_or(""),
        "Deployment"
            | "DaemonSet"
            | "ClusterRoleBinding"
            | "RoleBinding"
            | "MutatingWebhookConfiguration"
            | "ValidatingWebhookConfiguration"
            | "CustomResourceDefinition"
    );
    if round_tripped {
        drop(o.get_mut("metadata"));
        if let Some(tpl) = o.pointer_mut("/spec/template") {
            drop(tpl.get_mut("metadata"));
            if let Some(Value::Array(vols)) = tpl.pointer_mut("/spec/volumes") {
                for v in vols {
                    drop(v.pointer_mut("/ephemeral/volumeClaimTemplate/metadata"));
                }
            }
        }
    }
    o
}

/// `generate provider` for the same provider, version and namespace, with `vars` as
/// the only variables; its Namespace object removed (the operator drops it, R6.1.1).
fn generate(
    corpus: &Path,
    t: ProviderType,
    name: &str,
    version: &str,
    ns: &str,
    vars: &[(&str, &str)],
) -> Vec<Value> {
    let env: BTreeMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut cfg = Config::new(env);
    cfg.repository = Some(corpus.join("repository"));
    // The operator's components stages follow clusterctl v1.14 (operator::release).
    cfg.clusterctl = capi_render::config::Clusterctl::V1_14;
    let text = generate_provider(
        &cfg,
        t,
        &format!("{name}:{version}"),
        ns,
        ProviderOutput::Yaml,
    )
    .unwrap();
    capi_render::yaml::parse_documents(&text)
        .unwrap()
        .into_iter()
        .filter(|o| o["kind"] != "Namespace")
        .collect()
}

fn assert_same_objects(unit: &RenderedUnit, expected: &[Value]) {
    assert_eq!(
        unit.objects[0],
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": unit.namespace}}),
        "{}: the unit starts with its Namespace",
        unit.name
    );
    // Byte-identical objects once the documented differences are applied to both sides:
    // Deployments through the operator's typed round trip (k8s.io v0.35.8), and no zero
    // `creationTimestamp` on round-tripped kinds (clusterctl v1.10.10's golden prints it).
    let got = normalise(&unit.objects[1..]);
    let want = normalise(expected);
    assert_eq!(got.len(), want.len(), "{}: object count", unit.name);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(
            capi_render::yaml::to_yaml(g),
            capi_render::yaml::to_yaml(w),
            "{}: {} {}",
            unit.name,
            w["kind"],
            w["metadata"]["name"]
        );
    }
}

const CORPUS_PROVIDERS: &[(ProviderType, &str, &str, &str)] = &[
    (ProviderType::Core, "cluster-api", "capi-system", "core"),
    (
        ProviderType::Bootstrap,
        "kubeadm",
        "capi-kubeadm-bootstrap-system",
        "bootstrap",
    ),
    (
        ProviderType::ControlPlane,
        "kubeadm",
        "capi-kubeadm-control-plane-system",
        "control-plane",
    ),
    (
        ProviderType::Infrastructure,
        "docker",
        "capd-system",
        "infrastructure",
    ),
];

#[test]
fn corpus_crs_render_like_generate_provider() {
    let Some(c) = corpus() else { return };
    let set = render(&[fixture("corpus")], &repo_opts(&c));
    assert_eq!(set.units.len(), 4);
    for (u, (t, name, ns, otype)) in set.units.iter().zip(CORPUS_PROVIDERS) {
        assert_eq!((u.name.as_str(), u.namespace.as_str()), (*name, *ns));
        let i = info(u);
        assert_eq!(i.provider_type, *otype);
        assert_eq!(i.kind, t.as_str());
        assert_eq!(i.version, "v1.10.10");
        assert_eq!(i.contract, "v1beta1");
        assert!(
            i.source.starts_with("repository:") && i.source.ends_with("/v1.10.10"),
            "{}",
            i.source
        );
        // The docker provider's Secret: stringData CLUSTER_TOPOLOGY wins over data.
        let vars: &[(&str, &str)] = if *name == "docker" {
            &[("CLUSTER_TOPOLOGY", "true"), ("EXP_MACHINE_POOL", "false")]
        } else {
            &[]
        };
        assert_same_objects(u, &generate(&c, *t, name, "v1.10.10", ns, vars));
    }
    // Inputs: both fixture files and every repository file read, with sha256.
    let paths: Vec<&str> = set.inputs.iter().map(|f| f.path.as_str()).collect();
    assert!(
        paths.contains(&"fixtures/operator/corpus/providers.yaml"),
        "{paths:?}"
    );
    assert!(paths.contains(&"fixtures/operator/corpus/secret.yaml"));
    assert_eq!(set.inputs.len(), 2 + 4 * 2, "{paths:?}");
    let text = std::fs::read(root().join("fixtures/operator/corpus/secret.yaml")).unwrap();
    let secret = set
        .inputs
        .iter()
        .find(|f| f.path.ends_with("secret.yaml"))
        .unwrap();
    assert_eq!(secret.sha256, capi_render::model::sha256_hex(&text));
    assert!(set.warnings.is_empty(), "{:?}", set.warnings);
}

#[test]
fn no_namespaces_option_and_yaml_stream() {
    let Some(c) = corpus() else { return };
    let opts = RenderOptions {
        no_namespaces: true,
        ..repo_opts(&c)
    };
    let set = render(&[fixture("corpus")], &opts);
    assert!(set
        .units
        .iter()
        .all(|u| u.objects.iter().all(|o| o["kind"] != "Namespace")));
    let stream = common::yaml_stream(&set);
    let back = capi_render::yaml::parse_documents(&stream).unwrap();
    assert_eq!(
        back.len(),
        set.units.iter().map(|u| u.objects.len()).sum::<usize>()
    );
}

#[test]
fn core_in_v1alpha1_and_proposal_render_like_v1alpha2() {
    let Some(c) = corpus() else { return };
    let want = generate(
        &c,
        ProviderType::Core,
        "cluster-api",
        "v1.10.10",
        "capi-system",
        &[("CLUSTER_TOPOLOGY", "true")],
    );
    for dir in ["core-v1alpha1", "core-proposal"] {
        let set = render(&[fixture(dir)], &repo_opts(&c));
        assert_eq!(set.units.len(), 1, "{dir}");
        assert_eq!(info(&set.units[0]).kind, "CoreProvider");
        assert_same_objects(&set.units[0], &want);
    }
}

fn objects_of(file: &str, docs: Vec<Value>) -> Vec<InputObject> {
    docs.into_iter()
        .enumerate()
        .map(|(i, value)| InputObject {
            file: file.to_string(),
            doc: i,
            value,
        })
        .collect()
}

fn cr(kind: &str, name: &str, ns: &str, spec: Value) -> Value {
    json!({"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": kind,
           "metadata": {"name": name, "namespace": ns}, "spec": spec})
}

fn corpus_release(c: &Path, label: &str, version: &str, file: &str) -> (String, String) {
    let dir = c.join("repository").join(label).join(version);
    (
        std::fs::read_to_string(dir.join("metadata.yaml")).unwrap(),
        std::fs::read_to_string(dir.join(file)).unwrap(),
    )
}

#[test]
fn empty_version_picks_the_highest_local_release_and_says_so() {
    let Some(c) = corpus() else { return };
    let set = render_objects(
        objects_of(
            "in.yaml",
            vec![cr("CoreProvider", "cluster-api", "capi-system", json!({}))],
        ),
        vec![],
        &repo_opts(&c),
    )
    .unwrap();
    assert_eq!(info(&set.units[0]).version, "v1.14.2");
    assert_eq!(info(&set.units[0]).contract, "v1beta2");
    assert_eq!(set.warnings.len(), 1);
    assert!(
        set.warnings[0].contains("spec.version is empty: using v1.14.2"),
        "{:?}",
        set.warnings
    );
}

#[test]
fn every_kind_and_api_version_renders() {
    let Some(c) = corpus() else { return };
    let set = render(&[fixture("all-kinds")], &repo_opts(&c));
    let got: Vec<(String, String, String)> = set
        .units
        .iter()
        .map(|u| (info(u).kind.clone(), u.namespace.clone(), u.name.clone()))
        .collect();
    let want: Vec<(&str, &str, &str)> = vec![
        ("CoreProvider", "capi-system", "cluster-api"),
        (
            "BootstrapProvider",
            "capi-kubeadm-bootstrap-system",
            "kubeadm",
        ),
        ("BootstrapProvider", "synth-a-bootstrap-system", "synth-a"),
        ("BootstrapProvider", "synth-b-bootstrap-system", "synth-b"),
        (
            "ControlPlaneProvider",
            "capi-kubeadm-control-plane-system",
            "kubeadm",
        ),
        (
            "ControlPlaneProvider",
            "synth-a-control-plane-system",
            "synth-a",
        ),
        (
            "ControlPlaneProvider",
            "synth-b-control-plane-system",
            "synth-b",
        ),
        ("InfrastructureProvider", "capd-system", "docker"),
        (
            "InfrastructureProvider",
            "synth-a-infrastructure-system",
            "synth-a",
        ),
        (
            "InfrastructureProvider",
            "synth-b-infrastructure-system",
            "synth-b",
        ),
        ("IPAMProvider", "caipam-system", "synth"),
        ("RuntimeExtensionProvider", "carex-system", "synth"),
        ("AddonProvider", "caaph-system", "synth"),
    ];
    let want: Vec<(String, String, String)> = want
        .into_iter()
        .map(|(a, b, c)| (a.into(), b.into(), c.into()))
        .collect();
    assert_eq!(got, want);
    let deployment = |ns: &str| -> &Value {
        let u = set.units.iter().find(|u| u.namespace == ns).unwrap();
        u.objects
            .iter()
            .find(|o| o["kind"] == "Deployment")
            .unwrap()
    };
    let container = |ns: &str| deployment(ns)["spec"]["template"]["spec"]["containers"][0].clone();
    let env = |ns: &str| {
        container(ns)["env"][0]["value"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // Variables only from each provider's Secret (v1alpha1 secretName/secretNamespace,
    // proposal secretName in the provider namespace); otherwise the default.
    assert_eq!(env("synth-a-bootstrap-system"), "from-v1alpha1-secret");
    assert_eq!(env("synth-b-bootstrap-system"), "from-proposal-secret");
    assert_eq!(env("caaph-system"), "hello");
    // Every unit is labelled for its provider and forced into its namespace.
    for u in &set.units {
        let t = capi_render::operator::api::kind_type(&info(u).kind).unwrap();
        let label = capi_render::provider::manifest_label(&u.name, t);
        for o in &u.objects[1..] {
            assert_eq!(
                o["metadata"]["labels"]["cluster.x-k8s.io/provider"],
                json!(label)
            );
            let kind = o["kind"].as_str().unwrap();
            if capi_render::components::filters::target_namespace::is_namespaced(kind) {
                assert_eq!(o["metadata"]["namespace"], json!(u.namespace), "{kind}");
            }
        }
    }
    // v1alpha1 image{} became imageUrl, applied by the customisation stage.
    assert_eq!(
        container("synth-a-infrastructure-system")["image"],
        "registry.example/mirror/capa-controller:v1.0.0-patched"
    );
    // The proposal's manager.debug (verbosity 5, profiler) and paused (0 replicas).
    let args: Vec<String> = container("synth-b-infrastructure-system")["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    assert!(args.contains(&"--v=5".to_string()), "{args:?}");
    assert!(
        args.contains(&"--profiler-address=localhost:6060".to_string()),
        "{args:?}"
    );
    let d = deployment("synth-b-infrastructure-system");
    assert_eq!(d["spec"]["replicas"], json!(0));
    assert_eq!(
        d["metadata"]["annotations"]["management.cluster.x-k8s.io/original-controller-replicas"],
        "1"
    );
}

fn expectations(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# expect: "))
        .map(str::to_string)
        .collect()
}

#[test]
fn error_fixtures_name_the_objects() {
    let Some(c) = corpus() else { return };
    std::env::set_current_dir(root()).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/operator/errors"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 15);
    for f in files {
        let rel = f.strip_prefix(root()).unwrap().to_path_buf();
        let want = expectations(&std::fs::read_to_string(&f).unwrap());
        assert!(!want.is_empty(), "{}: no # expect: line", rel.display());
        let e = match render_paths(std::slice::from_ref(&rel), &repo_opts(&c)) {
            Ok(_) => panic!("{}: rendered, expected an error", rel.display()),
            Err(e) => e,
        };
        for w in &want {
            assert!(
                e.message().contains(w.as_str()),
                "{}:\n  message: {}\n  lacks:   {w}",
                rel.display(),
                e.message()
            );
        }
        assert_eq!(
            e.source_file(),
            Some(rel.display().to_string().as_str()),
            "{}",
            rel.display()
        );
    }
}

/// The docker CR against clusterctl's own output (golden/operator, written by
/// conformance/regen-operator.sh): same objects apart from the documented differences.
#[test]
fn docker_cr_matches_clusterctl_golden() {
    let Some(c) = corpus() else { return };
    let golden = std::fs::read_to_string(
        root().join("golden/operator/infrastructure-docker-v1.10.10-capd-system.yaml"),
    )
    .unwrap();
    let want: Vec<Value> = capi_render::yaml::parse_documents(&golden)
        .unwrap()
        .into_iter()
        .filter(|o| o["kind"] != "Namespace")
        .collect();
    let set = render(&[fixture("corpus")], &repo_opts(&c));
    let docker = set.units.iter().find(|u| u.name == "docker").unwrap();
    assert_same_objects(docker, &want);
}

/// R4.6: additional manifests are appended before processing (substituted, moved into
/// the provider namespace, labelled); R5.1.2: the Secret's `images` key overrides images.
#[test]
fn additional_manifests_and_secret_image_overrides() {
    let Some(c) = corpus() else { return };
    let core = cr(
        "CoreProvider",
        "cluster-api",
        "capi-system",
        json!({"version": "v1.10.10"}),
    );
    let docker = cr(
        "InfrastructureProvider",
        "docker",
        "capd-system",
        json!({"version": "v1.10.10", "configSecret": {"name": "vars"},
               "additionalManifests": {"name": "extra"}}),
    );
    let secret = json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "vars", "namespace": "capd-system"},
        "stringData": {"EXTRA_VALUE": "forty-two",
                       "images": "infrastructure-docker:\n  repository: mirror.example/capi\n"}});
    let extra = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "extra", "namespace": "capd-system"},
        "data": {"manifests": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra-settings\n  namespace: somewhere-else\ndata:\n  value: ${EXTRA_VALUE}\n"}});
    let set = render_objects(
        objects_of("in.yaml", vec![core, docker, secret, extra]),
        vec![],
        &repo_opts(&c),
    )
    .unwrap();
    let objs = &set.units[1].objects;
    let last = objs.last().unwrap();
    assert_eq!(last["metadata"]["name"], "extra-settings");
    assert_eq!(last["metadata"]["namespace"], "capd-system");
    assert_eq!(last["data"]["value"], "forty-two");
    assert_eq!(
        last["metadata"]["labels"]["cluster.x-k8s.io/provider"],
        "infrastructure-docker"
    );
    let d = objs.iter().find(|o| o["kind"] == "Deployment").unwrap();
    assert_eq!(
        d["spec"]["template"]["spec"]["containers"][0]["image"],
        "mirror.example/capi/capd-manager:v1.10.10"
    );
}

/// The `render` command prints what the library renders; an error names the objects.
#[test]
fn render_command_stdout_and_errors() {
    let Some(c) = corpus() else { return };
    let run = |path: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_capi-render"))
            .current_dir(root())
            .arg("--repository")
            .arg(c.join("repository"))
            .args(["render", "-f", path, "--stdout"])
            .output()
            .unwrap()
    };
    let bad = run("fixtures/operator/errors/duplicate-provider.yaml");
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("InfrastructureProvider capd-2/docker (fixtures/operator/errors/duplicate-provider.yaml, document 3)")
            && err.contains("(other: InfrastructureProvider capd-system/docker"),
        "{err}"
    );
    let ok = run("fixtures/operator/corpus");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let want = common::yaml_stream(&render(&[fixture("corpus")], &repo_opts(&c)));
    assert!(String::from_utf8(ok.stdout).unwrap() == want);
}

/// R8.1: `images:` of the operator's clusterctl config (`--config`) override images after
/// customisation; its variables are never used (only the Secret's are).
#[test]
fn operator_config_images_apply_and_its_variables_do_not() {
    let Some(c) = corpus() else { return };
    let tmp = std::env::temp_dir().join(format!("capi-render-opcfg-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let cfg = tmp.join("clusterctl.yaml");
    std::fs::write(
        &cfg,
        "images:\n  all:\n    repository: mirror.example/all\nCLUSTER_TOPOLOGY: \"true\"\n",
    )
    .unwrap();
    let set = render_objects(
        objects_of(
            "in.yaml",
            vec![
                cr(
                    "CoreProvider",
                    "cluster-api",
                    "capi-system",
                    json!({"version": "v1.10.10"}),
                ),
                cr(
                    "InfrastructureProvider",
                    "docker",
                    "capd-system",
                    json!({"version": "v1.10.10"}),
                ),
            ],
        ),
        vec![],
        &RenderOptions {
            config: Some(cfg),
            ..repo_opts(&c)
        },
    )
    .unwrap();
    std::fs::remove_dir_all(&tmp).ok();
    let d = set.units[1]
        .objects
        .iter()
        .find(|o| o["kind"] == "Deployment")
        .unwrap();
    let container = &d["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(
        container["image"],
        "mirror.example/all/capd-manager:v1.10.10"
    );
    let args = serde_json::to_string(&container["args"]).unwrap();
    assert!(args.contains("ClusterTopology=false"), "{args}");
}
