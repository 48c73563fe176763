//! Hostile inputs (SECURITY.md): every case must succeed or fail cleanly (exit code,
//! an `Error:` line, no panic), under a 2 s CPU limit, a 256 MB data limit and a 1 GiB
//! address-space limit (no allocation may abort the process), and must not
//! write, move or delete anything outside OUT, nor any file in OUT that capi-render
//! did not write: the test snapshots the whole sandbox (inputs, OUT's foreign files
//! and a sibling `outside/` directory) before and after each run.
//!
//! Each case gets a sandbox `S` with `S/in/` (inputs), `S/out/` (OUT, where the case
//! may first render a good tree and then tamper with it), `S/outside/victim.yaml` and
//! `S/out/README.md` (a file capi-render never wrote).
//!
//! `reads` holds the probes of reads outside the inputs (issue 43): one test per kind
//! of root, each planting a marker file outside it that must never be read.

#[path = "../common/mod.rs"]
mod common;

mod commands;
mod inputs;
mod loss;
#[cfg(unix)]
mod reads;
mod staging;
mod work;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{bin, snapshot, tiny_repo, Node, Scratch, TINY_COMPONENTS, TINY_CORE_CR};

const CLASS: &str = include_str!("../../fixtures/topology/no-patches/class.yaml");
const CLUSTER: &str = include_str!("../../fixtures/topology/no-patches/cluster.yaml");

/// What a case expects.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// Must fail cleanly, stderr containing this text.
    Fail(&'static str),
    /// Must succeed.
    Ok,
    /// Either, as long as it is clean.
    Clean,
}

struct Case {
    name: &'static str,
    /// Prepare the sandbox (inputs, tampering); gets S.
    setup: Box<dyn Fn(&Path)>,
    /// Arguments; `{S}` is replaced by the sandbox path.
    args: Vec<&'static str>,
    stdin: Option<Vec<u8>>,
    expect: Expect,
}

fn case(
    name: &'static str,
    args: &[&'static str],
    expect: Expect,
    setup: impl Fn(&Path) + 'static,
) -> Case {
    Case {
        name,
        setup: Box::new(setup),
        args: args.to_vec(),
        stdin: None,
        expect,
    }
}

fn write(p: &Path, text: impl AsRef<[u8]>) {
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(p, text).unwrap();
}

#[cfg(unix)]
fn link(target: impl AsRef<Path>, at: &Path) {
    if let Some(d) = at.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::os::unix::fs::symlink(target, at).unwrap();
}

/// Provider inputs rendering with `--repository S/repo`.
fn providers(s: &Path) {
    tiny_repo(s, TINY_COMPONENTS);
    write(&s.join("in/providers.yaml"), TINY_CORE_CR);
}

/// A good tree in S/out from the provider inputs (what the tampering cases start from).
fn good_tree(s: &Path) {
    providers(s);
    let o = bin()
        .args(["--repository"])
        .arg(s.join("repo"))
        .args(["render", "-f"])
        .arg(s.join("in/providers.yaml"))
        .arg("-o")
        .arg(s.join("out"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    write(&s.join("out/README.md"), "not ours\n");
}

/// Add an output entry for `path` to the good tree's lock (with the sha256 of
/// `x\n`, a well-formed sum of bytes nobody wrote there).
fn tamper_lock(s: &Path, path: &str) {
    let lock = s.join("out/capi-render.lock");
    let t = std::fs::read_to_string(&lock).unwrap();
    let sum = capi_render::model::sha256_hex(b"x\n");
    let entry = format!("outputs:\n- path: {path}\n  sha256: {sum}\n");
    write(&lock, t.replace("outputs:\n", &entry));
}

/// A staging directory as a Git checkout would bring it: real directories and files,
/// an owner file that names some other directory.
fn fake_staging(s: &Path, journal: &str) {
    let st = s.join("out/.capi-render.staging");
    write(&st.join("owner"), "capi-render staging 64768 1234567\n");
    write(&st.join("journal"), journal);
}

/// The topology inputs, with `edit` applied to the class text.
fn topology(s: &Path, edit: impl Fn(&str) -> String) {
    std::fs::create_dir_all(s.join("out")).unwrap();
    write(&s.join("in/class.yaml"), edit(CLASS));
    write(&s.join("in/cluster.yaml"), CLUSTER);
}

fn render_o() -> Vec<&'static str> {
    vec![
        "--repository",
        "{S}/repo",
        "render",
        "-f",
        "{S}/in",
        "-o",
        "{S}/out",
    ]
}

/// `topology plan` of the topology inputs into S/out.
fn plan_o() -> Vec<&'static str> {
    vec![
        "topology",
        "plan",
        "-f",
        "{S}/in/class.yaml",
        "-f",
        "{S}/in/cluster.yaml",
        "-o",
        "{S}/out",
    ]
}

fn render_stdout() -> Vec<&'static str> {
    vec![
        "--repository",
        "{S}/repo",
        "render",
        "-f",
        "{S}/in",
        "--stdout",
    ]
}

