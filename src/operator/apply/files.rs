//! The edits of `upgrade apply` in the provider CR files: only the bytes of each
//! `spec.version` scalar change (comments, quoting style, indentation, line endings and
//! the other documents stay as they are), found by [`crate::yaml::locate`]. Every edited
//! file is parsed again and must give the same objects with only `spec.version` changed,
//! so an edit the scanner would get wrong is refused, never written. [`write`] replaces
//! the files atomically, each by a rename from a temporary file beside it, after all of
//! them are staged.

use std::fs;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::Edit;
use crate::error::{Error, Result};
use crate::model::{sha256_hex, InputFile, InputObject};
use crate::yaml::locate::{locate, write_scalar, Locate};
use crate::yaml::split::document_spans;

/// One file's new text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdit {
    /// As the input named it.
    pub path: String,
    pub before: String,
    pub after: String,
    /// Its moves, by document.
    pub edits: Vec<Edit>,
}

fn read(path: &str) -> Result<String> {
    crate::limits::read_text(Path::new(path), path, |e| {
        Error::new(format!("cannot read {path}: {e}")).in_file(path)
    })
}

fn cannot_edit(e: &Edit, why: impl std::fmt::Display) -> Error {
    Error::new(format!(
        "{} ({}): spec.version: cannot change {} to {} in place: {why}",
        e.provider, e.origin, e.from, e.to
    ))
    .in_file(&e.origin.file)
    .with_hint(format!(
        "write `spec:` as a block mapping with `version: {}` on a line of its own, then run again",
        e.from
    ))
}

/// The new text of every file with an edit, in the order of the files. `files` are the
/// loaded files (their sums), `objects` what was parsed from them: a file that changed
/// since, or an edit that would change anything but `spec.version`, is an error.
pub fn edit_files(
    edits: &[Edit],
    files: &[InputFile],
    objects: &[InputObject],
) -> Result<Vec<FileEdit>> {
    let mut out = Vec::new();
    for f in files {
        let mut mine: Vec<Edit> = edits
            .iter()
            .filter(|e| e.origin.file == f.path)
            .cloned()
            .collect();
        if mine.is_empty() {
            continue;
        }
        mine.sort_by_key(|e| e.origin.doc);
        let before = read(&f.path)?;
        if sha256_hex(before.as_bytes()) != f.sha256 {
            return Err(changed(&f.path));
        }
        let spans = document_spans(&before).map_err(|e| e.wrap(&f.path).in_file(&f.path))?;
        let mut after = before.clone();
        // From the last document back, so that earlier offsets stay valid.
        for e in mine.iter().rev() {
            let span = spans
                .get(e.origin.doc)
                .cloned()
                .ok_or_else(|| cannot_edit(e, "the document is not in the file"))?;
            let (at, text) = match locate(&before[span.clone()], "spec", "version", &e.to) {
                Locate::Found { span: s, style } if s.is_empty() => {
                    (s, format!(" {}", write_scalar(&e.to, style)))
                }
                Locate::Found { span: s, style } => (s, write_scalar(&e.to, style)),
                Locate::Insert { at, text } => (at..at, text),
                Locate::Unsupported(why) => return Err(cannot_edit(e, why)),
            };
            after.replace_range(span.start + at.start..span.start + at.end, &text);
        }
        verify(&f.path, &after, &mine, objects)?;
        out.push(FileEdit {
            path: f.path.clone(),
            before,
            after,
            edits: mine,
        });
    }
    Ok(out)
}

fn changed(path: &str) -> Error {
    Error::new(format!(
        "{path}: the file changed since it was read; nothing was written"
    ))
    .in_file(path)
    .with_hint("run the command again")
}

