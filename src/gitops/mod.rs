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
//!   argocd/                             with --argocd only: one Argo CD Application per
//!     kustomization.yaml                unit, sync waves in dependency order (argocd.rs)
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
//! 2. Stage: every changed file is written under `OUT/.capi-render.staging/new/` as its
//!    unit arrives; once all are written, one `syncfs` (an fsync per file and
//!    directory where there is none) makes them durable. A failure or kill here leaves
//!    OUT's tree untouched.
//! 3. Commit point: `OUT/.capi-render.staging/journal` (the list of replacements and
//!    removals, the lock last) is written to a temporary name, fsynced and renamed.
//! 4. For each journal entry: the old file is moved to `.capi-render.staging/old/`,
//!    the staged one renamed into place; removals are moves to `old/`. The lock comes
//!    last. Then one `syncfs` (else an fsync per directory).
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

pub mod argocd;
pub mod check;
pub mod command;
pub mod families;
pub mod flux;
pub mod immutable;
mod incremental;
pub mod journal;
mod keep;
pub mod kustomization;
pub mod layout;
pub mod lock;
pub mod mask;
pub mod names;
pub mod repo;
pub mod sealed;
pub mod shard;
pub mod writer;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use check::CheckReport;
use incremental::incremental;
pub use incremental::{Deferral, Opened};
use keep::{keepable, still_in_place};
pub use writer::{Hook, Injected, Step, WriteReport};

use crate::error::{Error, Result};
use crate::model::{RenderSet, UnitKind};
use crate::render::{Produced, Rendering};

/// Options of the tree writer.
#[derive(Debug, Clone, Default)]
pub struct TreeOptions {
    /// Also write Flux `Kustomization` objects.
    pub flux: bool,
    /// The Flux GitRepository name (`--flux-source`); default `flux-system`.
    pub flux_source: Option<String>,
    /// OUT's path inside the Git repository (`spec.path` of the Flux Kustomizations).
    pub flux_path: String,
    /// `--flux-depends-on`, `--flux-interval`, `--flux-timeout`.
    pub flux_extras: flux::Extras,
    /// Also write Argo CD `Application` objects (`--argocd`), read from `flux_path`.
    pub argocd: Option<argocd::Settings>,
    /// The command to record in the lock (`render --from-lock`); `None` records none.
    pub command: Option<lock::RenderCommand>,
}

/// Every file of the tree in `out`, the lock included: relative path → content.
pub fn plan(set: &RenderSet, opts: &TreeOptions, out: &Path) -> Result<BTreeMap<String, String>> {
    let mut files = layout::plan_files(set, opts)?;
    let lock = lock::lock_text(set, &files, out, opts.command.as_ref());
    files.insert(lock::FILE.to_string(), lock);
    Ok(files)
}

/// The least a lock may be when read back (README "Limits").
pub(crate) const LOCK_READ_BYTES: u64 = 1 << 30;

/// OUT's current lock (empty when there is none).
pub(crate) fn previous_lock(out: &Path) -> Result<lock::Lock> {
    writer::check_no_symlink(out, lock::FILE)?;
    let p = out.join(lock::FILE);
    if std::fs::symlink_metadata(&p).is_err() {
        return Ok(lock::Lock::default());
    }
    // Our own output, so at least LOCK_READ_BYTES (a 100,000-Cluster lock is a few
    // hundred MB at most); more with a larger --max-file-bytes.
    let limit = crate::limits::Limits::current()
        .file_bytes
        .max(LOCK_READ_BYTES);
    let shown = p.display().to_string();
    let text = crate::limits::read_text_within(&p, &shown, limit, |e| {
        Error::new(format!("failed to read {shown}: {e}"))
    })?
    .ok_or_else(|| Error::new(format!("{shown}: not UTF-8 text")).in_file(&shown))?;
    let command = command::in_head(&text);
    let sealed = sealed::read_records(&text)
        .map_err(|e| Error::new(format!("{shown}: {e}")).in_file(&shown))?;
    let mut read = lock::read_lock(text, &shown)?;
    read.command = command;
    read.sealed = sealed;
    Ok(read)
}

