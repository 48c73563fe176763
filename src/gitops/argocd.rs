//! Argo CD `Application` objects (argoproj.io/v1alpha1), one per unit, under `argocd/`.
//!
//! The order Flux gets from `dependsOn` becomes sync waves
//! (`argocd.argoproj.io/sync-wave`): a unit's wave is one more than the highest wave of
//! the units it depends on ([`super::flux::dependencies`]), so CRD owners and the core
//! provider come first when the Applications are synced by an app of apps (the
//! `argocd/` directory itself). Units with an object too large for client-side apply's
//! `last-applied-configuration` annotation sync with `ServerSideApply=true`; units that
//! apply Cluster API templates (class units, flattened Clusters) with `PruneLast=true`,
//! so a replaced template goes only once the rest is synced and healthy. CRDs and
//! Namespaces are marked `Prune=false` through kustomize patches, so a unit dropped
//! from the tree never deletes them (and with them every Cluster or every object in
//! the namespace). The fields cert-manager's CA injector writes (CRD conversion and
//! webhook `caBundle`s) are ignored in diffs.

use serde_json::{json, Value};

use super::flux::{self, UnitSummary};
use crate::error::{Error, Result};

/// Namespace of the Applications by default (Argo CD's own).
pub const NAMESPACE: &str = "argocd";
/// kubectl's limit on an object's annotations (`last-applied-configuration` holds the
/// whole object); units with a larger object apply server-side.
pub const CLIENT_SIDE_LIMIT: usize = 262_144;
/// Room left for the object's other annotations.
const ANNOTATION_SLACK: usize = 4_096;

/// Where the Applications read the tree from and where they live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `spec.source.repoURL`.
    pub repo_url: String,
    /// `spec.source.targetRevision` (default `HEAD`).
    pub revision: String,
    /// `spec.project` (default `default`).
    pub project: String,
    /// The Applications' namespace (default `argocd`).
    pub namespace: String,
}

impl Settings {
    pub fn validate(&self) -> Result<()> {
        if self.repo_url.trim().is_empty() || self.repo_url.contains(char::is_whitespace) {
            return Err(Error::new(format!(
                "--argocd-repo {:?}: give the Git repository URL the Applications read from (e.g. https://git.example.com/platform/mgmt.git)",
                self.repo_url
            )));
        }
        for (flag, v) in [
            ("--argocd-project", &self.project),
            ("--argocd-namespace", &self.namespace),
        ] {
            if !crate::provider::dns1123_subdomain_errors(v).is_empty() {
                return Err(Error::new(format!("{flag} {v:?}: not a valid name")));
            }
        }
        if self.revision.is_empty() || self.revision.contains(char::is_whitespace) {
            return Err(Error::new(format!(
                "--argocd-revision {:?}: a branch, tag or commit",
                self.revision
            )));
        }
        Ok(())
    }
}

/// Every unit's sync wave: 0 without dependencies, else one more than the highest of
/// its dependencies (`deps` is acyclic, as [`flux::dependencies`] checks).
fn waves(deps: &[std::collections::BTreeSet<usize>]) -> Vec<usize> {
    fn wave(
        i: usize,
        deps: &[std::collections::BTreeSet<usize>],
        memo: &mut [Option<usize>],
    ) -> usize {
        if let Some(w) = memo[i] {
            return w;
        }
        let w = deps[i]
            .iter()
            .map(|&j| wave(j, deps, memo) + 1)
            .max()
            .unwrap_or(0);
        memo[i] = Some(w);
        w
    }
    let mut memo = vec![None; deps.len()];
    (0..deps.len()).map(|i| wave(i, deps, &mut memo)).collect()
}

/// The diffs Argo CD should not show for a unit: the CA bundles cert-manager injects.
fn ignore_differences(u: &UnitSummary) -> Vec<Value> {
    let has = |g: &str, k: &str| u.uses.contains(&(g.to_string(), k.to_string()));
    let mut out = Vec::new();
    if has("apiextensions.k8s.io", "CustomResourceDefinition") {
        out.push(json!({
            "group": "apiextensions.k8s.io",
            "kind": "CustomResourceDefinition",
            "jqPathExpressions": [".spec.conversion.webhook.clientConfig.caBundle"],
        }));
    }
    for kind in [
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ] {
        if has("admissionregistration.k8s.io", kind) {
            out.push(json!({
                "group": "admissionregistration.k8s.io",
                "kind": kind,
                "jqPathExpressions": [".webhooks[]?.clientConfig.caBundle"],
            }));
        }
    }
    out
}

/// A unit that applies Cluster API templates (a class unit, a flattened Cluster): a
/// template it drops is replaced by one of a new name, and old MachineSets may still
/// name the old one while they scale down, so it is pruned last, once the rest of the
/// sync is healthy (`PruneLast=true`).
fn applies_templates(u: &UnitSummary) -> bool {
    u.uses
        .iter()
        .any(|(g, k)| crate::topology::flatten::is_template_kind(g, k))
}

