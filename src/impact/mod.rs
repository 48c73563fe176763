//! Rollout impact (`capi-render diff`): for a Cluster whose desired state changes, what
//! Cluster API will do to its machines — for the control plane, each MachineDeployment
//! and each MachinePool an [`Action`] (`rollout`, `in-place`, `none`, `unknown`), the
//! machines affected and the reasons (field paths, old → new values, the template the
//! topology controller rotates) — and the warnings a reviewer must not miss.
//!
//! Pure functions over the two sides' desired objects of one Cluster (the review files
//! of `--clusters managed`, the applied objects of `flatten` / `desired`); the rules
//! per kind and API version are in [`rules`]. A referenced template whose spec changes
//! under its name counts as rotated: the topology controller gives a changed template a
//! new name and points its owner at it, which is what the up-to-date checks see.

pub mod html;
pub mod inert;
pub mod markdown;
pub mod origin;
pub mod paths;
pub mod report;
pub mod rules;
pub mod upgrade;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use paths::{at, changed, str_at};
use rules::{classify, Owner, Rules};

/// What happens to the machines of a control plane, MachineDeployment or MachinePool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    None,
    InPlace,
    Unknown,
    Rollout,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::None => "none",
            Action::InPlace => "in-place",
            Action::Unknown => "unknown",
            Action::Rollout => "rollout",
        }
    }
}

/// What happens to the Cluster itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterAction {
    Create,
    Update,
    Delete,
}

impl ClusterAction {
    pub fn as_str(self) -> &'static str {
        match self {
            ClusterAction::Create => "create",
            ClusterAction::Update => "update",
            ClusterAction::Delete => "delete",
        }
    }
}

/// The impact on one control plane, MachineDeployment or MachinePool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The object's name (a MachineDeployment's or MachinePool's topology name when it
    /// has one: `md-0`).
    pub name: String,
    pub action: Action,
    pub machines: u64,
    pub reasons: Vec<String>,
}

/// The impact on one Cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterImpact {
    pub namespace: String,
    pub name: String,
    /// The Cluster's ClusterClass, `<namespace>/<name>` ("" without one).
    pub class: String,
    pub action: ClusterAction,
    pub control_plane: Option<Part>,
    pub machine_deployments: Vec<Part>,
    pub machine_pools: Vec<Part>,
    pub warnings: Vec<String>,
    /// The chained upgrade a version change takes (a class with `kubernetesVersions`).
    pub upgrade_plan: Option<upgrade::Plan>,
}

impl ClusterImpact {
    /// Every part, the control plane first.
    pub fn parts(&self) -> impl Iterator<Item = (Owner, &Part)> {
        let cp = self.control_plane.iter().map(|p| (Owner::ControlPlane, p));
        let md = self
            .machine_deployments
            .iter()
            .map(|p| (Owner::MachineDeployment, p));
        let mp = self.machine_pools.iter().map(|p| (Owner::MachinePool, p));
        cp.chain(md).chain(mp)
    }

    /// The machines of the Cluster (every part's replicas on the side that has it).
    pub fn machines(&self) -> u64 {
        self.parts().map(|(_, p)| p.machines).sum()
    }

    pub fn rolls(&self) -> bool {
        self.parts().any(|(_, p)| p.action == Action::Rollout)
    }
}

const DEPLOYMENT_LABEL: &str = "topology.cluster.x-k8s.io/deployment-name";
const POOL_LABEL: &str = "topology.cluster.x-k8s.io/pool-name";

/// One side's objects by role: the control plane, MachineDeployments and MachinePools
/// by topology name, and every object by `(kind, name)` for references.
#[derive(Default)]
struct Side<'a> {
    cluster: Option<&'a Value>,
    owners: BTreeMap<(u8, String), &'a Value>,
    by_name: BTreeMap<(&'a str, &'a str), &'a Value>,
}

fn owner_key(o: Owner) -> u8 {
    match o {
        Owner::ControlPlane => 0,
        Owner::MachineDeployment => 1,
        Owner::MachinePool => 2,
    }
}