/// The directory `render --from-lock OUT` reads inside (SECURITY.md): the root of the
/// Git work tree holding OUT ([`repo::work_tree_root`]), else the working directory.
pub fn repository_root(out: &Path) -> Result<PathBuf> {
    match repo::work_tree_root(out)? {
        Some(root) => Ok(root),
        None => std::env::current_dir()
            .map_err(|e| Error::new(format!("cannot tell the current directory: {e}"))),
    }
}

/// [`Opened::refuse_losses`] for a run that does not open OUT (`--shard`).
pub fn refuse_losses_at(out: &Path, now: &lock::RenderCommand, allow_prune: bool) -> Result<()> {
    if allow_prune || !out.is_dir() {
        return Ok(());
    }
    let prev = previous_lock(out)?;
    let shown = out.display().to_string();
    let views = prev.outputs.views();
    families::refuse_losses(&shown, &views, prev.command.as_ref(), now, false)
}

/// The `render` command OUT's lock records (`render --from-lock`), its paths resolved
/// against OUT. They are untrusted (a pull request can edit the lock): every one must
/// stay, lexically, inside the repository that holds OUT (the nearest ancestor with a
/// `.git`, else the working directory). Links inside the repository are followed as a
/// render typed there with the same flags follows them.
pub fn recorded_command(out: &Path) -> Result<lock::RenderCommand> {
    let shown = out.join(lock::FILE).display().to_string();
    writer::check_no_symlink(out, lock::FILE)?;
    let p = out.join(lock::FILE);
    if std::fs::symlink_metadata(&p).is_err() {
        return Err(Error::new(format!(
            "{shown} does not exist: render the tree once with `capi-render render -f ... -o {}`",
            out.display()
        )));
    }
    let limit = crate::limits::Limits::current()
        .file_bytes
        .max(LOCK_READ_BYTES);
    let bytes = crate::limits::read_file_within(&p, &shown, limit, |e| {
        Error::new(format!("failed to read {shown}: {e}"))
    })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::new(format!("{shown}: not UTF-8 text")).in_file(&shown))?;
    let mut c = lock::read_command(&text, &shown)?.ok_or_else(|| {
        Error::new(format!(
            "{shown} records no command (written by a library caller or an older capi-render): render once with `capi-render render -f ... -o {}`",
            out.display()
        ))
    })?;
    let abs_out =
        std::path::absolute(out).map_err(|e| Error::new(format!("{}: {e}", out.display())))?;
    let root = repository_root(out)?;
    let resolve = |rel: &str, what: &str| -> Result<String> {
        let bad = |why: &str| {
            Error::new(format!(
                "{shown}: command.{what} {rel:?} {why}; --from-lock only follows paths inside {}",
                root.display()
            ))
            .in_file(&shown)
        };
        if rel.contains('\0') || Path::new(rel).is_absolute() {
            return Err(bad("is not a relative path"));
        }
        let joined = abs_out.join(rel);
        let lexical = crate::paths::relative_to(&joined.to_string_lossy(), &root);
        if lexical == ".." || lexical.starts_with("../") {
            return Err(bad("leaves the repository"));
        }
        Ok(root.join(lexical).to_string_lossy().into_owned())
    };
    c.files = c
        .files
        .iter()
        .map(|f| resolve(f, "files"))
        .collect::<Result<_>>()?;
    for (what, v) in [
        ("config", &mut c.config),
        ("repository", &mut c.repository),
        ("ociLayout", &mut c.oci_layout),
        ("runtimeExtensions.ca", &mut c.runtime_extension_ca),
    ] {
        if let Some(p) = v.as_mut() {
            *p = resolve(p, what)?;
        }
    }
    Ok(c)
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
    let planned = plan(set, opts, out)?;
    let (_held, prev) = open_out(out)?;
    let prev = prev.outputs.views();
    let changes = writer::write_planned(out, &planned, &prev, hook)?;
    Ok(WriteReport {
        written: changes.writes.into_iter().map(|(p, _)| p).collect(),
        unchanged: changes.unchanged,
        removed: changes.removes,
        unchanged_unlisted: changes.kept_unlisted,
    })
}