/// The Argo CD Applications of a set, as `(file name, object)` in unit order; `prefix`
/// is OUT's path inside the repository.
pub fn applications(
    units: &[UnitSummary],
    settings: &Settings,
    prefix: &str,
) -> Result<Vec<(String, Value)>> {
    settings.validate()?;
    let deps = flux::dependencies(units)?;
    let waves = waves(&deps);
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for (i, u) in units.iter().enumerate() {
        let name = flux::flux_name(u);
        if !seen.insert(name.clone()) {
            return Err(Error::new(format!(
                "--argocd: two units get the Application name {name:?}"
            )));
        }
        let mut source = json!({
            "repoURL": settings.repo_url,
            "targetRevision": settings.revision,
            "path": flux::flux_path(prefix, &u.dir())?.trim_start_matches("./"),
        });
        let patches = flux::protection_patches(u, "argocd.argoproj.io/sync-options", "Prune=false");
        if !patches.is_empty() {
            source["kustomize"] = json!({ "patches": patches });
        }
        let mut sync = json!({"automated": {"prune": true, "selfHeal": true}});
        let mut options = Vec::new();
        if u.largest_json + ANNOTATION_SLACK > CLIENT_SIDE_LIMIT {
            options.push("ServerSideApply=true");
        }
        if applies_templates(u) {
            options.push("PruneLast=true");
        }
        if !options.is_empty() {
            sync["syncOptions"] = json!(options);
        }
        let mut spec = json!({
            "project": settings.project,
            "source": source,
            "destination": {"server": "https://kubernetes.default.svc"},
            "syncPolicy": sync,
        });
        let ignore = ignore_differences(u);
        if !ignore.is_empty() {
            spec["ignoreDifferences"] = Value::Array(ignore);
        }
        let obj = json!({
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {
                "name": name,
                "namespace": settings.namespace,
                "annotations": {"argocd.argoproj.io/sync-wave": waves[i].to_string()},
            },
            "spec": spec,
        });
        out.push((format!("{name}.yaml"), obj));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{RenderedUnit, UnitKind};

    /// A CRD padded to about `pad` more bytes of JSON.
    fn crd(group: &str, kind: &str, pad: usize) -> Value {
        let mut c = flux::tests::crd(group, kind);
        c["spec"]["pad"] = Value::from("x".repeat(pad));
        c
    }
    fn provider(t: &str, name: &str, objects: Vec<Value>) -> UnitSummary {
        UnitSummary::of(&flux::tests::provider(t, name, objects))
    }
    fn settings() -> Settings {
        Settings {
            repo_url: "https://git.example.com/mgmt.git".into(),
            revision: "main".into(),
            project: "platform".into(),
            namespace: NAMESPACE.into(),
        }
    }

    #[test]
    fn waves_server_side_apply_prune_protection_and_ignored_ca_bundles() {
        let core = provider(
            "core",
            "cluster-api",
            vec![
                crd("cluster.x-k8s.io", "Cluster", CLIENT_SIDE_LIMIT),
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "capi-system"}}),
                json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "w"}}),
            ],
        );
        let docker = provider(
            "infrastructure",
            "docker",
            vec![crd("infrastructure.cluster.x-k8s.io", "DockerCluster", 10)],
        );
        let cluster = UnitSummary::of(&RenderedUnit {
            kind: UnitKind::Cluster,
            namespace: "default".into(),
            name: "c1".into(),
            objects: vec![
                json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "metadata": {"name": "c1"}}),
                json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "DockerCluster", "metadata": {"name": "c1"}}),
            ],
            review: Vec::new(),
            after: Vec::new(),
            pending: Vec::new(),
            answers: Vec::new(),
        });
        let apps = applications(&[core, docker, cluster], &settings(), "capi/rendered").unwrap();
        let wave =
            |i: usize| apps[i].1["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"].clone();
        assert_eq!([wave(0), wave(1), wave(2)], ["0", "1", "2"]);
        let core = &apps[0].1["spec"];
        assert_eq!(apps[0].0, "cluster-api-system-core-cluster-api.yaml");
        assert_eq!(core["project"], "platform");
        assert_eq!(
            core["source"]["path"],
            "capi/rendered/providers/cluster-api-system/core-cluster-api"
        );
        assert_eq!(core["source"]["targetRevision"], "main");
        // The core CRD is over client-side apply's limit; docker's are not.
        assert_eq!(
            core["syncPolicy"]["syncOptions"],
            json!(["ServerSideApply=true"])
        );
        assert!(apps[1].1["spec"]["syncPolicy"].get("syncOptions").is_none());
        let targets: Vec<&str> = core["source"]["kustomize"]["patches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["target"]["kind"].as_str().unwrap())
            .collect();
        assert_eq!(targets, ["CustomResourceDefinition", "Namespace"]);
        assert!(core["source"]["kustomize"]["patches"][0]["patch"]
            .as_str()
            .unwrap()
            .contains("argocd.argoproj.io/sync-options: Prune=false"));
        let ignored: Vec<&str> = core["ignoreDifferences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["kind"].as_str().unwrap())
            .collect();
        assert_eq!(
            ignored,
            ["CustomResourceDefinition", "ValidatingWebhookConfiguration"]
        );
        // A Cluster unit: no CRDs or Namespaces, nothing to protect or ignore.
        let c = &apps[2].1["spec"];
        assert!(c["source"].get("kustomize").is_none());
        assert!(c.get("ignoreDifferences").is_none());
    }

    #[test]
    fn bad_settings_are_errors() {
        let u = [provider("core", "cluster-api", vec![])];
        for bad in [
            Settings {
                repo_url: "".into(),
                ..settings()
            },
            Settings {
                project: "Not_A_Name".into(),
                ..settings()
            },
            Settings {
                namespace: "".into(),
                ..settings()
            },
            Settings {
                revision: "a b".into(),
                ..settings()
            },
        ] {
            assert!(applications(&u, &bad, "").is_err(), "{bad:?}");
        }
        assert!(applications(&u, &settings(), "../outside").is_err());
    }
}
