//! Sharding for CI matrices: `render -o OUT --shard I/N` renders the units whose stable
//! hash falls in shard I of N into `OUT/.capi-render.shards/I-of-N/` (the units' files,
//! a fragment lock, and a sidecar `shard.json` with each unit's position and summary);
//! `capi-render merge-locks OUT` joins the N shards into OUT: the same files and the same
//! lock, byte for byte, as one `render -o OUT` of all units.
//!
//! A unit's shard is the first 8 bytes of the sha256 of its directory (e.g.
//! `clusters/ns/name`), big-endian, modulo N: stable across runs, machines and input
//! order. Shards are rendered in full (no unit is skipped by fingerprint). The fragment
//! records its input paths relative to OUT, so every shard job must use the same `-o`
//! path as the merge (the CI jobs run in clones of one repository).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use serde_json::{json, Value};

use super::flux::UnitSummary;
use super::layout::Layout;
use super::{lock, writer, Files, TreeOptions};
use crate::error::{Error, Result};
use crate::model::{sha256_hex, InputFile, ProviderInfo, UnitKind};

/// The directory below OUT that holds the shards.
pub const SHARDS: &str = ".capi-render.shards";
/// A shard's sidecar: its units' positions and summaries.
pub const SIDECAR: &str = "shard.json";
const SIDECAR_VERSION: u64 = 1;
/// The most shards a run may be split into.
pub const MAX_SHARDS: u32 = 1000;

/// Shard `index` (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// `I/N` with 1 ≤ I ≤ N ≤ [`MAX_SHARDS`].
    pub fn parse(s: &str) -> Result<Shard> {
        let bad = || {
            Error::new(format!(
                "--shard {s:?}: expected I/N with 1 <= I <= N <= {MAX_SHARDS} (e.g. --shard 2/4 for the second of four CI jobs)"
            ))
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let num = |x: &str| {
            (!x.is_empty() && x.bytes().all(|b| b.is_ascii_digit()))
                .then(|| x.parse::<u32>().ok())
                .flatten()
        };
        match (num(i), num(n)) {
            (Some(index), Some(count)) if index >= 1 && index <= count && count <= MAX_SHARDS => {
                Ok(Shard { index, count })
            }
            _ => Err(bad()),
        }
    }

    /// Whether the unit in directory `dir` belongs to this shard.
    pub fn holds(&self, dir: &str) -> bool {
        let h = sha256_hex(dir.as_bytes());
        let n = u64::from_str_radix(&h[..16], 16).unwrap_or(0);
        n % u64::from(self.count) == u64::from(self.index - 1)
    }

    /// The shard's directory name below [`SHARDS`]: `I-of-N`.
    pub fn dir(&self) -> String {
        format!("{}-of-{}", self.index, self.count)
    }

    fn from_dir(name: &str) -> Option<Shard> {
        let (i, n) = name.split_once("-of-")?;
        let s = Shard::parse(&format!("{i}/{n}")).ok()?;
        (s.dir() == name).then_some(s)
    }
}

/// What a shard run knows of the whole run: its units' positions in the whole run's
/// unit order and how many units that has.
pub struct Part {
    pub shard: Shard,
    pub positions: Vec<usize>,
    pub total: usize,
}

impl Part {
    /// The sidecar's text for the shard's units (in order), the run's inputs, tree
    /// options and lock base (OUT).
    pub(crate) fn sidecar(
        &self,
        units: &[UnitSummary],
        inputs: &[InputFile],
        clusters_only: &std::collections::BTreeMap<String, usize>,
        opts: &TreeOptions,
        base: &Path,
    ) -> Result<String> {
        if units.len() != self.positions.len() {
            return Err(Error::new(
                "internal error: a shard's units and positions differ",
            ));
        }
        let parts: Vec<Value> = units
            .iter()
            .zip(&self.positions)
            .map(|(u, p)| {
                json!({"position": p, "summary": summary_json(u, base),
                       "provider": lock::provider_entry(u, base)})
            })
            .collect();
        let v = json!({
            "shardVersion": SIDECAR_VERSION,
            "tool": lock::tool(),
            "shard": {"index": self.shard.index, "count": self.shard.count},
            "units": self.total,
            "lock": lock::head(inputs, clusters_only, base, opts.command.as_ref()),
            "tree": options_json(opts),
            "parts": parts,
        });
        Ok(serde_json::to_string_pretty(&v).unwrap_or_default() + "\n")
    }
}

