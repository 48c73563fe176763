//! cert-manager from a local repository (`crate::certmanager`): what `init list-images`
//! lists and what a bundle carries, from the corpus's real v1.19.1 release manifest
//! (`repository/cert-manager/v1.19.1/cert-manager.yaml`, 49 objects; its images are
//! `quay.io/jetstack/cert-manager-{cainjector,controller,webhook}:v1.19.1`).

mod common;

use std::path::{Path, PathBuf};

use common::{bin, corpus, run};

const JETSTACK: [&str; 3] = [
    "quay.io/jetstack/cert-manager-cainjector:v1.19.1",
    "quay.io/jetstack/cert-manager-controller:v1.19.1",
    "quay.io/jetstack/cert-manager-webhook:v1.19.1",
];

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("capi-cm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The four corpus providers as operator CRs (the bundle tests' fixture).
fn providers_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bundle/providers.yaml")
}

/// A clusterctl config at `path` naming the four v1.10.10 providers of `repo` by
/// absolute URL, with no cert-manager section.
fn providers_only_config(path: &Path, repo: &Path) {
    let url = |label: &str, file: &str| {
        repo.join(label)
            .join("v1.10.10")
            .join(file)
            .display()
            .to_string()
    };
    std::fs::write(
        path,
        format!(
            "providers:\n- {{name: cluster-api, type: CoreProvider, url: {}}}\n- {{name: kubeadm, type: BootstrapProvider, url: {}}}\n- {{name: kubeadm, type: ControlPlaneProvider, url: {}}}\n- {{name: docker, type: InfrastructureProvider, url: {}}}\n",
            url("cluster-api", "core-components.yaml"),
            url("bootstrap-kubeadm", "bootstrap-components.yaml"),
            url("control-plane-kubeadm", "control-plane-components.yaml"),
            url("infrastructure-docker", "infrastructure-components.yaml"),
        ),
    )
    .unwrap();
}

