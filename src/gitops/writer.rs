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

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::names::is_safe_relative;
use crate::error::{Error, Result};

/// The staging directory's name inside OUT.
pub const STAGING: &str = ".capi-render.staging";
const JOURNAL: &str = "journal";
const JOURNAL_TMP: &str = "journal.tmp";
const JOURNAL_HEADER: &str = "capi-render journal 1";
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

/// Refuse paths that would lead outside OUT through a symbolic link: no existing
/// component of `rel` below OUT may be a symlink.
pub fn check_no_symlink(out: &Path, rel: &str) -> Result<()> {
    let mut p = out.to_path_buf();
    for seg in rel.split('/') {
        p.push(seg);
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::new(format!(
                    "{} is a symbolic link; capi-render does not write through links",
                    p.display()
                )))
            }
            Ok(_) => {}
            Err(_) => return Ok(()),
        }
    }
    Ok(())
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

/// One journal entry.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Write { path: String, had_old: bool },
    Remove { path: String },
}

fn journal_text(entries: &[Entry]) -> String {
    let mut s = format!("{JOURNAL_HEADER}\n");
    for e in entries {
        match e {
            Entry::Write { path, had_old } => {
                s.push_str(&format!("W {} {path}\n", u8::from(*had_old)))
            }
            Entry::Remove { path } => s.push_str(&format!("R {path}\n")),
        }
    }
    s
}

fn parse_journal(text: &str, shown: &Path) -> Result<Vec<Entry>> {
    let bad = |l: &str| {
        Error::new(format!(
            "{}: unreadable line {l:?}; the previous run was interrupted and its journal is damaged, inspect {} by hand",
            shown.display(),
            shown.parent().unwrap_or(shown).display()
        ))
    };
    let mut lines = text.lines();
    if lines.next() != Some(JOURNAL_HEADER) {
        return Err(bad(text.lines().next().unwrap_or("")));
    }
    let mut out = Vec::new();
    for l in lines {
        let e = match l.split_once(' ') {
            Some(("W", rest)) => match rest.split_once(' ') {
                Some(("0", p)) => Entry::Write {
                    path: p.into(),
                    had_old: false,
                },
                Some(("1", p)) => Entry::Write {
                    path: p.into(),
                    had_old: true,
                },
                _ => return Err(bad(l)),
            },
            Some(("R", p)) => Entry::Remove { path: p.into() },
            _ => return Err(bad(l)),
        };
        let p = match &e {
            Entry::Write { path, .. } | Entry::Remove { path } => path,
        };
        if !is_safe_relative(p) || p.split('/').next() == Some(STAGING) {
            return Err(bad(l));
        }
        out.push(e);
    }
    Ok(out)
}

/// Whether OUT holds the journal of an interrupted commit.
pub fn interrupted(out: &Path) -> bool {
    out.join(STAGING).join(JOURNAL).exists()
}

/// Bring OUT back to a complete tree after an interrupted run (see the module doc).
/// Returns whether anything was there to recover.
pub fn recover(out: &Path) -> Result<bool> {
    let staging = out.join(STAGING);
    match fs::symlink_metadata(&staging) {
        Err(_) => return Ok(false),
        Ok(m) if !m.is_dir() => {
            return Err(Error::new(format!(
                "{} is not a directory capi-render made; remove it",
                staging.display()
            )))
        }
        Ok(_) => {}
    }
    let journal = staging.join(JOURNAL);
    if journal.exists() {
        let text = fs::read_to_string(&journal).map_err(|e| io_err("read", &journal, e))?;
        let entries = parse_journal(&text, &journal)?;
        undo(out, &staging, &entries)?;
    }
    fs::remove_dir_all(&staging).map_err(|e| io_err("remove", &staging, e))?;
    fsync_dir(out)?;
    Ok(true)
}

