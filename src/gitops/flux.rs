//! Flux `Kustomization` objects (kustomize.toolkit.fluxcd.io/v1), one per unit, with
//! `dependsOn` derived from the objects: every provider depends on the core
//! provider(s), and a unit depends on every other unit whose CRDs define a kind it
//! uses (e.g. a Cluster's `DockerCluster` → the docker provider). Providers set
//! `wait: true`, so a dependency is Ready only when its CRDs are established and its
//! Deployments (webhooks) are available. Inside one Kustomization, Flux itself
//! applies CRDs and Namespaces before the other objects.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::names::is_safe_relative;
use crate::error::{Error, Result};
use crate::model::sha256_hex;
use crate::model::{RenderedUnit, UnitKind};

/// Namespace of the Kustomizations (and of the GitRepository they read from).
pub const NAMESPACE: &str = "flux-system";
pub const INTERVAL: &str = "10m";
/// Label values (Flux labels every object with its Kustomization's name) are at most
/// 63 characters.
const MAX_NAME: usize = 63;

/// What the tree needs of a unit once its files are written: what it is (the lock's
/// provider facts, the Flux name and path) and the kinds it defines (CRDs) and uses
/// (Flux `dependsOn`). Units stream through the writer; summaries stay.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitSummary {
    pub kind: UnitKind,
    pub namespace: String,
    pub name: String,
    /// `(group, kind)` of every CustomResourceDefinition of the unit.
    pub defines: Vec<(String, String)>,
    /// `(group, kind)` of every object of the unit.
    pub uses: BTreeSet<(String, String)>,
    /// How many objects the unit has.
    pub objects: usize,
}

impl UnitSummary {
    pub fn of(u: &RenderedUnit) -> UnitSummary {
        UnitSummary {
            kind: u.kind.clone(),
            namespace: u.namespace.clone(),
            name: u.name.clone(),
            defines: u.objects.iter().filter_map(crd_defines).collect(),
            uses: u.objects.iter().filter_map(group_kind).collect(),
            objects: u.objects.len(),
        }
    }

    /// The unit's directory inside the tree ([`RenderedUnit::dir`]).
    pub fn dir(&self) -> String {
        crate::model::unit_dir(&self.kind, &self.namespace, &self.name)
    }
}

/// The Kustomization's name: `<namespace>-<type>-<name>` for a provider,
/// `cluster-<namespace>-<name>` for a cluster; cut to 63 characters with a hash.
pub fn flux_name(u: &UnitSummary) -> String {
    let full = match &u.kind {
        UnitKind::Provider(p) => format!("{}-{}-{}", u.namespace, p.provider_type, u.name),
        UnitKind::Cluster => format!("cluster-{}-{}", u.namespace, u.name),
        UnitKind::CertManager(_) => "cert-manager".to_string(),
    };
    let full = full.replace('.', "-");
    if full.len() <= MAX_NAME {
        return full;
    }
    let h = &sha256_hex(full.as_bytes())[..8];
    let mut cut = full[..MAX_NAME - 9].to_string();
    while cut.ends_with('-') {
        cut.pop();
    }
    format!("{cut}-{h}")
}

/// `(group, kind)` of an object (`""` for the core group).
fn group_kind(o: &Value) -> Option<(String, String)> {
    let api = o.get("apiVersion")?.as_str()?;
    let kind = o.get("kind")?.as_str()?;
    let group = api.rsplit_once('/').map(|(g, _)| g).unwrap_or("");
    Some((group.to_string(), kind.to_string()))
}

/// `(spec.group, spec.names.kind)` of a CustomResourceDefinition.
fn crd_defines(o: &Value) -> Option<(String, String)> {
    let (g, k) = group_kind(o)?;
    if g != "apiextensions.k8s.io" || k != "CustomResourceDefinition" {
        return None;
    }
    let group = o.pointer("/spec/group")?.as_str()?;
    let kind = o.pointer("/spec/names/kind")?.as_str()?;
    Some((group.to_string(), kind.to_string()))
}

