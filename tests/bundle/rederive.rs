//! `bundle verify` re-derives `rendered/` and `images.txt` from the bundle's own
//! content (issue 55, finding 8): edits whose `SHA256SUMS` line was updated too are
//! reported, naming the file and what differs.

use super::*;

/// Rewrite `SHA256SUMS` over the bundle's current files (what a tamperer does).
fn resum(out: &Path) {
    let mut t = bundle::verify::read_tree(out).unwrap();
    t.remove(bundle::sums::SUMS_FILE);
    std::fs::write(
        out.join(bundle::sums::SUMS_FILE),
        bundle::sums::format_sums(&t),
    )
    .unwrap();
}

/// Change `rel` with `f`, update the sums, and return verify's problems.
fn tamper(out: &Path, rel: &str, f: impl FnOnce(String) -> String) -> Vec<String> {
    let p = out.join(rel);
    let text = std::fs::read_to_string(&p).unwrap_or_default();
    if let Some(dir) = p.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(&p, f(text)).unwrap();
    resum(out);
    bundle::verify(out).unwrap().problems
}

const POD: &str = "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: evil\n  namespace: default\nspec:\n  containers:\n  - name: x\n    image: evil.example/x:v1\n";

#[test]
fn verify_reports_a_pod_appended_to_cert_manager_with_the_sums_updated() {
    let Some(c) = corpus() else { return };
    let (d, out) = copy_of_shared(&c, "rederive-pod");
    let started = std::time::Instant::now();
    assert_eq!(bundle::verify(&out).unwrap().problems, Vec::<String>::new());
    eprintln!("verify of the corpus bundle: {:?}", started.elapsed());
    let rel = "rendered/cert-manager/cert-manager.yaml";
    let problems = tamper(&out, rel, |t| format!("{t}{POD}"));
    assert_eq!(problems.len(), 1, "{problems:?}");
    let p = &problems[0];
    assert!(
        p.starts_with(&format!("{rel}: differs from what the bundle's configmaps/ and repository/ render: extra: document ")),
        "{p}"
    );
    assert!(
        p.contains(" (Pod default/evil); first difference at line "),
        "{p}"
    );
    assert!(p.len() < 5000, "{}", p.len());
    // The command fails, names the file, and hints at rebuilding.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_capi-render"))
        .args(["bundle".as_ref(), "verify".as_ref(), out.as_os_str()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.starts_with(&format!("{rel}: differs")), "{stdout}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("capi-render bundle"), "{stderr}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn verify_reports_a_replaced_images_txt_and_an_edited_provider_rendering() {
    let Some(c) = corpus() else { return };
    let (d, out) = copy_of_shared(&c, "rederive-images");
    let problems = tamper(&out, "images.txt", |t| {
        t.replace(
            "gcr.io/k8s-staging-cluster-api/capd-manager:v1.10.10",
            "evil.example/capd-manager:v1.10.10",
        )
    });
    assert_eq!(
        problems,
        ["images.txt: differs from what the bundle's configmaps/ and repository/ render: extra lines: \"evil.example/capd-manager:v1.10.10\"; missing lines: \"gcr.io/k8s-staging-cluster-api/capd-manager:v1.10.10\"; first difference at line 1: expected \"gcr.io/k8s-staging-cluster-api/capd-manager:v1.10.10\", found \"evil.example/capd-manager:v1.10.10\""]
    );
    let (d2, out) = copy_of_shared(&c, "rederive-provider");
    let rel = "rendered/capd-system/infrastructure-docker.yaml";
    let problems = tamper(&out, rel, |t| {
        assert!(t.contains("image: gcr.io/k8s-staging-cluster-api/capd-manager:v1.10.10"));
        t.replace(
            "image: gcr.io/k8s-staging-cluster-api/capd-manager:v1.10.10",
            "image: evil.example/capd-manager:v1.10.10",
        )
    });
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with(&format!("{rel}: differs from what the bundle's configmaps/ and repository/ render: changed: document ")),
        "{problems:?}"
    );
    assert!(
        problems[0].contains("(Deployment capd-system/capd-controller-manager)")
            && problems[0].contains("found \"        image: evil.example/capd-manager:v1.10.10\""),
        "{problems:?}"
    );
    // A file no provider renders, and a provider whose rendering is gone.
    let problems = tamper(&out, "rendered/default/evil.yaml", |_| POD.to_string());
    assert!(
        problems.contains(&"rendered/default/evil.yaml: not rendered by the bundle (no provider CR in configmaps/ and no repository/cert-manager/ release renders it)".to_string()),
        "{problems:?}"
    );
    std::fs::remove_file(out.join(rel)).unwrap();
    std::fs::remove_file(out.join("rendered/default/evil.yaml")).unwrap();
    resum(&out);
    assert_eq!(
        bundle::verify(&out).unwrap().problems,
        [format!(
            "{rel}: missing (the bundle's configmaps/ render it)"
        )]
    );
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&d2).ok();
}

#[test]
fn verify_renders_nothing_from_outside_the_bundle() {
    let Some(c) = corpus() else { return };
    let (d, out) = copy_of_shared(&c, "rederive-outside");
    let rel = "configmaps/capd-system/infrastructure-docker-provider.yaml";
    let problems = tamper(&out, rel, |t| {
        let i = t.find("  fetchConfig:").unwrap();
        format!("{}  fetchConfig:\n    url: /etc/\n", &t[..i])
    });
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("rendered/: cannot re-derive rendered/ and images.txt")
            && problems[0].contains("InfrastructureProvider capd-system/docker")
            && problems[0].contains("spec.fetchConfig must be the bundle's selector"),
        "{problems:?}"
    );
    std::fs::remove_dir_all(&d).ok();
}

