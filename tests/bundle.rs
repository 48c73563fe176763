//! `capi-render bundle` end to end on the corpus:
//!
//! * a bundle renders, through its ConfigMaps and provider CR snippets alone (no
//!   repository), exactly the objects the original repository renders;
//! * with `--image-registry` the rendered manifests, the list and the config Secret
//!   agree: rendering the bundle's ConfigMaps + Secret gives the mirrored objects;
//! * ConfigMap names, labels and compression follow operator.md §4.2, and a compressed
//!   ConfigMap (the 1.1 MB AWS provider) round-trips;
//! * the OCI layouts read back through the operator's own layout reader;
//! * `verify` passes on a fresh bundle and reports every flipped byte, a missing file
//!   and an unlisted file.
//!
//! Corpus-based tests are skipped with a note when `$CAPI_CORPUS` is absent.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use capi_render::bundle::{self, BundleOptions};
use capi_render::model::{RenderOptions, RenderSet, UnitKind};
use capi_render::operator::configmap::{
    read_configmap, ANNOTATION_COMPRESSED, LABEL_MANAGED_BY, LABEL_NAME, LABEL_TYPE, LABEL_VERSION,
};
use capi_render::render::render_paths;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

mod common;
#[path = "bundle/rederive.rs"]
mod rederive;
use common::corpus;

fn providers_fixture() -> PathBuf {
    root().join("fixtures/bundle/providers.yaml")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("capi-bundle-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn make(out: &Path, opts: &BundleOptions, inputs: &[PathBuf]) -> bundle::Summary {
    bundle::write(inputs, opts, out).unwrap_or_else(|e| panic!("bundle failed: {e}"))
}

/// One bundle of the corpus providers (with OCI layouts) shared by the read-only tests.
fn shared(c: &Path) -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let out = scratch("shared").join("b");
        make(
            &out,
            &BundleOptions {
                oci: true,
                ..repo_opts(c)
            },
            &[providers_fixture()],
        );
        out
    })
}

/// A private copy of the shared bundle (for tests that damage it).
fn copy_of_shared(c: &Path, name: &str) -> (PathBuf, PathBuf) {
    let src = shared(c);
    let d = scratch(name);
    let out = d.join("b");
    for f in walk(src) {
        let rel = f.strip_prefix(src).unwrap();
        let to = out.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&f, &to).unwrap();
    }
    (d, out)
}

fn repo_opts(c: &Path) -> BundleOptions {
    BundleOptions {
        repository: Some(c.join("repository")),
        ..Default::default()
    }
}

/// Each provider unit of `set` is exactly what the bundle at `out` holds in `rendered/`.
fn assert_rendered_holds(out: &Path, set: &RenderSet) {
    for u in &set.units {
        let UnitKind::Provider(i) = &u.kind else {
            panic!("not a provider unit")
        };
        let f = out.join(format!(
            "rendered/{}/{}-{}.yaml",
            u.namespace, i.provider_type, u.name
        ));
        assert!(
            std::fs::read_to_string(&f).unwrap() == yaml_text(&u.objects),
            "{}",
            f.display()
        );
    }
}

fn render(paths: &[PathBuf], opts: &RenderOptions) -> RenderSet {
    render_paths(paths, opts).unwrap_or_else(|e| panic!("render failed: {e}"))
}

