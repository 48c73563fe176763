//! `--check`: compare the planned tree with OUT, without writing, and describe every
//! changed, added or removed file as a unified diff with Secret values masked.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use similar::TextDiff;

use super::lock::Owned;
use super::mask::mask_pair;
use super::writer::check_no_symlink;
use crate::error::{Error, Result};

/// Result of `--check`: an empty `changed` means the tree is up to date.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckReport {
    /// Unified diffs, one per changed/added/removed file, secrets masked.
    pub diff: String,
    /// The paths that differ, sorted.
    pub changed: Vec<String>,
    /// The same paths with what happens to each (for `--output-format json`).
    pub files: Vec<FileChange>,
    /// The changes `render -o` would refuse (a template spec changed under its name),
    /// one message each.
    pub refused: Vec<String>,
}

/// What a change does to a file (or a unit): it appears, disappears or differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Added,
    Removed,
    Changed,
}

impl Change {
    /// `added`, `removed` or `changed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        }
    }

    /// The change from `old` to `new` (`None` = absent on that side; both present = changed).
    pub fn between<A, B>(old: Option<A>, new: Option<B>) -> Change {
        match (old.is_some(), new.is_some()) {
            (false, true) => Change::Added,
            (true, false) => Change::Removed,
            _ => Change::Changed,
        }
    }
}

/// One changed file: its path (relative to the tree's root) and what changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub change: Change,
}

/// One file's unified diff (`None` = absent on that side), as git shows it.
pub fn file_diff(path: &str, old: Option<&str>, new: Option<&str>) -> String {
    let (o, n) = mask_pair(old, new);
    let a = if o.is_some() {
        format!("a/{path}")
    } else {
        "/dev/null".into()
    };
    let b = if n.is_some() {
        format!("b/{path}")
    } else {
        "/dev/null".into()
    };
    let (o, n) = (o.unwrap_or_default(), n.unwrap_or_default());
    let mut s = TextDiff::from_lines(&o, &n)
        .unified_diff()
        .context_radius(3)
        .header(&a, &b)
        .to_string();
    if s.is_empty() {
        // Same text after masking (only a masked value changed): say so.
        s = format!("--- {a}\n+++ {b}\n@@ masked Secret values differ @@\n");
    }
    s
}

fn read_existing(out: &Path, rel: &str) -> Result<Option<String>> {
    check_no_symlink(out, rel)?;
    let full = rel.split('/').fold(out.to_path_buf(), |p, s| p.join(s));
    match fs::symlink_metadata(&full) {
        Err(_) => Ok(None),
        Ok(m) if m.is_dir() => Ok(Some(format!("# capi-render: {rel} is a directory\n"))),
        Ok(_) => {
            let shown = full.display().to_string();
            // Our own lock is read up to the larger of the file limit and what a lock
            // may be (as `render -o` reads it): a 100,000-Cluster lock is over 200 MB.
            let mut limit = crate::limits::Limits::current().file_bytes;
            if rel == super::lock::FILE {
                limit = limit.max(super::LOCK_READ_BYTES);
            }
            let b = crate::limits::read_file_within(&full, &shown, limit, |e| {
                Error::new(format!("failed to read {shown}: {e}"))
            })?;
            Ok(Some(String::from_utf8_lossy(&b).into_owned()))
        }
    }
}

/// Whether OUT holds exactly `want` at `rel` (reading at most its size plus one byte,
/// in pieces: a 250 MB lock is not held twice).
fn same_bytes(out: &Path, rel: &str, want: &[u8]) -> Result<bool> {
    check_no_symlink(out, rel)?;
    let full = rel.split('/').fold(out.to_path_buf(), |p, s| p.join(s));
    match fs::symlink_metadata(&full) {
        Ok(m) if m.is_file() && m.len() == want.len() as u64 => fs::File::open(&full)
            .and_then(|f| super::writer::same_bytes(f, want))
            .map_err(|e| Error::new(format!("failed to read {}: {e}", full.display()))),
        _ => Ok(false),
    }
}

/// `--check` file by file as the tree is laid out: only the files that differ are
/// kept (with both texts) until [`Checker::finish`] writes the report in path order.
pub struct Checker<'a> {
    out: &'a Path,
    prev: &'a [Owned<'a>],
    planned: rustc_hash::FxHashSet<String>,
    kept_dirs: rustc_hash::FxHashSet<String>,
    differ: Vec<(String, Option<String>, Option<String>)>,
}