/// The edited text must parse to the loaded objects with only `spec.version` changed.
fn verify(path: &str, after: &str, edits: &[Edit], objects: &[InputObject]) -> Result<()> {
    let misread = |e: &Edit| {
        cannot_edit(
            e,
            "the edited file does not read back as the same objects with only spec.version changed",
        )
    };
    let first = &edits[0];
    let got = crate::load::parse_file(path, after).map_err(|_| misread(first))?;
    let want: Vec<&InputObject> = objects.iter().filter(|o| o.file == path).collect();
    if got.len() != want.len() {
        return Err(misread(first));
    }
    for (g, w) in got.iter().zip(want) {
        let mut expect = w.value.clone();
        let edit = edits.iter().find(|e| e.origin.doc == w.doc);
        if let Some(e) = edit {
            match expect.get_mut("spec").filter(|s| s.is_object()) {
                Some(spec) => spec["version"] = json!(e.to),
                None => expect["spec"] = json!({"version": e.to}),
            }
        }
        if g.doc != w.doc || g.value != expect {
            return Err(misread(edit.unwrap_or(first)));
        }
    }
    Ok(())
}

/// Line `i`'s start offsets in `text` (a line holds its terminator).
fn line_starts(text: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    if v.last() == Some(&text.len()) {
        v.pop();
    }
    v
}

impl FileEdit {
    /// A unified diff of the file (`--- a/PATH`, `+++ b/PATH`) that `git apply` takes,
    /// its context taken only from the edited documents and their separator lines:
    /// another document of the file (a Secret beside the providers) never shows.
    pub fn diff(&self) -> String {
        let old: Vec<&str> = self.before.split_inclusive('\n').collect();
        let new: Vec<&str> = self.after.split_inclusive('\n').collect();
        let starts = line_starts(&self.before);
        let line_of = |b: usize| starts.partition_point(|&s| s <= b).saturating_sub(1);
        // Each document with the separator lines around it (only `---`): a hunk needs
        // trailing context unless it ends the file, else `git apply` anchors it there.
        let docs: Vec<Range<usize>> = document_spans(&self.before)
            .unwrap_or_default()
            .into_iter()
            .filter(|r| !r.is_empty())
            .map(|r| line_of(r.start).saturating_sub(1)..(line_of(r.end - 1) + 2).min(old.len()))
            .collect();
        // `./` segments (from `-f .`) are dropped: `git apply` refuses them.
        let mut shown = self.path.trim_start_matches("./").to_string();
        while shown.contains("/./") {
            shown = shown.replace("/./", "/");
        }
        let mut out = format!("--- a/{shown}\n+++ b/{shown}\n");
        let diff = similar::TextDiff::from_lines(&self.before, &self.after);
        for group in diff.grouped_ops(0) {
            let (Some(a), Some(z)) = (group.first(), group.last()) else {
                continue;
            };
            let o = a.old_range().start..z.old_range().end;
            let n = a.new_range().start..z.new_range().end;
            let doc = docs
                .iter()
                .find(|d| d.start <= o.start && o.start < d.end)
                .or_else(|| docs.iter().find(|d| d.end == o.start))
                .cloned()
                .unwrap_or(o.clone());
            let pre = (o.start - doc.start.min(o.start)).min(3);
            let post = doc.end.saturating_sub(o.end).min(3);
            let (ol, nl) = (pre + o.len() + post, pre + n.len() + post);
            let at = |start: usize, len: usize| if len == 0 { start } else { start + 1 };
            out.push_str(&format!(
                "@@ -{},{ol} +{},{nl} @@\n",
                at(o.start - pre, ol),
                at(n.start - pre, nl)
            ));
            let mut line = |mark: char, l: &str| {
                out.push(mark);
                out.push_str(l);
                if !l.ends_with('\n') {
                    out.push_str("\n\\ No newline at end of file\n");
                }
            };
            old[o.start - pre..o.start]
                .iter()
                .for_each(|l| line(' ', l));
            old[o.clone()].iter().for_each(|l| line('-', l));
            new[n.clone()].iter().for_each(|l| line('+', l));
            old[o.end..o.end + post].iter().for_each(|l| line(' ', l));
        }
        out
    }
}

fn tmp_name(p: &Path) -> PathBuf {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    p.with_file_name(format!(".{name}.capi-render-{}.tmp", std::process::id()))
}

