//! Limits for everything untrusted (SECURITY: every input file, OUT's contents, bundles,
//! ConfigMaps): how many bytes, documents and YAML nodes a run may read, how far YAML
//! aliases may expand, how much gzip may inflate, how much a Go template may print and
//! compute, how expensive a CEL rule or a regular expression may be, and how large a
//! JSON patch may be.
//!
//! * [`Limits`] is the configuration: [`Limits::default`] gives the documented defaults
//!   (README "Limits"), generous for real inputs (a 100,000-Cluster fleet, the largest
//!   provider components) and tight enough that hostile inputs fail in well under
//!   2 s and 256 MB.
//! * The limits are a **process-wide setting**: the CLI installs them once from its
//!   flags ([`install`]) before any work starts, and the engines read
//!   [`Limits::current`]. A `OnceLock` (set once, read-only afterwards) rather than a
//!   parameter because the limits are consulted deep inside engines (the Go template
//!   executor, the CEL evaluator, gzip, JSON patches, regular expressions) that are
//!   reached from dozens of call chains; the value never changes during the process,
//!   so it is configuration, not mutable state. Library users who never call
//!   [`install`] get the defaults.
//! * Run-wide *counters* are not global: a [`Meter`] is created per load (all `-f`
//!   inputs of one run together, or one repository file) and passed explicitly.
//! * Every limit's error names the file (and document where known), the amount, the
//!   limit and the flag that raises it ([`Limit::flag`]).

use std::io::Read;
use std::path::Path;
use std::sync::OnceLock;

use crate::error::{Error, Result};

pub mod memory;
mod meter;
mod quote;
pub use meter::Meter;
pub use quote::{excerpt, QUOTE_BYTES};

const KI: u64 = 1024;
const MI: u64 = 1024 * 1024;

/// One limit: its flag, what it protects (for errors and help) and its unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    FileBytes,
    TotalBytes,
    Documents,
    YamlNodes,
    YamlAliasNodes,
    YamlAliasBytes,
    GzipBytes,
    BundleGzipBytes,
    TemplateBytes,
    TemplateSteps,
    RegexBytes,
    CelCost,
    PatchOps,
    PatchDepth,
    PatchBytes,
    Memory,
}

impl Limit {
    /// Every limit, in the README's order.
    pub const ALL: [Limit; 16] = [
        Limit::FileBytes,
        Limit::TotalBytes,
        Limit::Documents,
        Limit::YamlNodes,
        Limit::YamlAliasNodes,
        Limit::YamlAliasBytes,
        Limit::GzipBytes,
        Limit::BundleGzipBytes,
        Limit::TemplateBytes,
        Limit::TemplateSteps,
        Limit::RegexBytes,
        Limit::CelCost,
        Limit::PatchOps,
        Limit::PatchDepth,
        Limit::PatchBytes,
        Limit::Memory,
    ];

    /// The command-line flag that sets it.
    pub fn flag(self) -> &'static str {
        match self {
            Limit::FileBytes => "--max-file-bytes",
            Limit::TotalBytes => "--max-total-bytes",
            Limit::Documents => "--max-documents",
            Limit::YamlNodes => "--max-yaml-nodes",
            Limit::YamlAliasNodes => "--max-yaml-alias-nodes",
            Limit::YamlAliasBytes => "--max-yaml-alias-bytes",
            Limit::GzipBytes => "--max-gzip-bytes",
            Limit::BundleGzipBytes => "--max-bundle-gzip-bytes",
            Limit::TemplateBytes => "--max-template-bytes",
            Limit::TemplateSteps => "--max-template-steps",
            Limit::RegexBytes => "--max-regex-bytes",
            Limit::CelCost => "--max-cel-cost",
            Limit::PatchOps => "--max-patch-ops",
            Limit::PatchDepth => "--max-patch-depth",
            Limit::PatchBytes => "--max-patch-bytes",
            Limit::Memory => "--max-memory",
        }
    }

    /// The limit's name in errors: "... is over the <name> limit of N <unit>".
    pub fn name(self) -> &'static str {
        match self {
            Limit::FileBytes => "input file",
            Limit::TotalBytes => "total input",
            Limit::Documents => "YAML document",
            Limit::YamlNodes => "YAML node",
            Limit::YamlAliasNodes => "YAML alias expansion",
            Limit::YamlAliasBytes => "YAML alias expansion",
            Limit::GzipBytes => "decompressed ConfigMap",
            Limit::BundleGzipBytes => "decompressed bundle",
            Limit::TemplateBytes => "template output",
            Limit::TemplateSteps => "template execution",
            Limit::RegexBytes => "regular expression",
            Limit::CelCost => "CEL cost",
            Limit::PatchOps => "JSON patch operation",
            Limit::PatchDepth => "JSON patch path depth",
            Limit::PatchBytes => "JSON patch value",
            Limit::Memory => "memory",
        }
    }

    /// The unit amounts are counted in.
    pub fn unit(self) -> &'static str {
        match self {
            Limit::FileBytes
            | Limit::TotalBytes
            | Limit::YamlAliasBytes
            | Limit::GzipBytes
            | Limit::BundleGzipBytes
            | Limit::TemplateBytes
            | Limit::RegexBytes
            | Limit::PatchBytes
            | Limit::Memory => "bytes",
            Limit::Documents => "documents",
            Limit::YamlNodes | Limit::YamlAliasNodes => "nodes",
            Limit::TemplateSteps => "steps",
            Limit::CelCost => "cost units",
            Limit::PatchOps => "operations",
            Limit::PatchDepth => "path segments",
        }
    }
}

