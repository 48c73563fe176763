//! The GitOps tree writer on synthetic render sets: determinism, idempotence, pruning,
//! ownership, atomicity under injected failures and crashes at every step, and
//! `--check` diffs with masked secrets.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use capi_render::gitops::{
    self, check_tree, write_tree, write_tree_with_hook, Injected, Step, TreeOptions,
};
use capi_render::model::{InputFile, ProviderInfo, RenderSet, RenderedUnit, UnitKind};
use serde_json::{json, Value};

/// A scratch directory removed on drop.
struct Scratch(PathBuf);
impl Scratch {
    fn new(tag: &str) -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "capi-render-gitops-{}-{tag}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
    fn out(&self) -> PathBuf {
        self.0.join("out")
    }
}
impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Every file and directory under `dir`: relative path → bytes (`None` for directories).
fn snapshot(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut m = BTreeMap::new();
    if !dir.exists() {
        return m;
    }
    for e in walkdir::WalkDir::new(dir).min_depth(1).sort_by_file_name() {
        let e = e.unwrap();
        let rel = e
            .path()
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if e.file_type().is_dir() {
            m.insert(rel, None);
        } else {
            m.insert(rel, Some(fs::read(e.path()).unwrap()));
        }
    }
    m
}

fn files_only(s: &BTreeMap<String, Option<Vec<u8>>>) -> BTreeMap<String, Vec<u8>> {
    s.iter()
        .filter_map(|(k, v)| v.clone().map(|v| (k.clone(), v)))
        .collect()
}

fn crd(group: &str, kind: &str) -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": format!("{}s.{group}", kind.to_lowercase())},
           "spec": {"group": group, "names": {"kind": kind, "plural": format!("{}s", kind.to_lowercase())}, "scope": "Namespaced"}})
}

fn provider(
    t: &str,
    kind: &str,
    ns: &str,
    name: &str,
    version: &str,
    objects: Vec<Value>,
) -> RenderedUnit {
    RenderedUnit {
        kind: UnitKind::Provider(ProviderInfo {
            provider_type: t.into(),
            kind: kind.into(),
            version: version.into(),
            contract: "v1beta1".into(),
            source: format!("repository:{name}/{version}"),
            ..Default::default()
        }),
        namespace: ns.into(),
        name: name.into(),
        objects,
        review: Vec::new(),
        after: Vec::new(),
        pending: Vec::new(),
        answers: Vec::new(),
    }
}

fn core(version: &str) -> RenderedUnit {
    provider(
        "core",
        "CoreProvider",
        "capi-system",
        "cluster-api",
        version,
        vec![
            crd("cluster.x-k8s.io", "Cluster"),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "capi-webhook-service-cert", "namespace": "capi-system"},
               "data": {"tls.key": "c2VjcmV0LWtleQ=="}, "stringData": {"token": "hunter2"}}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "capi-controller-manager", "namespace": "capi-system"},
               "spec": {"template": {"spec": {"containers": [{"name": "manager", "image": format!("registry.k8s.io/cluster-api/cluster-api-controller:{version}")}]}}}}),
        ],
    )
}

fn docker() -> RenderedUnit {
    provider(
        "infrastructure",
        "InfrastructureProvider",
        "capd-system",
        "docker",
        "v1.10.10",
        vec![
            crd("infrastructure.cluster.x-k8s.io", "DockerCluster"),
            json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "capd-manager", "namespace": "capd-system"}}),
        ],
    )
}

fn set(units: Vec<RenderedUnit>) -> RenderSet {
    RenderSet {
        inputs: vec![InputFile {
            path: "providers.yaml".into(),
            sha256: "0".repeat(64),
        }],
        units,
        warnings: vec![],
    }
}

fn opts() -> TreeOptions {
    TreeOptions {
        flux: true,
        flux_source: Some("flux-system".into()),
        flux_path: "gitops".into(),
        ..Default::default()
    }
}

