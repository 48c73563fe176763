//! Sharding (the fleet-scale issue): `render -o OUT --shard I/N` in N "CI jobs" (clones
//! of one repository) and `merge-locks OUT` give the tree and lock one `render -o OUT`
//! writes, byte for byte, with Flux and Argo CD files; stale, missing, changed or
//! foreign shards are refused and leave OUT as it was.

use std::path::Path;
use std::process::Command;

mod common;
use common::{bin, run, snapshot, Scratch};

/// A repository clone: the bundled example's providers and 23 Clusters of the
/// no-patches class.
fn clone(root: &Path, name: &str) -> std::path::PathBuf {
    let d = root.join(name);
    let copy = |from: &str, to: &str| {
        let out = Command::new("cp")
            .arg("-r")
            .arg(common::root().join(from))
            .arg(d.join(to))
            .output()
            .unwrap();
        assert!(out.status.success());
    };
    std::fs::create_dir_all(&d).unwrap();
    copy("fixtures/repository", "repository");
    copy("fixtures/quickstart", "qs");
    common::fleet(&d.join("fleet"), 23, 0, |c| c.to_string());
    d
}

fn render(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut c = bin();
    c.current_dir(dir).args([
        "render",
        "--config",
        "qs/clusterctl.yaml",
        "-f",
        "qs/providers",
        "-f",
        "qs/clusters",
        "-f",
        "fleet",
        "-o",
        "rendered",
        "--flux",
        "--argocd",
        "--argocd-repo",
        "https://git.example.com/mgmt.git",
    ]);
    c.args(extra);
    run(&mut c, None)
}

fn merge(dir: &Path) -> std::process::Output {
    run(
        bin().current_dir(dir).args(["merge-locks", "rendered"]),
        None,
    )
}

fn ok(o: std::process::Output) -> std::process::Output {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn n_shards_merged_equal_one_run() {
    let s = Scratch::new("shard");
    let single = clone(s.path(), "single");
    ok(render(&single, &[]));
    let want = snapshot(&single.join("rendered"));
    assert!(want.len() > 100, "{}", want.len());
    // Each job renders its shard; the merge job gets every job's shard directory.
    let shards_into = |c: &Path, n: usize, round: &str| {
        for i in 1..=n {
            let job = clone(s.path(), &format!("job-{n}-{i}{round}"));
            ok(render(&job, &["--shard", &format!("{i}/{n}")]));
            let from = job.join("rendered/.capi-render.shards");
            std::fs::create_dir_all(c.join("rendered/.capi-render.shards")).unwrap();
            let out = Command::new("cp")
                .arg("-r")
                .arg(from.join(format!("{i}-of-{n}")))
                .arg(c.join("rendered/.capi-render.shards/"))
                .output()
                .unwrap();
            assert!(out.status.success());
        }
    };
    for n in [1, 2, 3, 7] {
        let c = clone(s.path(), &format!("merged-{n}"));
        shards_into(&c, n, "");
        ok(merge(&c));
        assert_eq!(snapshot(&c.join("rendered")), want, "{n} shards");
        if n == 2 {
            // Merged again over the merged tree: the lock is OUT's byte for byte.
            shards_into(&c, n, "-again");
            ok(merge(&c));
            assert_eq!(snapshot(&c.join("rendered")), want, "{n} shards, again");
        }
        // The merged lock replays as one run: nothing to do.
        let check = run(
            bin()
                .current_dir(&c)
                .args(["render", "--from-lock", "rendered", "--check"]),
            None,
        );
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stdout)
        );
    }
}

