//! CustomResourceDefinitions: the name `contract.CalculateCRDName` gives, the scope
//! and contract label of contract kinds, and the index of CRD schemas that the
//! contract and ClusterClass rules read.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Doc, Finding, Release, Severity};
use crate::model::object::{get, str_at};

/// The contract label prefix: `cluster.x-k8s.io/<contract>: <version>_<version>`.
pub const CONTRACT_LABEL_PREFIX: &str = "cluster.x-k8s.io/";

/// The role a CRD's kind plays in a provider contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    InfraCluster,
    InfraClusterTemplate,
    InfraMachine,
    InfraMachineTemplate,
    BootstrapConfig,
    BootstrapConfigTemplate,
    ControlPlane,
    ControlPlaneTemplate,
}

impl Role {
    /// The role of the `...Template` kind of this role, if it has one.
    pub fn template(self) -> Option<Role> {
        match self {
            Role::InfraCluster => Some(Role::InfraClusterTemplate),
            Role::InfraMachine => Some(Role::InfraMachineTemplate),
            Role::BootstrapConfig => Some(Role::BootstrapConfigTemplate),
            Role::ControlPlane => Some(Role::ControlPlaneTemplate),
            _ => None,
        }
    }
}

fn in_group(group: &str, base: &str) -> bool {
    group == base || group.strip_suffix(base).is_some_and(|p| p.ends_with('.'))
}

/// The contract role of `kind` in `group`, by the naming the contracts use.
pub fn role(group: &str, kind: &str) -> Option<Role> {
    let ends = |s: &str| kind.len() > s.len() && kind.ends_with(s);
    if in_group(group, "infrastructure.cluster.x-k8s.io") {
        if ends("ClusterTemplate") {
            Some(Role::InfraClusterTemplate)
        } else if ends("Cluster") {
            Some(Role::InfraCluster)
        } else if ends("MachineTemplate") {
            Some(Role::InfraMachineTemplate)
        } else if ends("Machine") {
            Some(Role::InfraMachine)
        } else {
            None
        }
    } else if in_group(group, "bootstrap.cluster.x-k8s.io") {
        if ends("ConfigTemplate") {
            Some(Role::BootstrapConfigTemplate)
        } else if ends("Config") {
            Some(Role::BootstrapConfig)
        } else {
            None
        }
    } else if in_group(group, "controlplane.cluster.x-k8s.io") {
        if ends("ControlPlaneTemplate") {
            Some(Role::ControlPlaneTemplate)
        } else if ends("ControlPlane") {
            Some(Role::ControlPlane)
        } else {
            None
        }
    } else {
        None
    }
}

/// What the rules read of one CRD.
#[derive(Debug, Clone)]
pub struct Crd<'a> {
    pub doc: &'a Doc,
    pub group: &'a str,
    pub kind: &'a str,
    pub plural: &'a str,
    pub scope: &'a str,
    /// (version name, served, schema, path of the schema in the document)
    pub versions: Vec<(&'a str, bool, Option<&'a Value>, String)>,
}

impl<'a> Crd<'a> {
    pub fn of(doc: &'a Doc) -> Option<Crd<'a>> {
        if doc.kind() != "CustomResourceDefinition" {
            return None;
        }
        let v = &doc.value;
        let mut versions = Vec::new();
        match get(v, &["spec", "versions"]) {
            Some(Value::Array(vs)) => {
                for (i, x) in vs.iter().enumerate() {
                    let name = x.get("name").and_then(Value::as_str).unwrap_or("");
                    let served = x.get("served").and_then(Value::as_bool).unwrap_or(true);
                    let (schema, path) = match get(x, &["schema", "openAPIV3Schema"]) {
                        Some(s) => (
                            Some(s),
                            format!("spec.versions[{i}].schema.openAPIV3Schema"),
                        ),
                        None => (
                            get(v, &["spec", "validation", "openAPIV3Schema"]),
                            "spec.validation.openAPIV3Schema".to_string(),
                        ),
                    };
                    versions.push((name, served, schema, path));
                }
            }
            _ => {
                let name = str_at(v, &["spec", "version"]);
                if !name.is_empty() {
                    versions.push((
                        name,
                        true,
                        get(v, &["spec", "validation", "openAPIV3Schema"]),
                        "spec.validation.openAPIV3Schema".to_string(),
                    ));
                }
            }
        }
        Some(Crd {
            doc,
            group: str_at(v, &["spec", "group"]),
            kind: str_at(v, &["spec", "names", "kind"]),
            plural: str_at(v, &["spec", "names", "plural"]),
            scope: str_at(v, &["spec", "scope"]),
            versions,
        })
    }

    pub fn role(&self) -> Option<Role> {
        role(self.group, self.kind)
    }

    pub fn served(&self) -> Vec<&'a str> {
        self.versions.iter().filter(|v| v.1).map(|v| v.0).collect()
    }

