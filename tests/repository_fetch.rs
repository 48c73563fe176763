//! `repository fetch` against a local HTTP server that serves the corpus's Cluster API
//! releases in GitHub's layout (the release list and release API, and
//! `releases/download/VERSION/ASSET`, with the docker provider published as
//! `infrastructure-components-development.yaml` as upstream does): the fetched
//! repository is the corpus's, byte for byte; the lock refuses a changed asset; the
//! quick start renders the fetched releases.

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Output;
use std::sync::Arc;

mod common;
use common::{bin, Scratch};

const REPO: &str = "kubernetes-sigs/cluster-api";

/// (corpus label, file in the corpus, the GitHub asset's name).
fn assets_of(corpus: &Path, v: &str) -> Vec<(String, Vec<u8>)> {
    let r = corpus.join("repository");
    let mut out = Vec::new();
    for (label, file, asset) in [
        (
            "cluster-api",
            "core-components.yaml",
            "core-components.yaml",
        ),
        ("cluster-api", "metadata.yaml", "metadata.yaml"),
        (
            "bootstrap-kubeadm",
            "bootstrap-components.yaml",
            "bootstrap-components.yaml",
        ),
        (
            "control-plane-kubeadm",
            "control-plane-components.yaml",
            "control-plane-components.yaml",
        ),
        (
            "infrastructure-docker",
            "infrastructure-components.yaml",
            "infrastructure-components-development.yaml",
        ),
    ] {
        if let Ok(b) = fs::read(r.join(label).join(v).join(file)) {
            out.push((asset.to_string(), b));
        }
    }
    if let Ok(d) = fs::read_dir(r.join("infrastructure-docker").join(v)) {
        for e in d.flatten() {
            let n = e.file_name().into_string().unwrap();
            if n.starts_with("cluster-template") || n.starts_with("clusterclass") {
                out.push((n, fs::read(e.path()).unwrap()));
            }
        }
    }
    out
}

/// The routes of the fake GitHub: API and downloads, every corpus release of CAPI plus
/// a pre-release that `latest` must pass over.
fn routes(corpus: &Path) -> HashMap<String, Vec<u8>> {
    let mut m = HashMap::new();
    let mut tags = vec![r#"{"tag_name":"v1.15.0-beta.0","prerelease":true}"#.to_string()];
    for e in fs::read_dir(corpus.join("repository/cluster-api"))
        .unwrap()
        .flatten()
    {
        let v = e.file_name().into_string().unwrap();
        let assets = assets_of(corpus, &v);
        let names: Vec<String> = assets
            .iter()
            .map(|(n, _)| format!(r#"{{"name":"{n}"}}"#))
            .collect();
        m.insert(
            format!("/repos/{REPO}/releases/tags/{v}"),
            format!(r#"{{"tag_name":"{v}","assets":[{}]}}"#, names.join(",")).into_bytes(),
        );
        for (n, b) in assets {
            m.insert(format!("/{REPO}/releases/download/{v}/{n}"), b);
        }
        tags.push(format!(r#"{{"tag_name":"{v}"}}"#));
    }
    m.insert(
        format!("/repos/{REPO}/releases?per_page=100"),
        format!("[{}]", tags.join(",")).into_bytes(),
    );
    m
}

/// Serve `routes` on a loopback port until the test process ends; the base URL.
fn serve(routes: HashMap<String, Vec<u8>>) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let routes = Arc::new(routes);
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let mut r = BufReader::new(s.try_clone().unwrap());
            let mut line = String::new();
            let _ = r.read_line(&mut line);
            loop {
                let mut h = String::new();
                if r.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                    break;
                }
            }
            let path = line.split_whitespace().nth(1).unwrap_or("");
            let mut s = s;
            let (status, body) = match routes.get(path) {
                Some(b) => ("200 OK", b.clone()),
                None => ("404 Not Found", b"not found".to_vec()),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = s
                .write_all(head.as_bytes())
                .and_then(|_| s.write_all(&body));
        }
    });
    url
}

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
    let url = serve(routes(&corpus));
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
    let url = serve(routes(&corpus));
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
    assert!(err.contains("releases/tags/v1.13.9: 404"), "{err}");
}
