//! Issue 43, finding "Messages": errors name paths as the user gave them. A run with
//! relative arguments (and `--from-lock` from a subdirectory) prints no absolute path
//! of the machine; a missing `--config` is named as typed, as clusterctl names it.

use std::path::Path;
use std::process::Command;

mod common;
use common::{bin, copy_quickstart, run, Scratch};

fn in_dir(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut c: Command = bin();
    c.current_dir(dir).args(args);
    let o = run(&mut c, None);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn messages_keep_relative_paths_relative() {
    let s = Scratch::new("relative-paths");
    let root = s.path();
    copy_quickstart(root);
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let abs = root.display().to_string();
    let render = [
        "--config",
        "fixtures/quickstart/clusterctl.yaml",
        "render",
        "-f",
        "fixtures/quickstart/providers",
        "-f",
        "fixtures/quickstart/clusters",
        "-o",
        "out",
    ];
    let (code, err) = in_dir(root, &render);
    assert_eq!(code, 0, "{err}");

    // A provider version the repository lacks: every path in the error is relative.
    let providers = root.join("fixtures/quickstart/providers");
    for e in std::fs::read_dir(&providers).unwrap() {
        let p = e.unwrap().path();
        let t = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, t.replace("version: v1.2.3", "version: v1.2.8")).unwrap();
    }
    let (code, err) = in_dir(root, &render);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("v1.2.8/metadata.yaml"), "{err}");
    assert!(err.contains("in fixtures/quickstart/providers/"), "{err}");
    assert!(!err.contains(&abs), "an absolute path in: {err}");

    // --from-lock from a subdirectory: the recorded paths are shown from there.
    std::fs::create_dir_all(root.join("sub/dir")).unwrap();
    let (code, err) = in_dir(
        &root.join("sub/dir"),
        &["render", "--from-lock", "../../out", "--check"],
    );
    assert_eq!(code, 2, "an error of --check: {err}");
    assert!(
        err.contains("in ../../fixtures/quickstart/providers/"),
        "{err}"
    );
    assert!(!err.contains(&abs), "an absolute path in: {err}");

    // A missing --config, named as typed (clusterctl's words).
    let (code, err) = in_dir(
        root,
        &[
            "--config",
            "./nope.yaml",
            "generate",
            "provider",
            "-i",
            "synth",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("Error: failed to initialize the configuration reader: failed to check if clusterctl config file exists: stat ./nope.yaml: no such file or directory"),
        "{err}"
    );
}