fn cr_named(ns: &str, name: &str) -> String {
    TINY_CORE_CR
        .replace("name: cluster-api", &format!("name: {name}"))
        .replace("namespace: capi-system", &format!("namespace: {ns}"))
}

fn yaml_q(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn cases() -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    staging::cases(&mut v);
    inputs::cases(&mut v);
    loss::cases(&mut v);
    commands::cases(&mut v);
    work::cases(&mut v);
    v
}

/// The CPU limit: 2 s for the optimised binary (what users run, and what CI's
/// `cargo test --release` checks); an unoptimised test build is about 10× slower.
const CPU_SECONDS: u32 = if cfg!(debug_assertions) { 20 } else { 2 };

/// Run the binary under the CPU limit, a 256 MB data limit and a 1 GiB address-space
/// limit (`ulimit -v`: every mapping counts, the thread stacks and the allocator's
/// reserved arenas too; an allocation refused there aborts the process, which the
/// test reports as "killed").
fn limited(args: &[String]) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!(
            "ulimit -t {CPU_SECONDS} && ulimit -d 262144 && ulimit -v 1048576 && exec \"$0\" \"$@\""
        ))
        .arg(common::bin_path())
        .args(args)
        .env("NO_COLOR", "1");
    c
}

/// Everything in the sandbox except OUT's own files: inputs, `outside/`, and the files
/// in OUT that capi-render did not write (README.md).
fn guarded(s: &Path) -> Vec<(String, Node)> {
    snapshot(s)
        .into_iter()
        .filter(|(k, _)| !k.starts_with("out/") || k == "out/README.md")
        .filter(|(k, _)| k != "out")
        .collect()
}

#[test]
fn hostile_inputs_fail_cleanly_and_stay_inside_out() {
    let mut cases = cases();
    assert!(cases.len() >= 60, "only {} hostile cases", cases.len());
    // `ADVERSARIAL_ONLY=envsubst` runs the cases whose name contains the text.
    if let Ok(only) = std::env::var("ADVERSARIAL_ONLY") {
        cases.retain(|c| c.name.contains(only.as_str()));
    }
    let mut failures = Vec::new();
    for c in &cases {
        let sb = Scratch::new(&format!("adv-{}", c.name));
        let s: PathBuf = sb.path().to_path_buf();
        write(&s.join("outside/victim.yaml"), "victim: untouched\n");
        (c.setup)(&s);
        let before = guarded(&s);
        let args: Vec<String> = c
            .args
            .iter()
            .map(|a| a.replace("{S}", s.to_str().unwrap()))
            .collect();
        let o = common::run(&mut limited(&args), c.stdin.as_deref());
        let err = String::from_utf8_lossy(&o.stderr);
        let problem = if o.status.code().is_none() {
            Some(format!("killed (limit or signal): {:?}", o.status))
        } else if err.contains("panicked") {
            Some(format!("panicked: {err}"))
        } else if guarded(&s) != before {
            let after = guarded(&s);
            let changed: Vec<&String> = after
                .iter()
                .filter(|e| !before.contains(e))
                .map(|(k, _)| k)
                .chain(before.iter().filter(|e| !after.contains(e)).map(|(k, _)| k))
                .collect();
            Some(format!(
                "changed outside OUT or a foreign file: {changed:?}"
            ))
        } else {
            match (c.expect, o.status.success()) {
                (Expect::Ok, false) => Some(format!("expected success: {err}")),
                (Expect::Fail(_), true) => Some("expected a failure, got exit 0".to_string()),
                (Expect::Fail(t), false) if !err.contains(t) => {
                    Some(format!("error does not say {t:?}: {err}"))
                }
                (Expect::Fail(_) | Expect::Clean, false)
                    if !err.contains("Error")
                        && !String::from_utf8_lossy(&o.stdout).contains("error") =>
                {
                    Some(format!("failed without an error message: {err}"))
                }
                _ => None,
            }
        };
        if let Some(p) = problem {
            failures.push(format!("{}: {p}", c.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
