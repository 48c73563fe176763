//! The Git work tree that holds OUT, found as git finds it: the nearest ancestor of
//! OUT's absolute, lexically normalised path with a `.git` directory, or a `.git` file
//! starting with `gitdir:` (a linked worktree or a submodule). Flux and Argo CD paths
//! are written relative to it, so a tree is the same from any working directory and for
//! any spelling of OUT (`./capi/rendered`, `capi/../capi/rendered/`).

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// `p` made absolute (against the working directory) and normalised lexically: `.`
/// dropped, `..` removing the segment before it, links not followed.
pub fn normalised(p: &Path) -> Result<PathBuf> {
    let abs = std::path::absolute(p).map_err(|e| {
        Error::new(format!(
            "{}: cannot make the path absolute: {e}; run from an existing directory",
            p.display()
        ))
    })?;
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Ok(out)
}

/// Whether `dir` holds a `.git` that makes it the root of a work tree: a directory,
/// or a regular file whose text starts with `gitdir:` (only its first bytes are read).
pub fn is_work_tree_root(dir: &Path) -> bool {
    let git = dir.join(".git");
    match std::fs::metadata(&git) {
        Ok(m) if m.is_dir() => true,
        Ok(m) if m.is_file() => {
            let mut head = [0u8; 7];
            std::fs::File::open(&git)
                .and_then(|mut f| f.read_exact(&mut head))
                .is_ok_and(|()| &head == b"gitdir:")
        }
        _ => false,
    }
}

/// The root of the Git work tree holding `out` (which need not exist yet), `None`
/// outside one.
pub fn work_tree_root(out: &Path) -> Result<Option<PathBuf>> {
    let abs = normalised(out)?;
    Ok(abs
        .ancestors()
        .find(|a| is_work_tree_root(a))
        .map(Path::to_path_buf))
}

/// `path` (absolute, normalised) relative to `root`, segments joined with `/`; `.` for
/// the root itself; `None` when it is not below `root`.
pub fn relative_in(path: &Path, root: &Path) -> Option<String> {
    let rest = path.strip_prefix(root).ok()?;
    let segs: Vec<String> = rest
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(if segs.is_empty() {
        ".".to_string()
    } else {
        segs.join("/")
    })
}

/// OUT's path inside the Git work tree that holds it (`.` for the root), `None`
/// outside a work tree.
pub fn path_in_repository(out: &Path) -> Result<Option<String>> {
    let Some(root) = work_tree_root(out)? else {
        return Ok(None);
    };
    Ok(relative_in(&normalised(out)?, &root))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("capi-render-repo-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    #[test]
    fn normalised_resolves_dots_lexically() {
        let n = normalised(Path::new("/a/./b/../c/")).unwrap();
        assert_eq!(n, PathBuf::from("/a/c"));
        assert_eq!(normalised(Path::new("/..")).unwrap(), PathBuf::from("/"));
        assert!(normalised(Path::new("x")).unwrap().is_absolute());
    }

    #[test]
    fn relative_in_the_root() {
        let r = Path::new("/r");
        assert_eq!(
            relative_in(Path::new("/r/capi/out"), r).as_deref(),
            Some("capi/out")
        );
        assert_eq!(relative_in(Path::new("/r"), r).as_deref(), Some("."));
        assert_eq!(relative_in(Path::new("/rx/a"), r), None);
    }

    #[test]
    fn finds_a_git_directory_or_a_gitdir_file() {
        let base = scratch("find");
        let repo = base.join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let out = repo.join("capi/./x/../rendered/");
        assert_eq!(work_tree_root(&out).unwrap(), Some(repo.clone()));
        assert_eq!(
            path_in_repository(&out).unwrap().as_deref(),
            Some("capi/rendered")
        );
        assert_eq!(path_in_repository(&repo).unwrap().as_deref(), Some("."));
        // A worktree: `.git` is a file naming the git directory; it is the nearer root.
        let wt = repo.join("sub");
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::write(wt.join(".git"), "gitdir: ../.git/worktrees/sub\n").unwrap();
        assert_eq!(
            path_in_repository(&wt.join("o")).unwrap().as_deref(),
            Some("o")
        );
        // Any other `.git` file is not a work tree's.
        std::fs::write(wt.join(".git"), "not git\n").unwrap();
        assert_eq!(
            path_in_repository(&wt.join("o")).unwrap().as_deref(),
            Some("sub/o")
        );
        let outside = base.join("plain/out");
        if work_tree_root(&base).unwrap().is_none() {
            assert_eq!(path_in_repository(&outside).unwrap(), None);
        }
        let _ = std::fs::remove_dir_all(&base);
    }
}
