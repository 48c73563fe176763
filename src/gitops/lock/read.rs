//! Reading `capi-render.lock` back: a line reader for the shape the writer gives it
//! (linear, no YAML node budget: a 100,000-Cluster tree lists over a million files),
//! the YAML reader for anything else, and the checks every entry must pass (a lock is
//! untrusted input).

use serde_json::Value;

use super::{Lock, LockInput, Outputs, Span, UnitRecord, FILE, LOCK_VERSION};
use crate::error::{Error, Result};
use crate::paths::is_safe_relative;

/// The outputs a lock lists. `shown` names the file in errors. Every path must be a
/// safe relative path (a lock is never trusted to point outside OUT) and every entry
/// must carry the sha256 of what was written.
///
/// A lock in the shape [`lock_text`] writes is read by a dedicated line reader
/// (linear, no YAML node budget: a 100,000-Cluster tree lists over a million
/// files); anything else (a hand-edited lock) goes through the YAML reader and its
/// limits.
pub fn read_outputs(text: impl Into<String>, shown: &str) -> Result<Outputs> {
    Ok(read_lock(text, shown)?.outputs)
}

/// [`read_outputs`] and the unit records: each a Cluster's directory, a sha256 and a
/// size. The outputs keep the text when it is in the writer's shape (no copy of
/// their paths and sums).
pub fn read_lock(text: impl Into<String>, shown: &str) -> Result<Lock> {
    let text: String = text.into();
    let bad = |what: &str| {
        Error::new(format!(
            "{shown}: {what}; fix or delete the lock (capi-render then only writes files that do not exist yet)"
        ))
        .in_file(shown)
    };
    // The outputs of a lock in the writer's shape, read on all cores; anything
    // unexpected in them leaves the whole text to the readers below (which then give
    // the in-order result or error).
    let (facts, fast) = match outputs_on_all_cores(&text) {
        Some((before, after, spans)) => match (read_canonical(before), read_after_outputs(after)) {
            (Some(a), Some(b)) => (a.join(b), Some(spans)),
            _ => (read_any(&text).map_err(|e| bad(&e))?, None),
        },
        None => (read_any(&text).map_err(|e| bad(&e))?, None),
    };
    let (version, entries) = (facts.version, facts.outputs);
    match version {
        Some(LOCK_VERSION) => {}
        Some(n) => {
            return Err(bad(&format!(
                "lockVersion: {n} is not supported (this capi-render writes {LOCK_VERSION})"
            )))
        }
        None => return Err(bad("lockVersion: missing")),
    }
    let mut out = match fast {
        Some(spans) => {
            Outputs::from_spans(text, spans).ok_or_else(|| bad("outputs: not read as written"))?
        }
        None => Outputs::default(),
    };
    for (i, (p, sum)) in entries.into_iter().enumerate() {
        let p = p.ok_or_else(|| bad(&format!("outputs[{i}].path: missing or not a string")))?;
        if !owned_path(&p) {
            return Err(bad(&format!(
                "outputs[{i}].path: {p:?} is not a relative path inside OUT"
            )));
        }
        let sha256 = sum.filter(|s| is_sha256_hex(s)).ok_or_else(|| {
            bad(&format!(
                "outputs[{i}].sha256: missing or not a sha256 (64 lowercase hex digits)"
            ))
        })?;
        out.push(&p, &sha256);
    }
    let units = unit_records(facts.units).map_err(|e| bad(&e))?;
    let mut inputs = Vec::with_capacity(facts.inputs.len());
    // Only a hint for skipping unchanged files of Clusters: an entry that cannot be
    // read means that file is parsed.
    for [path, sha256, clusters] in facts.inputs {
        let (Some(path), Some(sha256)) = (path, sha256.filter(|s| is_sha256_hex(s))) else {
            continue;
        };
        let clusters = clusters.and_then(|n| n.parse::<usize>().ok());
        inputs.push(LockInput {
            path,
            sha256,
            clusters,
        });
    }
    Ok(Lock {
        outputs: out,
        units,
        inputs,
        command: None,
        sealed: Vec::new(),
    })
}