/// The bundle's YAML for `objs` (as `rendered/` writes it).
fn yaml_text(objs: &[Value]) -> String {
    let mut s = capi_render::yaml::from_objects(objs);
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// Compare two unit lists object by object, reporting only the first difference.
fn assert_same_units(a: &RenderSet, b: &RenderSet) {
    let (ua, ub) = (units(a), units(b));
    assert_eq!(
        ua.iter().map(|u| &u.0).collect::<Vec<_>>(),
        ub.iter().map(|u| &u.0).collect::<Vec<_>>()
    );
    for ((id, oa), (_, ob)) in ua.iter().zip(&ub) {
        assert_eq!(oa.len(), ob.len(), "{id:?}: object count");
        for (i, (x, y)) in oa.iter().zip(ob).enumerate() {
            if x != y {
                panic!(
                    "{id:?}: object {i} differs:\n{}\n---- vs ----\n{}",
                    capi_render::yaml::to_yaml(x),
                    capi_render::yaml::to_yaml(y)
                );
            }
        }
    }
}

fn docs(path: &Path) -> Vec<Value> {
    capi_render::yaml::parse_documents(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `(type, namespace, name, version, contract)` of a unit.
type UnitId = (String, String, String, String, String);

/// The identity and objects of every unit.
fn units(set: &RenderSet) -> Vec<(UnitId, Vec<Value>)> {
    set.units
        .iter()
        .map(|u| {
            let UnitKind::Provider(i) = &u.kind else {
                panic!("not a provider unit")
            };
            (
                (
                    i.provider_type.clone(),
                    u.namespace.clone(),
                    u.name.clone(),
                    i.version.clone(),
                    i.contract.clone(),
                ),
                u.objects.clone(),
            )
        })
        .collect()
}

#[test]
fn corpus_bundle_renders_through_its_configmaps_like_the_repository() {
    let Some(c) = corpus() else { return };
    let out = shared(&c);
    let summary_only = scratch("roundtrip-summary").join("b");
    let s = make(&summary_only, &repo_opts(&c), &[providers_fixture()]);
    std::fs::remove_dir_all(summary_only.parent().unwrap()).ok();
    assert_eq!(
        s.providers,
        [
            "core-cluster-api-v1.10.10",
            "bootstrap-kubeadm-v1.10.10",
            "control-plane-kubeadm-v1.10.10",
            "infrastructure-docker-v1.10.10"
        ]
    );
    let from_repo = render(
        &[providers_fixture()],
        &RenderOptions {
            repository: Some(c.join("repository")),
            ..Default::default()
        },
    );
    let from_bundle = render(&[out.join("configmaps")], &RenderOptions::default());
    assert_eq!(from_bundle.units.len(), 4);
    for u in &from_bundle.units {
        let UnitKind::Provider(i) = &u.kind else {
            panic!()
        };
        assert!(i.source.starts_with("configmap:"), "{}", i.source);
    }
    assert_same_units(&from_bundle, &from_repo);
    // rendered/ holds exactly those objects.
    assert_rendered_holds(out, &from_repo);
    // The repository subset is byte-identical to the corpus, templates and ClusterClasses included.
    let mut copied = 0;
    for label in [
        "cluster-api",
        "bootstrap-kubeadm",
        "control-plane-kubeadm",
        "infrastructure-docker",
    ] {
        let src = c.join("repository").join(label).join("v1.10.10");
        for e in std::fs::read_dir(&src).unwrap() {
            let e = e.unwrap();
            let rel = format!(
                "repository/{label}/v1.10.10/{}",
                e.file_name().to_string_lossy()
            );
            assert_eq!(
                std::fs::read(out.join(&rel)).unwrap(),
                std::fs::read(e.path()).unwrap(),
                "{rel}"
            );
            copied += 1;
        }
    }
    assert_eq!(copied, 2 + 2 + 2 + 7);
    let r = bundle::verify(out).unwrap();
    assert_eq!(r.problems, Vec::<String>::new());
    assert_eq!(r.configmaps, 4);
}

#[test]
fn configmaps_follow_the_operator_format() {
    let Some(c) = corpus() else { return };
    let out = shared(&c);
    let want = [
        (
            "capd-system",
            "infrastructure",
            "docker",
            "infrastructure-docker",
            "infrastructure-components.yaml",
        ),
        (
            "capi-system",
            "core",
            "cluster-api",
            "cluster-api",
            "core-components.yaml",
        ),
    ];
    for (ns, t, name, label, file) in want {
        let cm_name = format!("{t}-{name}-v1.10.10");
        let cm = &docs(&out.join(format!("configmaps/{ns}/{cm_name}.yaml")))[0];
        assert_eq!(cm["metadata"]["name"], cm_name.as_str());
        assert_eq!(cm["metadata"]["namespace"], ns);
        let labels = cm["metadata"]["labels"].as_object().unwrap();
        assert_eq!(labels.len(), 4);
        assert_eq!(labels[LABEL_VERSION], "v1.10.10");
        assert_eq!(labels[LABEL_TYPE], t);
        assert_eq!(labels[LABEL_NAME], name);
        assert_eq!(labels[LABEL_MANAGED_BY], "true");
        // Under 1 MiB: plain data, no annotation.
        assert!(cm.get("binaryData").is_none());
        assert!(cm["metadata"].get("annotations").is_none());
        let (meta, comp) = read_configmap(cm).unwrap();
        let dir = c.join("repository").join(label).join("v1.10.10");
        assert_eq!(
            meta.as_bytes(),
            std::fs::read(dir.join("metadata.yaml")).unwrap()
        );
        assert_eq!(comp.as_bytes(), std::fs::read(dir.join(file)).unwrap());
        // The provider CR snippet selects exactly this ConfigMap.
        let cr = &docs(&out.join(format!("configmaps/{ns}/{t}-{name}-provider.yaml")))[0];
        let sel = cr["spec"]["fetchConfig"]["selector"]["matchLabels"]
            .as_object()
            .unwrap();
        assert_eq!(sel.len(), 3);
        for (k, v) in sel {
            assert_eq!(&labels[k], v, "{k}");
        }
        assert_eq!(cr["spec"]["fetchConfig"].as_object().unwrap().len(), 1);
    }
}

#[test]
fn compressed_configmap_round_trips() {
    let Some(c) = corpus() else { return };
    let Some(aws) = common::corpus_path("stress/repository/infrastructure-aws/v2.10.3") else {
        return;
    };
    let d = scratch("gzip");
    let cfg = d.join("clusterctl.yaml");
    std::fs::write(
        &cfg,
        format!(
            "providers:\n- name: aws\n  type: InfrastructureProvider\n  url: {}\n",
            aws.join("infrastructure-components.yaml").display()
        ),
    )
    .unwrap();
    let input = d.join("in.yaml");
    std::fs::write(
        &input,
        "apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata: {name: cluster-api, namespace: capi-system}\nspec: {version: v1.10.10}\n---\n\
         apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata: {name: aws, namespace: capa-system}\nspec: {version: v2.10.3, configSecret: {name: aws-variables}}\n---\n\
         apiVersion: v1\nkind: Secret\nmetadata: {name: aws-variables, namespace: capa-system}\ndata: {AWS_B64ENCODED_CREDENTIALS: Q2c9PQ==}\n",
    )
    .unwrap();
    let out = d.join("b");
    let opts = BundleOptions {
        config: Some(cfg.clone()),
        ..repo_opts(&c)
    };
    make(&out, &opts, std::slice::from_ref(&input));
    let cm = &docs(&out.join("configmaps/capa-system/infrastructure-aws-v2.10.3.yaml"))[0];
    assert_eq!(cm["metadata"]["annotations"][ANNOTATION_COMPRESSED], "true");
    assert!(cm["data"].get("components").is_none());
    assert!(cm["binaryData"]["components"].is_string());
    let (_, comp) = read_configmap(cm).unwrap();
    let raw = std::fs::read(aws.join("infrastructure-components.yaml")).unwrap();
    assert!(raw.len() > 1_048_576);
    assert_eq!(comp.as_bytes(), raw);
    // Through the compressed ConfigMap (plus the Secret the CR names), the same objects.
    let secret_only = d.join("secret.yaml");
    let text = std::fs::read_to_string(&input).unwrap();
    std::fs::write(&secret_only, text.split("---\n").nth(2).unwrap()).unwrap();
    let from_repo = render(
        &[input],
        &RenderOptions {
            config: Some(cfg),
            repository: Some(c.join("repository")),
            ..Default::default()
        },
    );
    let from_bundle = render(
        &[out.join("configmaps"), secret_only],
        &RenderOptions::default(),
    );
    assert_same_units(&from_bundle, &from_repo);
    assert_eq!(bundle::verify(&out).unwrap().problems, Vec::<String>::new());
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn mirror_reaches_the_rendered_manifests_the_list_and_the_install() {
    let Some(c) = corpus() else { return };
    let d = scratch("mirror");
    let plain = shared(&c);
    let out = d.join("b");
    let reg = "mirror.example:5000/capi";
    make(
        &out,
        &BundleOptions {
            image_registry: Some(reg.to_string()),
            ..repo_opts(&c)
        },
        &[providers_fixture()],
    );
    let sources: Vec<String> = std::fs::read_to_string(plain.join("images.txt"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let pairs: Vec<(String, String)> = std::fs::read_to_string(out.join("images.txt"))
        .unwrap()
        .lines()
        .map(|l| {
            let (a, b) = l.split_once(" -> ").unwrap();
            (a.to_string(), b.to_string())
        })
        .collect();
    assert_eq!(
        pairs.iter().map(|p| p.0.clone()).collect::<Vec<_>>(),
        sources
    );
    for (src, dst) in &pairs {
        let last = src.rsplit('/').next().unwrap();
        assert_eq!(dst, &format!("{reg}/{last}"));
    }
    // Every image of rendered/ is a mirror image.
    let mut rendered_images = BTreeSet::new();
    for e in walk(&out.join("rendered")) {
        rendered_images.extend(bundle::images::images_of(&docs(&e)));
    }
    let mirrors: BTreeSet<String> = pairs.iter().map(|p| p.1.clone()).collect();
    assert_eq!(rendered_images, mirrors);
    // Installing from the bundle (ConfigMaps + CR snippets + image Secrets) renders
    // exactly rendered/: the Secret's `images` key carries the mirror to the operator.
    let from_bundle = render(&[out.join("configmaps")], &RenderOptions::default());
    assert_rendered_holds(&out, &from_bundle);
    assert_eq!(from_bundle.units.len(), 4);
    assert_eq!(bundle::verify(&out).unwrap().problems, Vec::<String>::new());
    std::fs::remove_dir_all(&d).ok();
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn oci_layouts_read_back_through_the_operator_reader() {
    let Some(c) = corpus() else { return };
    let out = shared(&c);
    let d = scratch("oci");
    let layout = out.join("oci/infrastructure-docker-v1.10.10");
    let files =
        capi_render::operator::oci::read_artifact(&layout, "registry.example/capd", "v1.10.10")
            .unwrap();
    let (meta, comp) =
        capi_render::operator::oci::pick_files(&files, "infrastructure", "docker", "v1.10.10")
            .unwrap();
    let dir = c.join("repository/infrastructure-docker/v1.10.10");
    assert_eq!(
        meta.as_bytes(),
        std::fs::read(dir.join("metadata.yaml")).unwrap()
    );
    assert_eq!(
        comp.as_bytes(),
        std::fs::read(dir.join("infrastructure-components.yaml")).unwrap()
    );
    // `fetchConfig.oci` + `--oci-layout` on the bundle's layout renders what the
    // repository renders.
    let text = std::fs::read_to_string(providers_fixture()).unwrap();
    let oci_in = d.join("oci-in.yaml");
    std::fs::write(
        &oci_in,
        text.replace(
            "  namespace: capd-system\nspec:\n  version: v1.10.10\n",
            "  namespace: capd-system\nspec:\n  version: v1.10.10\n  fetchConfig:\n    oci: registry.example/capd:v1.10.10\n",
        ),
    )
    .unwrap();
    assert!(std::fs::read_to_string(&oci_in)
        .unwrap()
        .contains("oci: registry"));
    let repo = RenderOptions {
        repository: Some(c.join("repository")),
        ..Default::default()
    };
    let via_oci = render(
        std::slice::from_ref(&oci_in),
        &RenderOptions {
            oci_layout: Some(layout.clone()),
            ..repo.clone()
        },
    );
    let UnitKind::Provider(i) = &via_oci.units[3].kind else {
        panic!()
    };
    assert_eq!(i.source, "oci:registry.example/capd:v1.10.10");
    assert_same_units(&via_oci, &render(&[providers_fixture()], &repo));
    // Deterministic: a second bundle has the same SHA256SUMS.
    let again = d.join("again");
    make(
        &again,
        &BundleOptions {
            oci: true,
            ..repo_opts(&c)
        },
        &[providers_fixture()],
    );
    assert_eq!(
        std::fs::read(out.join("SHA256SUMS")).unwrap(),
        std::fs::read(again.join("SHA256SUMS")).unwrap()
    );
    let r = bundle::verify(out).unwrap();
    assert_eq!(r.problems, Vec::<String>::new());
    assert_eq!(r.oci_layouts, 4);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn verify_detects_any_flipped_byte_and_missing_or_extra_files() {
    let Some(c) = corpus() else { return };
    let (d, out) = copy_of_shared(&c, "verify");
    let files = walk(&out);
    assert!(files.len() > 30, "{}", files.len());
    // One file of every kind goes through the whole `verify` (debug-build YAML parsing
    // of the ConfigMaps makes each run slow); every file goes through the checksum pass.
    let full: BTreeSet<&str> = [
        "SHA256SUMS",
        "configmaps/capi-system/core-cluster-api-v1.10.10.yaml",
        "rendered/capd-system/infrastructure-docker.yaml",
        "oci/infrastructure-docker-v1.10.10/index.json",
    ]
    .into();
    let mut fully = 0;
    for f in &files {
        let orig = std::fs::read(f).unwrap();
        let rel = f
            .strip_prefix(&out)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        // Flip one bit of a byte in the middle of the file.
        let mut bad = orig.clone();
        let i = bad.len() / 2;
        bad[i] ^= 0x01;
        std::fs::write(f, &bad).unwrap();
        let problems = if full.contains(rel.as_str()) {
            fully += 1;
            match bundle::verify(&out) {
                Ok(r) => r.problems,
                Err(e) => vec![e.to_string()],
            }
        } else {
            match bundle::sums::check_tree(&out) {
                Ok(p) => p,
                Err(e) => vec![e.to_string()],
            }
        };
        assert!(!problems.is_empty(), "flipped byte in {rel} not reported");
        if rel != "SHA256SUMS" {
            assert!(
                problems.iter().any(|p| p.starts_with(&format!("{rel}: "))),
                "flipped byte in {rel} not named: {problems:?}"
            );
        }
        std::fs::write(f, &orig).unwrap();
    }
    assert_eq!(fully, full.len());
    // A ConfigMap whose bytes and sum were both changed is still caught by decoding.
    let cm_path = out.join("configmaps/capd-system/infrastructure-docker-v1.10.10.yaml");
    let cm_orig = std::fs::read_to_string(&cm_path).unwrap();
    let cm_bad = cm_orig.replacen("kind: Namespace", "kind: Namespacf", 1);
    assert_ne!(cm_bad, cm_orig);
    std::fs::write(&cm_path, &cm_bad).unwrap();
    let sums_orig = std::fs::read_to_string(out.join("SHA256SUMS")).unwrap();
    let sums_bad: String = sums_orig
        .lines()
        .map(|l| {
            if l.ends_with("  configmaps/capd-system/infrastructure-docker-v1.10.10.yaml") {
                format!(
                    "{}  {}\n",
                    capi_render::model::sha256_hex(cm_bad.as_bytes()),
                    &l[66..]
                )
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(out.join("SHA256SUMS"), sums_bad).unwrap();
    assert_eq!(
        bundle::verify(&out).unwrap().problems,
        [
            "configmaps/capd-system/infrastructure-docker-v1.10.10.yaml: ConfigMap infrastructure-docker-v1.10.10: components differ from repository/infrastructure-docker/v1.10.10/infrastructure-components.yaml",
            "rendered/: not re-derived: the ConfigMap and OCI layout problems above come first"
        ]
    );
    std::fs::write(&cm_path, cm_orig).unwrap();
    std::fs::write(out.join("SHA256SUMS"), sums_orig).unwrap();
    assert_eq!(bundle::verify(&out).unwrap().problems, Vec::<String>::new());
    let victim =
        out.join("repository/infrastructure-docker/v1.10.10/clusterclass-quick-start.yaml");
    let saved = std::fs::read(&victim).unwrap();
    std::fs::remove_file(&victim).unwrap();
    assert_eq!(
        bundle::verify(&out).unwrap().problems,
        ["repository/infrastructure-docker/v1.10.10/clusterclass-quick-start.yaml: missing"]
    );
    std::fs::write(&victim, saved).unwrap();
    std::fs::write(out.join("extra.txt"), b"x").unwrap();
    assert_eq!(
        bundle::verify(&out).unwrap().problems,
        ["extra.txt: not listed in SHA256SUMS"]
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn images_txt_lists_what_init_list_images_lists() {
    let Some(c) = corpus() else { return };
    let out = shared(&c);
    let mut cfg = capi_render::config::Config::new(Default::default());
    cfg.repository = Some(c.join("repository"));
    use capi_render::provider::ProviderType as T;
    let ps = [
        (T::Core, "cluster-api:v1.10.10".to_string()),
        (T::Bootstrap, "kubeadm:v1.10.10".to_string()),
        (T::ControlPlane, "kubeadm:v1.10.10".to_string()),
        (T::Infrastructure, "docker:v1.10.10".to_string()),
    ];
    let want = capi_render::generate::list_images(&cfg, &ps, None)
        .unwrap()
        .0;
    assert_eq!(
        std::fs::read_to_string(out.join("images.txt")).unwrap(),
        want
    );
    // The four providers' images and cert-manager's three (the corpus README).
    assert_eq!(want.lines().count(), 7);
    for c in ["cainjector", "controller", "webhook"] {
        assert!(
            want.contains(&format!("quay.io/jetstack/cert-manager-{c}:v1.19.1\n")),
            "{want}"
        );
    }
}

#[test]
fn bad_inputs_fail_clearly_and_write_nothing() {
    let d = scratch("errors");
    let out = d.join("b");
    let only_cm = d.join("cm.yaml");
    std::fs::write(
        &only_cm,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: y}\n",
    )
    .unwrap();
    let e = bundle::write(
        std::slice::from_ref(&only_cm),
        &BundleOptions::default(),
        &out,
    )
    .unwrap_err();
    assert!(e.message().starts_with("no provider objects"), "{e}");
    let e = bundle::write(
        &[providers_fixture()],
        &BundleOptions {
            image_registry: Some("Mirror.example/UPPER".into()),
            ..Default::default()
        },
        &out,
    )
    .unwrap_err();
    assert!(
        e.message()
            .starts_with("--image-registry \"Mirror.example/UPPER\""),
        "{e}"
    );
    if let Some(c) = corpus() {
        let missing = d.join("missing.yaml");
        let text = std::fs::read_to_string(providers_fixture()).unwrap();
        std::fs::write(
            &missing,
            text.replace(
                "name: docker\n  namespace: capd-system\nspec:\n  version: v1.10.10",
                "name: docker\n  namespace: capd-system\nspec:\n  version: v9.9.9",
            ),
        )
        .unwrap();
        let e = bundle::write(&[missing], &repo_opts(&c), &out).unwrap_err();
        assert!(
            e.message()
                .contains("InfrastructureProvider capd-system/docker"),
            "{e}"
        );
        assert!(e.message().contains("v9.9.9"), "{e}");
    }
    // Nothing was written, not even a staging directory.
    let left: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".yaml"))
        .collect();
    assert_eq!(left, Vec::<String>::new());
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn cli_bundle_and_verify_exit_codes() {
    let bin = env!("CARGO_BIN_EXE_capi-render");
    let run = |args: &[&std::ffi::OsStr]| {
        let o = std::process::Command::new(bin).args(args).output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let f = providers_fixture();
    let (code, _, err) = run(&["bundle".as_ref(), "-f".as_ref(), f.as_os_str()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("-o BUNDLE is required"), "{err}");
    let Some(c) = corpus() else { return };
    let (d, out) = copy_of_shared(&c, "cli");
    let (code, stdout, _) = run(&["bundle".as_ref(), "verify".as_ref(), out.as_os_str()]);
    assert_eq!(code, Some(0));
    assert!(stdout.starts_with("OK: "), "{stdout}");
    std::fs::remove_file(out.join("images.txt")).unwrap();
    let (code, stdout, err) = run(&["bundle".as_ref(), "verify".as_ref(), out.as_os_str()]);
    assert_eq!(code, Some(1));
    assert_eq!(stdout, "images.txt: missing\n");
    assert!(err.contains("failed verification: 1 problem(s)"), "{err}");
    // Writing onto an existing directory is refused.
    let repo = c.join("repository");
    let (code, _, err) = run(&[
        "bundle".as_ref(),
        "-f".as_ref(),
        f.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "--repository".as_ref(),
        repo.as_os_str(),
    ]);
    assert_eq!(code, Some(1));
    assert!(err.contains("already exists"), "{err}");
    std::fs::remove_dir_all(&d).ok();
}

/// A mirror reaches the cluster as the image override of each provider's config
/// Secret: rendered/ is what installing the bundle renders, also when a provider sets
/// images elsewhere (its own `images` key, which the mirror Secret replaces, and
/// spec.deployment, which the operator applies after the override); both are warned.
#[test]
fn mirrored_bundle_renders_what_installing_it_renders_when_images_are_customised() {
    let Some(c) = corpus() else { return };
    let d = scratch("mirror-customised");
    let out = d.join("b");
    let reg = "mirror.example:5000/capi";
    let summary = make(
        &out,
        &BundleOptions {
            image_registry: Some(reg.to_string()),
            ..repo_opts(&c)
        },
        &[root().join("fixtures/bundle/customised.yaml")],
    );
    let warned = |what: &str| summary.warnings.iter().any(|w| w.contains(what));
    assert!(
        warned("CoreProvider capi-system/cluster-api")
            && warned("the images key of its config Secret is replaced by the mirror"),
        "{:?}",
        summary.warnings
    );
    assert!(
        warned("own.example/capd/manager:v1.10.10-custom is set by the provider's customisation"),
        "{:?}",
        summary.warnings
    );
    let from_bundle = render(&[out.join("configmaps")], &RenderOptions::default());
    assert_eq!(from_bundle.units.len(), 2);
    assert_rendered_holds(&out, &from_bundle);
    // verify re-renders it: the mirror Secret's images key over the recorded core-vars.
    assert_eq!(bundle::verify(&out).unwrap().problems, Vec::<String>::new());
    assert_eq!(
        std::fs::read_to_string(out.join("images.txt")).unwrap(),
        format!(
            "own.example/capd/manager:v1.10.10-custom -> {reg}/manager:v1.10.10-custom\n\
             quay.io/jetstack/cert-manager-cainjector:v1.19.1 -> {reg}/cert-manager-cainjector:v1.19.1\n\
             quay.io/jetstack/cert-manager-controller:v1.19.1 -> {reg}/cert-manager-controller:v1.19.1\n\
             quay.io/jetstack/cert-manager-webhook:v1.19.1 -> {reg}/cert-manager-webhook:v1.19.1\n\
             registry.k8s.io/cluster-api/cluster-api-controller:v1.10.10 -> {reg}/cluster-api-controller:v1.10.10\n"
        )
    );
    std::fs::remove_dir_all(&d).ok();
}