/// OUT made ready for writing: a directory (created if missing), its advisory lock
/// held (dropped with the returned file), an interrupted run recovered, and the
/// outputs of its lock.
pub(crate) fn open_out(out: &Path) -> Result<(std::fs::File, lock::Lock)> {
    match std::fs::symlink_metadata(out) {
        Ok(m) if !m.is_dir() && !m.file_type().is_symlink() => {
            return Err(Error::new(format!("{} is not a directory", out.display())))
        }
        Ok(_) => {}
        Err(_) => std::fs::create_dir_all(out)
            .map_err(|e| Error::new(format!("failed to create {}: {e}", out.display())))?,
    }
    let held = lock_dir(out, true)?;
    writer::recover(out)?;
    let prev = previous_lock(out)?;
    Ok((held, prev))
}

/// Where laid-out files go: compared or staged ([`writer::Stager`],
/// [`check::Checker`]); a kept unit's files are known by path only.
pub(crate) trait Files {
    fn file(&mut self, path: String, text: String) -> Result<()>;
    /// A planned file that OUT already holds byte for byte (the lock, compared as it
    /// was written: [`lock::same_as_file`]).
    fn same(&mut self, path: String) -> Result<()>;
    /// The lock, known to differ from OUT's (compared as it was assembled), its text
    /// given in pieces: `write` hands each piece to its argument until that returns
    /// `false`. Held whole only where it is compared ([`check::Checker`]).
    fn lock(&mut self, write: &writer::Pieces) -> Result<()> {
        let mut text = String::new();
        write(&mut |p| {
            text.push_str(p);
            true
        });
        self.file(lock::FILE.to_string(), text)
    }
    /// A unit that was not rendered ([`render::Produced::Kept`]): its directory and
    /// files (all the previous lock lists under it) stay.
    fn kept_unit(&mut self, dir: &str, files: &[lock::Owned<'_>]);
}

/// The unit directory (`<top>/<namespace>/<name>`) a path of the tree is in, if any.
pub(crate) fn unit_dir_of(path: &str) -> Option<&str> {
    let mut segs = path.splitn(4, '/');
    match (segs.next(), segs.next(), segs.next(), segs.next()) {
        (Some(a), Some(b), Some(c), Some(_)) => Some(&path[..a.len() + b.len() + c.len() + 2]),
        _ => None,
    }
}

impl Files for writer::Stager<'_, '_> {
    fn file(&mut self, path: String, text: String) -> Result<()> {
        writer::Stager::file(self, &path, text.as_bytes())
    }
    fn same(&mut self, path: String) -> Result<()> {
        writer::Stager::same(self, &path)
    }
    /// Written to the staging area piece by piece: a 100,000-Cluster tree's lock
    /// (250 MB) is never held.
    fn lock(&mut self, write: &writer::Pieces) -> Result<()> {
        writer::Stager::file_streamed(self, lock::FILE, write)
    }
    fn kept_unit(&mut self, dir: &str, files: &[lock::Owned<'_>]) {
        writer::Stager::kept_unit(self, dir, files)
    }
}

impl Files for check::Checker<'_> {
    fn file(&mut self, path: String, text: String) -> Result<()> {
        check::Checker::file(self, path, text)
    }
    fn same(&mut self, path: String) -> Result<()> {
        check::Checker::same(self, path)
    }
    fn kept_unit(&mut self, dir: &str, _files: &[lock::Owned<'_>]) {
        check::Checker::kept_unit(self, dir)
    }
}

/// OUT's previous lock as [`lay_out`] takes it: its outputs (and their views), and the
/// Cluster units a run may skip (`None`: every unit renders).
pub(crate) struct Previous<'a> {
    pub outputs: &'a lock::Outputs,
    pub views: &'a [lock::Owned<'a>],
    pub keep: Option<&'a [lock::UnitRecord]>,
}

/// Lay out a rendering unit by unit as it streams ([`Rendering::stream_keeping`]:
/// units are rendered and laid out on the workers): every unit's files go to `files`
/// in unit order, then the root kustomization, the Flux files and the lock. Only the
/// paths and sums of the files stay (for the lock) and one summary per unit; `on_unit`
/// sees each summary as its files are done. With `prev.keep`, a Cluster whose
/// fingerprint the previous lock records, and whose files are still in place, is not
/// rendered: its files stay as they are, and so do its lines of the lock.
pub(crate) fn lay_out(
    r: Rendering,
    opts: &TreeOptions,
    out: &Path,
    prev: Option<&Previous<'_>>,
    on_unit: &mut dyn FnMut(&flux::UnitSummary),
    files: &mut dyn Files,
    shard: Option<&shard::Part>,
) -> Result<()> {
    use crate::model::sha256_hex;
    use keep::Block;
    let inputs = r.inputs.clone();
    let clusters_only = r.clusters_only.clone();
    // A unit's source as the lock writes it (relative to OUT); consecutive units
    // mostly share theirs.
    let mut last_source: Option<(std::sync::Arc<str>, String)> = None;
    let mut source_of = |s: &std::sync::Arc<str>| -> String {
        match &last_source {
            Some((a, rel)) if std::sync::Arc::ptr_eq(a, s) || **a == **s => rel.clone(),
            _ => {
                let rel = crate::paths::relative_to(s, out);
                last_source = Some((s.clone(), rel.clone()));
                rel
            }
        }
    };
    let views: &[lock::Owned] = prev.map_or(&[], |p| p.views);
    let keep = prev.and_then(|p| p.keep);
    let keepable = keep.map(|u| keepable(u, views)).unwrap_or_default();
    let places = keep::Places::new(out);
    places.list_now(
        keepable
            .keys()
            .filter_map(|d| d.rsplit_once('/').map(|(p, _)| p)),
    );
    let may_keep = |dir: &str, fp: &str| {
        keepable
            .get(dir)
            .is_some_and(|(rec, fs, _)| rec.inputs == fp && still_in_place(&places, dir, fs))
    };
    let mut tree = layout::Layout::with_capacity(r.unit_count());
    // The paths and sums of the files this run made; a kept unit's are the previous
    // lock's, a block of them.
    let mut made: Vec<(String, String)> = Vec::new();
    let mut records: Vec<lock::UnitRecord> = Vec::with_capacity(keep.map_or(0, <[_]>::len));
    // Each unit's outputs (and each other file) as a block.
    let mut blocks: Vec<Block> = Vec::new();
    r.stream_keeping(
        &may_keep,
        |u| {
            let uf = layout::unit_files(&u)?;
            let sums: Vec<String> = uf
                .files
                .iter()
                .map(|(_, t)| sha256_hex(t.as_bytes()))
                .collect();
            Ok((uf, sums))
        },
        |p| match p {
            Produced::Made {
                unit: (uf, sums),
                fingerprint,
            } => {
                if let Some(f) = fingerprint {
                    records.push(lock::UnitRecord {
                        dir: uf.summary.dir(),
                        inputs: f.fingerprint,
                        bytes: uf.files.iter().map(|(_, t)| t.len() as u64).sum(),
                        cluster: f.cluster,
                        source: source_of(&f.source),
                    });
                }
                let at = made.len();
                made.extend(uf.files.iter().map(|(p, _)| p.clone()).zip(sums));
                blocks.push(Block::Made(at..made.len()));
                on_unit(&uf.summary);
                tree.unit(uf, &mut |p, t| files.file(p, t))
            }
            Produced::Kept(k) => {
                let (rec, owned, at) = &keepable[k.dir.as_str()];
                files.kept_unit(&k.dir, owned);
                blocks.push(Block::Prev(*at..at + owned.len()));
                let dir = k.dir.clone();
                records.push(lock::UnitRecord {
                    dir: k.dir,
                    inputs: k.facts.fingerprint,
                    bytes: rec.bytes,
                    cluster: k.facts.cluster,
                    source: source_of(&k.facts.source),
                });
                let summary = flux::UnitSummary {
                    kind: UnitKind::Cluster,
                    namespace: k.namespace,
                    name: k.name,
                    defines: Vec::new(),
                    uses: Default::default(),
                    objects: owned.len().saturating_sub(1),
                    largest_json: 0,
                    after: Vec::new(),
                };
                on_unit(&summary);
                tree.kept(summary, dir)
            }
        },
    )?;
    let mut sink = |p: String, t: String| {
        blocks.push(Block::Made(made.len()..made.len() + 1));
        made.push((p.clone(), sha256_hex(t.as_bytes())));
        files.file(p, t)
    };
    // A shard has no root kustomization or Flux / Argo CD files (they need every
    // unit): its summaries go to its sidecar for `merge-locks`.
    let units = match shard {
        None => tree.finish(opts, &mut sink)?,
        Some(part) => {
            let units = tree.into_units();
            let side = part.sidecar(&units, &inputs, &clusters_only, opts, out)?;
            sink(shard::SIDECAR.to_string(), side)?;
            units
        }
    };
    let head = lock::head(&inputs, &clusters_only, out, opts.command.as_ref());
    let providers: Vec<serde_json::Value> = units
        .iter()
        .filter_map(|u| lock::provider_entry(u, out))
        .collect();
    // The outputs in path order, a block per unit: a kept unit's lines of the lock are
    // the previous lock's own text where they can be (`Outputs::written_items`).
    let prev_outputs = prev.map(|p| p.outputs);
    let mut all: Vec<(String, String)>;
    let runs: Vec<lock::Run> = match keep::ordered_blocks(views, &mut made, blocks) {
        Ok(blocks) => output_runs(&blocks, views, &made, prev_outputs),
        Err(blocks) => {
            // Not in blocks (a lock edited by hand): every file, sorted.
            all = std::mem::take(&mut made);
            for b in blocks {
                if let Block::Prev(r) = b {
                    let kept = views.get(r).unwrap_or_default();
                    all.extend(
                        kept.iter()
                            .map(|o| (o.path.to_string(), o.sha256.to_string())),
                    );
                }
            }
            {
                use rayon::slice::ParallelSliceMut;
                all.par_sort_unstable();
            }
            vec![lock::Run::Made(&all)]
        }
    };
    // The lock is compared with OUT's as it is written, piece by piece: a no-change
    // run over 100,000 Clusters never holds its 250 MB, and the previous lock's own
    // text in it is not compared at all.
    let write = |each: &mut dyn FnMut(&str) -> bool| {
        lock::assemble_runs(&head, &runs, &providers, &records, each)
    };
    let same = match (shard, prev_outputs.and_then(lock::Outputs::lock_text)) {
        (None, Some(text)) => lock::same_as_text(text, write),
        _ => lock::same_as_file(&out.join(lock::FILE), write),
    };
    let done = if same {
        files.same(lock::FILE.to_string())
    } else {
        files.lock(&write)
    };
    let n = records.len();
    free_in_background(records, n);
    done
}

/// The ordered blocks as [`lock::Run`]s, adjacent ones joined: a kept unit's lines that
/// are a stretch of the previous lock's text ([`lock::Outputs::written_items`]) are that
/// text; the other files are written.
fn output_runs<'a>(
    blocks: &[keep::Block],
    views: &'a [lock::Owned<'a>],
    made: &'a [(String, String)],
    prev: Option<&'a lock::Outputs>,
) -> Vec<lock::Run<'a>> {
    use keep::Block;
    /// A run being built: bytes of the previous lock's text, files of `made`, or the
    /// previous outputs.
    enum Open<'t> {
        Text(&'t str, std::ops::Range<usize>),
        Made(std::ops::Range<usize>),
        Prev(std::ops::Range<usize>),
    }
    let close = |o: Open<'a>| match o {
        Open::Text(t, r) => lock::Run::Text(&t[r]),
        Open::Made(r) => lock::Run::Made(&made[r]),
        Open::Prev(r) => lock::Run::Prev(&views[r]),
    };
    let text = prev.and_then(lock::Outputs::lock_text);
    // Where each kept unit's items are in the previous lock's text, looked up on all
    // cores (each item of each kept unit is checked: 1.5 million at 100,000 Clusters).
    let written: Vec<Option<std::ops::Range<usize>>> = {
        use rayon::prelude::*;
        blocks
            .par_iter()
            .with_min_len(256)
            .map(|b| match (b, text.and(prev)) {
                (Block::Prev(r), Some(o)) => o.written_items(r.clone()),
                _ => None,
            })
            .collect()
    };
    let mut runs = Vec::new();
    let mut open: Option<Open> = None;
    for (b, bytes) in blocks.iter().zip(written) {
        let next = match (b, text, bytes) {
            (Block::Made(r), _, _) => Open::Made(r.clone()),
            (Block::Prev(_), Some(t), Some(bytes)) => Open::Text(t, bytes),
            (Block::Prev(r), _, _) => Open::Prev(r.clone()),
        };
        open = match (open.take(), next) {
            (Some(Open::Text(t, a)), Open::Text(_, b)) if a.end == b.start => {
                Some(Open::Text(t, a.start..b.end))
            }
            (Some(Open::Made(a)), Open::Made(b)) if a.end == b.start => {
                Some(Open::Made(a.start..b.end))
            }
            (Some(Open::Prev(a)), Open::Prev(b)) if a.end == b.start => {
                Some(Open::Prev(a.start..b.end))
            }
            (o, n) => {
                runs.extend(o.map(close));
                Some(n)
            }
        };
    }
    runs.extend(open.map(close));
    runs
}

