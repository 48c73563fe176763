//! The fleet view of the Cluster impacts: warnings across Clusters (a ClusterClass
//! change that rolls Clusters, a class removed while Clusters use it), the
//! Terraform-style headline and one text section per Cluster.

use std::collections::BTreeSet;

use super::inert::text as shown;
use super::rules::Owner;
use super::{machines, Action, ClusterAction, ClusterImpact};

/// Warnings about classes: `changed` and `removed` hold the `<namespace>/<name>` of the
/// ClusterClasses whose unit changed or was removed.
pub fn class_warnings(
    clusters: &[ClusterImpact],
    changed: &BTreeSet<String>,
    removed: &BTreeSet<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for class in changed {
        let rolled: Vec<&ClusterImpact> = clusters
            .iter()
            .filter(|c| &c.class == class && c.action == ClusterAction::Update && c.rolls())
            .collect();
        if rolled.is_empty() {
            continue;
        }
        let names: Vec<String> = rolled
            .iter()
            .map(|c| format!("{}/{}", c.namespace, c.name))
            .collect();
        let m: u64 = rolled.iter().map(|c| rolling_machines(c)).sum();
        out.push(format!(
            "ClusterClass {class} changes roll {} Cluster{} ({} replaced): {}; Cluster API recommends a new ClusterClass and rebasing Clusters onto it one at a time to canary such a change",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            machines(m),
            names.join(", ")
        ));
    }
    for class in removed {
        let users: Vec<String> = clusters
            .iter()
            .filter(|c| &c.class == class && c.action != ClusterAction::Delete)
            .map(|c| format!("{}/{}", c.namespace, c.name))
            .collect();
        if !users.is_empty() {
            out.push(format!(
                "ClusterClass {class} is removed while Clusters use it: {}",
                users.join(", ")
            ));
        }
    }
    out
}

fn rolling_machines(c: &ClusterImpact) -> u64 {
    c.parts()
        .filter(|(_, p)| p.action == Action::Rollout)
        .map(|(_, p)| p.machines)
        .sum()
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The one-line summary: "3 Clusters changed · 1 control plane rolls (3 machines) · 4
/// MachineDeployments roll (11 machines) · 2 in place · 1 Cluster deleted (5
/// machines)". Created and deleted Clusters count apart from the changed ones.
pub fn headline(clusters: &[ClusterImpact]) -> String {
    let mut parts = Vec::new();
    let of = |a: ClusterAction| clusters.iter().filter(move |c| c.action == a);
    let updated: Vec<&ClusterImpact> = of(ClusterAction::Update).collect();
    if !updated.is_empty() {
        parts.push(format!(
            "{} changed",
            plural(updated.len(), "Cluster", "Clusters")
        ));
    }
    let rolls = |o: Owner, one: &str, many: &str| {
        let rolled: Vec<u64> = updated
            .iter()
            .flat_map(|c| c.parts())
            .filter(|(w, p)| *w == o && p.action == Action::Rollout)
            .map(|(_, p)| p.machines)
            .collect();
        (!rolled.is_empty()).then(|| {
            let verb = if rolled.len() == 1 { "rolls" } else { "roll" };
            let m: u64 = rolled.iter().sum();
            format!(
                "{} {verb} ({})",
                plural(rolled.len(), one, many),
                machines(m)
            )
        })
    };
    parts.extend(rolls(
        Owner::ControlPlane,
        "control plane",
        "control planes",
    ));
    parts.extend(rolls(
        Owner::MachineDeployment,
        "MachineDeployment",
        "MachineDeployments",
    ));
    parts.extend(rolls(Owner::MachinePool, "MachinePool", "MachinePools"));
    let count = |a: Action| {
        updated
            .iter()
            .flat_map(|c| c.parts())
            .filter(|(_, p)| p.action == a)
            .count()
    };
    if count(Action::InPlace) > 0 {
        parts.push(format!("{} in place", count(Action::InPlace)));
    }
    if count(Action::Unknown) > 0 {
        parts.push(format!("{} decided at run time", count(Action::Unknown)));
    }
    let created: Vec<&ClusterImpact> = of(ClusterAction::Create).collect();
    if !created.is_empty() {
        parts.push(format!(
            "{} created",
            plural(created.len(), "Cluster", "Clusters")
        ));
    }
    let deleted: Vec<&ClusterImpact> = of(ClusterAction::Delete).collect();
    if !deleted.is_empty() {
        let m: u64 = deleted.iter().map(|c| c.machines()).sum();
        parts.push(format!(
            "{} deleted ({})",
            plural(deleted.len(), "Cluster", "Clusters"),
            machines(m)
        ));
    }
    if parts.is_empty() {
        return "no Cluster changes".to_string();
    }
    parts.join(" · ")
}

/// The steps of a plan: `v1.33.2 → v1.34.1`, `none` for none.
fn steps(v: &[String]) -> String {
    if v.is_empty() {
        "none".to_string()
    } else {
        let v: Vec<_> = v.iter().map(|s| shown(s)).collect();
        v.join(" → ")
    }
}

/// One Cluster's section: `Cluster <ns>/<name>: <action>`, then a line per part with
/// its action and machines and a line per reason. Values from the inputs (names,
/// versions, reasons) show their hidden characters escaped ([`super::inert::text`]).
pub fn section(c: &ClusterImpact) -> String {
    let mut s = format!(
        "Cluster {}/{}: {}\n",
        shown(&c.namespace),
        shown(&c.name),
        c.action.as_str()
    );
    if let Some(p) = &c.upgrade_plan {
        s.push_str(&format!(
            "  upgrade plan: control plane {}; workers {}\n",
            steps(&p.control_plane),
            steps(&p.workers)
        ));
    }
    for (owner, p) in c.parts() {
        let what = owner.label();
        s.push_str(&format!(
            "  {what} {}: {} ({})\n",
            shown(&p.name),
            p.action.as_str(),
            machines(p.machines)
        ));
        for r in &p.reasons {
            s.push_str(&format!("    {}\n", shown(r)));
        }
    }
    s
}

/// The text report: the headline, the warnings (`! ...`), one section per Cluster
/// and a blank line, to print before the object diffs. Every line break in it is ours:
/// a value's hidden characters show as escapes.
pub fn text(clusters: &[ClusterImpact], warnings: &[String]) -> String {
    let mut s = format!("{}\n", headline(clusters));
    for w in warnings {
        s.push_str(&format!("! {}\n", shown(w)));
    }
    for c in clusters {
        s.push_str(&section(c));
    }
    s.push('\n');
    s
}

/// The object diffs split per unit: `(header, diff text)` for each `# <unit>: ...` line
/// of [`crate::diff::Impact::diff`].
pub fn unit_diffs(diff: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = diff;
    while let Some(h) = rest.strip_prefix("# ") {
        let (header, body) = h.split_once('\n').unwrap_or((h, ""));
        let end = body.find("\n# ").map_or(body.len(), |i| i + 1);
        out.push((header, &body[..end]));
        rest = &body[end..];
    }
    out
}