/// Every limit's value. See README "Limits" for what each protects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of one input file (an `-f` file, a repository file, `--from`, stdin, the
    /// config file, a bundle file).
    pub file_bytes: u64,
    /// Bytes of all `-f` input files of a run together.
    pub total_bytes: u64,
    /// YAML documents of all `-f` inputs of a run together (one repository file on
    /// its own).
    pub documents: u64,
    /// YAML nodes (mappings, sequences, scalars, after alias expansion) of a run.
    pub yaml_nodes: u64,
    /// Nodes that YAML aliases (and merge keys) add, across the run.
    pub yaml_alias_nodes: u64,
    /// Scalar bytes that YAML aliases add, across the run.
    pub yaml_alias_bytes: u64,
    /// Decompressed bytes of one ConfigMap's gzip `binaryData`.
    pub gzip_bytes: u64,
    /// Decompressed bytes of all ConfigMaps of one bundle (`bundle verify`).
    pub bundle_gzip_bytes: u64,
    /// Bytes one Go template execution may print, and the largest string it may build.
    pub template_bytes: u64,
    /// Steps of one Go template execution (actions, pipeline commands, range
    /// iterations; one more step per 64 bytes a function returns).
    pub template_steps: u64,
    /// Compiled size of one regular expression (the `regex` crate's size limit).
    pub regex_bytes: u64,
    /// Runtime cost of one CEL rule (one unit per evaluated expression node), as the
    /// API server's per-call limit.
    pub cel_cost: u64,
    /// Operations of one JSON patch (a provider's `patches` entry, a ClusterClass
    /// patch definition's `jsonPatches`).
    pub patch_ops: u64,
    /// Segments of one JSON patch `path` / `from`.
    pub patch_depth: u64,
    /// Bytes (as compact JSON) of the values one JSON patch inserts, copies or moves,
    /// all its operations together: a few operations that copy a value into itself
    /// double it each time.
    pub patch_bytes: u64,
    /// Bytes the whole run may have in use ([`memory`]: it plans the render threads
    /// and stops a run that goes over it).
    pub memory: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            file_bytes: 128 * MI,
            total_bytes: 512 * MI,
            documents: 250_000,
            yaml_nodes: 40_000_000,
            yaml_alias_nodes: 250_000,
            yaml_alias_bytes: 32 * MI,
            gzip_bytes: 32 * MI,
            bundle_gzip_bytes: 256 * MI,
            template_bytes: 16 * MI,
            template_steps: 1_000_000,
            regex_bytes: 10 * MI,
            cel_cost: 1_000_000,
            patch_ops: 10_000,
            patch_depth: 128,
            patch_bytes: 16 * MI,
            memory: 2048 * MI,
        }
    }
}

static PROCESS: OnceLock<Limits> = OnceLock::new();

/// Install the process-wide limits (the CLI does this once, from its flags, before any
/// work). A second call is ignored: the first installed value stays.
pub fn install(limits: Limits) {
    let _ = PROCESS.set(limits);
}

impl Limits {
    /// The process-wide limits: what [`install`] set, else the defaults.
    pub fn current() -> Limits {
        PROCESS.get().copied().unwrap_or_default()
    }