/// The `units` items as records, checked on all cores (100,000 of them in a
/// 100,000-Cluster lock); the error is the first item's in order.
fn unit_records(items: Vec<[Option<String>; 5]>) -> std::result::Result<Vec<UnitRecord>, String> {
    use rayon::prelude::*;
    let checked: Vec<std::result::Result<UnitRecord, String>> = items
        .into_par_iter()
        .enumerate()
        .with_min_len(1 << 12)
        .map(|(i, item)| unit_record(i, item))
        .collect();
    checked.into_iter().collect()
}

/// `units[i]` as a record.
fn unit_record(
    i: usize,
    [dir, inputs, bytes, cluster, source]: [Option<String>; 5],
) -> std::result::Result<UnitRecord, String> {
    let dir = dir
        .filter(|d| is_safe_relative(d) && d.split('/').count() == 3 && d.starts_with("clusters/"))
        .ok_or_else(|| format!("units[{i}].dir: missing or not a Cluster's directory"))?;
    let inputs = inputs
        .filter(|s| is_sha256_hex(s))
        .ok_or_else(|| format!("units[{i}].inputs: missing or not a sha256"))?;
    let bytes = bytes
        .and_then(|b| b.parse::<u64>().ok())
        .ok_or_else(|| format!("units[{i}].bytes: missing or not a size"))?;
    // Optional (an older lock has neither): without them the unit is still kept when
    // its fingerprint matches, but its file is parsed.
    let cluster = cluster.filter(|s| is_sha256_hex(s)).unwrap_or_default();
    let source = source.unwrap_or_default();
    Ok(UnitRecord {
        dir,
        inputs,
        bytes,
        cluster,
        source,
    })
}

/// The dedicated reader, else the YAML reader.
fn read_any(text: &str) -> std::result::Result<LockFacts, String> {
    match read_canonical(text) {
        Some(c) => Ok(c),
        None => read_general(text),
    }
}

/// Whether `p` may be an `outputs` path: a safe relative path inside OUT that is
/// neither the lock nor in the staging directory.
fn owned_path(p: &str) -> bool {
    is_safe_relative(p) && p != FILE && p.split('/').next() != Some(super::super::journal::STAGING)
}

/// Bytes of `outputs` items per piece read on the pool: a 100,000-Cluster lock lists 1.5
/// million files (250 MB).
const OUTPUTS_PIECE: usize = 1 << 20;

/// A lock in the writer's shape, its `outputs` read on all cores: the text before the
/// items (up to `outputs:`), the text from the next top-level key on, and the items as
/// spans of `text`, in order. `None` (the caller reads the whole text in order) unless every
/// item is exactly the writer's `- path: P` / `  sha256: S` pair of plain scalars with
/// a path inside OUT and a sha256: what the in-order reader reads, and accepts, the
/// same way.
fn outputs_on_all_cores(text: &str) -> Option<(&str, &str, Vec<Span>)> {
    use rayon::prelude::*;
    const KEY: &str = "\noutputs:\n";
    let start = text.find(KEY)? + KEY.len();
    // The writer's next key is `providers`; any other line between (a comment, another
    // key) fails the items below.
    // Searched from the end: the section is most of the text (one `providers:` past
    // the items fails them as any other line would).
    // (memchr's vectorised search: `str::rfind` took 17 ms over the 25 MB of a
    // 100,000-Cluster lock's `units`.)
    let end = start + rfind_providers(&text.as_bytes()[start..])? + 1;
    let items = &text[start..end];
    let cuts = item_cuts(items);
    let pieces: Vec<Option<Vec<Span>>> = cuts
        .par_windows(2)
        .map(|w| read_output_items(&items[w[0]..w[1]], start + w[0]))
        .collect();
    let pieces: Vec<Vec<Span>> = pieces.into_iter().collect::<Option<_>>()?;
    Some((
        &text[..start],
        &text[end..],
        super::outputs::concat_on_all_cores(&pieces),
    ))
}

/// Where the last `\nproviders:` starts in `hay` (as `memmem::rfind`): found by its
/// one `v`, searched backwards with the vectorised `memrchr` and each hit checked. The
/// `units` section after it (25 MB at 100,000 Clusters) has few `v`s, and `rfind`'s
/// reverse search is not vectorised (24 ms there).
pub(in crate::gitops) fn rfind_providers(hay: &[u8]) -> Option<usize> {
    const KEY: &[u8] = b"\nproviders:";
    const V: usize = 5;
    memchr::memrchr_iter(KEY[V], hay).find_map(|i| {
        let s = i.checked_sub(V)?;
        hay[s..].starts_with(KEY).then_some(s)
    })
}