fn summary_json(u: &UnitSummary, base: &Path) -> Value {
    let (kind, info) = match &u.kind {
        UnitKind::Cluster => ("cluster", Value::Null),
        UnitKind::Class => ("class", Value::Null),
        UnitKind::Provider(p) => ("provider", info_json(p, u, base)),
        UnitKind::CertManager(p) => ("certManager", info_json(p, u, base)),
        UnitKind::Namespaces => ("namespaces", Value::Null),
    };
    json!({
        "kind": kind, "info": info, "namespace": u.namespace, "name": u.name,
        "defines": u.defines, "uses": u.uses, "objects": u.objects, "largestJson": u.largest_json,
        "after": u.after,
    })
}

fn info_json(p: &ProviderInfo, u: &UnitSummary, base: &Path) -> Value {
    let source = lock::provider_entry(u, base)
        .and_then(|e| e["source"].as_str().map(str::to_string))
        .unwrap_or_default();
    json!({"type": p.provider_type, "kind": p.kind, "version": p.version,
           "contract": p.contract, "source": source, "substituteFrom": p.substitute_from})
}

fn summary_from(v: &Value) -> Option<UnitSummary> {
    let s = |v: &Value| v.as_str().map(str::to_string);
    let pairs = |v: &Value| -> Option<Vec<(String, String)>> {
        v.as_array()?
            .iter()
            .map(|p| Some((s(p.get(0)?)?, s(p.get(1)?)?)))
            .collect()
    };
    let info = |v: &Value| -> Option<ProviderInfo> {
        Some(ProviderInfo {
            provider_type: s(&v["type"])?,
            kind: s(&v["kind"])?,
            version: s(&v["version"])?,
            contract: s(&v["contract"])?,
            source: s(&v["source"])?,
            substitute_from: s(&v["substituteFrom"]),
            ..Default::default()
        })
    };
    let kind = match v["kind"].as_str()? {
        "cluster" => UnitKind::Cluster,
        "class" => UnitKind::Class,
        "provider" => UnitKind::Provider(info(&v["info"])?),
        "certManager" => UnitKind::CertManager(info(&v["info"])?),
        "namespaces" => UnitKind::Namespaces,
        _ => return None,
    };
    Some(UnitSummary {
        kind,
        namespace: s(&v["namespace"])?,
        name: s(&v["name"])?,
        defines: pairs(&v["defines"])?,
        uses: pairs(&v["uses"])?.into_iter().collect::<BTreeSet<_>>(),
        objects: usize::try_from(v["objects"].as_u64()?).ok()?,
        largest_json: usize::try_from(v["largestJson"].as_u64()?).ok()?,
        after: v["after"]
            .as_array()?
            .iter()
            .map(s)
            .collect::<Option<Vec<_>>>()?,
    })
}

/// The fields of a unit's summary that become directory names, file paths and object
/// names (a sidecar is untrusted, like everything in OUT): the namespace, the name and
/// the provider type must be DNS-1123 names, as `render -o` requires of them.
/// The unit's lock `providers:` entry (`provider`) must be the one its summary gives
/// (none for a Cluster or class), with a string `source`.
fn check_summary(u: &UnitSummary, provider: &Value) -> Result<()> {
    super::names::check_segment("namespace", &u.namespace)?;
    super::names::check_segment("name", &u.name)?;
    match &u.kind {
        UnitKind::Provider(p) => super::names::check_segment("info.type", &p.provider_type)?,
        UnitKind::CertManager(p) if p.provider_type != "cert-manager" => {
            return Err(Error::new(format!(
                "info.type {:?}: a cert-manager unit's type is \"cert-manager\"",
                p.provider_type
            )))
        }
        _ => {}
    }
    if !crate::paths::is_safe_relative(&u.dir()) {
        return Err(Error::new(format!(
            "{:?} is not a plain relative directory",
            u.dir()
        )));
    }
    let entry_ok = match &u.kind {
        UnitKind::Cluster | UnitKind::Class | UnitKind::Namespaces => provider.is_null(),
        UnitKind::Provider(p) | UnitKind::CertManager(p) => {
            let same = |k: &str, v: &str| provider[k].as_str() == Some(v);
            provider.as_object().is_some_and(|o| o.len() == 7)
                && same("namespace", &u.namespace)
                && same("name", &u.name)
                && same("type", &p.provider_type)
                && same("kind", &p.kind)
                && same("version", &p.version)
                && same("contract", &p.contract)
                && provider["source"].is_string()
        }
    };
    if !entry_ok {
        return Err(Error::new(
            "its `provider` entry is not the one its summary gives",
        ));
    }
    Ok(())
}