fn list_images(args: &[&str]) -> (String, String) {
    let out = run(bin().args(args), None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn list_images_follows_clusterctl_v1_14_by_default_cert_manager_v1_21_1() {
    let Some(c) = corpus() else { return };
    let repo = c.join("repository");
    let (with, err) = list_images(&[
        "--repository",
        repo.to_str().unwrap(),
        "init",
        "list-images",
        "-i",
        "docker",
    ]);
    assert!(!err.contains("cert-manager"), "{err}");
    let want = [
        "gcr.io/k8s-staging-cluster-api/capd-manager:v1.14.2",
        "quay.io/jetstack/cert-manager-cainjector:v1.21.1",
        "quay.io/jetstack/cert-manager-controller:v1.21.1",
        "quay.io/jetstack/cert-manager-webhook:v1.21.1",
        "registry.k8s.io/cluster-api/cluster-api-controller:v1.14.2",
        "registry.k8s.io/cluster-api/kubeadm-bootstrap-controller:v1.14.2",
        "registry.k8s.io/cluster-api/kubeadm-control-plane-controller:v1.14.2",
    ];
    assert_eq!(with.lines().collect::<Vec<_>>(), want);
    // A cert-manager.externallyProvisioned that is not a Go boolean is clusterctl v1.14's
    // error; v1.10 has no such field.
    let d = scratch("ext");
    let cfg = d.join("c.yaml");
    std::fs::write(&cfg, "cert-manager:\n  externallyProvisioned: maybe\n").unwrap();
    let args = |v: &'static str| {
        bin()
            .args([
                "--repository",
                repo.to_str().unwrap(),
                "--config",
                cfg.to_str().unwrap(),
            ])
            .args([
                "init",
                "list-images",
                "-i",
                "docker",
                "--clusterctl-version",
                v,
            ])
            .output()
            .unwrap()
    };
    let o = args("v1.14");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("strconv.ParseBool: parsing \"maybe\": invalid syntax"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(args("v1.10").status.success());
}

#[test]
fn list_images_reads_cert_manager_from_the_repository_or_the_config() {
    let Some(c) = corpus() else { return };
    let repo = c.join("repository");
    let repo = repo.to_str().unwrap();
    // clusterctl v1.10's default cert-manager, v1.19.1 (v1.14's is below).
    let providers = [
        "init",
        "list-images",
        "--clusterctl-version",
        "v1.10",
        "--core",
        "cluster-api:v1.10.10",
        "-i",
        "docker:v1.10.10",
    ];
    let (with, err) = list_images(&[&["--repository", repo][..], &providers].concat());
    assert!(!err.contains("cert-manager"), "{err}");
    for i in JETSTACK {
        assert!(with.lines().any(|l| l == i), "{i} missing from\n{with}");
    }
    // The same providers without a local cert-manager: only the providers', and a warning.
    let d = scratch("list");
    let plain = d.join("plain.yaml");
    providers_only_config(&plain, &c.join("repository"));
    let plain = plain.to_str().unwrap();
    let (without, err) = list_images(&[&["--config", plain][..], &providers].concat());
    assert!(
        err.contains("cert-manager's images are not listed"),
        "{err}"
    );
    let expected: Vec<&str> = with.lines().filter(|l| !JETSTACK.contains(l)).collect();
    assert_eq!(without.lines().collect::<Vec<_>>(), expected);
    // The config's cert-manager section names the release; its images override applies.
    let cfg = d.join("cm.yaml");
    std::fs::write(
        &cfg,
        format!(
            "{}cert-manager:\n  url: {repo}/cert-manager/v1.19.1/cert-manager.yaml\nimages:\n  cert-manager:\n    repository: mirror.local/jetstack\n",
            std::fs::read_to_string(plain).unwrap()
        ),
    )
    .unwrap();
    let (mirrored, _) =
        list_images(&[&["--config", cfg.to_str().unwrap()][..], &providers].concat());
    for i in JETSTACK {
        let m = i.replace("quay.io/jetstack", "mirror.local/jetstack");
        assert!(
            mirrored.lines().any(|l| l == m),
            "{m} missing from\n{mirrored}"
        );
    }
    // A cert-manager version the repository does not hold is an error naming the file.
    std::fs::write(&cfg, "cert-manager:\n  version: v1.0.0\n").unwrap();
    let out = run(
        bin().args(
            [
                &["--config", cfg.to_str().unwrap(), "--repository", repo][..],
                &providers,
            ]
            .concat(),
        ),
        None,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("cert-manager/v1.0.0/cert-manager.yaml"),
        "{err}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn bundles_carry_the_release_and_its_rendered_objects() {
    let Some(c) = corpus() else { return };
    let d = scratch("bundle");
    let out = d.join("b");
    let providers = providers_fixture();
    let o = run(
        bin().args([
            "bundle",
            "-f",
            providers.to_str().unwrap(),
            "--repository",
            c.join("repository").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]),
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains(", cert-manager v1.19.1, 7 image(s)"));
    let release = c.join("repository/cert-manager/v1.19.1/cert-manager.yaml");
    assert_eq!(
        std::fs::read(out.join("repository/cert-manager/v1.19.1/cert-manager.yaml")).unwrap(),
        std::fs::read(&release).unwrap(),
        "the release is carried byte for byte"
    );
    let rendered =
        std::fs::read_to_string(out.join("rendered/cert-manager/cert-manager.yaml")).unwrap();
    let objs = capi_render::yaml::parse_documents(&rendered).unwrap();
    assert_eq!(objs.len(), 49);
    for o in &objs {
        let md = &o["metadata"];
        assert_eq!(md["labels"]["clusterctl.cluster.x-k8s.io"], "", "{md}");
        assert_eq!(
            md["labels"]["clusterctl.cluster.x-k8s.io/core"],
            "cert-manager"
        );
        assert_eq!(
            md["annotations"]["cert-manager.clusterctl.cluster.x-k8s.io/version"],
            "v1.19.1"
        );
    }
    let images = std::fs::read_to_string(out.join("images.txt")).unwrap();
    for i in JETSTACK {
        assert!(images.lines().any(|l| l == i), "{images}");
    }
    let v = run(
        bin().args(["bundle", "verify", out.to_str().unwrap()]),
        None,
    );
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    std::fs::remove_dir_all(&d).ok();
}

/// `render --cert-manager -o OUT`: cert-manager is the tree's first unit (`cert-manager/`,
/// the same objects clusterctl installs, as the bundle's `rendered/` holds them), the
/// providers' Flux Kustomizations depend on it (they use its Certificate and Issuer
/// kinds), the lock records the flag and the release, and `--check` without the flag
/// finds the unit gone.
#[test]
fn render_puts_cert_manager_first_in_the_tree() {
    let Some(c) = corpus() else { return };
    let d = scratch("tree");
    let out = d.join("tree");
    let providers = providers_fixture();
    let repo = c.join("repository");
    let args = |extra: &[&str]| {
        let mut a = vec![
            "render".to_string(),
            "-f".into(),
            providers.display().to_string(),
            "--repository".into(),
            repo.display().to_string(),
            "--flux".into(),
            "--flux-path".into(),
            "./tree".into(),
            "-o".into(),
            out.display().to_string(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let o = run(bin().args(args(&["--cert-manager"])), None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let root = std::fs::read_to_string(out.join("kustomization.yaml")).unwrap();
    assert!(
        root.contains("resources:\n- cert-manager\n- providers/capi-system/core-cluster-api\n"),
        "{root}"
    );
    let mut files: Vec<String> = std::fs::read_dir(out.join("cert-manager"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "kustomization.yaml")
        .collect();
    files.sort();
    assert_eq!(files.len(), 49, "one file per object");
    let mut objs = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(out.join("cert-manager").join(f)).unwrap();
        objs.extend(capi_render::yaml::parse_documents(&text).unwrap());
    }
    // The same objects as the bundle's rendered/cert-manager (checked byte for byte
    // against clusterctl's install by conformance/bundle.sh).
    let b = d.join("bundle");
    let o = run(
        bin().args([
            "bundle",
            "-f",
            providers.to_str().unwrap(),
            "--repository",
            repo.to_str().unwrap(),
            "-o",
            b.to_str().unwrap(),
        ]),
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut bundled = capi_render::yaml::parse_documents(
        &std::fs::read_to_string(b.join("rendered/cert-manager/cert-manager.yaml")).unwrap(),
    )
    .unwrap();
    let key = |v: &serde_json::Value| v.to_string();
    objs.sort_by_key(key);
    bundled.sort_by_key(key);
    assert_eq!(objs, bundled);
    let flux = std::fs::read_to_string(out.join("flux/capi-system-core-cluster-api.yaml")).unwrap();
    assert!(
        flux.contains("dependsOn:\n  - name: cert-manager\n"),
        "{flux}"
    );
    let cm_flux = std::fs::read_to_string(out.join("flux/cert-manager.yaml")).unwrap();
    assert!(
        cm_flux.contains("path: ./tree/cert-manager\n") && cm_flux.contains("wait: true"),
        "{cm_flux}"
    );
    let lock = std::fs::read_to_string(out.join("capi-render.lock")).unwrap();
    assert!(lock.contains("  certManager: true\n"), "{lock}");
    assert!(
        lock.contains("cert-manager/v1.19.1/cert-manager.yaml\n"),
        "{lock}"
    );
    assert!(
        lock.contains("  type: cert-manager\n  version: v1.19.1\n"),
        "{lock}"
    );
    let check = run(bin().args(args(&["--cert-manager", "--check"])), None);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let without = run(bin().args(args(&["--check"])), None);
    assert_eq!(without.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&without.stdout).contains("cert-manager/"));
    // No local release (providers from a config, no --repository): a clear error.
    let cfg = d.join("providers-only.yaml");
    providers_only_config(&cfg, &repo);
    let o = run(
        bin().args([
            "--config",
            cfg.to_str().unwrap(),
            "render",
            "-f",
            providers.to_str().unwrap(),
            "--cert-manager",
            "--stdout",
        ]),
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("--cert-manager: no local cert-manager release"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
    std::fs::remove_dir_all(&d).ok();
}
