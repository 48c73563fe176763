//! Where a Cluster's change came from: a field of the Cluster, a variable, a ClusterClass
//! patch (by name), a template of the class, another field of the class, or a provider.
//! Each origin names the parts it can reach — a patch reaches what its selectors match,
//! a variable what the patches reading it reach, a template the control plane or the
//! worker classes that use it — and [`attach`] adds `from …` to the reasons of every
//! changed part an origin reaches.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::paths::{at, changed, str_at};
use super::rules::Owner;
use super::{Action, ClusterImpact};

/// What an origin can reach.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// Every part.
    All,
    ControlPlane,
    /// A MachineDeployment class.
    Md(String),
    /// A MachinePool class.
    Mp(String),
    /// A MachineDeployment or MachinePool by its topology name.
    Worker(String),
}

/// A ClusterClass as attribution needs it (from its unit's objects: the class and its
/// templates).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClassFacts {
    /// By patch name: the patch as written, the variables it reads, what it selects.
    patches: BTreeMap<String, (Value, BTreeSet<String>, Vec<Target>)>,
    /// By `(kind, name)`: the template's spec and who uses it.
    templates: BTreeMap<(String, String), (Value, Vec<Target>)>,
    /// The class's spec without its patches.
    rest: Value,
    /// `spec.kubernetesVersions`: the versions of chained upgrades.
    pub kubernetes_versions: Vec<String>,
}

/// An origin and what it reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub what: String,
    pub reaches: Vec<Target>,
}