fn options_json(o: &TreeOptions) -> Value {
    json!({
        "flux": o.flux, "fluxSource": o.flux_source, "fluxPath": o.flux_path,
        "dependsOn": o.flux_extras.depends_on, "interval": o.flux_extras.interval,
        "timeout": o.flux_extras.timeout,
        "argocd": o.argocd.as_ref().map(|a| json!({"repoURL": a.repo_url, "revision": a.revision,
            "project": a.project, "namespace": a.namespace})),
    })
}

fn options_from(v: &Value) -> Option<TreeOptions> {
    let s = |v: &Value| v.as_str().map(str::to_string);
    let argocd = match &v["argocd"] {
        Value::Null => None,
        a => Some(super::argocd::Settings {
            repo_url: s(&a["repoURL"])?,
            revision: s(&a["revision"])?,
            project: s(&a["project"])?,
            namespace: s(&a["namespace"])?,
        }),
    };
    Some(TreeOptions {
        flux: v["flux"].as_bool()?,
        flux_source: s(&v["fluxSource"]),
        flux_path: s(&v["fluxPath"])?,
        flux_extras: super::flux::Extras {
            depends_on: v["dependsOn"]
                .as_array()?
                .iter()
                .map(s)
                .collect::<Option<_>>()?,
            interval: s(&v["interval"]),
            timeout: s(&v["timeout"]),
        },
        argocd,
        command: None,
    })
}

/// `render -o OUT --shard I/N`: the shard's units into `OUT/.capi-render.shards/I-of-N/`
/// with the writer's guarantees (staged, journalled, only its own files replaced).
pub fn write(
    mut r: crate::render::Rendering,
    out: &Path,
    opts: &TreeOptions,
    shard: Shard,
    on_unit: &mut dyn FnMut(&UnitSummary),
    hook: &mut writer::Hook,
) -> Result<writer::WriteReport> {
    let (positions, total) = r.retain_units(|d| shard.holds(d));
    let part = Part {
        shard,
        positions,
        total,
    };
    let rel = format!("{SHARDS}/{}", shard.dir());
    std::fs::create_dir_all(out)
        .map_err(|e| Error::new(format!("failed to create {}: {e}", out.display())))?;
    writer::check_no_symlink(out, &rel)?;
    let sdir = out.join(SHARDS).join(shard.dir());
    let (_held, prev) = super::open_out(&sdir)?;
    let views = prev.outputs.views();
    let mut st = writer::Stager::new(&sdir, &views, hook);
    if let Err(e) = super::lay_out(r, opts, out, None, on_unit, &mut st, Some(&part)) {
        st.abandon();
        return Err(e);
    }
    Ok(sorted_report(st.commit()?))
}

/// What a commit changed, each list sorted (as `render -o` reports it).
fn sorted_report(c: writer::Changes) -> writer::WriteReport {
    let mut written: Vec<String> = c.writes.into_iter().map(|(p, _)| p).collect();
    written.sort();
    let (mut unchanged, mut removed) = (c.unchanged, c.removes);
    unchanged.sort();
    removed.sort();
    writer::WriteReport {
        written,
        unchanged,
        removed,
        unchanged_unlisted: c.kept_unlisted,
    }
}

/// One shard as `merge-locks` reads it.
struct Read {
    shard: Shard,
    dir: std::path::PathBuf,
    side: Value,
    lock: lock::Lock,
}

fn read_shard(out: &Path, shard: Shard) -> Result<Read> {
    let dir = out.join(SHARDS).join(shard.dir());
    let shown = |f: &str| format!("{}/{f}", dir.display());
    if super::journal::interrupted(&dir) {
        return Err(Error::new(format!(
            "{} holds an interrupted render; run its `render --shard {}/{} -o {}` again",
            dir.display(),
            shard.index,
            shard.count,
            out.display()
        )));
    }
    writer::check_no_symlink(out, &format!("{SHARDS}/{}/{SIDECAR}", shard.dir()))?;
    let limit = crate::limits::Limits::current()
        .file_bytes
        .max(super::LOCK_READ_BYTES);
    let p = dir.join(SIDECAR);
    let bytes = crate::limits::read_file_within(&p, &shown(SIDECAR), limit, |e| {
        Error::new(format!(
            "failed to read {}: {e}; render shard {}/{} again",
            shown(SIDECAR),
            shard.index,
            shard.count
        ))
    })?;
    let side: Value = serde_json::from_slice(&bytes).map_err(|e| {
        Error::new(format!("{}: {e}; render the shard again", shown(SIDECAR)))
            .in_file(shown(SIDECAR))
    })?;
    let lock = super::previous_lock(&dir)?;
    Ok(Read {
        shard,
        dir,
        side,
        lock,
    })
}