#[test]
fn same_inputs_give_the_same_bytes_and_lock() {
    let s = set(vec![core("v1.10.10"), docker()]);
    let (a, b) = (Scratch::new("det-a"), Scratch::new("det-b"));
    write_tree(&s, &a.out(), &opts()).unwrap();
    write_tree(&s, &b.out(), &opts()).unwrap();
    let (sa, sb) = (snapshot(&a.out()), snapshot(&b.out()));
    assert_eq!(sa, sb);
    // The lock lists every other file with its sha256, and the provider facts.
    let lock = String::from_utf8(sa["capi-render.lock"].clone().unwrap()).unwrap();
    let lv = capi_render::yaml::parse_value(&lock).unwrap();
    let listed: Vec<&str> = lv["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["path"].as_str().unwrap())
        .collect();
    let files = files_only(&sa);
    let on_disk: Vec<&str> = files
        .keys()
        .map(String::as_str)
        .filter(|p| *p != "capi-render.lock")
        .collect::<Vec<_>>();
    assert_eq!(listed, on_disk);
    for o in lv["outputs"].as_array().unwrap() {
        let bytes = sa[o["path"].as_str().unwrap()].clone().unwrap();
        assert_eq!(o["sha256"], capi_render::model::sha256_hex(&bytes));
    }
    assert_eq!(lv["providers"][1]["name"], "docker");
    // Paths are written relative to OUT (the lock's directory).
    let rel = |p: &str| capi_render::paths::relative_to(p, &a.out());
    assert_eq!(
        lv["providers"][1]["source"],
        format!("repository:{}", rel("docker/v1.10.10"))
    );
    assert_eq!(lv["inputs"][0]["path"], rel("providers.yaml"));
    assert!(
        rel("providers.yaml").ends_with("/providers.yaml")
            && rel("providers.yaml").starts_with("../")
    );
    // The layout: one directory per provider, one file per object.
    assert!(sa.contains_key(
        "providers/capi-system/core-cluster-api/deployment-capi-controller-manager.yaml"
    ));
    assert!(sa.contains_key("providers/capd-system/infrastructure-docker/kustomization.yaml"));
    assert!(sa.contains_key("flux/capd-system-infrastructure-docker.yaml"));
}

#[cfg(unix)]
#[test]
fn a_second_render_writes_nothing() {
    use std::os::unix::fs::MetadataExt;
    let s = set(vec![core("v1.10.10"), docker()]);
    let d = Scratch::new("idem");
    let first = write_tree(&s, &d.out(), &opts()).unwrap();
    assert!(!first.written.is_empty());
    // Age every file so that any rewrite would show in its mtime.
    let past = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    let mut before = BTreeMap::new();
    for (p, v) in snapshot(&d.out()) {
        if v.is_some() {
            let f = fs::File::options()
                .write(true)
                .open(d.out().join(&p))
                .unwrap();
            f.set_modified(past).unwrap();
            let m = fs::metadata(d.out().join(&p)).unwrap();
            before.insert(p, (m.ino(), m.modified().unwrap()));
        }
    }
    let second = write_tree(&s, &d.out(), &opts()).unwrap();
    assert!(
        second.written.is_empty() && second.removed.is_empty(),
        "{second:?}"
    );
    assert_eq!(second.unchanged.len(), before.len());
    for (p, (ino, mtime)) in before {
        let m = fs::metadata(d.out().join(&p)).unwrap();
        assert_eq!(
            (m.ino(), m.modified().unwrap()),
            (ino, mtime),
            "{p} was rewritten"
        );
    }
    // A change rewrites only what changed.
    let third = write_tree(&set(vec![core("v1.10.9"), docker()]), &d.out(), &opts()).unwrap();
    assert_eq!(
        third.written,
        vec![
            "capi-render.lock",
            "providers/capi-system/core-cluster-api/deployment-capi-controller-manager.yaml"
        ]
    );
}

#[test]
fn removed_providers_are_pruned_and_foreign_files_stay() {
    let d = Scratch::new("prune");
    let out = d.out();
    write_tree(&set(vec![core("v1.10.10"), docker()]), &out, &opts()).unwrap();
    fs::write(out.join("README.md"), "ours, not capi-render's\n").unwrap();
    fs::write(
        out.join("providers/capd-system/infrastructure-docker/notes.txt"),
        "keep\n",
    )
    .unwrap();
    fs::write(out.join("providers/capi-system/extra.yaml"), "keep: me\n").unwrap();
    let r = write_tree(&set(vec![core("v1.10.10")]), &out, &opts()).unwrap();
    assert!(r.removed.contains(
        &"providers/capd-system/infrastructure-docker/serviceaccount-capd-manager.yaml".to_string()
    ));
    assert!(r
        .removed
        .contains(&"flux/capd-system-infrastructure-docker.yaml".to_string()));
    let s = snapshot(&out);
    assert!(
        !s.keys()
            .any(|k| k.contains("infrastructure-docker/") && !k.ends_with("notes.txt")),
        "{:?}",
        s.keys()
    );
    assert_eq!(
        s["README.md"].as_deref(),
        Some(&b"ours, not capi-render's\n"[..])
    );
    assert_eq!(
        s["providers/capd-system/infrastructure-docker/notes.txt"].as_deref(),
        Some(&b"keep\n"[..])
    );
    assert_eq!(
        s["providers/capi-system/extra.yaml"].as_deref(),
        Some(&b"keep: me\n"[..])
    );
    // Without a foreign file, the emptied directories go too.
    write_tree(&set(vec![core("v1.10.10"), docker()]), &out, &opts()).unwrap();
    fs::remove_file(out.join("providers/capd-system/infrastructure-docker/notes.txt")).unwrap();
    write_tree(&set(vec![core("v1.10.10")]), &out, &opts()).unwrap();
    assert!(!out.join("providers/capd-system").exists());
    // The result equals a fresh render (plus the foreign files).
    let fresh = Scratch::new("prune-fresh");
    write_tree(&set(vec![core("v1.10.10")]), &fresh.out(), &opts()).unwrap();
    let mut got = files_only(&snapshot(&out));
    got.remove("README.md");
    got.remove("providers/capi-system/extra.yaml");
    assert_eq!(got, files_only(&snapshot(&fresh.out())));
}

#[test]
fn a_file_edited_since_it_was_written_is_not_pruned() {
    let d = Scratch::new("prune-edited");
    let out = d.out();
    let both = set(vec![core("v1.10.10"), docker()]);
    write_tree(&both, &out, &opts()).unwrap();
    let sa = "providers/capd-system/infrastructure-docker/serviceaccount-capd-manager.yaml";
    fs::write(out.join(sa), "edited: by hand\n").unwrap();
    let before = snapshot(&out);
    let one = set(vec![core("v1.10.10")]);
    for e in [
        write_tree(&one, &out, &opts()).unwrap_err(),
        check_tree(&one, &out, &opts()).unwrap_err(),
    ] {
        assert!(e.message().contains(sa), "{e}");
        assert!(
            e.message().contains("not the file capi-render wrote"),
            "{e}"
        );
    }
    assert_eq!(snapshot(&out), before, "a refused run changed OUT");
    // Once the user deletes it, the prune goes ahead.
    fs::remove_file(out.join(sa)).unwrap();
    let r = write_tree(&one, &out, &opts()).unwrap();
    assert!(!r.removed.contains(&sa.to_string()));
    assert!(!out.join("providers/capd-system").exists());
}

#[test]
fn files_capi_render_did_not_write_are_never_overwritten() {
    let d = Scratch::new("foreign");
    let out = d.out();
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("kustomization.yaml"), "resources: [mine.yaml]\n").unwrap();
    let e = write_tree(&set(vec![core("v1.10.10")]), &out, &opts()).unwrap_err();
    assert!(e.message().contains("capi-render did not write it"), "{e}");
    let s = snapshot(&out);
    assert_eq!(s.len(), 1, "{:?}", s.keys());
    assert_eq!(
        s["kustomization.yaml"].as_deref(),
        Some(&b"resources: [mine.yaml]\n"[..])
    );
}

