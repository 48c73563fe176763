//! The GitOps tree: a `RenderSet` written to a directory with kustomizations, a lock
//! file, atomic replacement, pruning of files we wrote, and `--check` drift diffs.

use std::path::Path;

use crate::error::Result;
use crate::render::RenderSet;

/// Options of the tree writer.
#[derive(Debug, Clone, Default)]
pub struct TreeOptions {
    /// Also write Flux `Kustomization` objects.
    pub flux: bool,
    /// The Flux GitRepository name (`--flux-source`).
    pub flux_source: Option<String>,
}

/// What `write_tree` did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteReport {
    pub written: Vec<String>,
    pub unchanged: Vec<String>,
    pub removed: Vec<String>,
}

/// Write `set` to `out` atomically.
pub fn write_tree(set: &RenderSet, out: &Path, opts: &TreeOptions) -> Result<WriteReport> {
    let _ = (set, out, opts);
    Err(crate::Error::new(
        "the GitOps tree writer is not implemented yet",
    ))
}

/// Result of `--check`: empty `diff` means the tree is up to date.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckReport {
    /// Unified diffs, one per changed/added/removed file, secrets masked.
    pub diff: String,
    pub changed: Vec<String>,
}

/// Render in memory and compare with `out`.
pub fn check_tree(set: &RenderSet, out: &Path, opts: &TreeOptions) -> Result<CheckReport> {
    let _ = (set, out, opts);
    Err(crate::Error::new(
        "the GitOps tree check is not implemented yet",
    ))
}
