//! Flux `Kustomization` objects (kustomize.toolkit.fluxcd.io/v1), one per unit, with
//! `dependsOn` derived from the objects: every provider depends on the core
//! provider(s), and a unit depends on every other unit whose CRDs define a kind it
//! uses (e.g. a Cluster's `DockerCluster` → the docker provider). Providers set
//! `wait: true`, so a dependency is Ready only when its CRDs are established and its
//! Deployments (webhooks) are available. Inside one Kustomization, Flux itself
//! applies CRDs and Namespaces before the other objects.

use crate::model::pointer::Pointer as _;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::names::is_safe_relative;
use crate::error::{Error, Result};
use crate::model::sha256_hex;
use crate::model::{ProviderInfo, RenderedUnit, UnitKind};

/// Namespace of the Kustomizations (and of the GitRepository they read from).
pub const NAMESPACE: &str = "flux-system";
pub const INTERVAL: &str = "10m";
/// Label values (Flux labels every object with its Kustomization's name) are at most
/// 63 characters.
const MAX_NAME: usize = 63;

/// The Flux options beyond the source and the path: `--flux-depends-on`,
/// `--flux-interval`, `--flux-timeout`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extras {
    /// Kustomizations outside the tree (`NAME` in flux-system, or `NAMESPACE/NAME`) that
    /// every unit without a dependency inside the tree depends on.
    pub depends_on: Vec<String>,
    /// `spec.interval` (default [`INTERVAL`]).
    pub interval: Option<String>,
    /// `spec.timeout` (Flux's default when unset).
    pub timeout: Option<String>,
}

impl Extras {
    /// Check the values as the Kustomization CRD would (names, duration pattern).
    pub fn validate(&self) -> Result<()> {
        for d in &self.depends_on {
            dependency(d)?;
        }
        for (flag, v) in [
            ("--flux-interval", &self.interval),
            ("--flux-timeout", &self.timeout),
        ] {
            if let Some(v) = v.as_deref().filter(|v| !is_flux_duration(v)) {
                return Err(Error::new(format!(
                    "{flag} {v:?}: not a duration Flux accepts (digits with ms, s, m or h, e.g. 10m or 1h30m)"
                )));
            }
        }
        Ok(())
    }
}

/// A `dependsOn` entry for `NAME` or `NAMESPACE/NAME`.
fn dependency(d: &str) -> Result<Value> {
    let (ns, name) = match d.split_once('/') {
        Some((ns, name)) => (Some(ns), name),
        None => (None, d),
    };
    let bad_name = !crate::provider::dns1123_subdomain_errors(name).is_empty();
    let bad_ns = ns.is_some_and(|ns| !crate::provider::dns1123_subdomain_errors(ns).is_empty());
    if bad_name || bad_ns || name.contains('/') {
        return Err(Error::new(format!(
            "--flux-depends-on {d:?}: not a Kustomization name (NAME or NAMESPACE/NAME)"
        )));
    }
    Ok(match ns {
        None => json!({ "name": name }),
        Some(ns) => json!({ "name": name, "namespace": ns }),
    })
}

/// The Kustomization CRD's duration pattern, `^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`.
fn is_flux_duration(v: &str) -> bool {
    let mut rest = v.as_bytes();
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let digits = |r: &[u8]| r.iter().take_while(|b| b.is_ascii_digit()).count();
        let n = digits(rest);
        if n == 0 {
            return false;
        }
        rest = &rest[n..];
        if rest.first() == Some(&b'.') {
            let f = digits(&rest[1..]);
            if f == 0 {
                return false;
            }
            rest = &rest[1 + f..];
        }
        rest = match rest {
            [b'm', b's', r @ ..] | [b's' | b'm' | b'h', r @ ..] => r,
            _ => return false,
        };
    }
    true
}

/// Flux prunes what leaves a Kustomization: deleting a CustomResourceDefinition deletes
/// every object of its kind (the Clusters with it), and deleting a Namespace everything
/// in it. These patches mark both `kustomize.toolkit.fluxcd.io/prune: disabled`, so a
/// unit dropped from the tree leaves them in place; the unit files stay as rendered.
fn prune_protection(u: &UnitSummary) -> Vec<Value> {
    protection_patches(u, "kustomize.toolkit.fluxcd.io/prune", "disabled")
}

