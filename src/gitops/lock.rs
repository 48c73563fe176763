//! `OUT/capi-render.lock`: what produced the tree (tool version, inputs with their
//! sha256, each provider's resolved version, contract and source) and the files
//! capi-render owns in OUT (path and sha256). Only files listed here are ever
//! replaced or removed by a later run.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::names::is_safe_relative;
use crate::error::{Error, Result};
use crate::model::sha256_hex;
use crate::render::{RenderSet, UnitKind};

pub const FILE: &str = "capi-render.lock";
/// Format version of the lock file.
pub const LOCK_VERSION: u64 = 1;

/// The tool line: `capi-render <version>`.
pub fn tool() -> String {
    format!("capi-render {}", env!("CARGO_PKG_VERSION"))
}

/// The lock's text for a set and the tree's files (the lock itself excluded).
pub fn lock_text(set: &RenderSet, files: &BTreeMap<String, String>) -> String {
    let inputs: Vec<Value> = set
        .inputs
        .iter()
        .map(|i| json!({"path": i.path, "sha256": i.sha256}))
        .collect();
    let providers: Vec<Value> = set
        .units
        .iter()
        .filter_map(|u| match &u.kind {
            UnitKind::Provider(p) => Some(json!({
                "namespace": u.namespace, "name": u.name, "type": p.provider_type,
                "kind": p.kind, "version": p.version, "contract": p.contract, "source": p.source,
            })),
            UnitKind::Cluster => None,
        })
        .collect();
    let outputs: Vec<Value> = files
        .iter()
        .map(|(p, c)| json!({"path": p, "sha256": sha256_hex(c.as_bytes())}))
        .collect();
    let v = json!({
        "lockVersion": LOCK_VERSION,
        "tool": tool(),
        "inputs": inputs,
        "providers": providers,
        "outputs": outputs,
    });
    format!(
        "# capi-render lock file: written by `capi-render render`, do not edit.\n# capi-render only ever replaces or removes the files listed under outputs.\n{}",
        crate::yaml::to_yaml(&v)
    )
}

/// A file the lock says capi-render wrote: its path in OUT and the sha256 of the
/// bytes written. A later run removes it only while it still has those bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owned {
    pub path: String,
    pub sha256: String,
}

/// The outputs a lock lists. `shown` names the file in errors. Every path must be a
/// safe relative path (a lock is never trusted to point outside OUT) and every entry
/// must carry the sha256 of what was written.
///
/// A lock in the shape [`lock_text`] writes is read by a dedicated line reader
/// (linear, no YAML node budget: a 100,000-Cluster tree lists over a million
/// files); anything else (a hand-edited lock) goes through the YAML reader and its
/// limits.
pub fn read_outputs(text: &str, shown: &str) -> Result<Vec<Owned>> {
    let bad = |what: &str| {
        Error::new(format!(
            "{shown}: {what}; fix or delete the lock (capi-render then only writes files that do not exist yet)"
        ))
        .in_file(shown)
    };
    let (version, entries) = match read_canonical(text) {
        Some(c) => c,
        None => read_general(text).map_err(|e| bad(&e))?,
    };
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
        if !is_safe_relative(&p) || p == FILE || p.split('/').next() == Some(super::writer::STAGING)
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
    Ok(out)
}

fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `(lockVersion, (outputs[*].path, outputs[*].sha256))` of a lock.
type LockFacts = (Option<u64>, Vec<(Option<String>, Option<String>)>);

/// The dedicated reader: `None` unless `text` has exactly the shape go-yaml gives
/// [`lock_text`]'s value (comment lines, top-level keys at column 0, block sequences
/// of `- key: value` / `  key: value` items, plain scalars).
fn read_canonical(text: &str) -> Option<LockFacts> {
    let mut version = None;
    let mut entries: Vec<(Option<String>, Option<String>)> = Vec::new();
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
                ("lockVersion", n) => version = Some(n.parse::<u64>().ok()?),
                ("tool", _) => {}
                ("inputs" | "outputs" | "providers", "") => {}
                ("inputs" | "outputs" | "providers", "[]") => {}
                _ => return None,
            }
            section = k;
            continue;
        };
        if section.is_empty() || body.starts_with(' ') {
            return None;
        }
        if section != "outputs" {
            continue;
        }
        if item_start {
            entries.push((None, None));
        }
        let (k, v) = body.split_once(": ")?;
        let slot = match k {
            "path" => &mut entries.last_mut()?.0,
            "sha256" => &mut entries.last_mut()?.1,
            _ => continue,
        };
        // Only text the writer prints plain and the reader reads back as the same
        // string; anything else (and a repeated key) goes to the YAML reader.
        let plain = !v.is_empty()
            && v.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._/-".contains(&b))
            && crate::yaml::resolve::plain_resolves_to_str(v);
        if !plain || slot.is_some() {
            return None;
        }
        *slot = Some(v.to_string());
    }
    Some((version, entries))
}

