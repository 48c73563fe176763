//! `OUT/capi-render.lock`: what produced the tree (tool version, inputs with their
//! sha256, each provider's resolved version, contract and source) and the files
//! capi-render owns in OUT (path and sha256). Only files listed here are ever
//! replaced or removed by a later run.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use super::flux::UnitSummary;
use super::names::is_safe_relative;
use crate::error::{Error, Result};
use crate::model::sha256_hex;
use crate::model::{InputFile, RenderSet, UnitKind};
use crate::paths::relative_to;

pub use super::command::{read_command, RenderCommand};

pub const FILE: &str = "capi-render.lock";
/// Format version of the lock file.
pub const LOCK_VERSION: u64 = 1;

/// The tool line: `capi-render <version>`.
pub fn tool() -> String {
    format!("capi-render {}", env!("CARGO_PKG_VERSION"))
}

/// The lock's text for a set and the tree's files (the lock itself excluded), for a
/// lock in directory `base`.
pub fn lock_text(
    set: &RenderSet,
    files: &BTreeMap<String, String>,
    base: &Path,
    command: Option<&RenderCommand>,
) -> String {
    let units: Vec<UnitSummary> = set.units.iter().map(UnitSummary::of).collect();
    let outputs: Vec<(String, String)> = files
        .iter()
        .map(|(p, c)| (p.clone(), sha256_hex(c.as_bytes())))
        .collect();
    lock_text_of(&set.inputs, &units, &outputs, &[], base, command)
}

/// The lock's text from the inputs, the units (their provider facts) and the tree's
/// files as `(path, sha256)`, sorted by path (the lock itself excluded). The lock is
/// in directory `base` (OUT): input paths and repository sources are written relative
/// to it ([`crate::paths::relative_to`]), so the lock is the same in every clone and
/// from every working directory.
pub fn lock_text_of(
    inputs: &[InputFile],
    units: &[UnitSummary],
    outputs: &[(String, String)],
    records: &[UnitRecord],
    base: &Path,
    command: Option<&RenderCommand>,
) -> String {
    let providers: Vec<Value> = units
        .iter()
        .filter_map(|u| provider_entry(u, base))
        .collect();
    assemble(&head(inputs, base, command), outputs, &providers, records)
}

/// The lock's `lockVersion`, `inputs` and `command`, paths relative to `base` (OUT).
pub fn head(inputs: &[InputFile], base: &Path, command: Option<&RenderCommand>) -> Value {
    let inputs: Vec<Value> = inputs
        .iter()
        .map(|i| json!({"path": relative_to(&i.path, base), "sha256": i.sha256}))
        .collect();
    let mut head = json!({"lockVersion": LOCK_VERSION, "inputs": inputs});
    if let Some(c) = command {
        head["command"] = c.to_value(base);
    }
    head
}

/// A provider unit's `providers` entry (its repository source relative to `base`);
/// `None` for a Cluster.
pub fn provider_entry(u: &UnitSummary, base: &Path) -> Option<Value> {
    let source = |s: &str| match s.strip_prefix("repository:") {
        Some(dir) => format!("repository:{}", relative_to(dir, base)),
        None => s.to_string(),
    };
    match &u.kind {
        UnitKind::Provider(p) | UnitKind::CertManager(p) => Some(json!({
            "namespace": u.namespace, "name": u.name, "type": p.provider_type,
            "kind": p.kind, "version": p.version, "contract": p.contract, "source": source(&p.source),
        })),
        UnitKind::Cluster | UnitKind::Class => None,
    }
}

/// The lock's text from its [`head`], the tree's files as `(path, sha256)` sorted by
/// path (the lock itself excluded), the [`provider_entry`]s in unit order and the
/// Cluster records.
pub fn assemble(
    head: &Value,
    outputs: &[(String, String)],
    providers: &[Value],
    records: &[UnitRecord],
) -> String {
    // The document's keys in go-yaml's order are inputs, lockVersion, outputs,
    // providers, tool, units; each top-level entry is written on its own, and
    // `outputs` and `units` item by item (a 100,000-Cluster tree lists over a million
    // files), which gives the bytes of writing the whole document at once.
    let tail = json!({"tool": tool(), "providers": providers});
    let mut text = String::from(
        "# capi-render lock file: written by `capi-render render`, do not edit.\n# capi-render only ever replaces or removes the files listed under outputs.\n",
    );
    text.push_str(&crate::yaml::to_yaml(head));
    if outputs.is_empty() {
        text.push_str("outputs: []\n");
    } else {
        text.push_str("outputs:\n");
        for (p, sha) in outputs {
            output_entry(p, sha, &mut text);
        }
    }
    text.push_str(&crate::yaml::to_yaml(&tail));
    if !records.is_empty() {
        text.push_str("units:\n");
        for r in records {
            let item = json!({"units": [{"dir": r.dir, "inputs": r.inputs, "bytes": r.bytes}]});
            let one = crate::yaml::to_yaml(&item);
            text.push_str(one.strip_prefix("units:\n").unwrap_or(&one));
        }
    }
    text
}

