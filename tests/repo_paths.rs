//! Flux and Argo CD paths are relative to the root of the Git work tree holding OUT
//! (issue 42): the same bytes from the repository root, from a subdirectory and for
//! any spelling of OUT; `--check` from a subdirectory and `--from-lock` from another
//! directory pass; a worktree's `.git` file marks a root; `--flux-path` still wins.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{snapshot, Node, Scratch};

/// The parts of this repository the quick start reads, at `root`.
fn clone_at(root: &Path) {
    common::copy_quickstart(root);
}

/// A work tree at `root`: `git init` when git is installed, else a hand-made `.git`.
fn git_init(root: &Path) {
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(root)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        fs::create_dir_all(root.join(".git")).unwrap();
    }
    assert!(root.join(".git").is_dir());
}

fn run(cwd: &Path, args: &[String]) -> Output {
    Command::new(common::bin_path())
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn ok(cwd: &Path, args: &[String]) -> Output {
    let o = run(cwd, args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?} in {}: {}{}",
        cwd.display(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// The quick start's render with Flux and Argo CD, `up` leading from the working
/// directory to the repository root.
fn args(up: &str, out: &str, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = vec![
        "--config".into(),
        format!("{up}fixtures/quickstart/clusterctl.yaml"),
        "render".into(),
        "-f".into(),
        format!("{up}fixtures/quickstart/providers"),
        "-f".into(),
        format!("{up}fixtures/quickstart/clusters"),
        "-o".into(),
        out.into(),
        "--flux".into(),
        "--argocd".into(),
        "--argocd-repo".into(),
        "https://git.example.com/mgmt.git".into(),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    snapshot(dir)
        .into_iter()
        .filter_map(|(p, n)| match n {
            Node::File(b) => Some((p, b)),
            _ => None,
        })
        .collect()
}

fn file(tree: &[(String, Vec<u8>)], path: &str) -> String {
    let (_, b) = tree.iter().find(|(p, _)| p == path).unwrap();
    String::from_utf8(b.clone()).unwrap()
}

#[test]
fn the_tree_is_the_same_from_the_root_a_subdirectory_and_any_spelling() {
    let s = Scratch::new("repo-paths");
    let repos: Vec<PathBuf> = ["root", "sub", "dot", "dotdot"]
        .iter()
        .map(|r| s.path().join(r))
        .collect();
    for r in &repos {
        clone_at(r);
        git_init(r);
        fs::create_dir_all(r.join("capi")).unwrap();
    }
    ok(&repos[0], &args("", "capi/rendered", &[]));
    ok(&repos[1].join("capi"), &args("../", "rendered", &[]));
    ok(&repos[2], &args("", "./capi/rendered/", &[]));
    ok(
        &repos[3].join("fixtures"),
        &args("../", "../capi/./x/../rendered", &[]),
    );
    let want = files(&repos[0].join("capi/rendered"));
    for r in &repos[1..] {
        assert!(
            files(&r.join("capi/rendered")) == want,
            "{} differs from the render at the root",
            r.display()
        );
    }
    let lock = file(&want, "capi-render.lock");
    assert!(
        lock.contains("    path: capi/rendered\n    source: flux-system\n"),
        "{lock}"
    );
    assert!(
        lock.contains("    path: capi/rendered\n    project:"),
        "{lock}"
    );
    let k = file(&want, "flux/capi-system-core-cluster-api.yaml");
    assert!(
        k.contains("path: ./capi/rendered/providers/capi-system/core-cluster-api\n"),
        "{k}"
    );
    let app = file(&want, "argocd/capi-system-core-cluster-api.yaml");
    assert!(
        app.contains("path: capi/rendered/providers/capi-system/core-cluster-api\n"),
        "{app}"
    );

    // `--check` from a subdirectory, and `--from-lock` from another directory and from
    // outside the repository, find the tree up to date.
    let sub = &repos[1];
    ok(&sub.join("capi"), &args("../", "rendered", &["--check"]));
    ok(
        &sub.join("fixtures"),
        &args("../", "../capi/rendered", &["--check"]),
    );
    let from = |cwd: &Path, out: &str, check: bool| {
        let mut a = vec!["render".to_string(), "--from-lock".into(), out.into()];
        if check {
            a.push("--check".into());
        }
        ok(cwd, &a)
    };
    from(&sub.join("fixtures"), "../capi/rendered", true);
    let abs = sub.join("capi/rendered").display().to_string();
    from(s.path(), &abs, true);
    fs::remove_file(sub.join("capi/rendered/flux/capi-system-core-cluster-api.yaml")).unwrap();
    from(s.path(), &abs, false);
    assert!(files(&sub.join("capi/rendered")) == want);

    // An explicit --flux-path still wins.
    let o = ok(
        &repos[0],
        &args("", "other", &["--flux-path", "deploy/capi"]),
    );
    drop(o);
    let k =
        fs::read_to_string(repos[0].join("other/flux/capi-system-core-cluster-api.yaml")).unwrap();
    assert!(
        k.contains("path: ./deploy/capi/providers/capi-system/core-cluster-api\n"),
        "{k}"
    );
}

/// A linked worktree (or a submodule) has a `.git` file naming its git directory: it is
/// the root, not the repository around it.
#[test]
fn a_worktree_git_file_marks_the_root() {
    let s = Scratch::new("repo-paths-worktree");
    let outer = s.path().join("outer");
    fs::create_dir_all(outer.join(".git/worktrees/wt")).unwrap();
    let wt = outer.join("wt");
    clone_at(&wt);
    fs::write(wt.join(".git"), "gitdir: ../.git/worktrees/wt\n").unwrap();
    fs::create_dir_all(wt.join("capi")).unwrap();
    ok(&wt.join("capi"), &args("../", "rendered", &[]));
    let got = files(&wt.join("capi/rendered"));
    let lock = file(&got, "capi-render.lock");
    assert!(lock.contains("    path: capi/rendered\n"), "{lock}");
    assert!(!lock.contains("wt/capi"), "{lock}");

    // Rendered at the top of a plain repository: the same bytes.
    let plain = s.path().join("plain");
    clone_at(&plain);
    fs::create_dir_all(plain.join(".git")).unwrap();
    ok(&plain, &args("", "capi/rendered", &[]));
    assert!(files(&plain.join("capi/rendered")) == got);

    // A `.git` file that is not a worktree's marks nothing: the outer repository is
    // the root again.
    fs::write(wt.join(".git"), "not a gitdir line\n").unwrap();
    let o = run(&wt.join("capi"), &args("../", "rendered", &["--check"]));
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("path: wt/capi/rendered"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}
