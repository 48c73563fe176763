//! Large input files and the memory ceiling (the hardening issue: "a fleet in one file
//! costs what the same fleet in many files costs"; `--max-memory`). A file of 16 MiB
//! or more is read a part at a time; these tests pad a few Clusters with comment-only
//! documents to cross that size cheaply, and check that every byte of output, every
//! lock and every error is the one the same Clusters give from small files.
//! Memory itself is measured by `benches/fleet.sh` (`stdout 1 file`), not here.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_capi-render"))
}

fn fx(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(p)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("capi-render-large-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn run(dir: &Path, args: &[&str]) -> Output {
    bin().current_dir(dir).args(args).output().unwrap()
}

fn ok(o: Output) -> Vec<u8> {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o.stdout
}

/// The value-variable case's Cluster as `n` Clusters (`c0`, `c1`, …).
fn clusters(n: usize) -> Vec<String> {
    let one = fs::read_to_string(fx("topology/value-variable/cluster.yaml")).unwrap();
    let name = one
        .lines()
        .find_map(|l| l.strip_prefix("  name: "))
        .unwrap()
        .to_string();
    (0..n)
        .map(|i| one.replacen(&format!("  name: {name}\n"), &format!("  name: c{i}\n"), 1))
        .collect()
}

/// 17 MiB of comment-only documents, CRLF lines among them, then `docs` joined.
fn padded(docs: &[String]) -> String {
    let pad = format!(
        "---\n{}",
        "# padding padding padding padding padding padding\n".repeat(120_000)
    );
    let mut s = String::new();
    for (i, d) in docs.iter().enumerate() {
        s.push_str(&pad);
        if i % 2 == 1 {
            s.push_str("---\r\n# crlf\r\n");
        }
        s.push_str("---\n");
        s.push_str(d);
    }
    s.push_str(&pad);
    assert!(s.len() > 17 << 20, "{}", s.len());
    s
}

#[test]
fn a_large_file_renders_as_the_same_objects_in_small_files_do() {
    let d = scratch("same");
    fs::create_dir_all(d.join("small")).unwrap();
    fs::create_dir_all(d.join("large")).unwrap();
    fs::copy(
        fx("topology/value-variable/class.yaml"),
        d.join("class.yaml"),
    )
    .unwrap();
    let cs = clusters(3);
    for (i, c) in cs.iter().enumerate() {
        fs::write(d.join(format!("small/c{i}.yaml")), c).unwrap();
    }
    fs::write(d.join("large/all.yaml"), padded(&cs)).unwrap();
    let args = |dir: &'static str| {
        [
            "render",
            "--stdout",
            "--clusters",
            "desired",
            "-f",
            "class.yaml",
            "-f",
            dir,
        ]
    };
    let small = ok(run(&d, &args("small")));
    let large = ok(run(&d, &args("large")));
    assert!(small.len() > 1000);
    assert_eq!(
        String::from_utf8_lossy(&large),
        String::from_utf8_lossy(&small)
    );

    let tree = |out: &str, full: bool| {
        let mut args = vec!["render", "-q", "-o", out, "-f", "class.yaml", "-f", "large"];
        if full {
            args.push("--full");
        }
        ok(run(&d, &args))
    };
    // The tree records the large file's sum; an unchanged run leaves it unparsed, and a
    // class change makes its Clusters render from it again (parsed a part at a time):
    // the same tree as a full run.
    tree("out", false);
    let lock = fs::read_to_string(d.join("out/capi-render.lock")).unwrap();
    let sum = capi_render::model::sha256_hex(&fs::read(d.join("large/all.yaml")).unwrap());
    assert!(
        lock.contains(&sum),
        "the lock does not record the file's sum"
    );
    let class = fs::read_to_string(d.join("class.yaml")).unwrap();
    let edited = class.replacen(
        "kind: ClusterClass\nmetadata:\n",
        "kind: ClusterClass\nmetadata:\n  labels: {edited: \"yes\"}\n",
        1,
    );
    assert_ne!(edited, class, "the class fixture's header moved");
    fs::write(d.join("class.yaml"), &edited).unwrap();
    tree("out", false);
    tree("full", true);
    let diff = Command::new("diff")
        .args(["-r", "-x", "capi-render.lock", "out", "full"])
        .current_dir(&d)
        .output()
        .unwrap();
    assert!(
        diff.status.success(),
        "{}",
        String::from_utf8_lossy(&diff.stdout)
    );
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_error_deep_in_a_large_file_names_its_document_and_line_as_in_a_small_one() {
    let d = scratch("error");
    let mut cs = clusters(2);
    cs[1].push_str("  bad: [\n");
    fs::write(d.join("large.yaml"), padded(&cs)).unwrap();
    let o = run(&d, &["render", "--stdout", "-f", "large.yaml"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    // Documents: pad, c0, pad, crlf, c1: c1 is the fifth; its line counts every line
    // before it.
    let text = fs::read_to_string(d.join("large.yaml")).unwrap();
    let at = text.find("  bad: [").unwrap();
    let line = text[..at].matches('\n').count() + 1;
    assert!(err.contains("large.yaml, document 5:"), "{err}");
    assert!(
        err.contains(&format!("line {line} column 8: unclosed bracket")),
        "line {line}: {err}"
    );
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn over_the_memory_ceiling_a_run_stops_naming_the_input_and_writes_nothing() {
    let d = scratch("ceiling");
    fs::copy(
        fx("topology/value-variable/class.yaml"),
        d.join("class.yaml"),
    )
    .unwrap();
    fs::write(d.join("fleet.yaml"), clusters(20).join("---\n")).unwrap();
    let o = run(
        &d,
        &[
            "render",
            "-o",
            "out",
            "-f",
            "class.yaml",
            "-f",
            "fleet.yaml",
            "--max-memory",
            "1Mi",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("is over the memory limit of 1048576 bytes (raise it with --max-memory)"),
        "{err}"
    );
    assert!(
        err.contains("class.yaml") || err.contains("fleet.yaml"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(!d.join("out").exists(), "a partial tree was written");
    // The same run under the default ceiling succeeds.
    ok(run(
        &d,
        &[
            "render",
            "-q",
            "-o",
            "out",
            "-f",
            "class.yaml",
            "-f",
            "fleet.yaml",
        ],
    ));
    fs::remove_dir_all(&d).unwrap();
}
