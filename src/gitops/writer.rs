//! Atomic replacement of the tree's files inside OUT (the design is described in the
//! module documentation of `gitops`).
//!
//! Phase A stages every changed file under `OUT/.capi-render.staging/new/` as it comes
//! ([`Stager`]) and makes them durable together (`syncfs`). The commit record is `OUT/.capi-render.staging/journal`, written to a temporary
//! name, fsynced and renamed. Phase B, for every journal entry in order, moves the old
//! file (if any) to `.capi-render.staging/old/` and renames the new one into place;
//! removals are moves to `old/`; the lock is the last entry. Then the journal is
//! deleted (the new tree is final) and the staging directory removed.
//!
//! Recovery, at the start of every run: a staging directory without a journal is
//! deleted (phase A never changed OUT); with a journal, every entry is undone in
//! reverse order from `old/` and `new/`, which gives back the previous tree byte for
//! byte, then the staging directory is deleted. A failure during phase B is undone the
//! same way at once.
//!
//! The journal's format and the recovery are in [`super::journal`].

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::journal::{
    fsync_dir, identity, io_err, journal_text, move_file, owner_text, prune_empty_parents,
    rel_path, remove_staging, undo, Entry, JOURNAL, JOURNAL_TMP, NEW, OLD, OWNER,
};
pub use super::journal::{interrupted, recover, STAGING};
use super::lock::Owned;
use crate::error::{Error, Result};
pub use crate::paths::check_no_symlink;

/// A filesystem mutation the writer is about to make (for the failure hook).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Create the staging directory.
    Begin,
    /// Write one staged file.
    Stage(String),
    /// Write the journal (the commit point).
    Journal,
    /// Move an old file aside to `old/`.
    Backup(String),
    /// Rename a staged file into place.
    Place(String),
    /// Move a file that is no longer produced to `old/`.
    Remove(String),
    /// Delete the journal: the new tree is final.
    Commit,
}

/// What a hook injects before a step: an I/O failure (the writer cleans up as for a
/// real one), or a crash (the writer stops dead, as if killed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Injected {
    Fail,
    Crash,
}

/// A text given in pieces: it calls its argument with each piece, in order, until that
/// returns `false` (a write failed).
pub type Pieces<'p> = dyn Fn(&mut dyn FnMut(&str) -> bool) + 'p;

pub type Hook<'h> = dyn FnMut(&Step) -> std::result::Result<(), Injected> + 'h;

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteReport {
    pub written: Vec<String>,
    pub unchanged: Vec<String>,
    pub removed: Vec<String>,
    /// Unchanged files not in `unchanged`: the files of kept units when the caller
    /// asked for their number only ([`Stager::list_kept`]).
    pub unchanged_unlisted: usize,
}

impl WriteReport {
    /// Every unchanged file, listed or not.
    pub fn unchanged_count(&self) -> usize {
        self.unchanged.len() + self.unchanged_unlisted
    }
}

/// Why a phase stopped.
enum Stop {
    Err(Error),
    Crash,
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Err(e)
    }
}

fn step(hook: &mut Hook, s: Step) -> std::result::Result<(), Stop> {
    match hook(&s) {
        Ok(()) => Ok(()),
        Err(Injected::Crash) => Err(Stop::Crash),
        Err(Injected::Fail) => Err(Stop::Err(Error::new(format!(
            "injected failure before {s:?}"
        )))),
    }
}

/// Whether `r` holds exactly `want`, read in pieces (a 20 MB lock is not held twice)
/// and never past one byte more than `want`.
pub(super) fn same_bytes(r: impl std::io::Read, want: &[u8]) -> std::io::Result<bool> {
    use std::io::Read;
    let mut r = r.take(want.len() as u64 + 1);
    let mut buf = vec![0u8; 256 * 1024];
    let mut at = 0;
    loop {
        let n = r.read(&mut buf)?;
        if n == 0 {
            return Ok(at == want.len());
        }
        if at + n > want.len() || buf[..n] != want[at..at + n] {
            return Ok(false);
        }
        at += n;
    }
}

fn write_unsynced(p: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = fs::File::create(p).map_err(|e| io_err("create", p, e))?;
    f.write_all(bytes).map_err(|e| io_err("write", p, e))
}

