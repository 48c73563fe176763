//! Atomic replacement of the tree's files inside OUT (the design is described in the
//! module documentation of `gitops`).
//!
//! Phase A stages every changed file under `OUT/.capi-render.staging/new/` and fsyncs
//! it. The commit record is `OUT/.capi-render.staging/journal`, written to a temporary
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
//! Recovery trusts only what it can verify, because OUT's contents are untrusted (a
//! staging directory can be committed to Git): the staging directory must be a real
//! directory whose `owner` file records its own device and inode (a checked-out or
//! copied directory has other ones), every journal path stays inside OUT, and every
//! file it moves or deletes must be a regular file with the inode the journal recorded
//! for it when this run created or moved it. Anything else stops recovery before it
//! changes a byte, with a message naming the staging directory.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::lock::Owned;
use crate::error::{Error, Result};
pub use crate::paths::check_no_symlink;
use crate::paths::is_safe_relative;

/// The staging directory's name inside OUT.
pub const STAGING: &str = ".capi-render.staging";
const JOURNAL: &str = "journal";
const JOURNAL_TMP: &str = "journal.tmp";
const JOURNAL_HEADER: &str = "capi-render journal 2";
const OWNER: &str = "owner";
const NEW: &str = "new";
const OLD: &str = "old";

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

pub type Hook<'h> = dyn FnMut(&Step) -> std::result::Result<(), Injected> + 'h;

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteReport {
    pub written: Vec<String>,
    pub unchanged: Vec<String>,
    pub removed: Vec<String>,
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

fn io_err(what: &str, p: &Path, e: std::io::Error) -> Error {
    Error::new(format!("failed to {what} {}: {e}", p.display()))
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

fn fsync_dir(p: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        fs::File::open(p)
            .and_then(|f| f.sync_all())
            .map_err(|e| io_err("sync directory", p, e))
    }
    #[cfg(not(unix))]
    {
        let _ = p;
        Ok(())
    }
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

fn rename(from: &Path, to: &Path) -> Result<()> {
    if let Some(d) = to.parent() {
        fs::create_dir_all(d).map_err(|e| io_err("create directory", d, e))?;
    }
    fs::rename(from, to).map_err(|e| {
        Error::new(format!(
            "failed to rename {} to {}: {e}",
            from.display(),
            to.display()
        ))
    })
}

/// Remove the empty directories between `rel`'s parent and OUT (never OUT itself).
fn prune_empty_parents(out: &Path, rel: &str) {
    let mut segs: Vec<&str> = rel.split('/').collect();
    segs.pop();
    while !segs.is_empty() {
        let d = out.join(segs.join("/"));
        if fs::remove_dir(&d).is_err() {
            break;
        }
        segs.pop();
    }
}

fn rel_path(base: &Path, rel: &str) -> PathBuf {
    rel.split('/').fold(base.to_path_buf(), |p, s| p.join(s))
}

/// One journal entry. Inodes identify the files this run moves: a file placed from
/// `new/` keeps its inode (`new_ino`), a backed-up or removed one too (`old_ino`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Write {
        path: String,
        had_old: bool,
        new_ino: u64,
        old_ino: u64,
    },
    Remove {
        path: String,
        old_ino: u64,
    },
}

impl Entry {
    fn path(&self) -> &str {
        match self {
            Entry::Write { path, .. } | Entry::Remove { path, .. } => path,
        }
    }
}

fn journal_text(entries: &[Entry]) -> String {
    let mut s = format!("{JOURNAL_HEADER}\n");
    for e in entries {
        match e {
            Entry::Write {
                path,
                had_old,
                new_ino,
                old_ino,
            } => s.push_str(&format!(
                "W {} {new_ino} {old_ino} {path}\n",
                u8::from(*had_old)
            )),
            Entry::Remove { path, old_ino } => s.push_str(&format!("R {old_ino} {path}\n")),
        }
    }
    s
}