#[test]
fn a_lock_pointing_outside_out_is_refused() {
    let d = Scratch::new("hostile");
    let out = d.out();
    fs::create_dir_all(&out).unwrap();
    fs::write(d.0.join("victim.txt"), "precious\n").unwrap();
    fs::write(
        out.join("capi-render.lock"),
        "lockVersion: 1\noutputs:\n- path: ../victim.txt\n  sha256: x\n",
    )
    .unwrap();
    let e = write_tree(&set(vec![core("v1.10.10")]), &out, &opts()).unwrap_err();
    assert!(e.message().contains("outputs[0].path"), "{e}");
    assert_eq!(
        fs::read_to_string(d.0.join("victim.txt")).unwrap(),
        "precious\n"
    );
}

#[cfg(unix)]
#[test]
fn nothing_is_written_through_a_symlink() {
    let d = Scratch::new("symlink");
    let out = d.out();
    let elsewhere = d.0.join("elsewhere");
    fs::create_dir_all(&out).unwrap();
    fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out.join("providers")).unwrap();
    let e = write_tree(&set(vec![core("v1.10.10")]), &out, &opts()).unwrap_err();
    assert!(e.message().contains("symbolic link"), "{e}");
    assert!(snapshot(&elsewhere).is_empty());
}

/// The steps a write from `old` to `new` goes through.
fn steps_of(old: &RenderSet, new: &RenderSet) -> Vec<Step> {
    let d = Scratch::new("steps");
    write_tree(old, &d.out(), &opts()).unwrap();
    let mut steps = Vec::new();
    write_tree_with_hook(new, &d.out(), &opts(), &mut |s: &Step| {
        steps.push(s.clone());
        Ok(())
    })
    .unwrap();
    steps
}