fn list<'a>(v: &'a Value, path: &str) -> &'a [Value] {
    at(v, path)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The template a class slot refers to (v1beta2 `templateRef`, v1beta1 `ref`; v1beta1
/// worker classes keep theirs under `template`).
fn slot(v: &Value, path: &str) -> Option<(String, String)> {
    ["templateRef", "ref", "template.ref"].iter().find_map(|r| {
        let r = at(v, &format!("{path}.{r}"))?;
        Some((str_at(r, "kind").to_string(), str_at(r, "name").to_string()))
    })
}

/// The variable names a patch reads: `valueFrom.variable` roots, and `.name` in its
/// templates and `enabledIf`, for the class's variable names.
fn variables_of(patch: &Value, known: &BTreeSet<String>) -> BTreeSet<String> {
    let text = patch.to_string();
    let mut out = BTreeSet::new();
    for v in known {
        let needle = format!(".{v}");
        let reads_in_template = text.match_indices(&needle).any(|(i, _)| {
            let next = text[i + needle.len()..].chars().next();
            !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        if reads_in_template {
            out.insert(v.clone());
        }
    }
    value_from_variables(patch, &mut out);
    out
}

/// The roots of every `variable` a patch's `valueFrom` names (`a.b[0]` reads `a`).
fn value_from_variables(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(s)) = m.get("variable") {
                let root = s.split(['.', '[']).next().unwrap_or(s);
                out.insert(root.to_string());
            }
            m.values().for_each(|x| value_from_variables(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| value_from_variables(x, out)),
        _ => {}
    }
}

/// What a patch's selectors match.
fn selects(patch: &Value) -> Vec<Target> {
    let mut out = Vec::new();
    for d in list(patch, "definitions") {
        let m = at(d, "selector.matchResources").unwrap_or(&Value::Null);
        if m.get("controlPlane").and_then(Value::as_bool) == Some(true) {
            out.push(Target::ControlPlane);
        }
        for n in list(m, "machineDeploymentClass.names") {
            out.push(Target::Md(n.as_str().unwrap_or("").to_string()));
        }
        for n in list(m, "machinePoolClass.names") {
            out.push(Target::Mp(n.as_str().unwrap_or("").to_string()));
        }
    }
    if list(patch, "definitions").is_empty() {
        out.push(Target::All); // an external patch: it may touch anything
    }
    out
}

/// The facts of a class unit's objects (`None` without a ClusterClass among them).
pub fn class_facts(objects: &[Value]) -> Option<ClassFacts> {
    let class = objects
        .iter()
        .find(|o| str_at(o, "kind") == "ClusterClass")?;
    let known: BTreeSet<String> = list(class, "spec.variables")
        .iter()
        .map(|v| str_at(v, "name").to_string())
        .collect();
    let mut f = ClassFacts::default();
    for p in list(class, "spec.patches") {
        let name = str_at(p, "name").to_string();
        f.patches
            .insert(name, (p.clone(), variables_of(p, &known), selects(p)));
    }
    let mut users: BTreeMap<(String, String), Vec<Target>> = BTreeMap::new();
    let mut use_slot = |path: &str, v: &Value, t: Target| {
        if let Some(k) = slot(v, path) {
            users.entry(k).or_default().push(t);
        }
    };
    use_slot("spec.controlPlane", class, Target::ControlPlane);
    use_slot(
        "spec.controlPlane.machineInfrastructure",
        class,
        Target::ControlPlane,
    );
    use_slot("spec.infrastructure", class, Target::All);
    for (key, mk) in [
        ("machineDeployments", Target::Md as fn(String) -> Target),
        ("machinePools", Target::Mp),
    ] {
        for w in list(class, &format!("spec.workers.{key}")) {
            let c = str_at(w, "class").to_string();
            use_slot("bootstrap", w, mk(c.clone()));
            use_slot("infrastructure", w, mk(c.clone()));
            use_slot("template.bootstrap", w, mk(c.clone()));
            use_slot("template.infrastructure", w, mk(c));
        }
    }
    for o in objects {
        let k = (
            str_at(o, "kind").to_string(),
            str_at(o, "metadata.name").to_string(),
        );
        if let Some(t) = users.remove(&k) {
            f.templates
                .insert(k, (o.get("spec").cloned().unwrap_or_default(), t));
        }
    }
    f.kubernetes_versions = list(class, "spec.kubernetesVersions")
        .iter()
        .filter_map(|v| v.as_str().map(String::from))
        .collect();
    let mut rest = class.get("spec").cloned().unwrap_or_default();
    if let Some(m) = rest.as_object_mut() {
        m.remove("patches");
    }
    f.rest = rest;
    Some(f)
}

/// The variables a Cluster sets: `name -> value`, with a worker's overrides as
/// `name@<topology name>`.
fn cluster_variables(c: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for v in list(c, "spec.topology.variables") {
        out.insert(
            str_at(v, "name").to_string(),
            v.get("value").cloned().unwrap_or_default(),
        );
    }
    for key in ["machineDeployments", "machinePools"] {
        for w in list(c, &format!("spec.topology.workers.{key}")) {
            let vars = at(w, "variables.overrides").or_else(|| at(w, "variables"));
            for v in vars
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
            {
                out.insert(
                    format!("{}@{}", str_at(v, "name"), str_at(w, "name")),
                    v.get("value").cloned().unwrap_or_default(),
                );
            }
        }
    }
    out
}

/// The changed paths of two `spec.topology`s (without variables), each with what it
/// reaches; workers are compared by name.
fn topology_changes(mut tb: Value, mut ta: Value) -> Vec<(String, Target)> {
    let mut out = Vec::new();
    for key in ["machineDeployments", "machinePools"] {
        let by_name = |v: &mut Value| -> BTreeMap<String, Value> {
            let Some(Value::Array(ws)) = v.pointer_mut(&format!("/workers/{key}")).map(Value::take)
            else {
                return BTreeMap::new();
            };
            ws.into_iter()
                .map(|w| (str_at(&w, "name").to_string(), w))
                .collect()
        };
        let (wb, wa) = (by_name(&mut tb), by_name(&mut ta));
        let names: BTreeSet<&String> = wb.keys().chain(wa.keys()).collect();
        for n in names {
            let (x, y) = (wb.get(n), wa.get(n));
            let paths = match (x, y) {
                (Some(_), Some(_)) => changed(x, y),
                _ => vec![String::new()],
            };
            for p in paths {
                let sep = if p.is_empty() { "" } else { "." };
                out.push((
                    format!("spec.topology.workers.{key}[{n}]{sep}{p}"),
                    Target::Worker(n.clone()),
                ));
            }
        }
    }
    for p in changed(Some(&tb), Some(&ta)) {
        let t = if p.starts_with("controlPlane") {
            Target::ControlPlane
        } else {
            Target::All
        };
        out.push((format!("spec.topology.{p}"), t));
    }
    out.sort();
    out
}

/// The parts `variable` reaches through `class`'s patches.
fn variable_reach(class: Option<&ClassFacts>, variable: &str) -> Vec<Target> {
    let Some(class) = class else {
        return vec![Target::All];
    };
    let mut out: Vec<Target> = class
        .patches
        .values()
        .filter(|(_, vars, _)| vars.contains(variable))
        .flat_map(|(_, _, t)| t.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every origin of a Cluster's change: its own fields and variables (`before` absent:
/// none, the Cluster is new), and its class's patches, templates and other fields.
pub fn origins(
    before: Option<&Value>,
    after: Option<&Value>,
    class_before: Option<&ClassFacts>,
    class_after: Option<&ClassFacts>,
) -> Vec<Origin> {
    let mut out = cluster_origins(before, after, class_after);
    out.extend(class_origins(class_before, class_after));
    out
}

/// The origins in the Cluster itself: its variables and its topology's other fields.
pub fn cluster_origins(
    before: Option<&Value>,
    after: Option<&Value>,
    class_after: Option<&ClassFacts>,
) -> Vec<Origin> {
    let mut out = Vec::new();
    if let (Some(b), Some(a)) = (before, after) {
        let (vb, va) = (cluster_variables(b), cluster_variables(a));
        let names: BTreeSet<&String> = vb.keys().chain(va.keys()).collect();
        for n in names.into_iter().filter(|n| vb.get(*n) != va.get(*n)) {
            let (var, worker) = n.split_once('@').unwrap_or((n, ""));
            let what = if worker.is_empty() {
                format!("variable {var}")
            } else {
                format!("variable {var} of {worker}")
            };
            out.push(Origin {
                what,
                reaches: variable_reach(class_after, var),
            });
        }
        let mut topo_b = at(b, "spec.topology").cloned().unwrap_or_default();
        let mut topo_a = at(a, "spec.topology").cloned().unwrap_or_default();
        strip_variables(&mut topo_b);
        strip_variables(&mut topo_a);
        for (path, t) in topology_changes(topo_b, topo_a) {
            out.push(Origin {
                reaches: vec![t],
                what: format!("Cluster {path}"),
            });
        }
    }
    out
}

/// The origins in a ClusterClass (the same for every Cluster of it: computed once per
/// class): its patches, templates and other fields.
pub fn class_origins(
    class_before: Option<&ClassFacts>,
    class_after: Option<&ClassFacts>,
) -> Vec<Origin> {
    let mut out = Vec::new();
    if let (Some(cb), Some(ca)) = (class_before, class_after) {
        let names: BTreeSet<&String> = cb.patches.keys().chain(ca.patches.keys()).collect();
        for n in names {
            let (x, y) = (cb.patches.get(n), ca.patches.get(n));
            if x.map(|p| &p.0) != y.map(|p| &p.0) {
                let mut reaches: Vec<Target> =
                    x.into_iter().chain(y).flat_map(|p| p.2.clone()).collect();
                reaches.sort();
                reaches.dedup();
                out.push(Origin {
                    what: format!("ClusterClass patch {n}"),
                    reaches,
                });
            }
        }
        for (k, (spec, users)) in &ca.templates {
            if cb.templates.get(k).is_some_and(|(s, _)| s != spec) {
                out.push(Origin {
                    what: format!("template {} {}", k.0, k.1),
                    reaches: users.clone(),
                });
            }
        }
        for p in changed(Some(&cb.rest), Some(&ca.rest)) {
            out.push(Origin {
                what: format!("ClusterClass spec.{p}"),
                reaches: vec![Target::All],
            });
        }
    }
    out
}

fn strip_variables(topology: &mut Value) {
    if let Some(m) = topology.as_object_mut() {
        m.remove("variables");
    }
    for key in ["machineDeployments", "machinePools"] {
        if let Some(ws) = topology
            .pointer_mut(&format!("/workers/{key}"))
            .and_then(Value::as_array_mut)
        {
            for w in ws {
                if let Some(m) = w.as_object_mut() {
                    m.remove("variables");
                }
            }
        }
    }
}

/// A selector's class name, where `*` stands for any run of characters (`*-worker`).
fn glob(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty(); // no `*`: the whole name
    };
    for m in middle {
        match rest.find(m) {
            Some(i) => rest = &rest[i + m.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Add `from <origin>` to the reasons of every changed part an origin reaches; the
/// worker classes of the Cluster's topology (`after`, else `before`) map a
/// MachineDeployment's or MachinePool's topology name to its class.
pub fn attach(c: &mut ClusterImpact, cluster: Option<&Value>, origins: &[Origin]) {
    let class_of = |key: &str, name: &str| -> String {
        cluster
            .map(|cl| list(cl, &format!("spec.topology.workers.{key}")))
            .unwrap_or(&[])
            .iter()
            .find(|w| str_at(w, "name") == name)
            .map(|w| str_at(w, "class").to_string())
            .unwrap_or_default()
    };
    let reach = |owner: Owner, name: &str, t: &Target| match (owner, t) {
        (_, Target::All) => true,
        (Owner::ControlPlane, Target::ControlPlane) => true,
        (Owner::MachineDeployment, Target::Md(c)) => glob(c, &class_of("machineDeployments", name)),
        (Owner::MachinePool, Target::Mp(c)) => glob(c, &class_of("machinePools", name)),
        (Owner::MachineDeployment | Owner::MachinePool, Target::Worker(n)) => n == name,
        _ => false,
    };
    let add = |owner: Owner, p: &mut super::Part| {
        if p.action == Action::None {
            return;
        }
        for o in origins {
            if o.reaches.iter().any(|t| reach(owner, &p.name, t)) {
                p.reasons.push(format!("from {}", o.what));
            }
        }
    };
    if let Some(p) = c.control_plane.as_mut() {
        add(Owner::ControlPlane, p);
    }
    for p in &mut c.machine_deployments {
        add(Owner::MachineDeployment, p);
    }
    for p in &mut c.machine_pools {
        add(Owner::MachinePool, p);
    }
}

#[cfg(test)]
mod tests;
