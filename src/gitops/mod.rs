//! The GitOps tree: a [`RenderSet`] written to a directory OUT for humans to review in
//! pull requests and for kustomize / Flux to apply.
//!
//! # Layout
//!
//! ```text
//! OUT/
//!   kustomization.yaml                  lists every unit directory, providers first (core first)
//!   capi-render.lock                    tool, inputs, provider facts, owned files (lock.rs)
//!   providers/<namespace>/<type>-<name>/
//!     kustomization.yaml                lists the unit's files in apply order
//!     <kind>-<name>.yaml                one file per object (names.rs)
//!   clusters/<namespace>/<name>/        the same, per topology Cluster
//!   flux/                               with --flux only: one Flux Kustomization per unit
//!     kustomization.yaml                (not listed by the root kustomization)
//! ```
//!
//! One file per object keeps a provider upgrade's diff readable file by file. Files are
//! written with the go-yaml v2 writer, so the same inputs give the same bytes on every
//! run and machine; a file whose bytes do not change is not rewritten (its mtime stays).
//!
//! # Ownership
//!
//! capi-render owns exactly the files listed under `outputs` in `OUT/capi-render.lock`
//! (and the lock). A later run replaces or removes only those; any other file in OUT
//! is never touched, and a planned file that exists with other content but is not in
//! the lock is an error. Paths from inputs are DNS-1123 names and paths read back from
//! the lock are validated, and no existing path component below OUT may be a symbolic
//! link, so nothing is read or written outside OUT.
//!
//! # Atomicity and recovery ([`writer`])
//!
//! 1. Recovery of an earlier interrupted run (below).
//! 2. Stage: every changed file is written under `OUT/.capi-render.staging/new/` and
//!    fsynced. A failure or kill here leaves OUT's tree untouched.
//! 3. Commit point: `OUT/.capi-render.staging/journal` (the list of replacements and
//!    removals, the lock last) is written to a temporary name, fsynced and renamed.
//! 4. For each journal entry: the old file is moved to `.capi-render.staging/old/`,
//!    the staged one renamed into place; removals are moves to `old/`. The lock comes
//!    last. Directories are fsynced.
//! 5. The journal is deleted (the new tree is final), then the staging directory and
//!    directories left empty by removals.
//!
//! An I/O error in step 4 is undone at once: entries in reverse order, each file back
//! from `old/` (or a newly placed file deleted). If the process is killed in step 4,
//! OUT holds a journal; the next run (`render -o`) starts by the same undo, which
//! restores the previous tree byte for byte, and only then renders. A staging
//! directory without a journal (killed in step 2 or 5) is simply deleted. So after any
//! failure the tree is the previous one, and after a kill it is the previous one once
//! recovered. `--check` never writes: it reports an interrupted run as an error.
//!
//! # One writer at a time
//!
//! `render -o` holds an exclusive advisory lock (`flock`) on the OUT directory itself
//! for the whole run, recovery included; `--check` holds a shared one. A second run on
//! the same OUT fails at once with a message instead of racing the first; no lock file
//! is added to the tree. The lock is released by the kernel when the process exits,
//! killed or not.

pub mod check;
pub mod flux;
pub mod krm;
pub mod kustomization;
pub mod layout;
pub mod lock;
pub mod mask;
pub mod names;
pub mod writer;

use std::collections::BTreeMap;
use std::path::Path;

pub use check::CheckReport;
pub use writer::{Hook, Injected, Step, WriteReport};

use crate::error::{Error, Result};
use crate::render::RenderSet;

/// Options of the tree writer.
#[derive(Debug, Clone, Default)]
pub struct TreeOptions {
    /// Also write Flux `Kustomization` objects.
    pub flux: bool,
    /// The Flux GitRepository name (`--flux-source`); default `flux-system`.
    pub flux_source: Option<String>,
    /// OUT's path inside the Git repository (`spec.path` of the Flux Kustomizations).
    pub flux_path: String,
}

/// Every file of the tree, the lock included: relative path → content.
pub fn plan(set: &RenderSet, opts: &TreeOptions) -> Result<BTreeMap<String, String>> {
    let mut files = layout::plan_files(set, opts)?;
    let lock = lock::lock_text(set, &files);
    files.insert(lock::FILE.to_string(), lock);
    Ok(files)
}

