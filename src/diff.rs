//! Change impact (`capi-render diff`): render two input sets and show, for every unit
//! (Cluster or provider) whose rendered objects differ, a unified diff per object. This
//! is the review tool for a ClusterClass or provider pull request across a whole fleet.
//!
//! Both sides are laid out exactly as the GitOps tree lays them out (one file per
//! object, `gitops::layout`), so an object is identified by its tree path; Secret values
//! are masked as in `render --check`. Generated name suffixes are derived from stable
//! inputs, so an unchanged Cluster renders the same names on both sides.

pub mod verbs;
use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Error, Result};
use crate::gitops::check::{file_diff, Change, FileChange};
use crate::gitops::kustomization::FILE as KUSTOMIZATION;
use crate::gitops::layout::{plan_files, same_directory, unit_files};
use crate::gitops::TreeOptions;
use crate::impact::origin::{self, ClassFacts};
use crate::impact::{report, ClusterImpact};
use crate::model::{RenderSet, RenderedUnit, UnitKind};
use crate::render::Rendering;

/// What changed between two renders.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Impact {
    /// Unit directories (`clusters/<ns>/<name>`, `providers/<ns>/<type>-<name>`) with at
    /// least one changed, added or removed object, sorted.
    pub changed_units: Vec<String>,
    /// Per changed unit: a `# <dir>` header line, then one unified diff per object.
    pub diff: String,
    /// The same units, each with its changed objects (for `diff --output-format json`).
    pub units: Vec<UnitChange>,
    /// The rollout impact on every changed Cluster, in directory order.
    pub clusters: Vec<ClusterImpact>,
    /// What a reviewer must not miss: Clusters deleted, class changes that roll
    /// Clusters, skipped minors, changes `render -o` would refuse.
    pub warnings: Vec<String>,
    /// ClusterClasses (`<ns>/<name>`) whose unit changed, and those removed.
    classes_changed: BTreeSet<String>,
    classes_removed: BTreeSet<String>,
    /// Every class (`<ns>/<name>`) as attribution needs it, before and after, and the
    /// origins of its change.
    class_facts: BTreeMap<String, ([Option<ClassFacts>; 2], Vec<origin::Origin>)>,
    /// Providers whose version changed: `<unit> <old> → <new>`.
    providers_changed: Vec<String>,
    /// The types of the providers (after the change) with `InPlaceUpdates` on.
    in_place_updates: BTreeSet<String>,
}

/// One changed unit: its directory, whether it was added, removed or changed, and the
/// object files (tree paths) that differ, sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitChange {
    pub unit: String,
    pub change: Change,
    pub objects: Vec<FileChange>,
    /// Per object (in `objects`' order): its verb and who applies it ([`verbs`]).
    pub verbs: Vec<(&'static str, &'static str)>,
}

impl Impact {
    pub fn is_empty(&self) -> bool {
        self.changed_units.is_empty()
    }

    /// The headline, warnings and per-Cluster sections to print before the diffs
    /// ("" when no Cluster changed and nothing is to be warned of).
    pub fn report(&self) -> String {
        if self.clusters.is_empty() && self.warnings.is_empty() {
            return String::new();
        }
        report::text(&self.clusters, &self.warnings)
    }

    /// Every unit was compared: add the warnings across Clusters.
    fn finish(mut self) -> Self {
        let core = self.in_place_updates.contains("core");
        let kcp = self.in_place_updates.contains("control-plane");
        if core || kcp {
            for c in &mut self.clusters {
                crate::impact::in_place_updates(c, kcp && core, core);
            }
        }
        // A changed Cluster with no origin among its own inputs and its class's: the
        // providers' versions (the rules and conversions they bring) are.
        if !self.providers_changed.is_empty() {
            let provider_origins: Vec<origin::Origin> = self
                .providers_changed
                .iter()
                .map(|p| origin::Origin {
                    what: format!("provider {p}"),
                    reaches: vec![origin::Target::All],
                })
                .collect();
            for c in &mut self.clusters {
                let attributed = c
                    .parts()
                    .any(|(_, p)| p.reasons.iter().any(|r| r.starts_with("from ")));
                if !attributed && c.action == crate::impact::ClusterAction::Update {
                    origin::attach(c, None, &provider_origins);
                }
            }
        }
        let mut w: Vec<String> = self
            .clusters
            .iter()
            .flat_map(|c| c.warnings.clone())
            .collect();
        w.extend(report::class_warnings(
            &self.clusters,
            &self.classes_changed,
            &self.classes_removed,
        ));
        w.append(&mut self.warnings);
        self.warnings = w;
        self
    }
}