#[test]
fn shards_are_refused_when_missing_changed_foreign_or_from_other_inputs() {
    let s = Scratch::new("shard-bad");
    let c = clone(s.path(), "c");
    ok(render(&c, &[]));
    let before = snapshot(&c.join("rendered"));
    let shards = c.join("rendered/.capi-render.shards");
    let refused = |what: &str| {
        let o = merge(&c);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(!o.status.success(), "{what}: merged");
        let mut now = snapshot(&c.join("rendered"));
        now.retain(|k, _| !k.starts_with(".capi-render.shards"));
        assert_eq!(now, before, "{what}: OUT changed");
        err
    };
    // No shards at all.
    assert!(refused("none").contains("no shards to merge"));
    // One of three missing.
    ok(render(&c, &["--shard", "1/3"]));
    ok(render(&c, &["--shard", "3/3"]));
    let e = refused("missing");
    assert!(e.contains("2/3") && e.contains("missing"), "{e}");
    // A shard rendered from other inputs (a Cluster edited between the jobs).
    let f = c.join("fleet/clusters.yaml");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, text.replace("name: bare-1\n", "name: bare-1x\n")).unwrap();
    ok(render(&c, &["--shard", "2/3"]));
    let e = refused("other inputs");
    assert!(e.contains("`lock` differs"), "{e}");
    std::fs::write(&f, &text).unwrap();
    ok(render(&c, &["--shard", "2/3"]));
    // A file of a shard changed after it was rendered.
    let sidecar = std::fs::read_to_string(shards.join("2-of-3/shard.json")).unwrap();
    let lock = std::fs::read_to_string(shards.join("2-of-3/capi-render.lock")).unwrap();
    let victim = lock
        .lines()
        .find_map(|l| l.strip_prefix("- path: clusters/"))
        .expect("shard 2 has a Cluster file");
    let p = shards.join("2-of-3/clusters").join(victim);
    let orig = std::fs::read(&p).unwrap();
    std::fs::write(&p, b"tampered: true\n").unwrap();
    let e = refused("changed");
    assert!(e.contains("sha256"), "{e}");
    std::fs::write(&p, &orig).unwrap();
    // Shards of two different splits.
    ok(render(&c, &["--shard", "1/2"]));
    let e = refused("two splits");
    assert!(
        e.contains("of 2 and of 3") || e.contains("of 3 and of 2"),
        "{e}"
    );
    std::fs::remove_dir_all(shards.join("1-of-2")).unwrap();
    // Something that is not a shard.
    std::fs::write(shards.join("notes.txt"), "x").unwrap();
    assert!(refused("foreign").contains("not a shard directory"));
    std::fs::remove_file(shards.join("notes.txt")).unwrap();
    // Now all is well: the merge succeeds, changes nothing, removes the shards.
    assert!(sidecar.contains("\"shardVersion\""));
    let o = ok(merge(&c));
    assert!(String::from_utf8_lossy(&o.stderr).contains("3 shards merged"));
    assert_eq!(snapshot(&c.join("rendered")), before);
}

#[test]
fn a_shard_argument_is_checked() {
    let s = Scratch::new("shard-arg");
    let c = clone(s.path(), "c");
    for bad in ["0/2", "3/2", "x", "1/0"] {
        let o = render(&c, &["--shard", bad]);
        assert!(!o.status.success(), "{bad}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("expected I/N"),
            "{bad}"
        );
    }
    assert!(!c.join("rendered").exists());
}

#[test]
fn sidecar_fields_are_checked_before_anything_is_allocated_or_written() {
    let s = Scratch::new("shard-sidecar");
    let c = clone(s.path(), "c");
    ok(render(&c, &[]));
    let before = snapshot(&c.join("rendered"));
    ok(render(&c, &["--shard", "1/2"]));
    ok(render(&c, &["--shard", "2/2"]));
    let side = c.join("rendered/.capi-render.shards/1-of-2/shard.json");
    let side2 = c.join("rendered/.capi-render.shards/2-of-2/shard.json");
    let orig = std::fs::read_to_string(&side).unwrap();
    let orig2 = std::fs::read_to_string(&side2).unwrap();
    let tampered = |edit: &dyn Fn(&mut serde_json::Value), what: &str, says: &[&str]| {
        let mut v: serde_json::Value = serde_json::from_str(&orig).unwrap();
        edit(&mut v);
        std::fs::write(&side, serde_json::to_string_pretty(&v).unwrap()).unwrap();
        // `units` is the same in every sidecar (else it differs from shard 1's).
        let mut v2: serde_json::Value = serde_json::from_str(&orig2).unwrap();
        v2["units"] = v["units"].clone();
        std::fs::write(&side2, serde_json::to_string_pretty(&v2).unwrap()).unwrap();
        let o = merge(&c);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(1), "{what}: {err}");
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert!(err.contains("1-of-2/shard.json"), "{what}: {err}");
        for s in says {
            assert!(err.contains(s), "{what}: no {s:?} in {err}");
        }
        let mut now = snapshot(&c.join("rendered"));
        now.retain(|k, _| !k.starts_with(".capi-render.shards"));
        assert_eq!(now, before, "{what}: OUT changed");
    };
    // Ten million units (3 GB of slots before): refused against the parts held.
    tampered(
        &|v| {
            v["units"] = 10_000_000.into();
        },
        "units",
        &["`units` is 10000000", "hold"],
    );
    // A namespace that climbs out of the tree, a name with a slash, a bad type.
    for (field, value) in [
        ("namespace", "../../.."),
        ("name", "a/b"),
        ("namespace", "UPPER"),
    ] {
        tampered(
            &|v| {
                v["parts"][0]["summary"][field] = value.into();
            },
            field,
            &["parts[0].summary", field, "cannot name a directory"],
        );
    }
    // A unit that follows no unit of the run.
    tampered(
        &|v| {
            v["parts"][0]["summary"]["after"] = serde_json::json!(["../../etc"]);
        },
        "after",
        &["`after` names", "no unit of the run"],
    );
    std::fs::write(&side, &orig).unwrap();
    std::fs::write(&side2, &orig2).unwrap();
    ok(merge(&c));
    assert_eq!(snapshot(&c.join("rendered")), before);
}