/// Where pieces of about [`OUTPUTS_PIECE`] bytes of `items` start: at an item (a line
/// starting `- `), from 0, ending with the length.
fn item_cuts(items: &str) -> Vec<usize> {
    let mut cuts = vec![0];
    let mut at = OUTPUTS_PIECE;
    while at < items.len() {
        match items[at..].find("\n- ") {
            Some(i) => {
                cuts.push(at + i + 1);
                at += i + 1 + OUTPUTS_PIECE;
            }
            None => break,
        }
    }
    cuts.push(items.len());
    cuts
}

/// [`read_canonical`] of the text after the outputs (`providers`, `tool`, `units`), its
/// `units` items read on all cores in pieces that start at an item (100,000 of them in
/// a 100,000-Cluster lock). A piece that leaves the section (a top-level key) or is
/// not in the writer's shape sends the whole text to [`read_canonical`], so the facts,
/// or `None`, are the in-order ones.
fn read_after_outputs(after: &str) -> Option<LockFacts> {
    use rayon::prelude::*;
    const KEY: &str = "\nunits:\n";
    let Some(at) = after.find(KEY) else {
        return read_canonical(after);
    };
    let start = at + KEY.len();
    let items = &after[start..];
    let cuts = item_cuts(items);
    let pieces: Option<Vec<LockFacts>> = cuts
        .par_windows(2)
        .map(|w| read_lines(&items[w[0]..w[1]], "units", false))
        .collect();
    match (read_canonical(&after[..start]), pieces) {
        (Some(head), Some(pieces)) => Some(pieces.into_iter().fold(head, LockFacts::join)),
        _ => read_canonical(after),
    }
}

/// `- path: P\n  sha256: S\n` items, each plain and valid; `None` on anything else.
/// One pass over the bytes: the path's line is scanned once for its end, its bytes and
/// its segments; the sum's line has a fixed length. Spans are offsets in the whole
/// text, where the piece starts at `base`.
fn read_output_items(piece: &str, base: usize) -> Option<Vec<Span>> {
    const PATH: &[u8] = b"- path: ";
    const SUM: &[u8] = b"  sha256: ";
    let b = piece.as_bytes();
    // Every item is at least MIN_ITEM bytes: the vector never grows (a grown one is
    // copied, and its new pages faulted in, piece after piece).
    const MIN_ITEM: usize = PATH.len() + 2 + SUM.len() + 64 + 1;
    let mut out = Vec::with_capacity(piece.len() / MIN_ITEM + 1);
    let mut i = 0;
    while i < b.len() {
        if !b[i..].starts_with(PATH) {
            return None;
        }
        let at = i + PATH.len();
        let end = at + plain_segments(&b[at..])?;
        let sum_at = end + 1 + SUM.len();
        if b.get(end + 1..sum_at)? != SUM || b.get(sum_at + 64) != Some(&b'\n') {
            return None;
        }
        // Byte offsets of ASCII: the slices are on character boundaries.
        let (path, sha) = (&piece[at..end], &piece[sum_at..sum_at + 64]);
        // What `reads_plain` and `owned_path` add to `plain_segments` for the path,
        // and `reads_plain` and `is_sha256_hex` for the sum.
        let path_ok = crate::yaml::resolve::plain_resolves_to_str(path)
            && path != FILE
            && path.split('/').next() != Some(super::super::journal::STAGING);
        let sum_ok = super::surely_plain_sum(sha)
            || (is_sha256_hex(sha) && crate::yaml::resolve::plain_resolves_to_str(sha));
        if !(path_ok && sum_ok) {
            return None;
        }
        out.push(Span {
            path: base + at,
            path_len: end - at,
            sum: base + sum_at,
            sum_len: 64,
        });
        i = sum_at + 65;
    }
    Some(out)
}

