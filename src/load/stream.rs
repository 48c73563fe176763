//! Large input files read a part at a time: a fleet of 100,000 Clusters in one 80 MB
//! file costs what the same fleet in a hundred files costs, not the whole text plus
//! every parsed value at once.
//!
//! A file of [`STREAM_BYTES`] or more is read twice. The first pass only sums it
//! (sha256 and size, within the file limit): an incremental run decides from the sum
//! whether to parse it at all. The second pass reads [`STREAM_PART`] bytes at a time,
//! cuts the text before the last line that starts with `---` (a document separator:
//! no YAML value spans one), parses the documents before the cut ([`super::parse_docs`])
//! and keeps the rest for the next part. Document indices and line numbers count from
//! the file's start, so every object and error is the one a whole-file parse gives.
//! The second pass sums the file again: a file that changed between the passes is an
//! error, never a lock that records one text and objects of another.

use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::limits::Meter;
use crate::model::InputObject;

/// Files at least this large are summed first and parsed a part at a time.
pub const STREAM_BYTES: u64 = 16 << 20;

/// Bytes read per part (a part grows past it only for a document larger than this).
const STREAM_PART: u64 = 4 << 20;

/// The sha256 (hex) and size of the file at `path`, read within `limit` bytes.
pub fn sum(path: &Path, shown: &str, limit: u64) -> Result<(String, u64)> {
    let mut f = open(path, shown)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let n = f.read(&mut buf).map_err(|e| io(shown, e))?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > limit {
            return Err(too_large(shown, limit));
        }
        h.update(&buf[..n]);
    }
    Ok((crate::model::hash::hex(&h.finalize()), total))
}

/// Parse the file at `path` a part at a time, each object through `map` (see the
/// module), and check that its sum is still `sha256`.
pub fn parse<T: Send>(
    path: &Path,
    shown: &str,
    sha256: &str,
    meter: &Meter,
    map: &(dyn Fn(InputObject) -> T + Sync),
) -> Result<Vec<T>> {
    let limit = meter.limits().file_bytes;
    let mut r = open(path, shown)?.take(limit.saturating_add(1));
    let mut h = Sha256::new();
    let mut buf: Vec<u8> = Vec::new();
    let (mut lines, mut docs, mut total) = (0usize, 0usize, 0u64);
    let mut out = Vec::new();
    loop {
        let old = buf.len();
        let n = (&mut r)
            .take(STREAM_PART)
            .read_to_end(&mut buf)
            .map_err(|e| io(shown, e))?;
        h.update(&buf[old..]);
        total += n as u64;
        if total > limit {
            return Err(too_large(shown, limit));
        }
        let end = (n as u64) < STREAM_PART;
        let Some(cut) = cut(&buf, end) else {
            continue;
        };
        let text = std::str::from_utf8(&buf[..cut])
            .map_err(|_| Error::new(format!("{shown}: not valid UTF-8")).in_file(shown))?;
        let (found, objs) = super::parse_docs(shown, text, (docs, lines), meter, map)?;
        out.extend(objs);
        docs += found;
        lines += memchr::memchr_iter(b'\n', &buf[..cut]).count();
        buf.drain(..cut);
        if end {
            break;
        }
    }
    if crate::model::hash::hex(&h.finalize()) != sha256 {
        return Err(super::changed_during_run(shown));
    }
    Ok(out)
}

/// Where to end the part `buf` holds: its end at the end of the file, else before its
/// last line that starts with `---` (`None`: no such line after the first byte yet).
fn cut(buf: &[u8], end: bool) -> Option<usize> {
    if end {
        return Some(buf.len());
    }
    memchr::memmem::rfind(buf, b"\n---")
        .map(|i| i + 1)
        .filter(|&i| i > 0)
}

fn open(path: &Path, shown: &str) -> Result<std::fs::File> {
    std::fs::File::open(path).map_err(|e| io(shown, e))
}

fn io(shown: &str, e: std::io::Error) -> Error {
    Error::new(format!("cannot read input {shown}: {e}"))
}

fn too_large(shown: &str, limit: u64) -> Error {
    crate::limits::file_too_large(shown, limit, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let d =
            std::env::temp_dir().join(format!("capi-render-stream-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_part_ends_before_the_last_separator_line() {
        assert_eq!(cut(b"a: 1\n---\nb: 2\n---\nc", false), Some(14));
        assert_eq!(cut(b"a: 1\nb: 2\n", false), None);
        assert_eq!(cut(b"---\na: 1\n", false), None);
        assert_eq!(cut(b"a: 1\n---", true), Some(8));
    }

    #[test]
    fn a_large_file_parses_as_a_whole_file_does() {
        // Documents of every shape around the cuts: empty ones, comments only, CRLF,
        // a block scalar, a separator with a comment; more than one part.
        let dir = scratch("big");
        let mut text = String::from("# head\n");
        let mut i = 0;
        while text.len() < (STREAM_PART as usize) * 2 + 12_345 {
            text.push_str(&format!(
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  k: |\n    line {i}\n     more\n"
            ));
            if i % 7 == 0 {
                text.push_str("---\n# only a comment\n--- # a comment\n");
            }
            if i % 11 == 0 {
                text.push_str("---\r\nkind: A\r\nmetadata: {name: crlf}\r\n");
            }
            i += 1;
        }
        let p = dir.join("big.yaml");
        std::fs::write(&p, &text).unwrap();
        let (sha, size) = sum(&p, "big.yaml", u64::MAX).unwrap();
        assert_eq!(size, text.len() as u64);
        assert_eq!(sha, crate::model::sha256_hex(text.as_bytes()));
        let meter = || Meter::new(Default::default());
        let whole = super::super::parse_file_in("big.yaml", &text, &meter()).unwrap();
        let parts = parse(&p, "big.yaml", &sha, &meter(), &|o| o).unwrap();
        assert_eq!(parts.len(), whole.len());
        assert!(parts.len() > 1000);
        for (a, b) in parts.iter().zip(&whole) {
            assert_eq!((a.doc, &a.value), (b.doc, &b.value));
        }
        // An error deep in the file names the document and line a whole parse names.
        let bad = format!("{text}---\nkind: [\n");
        std::fs::write(&p, &bad).unwrap();
        let (sha, _) = sum(&p, "big.yaml", u64::MAX).unwrap();
        let e1 = super::super::parse_file_in("big.yaml", &bad, &meter()).unwrap_err();
        let e2 = parse(&p, "big.yaml", &sha, &meter(), &|o| o).unwrap_err();
        assert_eq!(e1.to_string(), e2.to_string());
        // A file that changed since it was summed is refused.
        std::fs::write(&p, &text).unwrap();
        let e = parse(&p, "big.yaml", "0", &meter(), &|o| o).unwrap_err();
        assert!(
            e.to_string()
                .contains("changed while capi-render was running"),
            "{e}"
        );
    }

    #[test]
    fn the_file_limit_holds_in_both_passes() {
        let dir = scratch("limit");
        let p = dir.join("x.yaml");
        std::fs::write(&p, "a: 1\n".repeat(1000)).unwrap();
        let e = sum(&p, "x.yaml", 100).unwrap_err().to_string();
        assert!(e.contains("--max-file-bytes"), "{e}");
        let small = Meter::new(crate::limits::Limits {
            file_bytes: 100,
            ..Default::default()
        });
        let e = parse(&p, "x.yaml", "0", &small, &|o| o)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--max-file-bytes"), "{e}");
    }
}
