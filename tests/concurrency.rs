//! Two runs on one OUT: the second fails at once with a clear message (an advisory
//! lock held for the whole run, recovery included), and the tree stays whole.
//! Synthetic inputs only: this always runs.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;

use common::{bin, fleet, snapshot, Node, Scratch};

fn files(out: &Path) -> BTreeMap<String, Node> {
    snapshot(out)
        .into_iter()
        .filter(|(_, n)| matches!(n, Node::File(_)))
        .collect()
}

fn render(inputs: &Path, out: &Path, check: bool) -> std::process::Output {
    let mut c = bin();
    c.arg("render").arg("-f").arg(inputs).arg("-o").arg(out);
    if check {
        c.arg("--check");
    }
    c.output().unwrap()
}

#[test]
fn a_held_lock_makes_a_second_run_fail_at_once() {
    let s = Scratch::new("lock-held");
    let (inputs, out) = (s.path().join("in"), s.path().join("out"));
    fleet(&inputs, 3, 0, str::to_string);
    assert!(render(&inputs, &out, false).status.success());
    let before = files(&out);
    // Another run holds OUT (as a running render -o would).
    let held = std::fs::File::open(&out).unwrap();
    held.lock().unwrap();
    let o = render(&inputs, &out, false);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("another capi-render run is using"), "{e}");
    let o = render(&inputs, &out, true);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("another capi-render run is writing"), "{e}");
    assert_eq!(files(&out), before);
    // Released: the next run works.
    held.unlock().unwrap();
    assert!(render(&inputs, &out, true).status.success());
}

#[test]
fn two_runs_at_once_leave_one_whole_tree() {
    let s = Scratch::new("two-at-once");
    let inputs = s.path().join("in");
    fleet(&inputs, 40, 0, str::to_string);
    let reference = s.path().join("ref");
    assert!(render(&inputs, &reference, false).status.success());
    let want = files(&reference);
    for round in 0..5 {
        let out = s.path().join(format!("out-{round}"));
        let spawn = || {
            bin()
                .arg("render")
                .arg("-f")
                .arg(&inputs)
                .arg("-o")
                .arg(&out)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn(), spawn());
        for o in [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()] {
            let e = String::from_utf8_lossy(&o.stderr);
            assert!(
                o.status.success() || e.contains("another capi-render run is using"),
                "round {round}: {e}"
            );
        }
        assert_eq!(files(&out), want, "round {round}");
        assert!(!out.join(".capi-render.staging").exists());
    }
}
