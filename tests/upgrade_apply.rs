//! `upgrade apply` on the corpus: v1.9.11 → v1.10.10 within v1beta1 and v1.10.10
//! (v1beta1) → v1.14.2 (v1beta2) all together, edits that change only the bytes of
//! `spec.version` (each expected file is the input text with only the versions
//! replaced), refusals that name the file, document and field and write nothing, and
//! `upgrade plan --exit-code`.

use std::path::Path;
use std::process::Output;

mod common;
use common::{bin, corpus, snapshot, Scratch};

/// The four corpus providers in two files, written in every style the editor keeps:
/// comments, quotes, 4-space indentation, a Secret between two providers, `@V@` where
/// each version goes.
const A: &str = "# Management cluster providers (Renovate-free zone)
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  # the core provider drives the contract
  version: @V@   # bumped by capi-render upgrade apply
  manager:
    featureGates:
      ClusterTopology: true
---
apiVersion: v1
kind: Secret
metadata:
  name: unrelated
  namespace: capi-system
stringData:
  token: hunter2-not-for-printing
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata:
    name: kubeadm
    namespace: capi-kubeadm-bootstrap-system
spec:
    version: '@V@'\n";

const B: &str = "apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: ControlPlaneProvider
metadata:
  name: kubeadm
  namespace: capi-kubeadm-control-plane-system
spec:
  manager:
    verbosity: 2
  version: \"@V@\"
---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata:
  name: docker
  namespace: capd-system
spec:
  version: @V@\n";