/// What the lock records of a Cluster's unit, for the next run to skip it when
/// nothing it is rendered from changed: its directory, the fingerprint of its inputs
/// (`render::Produced`) and the total size of its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitRecord {
    pub dir: String,
    pub inputs: String,
    pub bytes: u64,
}

/// What a lock says: the files capi-render owns and the units it can skip.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lock {
    pub outputs: Vec<Owned>,
    pub units: Vec<UnitRecord>,
}

/// One `outputs` item as the YAML writer writes it inside the lock: plain scalars
/// written directly, anything that needs quoting through the writer itself.
fn output_entry(path: &str, sha: &str, text: &mut String) {
    let plain = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-'))
            && s.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
            && crate::yaml::resolve::plain_resolves_to_str(s)
    };
    if plain(path) && plain(sha) && path.len() < 80 {
        text.push_str("- path: ");
        text.push_str(path);
        text.push_str("\n  sha256: ");
        text.push_str(sha);
        text.push('\n');
        return;
    }
    let one = crate::yaml::to_yaml(&json!({"outputs": [{"path": path, "sha256": sha}]}));
    text.push_str(one.strip_prefix("outputs:\n").unwrap_or(&one));
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
            || p.split('/').next() == Some(super::journal::STAGING)
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
    for (i, [dir, inputs, bytes]) in facts.units.into_iter().enumerate() {
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
        units.push(UnitRecord { dir, inputs, bytes });
    }
    Ok(Lock {
        outputs: out,
        units,
    })
}

fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// What the readers find: `lockVersion`, `(outputs[*].path, outputs[*].sha256)` and
/// `units[*].dir`, `.inputs`, `.bytes` (as text).
#[derive(Default)]
struct LockFacts {
    version: Option<u64>,
    outputs: Vec<(Option<String>, Option<String>)>,
    units: Vec<[Option<String>; 3]>,
}