fn is_core(u: &UnitSummary) -> bool {
    matches!(&u.kind, UnitKind::Provider(p) if p.provider_type == "core")
}

/// For every unit, the indices of the units it depends on.
pub fn dependencies(units: &[UnitSummary]) -> Result<Vec<BTreeSet<usize>>> {
    let mut defined: BTreeMap<&(String, String), usize> = BTreeMap::new();
    for (i, u) in units.iter().enumerate() {
        for gk in &u.defines {
            defined.entry(gk).or_insert(i);
        }
    }
    let cores: Vec<usize> = (0..units.len()).filter(|&i| is_core(&units[i])).collect();
    let mut deps = Vec::with_capacity(units.len());
    for (i, u) in units.iter().enumerate() {
        let mut d = BTreeSet::new();
        if matches!(u.kind, UnitKind::Provider(_)) && !is_core(u) {
            d.extend(cores.iter().copied());
        }
        for gk in &u.uses {
            if let Some(&j) = defined.get(gk) {
                if j != i {
                    d.insert(j);
                }
            }
        }
        deps.push(d);
    }
    check_acyclic(units, &deps)?;
    Ok(deps)
}

fn check_acyclic(units: &[UnitSummary], deps: &[BTreeSet<usize>]) -> Result<()> {
    // 0 = unvisited, 1 = on the current path, 2 = done.
    fn visit(
        i: usize,
        deps: &[BTreeSet<usize>],
        st: &mut [u8],
        path: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        match st[i] {
            2 => return None,
            1 => {
                let start = path.iter().position(|&p| p == i).unwrap_or(0);
                let mut c = path[start..].to_vec();
                c.push(i);
                return Some(c);
            }
            _ => {}
        }
        st[i] = 1;
        path.push(i);
        for &j in &deps[i] {
            if let Some(c) = visit(j, deps, st, path) {
                return Some(c);
            }
        }
        path.pop();
        st[i] = 2;
        None
    }
    let mut st = vec![0u8; units.len()];
    for i in 0..units.len() {
        if let Some(c) = visit(i, deps, &mut st, &mut Vec::new()) {
            let names: Vec<String> = c.iter().map(|&k| units[k].dir()).collect();
            return Err(Error::new(format!(
                "--flux: the units depend on each other in a cycle ({}); Flux could never apply them",
                names.join(" -> ")
            )));
        }
    }
    Ok(())
}

/// `spec.path` of a unit: `./<prefix>/<unit dir>`.
fn flux_path(prefix: &str, dir: &str) -> Result<String> {
    let p = prefix.trim_start_matches("./").trim_end_matches('/');
    if p.is_empty() || p == "." {
        return Ok(format!("./{dir}"));
    }
    if !is_safe_relative(p) {
        return Err(Error::new(format!(
            "--flux-path {prefix:?}: must be a relative path inside the Git repository, without `..`"
        )));
    }
    Ok(format!("./{p}/{dir}"))
}