#[test]
fn a_failure_or_crash_at_any_step_leaves_the_old_tree() {
    // Old: core v1.10.10 + docker; new: core v1.10.9 and no docker, so the write
    // replaces, adds nothing, and removes files.
    let old = set(vec![core("v1.10.10"), docker()]);
    let mut new = set(vec![core("v1.10.9")]);
    new.units[0].objects.push(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "added", "namespace": "capi-system"}}));
    let steps = steps_of(&old, &new);
    assert!(steps.iter().any(|s| matches!(s, Step::Backup(_))));
    assert!(steps.iter().any(|s| matches!(s, Step::Remove(_))));
    assert!(steps
        .iter()
        .any(|s| matches!(s, Step::Place(p) if p.ends_with("configmap-added.yaml"))));
    assert_eq!(steps.last(), Some(&Step::Commit));
    let fresh = Scratch::new("atomic-fresh");
    write_tree(&new, &fresh.out(), &opts()).unwrap();
    let mut expected_new = snapshot(&fresh.out());
    expected_new.insert("README.md".into(), Some(b"foreign\n".to_vec()));

    for (n, at) in steps.iter().enumerate() {
        for mode in [Injected::Fail, Injected::Crash] {
            let d = Scratch::new("atomic");
            let out = d.out();
            write_tree(&old, &out, &opts()).unwrap();
            fs::write(out.join("README.md"), "foreign\n").unwrap();
            let before = snapshot(&out);
            let mut i = 0;
            let r = write_tree_with_hook(&new, &out, &opts(), &mut |_s: &Step| {
                i += 1;
                if i == n + 1 {
                    Err(mode)
                } else {
                    Ok(())
                }
            });
            assert!(r.is_err(), "step {n} {at:?} {mode:?}");
            if mode == Injected::Fail {
                assert_eq!(
                    snapshot(&out),
                    before,
                    "failure before step {n} {at:?} changed the tree"
                );
            } else {
                // A kill leaves at most a staging directory; recovery gives the old tree back.
                let files: BTreeMap<_, _> = files_only(&snapshot(&out))
                    .into_iter()
                    .filter(|(k, _)| !k.starts_with(".capi-render.staging/"))
                    .collect();
                if !matches!(
                    at,
                    Step::Backup(_) | Step::Place(_) | Step::Remove(_) | Step::Commit
                ) {
                    assert_eq!(
                        files,
                        files_only(&before),
                        "crash before step {n} {at:?} changed the tree"
                    );
                }
                assert!(
                    gitops::check_tree(&new, &out, &opts()).is_err()
                        || !out.join(".capi-render.staging/journal").exists()
                );
                gitops::writer::recover(&out).unwrap();
                assert_eq!(
                    files_only(&snapshot(&out)),
                    files_only(&before),
                    "recovery after a crash before step {n} {at:?}"
                );
            }
            // The next run completes the new tree.
            write_tree(&new, &out, &opts()).unwrap();
            assert_eq!(
                files_only(&snapshot(&out)),
                files_only(&expected_new),
                "after step {n} {at:?} {mode:?}"
            );
        }
    }
}