/// The config's `images:` reach `rendered/` without being in `configmaps/`: the bundle
/// records them in `render-inputs/clusterctl.yaml`, and verify renders with them.
#[test]
fn verify_renders_with_the_recorded_config_images() {
    let Some(c) = corpus() else { return };
    let d = scratch("rederive-config");
    let cfg = d.join("clusterctl.yaml");
    std::fs::write(
        &cfg,
        "images:\n  all:\n    repository: internal.example/capi\n",
    )
    .unwrap();
    let out = d.join("b");
    make(
        &out,
        &BundleOptions {
            config: Some(cfg),
            ..repo_opts(&c)
        },
        &[providers_fixture()],
    );
    let images = std::fs::read_to_string(out.join("images.txt")).unwrap();
    assert!(
        images.contains("internal.example/capi/capd-manager:v1.10.10\n"),
        "{images}"
    );
    assert_eq!(bundle::verify(&out).unwrap().problems, Vec::<String>::new());
    std::fs::remove_file(out.join("render-inputs/clusterctl.yaml")).unwrap();
    resum(&out);
    let problems = bundle::verify(&out).unwrap().problems;
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("images.txt: differs"))
            && problems
                .iter()
                .any(|p| p.starts_with("rendered/capd-system/infrastructure-docker.yaml: differs")),
        "{problems:?}"
    );
    std::fs::remove_dir_all(&d).ok();
}

/// A config Secret reaches `rendered/` without being in `configmaps/`: the bundle
/// records the keys the components name (not the others) in
/// `render-inputs/objects.yaml`, and verify renders with them and with the mirror
/// Secrets' `images` over them. Runs without the corpus (the quickstart providers).
#[test]
fn verify_renders_with_the_recorded_config_secret_keys_only() {
    let d = scratch("rederive-secret");
    let input = d.join("providers.yaml");
    let text = std::fs::read_to_string(root().join("fixtures/quickstart/providers/providers.yaml"))
        .unwrap();
    std::fs::write(
        &input,
        format!("{text}  UNUSED_TOKEN: not-for-the-bundle\n"),
    )
    .unwrap();
    let out = d.join("b");
    make(
        &out,
        &BundleOptions {
            config: Some(root().join("fixtures/quickstart/clusterctl.yaml")),
            image_registry: Some("registry.internal.example".into()),
            ..Default::default()
        },
        &[input],
    );
    let rec = std::fs::read_to_string(out.join("render-inputs/objects.yaml")).unwrap();
    assert!(rec.contains("SYNTH_REGION: eu-west-1\n"), "{rec}");
    assert!(!rec.contains("UNUSED_TOKEN"), "{rec}");
    assert_eq!(bundle::verify(&out).unwrap().problems, Vec::<String>::new());
    let problems = tamper(&out, "render-inputs/objects.yaml", |t| {
        t.replace("SYNTH_REGION: eu-west-1", "SYNTH_REGION: us-east-1")
    });
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("rendered/capi-system/core-cluster-api.yaml: differs from what the bundle's configmaps/ and repository/ render: changed: document "),
        "{problems:?}"
    );
    // Nothing but what a bundle records may sit in render-inputs/.
    let problems = tamper(&out, "render-inputs/objects.yaml", |t| {
        format!("{t}---\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata: {{name: x, namespace: y}}\n")
    });
    assert!(
        problems.len() == 1 && problems[0].contains("kind \"CoreProvider\": only config Secrets and additional-manifests ConfigMaps are recorded"),
        "{problems:?}"
    );
    std::fs::remove_dir_all(&d).ok();
}