/// Kustomize patches (target: the kind) adding `key: value` to the unit's CRDs and
/// Namespaces.
pub(super) fn protection_patches(u: &UnitSummary, key: &str, value: &str) -> Vec<Value> {
    [
        ("apiextensions.k8s.io", "apiextensions.k8s.io/v1", "CustomResourceDefinition"),
        ("", "v1", "Namespace"),
    ]
    .iter()
    .filter(|(g, _, k)| u.uses.contains(&(g.to_string(), k.to_string())))
    .map(|(_, api, kind)| {
        json!({
            "patch": format!(
                "apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: not-used\n  annotations:\n    {key}: {value}\n"
            ),
            "target": {"kind": kind},
        })
    })
    .collect()
}

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
    /// The largest compact JSON size among its CRDs, ConfigMaps and Secrets (the kinds
    /// that grow large): what client-side apply would store in its annotation.
    pub largest_json: usize,
    /// The directories of the units it must follow beyond what its kinds imply
    /// ([`RenderedUnit::after`]: a Cluster's class unit).
    pub after: Vec<String>,
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
            largest_json: u
                .objects
                .iter()
                .filter(|o| {
                    matches!(
                        o.get("kind").and_then(Value::as_str),
                        Some("CustomResourceDefinition" | "ConfigMap" | "Secret")
                    )
                })
                .map(|o| serde_json::to_vec(o).map_or(0, |b| b.len()))
                .max()
                .unwrap_or(0),
            after: u.after.clone(),
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
        UnitKind::Class => format!("class-{}-{}", u.namespace, u.name),
        UnitKind::CertManager(_) => "cert-manager".to_string(),
        UnitKind::Namespaces => crate::model::NAMESPACES_DIR.to_string(),
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
    let group = o.ptr("/spec/group")?.as_str()?;
    let kind = o.ptr("/spec/names/kind")?.as_str()?;
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
    // The namespaces unit comes before every other (Argo CD: the first wave alone).
    let namespaces = units
        .iter()
        .position(|u| matches!(u.kind, UnitKind::Namespaces));
    let by_dir: std::collections::HashMap<String, usize> = units
        .iter()
        .enumerate()
        .map(|(i, u)| (u.dir(), i))
        .collect();
    let mut deps = Vec::with_capacity(units.len());
    for (i, u) in units.iter().enumerate() {
        let mut d: BTreeSet<usize> = namespaces.into_iter().filter(|&j| j != i).collect();
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
        d.extend(
            u.after
                .iter()
                .filter_map(|a| by_dir.get(a))
                .filter(|&&j| j != i),
        );
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
pub(super) fn flux_path(prefix: &str, dir: &str) -> Result<String> {
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
    extras: &Extras,
) -> Result<Vec<(String, Value)>> {
    extras.validate()?;
    let external: Vec<Value> = extras
        .depends_on
        .iter()
        .map(|d| dependency(d))
        .collect::<Result<_>>()?;
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
            "interval": extras.interval.as_deref().unwrap_or(INTERVAL),
            "path": flux_path(prefix, &u.dir())?,
            "prune": true,
            "sourceRef": {"kind": "GitRepository", "name": source},
            "wait": matches!(u.kind, UnitKind::Provider(_) | UnitKind::CertManager(_)),
        });
        if let Some(t) = &extras.timeout {
            spec["timeout"] = Value::from(t.as_str());
        }
        let mut dn: Vec<&String> = deps[i].iter().map(|&j| &names[j]).collect();
        dn.sort();
        if !dn.is_empty() {
            spec["dependsOn"] = Value::Array(dn.iter().map(|n| json!({ "name": n })).collect());
        } else if !external.is_empty() {
            // The units inside depend on the outside through these.
            spec["dependsOn"] = Value::Array(external.clone());
        }
        if let UnitKind::Provider(ProviderInfo {
            substitute_from: Some(secret),
            ..
        }) = &u.kind
        {
            // `--secrets flux-substitute`: the config Secret's values, from a copy in
            // flux-system (Flux reads substituteFrom in the Kustomization's namespace).
            spec["postBuild"] = json!({"substituteFrom": [{"kind": "Secret", "name": secret}]});
        }
        if let UnitKind::Provider(ProviderInfo {
            decryption: Some(secret),
            ..
        }) = &u.kind
        {
            // `--secrets sops`: Flux decrypts the unit's sealed Secrets with the age
            // identity in this flux-system Secret.
            spec["decryption"] = json!({"provider": "sops", "secretRef": {"name": secret}});
        }
        let patches = prune_protection(u);
        if !patches.is_empty() {
            spec["patches"] = Value::Array(patches);
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
pub(super) mod tests {
    use super::*;
    use crate::model::ProviderInfo;

    pub(in crate::gitops) fn crd(group: &str, kind: &str) -> Value {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": format!("{}s.{group}", kind.to_lowercase())},
               "spec": {"group": group, "names": {"kind": kind}}})
    }
    pub(in crate::gitops) fn provider(t: &str, name: &str, objects: Vec<Value>) -> RenderedUnit {
        RenderedUnit {
            kind: UnitKind::Provider(ProviderInfo {
                provider_type: t.into(),
                kind: "X".into(),
                version: "v1.0.0".into(),
                contract: "v1beta1".into(),
                source: "s".into(),
                ..Default::default()
            }),
            namespace: format!("{name}-system"),
            name: name.into(),
            objects,
            review: Vec::new(),
            after: Vec::new(),
            pending: Vec::new(),
            answers: Vec::new(),
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
                review: Vec::new(),
                after: Vec::new(),
                pending: Vec::new(),
                answers: Vec::new(),
            },
        ];
        let units: Vec<UnitSummary> = units.iter().map(UnitSummary::of).collect();
        let deps = dependencies(&units).unwrap();
        assert_eq!(deps[0], BTreeSet::new());
        assert_eq!(deps[1], BTreeSet::from([0]));
        assert_eq!(deps[2], BTreeSet::from([0, 1]));
        let ks = kustomizations(&units, "flux-system", "./gitops/", &Extras::default()).unwrap();
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
    fn every_unit_follows_the_namespaces_unit() {
        let ns = RenderedUnit::new(
            UnitKind::Namespaces,
            "namespaces".into(),
            "namespaces".into(),
            vec![json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})],
        );
        let cluster = RenderedUnit::new(UnitKind::Cluster, "team-a".into(), "c".into(), vec![]);
        let units: Vec<UnitSummary> = [
            ns,
            provider(
                "core",
                "cluster-api",
                vec![crd("cluster.x-k8s.io", "Cluster")],
            ),
            cluster,
        ]
        .iter()
        .map(UnitSummary::of)
        .collect();
        let deps = dependencies(&units).unwrap();
        assert_eq!(
            deps,
            [BTreeSet::new(), BTreeSet::from([0]), BTreeSet::from([0])]
        );
        let extras = Extras {
            depends_on: vec!["infra".into()],
            ..Default::default()
        };
        let ks = kustomizations(&units, "flux-system", ".", &extras).unwrap();
        assert_eq!(ks[0].0, "namespaces.yaml");
        assert_eq!(ks[0].1["spec"]["path"], "./namespaces");
        // Outside dependencies through the namespaces unit only; it is never pruned.
        assert_eq!(ks[0].1["spec"]["dependsOn"], json!([{"name": "infra"}]));
        assert_eq!(ks[0].1["spec"]["patches"][0]["target"]["kind"], "Namespace");
        assert_eq!(
            ks[1].1["spec"]["dependsOn"],
            json!([{"name": "namespaces"}])
        );
    }

    #[test]
    fn a_cluster_follows_its_class_unit() {
        let class = RenderedUnit::new(
            UnitKind::Class,
            "ns".into(),
            "quick-start".into(),
            vec![
                json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "DockerMachineTemplate", "metadata": {"name": "t"}}),
            ],
        );
        let mut cluster = RenderedUnit::new(
            UnitKind::Cluster,
            "ns".into(),
            "a".into(),
            vec![
                json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "metadata": {"name": "a"}}),
            ],
        );
        cluster.after = vec!["classes/ns/quick-start".into(), "classes/ns/missing".into()];
        let units: Vec<UnitSummary> = [
            provider(
                "infrastructure",
                "docker",
                vec![crd(
                    "infrastructure.cluster.x-k8s.io",
                    "DockerMachineTemplate",
                )],
            ),
            class,
            cluster,
        ]
        .iter()
        .map(UnitSummary::of)
        .collect();
        let deps = dependencies(&units).unwrap();
        assert_eq!(deps[1], BTreeSet::from([0]));
        assert_eq!(deps[2], BTreeSet::from([1]));
        let ks = kustomizations(&units, "flux-system", "", &Extras::default()).unwrap();
        assert_eq!(ks[1].0, "class-ns-quick-start.yaml");
        assert_eq!(
            ks[2].1["spec"]["dependsOn"],
            json!([{"name": "class-ns-quick-start"}])
        );
        let apps = super::super::argocd::applications(
            &units,
            &super::super::argocd::Settings {
                repo_url: "https://git.example/x.git".into(),
                revision: "HEAD".into(),
                project: "default".into(),
                namespace: "argocd".into(),
            },
            "",
        )
        .unwrap();
        let wave =
            |i: usize| apps[i].1["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"].clone();
        assert_eq!(
            (wave(0), wave(1), wave(2)),
            (json!("0"), json!("1"), json!("2"))
        );
        // The class unit applies templates: a replaced one is pruned last.
        assert_eq!(
            apps[1].1["spec"]["syncPolicy"]["syncOptions"],
            json!(["PruneLast=true"])
        );
        assert!(apps[2].1["spec"]["syncPolicy"].get("syncOptions").is_none());
    }

    #[test]
    fn extras_set_interval_timeout_external_dependencies_and_prune_protection() {
        let core = provider(
            "core",
            "cluster-api",
            vec![
                crd("cluster.x-k8s.io", "Cluster"),
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "capi-system"}}),
            ],
        );
        let docker = provider(
            "infrastructure",
            "docker",
            vec![crd("infrastructure.cluster.x-k8s.io", "DockerCluster")],
        );
        let units: Vec<UnitSummary> = [core, docker].iter().map(UnitSummary::of).collect();
        let extras = Extras {
            depends_on: vec!["cert-manager".into(), "infra/secrets".into()],
            interval: Some("1h30m".into()),
            timeout: Some("2.5m".into()),
        };
        let ks = kustomizations(&units, "flux-system", "", &extras).unwrap();
        let (core, docker) = (&ks[0].1["spec"], &ks[1].1["spec"]);
        assert_eq!(core["interval"], "1h30m");
        assert_eq!(core["timeout"], "2.5m");
        // Only a unit without a dependency inside the tree names the outside ones.
        assert_eq!(
            core["dependsOn"],
            json!([{"name": "cert-manager"}, {"name": "secrets", "namespace": "infra"}])
        );
        assert_eq!(
            docker["dependsOn"],
            json!([{"name": "cluster-api-system-core-cluster-api"}])
        );
        // CRDs and Namespaces are never pruned; the target is the kind, the patch
        // only adds the annotation.
        let kinds: Vec<&str> = core["patches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["target"]["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["CustomResourceDefinition", "Namespace"]);
        assert!(core["patches"][1]["patch"]
            .as_str()
            .unwrap()
            .contains("kind: Namespace\nmetadata:\n  name: not-used\n  annotations:\n    kustomize.toolkit.fluxcd.io/prune: disabled\n"));
        assert_eq!(docker["patches"].as_array().unwrap().len(), 1);
        // Without extras: Flux's defaults, no external dependency.
        let plain = kustomizations(&units, "flux-system", "", &Extras::default()).unwrap();
        assert_eq!(plain[0].1["spec"]["interval"], INTERVAL);
        assert!(plain[0].1["spec"].get("timeout").is_none());
        assert!(plain[0].1["spec"].get("dependsOn").is_none());
    }

    #[test]
    fn flux_durations_and_dependency_names() {
        for ok in ["10m", "1h30m", "500ms", "2.5s", "0s", "1h2m3s4ms"] {
            assert!(is_flux_duration(ok), "{ok}");
        }
        for bad in ["", "10", "m", "1.m", "-1m", "1d", "1 m", "1M", ".5s"] {
            assert!(!is_flux_duration(bad), "{bad}");
        }
        for bad in ["Cert_Manager", "a/b/c", "/x", "x/", ""] {
            let x = Extras {
                depends_on: vec![bad.into()],
                ..Extras::default()
            };
            assert!(x.validate().is_err(), "{bad}");
        }
        let x = Extras {
            interval: Some("10 minutes".into()),
            ..Extras::default()
        };
        assert!(x
            .validate()
            .unwrap_err()
            .message()
            .starts_with("--flux-interval \"10 minutes\": not a duration"));
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
        assert!(
            kustomizations(std::slice::from_ref(&a), "Bad Name", "", &Extras::default()).is_err()
        );
        assert!(kustomizations(&[a], "flux-system", "../up", &Extras::default()).is_err());
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
