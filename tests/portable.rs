//! A tree and its lock are the same in every clone of the repository, from every
//! working directory and for every spelling of the input paths, and `--check` passes
//! on a tree written in another clone. The bundled example is the case: its
//! clusterctl config resolves provider URLs to files of the repository, which the
//! lock records.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::{snapshot, Node, Scratch};

/// A clone of the parts of this repository the example reads, at `root`.
fn clone_at(root: &Path) {
    common::copy_quickstart(root);
}

fn render(cwd: &Path, args: &[&str]) -> std::process::Output {
    let o = Command::new(common::bin_path())
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(
        o.status.success() || o.status.code() == Some(1),
        "{args:?} in {}: {}",
        cwd.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    o
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

#[test]
fn trees_and_locks_are_the_same_from_any_clone_directory_and_spelling() {
    let s = Scratch::new("portable");
    let a = s.path().join("a");
    let b = s.path().join("elsewhere/deeper/b");
    clone_at(&a);
    clone_at(&b);

    // Clone a, from its root, with the README's command.
    render(
        &a,
        &[
            "--config",
            "fixtures/quickstart/clusterctl.yaml",
            "render",
            "-f",
            "fixtures/quickstart/providers",
            "-f",
            "fixtures/quickstart/clusters",
            "-o",
            "out",
        ],
    );
    // Clone b, from a subdirectory, with `./` and `..` spellings.
    let fx = b.join("fixtures");
    render(
        &fx,
        &[
            "--config",
            "./quickstart/clusterctl.yaml",
            "render",
            "-f",
            "./quickstart/providers",
            "-f",
            "repository/../quickstart/clusters/",
            "-o",
            "../out",
        ],
    );
    let (ta, tb) = (files(&a.join("out")), files(&b.join("out")));
    assert!(ta.iter().any(|(p, _)| p == "capi-render.lock"));
    assert!(ta.len() > 10, "{} files", ta.len());
    assert_eq!(
        ta, tb,
        "the trees (lock included) differ between the clones"
    );
    let lock = String::from_utf8(
        ta.iter()
            .find(|(p, _)| p == "capi-render.lock")
            .unwrap()
            .1
            .clone(),
    )
    .unwrap();
    // Paths are relative to the lock's directory: nothing of either clone's location.
    assert!(!lock.contains(a.to_str().unwrap()), "{lock}");
    assert!(
        lock.contains("path: ../fixtures/quickstart/providers/providers.yaml"),
        "{lock}"
    );
    assert!(
        lock.contains("path: ../fixtures/repository/cluster-api/v1.0.0/core-components.yaml"),
        "{lock}"
    );

    // Absolute paths from clone b's root give the same tree.
    let out2 = b.join("out2");
    let abs = |p: &str| b.join(p).display().to_string();
    render(
        &b,
        &[
            "--config",
            &abs("fixtures/quickstart/clusterctl.yaml"),
            "render",
            "-f",
            &abs("fixtures/quickstart/providers"),
            "-f",
            &abs("fixtures/quickstart/clusters"),
            "-o",
            out2.to_str().unwrap(),
        ],
    );
    assert_eq!(files(&out2), ta);

    // The tree written in clone a, committed and checked out in clone b: `--check`
    // there finds it up to date.
    let checked = b.join("checked");
    for (p, bytes) in &ta {
        let to = checked.join(p);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::write(to, bytes).unwrap();
    }
    let o = render(
        &fx,
        &[
            "--config",
            "quickstart/clusterctl.yaml",
            "render",
            "-f",
            "quickstart/providers",
            "-f",
            "quickstart/clusters",
            "-o",
            "../checked",
            "--check",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "--check in another clone: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `render --from-lock OUT` runs the render the lock records: from another directory it
/// rewrites a damaged tree to the same bytes, `--check` with it tells up to date from
/// stale, and a recorded path that leaves the repository is refused before anything is
/// read.
#[test]
fn from_lock_reruns_the_recorded_render() {
    let s = Scratch::new("from-lock");
    let repo = s.path().join("repo");
    clone_at(&repo);
    fs::create_dir_all(repo.join(".git")).unwrap();
    render(
        &repo,
        &[
            "--config",
            "fixtures/quickstart/clusterctl.yaml",
            "render",
            "-f",
            "fixtures/quickstart/providers",
            "-f",
            "fixtures/quickstart/clusters",
            "-o",
            "capi/rendered",
            "--flux",
        ],
    );
    let out = repo.join("capi/rendered");
    let want = files(&out);
    let lock = String::from_utf8(fs::read(out.join("capi-render.lock")).unwrap()).unwrap();
    assert!(
        lock.starts_with("# capi-render lock file") && lock.contains("\ncommand:\n  config: ../../fixtures/quickstart/clusterctl.yaml\n  files:\n  - ../../fixtures/quickstart/providers\n  - ../../fixtures/quickstart/clusters\n  flux:\n    path: capi/rendered\n    source: flux-system\ninputs:\n"),
        "{lock}"
    );
    // Damage the tree, then re-run from a subdirectory through the lock alone.
    let victim = want
        .iter()
        .find(|(p, _)| p.starts_with("clusters/"))
        .unwrap()
        .0
        .clone();
    fs::remove_file(out.join(&victim)).unwrap();
    let sub = repo.join("fixtures");
    let check = |cwd: &Path, out: &str| {
        Command::new(common::bin_path())
            .args(["render", "--from-lock", out, "--check"])
            .current_dir(cwd)
            .output()
            .unwrap()
    };
    assert_eq!(check(&sub, "../capi/rendered").status.code(), Some(1));
    render(&sub, &["render", "--from-lock", "../capi/rendered"]);
    assert_eq!(files(&out), want);
    let o = check(&repo, "capi/rendered");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // A stale input: the check fails with the diff.
    let providers = repo.join("fixtures/quickstart/providers/providers.yaml");
    let text = fs::read_to_string(&providers).unwrap();
    fs::write(&providers, text.replace("replicas: 2", "replicas: 3")).unwrap();
    let o = check(&repo, "capi/rendered");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("+++ b/capi-render.lock"));
    fs::write(&providers, text).unwrap();
    // A tampered lock naming a file outside the repository: refused, exit 2 with --check.
    fs::write(s.path().join("outside.yaml"), "kind: ConfigMap\n").unwrap();
    let tampered = lock.replace(
        "  - ../../fixtures/quickstart/clusters\n",
        "  - ../../../outside.yaml\n",
    );
    fs::write(out.join("capi-render.lock"), &tampered).unwrap();
    let o = check(&repo, "capi/rendered");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("command.files \"../../../outside.yaml\" leaves the repository"),
        "{err}"
    );
    // Flags the lock decides cannot be given with it.
    let o = Command::new(common::bin_path())
        .args(["render", "--from-lock", "capi/rendered", "-f", "x.yaml"])
        .current_dir(&repo)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "usage error");
}