/// The Flux Kustomizations of a set, as `(file name, object)` in unit order.
pub fn kustomizations(
    units: &[UnitSummary],
    source: &str,
    prefix: &str,
) -> Result<Vec<(String, Value)>> {
    if !crate::provider::dns1123_subdomain_errors(source).is_empty() {
        return Err(Error::new(format!(
            "--flux-source {source:?}: not a valid GitRepository name"
        )));
    }
    let deps = dependencies(units)?;
    let names: Vec<String> = units.iter().map(flux_name).collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (i, u) in units.iter().enumerate() {
        if !seen.insert(names[i].clone()) {
            return Err(Error::new(format!(
                "--flux: two units get the Kustomization name {:?}",
                names[i]
            )));
        }
        let mut spec = json!({
            "interval": INTERVAL,
            "path": flux_path(prefix, &u.dir())?,
            "prune": true,
            "sourceRef": {"kind": "GitRepository", "name": source},
            "wait": matches!(u.kind, UnitKind::Provider(_) | UnitKind::CertManager(_)),
        });
        let mut dn: Vec<&String> = deps[i].iter().map(|&j| &names[j]).collect();
        dn.sort();
        if !dn.is_empty() {
            spec["dependsOn"] = Value::Array(dn.iter().map(|n| json!({ "name": n })).collect());
        }
        let obj = json!({
            "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
            "kind": "Kustomization",
            "metadata": {"name": names[i], "namespace": NAMESPACE},
            "spec": spec,
        });
        out.push((format!("{}.yaml", names[i]), obj));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ProviderInfo;

    fn crd(group: &str, kind: &str) -> Value {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": format!("{}s.{group}", kind.to_lowercase())},
               "spec": {"group": group, "names": {"kind": kind}}})
    }
    fn provider(t: &str, name: &str, objects: Vec<Value>) -> RenderedUnit {
        RenderedUnit {
            kind: UnitKind::Provider(ProviderInfo {
                provider_type: t.into(),
                kind: "X".into(),
                version: "v1.0.0".into(),
                contract: "v1beta1".into(),
                source: "s".into(),
            }),
            namespace: format!("{name}-system"),
            name: name.into(),
            objects,
        }
    }

    #[test]
    fn core_first_and_crd_owners_before_users() {
        let units = [
            provider(
                "core",
                "cluster-api",
                vec![crd("cluster.x-k8s.io", "Cluster")],
            ),
            provider(
                "infrastructure",
                "docker",
                vec![crd("infrastructure.cluster.x-k8s.io", "DockerCluster")],
            ),
            RenderedUnit {
                kind: UnitKind::Cluster,
                namespace: "default".into(),
                name: "c1".into(),
                objects: vec![
                    json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "metadata": {"name": "c1"}}),
                    json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "DockerCluster", "metadata": {"name": "c1"}}),
                    json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}),
                ],
            },
        ];
        let units: Vec<UnitSummary> = units.iter().map(UnitSummary::of).collect();
        let deps = dependencies(&units).unwrap();
        assert_eq!(deps[0], BTreeSet::new());
        assert_eq!(deps[1], BTreeSet::from([0]));
        assert_eq!(deps[2], BTreeSet::from([0, 1]));
        let ks = kustomizations(&units, "flux-system", "./gitops/").unwrap();
        assert_eq!(ks[2].0, "cluster-default-c1.yaml");
        let spec = &ks[2].1["spec"];
        assert_eq!(spec["path"], "./gitops/clusters/default/c1");
        assert_eq!(spec["wait"], false);
        assert_eq!(
            spec["dependsOn"],
            json!([{"name": "cluster-api-system-core-cluster-api"}, {"name": "docker-system-infrastructure-docker"}])
        );
        assert!(ks[0].1["spec"].get("dependsOn").is_none());
        assert_eq!(ks[0].1["spec"]["wait"], true);
    }

    #[test]
    fn cycles_and_bad_options_are_errors() {
        let a = provider(
            "infrastructure",
            "a",
            vec![
                crd("a.io", "A"),
                json!({"apiVersion": "b.io/v1", "kind": "B"}),
            ],
        );
        let b = provider(
            "bootstrap",
            "b",
            vec![
                crd("b.io", "B"),
                json!({"apiVersion": "a.io/v1", "kind": "A"}),
            ],
        );
        let (a, b) = (UnitSummary::of(&a), UnitSummary::of(&b));
        let e = dependencies(&[a.clone(), b]).unwrap_err();
        assert!(e.message().contains("cycle"), "{e}");
        assert!(kustomizations(std::slice::from_ref(&a), "Bad Name", "").is_err());
        assert!(kustomizations(&[a], "flux-system", "../up").is_err());
    }

    #[test]
    fn names_fit_in_a_label() {
        let mut u = UnitSummary::of(&provider("infrastructure", "x", vec![]));
        u.namespace = "n".repeat(60);
        let n = flux_name(&u);
        assert!(n.len() <= 63, "{n}");
        u.namespace.push('m');
        assert_ne!(flux_name(&u), n);
        assert!(!flux_name(&u).contains("--"));
    }
}