    /// The versions named by the label of `contract`, if the label is there.
    pub fn contract_versions(&self, contract: &str) -> Option<Vec<&'a str>> {
        get(
            &self.doc.value,
            &[
                "metadata",
                "labels",
                &format!("{CONTRACT_LABEL_PREFIX}{contract}"),
            ],
        )
        .and_then(Value::as_str)
        .map(|s| s.split('_').collect())
    }
}

/// The contract a CRD declares when the release's is unknown: the newest contract
/// label it carries.
pub fn newest_label_contract(c: &Crd) -> Option<&'static str> {
    super::metadata::KNOWN_CONTRACTS
        .iter()
        .rev()
        .copied()
        .find(|k| c.contract_versions(k).is_some())
}

/// Kubernetes' version priority (`version.CompareKubeAwareVersionStrings`): GA
/// above beta above alpha, then by major and minor number; other strings lowest.
pub fn kube_version_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn key(v: &str) -> (u8, u64, u64) {
        let Some(rest) = v.strip_prefix('v') else {
            return (0, 0, 0);
        };
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let Ok(major) = digits.parse::<u64>() else {
            return (0, 0, 0);
        };
        let tail = &rest[digits.len()..];
        let minor = |t: &str| t.parse::<u64>().ok();
        if tail.is_empty() {
            (3, major, 0)
        } else if let Some(m) = tail.strip_prefix("beta").and_then(minor) {
            (2, major, m)
        } else if let Some(m) = tail.strip_prefix("alpha").and_then(minor) {
            (1, major, m)
        } else {
            (0, 0, 0)
        }
    }
    key(a).cmp(&key(b))
}

/// `contract.CalculateCRDName`: `<plural>.<group>`.
pub fn calculate_crd_name(group: &str, plural: &str) -> String {
    format!("{plural}.{group}")
}

/// crd-name, crd-scope and crd-contract-label over the documents of a components
/// file (or of `-f` inputs, `contract` `None`).
pub fn check(docs: &[&Doc], contract: Option<&str>) -> Vec<Finding> {
    let mut out = Vec::new();
    for c in docs.iter().filter_map(|d| Crd::of(d)) {
        let d = c.doc;
        let want = calculate_crd_name(c.group, c.plural);
        if d.name() != want || c.plural.is_empty() || c.group.is_empty() {
            out.push(d.finding(
                "crd-name",
                Severity::Error,
                "metadata.name",
                format!(
                    "CustomResourceDefinition {} should be named {want} (<spec.names.plural>.<spec.group>)",
                    d.name()
                ),
            ));
        }
        if c.role().is_none() {
            continue;
        }
        if c.scope != "Namespaced" {
            out.push(d.finding(
                "crd-scope",
                Severity::Error,
                "spec.scope",
                format!(
                    "{} ({:?}) is a contract kind and must be Namespaced, not {:?}",
                    d.name(),
                    c.role().unwrap_or(Role::InfraCluster),
                    c.scope
                ),
            ));
        }
        let contract = contract.or_else(|| newest_label_contract(&c));
        let Some(contract) = contract else {
            out.push(d.finding(
                "crd-contract-label",
                Severity::Error,
                "metadata.labels",
                format!("{} carries no cluster.x-k8s.io/<contract> label: Cluster API cannot tell which of its versions to use", d.name()),
            ).with_hint("label it cluster.x-k8s.io/v1beta1: <served versions joined by _>"));
            continue;
        };
        let label = format!("{CONTRACT_LABEL_PREFIX}{contract}");
        match c.contract_versions(contract) {
            None => out.push(
                d.finding(
                    "crd-contract-label",
                    Severity::Error,
                    "metadata.labels",
                    format!(
                        "{} has no {label} label for the release's contract {contract}",
                        d.name()
                    ),
                )
                .with_hint(format!("label it {label}: {}", c.served().join("_"))),
            ),
            Some(vs) => {
                // Cluster API uses the newest version the label names: that one must
                // be served (error); an older one that is not is misleading (warning).
                let served = c.served();
                let newest = vs.iter().copied().max_by(|a, b| kube_version_cmp(a, b));
                for v in vs.iter().filter(|v| !served.contains(v)) {
                    let sev = if Some(*v) == newest {
                        Severity::Error
                    } else {
                        Severity::Warning
                    };
                    out.push(d.finding(
                        "crd-contract-label",
                        sev,
                        format!("metadata.labels[{label}]"),
                        format!("{} names version {v:?} for contract {contract}, which it does not serve (served: {})", d.name(), served.join(", ")),
                    ));
                }
            }
        }
    }
    out
}

/// CRD schemas by (group, version, kind), from every input; several CRDs of the same
/// kind (releases of one provider) each count.
#[derive(Debug, Default)]
pub struct Index {
    schemas: BTreeMap<(String, String, String), Vec<Value>>,
}