/// The least a lock may be when read back (README "Limits").
const LOCK_READ_BYTES: u64 = 1 << 30;

/// The outputs of OUT's current lock (none when there is no lock).
fn previous_outputs(out: &Path) -> Result<Vec<lock::Owned>> {
    writer::check_no_symlink(out, lock::FILE)?;
    let p = out.join(lock::FILE);
    if std::fs::symlink_metadata(&p).is_err() {
        return Ok(Vec::new());
    }
    // Our own output, so at least LOCK_READ_BYTES (a 100,000-Cluster lock is a few
    // hundred MB at most); more with a larger --max-file-bytes.
    let limit = crate::limits::Limits::current()
        .file_bytes
        .max(LOCK_READ_BYTES);
    let shown = p.display().to_string();
    match crate::limits::read_file_within(&p, &shown, limit, |e| {
        Error::new(format!("failed to read {shown}: {e}"))
    }) {
        Err(e) => Err(e),
        Ok(b) => {
            let text = String::from_utf8(b)
                .map_err(|_| Error::new(format!("{shown}: not UTF-8 text")).in_file(&shown))?;
            lock::read_outputs(&text, &shown)
        }
    }
}

/// Take the advisory lock on the directory `out` (exclusive for writers, shared for
/// `--check`); it is held until the returned file is dropped.
fn lock_dir(out: &Path, exclusive: bool) -> Result<std::fs::File> {
    let f = std::fs::File::open(out)
        .map_err(|e| Error::new(format!("failed to open {}: {e}", out.display())))?;
    let r = if exclusive {
        f.try_lock()
    } else {
        f.try_lock_shared()
    };
    match r {
        Ok(()) => Ok(f),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::new(format!(
            "another capi-render run is {} {} (it holds the directory's lock); wait for it to finish and run again",
            if exclusive { "using" } else { "writing" },
            out.display()
        ))),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::new(format!(
            "failed to lock {}: {e}",
            out.display()
        ))),
    }
}

/// Write `set` to `out` atomically.
pub fn write_tree(set: &RenderSet, out: &Path, opts: &TreeOptions) -> Result<WriteReport> {
    write_tree_with_hook(set, out, opts, &mut |_| Ok(()))
}

/// [`write_tree`] with a hook called before every filesystem change (tests inject
/// failures and crashes with it).
pub fn write_tree_with_hook(
    set: &RenderSet,
    out: &Path,
    opts: &TreeOptions,
    hook: &mut Hook,
) -> Result<WriteReport> {
    let planned = plan(set, opts)?;
    match std::fs::symlink_metadata(out) {
        Ok(m) if !m.is_dir() && !m.file_type().is_symlink() => {
            return Err(Error::new(format!("{} is not a directory", out.display())))
        }
        Ok(_) => {}
        Err(_) => std::fs::create_dir_all(out)
            .map_err(|e| Error::new(format!("failed to create {}: {e}", out.display())))?,
    }
    let _held = lock_dir(out, true)?;
    writer::recover(out)?;
    let prev = previous_outputs(out)?;
    let changes = writer::classify(out, &planned, &prev)?;
    writer::apply(out, &planned, &changes, hook)?;
    Ok(WriteReport {
        written: changes.writes.into_iter().map(|(p, _)| p).collect(),
        unchanged: changes.unchanged,
        removed: changes.removes,
    })
}

/// Render in memory and compare with `out` (nothing is written).
pub fn check_tree(set: &RenderSet, out: &Path, opts: &TreeOptions) -> Result<CheckReport> {
    let planned = plan(set, opts)?;
    if writer::interrupted(out) {
        return Err(Error::new(format!(
            "{} holds an interrupted render ({}/journal); run `capi-render render -o {}` to restore and update it",
            out.display(),
            writer::STAGING,
            out.display()
        )));
    }
    let _held = if out.is_dir() {
        Some(lock_dir(out, false)?)
    } else {
        None
    };
    let prev = if out.is_dir() {
        previous_outputs(out)?
    } else {
        Vec::new()
    };
    check::compare(out, &planned, &prev)
}
