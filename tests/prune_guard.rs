//! No silent loss of a unit family (issue 42): a `render -o` whose flags would remove
//! what OUT's lock records — Flux or Argo CD files, cert-manager, the providers'
//! Namespaces, another cluster mode's units — is refused and writes nothing, unless
//! `--allow-prune`; `--from-lock` keeps the recorded flags.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use common::{snapshot, Scratch};

/// The quick start in `root`, a Git work tree, with a small cert-manager release in
/// its local repository.
fn quickstart_at(root: &Path) {
    common::copy_quickstart(root);
    for v in ["v1.19.1", "v1.21.1"] {
        let dir = root.join("fixtures/repository/cert-manager").join(v);
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("cert-manager.yaml"),
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: cert-manager\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-settings\n  namespace: cert-manager\ndata:\n  a: b\n",
        )
        .unwrap();
    }
    fs::create_dir_all(root.join(".git")).unwrap();
}

/// The full render: Flux, Argo CD, cert-manager, managed Clusters; `drop` leaves out
/// the flags it names, `extra` adds some.
fn args(drop: &[&str], extra: &[&str]) -> Vec<String> {
    let all = [
        "--config",
        "fixtures/quickstart/clusterctl.yaml",
        "--repository",
        "fixtures/repository",
        "render",
        "-f",
        "fixtures/quickstart/providers",
        "-f",
        "fixtures/quickstart/clusters",
        "-o",
        "out",
        "--flux",
        "--cert-manager",
        "--argocd",
        "--argocd-repo",
        "https://git.example.com/mgmt.git",
    ];
    let mut a: Vec<String> = Vec::new();
    let mut i = 0;
    while i < all.len() {
        if drop.contains(&all[i]) {
            i += if all[i] == "--argocd-repo" { 2 } else { 1 };
            continue;
        }
        a.push(all[i].to_string());
        i += 1;
    }
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn run(cwd: &Path, args: &[String]) -> Output {
    Command::new(common::bin_path())
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A run that must be refused: exit 1, nothing in OUT changed, the message naming
/// what the lock records, what this run has and the ways on.
fn refused(repo: &Path, args: &[String], records: &str, this_run: &str) {
    let before = snapshot(&repo.join("out"));
    let o = run(repo, args);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
    for want in [
        format!("out/capi-render.lock: the lock records {records} ("),
        format!("this run has {this_run}: they would be removed"),
        "capi-render render --from-lock out".to_string(),
        "--allow-prune".to_string(),
    ] {
        assert!(e.contains(&want), "{want:?} not in: {e}");
    }
    assert!(
        snapshot(&repo.join("out")) == before,
        "{args:?} changed OUT"
    );
}

#[test]
fn a_run_that_would_drop_a_recorded_family_is_refused() {
    let s = Scratch::new("prune-guard");
    let repo = s.path().join("repo");
    quickstart_at(&repo);
    let o = run(&repo, &args(&[], &[]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = repo.join("out");
    for d in ["flux", "argocd", "cert-manager", "classes"] {
        assert!(out.join(d).is_dir(), "{d}");
    }
    let lock = fs::read_to_string(out.join("capi-render.lock")).unwrap();
    assert!(lock.contains("  certManager: true\n"), "{lock}");

    refused(&repo, &args(&["--flux"], &[]), "--flux", "no --flux");
    refused(
        &repo,
        &args(&["--argocd", "--argocd-repo"], &[]),
        "--argocd",
        "no --argocd",
    );
    refused(
        &repo,
        &args(&["--cert-manager"], &[]),
        "--cert-manager",
        "no --cert-manager",
    );
    refused(
        &repo,
        &args(&[], &["--clusters", "flatten"]),
        "--clusters managed",
        "--clusters flatten",
    );
    refused(
        &repo,
        &args(&[], &["--no-namespaces"]),
        "the Namespaces (the namespaces unit and the providers')",
        "--no-namespaces",
    );
    // Two families at once: both named.
    let two = args(&["--flux", "--cert-manager"], &[]);
    let e = stderr(&run(&repo, &two));
    assert!(
        e.contains("Run again with --flux and with --cert-manager,"),
        "{e}"
    );

    // --from-lock keeps the recorded flags: nothing to refuse, nothing changes.
    let before = snapshot(&out);
    let o = run(
        &repo,
        &["render".into(), "--from-lock".into(), "out".into()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(snapshot(&out) == before);

    // --allow-prune proceeds and removes the family.
    let o = run(&repo, &args(&["--flux"], &["--allow-prune"]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!out.join("flux").exists());
    assert!(out.join("argocd").is_dir() && out.join("cert-manager").is_dir());
    let lock = fs::read_to_string(out.join("capi-render.lock")).unwrap();
    assert!(!lock.contains("flux/"), "{lock}");
    assert!(!lock.contains("  flux:\n"), "{lock}");
    // The pruned tree is the lock's record now: the same run is not refused again.
    let o = run(&repo, &args(&["--flux"], &[]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A cluster mode change with --allow-prune: no class units left.
    let o = run(
        &repo,
        &args(&["--flux"], &["--clusters", "flatten", "--allow-prune"]),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!out.join("classes").exists());
}

/// A lock without `command:` (an older capi-render, or a library caller) still tells
/// its families by its files.
#[test]
fn a_lock_without_a_command_is_judged_by_its_files() {
    let s = Scratch::new("prune-guard-old");
    let repo = s.path().join("repo");
    quickstart_at(&repo);
    let o = run(&repo, &args(&[], &[]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let p = repo.join("out/capi-render.lock");
    let lock = fs::read_to_string(&p).unwrap();
    let start = lock.find("command:\n").unwrap();
    let end = start + 9 + lock[start + 9..].find("\ninputs:").unwrap() + 1;
    fs::write(&p, format!("{}{}", &lock[..start], &lock[end..])).unwrap();
    refused(&repo, &args(&["--flux"], &[]), "--flux", "no --flux");
    refused(
        &repo,
        &args(&[], &["--clusters", "flatten"]),
        "class units (--clusters managed)",
        "--clusters flatten",
    );
}