/// A unit's facts for the impact: a Cluster's applied objects and its review files
/// (`desired/`, the rollout impact); a provider's version and contract (one object,
/// `{version, contract}`, for the contract-change warning); none for other units.
fn desired_of(u: &RenderedUnit) -> Vec<serde_json::Value> {
    match &u.kind {
        UnitKind::Cluster => with_facts(
            u.objects.iter().chain(&u.review).cloned().collect(),
            &u.pending,
            &u.answers,
        ),
        UnitKind::Class => u.objects.clone(),
        UnitKind::Provider(p) | UnitKind::CertManager(p) => {
            vec![
                serde_json::json!({"version": p.version, "contract": p.contract,
                "type": p.provider_type, "inPlaceUpdates": in_place_updates(&u.objects)}),
            ]
        }
        _ => Vec::new(),
    }
}

/// A Cluster's desired objects, ending with the facts of what they leave out
/// ([`crate::impact::pending_fact`]) when they leave out external patches, and of what
/// the runtime extensions answered ([`crate::impact::answers_fact`]) when they were called.
fn with_facts(
    mut objects: Vec<serde_json::Value>,
    pending: &[String],
    answers: &[String],
) -> Vec<serde_json::Value> {
    if !pending.is_empty() {
        objects.push(crate::impact::pending_fact(pending));
    }
    if !answers.is_empty() {
        objects.push(crate::impact::answers_fact(answers));
    }
    objects
}

/// Whether a provider's manager runs with the `InPlaceUpdates` feature gate on: an
/// in-place update extension may then update machines instead of replacing them.
fn in_place_updates(objects: &[serde_json::Value]) -> bool {
    objects
        .iter()
        .filter(|o| o.get("kind").and_then(|k| k.as_str()) == Some("Deployment"))
        .flat_map(|o| {
            o.pointer("/spec/template/spec/containers")
                .and_then(|c| c.as_array())
                .into_iter()
                .flatten()
        })
        .flat_map(|c| {
            c.get("args")
                .and_then(|a| a.as_array())
                .into_iter()
                .flatten()
        })
        .filter_map(|a| a.as_str())
        .filter_map(|a| a.strip_prefix("--feature-gates="))
        .any(|gates| gates.split(',').any(|g| g == "InPlaceUpdates=true"))
}

/// The Cluster among a Cluster unit's objects.
fn cluster_object(side: Option<&[serde_json::Value]>) -> Option<&serde_json::Value> {
    side?
        .iter()
        .find(|o| o.get("kind").and_then(|k| k.as_str()) == Some("Cluster"))
}

/// A unit's object files: tree path → text.
type Objects = BTreeMap<String, String>;

/// One side of a unit: its object files and its desired objects ([`desired_of`]).
type Side = (Objects, Vec<serde_json::Value>);

/// The object files of a render, by unit directory (kustomizations left out: they only
/// list the files, whose own diffs already show what was added or removed).
fn object_files(set: &RenderSet) -> Result<BTreeMap<String, Side>> {
    let files = plan_files(set, &TreeOptions::default())?;
    let mut by_unit: BTreeMap<String, Side> = BTreeMap::new();
    for u in &set.units {
        by_unit.entry(u.dir()).or_default().1 = desired_of(u);
    }
    // A review file (`<unit>/desired/<file>`) belongs to its unit.
    let review = format!("/{}", crate::model::REVIEW_DIR);
    for (path, text) in files {
        let Some((dir, file)) = path.rsplit_once('/') else {
            continue; // the root kustomization
        };
        if file == crate::gitops::kustomization::FILE {
            continue;
        }
        let dir = dir.strip_suffix(review.as_str()).unwrap_or(dir);
        if let Some(unit) = by_unit.get_mut(dir) {
            unit.0.insert(path.clone(), text);
        }
    }
    Ok(by_unit)
}

