//! Paths built from untrusted data (SECURITY.md): the one place that decides whether a
//! relative path may be joined to a root we write under (OUT, a bundle, a plan
//! directory), and that refuses to follow symbolic links below that root.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A relative path we may write, read or delete under a root: `/`-separated, no empty,
/// `.` or `..` segment, not absolute, no backslash or NUL.
pub fn is_safe_relative(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && !p.contains('\\')
        && !p.contains('\0')
        && p.split('/').all(|s| !s.is_empty() && s != "." && s != "..")
}

/// One path segment (a file or directory name): a safe relative path of one segment.
pub fn is_safe_segment(s: &str) -> bool {
    is_safe_relative(s) && !s.contains('/')
}

/// A relative path a user gave (an input of the KRM function) that must stay under its
/// base directory: not empty, no NUL, not absolute, and no `..` that climbs above the
/// base (`a/../b` is fine). The error says why, to follow "<path> ".
pub fn stays_inside(path: &str) -> std::result::Result<(), &'static str> {
    use std::path::Component;
    if path.is_empty() {
        return Err("is empty");
    }
    if path.contains('\0') {
        return Err("contains a NUL byte");
    }
    if path.starts_with('/') || path.starts_with('\\') || Path::new(path).has_root() {
        return Err("is absolute");
    }
    let mut depth = 0usize;
    for c in Path::new(path).components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth == 0 => {
                return Err("leaves the kustomization's directory")
            }
            Component::ParentDir => depth -= 1,
            Component::RootDir | Component::Prefix(_) => return Err("is absolute"),
        }
    }
    Ok(())
}

/// `path` (as given: relative to the working directory, or absolute) written relative
/// to the directory `base`, both made absolute and normalised lexically first (`.` and
/// `..` segments resolved, repeated separators dropped; links are not followed): the
/// same file gives the same text from any working directory, in any clone, and for
/// any spelling of the path (`./a.yaml`, `x/../a.yaml`). Segments are joined with `/`.
pub fn relative_to(path: &str, base: &Path) -> String {
    let norm = |p: &Path| -> Option<Vec<String>> {
        let abs = std::path::absolute(p).ok()?;
        let mut out: Vec<String> = Vec::new();
        for c in abs.components() {
            match c {
                std::path::Component::Normal(s) => out.push(s.to_string_lossy().into_owned()),
                std::path::Component::ParentDir => {
                    out.pop();
                }
                _ => {}
            }
        }
        Some(out)
    };
    let (Some(p), Some(b)) = (norm(Path::new(path)), norm(base)) else {
        return path.to_string();
    };
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut rel: Vec<&str> = vec![".."; b.len() - common];
    rel.extend(p[common..].iter().map(String::as_str));
    if rel.is_empty() {
        ".".to_string()
    } else {
        rel.join("/")
    }
}

/// Whether `path` (as given: relative to the working directory, or absolute) lies in
/// `root` or below it, decided on both paths made absolute and normalised lexically
/// ([`relative_to`]: `..` resolved, links not followed). An empty path or one with a
/// NUL is never inside. The `--from-lock` rule (SECURITY.md).
pub fn lexically_inside(path: &str, root: &Path) -> bool {
    if path.is_empty() || path.contains('\0') {
        return false;
    }
    let rel = relative_to(path, root);
    rel != ".." && !rel.starts_with("../") && !Path::new(&rel).is_absolute()
}

/// Whether the existing file or directory `path`, every symbolic link resolved, is
/// `root` (its links resolved too) or lies below it. `None` when either cannot be
/// resolved (a missing file: the read that follows reports it).
pub fn resolves_inside(root: &Path, path: &Path) -> Option<bool> {
    let r = root.canonicalize().ok()?;
    let p = path.canonicalize().ok()?;
    Some(p.starts_with(&r))
}