impl<'a> Checker<'a> {
    /// `prev`: the outputs of OUT's current lock (files that would be removed when
    /// not planned).
    pub fn new(out: &'a Path, prev: &'a [Owned<'a>]) -> Self {
        Checker {
            out,
            prev,
            planned: Default::default(),
            kept_dirs: Default::default(),
            differ: Vec::new(),
        }
    }

    /// A unit known to be in place (kept): its files (every previous output under
    /// `dir`) are up to date.
    pub fn kept_unit(&mut self, dir: &str) {
        self.kept_dirs.insert(dir.to_string());
    }

    /// A planned file known to be in OUT byte for byte.
    pub fn same(&mut self, p: String) -> Result<()> {
        self.planned.insert(p);
        Ok(())
    }

    /// Compare one planned file with OUT.
    pub fn file(&mut self, p: String, want: String) -> Result<()> {
        if same_bytes(self.out, &p, want.as_bytes())? {
            self.planned.insert(p);
            return Ok(());
        }
        let cur = read_existing(self.out, &p)?;
        if cur.as_deref() != Some(want.as_str()) {
            self.differ.push((p.clone(), cur, Some(want)));
        }
        self.planned.insert(p);
        Ok(())
    }

    /// Every planned file was given: add what `render -o` would remove, and report.
    pub fn finish(mut self) -> Result<CheckReport> {
        let kept_dirs = std::mem::take(&mut self.kept_dirs);
        // What `render -o` would remove; it refuses a file whose bytes changed, and so
        // does the check. A kept unit's files (1.5 million at 100,000 Clusters) are never
        // looked up among the planned paths.
        let planned = &self.planned;
        let left = super::keep::outside_kept_dirs(self.prev, &kept_dirs, &|p| planned.contains(p));
        for o in left {
            if super::writer::still_as_written(self.out, o)? {
                if let Some(cur) = read_existing(self.out, o.path)? {
                    self.differ.push((o.path.to_string(), Some(cur), None));
                }
            }
        }
        self.differ.sort_by(|a, b| a.0.cmp(&b.0));
        self.differ.dedup_by(|a, b| a.0 == b.0);
        let mut rep = CheckReport::default();
        for (p, cur, want) in self.differ {
            if let (Some(c), Some(w)) = (&cur, &want) {
                if let Err(e) = super::immutable::check(&p, &p, c.as_bytes(), w.as_bytes()) {
                    rep.refused.push(e.message().to_string());
                }
            }
            rep.diff
                .push_str(&file_diff(&p, cur.as_deref(), want.as_deref()));
            rep.files.push(FileChange {
                path: p.clone(),
                change: Change::between(cur.as_deref(), want.as_deref()),
            });
            rep.changed.push(p);
        }
        Ok(rep)
    }
}

/// Compare `planned` (every file including the lock) with OUT; `prev` are the outputs
/// of OUT's current lock (files that would be removed when not planned).
pub fn compare(
    out: &Path,
    planned: &BTreeMap<String, String>,
    prev: &[Owned<'_>],
) -> Result<CheckReport> {
    let mut c = Checker::new(out, prev);
    for (p, t) in planned {
        c.file(p.clone(), t.clone())?;
    }
    c.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_have_git_headers() {
        let d = file_diff("a.yaml", Some("x: 1\n"), Some("x: 2\n"));
        assert!(
            d.starts_with("--- a/a.yaml\n+++ b/a.yaml\n@@ -1 +1 @@\n-x: 1\n+x: 2\n"),
            "{d}"
        );
        let d = file_diff("n.yaml", None, Some("x: 1\n"));
        assert!(d.starts_with("--- /dev/null\n+++ b/n.yaml\n"), "{d}");
        let d = file_diff("r.yaml", Some("x: 1\n"), None);
        assert!(d.starts_with("--- a/r.yaml\n+++ /dev/null\n"), "{d}");
    }

    #[test]
    fn a_masked_only_change_is_still_reported() {
        let a = "kind: Secret\nmetadata:\n  name: s\nstringData:\n  k: one\n";
        let b = a.replace("one", "two");
        let d = file_diff("s.yaml", Some(a), Some(&b));
        assert!(
            d.contains("-  k: <masked>\n+  k: '<masked: changed>'\n"),
            "{d}"
        );
        assert!(!d.contains("one") && !d.contains("two"), "{d}");
    }
}