    /// The value of one limit.
    pub fn get(&self, l: Limit) -> u64 {
        match l {
            Limit::FileBytes => self.file_bytes,
            Limit::TotalBytes => self.total_bytes,
            Limit::Documents => self.documents,
            Limit::YamlNodes => self.yaml_nodes,
            Limit::YamlAliasNodes => self.yaml_alias_nodes,
            Limit::YamlAliasBytes => self.yaml_alias_bytes,
            Limit::GzipBytes => self.gzip_bytes,
            Limit::BundleGzipBytes => self.bundle_gzip_bytes,
            Limit::TemplateBytes => self.template_bytes,
            Limit::TemplateSteps => self.template_steps,
            Limit::RegexBytes => self.regex_bytes,
            Limit::CelCost => self.cel_cost,
            Limit::PatchOps => self.patch_ops,
            Limit::PatchDepth => self.patch_depth,
            Limit::PatchBytes => self.patch_bytes,
            Limit::Memory => self.memory,
        }
    }

    /// Set one limit.
    pub fn set(&mut self, l: Limit, v: u64) {
        let f = match l {
            Limit::FileBytes => &mut self.file_bytes,
            Limit::TotalBytes => &mut self.total_bytes,
            Limit::Documents => &mut self.documents,
            Limit::YamlNodes => &mut self.yaml_nodes,
            Limit::YamlAliasNodes => &mut self.yaml_alias_nodes,
            Limit::YamlAliasBytes => &mut self.yaml_alias_bytes,
            Limit::GzipBytes => &mut self.gzip_bytes,
            Limit::BundleGzipBytes => &mut self.bundle_gzip_bytes,
            Limit::TemplateBytes => &mut self.template_bytes,
            Limit::TemplateSteps => &mut self.template_steps,
            Limit::RegexBytes => &mut self.regex_bytes,
            Limit::CelCost => &mut self.cel_cost,
            Limit::PatchOps => &mut self.patch_ops,
            Limit::PatchDepth => &mut self.patch_depth,
            Limit::PatchBytes => &mut self.patch_bytes,
            Limit::Memory => &mut self.memory,
        };
        *f = v;
    }

    /// The error for `amount` (None: "more than the limit", when reading stopped at
    /// the limit) over limit `l`: `<amount> <unit> is over the <name> limit of <n>
    /// <unit> (<flag>)`. The caller prefixes the file (and document).
    pub fn over(&self, l: Limit, amount: Option<u64>) -> Error {
        over_limit(l, self.get(l), amount)
    }
}

/// The error text of a breached limit (see [`Limits::over`]).
pub fn over_limit(l: Limit, limit: u64, amount: Option<u64>) -> Error {
    over_limit_in(l, limit, amount, "")
}

fn over_limit_in(l: Limit, limit: u64, amount: Option<u64>, scope: &str) -> Error {
    let what = match amount {
        Some(n) => format!("{n} {}", l.unit()),
        None => format!("more than {limit} {}", l.unit()),
    };
    Error::new(format!(
        "{what} is over the {} limit of {limit} {}{scope} (raise it with {})",
        l.name(),
        l.unit(),
        l.flag()
    ))
}

/// Parse a limit value as the flags take it: a number, optionally with a binary
/// suffix (`Ki`, `Mi`, `Gi`, also `K`/`M`/`G`), e.g. `64Mi`, `250000`, `1_000_000`.
pub fn parse_amount(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim().replace('_', "");
    let (num, mult) = [
        ("Gi", 1024 * MI),
        ("Mi", MI),
        ("Ki", KI),
        ("G", 1024 * MI),
        ("M", MI),
        ("K", KI),
    ]
    .iter()
    .find_map(|(suf, m)| t.strip_suffix(suf).map(|n| (n.to_string(), *m)))
    .unwrap_or((t.clone(), 1));
    let n: u64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number (e.g. 1000, 64Mi)"))?;
    n.checked_mul(mult)
        .ok_or_else(|| format!("{s:?} is too large"))
}

// ---- bounded reads ---------------------------------------------------------

/// Read at most `limit` bytes of `r`; `Ok(None)` when there is more.
pub fn read_bounded(r: impl Read, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    read_bounded_sized(r, limit, 0)
}