/// The length of the line at the start of `b` (up to its `\n`) when it is a path of
/// plain bytes ([`super::plain_bytes`]) whose segments are neither empty, `.` nor `..`:
/// what [`owned_path`] and [`reads_plain`] then confirm cheaply. Three passes that the
/// compiler vectorises or that are short (the line's end by `memchr`, its bytes by
/// range compares folded without a branch, its segments by `/`), not one branch and
/// table look-up per byte: a 100,000-Cluster lock has 1.5 million of these lines.
fn plain_segments(b: &[u8]) -> Option<usize> {
    let end = memchr::memchr(b'\n', b)?;
    let line = &b[..end];
    if !line
        .iter()
        .fold(true, |ok, &c| ok & super::plain_byte_ranges(c))
    {
        return None;
    }
    // Empty, `.` or `..` (by length and bytes: a slice pattern is a `memcmp` call per
    // segment, and a 100,000-Cluster lock has 7 million segments).
    if line
        .split(|&c| c == b'/')
        .any(|seg| seg.len() <= 2 && seg.iter().all(|&d| d == b'.'))
    {
        return None;
    }
    Some(end)
}

pub(super) fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// What the readers find: `lockVersion`, `(outputs[*].path, outputs[*].sha256)`,
/// `units[*].dir`, `.inputs`, `.bytes`, `.cluster`, `.source` and `inputs[*].path`,
/// `.sha256`, `.clusters` (numbers as text).
#[derive(Default)]
pub(super) struct LockFacts {
    pub(super) version: Option<u64>,
    pub(super) outputs: Vec<(Option<String>, Option<String>)>,
    pub(super) units: Vec<[Option<String>; 5]>,
    pub(super) inputs: Vec<[Option<String>; 3]>,
}

impl LockFacts {
    /// The facts of a text followed by those of the text after it, as the readers
    /// would find them in the two texts joined.
    fn join(mut self, next: LockFacts) -> LockFacts {
        self.version = next.version.or(self.version);
        append(&mut self.outputs, next.outputs);
        append(&mut self.units, next.units);
        append(&mut self.inputs, next.inputs);
        self
    }
}

/// `to.extend(more)`, without copying `more` when `to` is empty (the text before a
/// lock's outputs has no units: 100,000 of them are after).
fn append<T>(to: &mut Vec<T>, mut more: Vec<T>) {
    if to.is_empty() {
        std::mem::swap(to, &mut more);
    } else {
        to.append(&mut more);
    }
}

/// Text the line reader reads as the string it is: what the writer prints plain and
/// YAML reads back as the same string.
fn reads_plain(v: &str) -> bool {
    if super::surely_plain_sum(v) {
        return true;
    }
    !v.is_empty() && super::plain_bytes(v) && crate::yaml::resolve::plain_resolves_to_str(v)
}

/// A count or size: digits, which YAML reads as the number they are (a repeated key or
/// anything else leaves the line reader).
fn digits(slot: &mut Option<String>, v: &str) -> Option<()> {
    if slot.is_some() || v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    *slot = Some(v.to_string());
    Some(())
}

/// The dedicated reader: `None` unless `text` has exactly the shape go-yaml gives
/// [`lock_text`]'s value (comment lines, top-level keys at column 0, block sequences
/// of `- key: value` / `  key: value` items, plain scalars).
pub(super) fn read_canonical(text: &str) -> Option<LockFacts> {
    read_lines(text, "", true)
}

