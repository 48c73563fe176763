//! Helpers shared by the integration tests (`mod common;` in each test file).
//!
//! The release corpus (`$CAPI_CORPUS`, default `../shared/corpus` beside the crate) is
//! not part of the repository. A test that needs it calls [`corpus`] (or
//! [`corpus_path`]) first; without the corpus the test prints one notice, straight to
//! the process's stderr so that libtest's output capture does not hide it, and returns
//! early. With `CAPI_REQUIRE_CORPUS=1` (CI sets it) a missing corpus fails the test.
//! `scripts/fetch-corpus.sh` fetches the corpus for a machine with network access.
#![allow(dead_code)]

pub mod github;
pub mod recorder;
pub mod v1beta2;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The crate root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where the corpus is looked for: `$CAPI_CORPUS`, else `../shared/corpus`.
pub fn corpus_dir() -> PathBuf {
    std::env::var_os("CAPI_CORPUS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/corpus"))
}

/// The first word of every skip notice, so that a CI log can count them.
pub const SKIP_MARK: &str = "SKIPPED (corpus)";

thread_local! {
    // libtest runs every test on its own thread, so this is "noticed in this test".
    static NOTICED: Cell<bool> = const { Cell::new(false) };
}

/// Skip the current test for want of `what` (a path under the corpus): one notice per
/// test naming CAPI_CORPUS; a failure instead when CAPI_REQUIRE_CORPUS=1.
pub fn skip(what: &Path) {
    let test = std::thread::current()
        .name()
        .unwrap_or("<unnamed test>")
        .to_string();
    if std::env::var("CAPI_REQUIRE_CORPUS").is_ok_and(|v| v == "1") {
        panic!(
            "{test}: {} is missing and CAPI_REQUIRE_CORPUS=1: set CAPI_CORPUS to the release corpus (scripts/fetch-corpus.sh fetches it)",
            what.display()
        );
    }
    if NOTICED.with(|n| n.replace(true)) {
        return;
    }
    // Not eprintln!: libtest captures that for passing tests, and the notice must show.
    // One write of the whole line, so that it does not interleave with libtest's lines.
    let line = format!(
        "{SKIP_MARK}: {test}: no {} (set CAPI_CORPUS to the release corpus; scripts/fetch-corpus.sh fetches it)\n",
        what.display()
    );
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// The corpus root, or `None` (after the skip notice) when it is absent.
pub fn corpus() -> Option<PathBuf> {
    let c = corpus_dir();
    if c.join("repository").is_dir() {
        Some(std::path::absolute(&c).unwrap_or(c))
    } else {
        skip(&c);
        None
    }
}

/// `rel` under the corpus, or `None` (after the skip notice) when it is absent: for
/// tests that need a part of the corpus, e.g. `stress/`.
pub fn corpus_path(rel: &str) -> Option<PathBuf> {
    let p = corpus_dir().join(rel);
    if p.exists() {
        Some(std::path::absolute(&p).unwrap_or(p))
    } else {
        skip(&p);
        None
    }
}

/// The built `capi-render` binary (`CAPI_RENDER_BIN` overrides it, e.g. to show that a
/// hostile case fails on an older build).
pub fn bin() -> Command {
    Command::new(bin_path())
}

pub fn bin_path() -> String {
    std::env::var("CAPI_RENDER_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_capi-render").to_string())
}

/// A scratch directory under the system temp dir, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "capi-render-test-{}-{tag}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
    /// Write `text` to `name` inside; returns the file's path.
    pub fn write(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub const TINY_META: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta1\n";

/// A one-provider local repository (`cluster-api` v1.0.0, core) under `root/repo`
/// whose components are `components`; returns the repository directory.
pub fn tiny_repo(root: &Path, components: &str) -> PathBuf {
    let d = root.join("repo/cluster-api/v1.0.0");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("core-components.yaml"), components).unwrap();
    std::fs::write(d.join("metadata.yaml"), TINY_META).unwrap();
    root.join("repo")
}