/// The shards below OUT: all of `1..=N` for one N, each once.
fn find_shards(out: &Path) -> Result<Vec<Shard>> {
    let base = out.join(SHARDS);
    writer::check_no_symlink(out, SHARDS)?;
    let listing = std::fs::read_dir(&base).map_err(|e| {
        Error::new(format!(
            "no shards to merge in {}: {e}; render them first with `capi-render render -o {} --shard I/N`",
            base.display(),
            out.display()
        ))
    })?;
    let mut found = Vec::new();
    for e in listing.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        match Shard::from_dir(&name) {
            Some(s) if e.file_type().is_ok_and(|t| t.is_dir()) => found.push(s),
            _ => {
                return Err(Error::new(format!(
                    "{}/{name} is not a shard directory (I-of-N); move it away",
                    base.display()
                )))
            }
        }
    }
    found.sort_by_key(|s| (s.count, s.index));
    let Some(n) = found.first().map(|s| s.count) else {
        return Err(Error::new(format!(
            "no shards to merge in {}; render them first with `capi-render render -o {} --shard I/N`",
            base.display(),
            out.display()
        )));
    };
    if let Some(s) = found.iter().find(|s| s.count != n) {
        return Err(Error::new(format!(
            "{} holds shards of {n} and of {} jobs; keep the shards of one run only",
            base.display(),
            s.count
        )));
    }
    let missing: Vec<String> = (1..=n)
        .filter(|i| !found.iter().any(|s| s.index == *i))
        .map(|i| format!("{i}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(Error::new(format!(
            "shard(s) {} missing in {}: render them with `capi-render render -o {} --shard I/N` (or copy them from their CI jobs) and merge again",
            missing.join(", "),
            base.display(),
            out.display()
        )));
    }
    Ok(found)
}

/// A merged unit: its summary, lock provider entry and shard.
type Slot = (UnitSummary, Value, usize);