/// Compare two renders.
pub fn impact(before: &RenderSet, after: &RenderSet) -> Result<Impact> {
    let old = object_files(before)?;
    let new = object_files(after)?;
    let units: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let mut out = Impact::default();
    for unit in units {
        out.add(unit, old.get(unit), new.get(unit));
    }
    Ok(out.finish())
}

impl Impact {
    /// Compare one unit's objects before and after; a unit that changed, was added or
    /// was removed is added to the impact.
    fn add(&mut self, unit: &str, o: Option<&Side>, n: Option<&Side>) {
        let fact = n.and_then(|s| s.1.first());
        if fact.and_then(|f| f.get("inPlaceUpdates")) == Some(&serde_json::Value::Bool(true)) {
            let ty = fact.and_then(|f| f.get("type")).and_then(|t| t.as_str());
            self.in_place_updates.insert(ty.unwrap_or("").to_string());
        }
        if let Some(class) = unit.strip_prefix("classes/") {
            let facts = |s: Option<&Side>| s.and_then(|s| origin::class_facts(&s.1));
            let f = [facts(o), facts(n)];
            let origins = origin::class_origins(f[0].as_ref(), f[1].as_ref());
            self.class_facts.insert(class.to_string(), (f, origins));
        }
        let empty = BTreeMap::new();
        let (oo, nn) = (o.map_or(&empty, |s| &s.0), n.map_or(&empty, |s| &s.0));
        let paths: BTreeSet<&String> = oo.keys().chain(nn.keys()).collect();
        let mut diffs = String::new();
        let mut objects = Vec::new();
        let mut rotated = Vec::new();
        for p in paths {
            let (a, b) = (oo.get(p).map(String::as_str), nn.get(p).map(String::as_str));
            if a != b {
                rotated.push(matches!((a, b), (Some(x), Some(y)) if verbs::rotates(p, x, y)));
                objects.push(FileChange {
                    path: p.clone(),
                    change: Change::between(a, b),
                });
                diffs.push_str(&file_diff(p, a, b));
                self.refused(p, a, b);
            }
        }
        let changed = objects.len();
        let change = Change::between(o, n);
        let status = change.as_str();
        if changed == 0 && change == Change::Changed {
            self.pending_class_change(unit, n);
            return;
        }
        self.diff.push_str(&format!(
            "# {unit}: {status}, {changed} object{} differ{}\n",
            if changed == 1 { "" } else { "s" },
            if changed == 1 { "s" } else { "" }
        ));
        self.diff.push_str(&diffs);
        self.changed_units.push(unit.to_string());
        self.units.push(UnitChange {
            unit: unit.to_string(),
            change,
            verbs: verbs::verbs(&objects, &rotated),
            objects,
        });
        self.unit_impact(unit, o, n);
    }