/// Refuse paths that would lead outside `root` through a symbolic link: no existing
/// component of `rel` below `root` may be a symlink.
pub fn check_no_symlink(root: &Path, rel: &str) -> Result<()> {
    let mut p = root.to_path_buf();
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

/// `root` joined with `rel` after both checks; `what` names the path's origin in the
/// error (e.g. `the lock's outputs`).
pub fn safe_join(root: &Path, rel: &str, what: &str) -> Result<PathBuf> {
    if !is_safe_relative(rel) {
        return Err(Error::new(format!(
            "{what}: {rel:?} is not a plain relative path inside {}",
            root.display()
        )));
    }
    check_no_symlink(root, rel)?;
    Ok(rel.split('/').fold(root.to_path_buf(), |p, s| p.join(s)))
}

/// `msg` with each absolute path of `shown` (absolute spelling, as the user gave it)
/// written as the user gave it: the user's relative paths stay relative in messages
/// (SECURITY.md: no machine path the user did not type). A match must be a whole path
/// prefix: not inside a longer name (`/w/qs` is not replaced in `/w/qs2`), not after
/// another path character (`file:///w/qs` keeps its URL form). The longest absolute
/// spelling wins. Linear in the message for a fixed table.
pub fn relativize(msg: &str, shown: &[(String, String)]) -> String {
    let path_char = |c: u8| c.is_ascii_alphanumeric() || b"._-~+@/".contains(&c);
    let b = msg.as_bytes();
    let mut out = String::with_capacity(msg.len());
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && (i == 0 || !path_char(b[i - 1])) {
            let hit = shown
                .iter()
                .filter(|(abs, _)| {
                    b[i..].starts_with(abs.as_bytes())
                        && b.get(i + abs.len())
                            .is_none_or(|&c| c == b'/' || !path_char(c))
                })
                .max_by_key(|(abs, _)| abs.len());
            if let Some((abs, given)) = hit {
                out.push_str(&msg[copied..i]);
                out.push_str(given);
                i += abs.len();
                copied = i;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(&msg[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_relative_paths() {
        assert!(is_safe_relative("providers/ns/core-x/a.yaml"));
        assert!(is_safe_relative("kustomization.yaml"));
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a//b",
            "a/./b",
            "a\\b",
            "a/",
            "a\0b",
        ] {
            assert!(!is_safe_relative(bad), "{bad:?}");
        }
        assert!(is_safe_segment("Kind_ns_name.yaml"));
        assert!(!is_safe_segment("Kind/../x_ns_n.yaml"));
    }

    #[test]
    fn safe_join_refuses_links_and_escapes() {
        let root = std::env::temp_dir().join(format!("capi-render-paths-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("d")).unwrap();
        assert_eq!(
            safe_join(&root, "d/f", "t").unwrap(),
            root.join("d").join("f")
        );
        assert!(safe_join(&root, "../f", "t").is_err());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/tmp", root.join("l")).unwrap();
            let e = safe_join(&root, "l/f", "t").unwrap_err();
            assert!(e.message().contains("symbolic link"), "{e}");
        }
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn user_paths_stay_inside_their_base() {
        assert_eq!(stays_inside("a/../b.yaml"), Ok(()));
        assert_eq!(stays_inside("./x"), Ok(()));
        assert_eq!(stays_inside(""), Err("is empty"));
        assert_eq!(stays_inside("a\0b"), Err("contains a NUL byte"));
        assert_eq!(stays_inside("/etc"), Err("is absolute"));
        assert_eq!(
            stays_inside("a/../../x"),
            Err("leaves the kustomization's directory")
        );
    }

    #[test]
    fn lexical_and_resolved_containment() {
        let cwd = std::env::current_dir().unwrap();
        let root = cwd.join("repo");
        assert!(lexically_inside("repo/a/b.yaml", &root));
        assert!(lexically_inside("repo/x/../a", &root));
        assert!(lexically_inside(root.to_str().unwrap(), &root));
        assert!(!lexically_inside("repo/../outside", &root));
        assert!(!lexically_inside("/etc/passwd", &root));
        assert!(!lexically_inside("", &root));
        assert!(!lexically_inside("repo/a\0b", &root));
        let d = std::env::temp_dir().join(format!("capi-render-inside-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(d.join("root/sub")).unwrap();
        fs::write(d.join("outside.yaml"), "x").unwrap();
        assert_eq!(
            resolves_inside(&d.join("root"), &d.join("root/sub")),
            Some(true)
        );
        assert_eq!(
            resolves_inside(&d.join("root"), &d.join("outside.yaml")),
            Some(false)
        );
        assert_eq!(
            resolves_inside(&d.join("root"), &d.join("root/missing")),
            None
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("outside.yaml"), d.join("root/out.yaml")).unwrap();
            std::os::unix::fs::symlink(d.join("root/sub"), d.join("root/in")).unwrap();
            assert_eq!(
                resolves_inside(&d.join("root"), &d.join("root/out.yaml")),
                Some(false)
            );
            assert_eq!(
                resolves_inside(&d.join("root"), &d.join("root/in")),
                Some(true)
            );
        }
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn paths_relative_to_a_base_are_spelling_independent() {
        let cwd = std::env::current_dir().unwrap();
        let out = cwd.join("tree/out");
        assert_eq!(relative_to("in/a.yaml", &out), "../../in/a.yaml");
        assert_eq!(relative_to("./in//a.yaml", &out), "../../in/a.yaml");
        assert_eq!(
            relative_to("x/../in/a.yaml", Path::new("tree/./out")),
            "../../in/a.yaml"
        );
        let abs = cwd.join("in/a.yaml");
        assert_eq!(relative_to(abs.to_str().unwrap(), &out), "../../in/a.yaml");
        assert_eq!(relative_to("tree/out/sub/f", &out), "sub/f");
        assert_eq!(relative_to("tree/out", &out), ".");
    }

    #[test]
    fn relativize_puts_back_what_the_user_typed() {
        let t = vec![
            ("/w/qs".to_string(), "qs".to_string()),
            ("/w/qs/providers".to_string(), "./qs/providers".to_string()),
            ("/w".to_string(), ".".to_string()),
        ];
        assert_eq!(
            relativize("stat /w/qs/../repository/x.yaml: no such file", &t),
            "stat qs/../repository/x.yaml: no such file"
        );
        // The longest spelling wins; the end of the message is a boundary.
        assert_eq!(relativize("in /w/qs/providers", &t), "in ./qs/providers");
        assert_eq!(relativize("\"/w/qs\" and /w", &t), "\"qs\" and .");
        // Not inside a longer name, not inside a URL or another path.
        assert_eq!(
            relativize("/w/qs2/a /x/w/qs file:///w/qs", &t),
            "./qs2/a /x/w/qs file:///w/qs"
        );
        assert_eq!(relativize("nothing here", &t), "nothing here");
        assert_eq!(relativize("é /w/qs ü", &t), "é qs ü");
    }
}