#[test]
fn a_crashed_run_is_recovered_by_the_next_write() {
    let old = set(vec![core("v1.10.10"), docker()]);
    let new = set(vec![core("v1.10.9")]);
    let d = Scratch::new("crash-next");
    write_tree(&old, &d.out(), &opts()).unwrap();
    let r = write_tree_with_hook(&new, &d.out(), &opts(), &mut |s: &Step| {
        if matches!(s, Step::Remove(_)) {
            Err(Injected::Crash)
        } else {
            Ok(())
        }
    });
    assert!(r.is_err());
    assert!(d.out().join(".capi-render.staging/journal").exists());
    let e = check_tree(&new, &d.out(), &opts()).unwrap_err();
    assert!(e.message().contains("interrupted render"), "{e}");
    write_tree(&new, &d.out(), &opts()).unwrap();
    assert!(check_tree(&new, &d.out(), &opts())
        .unwrap()
        .changed
        .is_empty());
    assert!(!d.out().join(".capi-render.staging").exists());
}

#[test]
fn check_reports_drift_with_masked_secrets() {
    let d = Scratch::new("check");
    let out = d.out();
    let old = set(vec![core("v1.10.10"), docker()]);
    write_tree(&old, &out, &opts()).unwrap();
    let before = snapshot(&out);
    let r = check_tree(&old, &out, &opts()).unwrap();
    assert!(r.changed.is_empty() && r.diff.is_empty(), "{}", r.diff);

    let mut new = set(vec![core("v1.10.9")]);
    new.units[0].objects[1]["data"]["tls.key"] = json!("bmV3LXNlY3JldA==");
    let r = check_tree(&new, &out, &opts()).unwrap();
    assert_eq!(snapshot(&out), before, "--check wrote");
    let dep = "providers/capi-system/core-cluster-api/deployment-capi-controller-manager.yaml";
    let sec = "providers/capi-system/core-cluster-api/secret-capi-webhook-service-cert.yaml";
    let gone = "providers/capd-system/infrastructure-docker/serviceaccount-capd-manager.yaml";
    for p in [dep, sec, gone, "capi-render.lock"] {
        assert!(
            r.changed.contains(&p.to_string()),
            "{p} not in {:?}",
            r.changed
        );
    }
    assert!(r.diff.contains(&format!("--- a/{dep}\n+++ b/{dep}\n")));
    assert!(
        r.diff.contains(
            "-      - image: registry.k8s.io/cluster-api/cluster-api-controller:v1.10.10\n"
        ),
        "{}",
        r.diff
    );
    assert!(
        r.diff.contains(
            "+      - image: registry.k8s.io/cluster-api/cluster-api-controller:v1.10.9\n"
        ),
        "{}",
        r.diff
    );
    assert!(r.diff.contains(&format!("--- a/{gone}\n+++ /dev/null\n")));
    assert!(
        r.diff
            .contains("-  tls.key: <masked>\n+  tls.key: '<masked: changed>'\n"),
        "{}",
        r.diff
    );
    for secret in ["c2VjcmV0LWtleQ==", "bmV3LXNlY3JldA==", "hunter2"] {
        assert!(
            !r.diff.contains(secret),
            "secret value {secret} in the diff"
        );
    }
    // A hand edit of a file we own is drift too; a foreign file is not.
    fs::write(out.join("NOTES.md"), "x\n").unwrap();
    let k = "providers/capi-system/core-cluster-api/kustomization.yaml";
    fs::write(out.join(k), "edited\n").unwrap();
    let r = check_tree(&old, &out, &opts()).unwrap();
    assert_eq!(r.changed, vec![k.to_string()]);
    // An added Secret is masked as well.
    fs::remove_file(out.join(sec)).unwrap();
    let r = check_tree(&old, &out, &opts()).unwrap();
    assert!(r.diff.contains(&format!("--- /dev/null\n+++ b/{sec}\n")));
    assert!(!r.diff.contains("hunter2") && !r.diff.contains("c2VjcmV0LWtleQ=="));
}