/// `render -o`, streaming: each unit is rendered, laid out and compared with OUT as it
/// comes, and what differs is staged at once ([`writer::Stager`]), so memory holds the
/// inputs, the units in flight and the paths and sums of the tree, never the tree.
/// The same files and guarantees as [`write_tree`]; the lock also records each
/// Cluster's fingerprint, so that the next run skips the Clusters whose inputs did not
/// change (unless `full`, or with `--flux`, whose files depend on every unit).
pub fn write_rendering(
    r: Rendering,
    out: &Path,
    opts: &TreeOptions,
    full: bool,
    on_unit: &mut dyn FnMut(&flux::UnitSummary),
    hook: &mut Hook,
) -> Result<WriteReport> {
    write_opened(Opened::for_write(out)?, r, out, opts, full, on_unit, hook)
}

/// [`write_rendering`] on an OUT opened before the inputs were read.
pub fn write_opened(
    opened: Opened,
    r: Rendering,
    out: &Path,
    opts: &TreeOptions,
    full: bool,
    on_unit: &mut dyn FnMut(&flux::UnitSummary),
    hook: &mut Hook,
) -> Result<WriteReport> {
    let (_held, prev) = match opened.held {
        Some(h) => (h, opened.prev),
        None => open_out(out)?,
    };
    let views = prev.outputs.views();
    let previous = Previous {
        outputs: &prev.outputs,
        views: &views,
        keep: incremental(opts, full).then_some(&prev.units[..]),
    };
    let mut st = writer::Stager::new(out, &views, hook);
    st.list_kept(opened.list_unchanged);
    if let Err(e) = lay_out(r, opts, out, Some(&previous), on_unit, &mut st, None) {
        st.abandon();
        return Err(e);
    }
    let changes = st.commit()?;
    drop(views);
    let n = prev.units.len();
    free_in_background(prev, n);
    // Reported sorted, as [`write_tree`] reports them.
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    Ok(WriteReport {
        written: sorted(changes.writes.into_iter().map(|(p, _)| p).collect()),
        unchanged: sorted(changes.unchanged),
        removed: sorted(changes.removes),
        unchanged_unlisted: changes.kept_unlisted,
    })
}

