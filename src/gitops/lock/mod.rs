//! `OUT/capi-render.lock`: what produced the tree (tool version, inputs with their
//! sha256, each provider's resolved version, contract and source) and the files
//! capi-render owns in OUT (path and sha256). Only files listed here are ever
//! replaced or removed by a later run.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use super::flux::UnitSummary;
use crate::model::sha256_hex;
use crate::model::{InputFile, RenderSet, UnitKind};
use crate::paths::relative_to;

pub use super::command::{read_command, RenderCommand};
use outputs::Span;
pub use outputs::{Outputs, OutputsIter, Owned};
pub use pieces::{assemble_pieces, assemble_runs, same_as_file, same_as_text, Run};
pub(in crate::gitops) use read::rfind_providers;
pub use read::{read_lock, read_outputs};

mod outputs;
mod pieces;
mod read;

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
    lock_text_of(
        &set.inputs,
        &BTreeMap::new(),
        &units,
        &outputs,
        &[],
        base,
        command,
    )
}

/// The lock's text from the inputs, the units (their provider facts) and the tree's
/// files as `(path, sha256)`, sorted by path (the lock itself excluded). The lock is
/// in directory `base` (OUT): input paths and repository sources are written relative
/// to it ([`crate::paths::relative_to`]), so the lock is the same in every clone and
/// from every working directory.
pub fn lock_text_of<P: AsRef<str> + Sync, S: AsRef<str> + Sync>(
    inputs: &[InputFile],
    clusters_only: &BTreeMap<String, usize>,
    units: &[UnitSummary],
    outputs: &[(P, S)],
    records: &[UnitRecord],
    base: &Path,
    command: Option<&RenderCommand>,
) -> String {
    let providers: Vec<Value> = units
        .iter()
        .filter_map(|u| provider_entry(u, base))
        .collect();
    assemble(
        &head(inputs, clusters_only, base, command),
        outputs,
        &providers,
        records,
    )
}

/// The lock's `lockVersion`, `inputs` and `command`, paths relative to `base` (OUT).
/// An input file that holds only topology Clusters carries `clusters: N` (its number
/// of Clusters): the next run may leave it unparsed while its sha256 is unchanged
/// ([`Deferrable`]).
pub fn head(
    inputs: &[InputFile],
    clusters_only: &BTreeMap<String, usize>,
    base: &Path,
    command: Option<&RenderCommand>,
) -> Value {
    let inputs: Vec<Value> = inputs
        .iter()
        .map(|i| {
            let mut v = json!({"path": relative_to(&i.path, base), "sha256": i.sha256});
            if let Some(n) = clusters_only.get(&i.path) {
                v["clusters"] = json!(n);
            }
            v
        })
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
        UnitKind::Provider(p) | UnitKind::CertManager(p) => {
            let mut e = json!({
                "namespace": u.namespace, "name": u.name, "type": p.provider_type,
                "kind": p.kind, "version": p.version, "contract": p.contract, "source": source(&p.source),
            });
            if !p.sealed.is_empty() {
                e["sealed"] = p
                    .sealed
                    .iter()
                    .map(|s| json!({"path": s.path, "salt": s.salt, "plainSha256": s.plain_sha256}))
                    .collect();
            }
            Some(e)
        }
        UnitKind::Cluster | UnitKind::Class | UnitKind::Namespaces => None,
    }
}

/// The lock's text from its [`head`], the tree's files as `(path, sha256)` sorted by
/// path (the lock itself excluded), the [`provider_entry`]s in unit order and the
/// Cluster records.
pub fn assemble<P: AsRef<str> + Sync, S: AsRef<str> + Sync>(
    head: &Value,
    outputs: &[(P, S)],
    providers: &[Value],
    records: &[UnitRecord],
) -> String {
    // About what a plain entry takes, so that a 10,000-Cluster lock (20 MB) is not
    // copied as it grows.
    let mut text = String::with_capacity(4096 + outputs.len() * 160 + records.len() * 280);
    assemble_pieces(head, outputs, providers, records, &mut |p| {
        text.push_str(p);
        true
    });
    text
}

