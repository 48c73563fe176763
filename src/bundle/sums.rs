//! `SHA256SUMS`: the sha256 of every file of a bundle, in `sha256sum` format
//! (`<64 hex>  <path>`, two spaces, text mode), sorted by path (byte order), paths
//! relative to the bundle root with `/` separators. The file does not list itself.

use std::collections::BTreeMap;
use std::path::Path;

use crate::model::sha256_hex;

use crate::error::{Error, Result};

/// The name of the sums file at the bundle root.
pub const SUMS_FILE: &str = "SHA256SUMS";

/// The sums file text for `files` (path → bytes), sorted by path.
pub fn format_sums(files: &BTreeMap<String, Vec<u8>>) -> String {
    files
        .iter()
        .filter(|(p, _)| p.as_str() != SUMS_FILE)
        .map(|(p, b)| format!("{}  {p}\n", sha256_hex(b)))
        .collect()
}

/// Parse a sums file: path → hex digest. Every line must be `<64 lower hex>  <path>`;
/// paths must be relative, without `.`/`..` components, unique and sorted.
pub fn parse_sums(text: &str) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let mut prev: Option<&str> = None;
    for (i, line) in text.lines().enumerate() {
        let at = |m: &str| Error::new(format!("{SUMS_FILE} line {}: {m}", i + 1));
        let (sum, path) = line
            .split_once("  ")
            .ok_or_else(|| at("expected \"<sha256>  <path>\""))?;
        if sum.len() != 64 || !sum.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(at("the checksum is not 64 lower-case hex digits"));
        }
        check_relative(path).map_err(|e| at(e.message()))?;
        if let Some(p) = prev {
            if p >= path {
                return Err(at(&format!("path {path:?} is out of order or repeated")));
            }
        }
        prev = Some(path);
        out.insert(path.to_string(), sum.to_string());
    }
    Ok(out)
}

/// A bundle path must stay inside the bundle: relative, `/`-separated, no empty,
/// `.` or `..` components.
pub fn check_relative(path: &str) -> Result<()> {
    if !crate::paths::is_safe_relative(path) {
        return Err(Error::new(format!(
            "path {path:?} is not a plain relative path inside the bundle"
        )));
    }
    Ok(())
}

/// Every regular file under `root`, as bundle-relative `/` paths, sorted. Symbolic
/// links and other non-regular entries are an error (a bundle holds files only).
pub fn list_files(root: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry =
            entry.map_err(|e| Error::new(format!("cannot walk {}: {e}", root.display())))?;
        let ft = entry.file_type();
        if ft.is_dir() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(root)
            .map_err(|_| Error::new(format!("{} is outside the bundle", entry.path().display())))?;
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let rel = rel.join("/");
        if !ft.is_file() {
            return Err(Error::new(format!("{rel}: not a regular file")));
        }
        out.push(rel);
    }
    out.sort();
    Ok(out)
}

/// Problems found by [`check_tree`], one line each, in path order.
pub fn check_tree(root: &Path) -> Result<Vec<String>> {
    let sums_path = root.join(SUMS_FILE);
    let shown = sums_path.display().to_string();
    let text = crate::limits::read_text(&sums_path, &shown, |e| {
        Error::new(format!("cannot read {shown}: {e}"))
    })?;
    let want = parse_sums(&text)?;
    let have = list_files(root)?;
    let mut problems = Vec::new();
    for (path, sum) in &want {
        let limit = crate::limits::Limits::current().file_bytes;
        match std::fs::File::open(root.join(path))
            .and_then(|f| crate::limits::read_bounded(f, limit))
        {
            Ok(None) => problems.push(format!(
                "{path}: {}",
                crate::limits::over_limit(crate::limits::Limit::FileBytes, limit, None)
            )),
            Ok(Some(bytes)) => {
                if &sha256_hex(&bytes) != sum {
                    problems.push(format!("{path}: checksum mismatch"));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                problems.push(format!("{path}: missing"))
            }
            Err(e) => problems.push(format!("{path}: cannot read: {e}")),
        }
    }
    for path in have {
        if path != SUMS_FILE && !want.contains_key(&path) {
            problems.push(format!("{path}: not listed in {SUMS_FILE}"));
        }
    }
    problems.sort();
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_are_sorted_sha256sum_lines() {
        let mut f = BTreeMap::new();
        f.insert("b/x".to_string(), b"hello\n".to_vec());
        f.insert("a".to_string(), Vec::new());
        let s = format_sums(&f);
        // sha256("") and sha256("hello\n") as printed by sha256sum.
        assert_eq!(
            s,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a\n\
             5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  b/x\n"
        );
        let back = parse_sums(&s).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back["a"], sha256_hex(b""));
    }

    #[test]
    fn bad_sum_lines_are_rejected() {
        let h = "0".repeat(64);
        for (text, want) in [
            ("abc  x\n".to_string(), "64 lower-case hex"),
            (format!("{h} x\n"), "expected"),
            (format!("{h}  ../x\n"), "plain relative path"),
            (format!("{h}  /x\n"), "plain relative path"),
            (format!("{h}  b\n{h}  a\n"), "out of order"),
            (format!("{h}  a\n{h}  a\n"), "out of order"),
        ] {
            let e = parse_sums(&text).unwrap_err();
            assert!(e.message().contains(want), "{text:?}: {e}");
        }
    }
}