fn owner_of(o: &Value) -> Option<(Owner, String)> {
    let kind = str_at(o, "kind");
    let label = |l: &str| {
        let n = o
            .pointer(&format!("/metadata/labels/{}", l.replace('/', "~1")))
            .and_then(Value::as_str);
        n.unwrap_or_else(|| str_at(o, "metadata.name")).to_string()
    };
    let api = str_at(o, "apiVersion");
    if api.starts_with("controlplane.") && kind.ends_with("ControlPlane") {
        Some((Owner::ControlPlane, String::new()))
    } else if api.starts_with("cluster.x-k8s.io/") && kind == "MachineDeployment" {
        Some((Owner::MachineDeployment, label(DEPLOYMENT_LABEL)))
    } else if api.starts_with("cluster.x-k8s.io/") && kind == "MachinePool" {
        Some((Owner::MachinePool, label(POOL_LABEL)))
    } else {
        None
    }
}

impl<'a> Side<'a> {
    fn new(objects: &'a [Value]) -> Self {
        let mut s = Side::default();
        for o in objects {
            let kind = str_at(o, "kind");
            if kind == "Cluster" && str_at(o, "apiVersion").starts_with("cluster.x-k8s.io/") {
                // The last one: the desired Cluster of `managed` follows the written one.
                s.cluster = Some(o);
            }
            if let Some((owner, key)) = owner_of(o) {
                s.owners.insert((owner_key(owner), key), o);
            }
            s.by_name.insert((kind, str_at(o, "metadata.name")), o);
        }
        s
    }

    /// The object a reference (`{kind, name}`) at `path` of `o` names.
    fn referenced(&self, o: &Value, path: &str) -> Option<&'a Value> {
        let r = at(o, path)?;
        self.by_name
            .get(&(str_at(r, "kind"), str_at(r, "name")))
            .copied()
    }
}

/// The impact on the Cluster `namespace/name` whose desired objects were `before` and
/// are `after` (`None`: the Cluster is created or deleted).
pub fn cluster(
    namespace: &str,
    name: &str,
    before: Option<&[Value]>,
    after: Option<&[Value]>,
) -> ClusterImpact {
    let (b, a) = (
        Side::new(before.unwrap_or(&[])),
        Side::new(after.unwrap_or(&[])),
    );
    let action = match (before.is_some(), after.is_some()) {
        (false, _) => ClusterAction::Create,
        (true, false) => ClusterAction::Delete,
        (true, true) => ClusterAction::Update,
    };
    let keys: BTreeSet<&(u8, String)> = b.owners.keys().chain(a.owners.keys()).collect();
    let mut pending = pending_of(before);
    for l in pending_of(after) {
        if !pending.contains(&l) {
            pending.push(l);
        }
    }
    let changed_answers = answered_differently(before, after);
    let mut out = ClusterImpact {
        namespace: namespace.to_string(),
        name: name.to_string(),
        class: a.cluster.or(b.cluster).map(class_of).unwrap_or_default(),
        action,
        control_plane: None,
        machine_deployments: Vec::new(),
        machine_pools: Vec::new(),
        warnings: Vec::new(),
        upgrade_plan: None,
    };
    for key in keys {
        let (o, n) = (b.owners.get(key).copied(), a.owners.get(key).copied());
        let Some((owner, _)) = o.or(n).and_then(owner_of) else {
            continue;
        };
        let mut p = part(owner, o, n, &b, &a);
        if owner != Owner::ControlPlane {
            p.name = key.1.clone();
        }
        defer(&mut p, n.or(o), &pending);
        attribute(&mut p, &changed_answers);
        match owner {
            Owner::ControlPlane => out.control_plane = Some(p),
            Owner::MachineDeployment => out.machine_deployments.push(p),
            Owner::MachinePool => out.machine_pools.push(p),
        }
    }
    out.warnings = warnings(&out, &b, &a);
    out
}

/// `<namespace>/<name>` of a Cluster's class (v1beta1 `topology.class`, v1beta2
/// `topology.classRef`), the Cluster's namespace by default.
fn class_of(c: &Value) -> String {
    let ns = str_at(c, "metadata.namespace");
    let (name, cns) = match at(c, "spec.topology.classRef") {
        Some(r) => (str_at(r, "name"), str_at(r, "namespace")),
        None => (
            str_at(c, "spec.topology.class"),
            str_at(c, "spec.topology.classNamespace"),
        ),
    };
    if name.is_empty() {
        return String::new();
    }
    format!("{}/{name}", if cns.is_empty() { ns } else { cns })
}