/// Undo journal entries in reverse order, from `old/` (backups) and `new/` (what was
/// not placed yet).
fn undo(out: &Path, staging: &Path, entries: &[Entry]) -> Result<()> {
    let old = staging.join(OLD);
    let new = staging.join(NEW);
    for e in entries.iter().rev() {
        match e {
            Entry::Write { path, had_old } => {
                check_no_symlink(out, path)?;
                let backup = rel_path(&old, path);
                if *had_old {
                    if backup.exists() {
                        rename(&backup, &rel_path(out, path))?;
                    }
                } else if !rel_path(&new, path).exists() {
                    let placed = rel_path(out, path);
                    if placed.exists() {
                        fs::remove_file(&placed).map_err(|e| io_err("remove", &placed, e))?;
                    }
                    prune_empty_parents(out, path);
                }
            }
            Entry::Remove { path } => {
                check_no_symlink(out, path)?;
                let backup = rel_path(&old, path);
                if backup.exists() {
                    rename(&backup, &rel_path(out, path))?;
                }
            }
        }
    }
    let dirs: BTreeSet<PathBuf> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::Write { path, .. } | Entry::Remove { path } => {
                rel_path(out, path).parent().map(Path::to_path_buf)
            }
        })
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
pub fn classify(
    out: &Path,
    planned: &BTreeMap<String, String>,
    prev: &[String],
) -> Result<Changes> {
    let prev_set: BTreeSet<&str> = prev.iter().map(String::as_str).collect();
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
                let cur = fs::read(&full).map_err(|e| io_err("read", &full, e))?;
                if cur == content.as_bytes() {
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
    for p in prev {
        if planned.contains_key(p) {
            continue;
        }
        check_no_symlink(out, p)?;
        let full = rel_path(out, p);
        if matches!(fs::symlink_metadata(&full), Ok(m) if m.is_file()) {
            c.removes.push(p.clone());
        }
    }
    Ok(c)
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
    // Phase A: stage. Nothing in OUT's tree changes; on failure the staging goes.
    if let Err(stop) = stage(out, &staging, planned, changes, hook) {
        return match stop {
            Stop::Crash => Err(Error::new("injected crash while staging")),
            Stop::Err(e) => {
                let _ = fs::remove_dir_all(&staging);
                Err(e)
            }
        };
    }
    // The journal: lock last.
    let lock = super::lock::FILE;
    let mut entries: Vec<Entry> = changes
        .writes
        .iter()
        .filter(|(p, _)| p != lock)
        .map(|(p, h)| Entry::Write {
            path: p.clone(),
            had_old: *h,
        })
        .collect();
    entries.extend(
        changes
            .removes
            .iter()
            .map(|p| Entry::Remove { path: p.clone() }),
    );
    entries.extend(
        changes
            .writes
            .iter()
            .filter(|(p, _)| p == lock)
            .map(|(p, h)| Entry::Write {
                path: p.clone(),
                had_old: *h,
            }),
    );
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
            let _ = fs::remove_dir_all(&staging);
            return Err(e);
        }
    }
    // Cleanup: the new tree is final; leftovers are removed by the next run's recovery.
    let _ = fs::remove_dir_all(&staging);
    for p in &changes.removes {
        prune_empty_parents(out, p);
    }
    Ok(())
}

fn stage(
    out: &Path,
    staging: &Path,
    planned: &BTreeMap<String, String>,
    changes: &Changes,
    hook: &mut Hook,
) -> std::result::Result<(), Stop> {
    step(hook, Step::Begin)?;
    fs::create_dir(staging).map_err(|e| io_err("create", staging, e))?;
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
            Entry::Write { path, had_old } => {
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
            Entry::Remove { path } => {
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
            },
            Entry::Remove {
                path: "c.yaml".into(),
            },
            Entry::Write {
                path: "capi-render.lock".into(),
                had_old: false,
            },
        ];
        let p = Path::new("OUT/.capi-render.staging/journal");
        assert_eq!(parse_journal(&journal_text(&es), p).unwrap(), es);
        for bad in [
            "capi-render journal 1\nW 1 ../x\n",
            "capi-render journal 1\nR /etc/passwd\n",
            "capi-render journal 1\nX a\n",
            "capi-render journal 1\nW 2 a\n",
            "capi-render journal 1\nR .capi-render.staging/old/a\n",
            "something else\n",
        ] {
            assert!(parse_journal(bad, p).is_err(), "{bad}");
        }
    }
}
