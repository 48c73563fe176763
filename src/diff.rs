//! Change impact (`capi-render diff`): render two input sets and show, for every unit
//! (Cluster or provider) whose rendered objects differ, a unified diff per object. This
//! is the review tool for a ClusterClass or provider pull request across a whole fleet.
//!
//! Both sides are laid out exactly as the GitOps tree lays them out (one file per
//! object, `gitops::layout`), so an object is identified by its tree path; Secret values
//! are masked as in `render --check`. Generated name suffixes are derived from stable
//! inputs, so an unchanged Cluster renders the same names on both sides.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::Result;
use crate::gitops::check::{file_diff, Change, FileChange};
use crate::gitops::{layout::plan_files, TreeOptions};
use crate::model::RenderSet;

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
}

/// One changed unit: its directory, whether it was added, removed or changed, and the
/// object files (tree paths) that differ, sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitChange {
    pub unit: String,
    pub change: Change,
    pub objects: Vec<FileChange>,
}

impl Impact {
    pub fn is_empty(&self) -> bool {
        self.changed_units.is_empty()
    }
}

/// The object files of a render, by unit directory (kustomizations left out: they only
/// list the files, whose own diffs already show what was added or removed).
fn object_files(set: &RenderSet) -> Result<BTreeMap<String, BTreeMap<String, String>>> {
    let files = plan_files(set, &TreeOptions::default())?;
    let mut by_unit: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for u in &set.units {
        by_unit.entry(u.dir()).or_default();
    }
    for (path, text) in files {
        let Some((dir, file)) = path.rsplit_once('/') else {
            continue; // the root kustomization
        };
        if file == crate::gitops::kustomization::FILE {
            continue;
        }
        if let Some(unit) = by_unit.get_mut(dir) {
            unit.insert(path.clone(), text);
        }
    }
    Ok(by_unit)
}

/// Compare two renders.
pub fn impact(before: &RenderSet, after: &RenderSet) -> Result<Impact> {
    let old = object_files(before)?;
    let new = object_files(after)?;
    let empty = BTreeMap::new();
    let units: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let mut out = Impact::default();
    for unit in units {
        let (o, n) = (
            old.get(unit).unwrap_or(&empty),
            new.get(unit).unwrap_or(&empty),
        );
        let paths: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
        let mut diffs = String::new();
        let mut objects = Vec::new();
        for p in paths {
            let (a, b) = (o.get(p).map(String::as_str), n.get(p).map(String::as_str));
            if a != b {
                objects.push(FileChange {
                    path: p.clone(),
                    change: Change::between(a, b),
                });
                diffs.push_str(&file_diff(p, a, b));
            }
        }
        let changed = objects.len();
        let change = Change::between(old.get(unit), new.get(unit));
        let status = change.as_str();
        if changed > 0 || change != Change::Changed {
            out.diff.push_str(&format!(
                "# {unit}: {status}, {changed} object{} differ{}\n",
                if changed == 1 { "" } else { "s" },
                if changed == 1 { "s" } else { "" }
            ));
            out.diff.push_str(&diffs);
            out.changed_units.push(unit.clone());
            out.units.push(UnitChange {
                unit: unit.clone(),
                change,
                objects,
            });
        }
    }
    Ok(out)
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
            }]
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
