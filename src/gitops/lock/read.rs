//! Reading `capi-render.lock` back: a line reader for the shape the writer gives it
//! (linear, no YAML node budget: a 100,000-Cluster tree lists over a million files),
//! the YAML reader for anything else, and the checks every entry must pass (a lock is
//! untrusted input).

use serde_json::Value;

use super::{Lock, LockInput, Owned, UnitRecord, FILE, LOCK_VERSION};
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
pub fn read_outputs(text: &str, shown: &str) -> Result<Vec<Owned>> {
    Ok(read_lock(text, shown)?.outputs)
}

/// [`read_outputs`] and the unit records: each a Cluster's directory, a sha256 and a
/// size.
pub fn read_lock(text: &str, shown: &str) -> Result<Lock> {
    let bad = |what: &str| {
        Error::new(format!(
            "{shown}: {what}; fix or delete the lock (capi-render then only writes files that do not exist yet)"
        ))
        .in_file(shown)
    };
    let facts = match read_canonical(text) {
        Some(c) => c,
        None => read_general(text).map_err(|e| bad(&e))?,
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
    let mut out = Vec::with_capacity(entries.len());
    for (i, (p, sum)) in entries.into_iter().enumerate() {
        let p = p.ok_or_else(|| bad(&format!("outputs[{i}].path: missing or not a string")))?;
        if !is_safe_relative(&p)
            || p == FILE
            || p.split('/').next() == Some(super::super::journal::STAGING)
        {
            return Err(bad(&format!(
                "outputs[{i}].path: {p:?} is not a relative path inside OUT"
            )));
        }
        let sha256 = sum.filter(|s| is_sha256_hex(s)).ok_or_else(|| {
            bad(&format!(
                "outputs[{i}].sha256: missing or not a sha256 (64 lowercase hex digits)"
            ))
        })?;
        out.push(Owned { path: p, sha256 });
    }
    let mut units = Vec::with_capacity(facts.units.len());
    for (i, [dir, inputs, bytes, cluster, source]) in facts.units.into_iter().enumerate() {
        let dir = dir
            .filter(|d| {
                is_safe_relative(d) && d.split('/').count() == 3 && d.starts_with("clusters/")
            })
            .ok_or_else(|| {
                bad(&format!(
                    "units[{i}].dir: missing or not a Cluster's directory"
                ))
            })?;
        let inputs = inputs
            .filter(|s| is_sha256_hex(s))
            .ok_or_else(|| bad(&format!("units[{i}].inputs: missing or not a sha256")))?;
        let bytes = bytes
            .and_then(|b| b.parse::<u64>().ok())
            .ok_or_else(|| bad(&format!("units[{i}].bytes: missing or not a size")))?;
        // Optional (an older lock has neither): without them the unit is still kept
        // when its fingerprint matches, but its file is parsed.
        let cluster = cluster.filter(|s| is_sha256_hex(s)).unwrap_or_default();
        let source = source.unwrap_or_default();
        units.push(UnitRecord {
            dir,
            inputs,
            bytes,
            cluster,
            source,
        });
    }
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
    })
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

/// Text the line reader reads as the string it is: what the writer prints plain and
/// YAML reads back as the same string.
fn reads_plain(v: &str) -> bool {
    if super::surely_plain_sum(v) {
        return true;
    }
    !v.is_empty()
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._/-".contains(&b))
        && crate::yaml::resolve::plain_resolves_to_str(v)
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
    let mut facts = LockFacts::default();
    let mut section = "";
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
        if section == "command" {
            continue; // read by [`read_command`]
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