    /// A changed unit's rollout impact (a Cluster) or its class (a ClusterClass unit).
    fn unit_impact(&mut self, unit: &str, o: Option<&Side>, n: Option<&Side>) {
        let mut it = unit.splitn(3, '/');
        let (Some(family), Some(ns), Some(name)) = (it.next(), it.next(), it.next()) else {
            return;
        };
        match family {
            "clusters" => {
                let (b, a) = (o.map(|s| s.1.as_slice()), n.map(|s| s.1.as_slice()));
                let mut c = crate::impact::cluster(ns, name, b, a);
                let (cb, ca) = (cluster_object(b), cluster_object(a));
                let class = self.class_facts.get(&c.class);
                let facts = class.map(|c| &c.0);
                let mut origins =
                    origin::cluster_origins(cb, ca, facts.and_then(|f| f[1].as_ref()));
                origins.extend(class.iter().flat_map(|c| c.1.iter().cloned()));
                origin::attach(&mut c, ca.or(cb), &origins);
                if let (Some(b), Some(a), Some(f)) = (b, a, facts.and_then(|f| f[1].as_ref())) {
                    crate::impact::plan_upgrade(&mut c, b, a, &f.kubernetes_versions);
                }
                self.clusters.push(c);
            }
            "providers" => {
                let fact = |s: Option<&Side>, k: &str| {
                    s.and_then(|s| s.1.first())
                        .and_then(|f| f.get(k))
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or("")
                        .to_string()
                };
                let (v0, v1) = (fact(o, "version"), fact(n, "version"));
                if !v0.is_empty() && !v1.is_empty() && v0 != v1 {
                    self.providers_changed.push(format!("{unit} {v0} → {v1}"));
                }
                let (c0, c1) = (fact(o, "contract"), fact(n, "contract"));
                if !c0.is_empty() && !c1.is_empty() && c0 != c1 {
                    self.warnings.push(format!(
                        "provider {unit} moves from contract {c0} to {c1} ({} → {}): every provider of the management cluster must follow the same contract; upgrade them together, as clusterctl upgrade does",
                        fact(o, "version"),
                        fact(n, "version")
                    ));
                }
            }
            "classes" if n.is_none() => {
                self.classes_removed.insert(format!("{ns}/{name}"));
            }
            "classes" => {
                self.classes_changed.insert(format!("{ns}/{name}"));
            }
            _ => {}
        }
    }

    /// A Cluster whose objects are the same on both sides but were rendered without
    /// its class's external patches, when that class changed: what the runtime
    /// extension makes of the change is not known, so its parts are `unknown`.
    fn pending_class_change(&mut self, unit: &str, n: Option<&Side>) {
        let Some(("clusters", rest)) = unit.split_once('/') else {
            return;
        };
        let side = n.map(|s| s.1.as_slice());
        let Some((ns, name)) = rest.split_once('/') else {
            return;
        };
        if crate::impact::pending_of(side).is_empty() {
            return;
        }
        let c = crate::impact::cluster(ns, name, side, side);
        if self.classes_changed.contains(&c.class) {
            self.clusters.push(c);
        }
    }

    /// A change `render -o` would refuse (a template spec changed under its name), as
    /// a warning.
    fn refused(&mut self, path: &str, a: Option<&str>, b: Option<&str>) {
        let (Some(a), Some(b)) = (a, b) else {
            return;
        };
        if let Err(e) = crate::gitops::immutable::check(path, path, a.as_bytes(), b.as_bytes()) {
            self.warnings
                .push(format!("render -o would refuse {}", e.message()));
        }
    }
}

/// One side's units in directory order, as `(directory, objects)`.
type Feed = std::sync::mpsc::Receiver<Result<(String, Side)>>;

/// A unit laid out for the comparison: its directory, objects and the error a second
/// unit with its directory gets.
fn unit_objects(u: RenderedUnit) -> Result<(String, Side, Error)> {
    let dup = same_directory(&u.kind, &u.namespace, &u.name);
    let uf = unit_files(&u)?;
    let files = uf
        .files
        .into_iter()
        .filter(|(p, _)| p.rsplit_once('/').map(|(_, f)| f) != Some(KUSTOMIZATION))
        .collect();
    let dir = u.dir();
    // The unit is laid out: its objects move into the impact's side, uncopied.
    let desired = match u.kind {
        UnitKind::Cluster => {
            let mut o = u.objects;
            o.extend(u.review);
            with_facts(o, &u.pending, &u.answers)
        }
        UnitKind::Class => u.objects,
        _ => desired_of(&u),
    };
    Ok((dir, (files, desired), dup))
}