fn parse_journal(text: &str, shown: &Path) -> Result<Vec<Entry>> {
    let bad = |l: &str| {
        Error::new(format!(
            "{}: unreadable line {l:?}; this journal was not written by this version of capi-render (or was edited); nothing was changed: check OUT, then delete {}",
            shown.display(),
            shown.parent().unwrap_or(shown).display()
        ))
    };
    let mut lines = text.lines();
    if lines.next() != Some(JOURNAL_HEADER) {
        return Err(bad(text.lines().next().unwrap_or("")));
    }
    let ino = |t: &str| t.parse::<u64>().ok();
    let mut out = Vec::new();
    for l in lines {
        let n = if l.starts_with("R ") { 3 } else { 5 };
        let f: Vec<&str> = l.splitn(n, ' ').collect();
        let e = match f.as_slice() {
            ["W", h @ ("0" | "1"), n, o, p] => Entry::Write {
                path: p.to_string(),
                had_old: *h == "1",
                new_ino: ino(n).ok_or_else(|| bad(l))?,
                old_ino: ino(o).ok_or_else(|| bad(l))?,
            },
            ["R", o, p] => Entry::Remove {
                path: p.to_string(),
                old_ino: ino(o).ok_or_else(|| bad(l))?,
            },
            _ => return Err(bad(l)),
        };
        let p = e.path();
        if !is_safe_relative(p) || p.split('/').next() == Some(STAGING) {
            return Err(bad(l));
        }
        out.push(e);
    }
    Ok(out)
}

/// A file's identity on its filesystem (`None` where the platform has none).
fn identity(m: &fs::Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        (0, 0)
    }
}

fn owner_text(m: &fs::Metadata) -> String {
    let (dev, ino) = identity(m);
    format!("capi-render staging {dev} {ino}\n")
}

/// The inode of the regular file at `p` (`None`: absent). A symlink or anything but a
/// regular file is an error: capi-render never stages or moves those.
fn regular_ino(p: &Path, staging: &Path) -> Result<Option<u64>> {
    match fs::symlink_metadata(p) {
        Err(_) => Ok(None),
        Ok(m) if m.is_file() => Ok(Some(identity(&m).1)),
        Ok(_) => Err(untrusted(
            staging,
            &format!("{} is not a regular file", p.display()),
        )),
    }
}

fn untrusted(staging: &Path, why: &str) -> Error {
    Error::new(format!(
        "{}: cannot recover the interrupted run: {why}; capi-render changed nothing. This staging directory was not left by a capi-render run on this machine (it may have been committed to Git or copied): check OUT, then delete {}",
        staging.display(),
        staging.display()
    ))
}

/// Whether OUT holds the journal of an interrupted commit.
pub fn interrupted(out: &Path) -> bool {
    out.join(STAGING).join(JOURNAL).exists()
}

/// Bring OUT back to a complete tree after an interrupted run (see the module doc).
/// Returns whether anything was there to recover.
pub fn recover(out: &Path) -> Result<bool> {
    let staging = out.join(STAGING);
    let meta = match fs::symlink_metadata(&staging) {
        Err(_) => return Ok(false),
        Ok(m) if !m.is_dir() => {
            return Err(Error::new(format!(
                "{} is not a directory capi-render made; remove it",
                staging.display()
            )))
        }
        Ok(m) => m,
    };
    let expected = owner_text(&meta);
    let owner = staging.join(OWNER);
    let recorded = match fs::symlink_metadata(&owner) {
        Ok(m) if m.is_file() && m.len() <= 128 => fs::read_to_string(&owner).ok(),
        _ => None,
    };
    let others = fs::read_dir(&staging)
        .map_err(|e| io_err("read", &staging, e))?
        .filter_map(|e| e.ok())
        .any(|e| e.file_name() != OWNER);
    match recorded {
        Some(r) if r == expected => {}
        // Killed between creating the staging directory and finishing its owner file:
        // nothing else can be in it yet.
        Some(r) if !others && expected.starts_with(&r) => {}
        None if !others && fs::symlink_metadata(&owner).is_err() => {}
        _ => {
            return Err(untrusted(
                &staging,
                &format!("its {OWNER} file does not name this directory"),
            ))
        }
    }
    let journal = staging.join(JOURNAL);
    match fs::symlink_metadata(&journal) {
        Err(_) => {}
        Ok(m) if !m.is_file() => {
            return Err(untrusted(&staging, "its journal is not a regular file"))
        }
        Ok(_) => {
            let text = fs::read_to_string(&journal).map_err(|e| io_err("read", &journal, e))?;
            let entries = parse_journal(&text, &journal)?;
            undo(out, &staging, &entries)?;
        }
    }
    remove_staging(&staging)?;
    fsync_dir(out)?;
    Ok(true)
}

