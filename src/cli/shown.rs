//! Paths in messages as the user typed them: the relative path arguments of this run,
//! each with its absolute spellings, so that errors and warnings name `capi/providers.yaml`
//! and not `/srv/fleet/capi/providers.yaml` ([`capi_render::paths::relativize`]).

use std::ffi::OsString;
use std::path::Component;
use std::path::Path;
use std::sync::Mutex;

static SHOWN: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

/// Record the relative path arguments of `args` (a value after `--flag=` too) that
/// exist: each with its absolute and canonical spellings, and a file's folder with its
/// own (a config file's relative provider URLs resolve against it).
pub fn init(args: &[OsString]) {
    if let Ok(mut t) = SHOWN.lock() {
        *t = table(args);
    }
}

/// Record a folder the run found itself (the repository root of `--from-lock OUT`,
/// whose recorded paths it resolves there), as the path to it from the working
/// directory (`.`, `../..`, `fleet`).
pub fn add_root(root: &Path) {
    let (Ok(cwd), Ok(abs)) = (std::env::current_dir(), std::path::absolute(root)) else {
        return;
    };
    let rel = relative_from(&cwd, &abs);
    if let Ok(mut t) = SHOWN.lock() {
        let abs = abs.to_string_lossy().trim_end_matches('/').to_string();
        if abs.len() > 1 && !t.iter().any(|(a, _)| *a == abs) {
            t.push((abs, rel));
        }
    }
}

/// The relative path from folder `from` to `to` (both absolute).
fn relative_from(from: &Path, to: &Path) -> String {
    let f: Vec<Component> = from.components().collect();
    let t: Vec<Component> = to.components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut segs: Vec<String> = vec!["..".to_string(); f.len() - common];
    segs.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if segs.is_empty() {
        ".".to_string()
    } else {
        segs.join("/")
    }
}

fn table(args: &[OsString]) -> Vec<(String, String)> {
    let mut t: Vec<(String, String)> = Vec::new();
    let mut add = |given: &Path| {
        let shown = given.to_string_lossy().trim_end_matches('/').to_string();
        if shown.is_empty() {
            return;
        }
        let spellings = [
            std::path::absolute(given).ok(),
            std::fs::canonicalize(given).ok(),
        ];
        for abs in spellings.into_iter().flatten() {
            let abs = abs.to_string_lossy().trim_end_matches('/').to_string();
            if abs.len() > 1 && abs != shown && !t.iter().any(|(a, _)| *a == abs) {
                t.push((abs, shown.clone()));
            }
        }
    };
    for a in args.iter().skip(1) {
        let a = a.to_string_lossy();
        let value = match a.split_once('=') {
            Some((flag, v)) if flag.starts_with("--") => v,
            _ => &a,
        };
        let p = Path::new(value);
        if value.is_empty() || value.starts_with('-') || p.is_absolute() {
            continue;
        }
        let Ok(meta) = std::fs::metadata(p) else {
            continue;
        };
        add(p);
        if meta.is_file() {
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                add(dir);
            }
        }
    }
    t
}

/// `msg` with this run's relative path arguments written as given.
pub fn shown(msg: &str) -> String {
    match SHOWN.lock() {
        Ok(t) if !t.is_empty() => capi_render::paths::relativize(msg, &t),
        _ => msg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_from_folders() {
        let p = |s: &str| Path::new(s).to_path_buf();
        assert_eq!(relative_from(&p("/r/a/b"), &p("/r")), "../..");
        assert_eq!(relative_from(&p("/r"), &p("/r")), ".");
        assert_eq!(relative_from(&p("/r"), &p("/r/fleet")), "fleet");
        assert_eq!(relative_from(&p("/r/x"), &p("/r/y/z")), "../y/z");
    }

    #[test]
    fn relative_arguments_and_their_folders_are_recorded() {
        let cwd = std::env::current_dir().unwrap();
        // Relative to the test's working directory: a path below a scratch folder there.
        let rel = Path::new("target").join(format!("shown-{}", std::process::id()));
        std::fs::create_dir_all(rel.join("qs")).unwrap();
        std::fs::write(rel.join("qs/c.yaml"), "").unwrap();
        let file = rel.join("qs/c.yaml");
        let args: Vec<OsString> = vec![
            "capi-render".into(),
            format!("--config={}", file.display()).into(),
            "-f".into(),
            rel.join("missing").into(),
            std::env::temp_dir().into(),
            "v1.2.3".into(),
        ];
        let t = table(&args);
        let abs_file = cwd.join(&file).display().to_string();
        let abs_dir = cwd.join(rel.join("qs")).display().to_string();
        assert!(t.contains(&(abs_file, file.display().to_string())), "{t:?}");
        assert!(
            t.contains(&(abs_dir, rel.join("qs").display().to_string())),
            "{t:?}"
        );
        // Missing, absolute and non-path arguments are not recorded.
        assert!(t
            .iter()
            .all(|(_, g)| !g.contains("missing") && !g.starts_with('/')));
        std::fs::remove_dir_all(&rel).unwrap();
    }
}
