//! The journal of the tree writer ([`super::writer`]) and recovery from it: the
//! staging directory's layout, the journal's format, and the undo that brings OUT back
//! to the previous tree after an interrupted run (see the module documentation of
//! `gitops` for the protocol).
//!
//! Recovery trusts only what it can verify, because OUT's contents are untrusted (a
//! staging directory can be committed to Git): the staging directory must be a real
//! directory whose `owner` file records its own device and inode (a checked-out or
//! copied directory has other ones), every journal path stays inside OUT, and every
//! file it moves or deletes must be a regular file with the inode the journal recorded
//! for it when the run created or moved it. Anything else stops recovery before it
//! changes a byte, with a message naming the staging directory.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::paths::{check_no_symlink, is_safe_relative};

/// The staging directory's name inside OUT.
pub const STAGING: &str = ".capi-render.staging";
pub(super) const JOURNAL: &str = "journal";
pub(super) const JOURNAL_TMP: &str = "journal.tmp";
const JOURNAL_HEADER: &str = "capi-render journal 2";
pub(super) const OWNER: &str = "owner";
pub(super) const NEW: &str = "new";
pub(super) const OLD: &str = "old";

pub(super) fn io_err(what: &str, p: &Path, e: std::io::Error) -> Error {
    Error::new(format!("failed to {what} {}: {e}", p.display()))
}

pub(super) fn fsync_dir(p: &Path) -> Result<()> {
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

/// Remove the empty directories between `rel`'s parent and OUT (never OUT itself).
pub(super) fn prune_empty_parents(out: &Path, rel: &str) {
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

pub(super) fn rel_path(base: &Path, rel: &str) -> PathBuf {
    rel.split('/').fold(base.to_path_buf(), |p, s| p.join(s))
}

fn rename(from: &Path, to: &Path) -> Result<()> {
    if let Some(d) = to.parent() {
        fs::create_dir_all(d).map_err(|e| io_err("create directory", d, e))?;
    }
    move_file(from, to)
}

/// `rename(2)` into an existing directory.
pub(super) fn move_file(from: &Path, to: &Path) -> Result<()> {
    fs::rename(from, to).map_err(|e| {
        Error::new(format!(
            "failed to rename {} to {}: {e}",
            from.display(),
            to.display()
        ))
    })
}

/// One journal entry. Inodes identify the files this run moves: a file placed from
/// `new/` keeps its inode (`new_ino`), a backed-up or removed one too (`old_ino`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Entry {
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
    pub(super) fn path(&self) -> &str {
        match self {
            Entry::Write { path, .. } | Entry::Remove { path, .. } => path,
        }
    }
}

pub(super) fn journal_text(entries: &[Entry]) -> String {
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
pub(super) fn identity(m: &fs::Metadata) -> (u64, u64) {
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

pub(super) fn owner_text(m: &fs::Metadata) -> String {
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
pub(super) fn remove_staging(staging: &Path) -> Result<()> {
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
pub(super) fn undo(out: &Path, staging: &Path, entries: &[Entry]) -> Result<()> {
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