/// Delete the staging directory so that a kill at any moment leaves one that the next
/// recovery accepts: the journal first (nothing is replayed twice), then everything
/// else, the owner file last (until then it vouches for what is left).
fn remove_staging(staging: &Path) -> Result<()> {
    for name in [JOURNAL, JOURNAL_TMP] {
        let p = staging.join(name);
        if fs::symlink_metadata(&p).is_ok() {
            fs::remove_file(&p).map_err(|e| io_err("remove", &p, e))?;
        }
    }
    let entries = fs::read_dir(staging).map_err(|e| io_err("read", staging, e))?;
    for e in entries {
        let e = e.map_err(|e| io_err("read", staging, e))?;
        if e.file_name() == OWNER {
            continue;
        }
        let p = e.path();
        let r = match e.file_type() {
            Ok(t) if t.is_dir() => fs::remove_dir_all(&p),
            _ => fs::remove_file(&p),
        };
        r.map_err(|err| io_err("remove", &p, err))?;
    }
    let owner = staging.join(OWNER);
    if fs::symlink_metadata(&owner).is_ok() {
        fs::remove_file(&owner).map_err(|e| io_err("remove", &owner, e))?;
    }
    fs::remove_dir(staging).map_err(|e| io_err("remove", staging, e))
}

/// What undoing one entry does, decided before anything moves.
enum Undo {
    /// Move the backup back over the target.
    Restore { backup: PathBuf, target: PathBuf },
    /// Delete a file this run placed.
    Delete { target: PathBuf, rel: String },
}

/// Undo journal entries in reverse order, from `old/` (backups) and `new/` (what was
/// not placed yet). Every file is verified first; nothing moves unless all verify.
fn undo(out: &Path, staging: &Path, entries: &[Entry]) -> Result<()> {
    let old = staging.join(OLD);
    let new = staging.join(NEW);
    let mut plan = Vec::new();
    for e in entries.iter().rev() {
        let rel = e.path();
        check_no_symlink(out, rel)?;
        check_no_symlink(&old, rel).map_err(|e| untrusted(staging, e.message()))?;
        check_no_symlink(&new, rel).map_err(|e| untrusted(staging, e.message()))?;
        let target = rel_path(out, rel);
        let backup = rel_path(&old, rel);
        let target_ino = regular_ino(&target, staging)?;
        let backup_ino = regular_ino(&backup, staging)?;
        let mismatch = |what: &Path| {
            untrusted(
                staging,
                &format!("{} is not the file the journal recorded", what.display()),
            )
        };
        match e {
            Entry::Write {
                had_old,
                new_ino,
                old_ino,
                ..
            } => {
                if *had_old && backup_ino.is_some() {
                    if backup_ino != Some(*old_ino) {
                        return Err(mismatch(&backup));
                    }
                    if target_ino.is_some() && target_ino != Some(*new_ino) {
                        return Err(mismatch(&target));
                    }
                    plan.push(Undo::Restore { backup, target });
                } else if !*had_old && regular_ino(&rel_path(&new, rel), staging)?.is_none() {
                    match target_ino {
                        None => {}
                        Some(i) if i == *new_ino => plan.push(Undo::Delete {
                            target,
                            rel: rel.to_string(),
                        }),
                        Some(_) => return Err(mismatch(&target)),
                    }
                }
            }
            Entry::Remove { old_ino, .. } => {
                if backup_ino.is_some() {
                    if backup_ino != Some(*old_ino) {
                        return Err(mismatch(&backup));
                    }
                    if target_ino.is_some() {
                        return Err(mismatch(&target));
                    }
                    plan.push(Undo::Restore { backup, target });
                }
            }
        }
    }
    for u in plan {
        match u {
            Undo::Restore { backup, target } => rename(&backup, &target)?,
            Undo::Delete { target, rel } => {
                fs::remove_file(&target).map_err(|e| io_err("remove", &target, e))?;
                prune_empty_parents(out, &rel);
            }
        }
    }
    let dirs: BTreeSet<PathBuf> = entries
        .iter()
        .filter_map(|e| rel_path(out, e.path()).parent().map(Path::to_path_buf))
        .collect();
    for d in dirs.iter().filter(|d| d.exists()) {
        fsync_dir(d)?;
    }
    Ok(())
}