/// [`read_canonical`] from inside `section`; `keys`: whether a top-level key may
/// follow (else `None`).
fn read_lines(text: &str, section: &str, keys: bool) -> Option<LockFacts> {
    let mut facts = LockFacts::default();
    let mut section = section;
    for line in text.lines() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (item_start, body) = if let Some(b) = line.strip_prefix("- ") {
            (true, b)
        } else if let Some(b) = line.strip_prefix("  ") {
            (false, b)
        } else {
            // A top-level key.
            if !keys {
                return None;
            }
            let (k, v) = line.split_once(':')?;
            let v = v.trim_start();
            match (k, v) {
                ("lockVersion", n) => facts.version = Some(n.parse::<u64>().ok()?),
                ("tool", _) => {}
                ("command" | "inputs" | "outputs" | "providers" | "units", "") => {}
                ("inputs" | "outputs" | "providers" | "units", "[]") => {}
                _ => return None,
            }
            section = k;
            continue;
        };
        if section == "command" || section == "providers" {
            continue; // read by [`read_command`] and `sealed::read_records`
        }
        if section.is_empty() || body.starts_with(' ') {
            return None;
        }
        let (k, v) = body.split_once(": ")?;
        let slot = match section {
            "outputs" => {
                if item_start {
                    facts.outputs.push((None, None));
                }
                let e = facts.outputs.last_mut()?;
                match k {
                    "path" => &mut e.0,
                    "sha256" => &mut e.1,
                    _ => continue,
                }
            }
            "units" => {
                if item_start {
                    facts.units.push(Default::default());
                }
                let e = facts.units.last_mut()?;
                match k {
                    "dir" => &mut e[0],
                    "inputs" => &mut e[1],
                    "bytes" => {
                        digits(&mut e[2], v)?;
                        continue;
                    }
                    // Hints for skipping an unchanged file, like `inputs`: one the
                    // writer had to quote is left unread.
                    "cluster" | "source" if !reads_plain(v) => continue,
                    "cluster" => &mut e[3],
                    "source" => &mut e[4],
                    _ => continue,
                }
            }
            "inputs" => {
                if item_start {
                    facts.inputs.push(Default::default());
                }
                let e = facts.inputs.last_mut()?;
                // Inputs are only a hint for skipping: a path the writer had to quote
                // is left unread (that file is parsed), not a reason to leave the
                // line reader.
                if k != "clusters" && !reads_plain(v) {
                    continue;
                }
                match k {
                    "path" => &mut e[0],
                    "sha256" => &mut e[1],
                    "clusters" => {
                        digits(&mut e[2], v)?;
                        continue;
                    }
                    _ => continue,
                }
            }
            _ => continue,
        };
        // Only text the writer prints plain and the reader reads back as the same
        // string; anything else (and a repeated key) goes to the YAML reader.
        if !reads_plain(v) || slot.is_some() {
            return None;
        }
        *slot = Some(v.to_string());
    }
    Some(facts)
}

