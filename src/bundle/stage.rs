//! Writing a bundle without leaving anything partial: every file is written into a
//! staging directory beside the destination, which is renamed into place only when
//! complete. An existing destination is never overwritten or merged into.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::sums::{check_relative, format_sums, SUMS_FILE};
use crate::error::{Error, Result};

/// Bundle files: bundle-relative `/` path → bytes.
pub type Tree = BTreeMap<String, Vec<u8>>;

/// Add `SHA256SUMS` over `files` and write them all to `out` (which must not exist).
pub fn write_bundle(out: &Path, mut files: Tree) -> Result<()> {
    files.remove(SUMS_FILE);
    for p in files.keys() {
        check_relative(p)?;
    }
    let sums = format_sums(&files);
    files.insert(SUMS_FILE.to_string(), sums.into_bytes());
    if out.symlink_metadata().is_ok() {
        return Err(Error::new(format!(
            "{} already exists; choose a new output directory",
            out.display()
        )));
    }
    let stage = staging_dir(out)?;
    let res = write_all(&stage, &files).and_then(|_| {
        std::fs::rename(&stage, out).map_err(|e| {
            Error::new(format!(
                "cannot move {} to {}: {e}",
                stage.display(),
                out.display()
            ))
        })
    });
    if res.is_err() {
        let _ = std::fs::remove_dir_all(&stage);
    }
    res
}

/// `<parent>/.<name>.partial-<pid>`: same filesystem as `out`, so the rename is atomic.
fn staging_dir(out: &Path) -> Result<PathBuf> {
    let name = out
        .file_name()
        .ok_or_else(|| Error::new(format!("{}: not a directory name", out.display())))?;
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        return Err(Error::new(format!(
            "{}: parent directory does not exist",
            out.display()
        )));
    }
    let stage = parent.join(format!(
        ".{}.partial-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    if stage.symlink_metadata().is_ok() {
        std::fs::remove_dir_all(&stage)
            .map_err(|e| Error::new(format!("cannot clear {}: {e}", stage.display())))?;
    }
    std::fs::create_dir(&stage)
        .map_err(|e| Error::new(format!("cannot create {}: {e}", stage.display())))?;
    Ok(stage)
}

fn write_all(root: &Path, files: &Tree) -> Result<()> {
    for (rel, bytes) in files {
        let p = root.join(rel);
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::new(format!("cannot create {}: {e}", dir.display())))?;
        }
        std::fs::write(&p, bytes)
            .map_err(|e| Error::new(format!("cannot write {}: {e}", p.display())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("capi-bundle-stage-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn writes_files_and_sums_then_refuses_to_overwrite() {
        let d = tmp("write");
        let out = d.join("b");
        let mut t = Tree::new();
        t.insert("x/y.txt".into(), b"y".to_vec());
        write_bundle(&out, t.clone()).unwrap();
        assert_eq!(std::fs::read(out.join("x/y.txt")).unwrap(), b"y");
        let sums = std::fs::read_to_string(out.join(SUMS_FILE)).unwrap();
        assert!(sums.ends_with("  x/y.txt\n"), "{sums}");
        let e = write_bundle(&out, t).unwrap_err();
        assert!(e.message().contains("already exists"), "{e}");
        // Nothing left behind but the bundle itself.
        let names: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("b")]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn escaping_paths_are_rejected_before_writing() {
        let d = tmp("escape");
        let out = d.join("b");
        let mut t = Tree::new();
        t.insert("../evil".into(), b"x".to_vec());
        assert!(write_bundle(&out, t).is_err());
        assert!(!out.exists());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