/// How the planned files compare with OUT.
#[derive(Debug, Default)]
pub struct Changes {
    /// (path, an older file exists) for every file whose bytes differ.
    pub writes: Vec<(String, bool)>,
    pub unchanged: Vec<String>,
    /// Files of the previous lock that are not produced any more and still exist.
    pub removes: Vec<String>,
}

/// Compare `planned` with OUT. A planned path that exists with other content and is
/// not in the previous lock is someone else's file: an error, never overwritten.
pub fn classify(out: &Path, planned: &BTreeMap<String, String>, prev: &[Owned]) -> Result<Changes> {
    let prev_set: BTreeSet<&str> = prev.iter().map(|o| o.path.as_str()).collect();
    let mut c = Changes::default();
    for (p, content) in planned {
        check_no_symlink(out, p)?;
        let full = rel_path(out, p);
        match fs::symlink_metadata(&full) {
            Err(_) => c.writes.push((p.clone(), false)),
            Ok(m) if m.is_dir() => {
                return Err(Error::new(format!(
                    "{} is a directory, but capi-render has to write a file there",
                    full.display()
                )))
            }
            Ok(_) => {
                // Never more than the planned size plus one byte: OUT is untrusted, and a
                // longer file differs anyway.
                let cur = fs::File::open(&full)
                    .and_then(|f| crate::limits::read_bounded(f, content.len() as u64))
                    .map_err(|e| io_err("read", &full, e))?;
                if cur.as_deref() == Some(content.as_bytes()) {
                    c.unchanged.push(p.clone());
                } else if prev_set.contains(p.as_str()) || p == super::lock::FILE {
                    c.writes.push((p.clone(), true));
                } else {
                    return Err(Error::new(format!(
                        "{} exists and capi-render did not write it (it is not listed in {}); move it away or delete it",
                        full.display(),
                        super::lock::FILE
                    )));
                }
            }
        }
    }
    for o in prev {
        if !planned.contains_key(&o.path) && still_as_written(out, o)? {
            c.removes.push(o.path.clone());
        }
    }
    Ok(c)
}