fn write_synced(p: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(d) = p.parent() {
        fs::create_dir_all(d).map_err(|e| io_err("create directory", d, e))?;
    }
    let mut f = fs::File::create(p).map_err(|e| io_err("create", p, e))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .map_err(|e| io_err("write", p, e))
}

/// [`rename`] creating each target directory once per run.
#[derive(Default)]
struct Mover {
    made: HashSet<PathBuf>,
}

impl Mover {
    fn rename(&mut self, from: &Path, to: &Path) -> Result<()> {
        if let Some(d) = to.parent() {
            if !self.made.contains(d) {
                fs::create_dir_all(d).map_err(|e| io_err("create directory", d, e))?;
                self.made.insert(d.to_path_buf());
            }
        }
        move_file(from, to)
    }
}

/// How the planned files compare with OUT.
#[derive(Debug, Default)]
pub struct Changes {
    /// (path, an older file exists) for every file whose bytes differ.
    pub writes: Vec<(String, bool)>,
    pub unchanged: Vec<String>,
    /// Files of the previous lock that are not produced any more and still exist.
    pub removes: Vec<String>,
    /// Files of kept units, when they are counted instead of listed.
    pub kept_unlisted: usize,
}

/// Whether a file the lock lists is in OUT as a regular file with the bytes the lock
/// recorded: `Ok(false)` when it is gone (or not a regular file), an error when its
/// bytes changed. A file is only removed while it is exactly what capi-render wrote;
/// a lock that lists someone else's file (or a file edited since) never deletes it.
pub fn still_as_written(out: &Path, o: &Owned<'_>) -> Result<bool> {
    check_no_symlink(out, o.path)?;
    let full = rel_path(out, o.path);
    if !matches!(fs::symlink_metadata(&full), Ok(m) if m.is_file()) {
        return Ok(false);
    }
    let shown = full.display().to_string();
    let limit = crate::limits::Limits::current().file_bytes;
    let bytes =
        crate::limits::read_file_within(&full, &shown, limit, |e| io_err("read", &full, e))?;
    if crate::model::sha256_hex(&bytes) == o.sha256 {
        return Ok(true);
    }
    Err(Error::new(format!(
        "{shown} is no longer produced, but it is not the file capi-render wrote there (its sha256 differs from the one {} records), so it is not removed",
        super::lock::FILE
    ))
    .in_file(&shown)
    .with_hint("if the file is no longer wanted, delete it yourself; to keep it, move it out of the output directory; then run again"))
}

/// How the previous lock's paths are looked up: by binary search when they are sorted
/// (as the writer writes them), else in a set.
enum PrevPaths<'a> {
    Sorted,
    Set(rustc_hash::FxHashSet<&'a str>),
}

impl<'a> PrevPaths<'a> {
    fn of(prev: &'a [Owned<'a>]) -> Self {
        if prev.windows(2).all(|w| w[0].path < w[1].path) {
            PrevPaths::Sorted
        } else {
            PrevPaths::Set(prev.iter().map(|o| o.path).collect())
        }
    }

    fn contains(&self, prev: &[Owned<'_>], p: &str) -> bool {
        match self {
            PrevPaths::Sorted => prev.binary_search_by(|o| o.path.cmp(p)).is_ok(),
            PrevPaths::Set(s) => s.contains(p),
        }
    }
}

/// Phase A, file by file as the tree is laid out: each planned file is compared with
/// OUT and, when its bytes differ, staged under `new/` at once (so only one unit's
/// files are in memory). [`Stager::commit`] then finds the removals and runs the
/// commit. A planned path that exists with other content and is not in the previous
/// lock is someone else's file: an error, never overwritten. On any error before the
/// commit, [`Stager::abandon`] deletes the staging directory (OUT's tree never
/// changed).
pub struct Stager<'a, 'h> {
    out: PathBuf,
    staging: PathBuf,
    prev: &'a [Owned<'a>],
    /// The previous outputs' paths, made when first needed (a no-change run over
    /// 100,000 Clusters never needs its 1.5 million).
    prev_paths: std::cell::OnceCell<PrevPaths<'a>>,
    hook: &'a mut Hook<'h>,
    /// This run made the staging directory.
    made: bool,
    /// A hook injected a crash: the staging directory stays, as after a kill.
    crashed: bool,
    changes: Changes,
    planned: rustc_hash::FxHashSet<String>,
    /// Directories made under `new/` (synced before the commit where no `syncfs`), by
    /// their path relative to it.
    dirs: rustc_hash::FxHashSet<String>,
    /// Directories of OUT (relative) already found to be directories, not links: each
    /// is looked at once per run, not once per file below it.
    real_dirs: rustc_hash::FxHashSet<String>,
    /// Units kept as they are ([`Stager::kept_unit`]).
    kept_dirs: rustc_hash::FxHashSet<String>,
    /// Whether a kept unit's files are listed as unchanged, or counted.
    list_kept: bool,
}