fn replicas(o: Option<&Value>) -> u64 {
    o.and_then(|o| at(o, "spec.replicas"))
        .and_then(Value::as_u64)
        .unwrap_or(1)
}

/// A changed path as a reason: `path: old → new` for short scalars, else the path.
fn reason(path: &str, o: &Value, n: &Value) -> String {
    let show = |v: &Value| match v {
        Value::String(s) if s.len() <= 64 => Some(s.clone()),
        Value::Number(x) => Some(x.to_string()),
        Value::Bool(x) => Some(x.to_string()),
        _ => None,
    };
    match (at(o, path).map(show), at(n, path).map(show)) {
        (Some(Some(x)), Some(Some(y))) => format!("{path}: {x} → {y}"),
        (None, Some(Some(y))) => format!("{path}: (unset) → {y}"),
        (Some(Some(x)), None) => format!("{path}: {x} → (unset)"),
        _ => path.to_string(),
    }
}

/// The impact on one owner of machines, from its two versions and the objects it
/// refers to on each side.
fn part(owner: Owner, o: Option<&Value>, n: Option<&Value>, b: &Side, a: &Side) -> Part {
    let name = str_at(n.or(o).unwrap_or(&Value::Null), "metadata.name").to_string();
    let (o, n) = match (o, n) {
        (Some(o), Some(n)) => (o, n),
        (None, n) => {
            let m = replicas(n);
            return Part {
                name,
                action: Action::Rollout,
                machines: m,
                reasons: vec![format!("created: {}", machines(m))],
            };
        }
        (o, None) => {
            let m = replicas(o);
            return Part {
                name,
                action: Action::Rollout,
                machines: m,
                reasons: vec![format!("deleted: {}", machines(m))],
            };
        }
    };
    let r: &Rules = rules::rules(owner, str_at(n, "apiVersion"));
    let mut by: BTreeMap<Action, Vec<String>> = BTreeMap::new();
    for p in changed(Some(o), Some(n)) {
        by.entry(classify(r, &p))
            .or_default()
            .push(reason(&p, o, n));
    }
    // A referenced template changed under its name: the topology controller rotates it.
    for path in r.refs {
        let (Some(x), Some(y)) = (b.referenced(o, path), a.referenced(n, path)) else {
            continue;
        };
        let spec = changed(x.get("spec"), y.get("spec"));
        if !spec.is_empty() {
            let fields: Vec<String> = spec.iter().map(|p| format!("spec.{p}")).collect();
            let what = if owner == Owner::MachinePool {
                // A MachinePool's bootstrap object and InfraMachinePool are objects, not
                // templates: changed in place, the provider decides the rest.
                "changes in place: the infrastructure provider decides what its machines do"
            } else if str_at(x, "metadata.name") == str_at(y, "metadata.name") {
                "changes: the topology controller rotates it to a new template"
            } else {
                "rotated"
            };
            by.entry(r.ref_spec).or_default().push(format!(
                "{} {} {what} ({})",
                str_at(y, "kind"),
                str_at(x, "metadata.name"),
                fields.join(", ")
            ));
        }
    }
    if owner == Owner::ControlPlane && !str_at(n, "apiVersion").ends_with("/v1beta1") {
        if let Some(why) = rules::init_machine_rolls(o, n) {
            by.entry(Action::Rollout).or_default().push(why);
        }
    }
    by.remove(&Action::None);
    let Some((&action, reasons)) = by.iter().next_back() else {
        return Part {
            name,
            action: Action::None,
            machines: 0,
            reasons: Vec::new(),
        };
    };
    let only_replicas =
        action == Action::InPlace && reasons.iter().all(|x| x.starts_with("spec.replicas"));
    let only_init = action == Action::Rollout
        && reasons
            .iter()
            .all(|x| x.starts_with("spec.kubeadmConfigSpec.initConfiguration: "));
    let machines = if only_replicas {
        replicas(Some(n)).abs_diff(replicas(Some(o)))
    } else if only_init {
        1
    } else {
        replicas(Some(n))
    };
    Part {
        name,
        action,
        machines,
        reasons: reasons.clone(),
    }
}

