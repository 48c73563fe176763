//! A fake GitHub on a loopback port that serves the corpus's Cluster API releases in
//! GitHub's layout: the release list and release API (`/repos/OWNER/NAME/releases...`)
//! and `OWNER/NAME/releases/download/VERSION/ASSET`, with the docker provider published
//! as `infrastructure-components-development.yaml` as upstream does, plus a pre-release
//! that `latest` must pass over. `tests/repository_fetch.rs` and the docs test
//! (`tests/docs_commands.rs`, through `CAPI_RENDER_GITHUB_URL`) use it.

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;

pub const REPO: &str = "kubernetes-sigs/cluster-api";

/// (corpus label, file in the corpus, the GitHub asset's name).
pub fn assets_of(corpus: &Path, v: &str) -> Vec<(String, Vec<u8>)> {
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
pub fn routes(corpus: &Path) -> HashMap<String, Vec<u8>> {
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
pub fn serve(routes: HashMap<String, Vec<u8>>) -> String {
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

/// The fake GitHub serving the corpus; its base URL (web and API alike).
pub fn serve_corpus(corpus: &Path) -> String {
    serve(routes(corpus))
}