/// Stage one file: a new temporary file beside it with the original's permissions.
fn stage(e: &FileEdit) -> Result<PathBuf> {
    let p = Path::new(&e.path);
    let io = |what: &str, err: std::io::Error| {
        Error::new(format!(
            "{}: cannot {what}: {err}; nothing was written",
            e.path
        ))
        .in_file(&e.path)
    };
    let meta = fs::symlink_metadata(p).map_err(|err| io("read its metadata", err))?;
    if !meta.file_type().is_file() {
        return Err(Error::new(format!(
            "{}: not a regular file (a symbolic link?); nothing was written",
            e.path
        ))
        .in_file(&e.path)
        .with_hint("name the file itself with -f, not a link to it"));
    }
    if read(&e.path)? != e.before {
        return Err(changed(&e.path));
    }
    let tmp = tmp_name(p);
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|err| io(&format!("create {}", tmp.display()), err))?;
    let r = f
        .write_all(e.after.as_bytes())
        .and_then(|_| f.sync_all())
        .and_then(|_| fs::set_permissions(&tmp, meta.permissions()));
    if let Err(err) = r {
        let _ = fs::remove_file(&tmp);
        return Err(io(&format!("write {}", tmp.display()), err));
    }
    Ok(tmp)
}

/// Write every edited file, all or nothing as far as the filesystem allows: each new text
/// is staged in a temporary file in the file's own directory (permissions kept) and
/// fsynced, and only when all are staged is each renamed over its file. A file changed
/// since it was read, or a link, stops the run before any rename.
pub fn write(edits: &[FileEdit]) -> Result<()> {
    let mut staged: Vec<PathBuf> = Vec::new();
    for e in edits {
        match stage(e) {
            Ok(t) => staged.push(t),
            Err(err) => {
                staged.iter().for_each(|t| {
                    let _ = fs::remove_file(t);
                });
                return Err(err);
            }
        }
    }
    for (i, (e, tmp)) in edits.iter().zip(&staged).enumerate() {
        if let Err(err) = fs::rename(tmp, &e.path) {
            staged[i..].iter().for_each(|t| {
                let _ = fs::remove_file(t);
            });
            let done: Vec<&str> = edits[..i].iter().map(|e| e.path.as_str()).collect();
            return Err(Error::new(format!(
                "{}: cannot replace the file: {err}; already written: {}",
                e.path,
                if done.is_empty() {
                    "none".to_string()
                } else {
                    done.join(", ")
                }
            ))
            .in_file(&e.path));
        }
        if let Some(dir) = Path::new(&e.path).parent() {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            if let Ok(d) = fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operator::api::Origin;
    use serde_json::Value;

    /// The object with `spec.version` set.
    fn with_version(mut v: Value, to: &str) -> Value {
        v["spec"]["version"] = json!(to);
        v
    }

    fn edit(doc: usize, from: &str, to: &str, pinned: bool) -> Edit {
        Edit {
            provider: "CoreProvider capi-system/cluster-api".into(),
            origin: Origin {
                file: "p.yaml".into(),
                doc,
            },
            from: from.into(),
            to: to.into(),
            pinned,
        }
    }

    fn apply_text(text: &str, edits: &[Edit]) -> Result<String> {
        let dir = std::env::temp_dir().join(format!(
            "capi-render-apply-unit-{}-{}",
            std::process::id(),
            edits.len() + text.len()
        ));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.yaml").display().to_string();
        fs::write(&path, text).unwrap();
        let objects = crate::load::parse_file(&path, text).unwrap();
        let files = vec![InputFile {
            path: path.clone(),
            sha256: sha256_hex(text.as_bytes()),
        }];
        let edits: Vec<Edit> = edits
            .iter()
            .map(|e| Edit {
                origin: Origin {
                    file: path.clone(),
                    doc: e.origin.doc,
                },
                ..e.clone()
            })
            .collect();
        let r = edit_files(&edits, &files, &objects).map(|mut v| v.remove(0).after);
        let _ = fs::remove_dir_all(&dir);
        r
    }

    const TWO: &str = "# providers\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: \"v1.9.11\" # pinned\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: capi-system\nstringData:\n  token: hunter2\n";

    #[test]
    fn only_the_version_bytes_change() {
        let got = apply_text(TWO, &[edit(0, "v1.9.11", "v1.10.10", true)]).unwrap();
        assert_eq!(got, TWO.replace("\"v1.9.11\"", "\"v1.10.10\""));
        let crlf = TWO.replace('\n', "\r\n");
        let got = apply_text(&crlf, &[edit(0, "v1.9.11", "v1.10.10", true)]).unwrap();
        assert_eq!(got, crlf.replace("\"v1.9.11\"", "\"v1.10.10\""));
    }

    #[test]
    fn a_missing_version_is_inserted_and_checked() {
        let t = "kind: CoreProvider\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nmetadata:\n  name: cluster-api\n  namespace: capi-system\n";
        let got = apply_text(t, &[edit(0, "v1.11.11", "v1.11.11", false)]).unwrap();
        assert_eq!(got, format!("{t}spec:\n  version: v1.11.11\n"));
        let v = crate::load::parse_file("x", t).unwrap().remove(0).value;
        let back = crate::load::parse_file("x", &got).unwrap().remove(0).value;
        assert_eq!(back, with_version(v, "v1.11.11"));
    }

    #[test]
    fn a_misread_layout_is_refused_not_written() {
        // A tab after the colon: the scanner sees no `version` key and would insert a
        // second one; the read-back check refuses it.
        let t = "kind: CoreProvider\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version:\tv1.9.11\n";
        let e = apply_text(t, &[edit(0, "v1.9.11", "v1.10.10", true)]).unwrap_err();
        assert!(
            e.message().contains(
                "cannot change v1.9.11 to v1.10.10 in place: the edited file does not read back"
            ),
            "{e}"
        );
        let e = apply_text(
            "spec: {version: v1.9.11}\nkind: CoreProvider\n",
            &[edit(0, "v1.9.11", "v1.10.10", true)],
        )
        .unwrap_err();
        assert!(
            e.message().contains("only a block mapping is edited"),
            "{e}"
        );
        assert!(
            e.message()
                .starts_with("CoreProvider capi-system/cluster-api ("),
            "{e}"
        );
        assert!(e.message().contains(", document 1): spec.version:"), "{e}");
    }

    #[test]
    fn the_diff_keeps_to_the_edited_document() {
        let after = TWO.replace("\"v1.9.11\"", "\"v1.10.10\"");
        let fe = FileEdit {
            path: "p.yaml".into(),
            before: TWO.into(),
            after,
            edits: Vec::new(),
        };
        assert_eq!(
            fe.diff(),
            "--- a/p.yaml\n+++ b/p.yaml\n@@ -5,5 +5,5 @@\n   name: cluster-api\n   namespace: capi-system\n spec:\n-  version: \"v1.9.11\" # pinned\n+  version: \"v1.10.10\" # pinned\n ---\n"
        );
        assert!(!fe.diff().contains("hunter2"));
        // Between two other documents: the separators are the only lines shown of them.
        let before = "s: hunter2\n---\nspec:\n  version: a\n--- # next\nt: hunter3\n";
        let fe = FileEdit {
            path: "././d/./m".into(),
            before: before.into(),
            after: before.replace("version: a", "version: b"),
            edits: Vec::new(),
        };
        assert_eq!(
            fe.diff(),
            "--- a/d/m\n+++ b/d/m\n@@ -2,4 +2,4 @@\n ---\n spec:\n-  version: a\n+  version: b\n --- # next\n"
        );
        let fe = FileEdit {
            path: "q".into(),
            before: "spec:\n  version: a".into(),
            after: "spec:\n  version: b".into(),
            edits: Vec::new(),
        };
        assert_eq!(
            fe.diff(),
            "--- a/q\n+++ b/q\n@@ -1,2 +1,2 @@\n spec:\n-  version: a\n\\ No newline at end of file\n+  version: b\n\\ No newline at end of file\n"
        );
    }
}
