//! kill -9 at 20 moments spread over a large `render -o`: every time, OUT holds the
//! old tree (or an interrupted run that the next run recovers), and the next run
//! leaves the new tree byte for byte. Synthetic inputs only: this always runs.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{bin, fleet, snapshot, Node, Scratch};

fn files(out: &Path) -> BTreeMap<String, Node> {
    snapshot(out)
        .into_iter()
        .filter(|(k, n)| !k.starts_with(".capi-render.staging") && matches!(n, Node::File(_)))
        .collect()
}

fn render(inputs: &Path, out: &Path) {
    let o = bin()
        .arg("render")
        .arg("-f")
        .arg(inputs)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn kill_9_at_20_moments_leaves_old_or_new_tree() {
    let s = Scratch::new("kill9");
    let (old_in, new_in) = (s.path().join("old"), s.path().join("new"));
    // The new inputs change every Cluster's objects (a class label), drop 10 Clusters
    // and add 10: replacements, removals and new files in one run.
    fleet(&old_in, 60, 0, str::to_string);
    fleet(&new_in, 60, 10, |c| {
        c.replace("class-cp-label: from-class", "class-cp-label: changed")
    });
    let (old_ref, new_ref) = (s.path().join("old-ref"), s.path().join("new-ref"));
    render(&old_in, &old_ref);
    render(&new_in, &new_ref);
    let (old_tree, new_tree) = (files(&old_ref), files(&new_ref));
    assert_ne!(old_tree, new_tree);
    // How long a run takes here, to spread the kills over it.
    let out = s.path().join("out");
    render(&old_in, &out);
    let t0 = Instant::now();
    render(&new_in, &out);
    let span = t0.elapsed().max(Duration::from_millis(50));
    let mut outcomes = BTreeMap::new();
    for i in 0..20u32 {
        let _ = std::fs::remove_dir_all(&out);
        render(&old_in, &out);
        let mut child = bin()
            .arg("render")
            .arg("-f")
            .arg(&new_in)
            .arg("-o")
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(span * i / 20);
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let now = files(&out);
        let interrupted = out.join(".capi-render.staging/journal").exists();
        let outcome = if now == new_tree {
            "new"
        } else if now == old_tree {
            "old"
        } else {
            assert!(
                interrupted,
                "kill {i}: neither tree and no journal to recover"
            );
            "interrupted"
        };
        *outcomes.entry(outcome).or_insert(0) += 1;
        // The next run recovers (if needed) and completes the new tree.
        render(&new_in, &out);
        assert_eq!(files(&out), new_tree, "kill {i} ({outcome}): next run");
        assert!(!out.join(".capi-render.staging").exists());
    }
    eprintln!("kill -9 outcomes: {outcomes:?}");
}