impl<'a, 'h> Stager<'a, 'h> {
    /// `prev`: the outputs of OUT's current lock.
    pub fn new(out: &Path, prev: &'a [Owned<'a>], hook: &'a mut Hook<'h>) -> Self {
        Stager {
            out: out.to_path_buf(),
            staging: out.join(STAGING),
            prev,
            prev_paths: Default::default(),
            hook,
            made: false,
            crashed: false,
            changes: Changes::default(),
            planned: Default::default(),
            dirs: Default::default(),
            real_dirs: Default::default(),
            kept_dirs: Default::default(),
            list_kept: true,
        }
    }

    /// Whether the previous lock lists `p`.
    fn was_written(&self, p: &str) -> bool {
        self.prev_paths
            .get_or_init(|| PrevPaths::of(self.prev))
            .contains(self.prev, p)
    }

    /// [`check_no_symlink`] for a planned file, with the directories above it looked at
    /// once per run: `false` when one of them does not exist (nor does the file).
    fn no_link_above(&mut self, p: &str) -> std::result::Result<bool, Stop> {
        let mut at = 0;
        while let Some(i) = p[at..].find('/') {
            let dir = &p[..at + i];
            at += i + 1;
            if self.real_dirs.contains(dir) {
                continue;
            }
            let full = rel_path(&self.out, dir);
            match fs::symlink_metadata(&full) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(Stop::Err(Error::new(format!(
                        "{} is a symbolic link; capi-render does not write through links",
                        full.display()
                    ))))
                }
                Ok(m) if m.is_dir() => {
                    self.real_dirs.insert(dir.to_string());
                }
                // A file where a directory is planned: the write fails below with the
                // error that names it, as before.
                Ok(_) => return Ok(true),
                Err(_) => return Ok(false),
            }
        }
        Ok(true)
    }

    /// A unit known to be in place (kept): its files (every previous output under
    /// `dir`) are not read, not written, and not removed.
    pub fn kept_unit(&mut self, dir: &str, files: &[Owned<'_>]) {
        self.kept_dirs.insert(dir.to_string());
        if self.list_kept {
            self.changes
                .unchanged
                .extend(files.iter().map(|o| o.path.to_string()));
        } else {
            self.changes.kept_unlisted += files.len();
        }
    }

    /// Whether the files of kept units are listed in [`Changes::unchanged`] (the
    /// default) or only counted: at 100,000 Clusters the list is 1.5 million paths,
    /// which only a JSON report prints.
    pub fn list_kept(&mut self, yes: bool) {
        self.list_kept = yes;
    }

    /// A planned file known to be in OUT byte for byte, as a regular file: unchanged.
    pub fn same(&mut self, p: &str) -> Result<()> {
        if !self.planned.insert(p.to_string()) {
            return Err(Error::new(format!("internal error: {p} is planned twice")));
        }
        self.changes.unchanged.push(p.to_string());
        Ok(())
    }

    /// Compare one planned file with OUT; stage it when its bytes differ.
    pub fn file(&mut self, p: &str, content: &[u8]) -> Result<()> {
        let r = self.file_inner(p, content);
        self.stopped(r)
    }

    /// Stage a planned file known to differ from what OUT holds (or to be new), its
    /// text handed over in pieces and written as they come: the lock, which a run
    /// has already compared with OUT's as it was assembled, and which is never held
    /// whole (250 MB at 100,000 Clusters). `write` calls its argument with each piece
    /// until that returns `false`.
    pub fn file_streamed(&mut self, p: &str, write: &Pieces) -> Result<()> {
        let r = self.streamed_inner(p, write);
        self.stopped(r)
    }

    fn stopped(&mut self, r: std::result::Result<(), Stop>) -> Result<()> {
        r.map_err(|s| match s {
            Stop::Err(e) => e,
            Stop::Crash => {
                self.crashed = true;
                Error::new("injected crash while staging")
            }
        })
    }

    fn file_inner(&mut self, p: &str, content: &[u8]) -> std::result::Result<(), Stop> {
        let Some(had_old) = self.target(p, Some(content))? else {
            return Ok(());
        };
        let f = self.staged(p)?;
        write_unsynced(&f, content)?;
        self.changes.writes.push((p.to_string(), had_old));
        Ok(())
    }

    fn streamed_inner(&mut self, p: &str, write: &Pieces) -> std::result::Result<(), Stop> {
        if p != super::lock::FILE {
            return Err(Stop::Err(Error::new(format!(
                "internal error: {p} is not the lock and was given in pieces"
            ))));
        }
        let Some(had_old) = self.target(p, None)? else {
            return Ok(());
        };
        let f = self.staged(p)?;
        let file = fs::File::create(&f).map_err(|e| io_err("create", &f, e))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
        let mut failed = None;
        write(&mut |piece| match w.write_all(piece.as_bytes()) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        });
        match failed {
            Some(e) => Err(io_err("write", &f, e))?,
            None => w.flush().map_err(|e| io_err("write", &f, e))?,
        }
        self.changes.writes.push((p.to_string(), had_old));
        Ok(())
    }

    /// Whether planned file `p` is to be staged, and whether OUT has a file there
    /// (`Some(had_old)`), or `None` when OUT holds `content` byte for byte. OUT's file
    /// is compared only when `content` is given (`None`: the caller knows it differs).
    /// Refused: a path planned twice, a link or a directory in the way, a file
    /// capi-render did not write, a CAPI template changed under the same name.
    fn target(
        &mut self,
        p: &str,
        content: Option<&[u8]>,
    ) -> std::result::Result<Option<bool>, Stop> {
        if !self.planned.insert(p.to_string()) {
            return Err(Stop::Err(Error::new(format!(
                "internal error: {p} is planned twice"
            ))));
        }
        let above = self.no_link_above(p)?;
        let full = rel_path(&self.out, p);
        let meta = if above {
            fs::symlink_metadata(&full)
        } else {
            Err(std::io::ErrorKind::NotFound.into())
        };
        match meta {
            Err(_) => Ok(Some(false)),
            Ok(m) if m.file_type().is_symlink() => Err(Stop::Err(Error::new(format!(
                "{} is a symbolic link; capi-render does not write through links",
                full.display()
            )))),
            Ok(m) if m.is_dir() => Err(Stop::Err(Error::new(format!(
                "{} is a directory, but capi-render has to write a file there",
                full.display()
            )))),
            Ok(m) => {
                // Compared piece by piece, never more than the planned size plus one
                // byte read: OUT is untrusted, and a longer file differs anyway.
                let same = match content {
                    Some(content) => {
                        m.len() == content.len() as u64
                            && fs::File::open(&full)
                                .and_then(|f| same_bytes(f, content))
                                .map_err(|e| io_err("read", &full, e))?
                    }
                    None => false,
                };
                if same {
                    self.changes.unchanged.push(p.to_string());
                    return Ok(None);
                }
                if !(self.was_written(p) || p == super::lock::FILE) {
                    return Err(Stop::Err(Error::new(format!(
                        "{} exists and capi-render did not write it (it is not listed in {}); move it away or delete it",
                        full.display(),
                        super::lock::FILE
                    ))));
                }
                // Text given in pieces is the lock's (`streamed_inner`), never a CAPI
                // template.
                if let Some(content) = content.filter(|c| super::immutable::concerns(p, c)) {
                    let shown = full.display().to_string();
                    let old = crate::limits::read_file(&full, &shown, |e| io_err("read", &full, e))
                        .map_err(Stop::Err)?;
                    super::immutable::check(p, &shown, &old, content).map_err(Stop::Err)?;
                }
                Ok(Some(true))
            }
        }
    }

    /// The staging path of planned file `p`, the staging area and `p`'s directories in
    /// it made first.
    fn staged(&mut self, p: &str) -> std::result::Result<PathBuf, Stop> {
        if !self.made {
            self.begin()?;
        }
        step(self.hook, Step::Stage(p.to_string()))?;
        let new = self.staging.join(NEW);
        let f = rel_path(&new, p);
        // The file's directory relative to `new/` ("" for `new/` itself).
        let dir = p.rsplit_once('/').map_or("", |(d, _)| d);
        if !self.dirs.contains(dir) {
            let d = if dir.is_empty() {
                new.clone()
            } else {
                rel_path(&new, dir)
            };
            fs::create_dir_all(&d).map_err(|e| io_err("create directory", &d, e))?;
            let mut x = Some(dir);
            while let Some(d) = x {
                if !self.dirs.insert(d.to_string()) {
                    break;
                }
                x = match d.rsplit_once('/') {
                    Some((up, _)) => Some(up),
                    None if !d.is_empty() => Some(""),
                    None => None,
                };
            }
        }
        Ok(f)
    }

    fn begin(&mut self) -> std::result::Result<(), Stop> {
        step(self.hook, Step::Begin)?;
        fs::create_dir(&self.staging).map_err(|e| io_err("create", &self.staging, e))?;
        self.made = true;
        // The owner file names the directory, so recovery can tell it from a copy.
        let meta =
            fs::symlink_metadata(&self.staging).map_err(|e| io_err("read", &self.staging, e))?;
        write_synced(&self.staging.join(OWNER), owner_text(&meta).as_bytes())?;
        Ok(())
    }

    /// Delete what this run staged (after an error before the commit).
    pub fn abandon(self) {
        if self.made && !self.crashed {
            let _ = remove_staging(&self.staging);
        }
    }

    /// Every planned file was given: find the removals (previous outputs no longer
    /// planned that are still as written), make the staged files durable, then commit
    /// (journal, moves, journal deleted).
    pub fn commit(mut self) -> Result<Changes> {
        let prev = self.prev;
        let kept_dirs = std::mem::take(&mut self.kept_dirs);
        let planned = &self.planned;
        let left = super::keep::outside_kept_dirs(prev, &kept_dirs, &|p| planned.contains(p));
        for o in left {
            match still_as_written(&self.out, o) {
                Ok(true) => self.changes.removes.push(o.path.to_string()),
                Ok(false) => {}
                Err(e) => {
                    self.abandon();
                    return Err(e);
                }
            }
        }
        if self.changes.writes.is_empty() && self.changes.removes.is_empty() {
            return Ok(self.changes);
        }
        let (out, staging) = (self.out.clone(), self.staging.clone());
        let staged = self
            .sync_staged()
            .and_then(|()| journal_entries(&out, &staging, &self.changes).map_err(Stop::Err));
        let entries = match staged {
            Ok(entries) => entries,
            Err(Stop::Crash) => return Err(Error::new("injected crash while staging")),
            Err(Stop::Err(e)) => {
                self.abandon();
                return Err(e);
            }
        };
        match commit(&out, &staging, &entries, self.hook) {
            Ok(()) => {}
            Err(Stop::Crash) => return Err(Error::new("injected crash while committing")),
            Err(Stop::Err(e)) => {
                // Before the journal exists nothing moved; after, undo what did.
                if staging.join(JOURNAL).exists() {
                    if let Err(u) = undo(&out, &staging, &entries) {
                        return Err(e.wrap(format!(
                            "restoring the previous tree also failed ({u}); the next run restores it from {}",
                            staging.display()
                        )));
                    }
                }
                let _ = remove_staging(&staging);
                return Err(e);
            }
        }
        // Cleanup: the new tree is final; leftovers are removed by the next run's recovery.
        let _ = remove_staging(&staging);
        for p in &self.changes.removes {
            prune_empty_parents(&out, p);
        }
        Ok(self.changes)
    }

    /// Phase A's durability, once for all staged files: `syncfs` on Linux (every
    /// staged file and directory of this filesystem reaches the disk before the
    /// journal is written), elsewhere one fsync per file and directory.
    fn sync_staged(&mut self) -> std::result::Result<(), Stop> {
        if !sync_filesystem(&self.staging)? {
            let new = self.staging.join(NEW);
            for (p, _) in &self.changes.writes {
                let f = rel_path(&new, p);
                fs::File::open(&f)
                    .and_then(|f| f.sync_all())
                    .map_err(|e| io_err("sync", &f, e))?;
            }
            let mut dirs: Vec<&String> = self.dirs.iter().collect();
            dirs.sort();
            fsync_dir(&new)?;
            for d in dirs.into_iter().filter(|d| !d.is_empty()) {
                fsync_dir(&rel_path(&new, d))?;
            }
        }
        fsync_dir(&self.staging)?;
        fsync_dir(&self.out)?;
        Ok(())
    }
}