/// Every unit of the run in order, from the shards' sidecars, which must all describe
/// the same run.
fn slots(shards: &[Read]) -> Result<(Vec<Slot>, Value, TreeOptions)> {
    let first = &shards[0].side;
    let total = first["units"].as_u64().unwrap_or(0);
    for r in shards {
        let s = &r.side;
        let shown = format!("{}/{SIDECAR}", r.dir.display());
        let bad = |what: &str| Error::new(format!("{shown}: {what}")).in_file(&shown);
        if s["shardVersion"].as_u64() != Some(SIDECAR_VERSION) {
            return Err(bad(
                "not a shard sidecar of this capi-render version; render the shard again",
            ));
        }
        if s["tool"].as_str() != Some(lock::tool().as_str()) {
            return Err(bad(&format!(
                "rendered by {}, not by {}: render every shard with the same capi-render",
                s["tool"],
                lock::tool()
            )));
        }
        if s["shard"] != json!({"index": r.shard.index, "count": r.shard.count}) {
            return Err(bad(
                "its shard is not the one its directory names; render it again",
            ));
        }
        for key in ["units", "lock", "tree"] {
            if s[key] != first[key] {
                return Err(bad(&format!(
                    "`{key}` differs from shard 1's: the shards were rendered from different inputs or flags; render them all from one commit with the same command"
                )));
            }
        }
    }
    // `units` is checked against the parts the shards really hold before any slot is
    // made: a sidecar saying ten million units is refused, not allocated.
    let held: u64 = shards
        .iter()
        .map(|r| r.side["parts"].as_array().map_or(0, |a| a.len() as u64))
        .sum();
    let shown = format!("{}/{SIDECAR}", shards[0].dir.display());
    let bad = |what: &str| Error::new(format!("{shown}: {what}")).in_file(&shown);
    if total != held {
        return Err(bad(&format!(
            "`units` is {}, but the shards' `parts` hold {held} units; render the shards again",
            first["units"]
        )));
    }
    let n = usize::try_from(total).map_err(|_| bad("units: too many"))?;
    let mut slots: Vec<Option<Slot>> = Vec::new();
    slots.resize_with(n, || None);
    for (k, r) in shards.iter().enumerate() {
        let s = &r.side;
        let shown = format!("{}/{SIDECAR}", r.dir.display());
        let bad = |what: &str| Error::new(format!("{shown}: {what}")).in_file(&shown);
        let parts = s["parts"].as_array().ok_or_else(|| bad("parts: missing"))?;
        for (j, p) in parts.iter().enumerate() {
            let pos = p["position"].as_u64().and_then(|x| usize::try_from(x).ok());
            let sum = summary_from(&p["summary"]);
            match (pos, sum) {
                (Some(i), Some(u)) if i < slots.len() && slots[i].is_none() => {
                    check_summary(&u, &p["provider"]).map_err(|e| {
                        e.wrap(format!("{shown}: parts[{j}].summary"))
                            .with_hint("the sidecar was edited or damaged: render the shard again")
                            .in_file(&shown)
                    })?;
                    slots[i] = Some((u, p["provider"].clone(), k));
                }
                _ => return Err(bad(
                    "a unit's position or summary is invalid or repeated; render the shard again",
                )),
            }
        }
    }
    let slots: Option<Vec<Slot>> = slots.into_iter().collect();
    let slots = slots.ok_or_else(|| {
        Error::new("the shards do not cover every unit of the run: render them all from one commit with the same command")
    })?;
    // A unit may only follow units of the run.
    let dirs: BTreeSet<String> = slots.iter().map(|(u, _, _)| u.dir()).collect();
    for (u, _, k) in &slots {
        if let Some(a) = u.after.iter().find(|a| !dirs.contains(a.as_str())) {
            let shown = format!("{}/{SIDECAR}", shards[*k].dir.display());
            return Err(Error::new(format!(
                "{shown}: unit {}: `after` names {a:?}, which is no unit of the run; render the shard again",
                u.dir()
            ))
            .in_file(&shown));
        }
    }
    let opts = options_from(&first["tree"]).ok_or_else(|| {
        Error::new(format!(
            "{}/{SIDECAR}: tree: invalid",
            shards[0].dir.display()
        ))
    })?;
    Ok((slots, first["lock"].clone(), opts))
}

/// `capi-render merge-locks OUT`: the shards below OUT joined into OUT's tree and lock
/// (staged and journalled as `render -o`), then the shard directories removed.
pub fn merge(out: &Path, hook: &mut writer::Hook) -> Result<(writer::WriteReport, u32)> {
    let found = find_shards(out)?;
    let shards: Vec<Read> = found
        .iter()
        .map(|s| read_shard(out, *s))
        .collect::<Result<_>>()?;
    let (slots, head, opts) = slots(&shards)?;
    // Each shard may only own files inside its own units' directories.
    let mut dirs: Vec<BTreeSet<String>> = vec![BTreeSet::new(); shards.len()];
    for (u, _, k) in &slots {
        dirs[*k].insert(u.dir());
    }
    let (_held, prev) = super::open_out(out)?;
    let views = prev.outputs.views();
    let mut st = writer::Stager::new(out, &views, hook);
    let res = merge_into(out, &shards, &slots, &dirs, &head, &opts, &mut st);
    if let Err(e) = res {
        st.abandon();
        return Err(e);
    }
    let report = sorted_report(st.commit()?);
    for r in &shards {
        remove_shard(r);
    }
    let _ = std::fs::remove_dir(out.join(SHARDS));
    Ok((report, found[0].count))
}