/// The dedicated reader: `None` unless `text` has exactly the shape go-yaml gives
/// [`lock_text`]'s value (comment lines, top-level keys at column 0, block sequences
/// of `- key: value` / `  key: value` items, plain scalars).
fn read_canonical(text: &str) -> Option<LockFacts> {
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
                    // A size: digits, which YAML reads as the number they are.
                    "bytes" if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
                        if e[2].is_some() {
                            return None;
                        }
                        e[2] = Some(v.to_string());
                        continue;
                    }
                    "bytes" => return None,
                    _ => continue,
                }
            }
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
    Some(facts)
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
    if let Some(units) = list("units")? {
        let size = |o: &Value| {
            o.get("bytes")
                .and_then(Value::as_f64)
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9.0e15)
                .map(|f| (f as u64).to_string())
        };
        facts.units = units
            .iter()
            .map(|o| [field(o, "dir"), field(o, "inputs"), size(o)])
            .collect();
    }
    Ok(facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_is_written_as_the_whole_document_would_be() {
        let inputs = vec![InputFile {
            path: "in/a.yaml".into(),
            sha256: "ab".repeat(32),
        }];
        let sha = |i: usize| format!("{:064x}", i * 7919);
        let paths = [
            "clusters/default/dev/cluster-dev.yaml",
            "a/1.0",
            "a/true",
            "x/-y",
            "y/.z",
            "z/weird name.yaml",
            "z/ü.yaml",
            "z/#x",
            "z/x:y",
            &format!("z/{}", "l".repeat(120)),
            "kustomization.yaml",
        ];
        let mut outputs: Vec<(String, String)> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| (p.to_string(), sha(i)))
            .collect();
        // An all-digit sum reads as a number: quoted.
        outputs.push(("d/n.yaml".into(), "1".repeat(64)));
        outputs.sort();
        let records = [
            UnitRecord {
                dir: "clusters/default/dev".into(),
                inputs: sha(3),
                bytes: 12345,
            },
            UnitRecord {
                dir: "clusters/x/y".into(),
                inputs: sha(4),
                bytes: 0,
            },
        ];
        for (outs, recs) in [(&outputs[..], &records[..]), (&[], &[])] {
            let mut whole = json!({
                "lockVersion": LOCK_VERSION,
                "tool": tool(),
                "inputs": [{"path": "in/a.yaml", "sha256": "ab".repeat(32)}],
                "providers": [],
                "outputs": outs.iter().map(|(p, s)| json!({"path": p, "sha256": s})).collect::<Vec<_>>(),
            });
            if !recs.is_empty() {
                whole["units"] = recs
                    .iter()
                    .map(|r| json!({"dir": r.dir, "inputs": r.inputs, "bytes": r.bytes}))
                    .collect();
            }
            let text = lock_text_of(&inputs, &[], outs, recs, Path::new("."), None);
            let body = text.splitn(3, '\n').nth(2).unwrap();
            assert_eq!(body, crate::yaml::to_yaml(&whole));
            let lock = read_lock(&text, "lock").unwrap();
            assert_eq!(lock.units, recs);
            // The general reader (a lock in another shape) reads the same.
            let general = read_general(&text).unwrap();
            assert_eq!(general.units.len(), recs.len());
            if let Some(c) = read_canonical(&text) {
                assert_eq!(c.units, general.units);
            }
            let plain = lock_text_of(
                &inputs,
                &[],
                &[("a/b.yaml".into(), "cd".repeat(32))],
                recs,
                Path::new("."),
                None,
            );
            let (c, g) = (
                read_canonical(&plain).unwrap(),
                read_general(&plain).unwrap(),
            );
            assert_eq!((c.units, c.outputs.len()), (g.units, 1));
            let read = read_outputs(&text, "lock").unwrap();
            assert_eq!(read.len(), outs.len());
        }
    }
    use crate::model::{InputFile, ProviderInfo, RenderedUnit};

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
                review: Vec::new(),
                after: Vec::new(),
            }],
            warnings: vec![],
        };
        let mut files = BTreeMap::new();
        files.insert("b/x.yaml".to_string(), "x: 1\n".to_string());
        files.insert("a.yaml".to_string(), "".to_string());
        let t = lock_text(&set, &files, Path::new("."), None);
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
        let t = lock_text(&RenderSet::default(), &files, Path::new("."), None);
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

    #[test]
    fn the_command_is_recorded_relative_to_out_and_read_back() {
        let c = RenderCommand {
            files: vec!["capi/providers.yaml".into(), "./capi/clusters".into()],
            config: None,
            repository: Some("capi/repository".into()),
            oci_layout: None,
            no_namespaces: false,
            allow_empty: true,
            cert_manager: true,
            clusters: crate::model::ClusterMode::Flatten,
            flux: Some(("flux-system".into(), "capi/rendered".into())),
            flux_extras: Default::default(),
            argocd: None,
        };
        let t = lock_text_of(&[], &[], &[], &[], Path::new("capi/rendered"), Some(&c));
        assert!(t.contains("command:\n  allowEmpty: true\n  certManager: true\n  clusters: flatten\n  files:\n  - ../providers.yaml\n  - ../clusters\n  flux:\n    path: capi/rendered\n    source: flux-system\n  repository: ../repository\ninputs: []\n"), "{t}");
        // The fast reader still reads the lock; the command reads back.
        assert!(read_canonical(&t).is_some());
        let back = read_command(&t, "l").unwrap().unwrap();
        assert_eq!(back.files, ["../providers.yaml", "../clusters"]);
        assert_eq!(back.repository.as_deref(), Some("../repository"));
        assert!(back.allow_empty && back.cert_manager && !back.no_namespaces);
        assert_eq!(back.clusters, crate::model::ClusterMode::Flatten);
        assert_eq!(back.flux, c.flux);
        assert_eq!(back.flux_extras, Default::default());
        // The Flux options read back; a bad one recorded in a lock is an error.
        let with = RenderCommand {
            flux_extras: super::super::flux::Extras {
                depends_on: vec!["cert-manager".into()],
                interval: Some("5m".into()),
                timeout: None,
            },
            ..c.clone()
        };
        let t2 = lock_text_of(&[], &[], &[], &[], Path::new("capi/rendered"), Some(&with));
        assert!(t2.contains("  flux:\n    dependsOn:\n    - cert-manager\n    interval: 5m\n    path: capi/rendered\n"), "{t2}");
        assert_eq!(
            read_command(&t2, "l").unwrap().unwrap().flux_extras,
            with.flux_extras
        );
        let bad = t2.replace("interval: 5m", "interval: soon");
        assert!(read_command(&bad, "l")
            .unwrap_err()
            .message()
            .contains("--flux-interval \"soon\""));
        assert_eq!(read_command("lockVersion: 1\n", "l").unwrap(), None);
        let bad = t.replace(
            "  files:\n  - ../providers.yaml\n  - ../clusters\n",
            "  files: 3\n",
        );
        assert!(read_command(&bad, "l")
            .unwrap_err()
            .message()
            .contains("command.files: missing or not a list"));
        let odd = t.replace("  allowEmpty: true\n", "  shell: rm -rf /\n");
        assert!(read_command(&odd, "l")
            .unwrap_err()
            .message()
            .contains("command.shell: unknown field"));
    }
}