/// Render one side into `tx` in directory order: its providers (rendered already)
/// merged with its Clusters, streamed sorted. Stops when the receiver is gone.
fn feed(
    mut r: Rendering,
    same: &std::collections::HashSet<String>,
    tx: std::sync::mpsc::SyncSender<Result<(String, Side)>>,
) {
    let gone = || Error::new("the comparison stopped");
    let mut last: Option<String> = None;
    let mut send = |x: Result<(String, Side, Error)>| -> Result<()> {
        let x = x.and_then(|(dir, files, dup)| match &last {
            Some(l) if *l == dir => Err(dup),
            _ => {
                last = Some(dir.clone());
                Ok((dir, files))
            }
        });
        let stop = x.is_err();
        tx.send(x).map_err(|_| gone())?;
        if stop {
            return Err(gone());
        }
        Ok(())
    };
    let mut providers = Vec::new();
    for u in r.take_providers_sort_clusters() {
        match unit_objects(u) {
            Ok(p) => providers.push(p),
            Err(e) => {
                let _ = send(Err(e));
                return;
            }
        }
    }
    providers.sort_by(|a, b| a.0.cmp(&b.0));
    let mut providers = providers.into_iter().peekable();
    let keep = |dir: &str, _: &str| same.contains(dir);
    let res = r.stream_keeping(&keep, unit_objects, |c| {
        let crate::render::Produced::Made { unit: c, .. } = c else {
            return Ok(()); // the same on both sides
        };
        while let Some(p) = providers.next_if(|p| p.0 < c.0) {
            send(Ok(p))?;
        }
        send(Ok(c))
    });
    let res = res.and_then(|()| providers.try_for_each(|p| send(Ok(p))));
    if let Err(e) = res {
        // An error of the stream itself (not one `send` passed on already).
        let _ = send(Err(e));
    }
}

/// [`impact`] of two renderings, streamed: both sides render at once, unit by unit in
/// directory order, and only the changed units' diffs stay, so memory holds the inputs,
/// the units in flight and the diff, never both renders. `labels` name the sides in
/// errors; an error of the first side is reported before one of the second.
pub fn impact_streaming(before: Rendering, after: Rendering, labels: [&str; 2]) -> Result<Impact> {
    // A Cluster both sides give the same fingerprint renders to the same unit on both:
    // neither side renders it (a change to one Cluster of a fleet renders one Cluster
    // twice, not the fleet).
    // A directory two Clusters of one side share is rendered, so that the duplicate is
    // reported as it always was.
    let same = {
        let once = |v: Vec<(String, String)>| {
            let mut m: std::collections::HashMap<String, Option<String>> = Default::default();
            for (dir, fp) in v {
                m.entry(dir).and_modify(|e| *e = None).or_insert(Some(fp));
            }
            m
        };
        let b = once(before.cluster_fingerprints());
        let a = once(after.cluster_fingerprints());
        let same: std::collections::HashSet<String> = b
            .into_iter()
            .filter(|(dir, fp)| fp.is_some() && a.get(dir) == Some(fp))
            .map(|(dir, _)| dir)
            .collect();
        same
    };
    let (btx, brx) = std::sync::mpsc::sync_channel(32);
    let (atx, arx) = std::sync::mpsc::sync_channel(32);
    std::thread::scope(|s| {
        let same = &same;
        s.spawn(move || feed(before, same, btx));
        s.spawn(move || feed(after, same, atx));
        join(brx, arx, labels)
    })
}

