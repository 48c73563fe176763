//! `repository fetch` against a local HTTP server that serves the corpus's Cluster API
//! releases in GitHub's layout (the release list and release API, and
//! `releases/download/VERSION/ASSET`, with the docker provider published as
//! `infrastructure-components-development.yaml` as upstream does): the fetched
//! repository is the corpus's, byte for byte; the lock refuses a changed asset; the
//! quick start renders the fetched releases.

use std::fs;
use std::path::Path;
use std::process::Output;

mod common;
use common::github::{serve_corpus, REPO};
use common::{bin, Scratch};

fn fetch(dir: &Path, url: &str, args: &[&str]) -> Output {
    let mut c = bin();
    c.current_dir(dir)
        .env_remove("GITHUB_TOKEN")
        .args(["--repository", "repo", "repository", "fetch"])
        .args(["--github-url", url, "--github-api-url", url])
        .args(args);
    c.output().unwrap()
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn latest_releases_are_the_corpus_byte_for_byte_and_the_lock_refuses_a_change() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let url = serve_corpus(&corpus);
    let s = Scratch::new("fetch-latest");
    let o = fetch(
        s.path(),
        &url,
        &[
            "--core",
            "cluster-api",
            "-b",
            "kubeadm",
            "-c",
            "kubeadm",
            "-i",
            "docker",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    assert!(err.contains("written, 0 unchanged"), "{err}");
    for label in [
        "cluster-api",
        "bootstrap-kubeadm",
        "control-plane-kubeadm",
        "infrastructure-docker",
    ] {
        // latest = v1.14.2, the newest release that is not a pre-release.
        let want = corpus.join("repository").join(label).join("v1.14.2");
        let got = s.path().join("repo").join(label).join("v1.14.2");
        assert_eq!(files(&got), files(&want), "{label}");
        for f in files(&want) {
            assert!(
                fs::read(got.join(&f)).unwrap() == fs::read(want.join(&f)).unwrap(),
                "{label}/{f}"
            );
        }
    }
    // What render and generate read from it is the corpus's.
    let generate = |repo: &Path| {
        let mut c = bin();
        c.args([
            "--repository",
            repo.to_str().unwrap(),
            "generate",
            "provider",
            "-i",
            "docker:v1.14.2",
        ]);
        c.output().unwrap()
    };
    let (a, b) = (
        generate(&s.path().join("repo")),
        generate(&corpus.join("repository")),
    );
    assert!(a.status.success(), "{a:?}");
    assert_eq!(a.stdout, b.stdout);
    // Again: nothing changes.
    let o = fetch(s.path(), &url, &["--core", "cluster-api"]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(err.contains("0 written, 2 unchanged"), "{err}");
    // The lock recorded another sum for the core components (the release changed
    // upstream, as far as the lock can tell): refused, nothing written.
    let lock_path = s.path().join("repo/fetch-lock.yaml");
    let lock = fs::read_to_string(&lock_path).unwrap();
    let core_url = format!("{url}/{REPO}/releases/download/v1.14.2/core-components.yaml");
    assert!(lock.contains(&core_url), "{lock}");
    let at = lock
        .find("path: cluster-api/v1.14.2/core-components.yaml")
        .unwrap();
    let sum_at = at + lock[at..].find("sha256: ").unwrap() + "sha256: ".len();
    let mut edited = lock.clone();
    edited.replace_range(sum_at..sum_at + 64, &"f".repeat(64));
    fs::write(&lock_path, &edited).unwrap();
    let o = fetch(s.path(), &url, &["--core", "cluster-api"]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("changed since it was fetched"), "{err}");
    assert_eq!(fs::read_to_string(&lock_path).unwrap(), edited);
}

#[test]
fn provider_crs_fetch_their_versions_and_the_quick_start_renders_them() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let url = serve_corpus(&corpus);
    let s = Scratch::new("fetch-crs");
    let mut crs = String::new();
    for (kind, name, ns) in [
        ("CoreProvider", "cluster-api", "capi-system"),
        (
            "BootstrapProvider",
            "kubeadm",
            "capi-kubeadm-bootstrap-system",
        ),
        (
            "ControlPlaneProvider",
            "kubeadm",
            "capi-kubeadm-control-plane-system",
        ),
        ("InfrastructureProvider", "docker", "capd-system"),
    ] {
        crs += &format!("---\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: {ns}\nspec:\n  version: v1.13.6\n");
    }
    fs::write(s.path().join("providers.yaml"), &crs).unwrap();
    let o = fetch(s.path(), &url, &["-f", "providers.yaml"]);
    assert!(o.status.success(), "{o:?}");
    assert!(s
        .path()
        .join("repo/infrastructure-docker/v1.13.6/clusterclass-quick-start.yaml")
        .is_file());
    assert!(!s.path().join("repo/cluster-api/v1.14.2").exists());
    // The providers render from the fetched repository.
    let mut c = bin();
    c.current_dir(s.path()).args([
        "--repository",
        "repo",
        "render",
        "-f",
        "providers.yaml",
        "-o",
        "out",
    ]);
    let r = c.output().unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let deployment = s
        .path()
        .join("out/providers/capd-system/infrastructure-docker");
    assert!(deployment.is_dir(), "{:?}", files(&s.path().join("out")));
    // An unknown version names the release's absence.
    fs::write(s.path().join("bad.yaml"), crs.replace("v1.13.6", "v1.13.9")).unwrap();
    let o = fetch(s.path(), &url, &["-f", "bad.yaml"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("releases/tags/v1.13.9\": 404 Not Found"),
        "{err}"
    );
}

/// The KRM example (`fixtures/gitops/krm`, `docs/src/reference/krm.md`) as the book shows
/// it: its releases fetched into `repository/` next to the kustomization, then
/// `capi-render krm` run as kustomize runs an exec generator (the `capi-render.yaml`
/// functionConfig, no items): the objects are `render --stdout`'s.
#[test]
fn the_krm_example_renders_the_releases_fetched_next_to_it() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let url = serve_corpus(&corpus);
    let s = Scratch::new("fetch-krm");
    let krm_dir = common::root().join("fixtures/gitops/krm");
    for f in ["capi-render.yaml", "kustomization.yaml", "providers.yaml"] {
        fs::copy(krm_dir.join(f), s.path().join(f)).unwrap();
    }
    // The command the page shows, with the mirror given through the environment.
    let mut c = bin();
    c.current_dir(s.path())
        .env_remove("GITHUB_TOKEN")
        .env("CAPI_RENDER_GITHUB_URL", &url)
        .env("CAPI_RENDER_GITHUB_API_URL", &url)
        .args(["--repository", "repository", "repository", "fetch"])
        .args(["-f", "providers.yaml"]);
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut c = bin();
    c.current_dir(s.path()).args([
        "render",
        "-f",
        "providers.yaml",
        "--repository",
        "repository",
        "--stdout",
    ]);
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want = capi_render::yaml::parse_documents(&String::from_utf8(o.stdout).unwrap()).unwrap();
    assert!(want.len() > 20, "{}", want.len());
    // kustomize hands an exec generator its config file as the functionConfig.
    let mut fc = capi_render::yaml::parse_value(
        &fs::read_to_string(s.path().join("capi-render.yaml")).unwrap(),
    )
    .unwrap();
    fc["metadata"]["annotations"]["config.kubernetes.io/local-config"] = "true".into();
    let rl = serde_json::json!({
        "apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
        "items": [], "functionConfig": fc,
    });
    let mut c = bin()
        .arg("krm")
        .current_dir(s.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    c.stdin
        .take()
        .unwrap()
        .write_all(capi_render::yaml::to_yaml(&rl).as_bytes())
        .unwrap();
    let o = c.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let got = capi_render::yaml::parse_value(&out).unwrap();
    assert_eq!(got["kind"], "ResourceList");
    assert_eq!(got["items"].as_array().unwrap(), &want);
}

/// `GITHUB_TOKEN` goes to `--github-api-url`'s origin only (issue 55): not to a URL
/// that merely starts with its text (user information naming the API, then another
/// port), and not along a redirect the API answers. Two recording servers on loopback.
#[test]
fn the_token_goes_only_to_the_api_origin() {
    use common::recorder::{serve, Answer};
    const TOKEN: &str = "ghp_secret-token-for-the-api";
    let (other, other_log) = serve(|_| Answer::ok("# any\n"));
    let other_port = other.rsplit(':').next().unwrap().to_string();
    let (api, api_log) = serve(move |path| {
        if path.contains("/releases") {
            Answer::redirect(&format!("http://127.0.0.1:{other_port}{path}"))
        } else {
            Answer::ok("# from the api\n")
        }
    });
    let s = Scratch::new("fetch-token");
    let api_hostport = api.trim_start_matches("http://");
    let other_hostport = other.trim_start_matches("http://");
    // A provider URL whose text starts with the API's: user information, then `other`.
    let cr = format!(
        "apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.0.0\n  fetchConfig:\n    url: http://{api_hostport}@{other_hostport}/o/v1.0.0/core-components.yaml\n"
    );
    fs::write(s.path().join("providers.yaml"), cr).unwrap();
    let mut c = bin();
    c.current_dir(s.path())
        .env("GITHUB_TOKEN", TOKEN)
        .args([
            "--repository",
            "repo",
            "repository",
            "fetch",
            "-f",
            "providers.yaml",
        ])
        .args(["--github-url", &api, "--github-api-url", &api]);
    let o = c.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(other_log.all().len() >= 2, "{:?}", other_log.all());
    assert!(!other_log.any_contains(TOKEN), "{:?}", other_log.all());
    assert!(!err.contains(TOKEN), "{err}");
    // The API itself gets it; a redirect it answers does not carry it on.
    let gh = "apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.0.0\n  fetchConfig:\n    url: https://github.com/o/r/releases/v1.0.0/core-components.yaml\n";
    fs::write(s.path().join("gh.yaml"), gh).unwrap();
    let before = other_log.all().len();
    let mut c = bin();
    c.current_dir(s.path())
        .env("GITHUB_TOKEN", TOKEN)
        .args([
            "--repository",
            "repo2",
            "repository",
            "fetch",
            "-f",
            "gh.yaml",
        ])
        .args(["--github-url", &api, "--github-api-url", &api]);
    let o = c.output().unwrap();
    assert!(
        api_log.any_contains(&format!("Bearer {TOKEN}")),
        "{:?}",
        api_log.all()
    );
    assert!(other_log.all().len() > before, "the redirect was followed");
    assert!(!other_log.any_contains(TOKEN), "{:?}", other_log.all());
    assert!(!String::from_utf8_lossy(&o.stderr).contains(TOKEN));
}

/// An error quotes at most 4 KiB of an answer, its control characters escaped: a
/// 403 with a 1 MiB body of escape sequences.
#[test]
fn an_error_answer_is_quoted_short_and_inert() {
    use common::recorder::{serve, Answer};
    let (url, _) = serve(|_| Answer {
        status: "403 Forbidden",
        headers: Vec::new(),
        body: b"\x1b[2K\rrate limited ".repeat(1 << 16),
    });
    let s = Scratch::new("fetch-403");
    let o = fetch(s.path(), &url, &["--core", "cluster-api:v1.14.2"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("403 Forbidden"), "{err}");
    assert!(err.len() < 8192, "{} bytes on stderr", err.len());
    assert!(!err.contains('\x1b') && !err.contains('\r'), "{err}");
    assert!(err.contains("\\x1b[2K\\rrate limited"), "{err}");
}