fn merge_into(
    out: &Path,
    shards: &[Read],
    slots: &[Slot],
    dirs: &[BTreeSet<String>],
    head: &Value,
    opts: &TreeOptions,
    st: &mut writer::Stager,
) -> Result<()> {
    let limit = crate::limits::Limits::current().file_bytes;
    let mut outputs: Vec<(String, String)> = Vec::new();
    for (k, r) in shards.iter().enumerate() {
        for o in &r.lock.outputs {
            if o.path == SIDECAR {
                continue;
            }
            let inside = dirs[k].iter().any(|d| {
                o.path
                    .strip_prefix(d.as_str())
                    .is_some_and(|t| t.starts_with('/'))
            });
            let shown = format!("{}/{}", r.dir.display(), o.path);
            if !inside {
                return Err(Error::new(format!(
                    "{shown}: not in a unit of shard {}/{}; render the shard again",
                    r.shard.index, r.shard.count
                )));
            }
            writer::check_no_symlink(&r.dir, o.path)?;
            let bytes = crate::limits::read_file_within(&r.dir.join(o.path), &shown, limit, |e| {
                Error::new(format!(
                    "failed to read {shown}: {e}; render the shard again"
                ))
            })?;
            if sha256_hex(&bytes) != o.sha256 {
                return Err(Error::new(format!(
                    "{shown}: its sha256 is not the one the shard's lock records (changed after the shard was rendered); render the shard again"
                )));
            }
            st.file(o.path, &bytes)?;
            outputs.push((o.path.to_string(), o.sha256.to_string()));
        }
    }
    let records: HashMap<&str, &lock::UnitRecord> = shards
        .iter()
        .flat_map(|r| r.lock.units.iter().map(|u| (u.dir.as_str(), u)))
        .collect();
    let mut tree = Layout::default();
    let mut providers = Vec::new();
    let mut recs = Vec::new();
    for (u, provider, _) in slots {
        if !provider.is_null() {
            providers.push(provider.clone());
        }
        if let Some(r) = records.get(u.dir().as_str()) {
            recs.push((*r).clone());
        }
        tree.kept(u.clone(), u.dir())?;
    }
    tree.finish(opts, &mut |p, t| {
        outputs.push((p.clone(), sha256_hex(t.as_bytes())));
        Files::file(st, p, t)
    })?;
    outputs.sort();
    // As `lay_out` writes it: compared with OUT's as it is assembled, and a lock that
    // differs staged piece by piece, never held whole.
    let write = |each: &mut dyn FnMut(&str) -> bool| {
        lock::assemble_pieces(head, &outputs, &providers, &recs, each)
    };
    if lock::same_as_file(&out.join(lock::FILE), write) {
        Files::same(st, lock::FILE.to_string())
    } else {
        Files::lock(st, &write)
    }
}

/// Remove a merged shard's files (those its lock lists, the sidecar and the lock), then
/// the directories left empty; anything else stays.
fn remove_shard(r: &Read) {
    for o in &r.lock.outputs {
        let _ = std::fs::remove_file(r.dir.join(o.path));
    }
    let _ = std::fs::remove_file(r.dir.join(lock::FILE));
    for e in walkdir::WalkDir::new(&r.dir)
        .contents_first(true)
        .into_iter()
        .flatten()
    {
        if e.file_type().is_dir() {
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_arguments_are_checked() {
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
        for bad in [
            "0/4", "5/4", "1/0", "a/2", "1/", "/2", "1/2/3", "+1/2", "1/1001",
        ] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Shard::from_dir("3-of-8"),
            Some(Shard { index: 3, count: 8 })
        );
        assert_eq!(Shard::from_dir("03-of-8"), None);
    }

    #[test]
    fn every_unit_is_in_exactly_one_shard() {
        for n in [1, 2, 3, 7] {
            for d in [
                "clusters/a/b",
                "providers/x/core-cluster-api",
                "cert-manager",
            ] {
                let holders = (1..=n)
                    .filter(|i| {
                        Shard {
                            index: *i,
                            count: n,
                        }
                        .holds(d)
                    })
                    .count();
                assert_eq!(holders, 1, "{d} in {n} shards");
            }
        }
    }

    #[test]
    fn summaries_and_options_round_trip() {
        let u = UnitSummary {
            kind: UnitKind::Provider(ProviderInfo {
                provider_type: "core".into(),
                kind: "CoreProvider".into(),
                version: "v1.10.10".into(),
                contract: "v1beta1".into(),
                source: "configmap:ns/x".into(),
                ..Default::default()
            }),
            namespace: "capi-system".into(),
            name: "cluster-api".into(),
            defines: vec![("cluster.x-k8s.io".into(), "Cluster".into())],
            uses: [("apps".to_string(), "Deployment".to_string())].into(),
            objects: 3,
            largest_json: 1234,
            after: vec!["classes/a/b".into()],
        };
        let back = summary_from(&summary_json(&u, Path::new("/"))).unwrap();
        assert_eq!(back, u);
        let o = TreeOptions {
            flux: true,
            flux_source: Some("src".into()),
            flux_path: "out".into(),
            argocd: Some(super::super::argocd::Settings {
                repo_url: "https://x".into(),
                revision: "main".into(),
                project: "p".into(),
                namespace: "argocd".into(),
            }),
            ..TreeOptions::default()
        };
        let back = options_from(&options_json(&o)).unwrap();
        assert_eq!(options_json(&back), options_json(&o));
    }
}