/// Any other lock, through the YAML reader (and its limits).
pub(super) fn read_general(text: &str) -> std::result::Result<LockFacts, String> {
    let v = crate::yaml::parse_value(text).map_err(|e| e.message().to_string())?;
    let version = v.get("lockVersion").and_then(Value::as_u64).or_else(|| {
        v.get("lockVersion")
            .and_then(Value::as_f64)
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .map(|f| f as u64)
    });
    let mut facts = LockFacts {
        version,
        ..LockFacts::default()
    };
    let list = |k: &str| -> std::result::Result<Option<&Vec<Value>>, String> {
        match v.get(k) {
            Some(Value::Array(a)) => Ok(Some(a)),
            None | Some(Value::Null) => Ok(None),
            Some(_) if version != Some(LOCK_VERSION) => Ok(None),
            Some(_) => Err(format!("{k}: not a list")),
        }
    };
    let field = |o: &Value, k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
    if let Some(outs) = list("outputs")? {
        facts.outputs = outs
            .iter()
            .map(|o| (field(o, "path"), field(o, "sha256")))
            .collect();
    }
    let size = |o: &Value, k: &str| {
        o.get(k)
            .and_then(Value::as_f64)
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9.0e15)
            .map(|f| (f as u64).to_string())
    };
    if let Some(units) = list("units")? {
        facts.units = units
            .iter()
            .map(|o| {
                [
                    field(o, "dir"),
                    field(o, "inputs"),
                    size(o, "bytes"),
                    field(o, "cluster"),
                    field(o, "source"),
                ]
            })
            .collect();
    }
    if let Some(inputs) = list("inputs")? {
        facts.inputs = inputs
            .iter()
            .map(|o| {
                [
                    field(o, "path"),
                    field(o, "sha256"),
                    o.get("clusters").and_then(|_| size(o, "clusters")),
                ]
            })
            .collect();
    }
    Ok(facts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A lock as the writer writes it, with `n` files (several pieces from about 7,000).
    fn lock_text(n: usize, odd: &[(usize, &str)]) -> String {
        let mut files: BTreeMap<String, String> = (0..n)
            .map(|i| {
                (
                    format!("clusters/ns{}/c{i:06}/cluster-c{i:06}.yaml", i % 10),
                    "x".to_string(),
                )
            })
            .collect();
        for (i, p) in odd {
            files.insert(format!("clusters/ns0/c{i:06}/{p}"), String::new());
        }
        let set = crate::model::RenderSet::default();
        super::super::lock_text(&set, &files, std::path::Path::new("/o"), None)
    }

    fn in_order(text: &str) -> Outputs {
        read_canonical(text)
            .unwrap()
            .outputs
            .into_iter()
            .map(|(p, s)| (p.unwrap(), s.unwrap()))
            .collect()
    }

    /// The items read on all cores, as outputs of `text`.
    fn fast(text: &str, spans: Vec<Span>) -> Outputs {
        Outputs::from_spans(text.to_string(), spans).unwrap()
    }

    #[test]
    fn providers_key_found_as_memmem_finds_it() {
        let key = "\nproviders:";
        let parts = [
            "",
            "v",
            "\n",
            "providers:",
            key,
            "\nprov",
            "iders:",
            "x v y\n",
            "vv",
        ];
        // Every text of up to five parts (9^5 texts).
        let mut texts = vec![String::new()];
        for _ in 0..5 {
            let next: Vec<String> = texts
                .iter()
                .flat_map(|t| parts.iter().map(move |p| format!("{t}{p}")))
                .collect();
            texts.extend(next);
            texts.sort();
            texts.dedup();
        }
        assert!(texts.len() > 10_000);
        for t in &texts {
            assert_eq!(
                rfind_providers(t.as_bytes()),
                memchr::memmem::rfind(t.as_bytes(), key.as_bytes()),
                "{t:?}"
            );
        }
    }

    #[test]
    fn plain_segments_refuse_empty_and_dot_segments() {
        for (line, want) in [
            ("a/b\n", Some(3)),
            ("a/.../b\n", Some(7)),
            ("a/.b/..c/d.\n", Some(11)),
            (".x\n", Some(2)),
            ("a//b\n", None),
            ("/a\n", None),
            ("a/\n", None),
            ("./a\n", None),
            ("a/./b\n", None),
            ("a/..\n", None),
            ("..\n", None),
            ("a/b", None),
            ("a b\n", None),
        ] {
            assert_eq!(plain_segments(line.as_bytes()), want, "{line:?}");
        }
    }

    /// The byte-by-byte reading [`plain_segments`] replaced: one pass, a table look-up
    /// per byte.
    fn plain_segments_bytewise(b: &[u8]) -> Option<usize> {
        let mut seg = 0;
        for (i, &c) in b.iter().enumerate() {
            if c == b'\n' || c == b'/' {
                if i - seg <= 2 && b[seg..i].iter().all(|&d| d == b'.') {
                    return None;
                }
                if c == b'\n' {
                    return Some(i);
                }
                seg = i + 1;
            } else if !super::super::plain_byte(c) {
                return None;
            }
        }
        None
    }

    proptest::proptest! {
        #[test]
        fn plain_segments_read_as_byte_by_byte(
            bytes in proptest::collection::vec(
                proptest::sample::select(vec![b'a', b'Z', b'0', b'.', b'/', b'\n', b' ', b'_', b'-', 0xc3]),
                0..24,
            )
        ) {
            proptest::prop_assert_eq!(plain_segments(&bytes), plain_segments_bytewise(&bytes));
        }
    }

    #[test]
    fn outputs_read_on_all_cores_are_the_in_order_outputs() {
        let text = lock_text(20_000, &[]);
        assert!(text.len() > 2 * OUTPUTS_PIECE);
        let (before, after, spans) = outputs_on_all_cores(&text).unwrap();
        assert!(before.ends_with("outputs:\n") && after.starts_with("providers:"));
        let outputs = fast(&text, spans);
        assert_eq!(outputs.len(), 20_000);
        assert_eq!(outputs, in_order(&text));
        assert_eq!(read_lock(&text, "l").unwrap().outputs, outputs);
    }

    #[test]
    fn units_read_on_all_cores_are_the_in_order_units() {
        use super::super::UnitRecord;
        // 12,000 units: about 3 MB, several pieces.
        let records: Vec<UnitRecord> = (0..12_000u64)
            .map(|i| UnitRecord {
                dir: format!("clusters/ns{}/c{i:06}", i % 10),
                inputs: crate::model::sha256_hex(&i.to_le_bytes()),
                bytes: i,
                cluster: crate::model::sha256_hex(b"c"),
                source: "../in/a.yaml".into(),
            })
            .collect();
        let head = serde_json::json!({"lockVersion": 1, "inputs": []});
        let outputs = [("a.yaml", crate::model::sha256_hex(b""))];
        let text = super::super::assemble(&head, &outputs, &[], &records);
        let after = &text[text.find("\nproviders:").unwrap() + 1..];
        assert!(after.len() > 2 * OUTPUTS_PIECE);
        let units = |f: Option<LockFacts>| f.map(|f| f.units);
        let whole = units(read_canonical(after));
        assert_eq!(whole.as_ref().map(Vec::len), Some(12_000));
        assert_eq!(units(read_after_outputs(after)), whole);
        assert_eq!(read_lock(&text, "l").unwrap().units, records);
        // Two bad records, far apart (checked on all cores): the first is the error.
        for d in ["dir: clusters/ns0/c011000\n", "dir: clusters/ns3/c000003\n"] {
            assert_eq!(text.matches(d).count(), 1, "{d}");
        }
        let bad = text
            .replace("dir: clusters/ns0/c011000\n", "dir: other/ns0/c011000\n")
            .replace("dir: clusters/ns3/c000003\n", "dir: other/ns3/c000003\n");
        assert_ne!(bad, text);
        let e = read_lock(&bad, "l").unwrap_err().to_string();
        assert!(e.contains("units[3].dir: missing or not"), "{e}");
        // A top-level key, a repeated key or a bad line inside the items: the in-order
        // result, whatever it is.
        let at = after.find("- bytes: 6000\n").unwrap();
        for odd in [
            "zzz: 1\n",
            "  dir: clusters/ns0/x\n",
            "- \"bytes\": 1\n",
            "# c\n",
        ] {
            let t = format!("{}{odd}{}", &after[..at], &after[at..]);
            assert_eq!(
                units(read_after_outputs(&t)),
                units(read_canonical(&t)),
                "{odd}"
            );
        }
    }

    #[test]
    fn anything_but_the_writers_items_is_read_in_order() {
        // A path the writer quotes (a space), a comment line: the in-order readers read
        // them as before. A path the writer passes to go-yaml's writer (80 bytes or
        // more) and that still comes out plain is read on all cores, the same.
        let long = format!("{}.yaml", "l".repeat(90));
        for (odd, plain) in [("a b.yaml", false), (long.as_str(), true)] {
            let text = lock_text(9_000, &[(4_500, odd)]);
            let on_all = outputs_on_all_cores(&text);
            assert_eq!(on_all.is_some(), plain, "{odd}");
            if let Some((_, _, spans)) = on_all {
                assert_eq!(fast(&text, spans), in_order(&text));
            }
            let read = read_lock(&text, "l").unwrap().outputs;
            assert_eq!(read.len(), 9_001);
            assert!(read.iter().any(|o| o.path.ends_with(odd)));
        }
        let text = lock_text(9_000, &[]);
        let at = text.find("- path: clusters/ns5/c004505").unwrap();
        let commented = format!("{}# a comment\n{}", &text[..at], &text[at..]);
        assert!(outputs_on_all_cores(&commented).is_none());
        assert_eq!(
            read_lock(&commented, "l").unwrap(),
            read_lock(&text, "l").unwrap()
        );
    }

    #[test]
    fn an_entry_that_is_not_allowed_gives_the_in_order_error() {
        let text = lock_text(9_000, &[]);
        let n = |t: &str| {
            t[..t.find("- path: clusters/ns5/c004505").unwrap()]
                .matches("- path: ")
                .count()
        };
        let i = n(&text);
        for (from, to, field) in [
            ("clusters/ns5/c004505/", "clusters/ns5/../", "path"),
            (
                "clusters/ns5/c004505/cluster-c004505.yaml",
                ".capi-render.staging/x",
                "path",
            ),
            (
                "clusters/ns5/c004505/cluster-c004505.yaml",
                "capi-render.lock",
                "path",
            ),
        ] {
            let bad = text.replacen(from, to, 1);
            assert!(outputs_on_all_cores(&bad).is_none(), "{to}");
            let e = read_lock(&bad, "l").unwrap_err().to_string();
            assert!(e.contains(&format!("outputs[{i}].{field}")), "{e}");
        }
        // A sum that is not one.
        let at = text.find("- path: clusters/ns5/c004505").unwrap();
        let sum_at = at + text[at..].find("sha256: ").unwrap() + "sha256: ".len();
        let bad = format!(
            "{}{}{}",
            &text[..sum_at],
            "A".repeat(64),
            &text[sum_at + 64..]
        );
        assert!(outputs_on_all_cores(&bad).is_none());
        let e = read_lock(&bad, "l").unwrap_err().to_string();
        assert!(e.contains(&format!("outputs[{i}].sha256")), "{e}");
    }
}