/// With the `InPlaceUpdates` feature gate on (`control_plane`: in the core and the
/// control plane provider; `workers`: in the core provider), a rollout of the control
/// plane or a MachineDeployment is decided at run time: an in-place update extension
/// registered in the management cluster may update the machines instead of replacing
/// them (Cluster API asks it when a machine is not up to date), which no offline tool
/// can know.
pub fn in_place_updates(c: &mut ClusterImpact, control_plane: bool, workers: bool) {
    let why = "InPlaceUpdates is on: an in-place update extension may update these machines instead of replacing them (decided at run time)";
    let mut mark = |p: &mut Part| {
        if p.action == Action::Rollout
            && !p
                .reasons
                .iter()
                .any(|r| r.starts_with("created") || r.starts_with("deleted"))
        {
            p.action = Action::Unknown;
            p.reasons.push(why.to_string());
        }
    };
    if control_plane {
        c.control_plane.iter_mut().for_each(&mut mark);
    }
    if workers {
        c.machine_deployments.iter_mut().for_each(&mut mark);
    }
}

/// The Kubernetes versions of one side's objects: the Cluster's topology version, the
/// control plane's and the oldest worker's (`None` without workers).
pub fn versions(objects: &[Value]) -> (String, String, Option<String>) {
    let s = Side::new(objects);
    let topology = s
        .cluster
        .map(|c| str_at(c, "spec.topology.version").to_string())
        .unwrap_or_default();
    let mut cp = String::new();
    let mut workers: Vec<(u64, u64, u64, String)> = Vec::new();
    for ((k, _), o) in &s.owners {
        if *k == owner_key(Owner::ControlPlane) {
            cp = str_at(o, "spec.version").to_string();
        } else {
            let v = str_at(o, "spec.template.spec.version");
            let mut it = v.trim_start_matches('v').split(['.', '-', '+']);
            let mut n = || it.next().and_then(|x| x.parse().ok()).unwrap_or(0);
            workers.push((n(), n(), n(), v.to_string()));
        }
    }
    workers.sort();
    (topology, cp, workers.into_iter().next().map(|w| w.3))
}

/// The chained upgrade of a Cluster whose topology version changes, with its class's
/// `kubernetesVersions` (empty: Cluster API upgrades one minor at a time, which the
/// minor-skip warning covers): the plan, or a warning when Cluster API cannot plan it.
pub fn plan_upgrade(
    c: &mut ClusterImpact,
    before: &[Value],
    after: &[Value],
    class_versions: &[String],
) {
    if class_versions.is_empty() {
        return;
    }
    let (from, cp, min_workers) = versions(before);
    let (to, _, _) = versions(after);
    if from == to || to.is_empty() || cp.is_empty() {
        return;
    }
    let to = if to.starts_with('v') {
        to
    } else {
        format!("v{to}")
    };
    match upgrade::plan(&to, &cp, min_workers.as_deref(), class_versions) {
        Ok(p) => {
            // The class lists the versions between: skipping minors is what it is for.
            c.warnings.retain(|w| !w.contains("skips a minor version"));
            c.upgrade_plan = Some(p);
        }
        Err(e) => c.warnings.push(format!(
            "Cluster {}/{}: Cluster API cannot plan the upgrade {cp} → {to} through its ClusterClass's kubernetesVersions: {e}",
            c.namespace, c.name
        )),
    }
}