/// [`read_bounded`] into a buffer sized for `expected` bytes (a file's size), so that a
/// large file (a 100,000-Cluster lock is 250 MB) is read without regrowing and
/// copying the buffer. The limit still applies to what is read, whatever the size said.
pub fn read_bounded_sized(
    r: impl Read,
    limit: u64,
    expected: u64,
) -> std::io::Result<Option<Vec<u8>>> {
    // One byte more than the file's size: `read_to_end` stops at end of file without
    // growing the buffer.
    let cap = expected.min(limit).saturating_add(1);
    let mut buf = Vec::with_capacity(usize::try_from(cap).unwrap_or(0));
    r.take(limit.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Ok(None);
    }
    Ok(Some(buf))
}

/// Read a file within the process's input file limit. `shown` names the file in the
/// limit's error; `io_err` words an I/O error as the caller always has.
pub fn read_file(
    path: &Path,
    shown: &str,
    io_err: impl FnOnce(std::io::Error) -> Error,
) -> Result<Vec<u8>> {
    read_file_within(path, shown, Limits::current().file_bytes, io_err)
}

/// [`read_file`] with an explicit byte limit (still reported as the input file
/// limit, `--max-file-bytes`).
pub fn read_file_within(
    path: &Path,
    shown: &str,
    limit: u64,
    io_err: impl FnOnce(std::io::Error) -> Error,
) -> Result<Vec<u8>> {
    let f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return Err(io_err(e)),
    };
    read_opened(f, shown, limit, io_err)
}

/// [`read_file_within`] of a file already open.
fn read_opened(
    f: std::fs::File,
    shown: &str,
    limit: u64,
    io_err: impl FnOnce(std::io::Error) -> Error,
) -> Result<Vec<u8>> {
    // A regular file says its size: refuse before reading anything.
    let mut expected = 0;
    if let Ok(m) = f.metadata() {
        if m.is_file() && m.len() > limit {
            return Err(file_too_large(shown, limit, Some(m.len())));
        }
        if m.is_file() {
            expected = m.len();
        }
    }
    match read_bounded_sized(f, limit, expected) {
        Ok(Some(b)) => Ok(b),
        Ok(None) => Err(file_too_large(shown, limit, None)),
        Err(e) => Err(io_err(e)),
    }
}