fn join(b: Feed, a: Feed, labels: [&str; 2]) -> Result<Impact> {
    let (mut b, mut a) = (b.into_iter().peekable(), a.into_iter().peekable());
    let mut out = Impact::default();
    loop {
        if let Some(Err(_)) = b.peek() {
            let e = b
                .next()
                .and_then(|x| x.err())
                .unwrap_or_else(|| Error::new("?"));
            return Err(e.wrap(labels[0]));
        }
        if let Some(Err(_)) = a.peek() {
            let e = a
                .next()
                .and_then(|x| x.err())
                .unwrap_or_else(|| Error::new("?"));
            // The first side's error, if it has one, is the one to report.
            if let Some(Err(eb)) = b.find(Result::is_err) {
                return Err(eb.wrap(labels[0]));
            }
            return Err(e.wrap(labels[1]));
        }
        let order = match (b.peek(), a.peek()) {
            (None, None) => return Ok(out.finish()),
            (Some(Ok(x)), Some(Ok(y))) => x.0.cmp(&y.0),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        let take = |it: &mut std::iter::Peekable<std::sync::mpsc::IntoIter<_>>| {
            it.next().and_then(|x: Result<(String, Side)>| x.ok())
        };
        match order {
            std::cmp::Ordering::Less => {
                if let Some((d, o)) = take(&mut b) {
                    out.add(&d, Some(&o), None);
                }
            }
            std::cmp::Ordering::Greater => {
                if let Some((d, n)) = take(&mut a) {
                    out.add(&d, None, Some(&n));
                }
            }
            std::cmp::Ordering::Equal => {
                if let (Some((d, o)), Some((_, n))) = (take(&mut b), take(&mut a)) {
                    out.add(&d, Some(&o), Some(&n));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{RenderedUnit, UnitKind};
    use serde_json::json;

    fn cluster(name: &str, replicas: u64) -> RenderedUnit {
        RenderedUnit {
            kind: UnitKind::Cluster,
            namespace: "fleet".into(),
            name: name.into(),
            objects: vec![
                json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
                       "metadata": {"name": name, "namespace": "fleet"}}),
                json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachineDeployment",
                       "metadata": {"name": format!("{name}-md-0"), "namespace": "fleet"},
                       "spec": {"replicas": replicas}}),
            ],
            review: Vec::new(),
            after: Vec::new(),
            pending: Vec::new(),
            answers: Vec::new(),
        }
    }

    fn set(units: Vec<RenderedUnit>) -> RenderSet {
        RenderSet {
            units,
            ..Default::default()
        }
    }

    #[test]
    fn only_changed_clusters_are_reported_with_a_diff_per_object() {
        let before = set(vec![cluster("a", 1), cluster("b", 1)]);
        let after = set(vec![cluster("a", 1), cluster("b", 3)]);
        let i = impact(&before, &after).unwrap();
        assert_eq!(i.changed_units, vec!["clusters/fleet/b".to_string()]);
        assert!(i
            .diff
            .starts_with("# clusters/fleet/b: changed, 1 object differs\n"));
        assert!(
            i.diff.contains("-  replicas: 1\n+  replicas: 3\n"),
            "{}",
            i.diff
        );
        assert!(!i.diff.contains("clusters/fleet/a"));
        assert_eq!(
            i.units,
            vec![UnitChange {
                unit: "clusters/fleet/b".into(),
                change: Change::Changed,
                objects: vec![FileChange {
                    path: "clusters/fleet/b/machinedeployment-b-md-0.yaml".into(),
                    change: Change::Changed,
                }],
                verbs: vec![("update", "tree")],
            }]
        );
    }

    #[test]
    fn a_provider_contract_change_is_a_warning() {
        let provider = |version: &str, contract: &str| RenderedUnit {
            kind: UnitKind::Provider(crate::model::ProviderInfo {
                provider_type: "infrastructure".into(),
                kind: "InfrastructureProvider".into(),
                version: version.into(),
                contract: contract.into(),
                ..Default::default()
            }),
            namespace: "capd-system".into(),
            name: "docker".into(),
            objects: vec![json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "capd-controller-manager", "namespace": "capd-system"},
                "spec": {"template": {"spec": {"containers": [{"image": format!("capd:{version}")}]}}}})],
            review: Vec::new(),
            after: Vec::new(),
            pending: Vec::new(),
            answers: Vec::new(),
        };
        let i = impact(
            &set(vec![provider("v1.10.10", "v1beta1")]),
            &set(vec![provider("v1.14.2", "v1beta2")]),
        )
        .unwrap();
        assert_eq!(i.warnings.len(), 1, "{:?}", i.warnings);
        assert!(
            i.warnings[0].starts_with("provider providers/capd-system/infrastructure-docker moves from contract v1beta1 to v1beta2 (v1.10.10 → v1.14.2)"),
            "{}",
            i.warnings[0]
        );
        // A patch release of the same contract: no warning.
        let i = impact(
            &set(vec![provider("v1.14.1", "v1beta2")]),
            &set(vec![provider("v1.14.2", "v1beta2")]),
        )
        .unwrap();
        assert!(i.warnings.is_empty(), "{:?}", i.warnings);
    }

    #[test]
    fn in_place_updates_leave_a_rollout_to_run_time() {
        let core = |gates: &str| RenderedUnit {
            kind: UnitKind::Provider(crate::model::ProviderInfo {
                provider_type: "core".into(),
                kind: "CoreProvider".into(),
                version: "v1.14.2".into(),
                contract: "v1beta2".into(),
                ..Default::default()
            }),
            namespace: "capi-system".into(),
            name: "cluster-api".into(),
            objects: vec![json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "capi-controller-manager", "namespace": "capi-system"},
                "spec": {"template": {"spec": {"containers": [{"args": [
                    "--leader-elect", format!("--feature-gates=MachinePool=true,{gates}")]}]}}}})],
            review: Vec::new(),
            after: Vec::new(),
            pending: Vec::new(),
            answers: Vec::new(),
        };
        let cluster = |version: &str| RenderedUnit {
            kind: UnitKind::Cluster,
            namespace: "fleet".into(),
            name: "a".into(),
            objects: vec![
                json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
                       "metadata": {"name": "a", "namespace": "fleet"}}),
                json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachineDeployment",
                       "metadata": {"name": "a-md-0", "namespace": "fleet"},
                       "spec": {"replicas": 2, "template": {"spec": {"version": version}}}}),
            ],
            review: Vec::new(),
            after: Vec::new(),
            pending: Vec::new(),
            answers: Vec::new(),
        };
        let run = |gates: &str| {
            let i = impact(
                &set(vec![cluster("v1.34.1"), core(gates)]),
                &set(vec![cluster("v1.35.0"), core(gates)]),
            )
            .unwrap();
            i.clusters[0].machine_deployments[0].clone()
        };
        let md = run("InPlaceUpdates=true");
        assert_eq!(md.action, crate::impact::Action::Unknown, "{md:?}");
        assert!(md
            .reasons
            .iter()
            .any(|r| r.starts_with("InPlaceUpdates is on")));
        assert_eq!(
            run("InPlaceUpdates=false").action,
            crate::impact::Action::Rollout
        );
        assert_eq!(
            run("RuntimeSDK=true").action,
            crate::impact::Action::Rollout
        );
    }

    #[test]
    fn identical_renders_have_no_impact() {
        let s = set(vec![cluster("a", 2)]);
        assert!(impact(&s, &s.clone()).unwrap().is_empty());
    }

    #[test]
    fn added_and_removed_units_list_every_object() {
        let before = set(vec![cluster("a", 1)]);
        let after = set(vec![cluster("c", 1)]);
        let i = impact(&before, &after).unwrap();
        assert_eq!(
            i.changed_units,
            vec!["clusters/fleet/a", "clusters/fleet/c"]
        );
        assert!(i
            .diff
            .contains("# clusters/fleet/a: removed, 2 objects differ\n"));
        assert!(i
            .diff
            .contains("# clusters/fleet/c: added, 2 objects differ\n"));
        assert!(i.diff.contains("+++ /dev/null"));
        assert!(i.diff.contains("--- /dev/null"));
        let shape: Vec<(&str, Change, Vec<Change>)> = i
            .units
            .iter()
            .map(|u| {
                (
                    u.unit.as_str(),
                    u.change,
                    u.objects.iter().map(|o| o.change).collect(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            vec![
                (
                    "clusters/fleet/a",
                    Change::Removed,
                    vec![Change::Removed; 2]
                ),
                ("clusters/fleet/c", Change::Added, vec![Change::Added; 2]),
            ]
        );
    }

    #[test]
    fn secret_values_are_masked() {
        let secret = |v: &str| RenderedUnit {
            kind: UnitKind::Cluster,
            namespace: "fleet".into(),
            name: "s".into(),
            objects: vec![json!({"apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": "creds", "namespace": "fleet"},
                "stringData": {"token": v}})],
            review: Vec::new(),
            after: Vec::new(),
            pending: Vec::new(),
            answers: Vec::new(),
        };
        let i = impact(
            &set(vec![secret("old-token-value")]),
            &set(vec![secret("new-token-value")]),
        )
        .unwrap();
        assert_eq!(i.changed_units.len(), 1);
        assert!(!i.diff.contains("token-value"), "{}", i.diff);
    }
}
