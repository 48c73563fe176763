//! Helpers shared by the integration tests that run the built binary on inputs they
//! write themselves (no corpus needed).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The built `capi-render` binary.
/// The built `capi-render` binary (`CAPI_RENDER_BIN` overrides it, e.g. to show that a
/// hostile case fails on an older build).
pub fn bin() -> Command {
    Command::new(bin_path())
}

pub fn bin_path() -> String {
    std::env::var("CAPI_RENDER_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_capi-render").to_string())
}

/// A fresh, empty scratch directory for one test (removed on drop).
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(test: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("capi-render-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    pub fn path(&self) -> &Path {
        &self.0
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