/// [`read_file`] for UTF-8 text; invalid UTF-8 is reported through `io_err` with
/// the text `std::fs::read_to_string` gives.
pub fn read_text(
    path: &Path,
    shown: &str,
    io_err: impl FnOnce(std::io::Error) -> Error,
) -> Result<String> {
    let mut io_err = Some(io_err);
    let b = read_file(path, shown, |e| (io_err.take().expect("called once"))(e))?;
    String::from_utf8(b).map_err(|_| {
        (io_err.take().expect("called once"))(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// Files at least this large are read by [`read_text_within`] on all cores.
const PARALLEL_READ_BYTES: u64 = 16 << 20;

/// Asks Linux to back a large fresh buffer with transparent huge pages (where THP is
/// `madvise`, as on Debian): reading a 100,000-Cluster lock (246 MB) into it then faults
/// 2 MiB at a time, not 4 KiB: 5 % of a no-change `render -o` (README "Performance").
fn huge_pages(buf: &mut [u8]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = buf.as_mut_ptr() as usize;
        let (first, end) = (
            start.next_multiple_of(HUGE),
            (start + buf.len()) / HUGE * HUGE,
        );
        if end > first {
            // SAFETY: advice on whole pages inside `buf`, which keeps their contents.
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

/// [`read_file_within`] as UTF-8 text, `Ok(None)` when it is not. A regular file of
/// [`PARALLEL_READ_BYTES`] or more (a 100,000-Cluster lock is 250 MB: its read and
/// UTF-8 check were a fifth of a no-change run, on one core) is read in pieces on all
/// cores, each into its own part of one buffer, and checked in pieces that end at a
/// newline. A file that shrinks while it is read is an I/O error.
pub fn read_text_within(
    path: &Path,
    shown: &str,
    limit: u64,
    io_err: impl FnOnce(std::io::Error) -> Error,
) -> Result<Option<String>> {
    use rayon::prelude::*;
    use std::os::unix::fs::FileExt;
    let f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return Err(io_err(e)),
    };
    let size = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    let Some(len) = size
        .filter(|n| *n >= PARALLEL_READ_BYTES)
        .and_then(|n| usize::try_from(n).ok())
    else {
        let b = read_opened(f, shown, limit, io_err)?;
        return Ok(String::from_utf8(b).ok());
    };
    if len as u64 > limit {
        return Err(file_too_large(shown, limit, Some(len as u64)));
    }
    let piece = len
        .div_ceil(4 * rayon::current_num_threads().max(1))
        .max(1 << 20);
    let mut buf = vec![0u8; len];
    huge_pages(&mut buf);
    let read = buf
        .par_chunks_mut(piece)
        .enumerate()
        .try_for_each(|(i, part)| f.read_exact_at(part, (i * piece) as u64));
    if let Err(e) = read {
        return Err(io_err(e));
    }
    // Pieces that end after a newline: an ASCII byte is never inside a character, so
    // the text is UTF-8 when every piece is.
    let mut cuts = vec![0];
    while let Some(&at) = cuts.last().filter(|at| **at < len) {
        let next = (at + piece).min(len);
        let end = memchr::memchr(b'\n', &buf[next..]).map_or(len, |i| next + i + 1);
        cuts.push(end);
    }
    let utf8 = cuts
        .par_windows(2)
        .all(|w| std::str::from_utf8(&buf[w[0]..w[1]]).is_ok());
    if !utf8 {
        return Ok(None);
    }
    // SAFETY: the pieces `cuts` makes cover `buf` end to end, each is valid UTF-8 (just
    // checked), and each but the last ends with `\n`, so no character spans two of
    // them: the whole buffer is valid UTF-8.
    Ok(Some(unsafe { String::from_utf8_unchecked(buf) }))
}

/// Read standard input within the input file limit, as UTF-8 text.
pub fn read_stdin_text(
    shown: &str,
    io_err: impl FnOnce(std::io::Error) -> Error,
) -> Result<String> {
    let limit = Limits::current().file_bytes;
    let b = match read_bounded(std::io::stdin().lock(), limit) {
        Ok(Some(b)) => b,
        Ok(None) => return Err(file_too_large(shown, limit, None)),
        Err(e) => return Err(io_err(e)),
    };
    String::from_utf8(b).map_err(|_| {
        io_err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// A file over the input file limit (`--max-file-bytes`), named `shown`.
pub(crate) fn file_too_large(shown: &str, limit: u64, size: Option<u64>) -> Error {
    over_limit(Limit::FileBytes, limit, size)
        .wrap(shown)
        .in_file(shown)
}

/// Decompress gzip (all members, as Go's gzip.Reader in multistream mode) into text,
/// stopping at `limit` bytes (limit `which`: per ConfigMap or per bundle).
/// `Err(None)`: not gzip, or not UTF-8 text; `Err(Some(e))`: over the limit (`e` names
/// the limit and its flag).
pub fn gunzip_within(
    bytes: &[u8],
    limit: u64,
    which: Limit,
) -> std::result::Result<String, Option<Error>> {
    let d = flate2::read::MultiGzDecoder::new(bytes);
    let b = match read_bounded(d, limit) {
        Ok(Some(b)) => b,
        Ok(None) => return Err(Some(over_limit(which, limit, None))),
        Err(_) => return Err(None),
    };
    String::from_utf8(b).map_err(|_| None)
}

// ---- JSON patches ------------------------------------------------------------

/// A JSON patch's size within `--max-patch-ops` (operations) and `--max-patch-depth`
/// (segments of each `path` / `from`); the error text otherwise.
pub fn check_json_patch<'a>(
    ops: usize,
    paths: impl IntoIterator<Item = &'a str>,
) -> std::result::Result<(), String> {
    let l = Limits::current();
    if ops as u64 > l.patch_ops {
        return Err(over_limit(Limit::PatchOps, l.patch_ops, Some(ops as u64)).to_string());
    }
    for p in paths {
        let depth = p.matches('/').count() as u64;
        if depth > l.patch_depth {
            return Err(format!(
                "path {:?}: {}",
                excerpt(p),
                over_limit(Limit::PatchDepth, l.patch_depth, Some(depth))
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_text_is_read_on_all_cores_as_read_to_string_reads_it() {
        let dir = std::env::temp_dir().join(format!("capi-render-limits-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // 20 MiB of lines with 2-, 3- and 4-byte characters across every piece's end,
        // one line of 3 MiB without a newline, and a small file.
        let line = "- path: clusters/é/日本/𐍈.yaml\n";
        let mut big = line.repeat((18 << 20) / line.len());
        big.push_str(&"x".repeat(3 << 20));
        big.push_str("\nend é");
        let err = |e: std::io::Error| Error::new(e.to_string());
        for (name, text) in [("big", big.as_str()), ("small", "a: é\n")] {
            let p = dir.join(name);
            std::fs::write(&p, text).unwrap();
            let read = read_text_within(&p, name, u64::MAX, err).unwrap();
            assert_eq!(read.as_deref(), Some(text), "{name}");
            let under = text.len() as u64 - 1;
            assert!(
                read_text_within(&p, name, under, err).is_err(),
                "{name} over the limit"
            );
        }
        // Invalid UTF-8 in the middle of the big file, and a character cut by the end.
        let mut bytes = big.clone().into_bytes();
        bytes[11 << 20] = 0xFF;
        std::fs::write(dir.join("bad"), &bytes).unwrap();
        assert_eq!(
            read_text_within(&dir.join("bad"), "bad", u64::MAX, err).unwrap(),
            None
        );
        let cut = &big.as_bytes()[..big.len() - 1];
        std::fs::write(dir.join("cut"), cut).unwrap();
        assert_eq!(
            read_text_within(&dir.join("cut"), "cut", u64::MAX, err).unwrap(),
            None
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn huge_page_advice_keeps_the_contents() {
        for (len, skip) in [(0, 0), (4096, 1), ((5 << 20) + 3, 7)] {
            let mut buf: Vec<u8> = (0..len + skip).map(|i| (i % 251) as u8).collect();
            let want = buf.clone();
            huge_pages(&mut buf[skip..]);
            assert_eq!(buf, want, "{len} bytes from {skip}");
        }
    }

    #[test]
    fn every_limit_has_a_distinct_flag() {
        let mut flags: Vec<&str> = Limit::ALL.iter().map(|l| l.flag()).collect();
        flags.sort();
        flags.dedup();
        assert_eq!(flags.len(), Limit::ALL.len());
        let mut l = Limits::default();
        for (i, k) in Limit::ALL.iter().enumerate() {
            l.set(*k, i as u64 + 1);
        }
        for (i, k) in Limit::ALL.iter().enumerate() {
            assert_eq!(l.get(*k), i as u64 + 1, "{k:?}");
        }
    }

    #[test]
    fn amounts_take_binary_suffixes() {
        assert_eq!(parse_amount("64Mi"), Ok(64 * MI));
        assert_eq!(parse_amount("2K"), Ok(2048));
        assert_eq!(parse_amount("1_000_000"), Ok(1_000_000));
        assert!(parse_amount("lots").is_err());
        assert!(parse_amount("99999999999Gi").is_err());
    }

    #[test]
    fn errors_name_the_amount_the_limit_and_the_flag() {
        let e = Limits::default()
            .over(Limit::FileBytes, Some(209715200))
            .wrap("inputs/x.yaml");
        assert_eq!(
            e.message(),
            "inputs/x.yaml: 209715200 bytes is over the input file limit of 134217728 bytes (raise it with --max-file-bytes)"
        );
    }

    #[test]
    fn bounded_read_stops_at_the_limit() {
        let zeros = std::io::repeat(0);
        assert_eq!(read_bounded(zeros, 10).unwrap(), None);
        assert_eq!(read_bounded(&b"abc"[..], 3).unwrap(), Some(b"abc".to_vec()));
        // A size that says less or more than the reader gives changes nothing but the
        // buffer's first capacity; the limit still holds.
        for expected in [0, 1, 3, 4, 1 << 20] {
            assert_eq!(
                read_bounded_sized(&b"abc"[..], 3, expected).unwrap(),
                Some(b"abc".to_vec())
            );
            assert_eq!(read_bounded_sized(&b"abcd"[..], 3, expected).unwrap(), None);
        }
    }

    #[test]
    fn gzip_bomb_stops_at_the_limit() {
        let big = "0".repeat(1 << 20);
        let gz = crate::operator::configmap::gzip(&big);
        let e = gunzip_within(&gz, 1000, Limit::GzipBytes)
            .unwrap_err()
            .unwrap();
        assert!(e.message().contains("--max-gzip-bytes"), "{e}");
        assert!(gunzip_within(b"not gzip", 1000, Limit::GzipBytes)
            .unwrap_err()
            .is_none());
        assert_eq!(gunzip_within(&gz, 1 << 20, Limit::GzipBytes).unwrap(), big);
    }
}