/// `render --check`, streaming: each file is compared with OUT as it comes; only the
/// files that differ are kept for the report ([`check::Checker`]). Clusters whose
/// fingerprint the lock records and whose files are in place count as up to date,
/// unless `full`.
pub fn check_rendering(
    r: Rendering,
    out: &Path,
    opts: &TreeOptions,
    full: bool,
    on_unit: &mut dyn FnMut(&flux::UnitSummary),
) -> Result<CheckReport> {
    check_opened(Opened::for_check(out)?, r, out, opts, full, on_unit)
}

/// [`check_rendering`] on an OUT opened before the inputs were read.
pub fn check_opened(
    opened: Opened,
    r: Rendering,
    out: &Path,
    opts: &TreeOptions,
    full: bool,
    on_unit: &mut dyn FnMut(&flux::UnitSummary),
) -> Result<CheckReport> {
    let (_held, prev) = (opened.held, opened.prev);
    let views = prev.outputs.views();
    let previous = Previous {
        outputs: &prev.outputs,
        views: &views,
        keep: incremental(opts, full).then_some(&prev.units[..]),
    };
    let mut c = check::Checker::new(out, &views);
    lay_out(r, opts, out, Some(&previous), on_unit, &mut c, None)?;
    let report = c.finish();
    drop(views);
    let n = prev.units.len();
    free_in_background(prev, n);
    report
}