/// Plain core components with one Deployment.
pub const TINY_COMPONENTS: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capi-system\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capi-controller-manager\n  namespace: capi-system\nspec:\n  selector:\n    matchLabels:\n      app: capi\n  template:\n    metadata:\n      labels:\n        app: capi\n    spec:\n      containers:\n      - name: manager\n        image: registry.example/capi:v1.0.0\n";

/// The CoreProvider CR for [`tiny_repo`].
pub const TINY_CORE_CR: &str = "apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.0.0\n";

/// Run `cmd` with `stdin`, capturing both outputs.
pub fn run(cmd: &mut Command, stdin: Option<&[u8]>) -> Output {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(bytes) = stdin {
        use std::io::Write;
        let mut si = child.stdin.take().unwrap();
        // The process may exit before reading everything: a broken pipe is fine.
        let _ = si.write_all(bytes);
    }
    child.wait_with_output().unwrap()
}

/// A copy of the directory `from` at `to` (created), files and directories.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Every file below `dir` as UTF-8 text, by relative path ([`snapshot`]'s files).
pub fn text_files(dir: &Path) -> BTreeMap<String, String> {
    snapshot(dir)
        .into_iter()
        .filter_map(|(p, n)| match n {
            Node::File(b) => Some((p, String::from_utf8(b).unwrap())),
            _ => None,
        })
        .collect()
}

/// One entry of a directory snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Dir,
    File(Vec<u8>),
    Link(PathBuf),
    Other,
}

/// Every entry below `root` (links not followed), by relative path.
pub fn snapshot(root: &Path) -> BTreeMap<String, Node> {
    let mut out = BTreeMap::new();
    for e in walkdir::WalkDir::new(root).follow_links(false).min_depth(1) {
        let Ok(e) = e else { continue };
        let rel = e
            .path()
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let ft = e.file_type();
        let node = if ft.is_symlink() {
            Node::Link(std::fs::read_link(e.path()).unwrap_or_default())
        } else if ft.is_dir() {
            Node::Dir
        } else if ft.is_file() {
            Node::File(std::fs::read(e.path()).unwrap_or_default())
        } else {
            Node::Other
        };
        out.insert(rel, node);
    }
    out
}

/// The no-patches fixture class and `n` Clusters of it (`bare-<first>`…), in `dir`,
/// the class text passed through `edit`: a fleet for the writer tests.
pub fn fleet(dir: &Path, n: usize, first: usize, edit: impl Fn(&str) -> String) {
    const CLASS: &str = include_str!("../../fixtures/topology/no-patches/class.yaml");
    const CLUSTER: &str = include_str!("../../fixtures/topology/no-patches/cluster.yaml");
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("class.yaml"), edit(CLASS)).unwrap();
    let t: String = (first..first + n)
        .map(|i| {
            format!(
                "{}---\n",
                CLUSTER.replace("name: bare", &format!("name: bare-{i}"))
            )
        })
        .collect();
    std::fs::write(dir.join("clusters.yaml"), t).unwrap();
}

/// `render --stdout`'s bytes for a render set: every object of every unit, in order,
/// as one YAML stream (what the binary prints unit by unit).
#[allow(dead_code)]
pub fn yaml_stream(set: &capi_render::model::RenderSet) -> String {
    let (mut join, mut s) = (capi_render::yaml::StreamJoin::default(), String::new());
    for o in set.units.iter().flat_map(|u| &u.objects) {
        join.push(&capi_render::yaml::to_yaml(o), &mut s);
    }
    join.finish(&mut s);
    s
}

/// The parts of this repository the quick start reads (`fixtures/quickstart`,
/// `fixtures/repository`), copied to `root/fixtures/`: a clone of it elsewhere.
pub fn copy_quickstart(to_root: &Path) {
    let src = root().join("fixtures");
    for part in ["quickstart", "repository"] {
        for e in walkdir::WalkDir::new(src.join(part)).sort_by_file_name() {
            let e = e.unwrap();
            let to = to_root
                .join("fixtures")
                .join(e.path().strip_prefix(&src).unwrap());
            if e.file_type().is_dir() {
                std::fs::create_dir_all(&to).unwrap();
            } else {
                std::fs::copy(e.path(), &to).unwrap();
            }
        }
    }
}