fn put(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

fn run(repo: &Path, dir: &Path, args: &[&str]) -> Output {
    bin()
        .arg("--repository")
        .arg(repo)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A scratch directory holding A and B at `v`.
fn inputs(tag: &str, v: &str) -> Scratch {
    let s = Scratch::new(tag);
    put(s.path(), "a.yaml", &A.replace("@V@", v));
    put(s.path(), "b.yaml", &B.replace("@V@", v));
    s
}

fn plan_exit(repo: &Path, dir: &Path) -> Option<i32> {
    let o = run(repo, dir, &["upgrade", "plan", "-f", ".", "--exit-code"]);
    assert!(
        o.stderr.is_empty() || o.status.code() != Some(1),
        "{}",
        text(&o.stderr)
    );
    o.status.code()
}

#[test]
fn within_v1beta1_from_v1_9_11_to_v1_10_10() {
    let Some(c) = corpus() else { return };
    let repo = c.join("repository");
    let s = inputs("within", "v1.9.11");
    let d = s.path();
    assert_eq!(plan_exit(&repo, d), Some(3));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.join("b.yaml"), std::fs::Permissions::from_mode(0o640)).unwrap();
    }
    // Without --write: the diff, and nothing changes.
    let before = snapshot(d);
    let o = run(&repo, d, &["upgrade", "apply", "-f", "."]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(snapshot(d), before);
    let diff = text(&o.stdout);
    let removed = diff
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"));
    assert_eq!(removed.count(), 4, "{diff}");
    for (old, new) in [
        (
            "-  version: v1.9.11   # bumped",
            "+  version: v1.10.10   # bumped",
        ),
        ("-    version: 'v1.9.11'", "+    version: 'v1.10.10'"),
        ("-  version: \"v1.9.11\"", "+  version: \"v1.10.10\""),
    ] {
        assert!(diff.contains(old) && diff.contains(new), "{diff}");
    }
    assert!(
        diff.starts_with("--- a/a.yaml\n+++ b/a.yaml\n@@ -6,7 +6,7 @@\n"),
        "{diff}"
    );
    // git takes the diff as it is (when git is there to ask).
    if std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok()
    {
        let mut git = std::process::Command::new("git");
        git.args(["apply", "--check", "-"]).current_dir(d);
        let out = common::run(&mut git, Some(diff.as_bytes()));
        assert!(out.status.success(), "git apply: {}", text(&out.stderr));
    }
    // The Secret between the providers is never shown.
    let all = format!("{diff}{}", text(&o.stderr));
    assert!(
        !all.contains("hunter2") && !all.contains("stringData"),
        "{all}"
    );
    // With --write: only the version bytes changed, everything else kept.
    let o = run(&repo, d, &["upgrade", "apply", "-f", ".", "--write"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(read(d, "a.yaml"), A.replace("@V@", "v1.10.10"));
    assert_eq!(read(d, "b.yaml"), B.replace("@V@", "v1.10.10"));
    assert_eq!(
        text(&o.stdout).lines().next().unwrap(),
        "CoreProvider capi-system/cluster-api (./a.yaml, document 1): spec.version v1.9.11 -> v1.10.10"
    );
    assert!(!text(&o.stdout).contains("hunter2"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(d.join("b.yaml"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o640);
    }
    // No temporary file is left behind.
    let names: Vec<String> = snapshot(d).into_keys().collect();
    assert_eq!(names, vec!["a.yaml", "b.yaml"]);
    // Within v1beta1 nothing is left; the contract change still is.
    assert_eq!(plan_exit(&repo, d), Some(3));
    let o = run(&repo, d, &["upgrade", "apply", "-f", ".", "--write"]);
    assert!(o.status.success() && o.stdout.is_empty(), "{o:?}");
    assert!(text(&o.stderr).contains("Nothing to change"), "{o:?}");
}

#[test]
fn v1beta1_to_v1beta2_all_together() {
    let Some(c) = corpus() else { return };
    let repo = c.join("repository");
    let s = inputs("next", "v1.10.10");
    let d = s.path();
    assert_eq!(plan_exit(&repo, d), Some(3));
    let o = run(
        &repo,
        d,
        &[
            "upgrade",
            "apply",
            "-f",
            ".",
            "--contract",
            "v1beta2",
            "--write",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(read(d, "a.yaml"), A.replace("@V@", "v1.14.2"));
    assert_eq!(read(d, "b.yaml"), B.replace("@V@", "v1.14.2"));
    assert_eq!(text(&o.stdout).lines().count(), 4);
    // Nothing left to move.
    assert_eq!(plan_exit(&repo, d), Some(0));
    // The same move named provider by provider, as clusterctl's typed flags.
    let s = inputs("next-typed", "v1.10.10");
    let o = run(
        &repo,
        s.path(),
        &[
            "upgrade",
            "apply",
            "-f",
            "a.yaml",
            "-f",
            "b.yaml",
            "--write",
            "--core",
            "cluster-api:v1.14.2",
            "--bootstrap",
            "kubeadm:v1.14.2",
            "--control-plane",
            "capi-kubeadm-control-plane-system/kubeadm:v1.14.2",
            "--to",
            "docker:v1.14.2",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(read(s.path(), "a.yaml"), A.replace("@V@", "v1.14.2"));
    assert_eq!(read(s.path(), "b.yaml"), B.replace("@V@", "v1.14.2"));
}

#[test]
fn crlf_files_keep_their_line_endings() {
    let Some(c) = corpus() else { return };
    let repo = c.join("repository");
    let s = Scratch::new("crlf");
    let crlf = |v: &str| A.replace("@V@", v).replace('\n', "\r\n");
    put(s.path(), "a.yaml", &crlf("v1.9.11"));
    put(s.path(), "b.yaml", &B.replace("@V@", "v1.9.11"));
    let o = run(&repo, s.path(), &["upgrade", "apply", "-f", ".", "--write"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(read(s.path(), "a.yaml"), crlf("v1.10.10"));
}

/// Every refusal: exit 1, the message names the provider CR's file, document and
/// `spec.version` (or the flag), a hint follows, and no file changes.
fn refused(repo: &Path, s: &Scratch, args: &[&str], want: &[&str]) {
    let before = snapshot(s.path());
    let mut a = vec!["upgrade", "apply", "-f", ".", "--write"];
    a.extend(args);
    let o = run(repo, s.path(), &a);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    for w in want {
        assert!(err.contains(w), "{args:?}: want {w:?} in {err}");
    }
    assert!(err.contains("\n  hint: "), "{err}");
    assert!(o.stdout.is_empty());
    assert_eq!(snapshot(s.path()), before, "{args:?} wrote");
}

#[test]
fn moves_the_plan_does_not_allow_are_refused() {
    let Some(c) = corpus() else { return };
    let repo = c.join("repository");
    let s = inputs("refuse", "v1.10.10");
    // A downgrade.
    refused(&repo, &s, &["--core", "cluster-api:v1.9.11"], &[
        "Error: CoreProvider capi-system/cluster-api (./a.yaml, document 1): spec.version: v1.10.10 -> v1.9.11 is a downgrade",
    ]);
    // The core provider alone to the next contract: the others would be left behind.
    refused(&repo, &s, &["--core", "cluster-api:v1.14.2"], &[
        "BootstrapProvider capi-kubeadm-bootstrap-system/kubeadm (./a.yaml, document 3): spec.version: v1.10.10 abides by contract v1beta1, but the management group moves to v1beta2",
        "hint: include it in the upgrade: --bootstrap capi-kubeadm-bootstrap-system/kubeadm:v1.14.2",
    ]);
    // Mixed contracts: one provider to v1beta2 while the core stays on v1beta1.
    refused(&repo, &s, &["--to", "docker:v1.14.2"], &[
        "InfrastructureProvider capd-system/docker (./b.yaml, document 2): spec.version: v1.14.2 abides by contract v1beta2, but the management group moves to v1beta1",
    ]);
    // A version the repository does not hold.
    refused(&repo, &s, &["-i", "docker:v1.10.11"], &[
        "InfrastructureProvider capd-system/docker (./b.yaml, document 2): spec.version: version v1.10.11 is not in the provider's source",
        "hint: versions offered (newest first): v1.14.2, v1.13.6, v1.11.11, v1.10.10, v1.10.9, v1.9.11",
    ]);
    // An older contract, an unknown one, an ambiguous name.
    refused(
        &repo,
        &s,
        &["--contract", "v1alpha4"],
        &["contract v1alpha4, older than the core provider's contract v1beta1 (a downgrade)"],
    );
    refused(&repo, &s, &["--contract", "v2"], &["spec.version: the move is to contract v2, but no release of the core provider abides by it", "hint: contracts this management group can move to: v1beta1, v1beta2"]);
    refused(
        &repo,
        &s,
        &["--to", "kubeadm:v1.10.10"],
        &[
            "--to kubeadm:v1.10.10: 2 provider CRs match",
            "--control-plane capi-kubeadm-control-plane-system/kubeadm:v1.10.10",
        ],
    );
}

#[test]
fn contracts_change_one_at_a_time() {
    let Some(c) = corpus() else { return };
    let repo = c.join("repository");
    // At v0.4.8 (v1alpha4) the next contract is v1beta1, not the newest (v1beta2).
    let s = inputs("skip", "v0.4.8");
    let o = run(
        &repo,
        s.path(),
        &["upgrade", "plan", "-f", ".", "-o", "yaml"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let plan = capi_render::yaml::parse_value(&text(&o.stdout)).unwrap();
    assert_eq!(plan["contractChange"]["contract"], "v1beta1");
    assert_eq!(plan["contractChange"]["together"][0]["to"], "v1.10.10");
    refused(&repo, &s, &["--contract", "v1beta2"], &[
        "CoreProvider capi-system/cluster-api (./a.yaml, document 1): spec.version: the move is to contract v1beta2, which skips contract v1beta1",
        "hint: move to v1beta1 first (capi-render upgrade apply --contract v1beta1), then to v1beta2",
    ]);
    let o = run(
        &repo,
        s.path(),
        &[
            "upgrade",
            "apply",
            "-f",
            ".",
            "--contract",
            "v1beta1",
            "--write",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(read(s.path(), "b.yaml"), B.replace("@V@", "v1.10.10"));
}

#[test]
fn nothing_is_written_when_one_file_is_refused() {
    let Some(c) = corpus() else { return };
    let repo = c.join("repository");
    let s = inputs("partial", "v1.9.11");
    // b.yaml's docker provider in flow style: a.yaml's edits are fine, b.yaml's is not.
    let flow = B
        .replace("@V@", "v1.9.11")
        .replace("spec:\n  version: v1.9.11\n", "spec: {version: v1.9.11}\n");
    put(s.path(), "b.yaml", &flow);
    refused(&repo, &s, &[], &[
        "InfrastructureProvider capd-system/docker (./b.yaml, document 2): spec.version: cannot change v1.9.11 to v1.10.10 in place",
        "only a block mapping is edited",
    ]);
    assert_eq!(read(s.path(), "a.yaml"), A.replace("@V@", "v1.9.11"));
}

#[test]
fn a_provider_without_spec_version_gets_it_pinned() {
    let Some(c) = corpus() else { return };
    let repo = c.join("repository");
    let s = inputs("default", "v1.14.2");
    // The docker provider leaves its version to the default (the newest local one).
    let unpinned = B
        .replace("@V@", "v1.14.2")
        .replace("spec:\n  version: v1.14.2\n", "");
    put(s.path(), "b.yaml", &unpinned);
    assert_eq!(plan_exit(&repo, s.path()), Some(0));
    let o = run(
        &repo,
        s.path(),
        &[
            "upgrade",
            "apply",
            "-f",
            ".",
            "-i",
            "docker:v1.14.2",
            "--write",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        read(s.path(), "b.yaml"),
        format!("{unpinned}spec:\n  version: v1.14.2\n")
    );
    assert_eq!(read(s.path(), "a.yaml"), A.replace("@V@", "v1.14.2"));
}

#[test]
fn usage_and_exit_codes() {
    let Some(c) = corpus() else { return };
    let repo = c.join("repository");
    let s = inputs("usage", "v1.9.11");
    let o = run(
        &repo,
        s.path(),
        &[
            "upgrade",
            "apply",
            "-f",
            ".",
            "--contract",
            "v1beta1",
            "--to",
            "docker:v1.10.10",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let o = run(
        &repo,
        s.path(),
        &["upgrade", "plan", "-f", "missing.yaml", "--exit-code"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    // Without --exit-code a plan with moves still exits 0, as before.
    let o = run(&repo, s.path(), &["upgrade", "plan", "-f", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    refused(
        &repo,
        &s,
        &["--core", "cluster-api"],
        &["--core \"cluster-api\": no version"],
    );
}