/// What the lock records of a Cluster's unit, for the next run to skip it when
/// nothing it is rendered from changed: its directory, the fingerprint of its inputs
/// (`render::Produced`), the total size of its files, the sha256 of the Cluster itself
/// (`cluster`, what the fingerprint hashes of it) and the input file it came from
/// (`source`, relative to OUT as the inputs are; empty when unknown). With the last two
/// the next run can skip an unchanged file of Clusters without parsing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitRecord {
    pub dir: String,
    pub inputs: String,
    pub bytes: u64,
    pub cluster: String,
    pub source: String,
}

/// What a lock says: the files capi-render owns, the units it can skip and its input
/// files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lock {
    pub outputs: Outputs,
    pub units: Vec<UnitRecord>,
    pub inputs: Vec<LockInput>,
    /// The `command:` it records, when it records one that reads back
    /// ([`super::command::in_head`]).
    pub command: Option<RenderCommand>,
    /// The files it lists as written SOPS-encrypted (`providers[].sealed`,
    /// [`super::sealed`]).
    pub sealed: Vec<crate::model::SealedFile>,
}

/// An `inputs` item: a path relative to OUT, its sha256 and, for a file of topology
/// Clusters only, how many it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockInput {
    pub path: String,
    pub sha256: String,
    pub clusters: Option<usize>,
}

/// Text the YAML writer prints as a plain scalar that reads back as the same string
/// (the line reader's condition too); anything else goes through the writer.
fn plain(s: &str) -> bool {
    if surely_plain_sum(s) {
        return true;
    }
    plain_bytes(s)
        && s.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.')
        && s.len() < 80
        && crate::yaml::resolve::plain_resolves_to_str(s)
}

/// One `units` item as the YAML writer writes it inside the lock (keys in go-yaml's
/// order).
pub(super) fn unit_entry(r: &UnitRecord, text: &mut String) {
    let fields = [&r.cluster, &r.dir, &r.inputs, &r.source];
    if fields.iter().all(|f| plain(f)) {
        use std::fmt::Write;
        let _ = write!(
            text,
            "- bytes: {}\n  cluster: {}\n  dir: {}\n  inputs: {}\n  source: {}\n",
            r.bytes, r.cluster, r.dir, r.inputs, r.source
        );
        return;
    }
    let item = json!({"units": [{"dir": r.dir, "inputs": r.inputs, "bytes": r.bytes,
                                 "cluster": r.cluster, "source": r.source}]});
    let one = crate::yaml::to_yaml(&item);
    text.push_str(one.strip_prefix("units:\n").unwrap_or(&one));
}

/// One `outputs` item as the YAML writer writes it inside the lock: plain scalars
/// written directly, anything that needs quoting through the writer itself.
pub(super) fn output_entry(path: &str, sha: &str, text: &mut String) {
    if plain(path) && plain(sha) {
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

/// Whether every byte of `s` is one a lock value may have plain: ASCII letters and
/// digits, `.`, `_`, `/` and `-` (one table lookup per byte: a 100,000-Cluster lock
/// checks 250 MB of them).
pub(super) fn plain_bytes(s: &str) -> bool {
    s.bytes().all(plain_byte)
}

/// One byte of [`plain_bytes`].
pub(super) fn plain_byte(b: u8) -> bool {
    const OK: [bool; 256] = {
        let mut t = [false; 256];
        let mut b = 0;
        while b < 256 {
            let c = b as u8;
            t[b] = c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'/' | b'-');
            b += 1;
        }
        t
    };
    OK[usize::from(b)]
}

/// [`plain_byte`] by range compares instead of a table, so that a loop over a line's
/// bytes vectorises (the all-cores lock reader's check of each path).
pub(super) fn plain_byte_ranges(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'/' | b'-')
}