/// Whether a file the lock lists is in OUT as a regular file with the bytes the lock
/// recorded: `Ok(false)` when it is gone (or not a regular file), an error when its
/// bytes changed. A file is only removed while it is exactly what capi-render wrote;
/// a lock that lists someone else's file (or a file edited since) never deletes it.
pub fn still_as_written(out: &Path, o: &Owned) -> Result<bool> {
    check_no_symlink(out, &o.path)?;
    let full = rel_path(out, &o.path);
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

/// Apply `changes` to OUT atomically (see the module doc); `planned` holds the bytes.
pub fn apply(
    out: &Path,
    planned: &BTreeMap<String, String>,
    changes: &Changes,
    hook: &mut Hook,
) -> Result<()> {
    if changes.writes.is_empty() && changes.removes.is_empty() {
        return Ok(());
    }
    let staging = out.join(STAGING);
    // Phase A: stage. Nothing in OUT's tree changes; on failure the staging goes (only
    // when this run made it).
    let mut made = false;
    let staged = stage(out, &staging, planned, changes, hook, &mut made)
        .and_then(|()| journal_entries(out, &staging, changes).map_err(Stop::Err));
    let entries = match staged {
        Ok(entries) => entries,
        Err(Stop::Crash) => return Err(Error::new("injected crash while staging")),
        Err(Stop::Err(e)) => {
            if made {
                let _ = remove_staging(&staging);
            }
            return Err(e);
        }
    };
    match commit(out, &staging, &entries, hook) {
        Ok(()) => {}
        Err(Stop::Crash) => return Err(Error::new("injected crash while committing")),
        Err(Stop::Err(e)) => {
            // Before the journal exists nothing moved; after, undo what did.
            if staging.join(JOURNAL).exists() {
                if let Err(u) = undo(out, &staging, &entries) {
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
    for p in &changes.removes {
        prune_empty_parents(out, p);
    }
    Ok(())
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

fn stage(
    out: &Path,
    staging: &Path,
    planned: &BTreeMap<String, String>,
    changes: &Changes,
    hook: &mut Hook,
    made: &mut bool,
) -> std::result::Result<(), Stop> {
    step(hook, Step::Begin)?;
    fs::create_dir(staging).map_err(|e| io_err("create", staging, e))?;
    *made = true;
    // The owner file names the directory, so recovery can tell it from a copy.
    let meta = fs::symlink_metadata(staging).map_err(|e| io_err("read", staging, e))?;
    write_synced(&staging.join(OWNER), owner_text(&meta).as_bytes())?;
    let new = staging.join(NEW);
    let mut dirs = BTreeSet::new();
    for (p, _) in &changes.writes {
        step(hook, Step::Stage(p.clone()))?;
        let f = rel_path(&new, p);
        write_synced(&f, planned[p].as_bytes())?;
        let mut d = f.parent().map(Path::to_path_buf);
        while let Some(x) = d {
            if !dirs.insert(x.clone()) || x == *staging {
                break;
            }
            d = x.parent().map(Path::to_path_buf);
        }
    }
    for d in &dirs {
        fsync_dir(d)?;
    }
    fsync_dir(staging)?;
    fsync_dir(out)?;
    Ok(())
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
    for e in entries {
        match e {
            Entry::Write { path, had_old, .. } => {
                let target = rel_path(out, path);
                if *had_old {
                    step(hook, Step::Backup(path.clone()))?;
                    rename(&target, &rel_path(&old, path))?;
                }
                step(hook, Step::Place(path.clone()))?;
                rename(&rel_path(&new, path), &target)?;
                if let Some(d) = target.parent() {
                    dirs.insert(d.to_path_buf());
                }
            }
            Entry::Remove { path, .. } => {
                step(hook, Step::Remove(path.clone()))?;
                let target = rel_path(out, path);
                rename(&target, &rel_path(&old, path))?;
                if let Some(d) = target.parent() {
                    dirs.insert(d.to_path_buf());
                }
            }
        }
    }
    for d in &dirs {
        fsync_dir(d)?;
    }
    step(hook, Step::Commit)?;
    let j = staging.join(JOURNAL);
    fs::remove_file(&j).map_err(|e| io_err("remove", &j, e))?;
    // The new tree is final from here on; a failed sync cannot be undone any more.
    let _ = fsync_dir(staging);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_round_trip_and_validation() {
        let es = vec![
            Entry::Write {
                path: "a/b.yaml".into(),
                had_old: true,
                new_ino: 7,
                old_ino: 9,
            },
            Entry::Remove {
                path: "c.yaml".into(),
                old_ino: 11,
            },
            Entry::Write {
                path: "capi-render.lock".into(),
                had_old: false,
                new_ino: 12,
                old_ino: 0,
            },
        ];
        let p = Path::new("OUT/.capi-render.staging/journal");
        assert_eq!(parse_journal(&journal_text(&es), p).unwrap(), es);
        for bad in [
            "capi-render journal 2\nW 1 1 2 ../x\n",
            "capi-render journal 2\nR 1 /etc/passwd\n",
            "capi-render journal 2\nX a\n",
            "capi-render journal 2\nW 2 1 2 a\n",
            "capi-render journal 2\nW 0 a\n",
            "capi-render journal 2\nW 0 x 0 a\n",
            "capi-render journal 2\nR 1 .capi-render.staging/old/a\n",
            "capi-render journal 2\nR 1 a\0b\n",
            // The old format carries no inodes: it cannot be verified.
            "capi-render journal 1\nW 0 README.md\n",
            "something else\n",
        ] {
            assert!(parse_journal(bad, p).is_err(), "{bad}");
        }
    }
}