/// Any other lock, through the YAML reader (and its limits).
fn read_general(text: &str) -> std::result::Result<LockFacts, String> {
    let v = crate::yaml::parse_value(text).map_err(|e| e.message().to_string())?;
    let version = v.get("lockVersion").and_then(Value::as_u64).or_else(|| {
        v.get("lockVersion")
            .and_then(Value::as_f64)
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .map(|f| f as u64)
    });
    let outs = match v.get("outputs") {
        Some(Value::Array(a)) => a,
        None | Some(Value::Null) => return Ok((version, Vec::new())),
        Some(_) if version != Some(LOCK_VERSION) => return Ok((version, Vec::new())),
        Some(_) => return Err("outputs: not a list".to_string()),
    };
    let field = |o: &Value, k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
    let entries = outs
        .iter()
        .map(|o| (field(o, "path"), field(o, "sha256")))
        .collect();
    Ok((version, entries))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{InputFile, ProviderInfo, RenderedUnit};

    #[test]
    fn round_trip_of_outputs_and_facts() {
        let set = RenderSet {
            inputs: vec![InputFile {
                path: "in/p.yaml".into(),
                sha256: "ab".repeat(32),
            }],
            units: vec![RenderedUnit {
                kind: UnitKind::Provider(ProviderInfo {
                    provider_type: "core".into(),
                    kind: "CoreProvider".into(),
                    version: "v1.10.10".into(),
                    contract: "v1beta1".into(),
                    source: "repository:cluster-api/v1.10.10".into(),
                }),
                namespace: "capi-system".into(),
                name: "cluster-api".into(),
                objects: vec![],
            }],
            warnings: vec![],
        };
        let mut files = BTreeMap::new();
        files.insert("b/x.yaml".to_string(), "x: 1\n".to_string());
        files.insert("a.yaml".to_string(), "".to_string());
        let t = lock_text(&set, &files);
        let read = read_outputs(&t, "l").unwrap();
        let paths: Vec<&str> = read.iter().map(|o| o.path.as_str()).collect();
        assert_eq!(paths, vec!["a.yaml", "b/x.yaml"]);
        assert_eq!(read[0].sha256, sha256_hex(b""));
        assert_eq!(read[1].sha256, sha256_hex(b"x: 1\n"));
        let v = crate::yaml::parse_value(&t).unwrap();
        assert_eq!(v["providers"][0]["contract"], "v1beta1");
        assert_eq!(v["providers"][0]["version"], "v1.10.10");
        assert_eq!(v["inputs"][0]["path"], "in/p.yaml");
        assert_eq!(v["outputs"][0]["sha256"], sha256_hex(b""));
        assert_eq!(v["tool"], tool());
    }

    #[test]
    fn a_lock_of_100000_clusters_reads_back() {
        // 100,000 Clusters' worth of outputs (the node budget of the YAML reader
        // stopped at 250,000 nodes, about 50,000 entries).
        let mut files = BTreeMap::new();
        for i in 0..100_000 {
            files.insert(
                format!("clusters/ns-{}/c-{i}/cluster-c-{i}.yaml", i % 10),
                String::new(),
            );
        }
        let t = lock_text(&RenderSet::default(), &files);
        let read = read_outputs(&t, "OUT/capi-render.lock").unwrap();
        assert_eq!(read.len(), 100_000);
        assert!(read.iter().map(|o| &o.path).eq(files.keys()));
        assert!(read.iter().all(|o| o.sha256 == sha256_hex(b"")));
    }

    #[test]
    fn canonical_and_general_readers_agree() {
        let sum = sha256_hex(b"x");
        let paths = |t: &str| -> Vec<String> {
            let r = read_outputs(t, "l").unwrap();
            assert!(r.iter().all(|o| o.sha256 == sum), "{t}");
            r.into_iter().map(|o| o.path).collect()
        };
        // A lock that is not in the writer's shape (flow style, quoted paths) goes
        // through the YAML reader and gives the same outputs.
        let t = format!("lockVersion: 1\noutputs: [{{path: a.yaml, sha256: {sum}}}, {{path: 'b/c.yaml', sha256: '{sum}'}}]\n");
        assert_eq!(paths(&t), vec!["a.yaml", "b/c.yaml"]);
        let t = format!("# c\nlockVersion: 1\noutputs:\n- path: \"x y.yaml\"\n  sha256: {sum}\n");
        assert_eq!(paths(&t), vec!["x y.yaml"]);
        // The canonical shape, and the same with the keys the other way round.
        let t = format!("lockVersion: 1\noutputs:\n- path: a.yaml\n  sha256: {sum}\n");
        assert_eq!(paths(&t), vec!["a.yaml"]);
        let t = format!("lockVersion: 1\noutputs:\n- sha256: {sum}\n  path: a.yaml\n");
        assert_eq!(paths(&t), vec!["a.yaml"]);
        // A repeated key leaves the line reader; the YAML reader refuses it.
        let t =
            format!("lockVersion: 1\noutputs:\n- path: a.yaml\n  path: b.yaml\n  sha256: {sum}\n");
        assert!(read_outputs(&t, "l").is_err());
        // A plain scalar that YAML reads as a number is not a path.
        let t = format!("lockVersion: 1\noutputs:\n- path: 1e3\n  sha256: {sum}\n");
        assert!(read_outputs(&t, "l").is_err());
    }

    #[test]
    fn hostile_or_broken_locks_are_refused() {
        for (text, what) in [
            (
                "lockVersion: 1\noutputs:\n- path: ../../etc/passwd\n",
                "outputs[0].path",
            ),
            (
                "lockVersion: 1\noutputs:\n- path: /etc/passwd\n",
                "outputs[0].path",
            ),
            (
                "lockVersion: 1\noutputs:\n- path: capi-render.lock\n",
                "outputs[0].path",
            ),
            ("lockVersion: 1\noutputs:\n- sha256: x\n", "outputs[0].path"),
            (
                "lockVersion: 1\noutputs:\n- path: a.yaml\n",
                "outputs[0].sha256",
            ),
            (
                "lockVersion: 1\noutputs:\n- path: a.yaml\n  sha256: abc\n",
                "outputs[0].sha256",
            ),
            ("lockVersion: 2\n", "lockVersion"),
            ("outputs: []\n", "lockVersion"),
            ("lockVersion: [\n", "OUT/capi-render.lock"),
        ] {
            let e = read_outputs(text, "OUT/capi-render.lock").unwrap_err();
            assert!(e.message().contains(what), "{text}: {e}");
        }
    }
}