impl Index {
    pub fn of_docs(docs: &[&Doc]) -> Index {
        let mut ix = Index::default();
        for c in docs.iter().filter_map(|d| Crd::of(d)) {
            for (v, _, schema, _) in &c.versions {
                if let Some(s) = schema {
                    ix.schemas
                        .entry((c.group.to_string(), v.to_string(), c.kind.to_string()))
                        .or_default()
                        .push((*s).clone());
                }
            }
        }
        ix
    }

    pub fn of_releases(rs: &[Release]) -> Index {
        let docs: Vec<&Doc> = rs
            .iter()
            .flat_map(|r| r.files.iter())
            .filter(|f| f.name.ends_with("-components.yaml"))
            .flat_map(|f| f.docs.iter())
            .collect();
        Index::of_docs(&docs)
    }

    /// Whether the JSON pointer exists in some schema of `apiVersion`/`kind`; `None`
    /// when no CRD of it is known.
    pub fn pointer_exists(&self, api_version: &str, kind: &str, pointer: &str) -> Option<bool> {
        let (g, v) = crate::model::object::parse_group_version(api_version)?;
        let list = self
            .schemas
            .get(&(g.to_string(), v.to_string(), kind.to_string()))?;
        let segs: Vec<String> = pointer
            .split('/')
            .skip(1)
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect();
        Some(list.iter().any(|s| walk(s, &segs)))
    }
}

/// Whether the path of segments exists below schema `s`.
pub fn walk(s: &Value, segs: &[String]) -> bool {
    let Some((first, rest)) = segs.split_first() else {
        return true;
    };
    if s.get("x-kubernetes-preserve-unknown-fields")
        .and_then(Value::as_bool)
        == Some(true)
    {
        return true;
    }
    if let Some(p) = get(s, &["properties", first]) {
        return walk(p, rest);
    }
    if let Some(items) = s.get("items") {
        if first == "-" || first.parse::<usize>().is_ok() {
            return walk(items, rest);
        }
    }
    match s.get("additionalProperties") {
        Some(Value::Bool(true)) => return true,
        Some(a @ Value::Object(_)) => return walk(a, rest),
        _ => {}
    }
    for k in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(xs)) = s.get(k) {
            if xs.iter().any(|x| walk(x, segs)) {
                return true;
            }
        }
    }
    false
}

/// The schema node at a field path (`properties` only).
pub fn schema_at<'a>(s: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(s, |s, p| get(s, &["properties", p]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn roles() {
        let i = "infrastructure.cluster.x-k8s.io";
        assert_eq!(role(i, "DockerCluster"), Some(Role::InfraCluster));
        assert_eq!(
            role(i, "DockerClusterTemplate"),
            Some(Role::InfraClusterTemplate)
        );
        assert_eq!(
            role("exp.infrastructure.cluster.x-k8s.io", "DockerMachine"),
            Some(Role::InfraMachine)
        );
        assert_eq!(role(i, "AWSClusterControllerIdentity"), None);
        assert_eq!(role(i, "DockerMachinePool"), None);
        assert_eq!(
            role("controlplane.cluster.x-k8s.io", "KubeadmControlPlane"),
            Some(Role::ControlPlane)
        );
        assert_eq!(
            role("bootstrap.cluster.x-k8s.io", "KubeadmConfigTemplate"),
            Some(Role::BootstrapConfigTemplate)
        );
        assert_eq!(role("cluster.x-k8s.io", "Cluster"), None);
    }

    #[test]
    fn version_priority() {
        use std::cmp::Ordering::*;
        assert_eq!(kube_version_cmp("v1beta2", "v1beta1"), Greater);
        assert_eq!(kube_version_cmp("v1", "v1beta2"), Greater);
        assert_eq!(kube_version_cmp("v1alpha4", "v1beta1"), Less);
        assert_eq!(kube_version_cmp("v2alpha1", "v1alpha3"), Greater);
    }

    #[test]
    fn walks_pointers() {
        let s = json!({"properties": {"spec": {"properties": {
            "files": {"type": "array", "items": {"properties": {"path": {"type": "string"}}}},
            "labels": {"additionalProperties": {"type": "string"}},
            "free": {"x-kubernetes-preserve-unknown-fields": true}}}}});
        let p = |x: &str| -> Vec<String> { x.split('/').skip(1).map(String::from).collect() };
        assert!(walk(&s, &p("/spec/files/-")));
        assert!(walk(&s, &p("/spec/files/0/path")));
        assert!(walk(&s, &p("/spec/labels/a")));
        assert!(walk(&s, &p("/spec/free/x/y")));
        assert!(!walk(&s, &p("/spec/nope")));
        assert!(!walk(&s, &p("/spec/files/0/nope")));
    }
}