/// `syncfs(2)` on the filesystem holding `p` (Linux): true when done, false where
/// there is no such call (the caller syncs file by file).
fn sync_filesystem(p: &Path) -> Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let f = fs::File::open(p).map_err(|e| io_err("open", p, e))?;
        // SAFETY: syncfs only reads the file descriptor, which `f` keeps open.
        if unsafe { libc::syncfs(f.as_raw_fd()) } != 0 {
            return Err(io_err(
                "sync the filesystem of",
                p,
                std::io::Error::last_os_error(),
            ));
        }
        Ok(true)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = p;
        Ok(false)
    }
}

/// Compare `planned` with OUT and write what differs (the whole of phase A and the
/// commit, for a tree held in memory).
pub fn write_planned(
    out: &Path,
    planned: &BTreeMap<String, String>,
    prev: &[Owned<'_>],
    hook: &mut Hook,
) -> Result<Changes> {
    let mut st = Stager::new(out, prev, hook);
    for (p, content) in planned {
        if let Err(e) = st.file(p, content.as_bytes()) {
            st.abandon();
            return Err(e);
        }
    }
    st.commit()
}

/// The journal's entries, the lock last, with the inode of every file they move.
fn journal_entries(out: &Path, staging: &Path, changes: &Changes) -> Result<Vec<Entry>> {
    let new = staging.join(NEW);
    let ino = |p: &Path| -> Result<u64> {
        fs::symlink_metadata(p)
            .map(|m| identity(&m).1)
            .map_err(|e| io_err("read", p, e))
    };
    let write = |(p, had_old): &(String, bool)| -> Result<Entry> {
        Ok(Entry::Write {
            path: p.clone(),
            had_old: *had_old,
            new_ino: ino(&rel_path(&new, p))?,
            old_ino: if *had_old { ino(&rel_path(out, p))? } else { 0 },
        })
    };
    let lock = super::lock::FILE;
    let mut entries = Vec::new();
    for w in changes.writes.iter().filter(|(p, _)| p != lock) {
        entries.push(write(w)?);
    }
    for p in &changes.removes {
        entries.push(Entry::Remove {
            path: p.clone(),
            old_ino: ino(&rel_path(out, p))?,
        });
    }
    for w in changes.writes.iter().filter(|(p, _)| p == lock) {
        entries.push(write(w)?);
    }
    Ok(entries)
}

fn commit(
    out: &Path,
    staging: &Path,
    entries: &[Entry],
    hook: &mut Hook,
) -> std::result::Result<(), Stop> {
    step(hook, Step::Journal)?;
    let tmp = staging.join(JOURNAL_TMP);
    write_synced(&tmp, journal_text(entries).as_bytes())?;
    fs::rename(&tmp, staging.join(JOURNAL)).map_err(|e| io_err("rename", &tmp, e))?;
    fsync_dir(staging)?;
    let old = staging.join(OLD);
    let new = staging.join(NEW);
    let mut dirs = BTreeSet::new();
    let mut mv = Mover::default();
    for e in entries {
        match e {
            Entry::Write { path, had_old, .. } => {
                let target = rel_path(out, path);
                if *had_old {
                    step(hook, Step::Backup(path.clone()))?;
                    mv.rename(&target, &rel_path(&old, path))?;
                }
                step(hook, Step::Place(path.clone()))?;
                mv.rename(&rel_path(&new, path), &target)?;
                if let Some(d) = target.parent() {
                    dirs.insert(d.to_path_buf());
                }
            }
            Entry::Remove { path, .. } => {
                step(hook, Step::Remove(path.clone()))?;
                let target = rel_path(out, path);
                mv.rename(&target, &rel_path(&old, path))?;
                if let Some(d) = target.parent() {
                    dirs.insert(d.to_path_buf());
                }
            }
        }
    }
    // The moves are durable before the journal goes: one syncfs, else every directory.
    if !sync_filesystem(out)? {
        for d in &dirs {
            fsync_dir(d)?;
        }
    }
    step(hook, Step::Commit)?;
    let j = staging.join(JOURNAL);
    fs::remove_file(&j).map_err(|e| io_err("remove", &j, e))?;
    // The new tree is final from here on; a failed sync cannot be undone any more.
    let _ = fsync_dir(staging);
    Ok(())
}

#[cfg(test)]
mod tests;