/// A sha256 in hex that YAML surely reads as a string (most of a lock's values, so the
/// writer and the line reader check it in one pass): 64 lowercase hex digits with a
/// letter other than `e` (without one it may be a number: `1e5…`), not a binary
/// int (`0b` and binary digits). Anything else goes through the full rule.
pub(super) fn surely_plain_sum(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 64 || s.starts_with("0b") {
        return false;
    }
    // One pass: every byte a lowercase hex digit, one a letter other than `e`.
    let (mut hex, mut letter) = (true, false);
    for &c in b {
        hex &= c.is_ascii_digit() || (b'a'..=b'f').contains(&c);
        letter |= matches!(c, b'a'..=b'd' | b'f');
    }
    hex && letter
}

#[cfg(test)]
mod tests {
    use super::read::{read_canonical, read_general};
    use super::*;

    #[test]
    fn plain_byte_by_ranges_is_the_table() {
        for b in 0..=255u8 {
            assert_eq!(plain_byte_ranges(b), plain_byte(b), "{b}");
        }
    }

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
        let rec = |dir: &str, i: usize, bytes: u64, source: &str| UnitRecord {
            dir: dir.into(),
            inputs: sha(i),
            bytes,
            cluster: sha(i + 10),
            source: source.into(),
        };
        // Sources as the writer prints them plain, and as it has to quote them.
        let records = [
            rec("clusters/default/dev", 3, 12345, "../in/a.yaml"),
            rec("clusters/x/y", 4, 0, "in/b c.yaml"),
            rec("clusters/x/z", 5, 7, ".5"),
            rec("clusters/x/w", 6, 7, ""),
        ];
        let clusters_only = BTreeMap::from([("in/a.yaml".to_string(), 2)]);
        for (outs, recs) in [(&outputs[..], &records[..]), (&[], &[])] {
            let mut whole = json!({
                "lockVersion": LOCK_VERSION,
                "tool": tool(),
                "inputs": [{"path": "in/a.yaml", "sha256": "ab".repeat(32), "clusters": 2}],
                "providers": [],
                "outputs": outs.iter().map(|(p, s)| json!({"path": p, "sha256": s})).collect::<Vec<_>>(),
            });
            if !recs.is_empty() {
                whole["units"] = recs
                    .iter()
                    .map(|r| {
                        json!({"dir": r.dir, "inputs": r.inputs, "bytes": r.bytes,
                                    "cluster": r.cluster, "source": r.source})
                    })
                    .collect();
            }
            let text = lock_text_of(
                &inputs,
                &clusters_only,
                &[],
                outs,
                recs,
                Path::new("."),
                None,
            );
            let body = text.splitn(3, '\n').nth(2).unwrap();
            assert_eq!(body, crate::yaml::to_yaml(&whole));
            let lock = read_lock(&text, "lock").unwrap();
            assert_eq!(lock.units, recs);
            let input = LockInput {
                path: "in/a.yaml".into(),
                sha256: "ab".repeat(32),
                clusters: Some(2),
            };
            assert_eq!(lock.inputs, [input]);
            // The general reader (a lock in another shape) reads the same.
            let general = read_general(&text).unwrap();
            assert_eq!(general.units.len(), recs.len());
            if let Some(c) = read_canonical(&text) {
                assert_eq!(c.units, general.units);
                assert_eq!(c.inputs, general.inputs);
            }
            let plain = lock_text_of(
                &inputs,
                &clusters_only,
                &[],
                &[("a/b.yaml".to_string(), "cd".repeat(32))],
                recs,
                Path::new("."),
                None,
            );
            let (c, g) = (
                read_canonical(&plain).unwrap(),
                read_general(&plain).unwrap(),
            );
            assert_eq!(c.outputs.len(), 1);
            // Quoted sums and sources are left unread by the line reader (their files are then
            // parsed): the rest of every record is read.
            for (c, g) in c.units.iter().zip(&g.units) {
                assert_eq!(c[..3], g[..3]);
                for i in [3, 4] {
                    assert!(c[i] == g[i] || c[i].is_none(), "{c:?} {g:?}");
                }
            }
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
                    ..Default::default()
                }),
                namespace: "capi-system".into(),
                name: "cluster-api".into(),
                objects: vec![],
                review: Vec::new(),
                after: Vec::new(),
                pending: Vec::new(),
                answers: Vec::new(),
            }],
            warnings: vec![],
        };
        let mut files = BTreeMap::new();
        files.insert("b/x.yaml".to_string(), "x: 1\n".to_string());
        files.insert("a.yaml".to_string(), "".to_string());
        let t = lock_text(&set, &files, Path::new("."), None);
        let read = read_outputs(&t, "l").unwrap();
        let paths: Vec<&str> = read.iter().map(|o| o.path).collect();
        assert_eq!(paths, vec!["a.yaml", "b/x.yaml"]);
        assert_eq!(read.get(0).unwrap().sha256, sha256_hex(b""));
        assert_eq!(read.get(1).unwrap().sha256, sha256_hex(b"x: 1\n"));
        let v = crate::yaml::parse_value(&t).unwrap();
        assert_eq!(v["providers"][0]["contract"], "v1beta1");
        assert_eq!(v["providers"][0]["version"], "v1.10.10");
        assert_eq!(v["inputs"][0]["path"], "in/p.yaml");
        assert_eq!(v["outputs"][0]["sha256"], sha256_hex(b""));
        assert_eq!(v["tool"], tool());
    }

    #[test]
    fn a_sum_surely_plain_is_plain_by_the_full_rule() {
        let full = |s: &str| {
            s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._/-".contains(&b))
                && crate::yaml::resolve::plain_resolves_to_str(s)
        };
        let mut sums: Vec<String> = (0..20_000u32)
            .map(|i| crate::model::hash::sha256_hex(&i.to_le_bytes()))
            .collect();
        // Edge cases: a binary int, digits and `e` only (a float), digits only.
        sums.push(format!("0b{}", "01".repeat(31)));
        sums.push(format!("0b{}a", "1".repeat(61)));
        sums.push(format!("1e{}7", "0".repeat(61)));
        sums.push("9".repeat(64));
        sums.push(format!("{}e5", "1".repeat(62)));
        let mut surely = 0;
        for s in &sums {
            if surely_plain_sum(s) {
                surely += 1;
                assert!(full(s), "{s}");
            }
        }
        assert!(!full(&sums[20_000]) && !surely_plain_sum(&sums[20_000]));
        assert!(!full(&sums[20_002]) && !surely_plain_sum(&sums[20_002]));
        // Nearly every real sum takes the fast path (not those starting with `0b`).
        assert!(surely >= 19_800, "{surely}");
    }

    #[test]
    fn the_plain_byte_table_is_the_rule() {
        for b in 0..=255u8 {
            let s = [b];
            let Ok(s) = std::str::from_utf8(&s) else {
                continue;
            };
            let rule = b.is_ascii_alphanumeric() || b".-_/".contains(&b);
            assert_eq!(plain_bytes(s), rule, "{b}");
            assert_eq!(plain_bytes(&format!("ab/{s}c")), rule, "{b}");
        }
        assert!(plain_bytes("") && !plain_bytes("a\u{e9}") && !plain_bytes("a b"));
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
        assert!(read.iter().map(|o| o.path).eq(files.keys()));
        assert!(read.iter().all(|o| o.sha256 == sha256_hex(b"")));
    }

    #[test]
    fn canonical_and_general_readers_agree() {
        let sum = sha256_hex(b"x");
        let paths = |t: &str| -> Vec<String> {
            let r = read_outputs(t, "l").unwrap();
            assert!(r.iter().all(|o| o.sha256 == sum), "{t}");
            r.iter().map(|o| o.path.to_string()).collect()
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
        // A lock with no units or inputs, recording `c`.
        let text_of = |c: &RenderCommand| {
            lock_text_of(
                &[],
                &BTreeMap::new(),
                &[],
                &[] as &[(String, String)],
                &[],
                Path::new("capi/rendered"),
                Some(c),
            )
        };
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
            capi_version: Some("v1.14.2".into()),
            secrets: Default::default(),
            sops_age: Vec::new(),
            sops_flux_secret: None,
            ..RenderCommand::default()
        };
        let t = text_of(&c);
        assert!(t.contains("command:\n  allowEmpty: true\n  capiVersion: v1.14.2\n  certManager: true\n  clusters: flatten\n  files:\n  - ../providers.yaml\n  - ../clusters\n  flux:\n    path: capi/rendered\n    source: flux-system\n  repository: ../repository\ninputs: []\n"), "{t}");
        // The fast reader still reads the lock; the command reads back.
        assert!(read_canonical(&t).is_some());
        let back = read_command(&t, "l").unwrap().unwrap();
        assert_eq!(back.files, ["../providers.yaml", "../clusters"]);
        assert_eq!(back.repository.as_deref(), Some("../repository"));
        assert!(back.allow_empty && back.cert_manager && !back.no_namespaces);
        assert_eq!(back.clusters, crate::model::ClusterMode::Flatten);
        assert_eq!(back.capi_version.as_deref(), Some("v1.14.2"));
        assert_eq!(back.flux, c.flux);
        assert_eq!(back.flux_extras, Default::default());
        assert!(!t.contains("secrets"), "{t}");
        // --secrets flux-substitute is recorded and reads back; an unknown mode is an error.
        let fs = RenderCommand {
            secrets: crate::model::SecretsMode::FluxSubstitute,
            ..c.clone()
        };
        let t3 = text_of(&fs);
        assert!(t3.contains("\n  secrets: flux-substitute\n"), "{t3}");
        assert_eq!(read_command(&t3, "l").unwrap().unwrap().secrets, fs.secrets);
        let t4 = t3.replace("secrets: flux-substitute", "secrets: plain");
        assert!(read_command(&t4, "l").is_err());
        // --secrets sops records its recipients and Flux Secret, and reads them back.
        let sp = RenderCommand {
            secrets: crate::model::SecretsMode::Sops,
            sops_age: vec!["age1a".into(), "age1b".into()],
            sops_flux_secret: Some("keys".into()),
            ..c.clone()
        };
        let t5 = text_of(&sp);
        assert!(
            t5.contains(
                "\n  sops:\n    ageRecipients:\n    - age1a\n    - age1b\n    fluxSecret: keys\n"
            ),
            "{t5}"
        );
        let back = read_command(&t5, "l").unwrap().unwrap();
        assert_eq!(
            (back.secrets, back.sops_age, back.sops_flux_secret),
            (sp.secrets, sp.sops_age.clone(), sp.sops_flux_secret.clone())
        );
        assert!(read_command(&t5.replace("fluxSecret", "fluxSecrets"), "l").is_err());
        // --runtime-extension and its options are recorded and read back.
        let rx = RenderCommand {
            runtime_extensions: vec!["ext=https://127.0.0.1:9443".into()],
            runtime_extension_ca: Some("certs/ca.crt".into()),
            allow_remote_extensions: true,
            ..c.clone()
        };
        let t6 = text_of(&rx);
        assert!(
            t6.contains("\n  runtimeExtensions:\n    allowRemote: true\n"),
            "{t6}"
        );
        let back = read_command(&t6, "l").unwrap().unwrap();
        assert_eq!(
            (back.runtime_extensions, back.allow_remote_extensions),
            (rx.runtime_extensions.clone(), true)
        );
        assert!(back.runtime_extension_ca.is_some());
        // A recorded extension that is not a string, or an unknown key, is an error.
        assert!(read_command(&t6.replace("- ext=", "- 3\n    - x="), "l").is_err());
        assert!(read_command(&t6.replace("allowRemote", "allowRemotes"), "l").is_err());
        // The Flux options read back; a bad one recorded in a lock is an error.
        let with = RenderCommand {
            flux_extras: super::super::flux::Extras {
                depends_on: vec!["cert-manager".into()],
                interval: Some("5m".into()),
                timeout: None,
            },
            ..c.clone()
        };
        let t2 = text_of(&with);
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
