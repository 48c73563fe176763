//! The tree's files, in memory: one directory per unit with one file per object and a
//! `kustomization.yaml`, a root `kustomization.yaml`, and with `--flux` a `flux/`
//! directory of Flux Kustomizations (not listed by the root kustomization, so that
//! `kustomize build OUT` is exactly the rendered objects).

use std::collections::BTreeMap;

use super::flux::UnitSummary;
use super::kustomization::{kustomization, FILE as KUSTOMIZATION};
use super::names::{check_segment, object_file_names};
use super::{flux, TreeOptions};
use crate::error::{Error, Result};
use crate::model::{RenderSet, RenderedUnit, UnitKind, REVIEW_DIR};

/// Directory of the Flux Kustomizations.
pub const FLUX_DIR: &str = "flux";
/// Directory of the Argo CD Applications.
pub const ARGOCD_DIR: &str = "argocd";

/// One unit laid out: its summary and its files (path in the tree, content), the
/// objects in apply order and then the unit's `kustomization.yaml`.
pub struct UnitFiles {
    pub summary: UnitSummary,
    pub files: Vec<(String, String)>,
}

/// How errors name a unit.
fn describe(kind: &UnitKind, namespace: &str, name: &str) -> String {
    match kind {
        UnitKind::Provider(p) => format!("provider {} {namespace}/{name}", p.kind),
        UnitKind::Cluster => format!("cluster {namespace}/{name}"),
        UnitKind::Class => format!("class {namespace}/{name}"),
        UnitKind::CertManager(p) => format!("cert-manager {}", p.version),
        UnitKind::Namespaces => "the namespaces unit".to_string(),
    }
}

/// The error for a unit whose directory an earlier unit has.
pub fn same_directory(kind: &UnitKind, namespace: &str, name: &str) -> Error {
    let what = describe(kind, namespace, name);
    let dir = crate::model::unit_dir(kind, namespace, name);
    Error::new(format!(
        "{what}: two units render to the same directory {dir}"
    ))
}

/// Lay out one unit: a safe directory from its namespace and name, one file per
/// object, its kustomization, then one file per review object in `<dir>/desired/`
/// (listed by no kustomization, so never applied).
pub fn unit_files(u: &RenderedUnit) -> Result<UnitFiles> {
    let what = describe(&u.kind, &u.namespace, &u.name);
    check_segment(&format!("{what}: namespace"), &u.namespace)?;
    check_segment(&format!("{what}: name"), &u.name)?;
    let dir = u.dir();
    let names = object_file_names(&u.objects);
    let review = object_file_names(&u.review);
    let mut files = Vec::with_capacity(names.len() + review.len() + 1);
    let mut write = |o: &serde_json::Value, at: &str, n: &str| -> Result<()> {
        let text = crate::yaml::emit::try_to_yaml(o)
            .map_err(|e| e.wrap(format!("{what}: object {n} cannot be written as YAML")))?;
        files.push((format!("{at}/{n}"), text));
        Ok(())
    };
    for (o, n) in u.objects.iter().zip(&names) {
        write(o, &dir, n)?;
    }
    let review_dir = format!("{dir}/{REVIEW_DIR}");
    for (o, n) in u.review.iter().zip(&review) {
        write(o, &review_dir, n)?;
    }
    files.push((format!("{dir}/{KUSTOMIZATION}"), kustomization(&names)));
    Ok(UnitFiles {
        summary: UnitSummary::of(u),
        files,
    })
}

/// The tree assembled from its units in order: every unit's files are handed on as
/// the unit comes, then [`Layout::finish`] adds the root kustomization and the Flux
/// files. What stays is one summary per unit.
#[derive(Default)]
pub struct Layout {
    dirs: rustc_hash::FxHashSet<String>,
    units: Vec<UnitSummary>,
}

impl Layout {
    /// Room for `units` units (a fleet's 100,000 summaries are not moved as they grow).
    pub fn with_capacity(units: usize) -> Layout {
        Layout {
            dirs: rustc_hash::FxHashSet::with_capacity_and_hasher(units, Default::default()),
            units: Vec::with_capacity(units),
        }
    }

    /// Add the next unit; its files go to `sink`.
    pub fn unit(
        &mut self,
        u: UnitFiles,
        sink: &mut dyn FnMut(String, String) -> Result<()>,
    ) -> Result<()> {
        self.claim(&u.summary)?;
        for (p, text) in u.files {
            sink(p, text)?;
        }
        self.units.push(u.summary);
        Ok(())
    }

    /// Add the next unit, not rendered this time: its files stay as they are. `dir` is
    /// its directory (`summary.dir()`, which the caller has at hand).
    pub fn kept(&mut self, summary: UnitSummary, dir: String) -> Result<()> {
        debug_assert_eq!(dir, summary.dir());
        if !self.dirs.insert(dir) {
            return Err(same_directory(
                &summary.kind,
                &summary.namespace,
                &summary.name,
            ));
        }
        self.units.push(summary);
        Ok(())
    }

    /// The units' summaries in order, without the tree's own files (a shard's).
    pub fn into_units(self) -> Vec<UnitSummary> {
        self.units
    }

    /// The unit's directory, which no earlier unit may have.
    fn claim(&mut self, u: &UnitSummary) -> Result<()> {
        let dir = u.dir();
        if !self.dirs.insert(dir.clone()) {
            return Err(same_directory(&u.kind, &u.namespace, &u.name));
        }
        Ok(())
    }