/// Frees `v` (a previous lock, the new unit records) on a thread of its own when the
/// unit records it holds, `units`, are [`BACKGROUND_FREE_UNITS`] or more: a
/// 100,000-Cluster lock's records are 500,000 strings, 50 ms of `free` at the end of
/// every run on the thread that returns (a process that exits next has the kernel
/// take them back at once). Freed here when fewer or when no thread starts.
fn free_in_background<T: Send + 'static>(v: T, units: usize) {
    if units < BACKGROUND_FREE_UNITS {
        return;
    }
    // A failed spawn drops the closure, and `v` with it, here.
    let _ = std::thread::Builder::new()
        .name("capi-render-free".into())
        .spawn(move || drop(v));
}

/// Units from which [`free_in_background`] frees on another thread.
const BACKGROUND_FREE_UNITS: usize = 10_000;

/// OUT made ready for `--check`: no interrupted run, the shared lock held when OUT
/// exists, the outputs of its lock.
fn open_check(out: &Path) -> Result<(Option<std::fs::File>, lock::Lock)> {
    if writer::interrupted(out) {
        return Err(Error::new(format!(
            "{} holds an interrupted render ({}/journal); run `capi-render render -o {}` to restore and update it",
            out.display(),
            writer::STAGING,
            out.display()
        )));
    }
    if !out.is_dir() {
        return Ok((None, lock::Lock::default()));
    }
    let held = lock_dir(out, false)?;
    Ok((Some(held), previous_lock(out)?))
}

/// Render in memory and compare with `out` (nothing is written).
pub fn check_tree(set: &RenderSet, out: &Path, opts: &TreeOptions) -> Result<CheckReport> {
    let planned = plan(set, opts, out)?;
    let (_held, prev) = open_check(out)?;
    check::compare(out, &planned, &prev.outputs.views())
}
