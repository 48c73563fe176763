//! The CI recipe's comment step (`scripts/pr-comment.py`, used by the GitHub composite
//! action `.github/actions/capi-render-diff` and the GitLab job in `ci/gitlab/`): with a
//! real `diff --output-format markdown` body, against fake GitHub and GitLab APIs on
//! localhost, it updates the comment that carries the marker (found across pages) and
//! creates one when there is none.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

mod common;

type Seen = Arc<Mutex<Vec<(String, String, String)>>>;

/// A one-request-per-connection HTTP server: `reply(method, path)` gives the JSON body
/// and extra headers; every request is recorded as (method, path, body).
fn serve(reply: impl Fn(&str, &str) -> (String, String) + Send + 'static) -> (String, Seen) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let seen: Seen = Arc::default();
    let log = seen.clone();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { return };
            let mut r = BufReader::new(s.try_clone().unwrap());
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            let mut it = line.split_whitespace();
            let (method, path) = (
                it.next().unwrap_or("").to_string(),
                it.next().unwrap_or("").to_string(),
            );
            let mut len = 0;
            loop {
                let mut h = String::new();
                r.read_line(&mut h).unwrap();
                if h.trim().is_empty() {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; len];
            r.read_exact(&mut body).unwrap();
            log.lock().unwrap().push((
                method.clone(),
                path.clone(),
                String::from_utf8(body).unwrap(),
            ));
            let (json, extra) = reply(&method, &path);
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{json}",
                json.len()
            );
        }
    });
    (url, seen)
}

/// A real comment: the quick-start Clusters against a version bump.
fn comment(dir: &Path) -> std::path::PathBuf {
    let src = common::root().join("fixtures/quickstart/clusters");
    let after = dir.join("after");
    std::fs::create_dir_all(&after).unwrap();
    for f in ["class.yaml", "clusters.yaml"] {
        let t = std::fs::read_to_string(src.join(f)).unwrap();
        std::fs::write(
            after.join(f),
            t.replace("version: v1.31.2", "version: v1.32.0"),
        )
        .unwrap();
    }
    let o = common::run(
        common::bin()
            .args(["diff", "--output-format", "markdown", "-f"])
            .arg(&src)
            .arg("--against")
            .arg(&after),
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let p = dir.join("comment.md");
    std::fs::write(&p, &o.stdout).unwrap();
    p
}

fn script(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new("python3");
    c.arg(common::root().join("scripts/pr-comment.py"))
        .args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("python3 runs")
}

#[test]
fn github_updates_the_marked_comment_found_on_a_later_page() {
    let s = common::Scratch::new("pr-comment-gh");
    let body = comment(s.path());
    let text = std::fs::read_to_string(&body).unwrap();
    let (url, seen) = serve(|m, p| match (m, p) {
        ("GET", p) if p.ends_with("comments?per_page=100") => (
            r#"[{"id": 1, "body": "LGTM"}]"#.into(),
            "Link: </repos/o/r/issues/5/comments?per_page=100&page=2>; rel=\"next\"\r\n".into(),
        ),
        ("GET", _) => (
            r#"[{"id": 7, "body": "<!-- capi-render diff -->\nold"}]"#.into(),
            String::new(),
        ),
        _ => (
            r#"{"id": 7, "html_url": "https://github.example/o/r/pull/5#c7"}"#.into(),
            String::new(),
        ),
    });
    let b = body.to_str().unwrap();
    let o = script(
        &["github", "--repo", "o/r", "--pr", "5", "--body", b],
        &[("GITHUB_API_URL", &url), ("GITHUB_TOKEN", "t")],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "updated https://github.example/o/r/pull/5#c7\n"
    );
    let seen = seen.lock().unwrap();
    let calls: Vec<(&str, &str)> = seen
        .iter()
        .map(|(m, p, _)| (m.as_str(), p.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            ("GET", "/repos/o/r/issues/5/comments?per_page=100"),
            ("GET", "/repos/o/r/issues/5/comments?per_page=100&page=2"),
            ("PATCH", "/repos/o/r/issues/comments/7"),
        ]
    );
    let sent: serde_json::Value = serde_json::from_str(&seen[2].2).unwrap();
    assert_eq!(sent["body"], text.as_str());
    assert!(text.contains("2 Clusters changed"), "{text}");
}

#[test]
fn github_creates_a_comment_when_none_is_marked() {
    let s = common::Scratch::new("pr-comment-gh-new");
    let body = comment(s.path());
    let (url, seen) = serve(|m, _| match m {
        "GET" => ("[]".into(), String::new()),
        _ => (
            r#"{"id": 9, "html_url": "https://github.example/c9"}"#.into(),
            String::new(),
        ),
    });
    let o = script(
        &[
            "github",
            "--repo",
            "o/r",
            "--pr",
            "5",
            "--body",
            body.to_str().unwrap(),
        ],
        &[("GITHUB_API_URL", &url), ("GITHUB_TOKEN", "t")],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "created https://github.example/c9\n"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(
        (seen[1].0.as_str(), seen[1].1.as_str()),
        ("POST", "/repos/o/r/issues/5/comments")
    );
}

#[test]
fn gitlab_updates_the_marked_note_and_a_body_without_marker_is_refused() {
    let s = common::Scratch::new("pr-comment-gl");
    let body = comment(s.path());
    let (url, seen) = serve(|m, _| match m {
        "GET" => (
            r#"[{"id": 3, "body": "<!-- capi-render diff -->\nold"}]"#.into(),
            String::new(),
        ),
        _ => (r#"{"id": 3}"#.into(), String::new()),
    });
    let api = format!("{url}/api/v4");
    let o = script(
        &[
            "gitlab",
            "--project",
            "g/p",
            "--mr",
            "4",
            "--body",
            body.to_str().unwrap(),
        ],
        &[("CI_API_V4_URL", &api), ("GITLAB_TOKEN", "t")],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "updated note 3\n");
    let seen = seen.lock().unwrap();
    assert_eq!(
        (seen[1].0.as_str(), seen[1].1.as_str()),
        ("PUT", "/api/v4/projects/g%2Fp/merge_requests/4/notes/3")
    );
    drop(seen);
    let plain = s.write("plain.md", "just text\n");
    let o = script(
        &["gitlab", "--project", "g/p", "--mr", "4", "--body", &plain],
        &[("CI_API_V4_URL", &api), ("GITLAB_TOKEN", "t")],
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("does not start with <!-- capi-render diff -->"));
}