    /// The root kustomization and, with `--flux`, the Flux files, to `sink`; the
    /// units' summaries in order.
    pub fn finish(
        self,
        opts: &TreeOptions,
        sink: &mut dyn FnMut(String, String) -> Result<()>,
    ) -> Result<Vec<UnitSummary>> {
        let unit_dirs: Vec<String> = self.units.iter().map(UnitSummary::dir).collect();
        sink(KUSTOMIZATION.to_string(), kustomization(&unit_dirs))?;
        if opts.flux {
            let source = opts.flux_source.as_deref().unwrap_or(flux::NAMESPACE);
            let ks = flux::kustomizations(&self.units, source, &opts.flux_path, &opts.flux_extras)?;
            let mut names = Vec::new();
            for (n, o) in ks {
                sink(format!("{FLUX_DIR}/{n}"), crate::yaml::to_yaml(&o))?;
                names.push(n);
            }
            sink(format!("{FLUX_DIR}/{KUSTOMIZATION}"), kustomization(&names))?;
        }
        if let Some(a) = &opts.argocd {
            let apps = super::argocd::applications(&self.units, a, &opts.flux_path)?;
            let mut names = Vec::new();
            for (n, o) in apps {
                sink(format!("{ARGOCD_DIR}/{n}"), crate::yaml::to_yaml(&o))?;
                names.push(n);
            }
            sink(
                format!("{ARGOCD_DIR}/{KUSTOMIZATION}"),
                kustomization(&names),
            )?;
        }
        Ok(self.units)
    }
}

/// Every file of the tree (without the lock): relative path → content.
pub fn plan_files(set: &RenderSet, opts: &TreeOptions) -> Result<BTreeMap<String, String>> {
    let mut files = BTreeMap::new();
    let mut sink = |p: String, t: String| {
        files.insert(p, t);
        Ok(())
    };
    let mut layout = Layout::default();
    for u in &set.units {
        layout.unit(unit_files(u)?, &mut sink)?;
    }
    layout.finish(opts, &mut sink)?;
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ProviderInfo;
    use serde_json::json;

    fn set() -> RenderSet {
        RenderSet {
            inputs: vec![],
            units: vec![RenderedUnit {
                kind: UnitKind::Provider(ProviderInfo {
                    provider_type: "core".into(),
                    kind: "CoreProvider".into(),
                    version: "v1.10.10".into(),
                    contract: "v1beta1".into(),
                    source: "repository".into(),
                    ..Default::default()
                }),
                namespace: "capi-system".into(),
                name: "cluster-api".into(),
                objects: vec![
                    json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa", "namespace": "capi-system"}}),
                    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "system:x"}}),
                ],
                review: Vec::new(),
                after: Vec::new(),
                pending: Vec::new(),
                answers: Vec::new(),
            }],
            warnings: vec![],
        }
    }

    #[test]
    fn one_file_per_object_and_kustomizations() {
        let f = plan_files(&set(), &TreeOptions::default()).unwrap();
        let paths: Vec<&str> = f.keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            vec![
                "kustomization.yaml",
                "providers/capi-system/core-cluster-api/clusterrole-system_x.yaml",
                "providers/capi-system/core-cluster-api/kustomization.yaml",
                "providers/capi-system/core-cluster-api/serviceaccount-sa.yaml",
            ]
        );
        let k = crate::yaml::parse_value(
            &f["providers/capi-system/core-cluster-api/kustomization.yaml"],
        )
        .unwrap();
        assert_eq!(
            k["resources"],
            json!(["serviceaccount-sa.yaml", "clusterrole-system_x.yaml"])
        );
        let root = crate::yaml::parse_value(&f["kustomization.yaml"]).unwrap();
        assert_eq!(
            root["resources"],
            json!(["providers/capi-system/core-cluster-api"])
        );
        let sa = crate::yaml::parse_value(
            &f["providers/capi-system/core-cluster-api/serviceaccount-sa.yaml"],
        )
        .unwrap();
        assert_eq!(sa, set().units[0].objects[0]);
    }

    #[test]
    fn flux_files_only_with_flux() {
        let o = TreeOptions {
            flux: true,
            flux_source: Some("repo".into()),
            flux_path: "clusters/mgmt".into(),
            ..Default::default()
        };
        let f = plan_files(&set(), &o).unwrap();
        let k = crate::yaml::parse_value(&f["flux/capi-system-core-cluster-api.yaml"]).unwrap();
        assert_eq!(k["spec"]["sourceRef"]["name"], "repo");
        assert_eq!(
            k["spec"]["path"],
            "./clusters/mgmt/providers/capi-system/core-cluster-api"
        );
        assert!(f.contains_key("flux/kustomization.yaml"));
        let root = crate::yaml::parse_value(&f["kustomization.yaml"]).unwrap();
        assert_eq!(root["resources"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn unsafe_unit_names_and_duplicates_are_errors() {
        let mut s = set();
        s.units[0].namespace = "../etc".into();
        let e = plan_files(&s, &TreeOptions::default()).unwrap_err();
        assert!(
            e.message()
                .contains("provider CoreProvider ../etc/cluster-api: namespace"),
            "{e}"
        );
        let mut s = set();
        s.units.push(s.units[0].clone());
        assert!(plan_files(&s, &TreeOptions::default())
            .unwrap_err()
            .message()
            .contains("same directory"));
    }
}