/// `(major, minor)` of a Kubernetes version `v1.32.0`.
fn minor(v: &str) -> Option<(u64, u64)> {
    let mut it = v.trim_start_matches('v').split('.');
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

/// `1 machine`, `3 machines`: a count of machines as the reports write it.
pub fn machines(n: u64) -> String {
    format!("{n} machine{}", if n == 1 { "" } else { "s" })
}

/// The Cluster's own warnings: deleted (with its machines), a Kubernetes minor
/// skipped, workers ahead of the control plane.
fn warnings(c: &ClusterImpact, b: &Side, a: &Side) -> Vec<String> {
    let id = format!("{}/{}", c.namespace, c.name);
    let mut out = Vec::new();
    if c.action == ClusterAction::Delete {
        out.push(format!(
            "Cluster {id} is deleted: the workload cluster and its {} are destroyed",
            machines(c.machines())
        ));
    }
    let version = |s: &Side| {
        s.cluster
            .map(|c| str_at(c, "spec.topology.version").to_string())
    };
    if let (Some(x), Some(y)) = (version(b), version(a)) {
        if let (Some(mx), Some(my)) = (minor(&x), minor(&y)) {
            if my.0 == mx.0 && my.1 > mx.1 + 1 {
                out.push(format!("Cluster {id}: Kubernetes {x} → {y} skips a minor version; Kubernetes and Cluster API upgrade one minor at a time"));
            }
        }
    }
    let cp = a
        .owners
        .get(&(owner_key(Owner::ControlPlane), String::new()));
    if let Some(cpv) = cp.and_then(|cp| minor(str_at(cp, "spec.version"))) {
        for ((k, name), o) in &a.owners {
            let v = str_at(o, "spec.template.spec.version");
            if *k != owner_key(Owner::ControlPlane) && minor(v).is_some_and(|w| w > cpv) {
                out.push(format!("Cluster {id}: {name} runs Kubernetes {v}, ahead of its control plane (workers may not be newer than the control plane)"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;

/// The kind of the fact object a Cluster unit's desired objects end with when its
/// ClusterClass's external patches were left out ([`pending_fact`]); no object of the
/// API has an empty kind, so no rule reads it.
const PENDING_KIND: &str = "";

/// The fact `diff` adds to a Cluster's desired objects: what they leave out (one line
/// per external patch and its runtime extension).
pub fn pending_fact(lines: &[String]) -> Value {
    serde_json::json!({"kind": PENDING_KIND, "pending": lines})
}

/// The lines of a side's [`pending_fact`], if it has one.
pub fn pending_of(side: Option<&[Value]>) -> Vec<String> {
    fact_lines(side, "pending").collect()
}

/// The lines under `key` of a side's facts ([`pending_fact`], [`answers_fact`]).
fn fact_lines<'a>(side: Option<&'a [Value]>, key: &'a str) -> impl Iterator<Item = String> + 'a {
    side.into_iter()
        .flatten()
        .filter(|o| o.get("kind").and_then(Value::as_str) == Some(PENDING_KIND))
        .filter_map(move |o| o.get(key).and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
}

/// The fact `diff` adds to a Cluster's desired objects when runtime extensions were
/// called for it: each handler and the sha256 of its answer.
pub fn answers_fact(lines: &[String]) -> Value {
    serde_json::json!({"kind": PENDING_KIND, "answers": lines})
}

/// The handlers whose answers differ between the two sides (both called), by name.
fn answered_differently(before: Option<&[Value]>, after: Option<&[Value]>) -> Vec<String> {
    let b: BTreeSet<String> = fact_lines(before, "answers").collect();
    let a: BTreeSet<String> = fact_lines(after, "answers").collect();
    let handler = |l: &String| l.split_once(' ').map_or(l.clone(), |(h, _)| h.to_string());
    let (bh, ah): (BTreeSet<String>, BTreeSet<String>) = (
        b.iter().map(handler).collect(),
        a.iter().map(handler).collect(),
    );
    b.symmetric_difference(&a)
        .map(handler)
        .filter(|h| bh.contains(h) && ah.contains(h))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// A part that changes while runtime extension handlers answered differently on the
/// two sides: the reasons name them, since their patches may be what changed it.
fn attribute(p: &mut Part, handlers: &[String]) {
    if handlers.is_empty() || p.action == Action::None {
        return;
    }
    p.reasons.push(format!(
        "runtime extension handler(s) {} answered differently for this Cluster",
        handlers.join(", ")
    ));
}

/// A part of a Cluster whose desired objects (`obj` its own) leave out external
/// patches: unless the objects at hand already roll it, the runtime extension decides
/// what happens to its machines, so it is `unknown`, with the patches as its reasons. A
/// rollout stays one: the extension patches the new objects as well, it cannot keep
/// the old ones.
fn defer(p: &mut Part, obj: Option<&Value>, pending: &[String]) {
    if pending.is_empty() || p.action == Action::Rollout {
        return;
    }
    if p.action == Action::None {
        p.machines = replicas(obj);
    }
    p.action = Action::Unknown;
    p.reasons.extend(pending.iter().cloned());
}
