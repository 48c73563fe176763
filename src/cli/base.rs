//! `diff --base REV`: the base side of the same paths read from Git, without a second
//! checkout: `git archive REV -- <paths>` unpacked into a scratch directory that is
//! removed when the comparison ends.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use capi_render::Error;

/// A scratch directory removed on drop.
pub struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, Error> {
    let o = Command::new("git")
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            Error::new(format!("--base: cannot run git: {e}"))
                .with_hint("install git, or compare two trees with -f BEFORE --against AFTER")
        })?;
    if !o.status.success() {
        return Err(Error::new(format!(
            "--base: git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr).trim()
        )));
    }
    Ok(o.stdout)
}

/// `rev` as the commit it names (40 or 64 hex digits), so that no later git command
/// reads it as an option: a `rev` starting with `-` is refused, and `git rev-parse`
/// reads it after `--end-of-options`.
fn commit_of(top: &Path, rev: &str) -> Result<String, Error> {
    let shown = capi_render::go::untrusted::quote_untrusted(rev);
    let refuse = |why: &str| {
        Error::new(format!("--base {shown}: {why}"))
            .with_hint("name a commit, branch or tag, e.g. --base origin/main or --base HEAD~1")
    };
    if rev.is_empty() || rev.starts_with('-') || rev.contains('\0') {
        return Err(refuse("not a revision (it would be read as an option)"));
    }
    let out = git(
        top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .map_err(|_| refuse("no such commit in this repository"))?;
    let sha = String::from_utf8_lossy(&out).trim().to_string();
    if !(sha.len() == 40 || sha.len() == 64) || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(refuse("git did not name one commit for it"));
    }
    Ok(sha)
}

/// The paths `paths` (of the work tree) as they are at `rev`: unpacked into a scratch
/// directory, returned with the paths inside it. A path absent at `rev` is an error
/// (never an empty side, which would read as every Cluster deleted).
pub fn base_side(rev: &str, paths: &[PathBuf]) -> Result<(Scratch, Vec<PathBuf>), Error> {
    let cwd = std::env::current_dir().map_err(|e| Error::new(format!("--base: {e}")))?;
    let top = git(&cwd, &["rev-parse", "--show-toplevel"])?;
    let top = PathBuf::from(String::from_utf8_lossy(&top).trim());
    let top = top.canonicalize().unwrap_or(top);
    let mut rel = Vec::new();
    for p in paths {
        let abs = cwd.join(p);
        let abs = abs.canonicalize().unwrap_or(abs);
        let r = abs.strip_prefix(&top).map_err(|_| {
            Error::new(format!(
                "--base: {} is outside the Git work tree {}",
                p.display(),
                top.display()
            ))
        })?;
        rel.push(r.to_path_buf());
    }
    let commit = commit_of(&top, rev)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("capi-render-base-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::new(format!("--base: {}: {e}", dir.display())))?;
    let scratch = Scratch(dir.clone());
    let tar = dir.join("base.tar");
    let mut args = vec!["archive", "--format=tar", "-o"];
    let tar_s = tar.to_string_lossy().into_owned();
    args.push(&tar_s);
    // A commit's hex name: never an option (archive reads `--end-of-options` as a path).
    args.push(&commit);
    args.push("--");
    let rel_s: Vec<String> = rel
        .iter()
        .map(|r| r.to_string_lossy().into_owned())
        .collect();
    args.extend(
        rel_s
            .iter()
            .map(|s| if s.is_empty() { "." } else { s.as_str() }),
    );
    git(&top, &args).map_err(|e| {
        e.with_hint(format!(
            "check that {} holds the paths given with -f",
            capi_render::go::untrusted::quote_untrusted(rev)
        ))
    })?;
    let tree = dir.join("tree");
    std::fs::create_dir_all(&tree).map_err(|e| Error::new(format!("--base: {e}")))?;
    let o = Command::new("tar")
        .arg("-xf")
        .arg(&tar)
        .arg("-C")
        .arg(&tree)
        .output()
        .map_err(|e| Error::new(format!("--base: cannot run tar: {e}")))?;
    if !o.status.success() {
        return Err(Error::new(format!(
            "--base: unpacking {commit} failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )));
    }
    let out = rel.iter().map(|r| tree.join(r)).collect();
    Ok((scratch, out))
}
