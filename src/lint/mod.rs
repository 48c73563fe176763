//! `capi-render lint`: what a provider release must be (the clusterctl provider
//! contract, CAPI's provider contracts) checked offline, before `clusterctl init` or a
//! topology reconcile finds out.
//!
//! Two entry points: [`lint_provider`] (a `<label>/<version>/` release folder, a
//! `<label>/` folder of releases or a whole local repository) and [`lint_files`]
//! (ClusterClasses, cluster templates and CRDs given as files). Each rule family has
//! its file: `metadata` (metadata.yaml), `components` (the components file), `crds`
//! (CRD names, scope, contract labels; the CRD index the other families read),
//! `contracts` (InfraCluster, InfraMachine, bootstrap and control-plane schemas),
//! `classes` (cluster templates and ClusterClasses). `input` reads the files (inside
//! the given paths, no symbolic links, within the limits); `report` writes the
//! findings as text, JSON or SARIF 2.1.0. Every rule is listed in [`RULES`] with its
//! meaning and source.

pub mod classes;
pub mod components;
pub mod contracts;
pub mod crds;
pub mod input;
pub mod metadata;
pub mod report;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::Result;
use crate::provider::ProviderType;

/// How bad a finding is: errors fail the run (exit 1), warnings and notes do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One violation: the rule, where (file relative to the linted root, 1-based document
/// and line where known, the field path inside the document), what and what to do.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub file: String,
    pub document: Option<usize>,
    pub line: Option<usize>,
    pub path: String,
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    pub hint: Option<String>,
}

/// A rule: its id, default severity, meaning and the document it comes from.
#[derive(Debug, Clone, Copy)]
pub struct RuleInfo {
    pub id: &'static str,
    pub severity: Severity,
    pub meaning: &'static str,
    pub source: &'static str,
}

/// Every rule, in the order of the README's table.
pub const RULES: &[RuleInfo] = &[
    RuleInfo { id: "file-invalid", severity: Severity::Error, meaning: "a file cannot be read (symbolic link, over the size limit, not UTF-8) or is not YAML whose documents are mappings", source: "spec R5 (multi-document YAML); SECURITY.md" },
    RuleInfo { id: "provider-label", severity: Severity::Warning, meaning: "a repository folder is not a provider manifest label (`cluster-api`, `bootstrap-*`, `control-plane-*`, `infrastructure-*`, `ipam-*`, `runtime-extension-*`, `addon-*`)", source: "spec R1.1, R3.2" },
    RuleInfo { id: "metadata-missing", severity: Severity::Error, meaning: "the release folder has no metadata.yaml", source: "spec R3.7, R3.8; clusterctl provider contract \"metadata.yaml\"" },
    RuleInfo { id: "metadata-invalid", severity: Severity::Error, meaning: "metadata.yaml does not decode as clusterctl's Metadata (apiVersion, kind, releaseSeries of int32 major/minor and string contract), or lists no series", source: "spec R3.7" },
    RuleInfo { id: "metadata-series", severity: Severity::Error, meaning: "a version folder is not a semantic version, or no release series covers its major.minor (clusterctl cannot tell its contract)", source: "spec R3.4, R3.5, R3.7; clusterctl provider contract \"metadata.yaml\"" },
    RuleInfo { id: "metadata-contract", severity: Severity::Error, meaning: "a release series names a contract that is not a Cluster API contract (v1alpha2, v1alpha3, v1alpha4, v1beta1, v1beta2)", source: "spec R3.7; clusterctl provider contract \"metadata.yaml\"" },
    RuleInfo { id: "components-file", severity: Severity::Error, meaning: "the release folder has no components file named for the provider type (`core-components.yaml`, `infrastructure-components.yaml`, ...)", source: "spec R1.2, R3.8; clusterctl provider contract \"Components YAML file\"" },
    RuleInfo { id: "components-namespace", severity: Severity::Error, meaning: "the components hold more than one Namespace (error: clusterctl refuses them) or none (warning: the target namespace must then be given)", source: "spec R7.2 steps 6-8" },
    RuleInfo { id: "components-object-namespace", severity: Severity::Error, meaning: "a namespaced object is in another namespace than the components' Namespace (clusterctl moves every object into the one target namespace)", source: "spec R7.5; clusterctl provider contract \"Target namespace\"" },
    RuleInfo { id: "components-scope", severity: Severity::Error, meaning: "an object of a cluster-scoped kind that clusterctl does not know as cluster-scoped (it is given a namespace and fails to apply)", source: "spec R7.5 step 3" },
    RuleInfo { id: "components-variables", severity: Severity::Note, meaning: "a components variable without a default, which must be set at init (note; variables with a default need nothing); a variable reference that does not parse (error)", source: "spec R6.3, R6.4; clusterctl provider contract \"Components YAML file\" (variables)" },
    RuleInfo { id: "components-image", severity: Severity::Error, meaning: "a Deployment or DaemonSet container image does not parse as a docker reference, or the workload is not apps/v1 (clusterctl's image inspection fails)", source: "spec R7.3, R7.4" },
    RuleInfo { id: "components-manager", severity: Severity::Warning, meaning: "a Deployment has no container named `manager` (the container clusterctl's and the operator's provider customisation address)", source: "cluster-api-operator deployment customisation; clusterctl provider contract \"Components YAML file\"" },
    RuleInfo { id: "components-provider-label", severity: Severity::Warning, meaning: "an object sets `cluster.x-k8s.io/provider` to another value than the manifest label, which clusterctl overwrites (selectors on it break)", source: "spec R7.6" },
    RuleInfo { id: "components-webhook-service", severity: Severity::Error, meaning: "a webhook configuration or a CRD conversion webhook points at a Service that the components do not hold", source: "clusterctl provider contract \"Components YAML file\"; Kubernetes admission/conversion webhooks" },
    RuleInfo { id: "components-cert-manager", severity: Severity::Error, meaning: "cert-manager objects are inconsistent: a Certificate's Issuer is not in its namespace, or `cert-manager.io/inject-ca-from` is not `<namespace>/<Certificate>` of a Certificate in the components", source: "spec R7.5 step 4a; clusterctl provider contract (cert-manager)" },
    RuleInfo { id: "crd-name", severity: Severity::Error, meaning: "a CRD's name is not `<plural>.<group>` as contract.CalculateCRDName computes it (clusterctl and CAPI look CRDs up by that name)", source: "CAPI contract (contract.CalculateCRDName); Kubernetes CRD naming" },
    RuleInfo { id: "crd-scope", severity: Severity::Error, meaning: "a contract CRD (InfraCluster, InfraMachine, bootstrap config, control plane and their templates) is not Namespaced", source: "CAPI provider contracts (\"resources must be namespace-scoped\")" },
    RuleInfo { id: "crd-contract-label", severity: Severity::Error, meaning: "a contract CRD has no `cluster.x-k8s.io/<contract>` label for the release's contract, or the label names versions the CRD does not serve", source: "CAPI provider contracts \"API version labels\"" },
    RuleInfo { id: "contract-infra-cluster", severity: Severity::Error, meaning: "an infrastructure provider has no InfraCluster kind, or its schema lacks `spec.controlPlaneEndpoint` (`host` string, `port` integer) or `status.ready` (v1beta1) / `status.initialization.provisioned` (v1beta2)", source: "CAPI contract \"InfraCluster\"" },
    RuleInfo { id: "contract-infra-machine", severity: Severity::Error, meaning: "an infrastructure provider has no InfraMachine kind, or its schema lacks `spec.providerID` (string) or `status.ready` (v1beta1) / `status.initialization.provisioned` (v1beta2)", source: "CAPI contract \"InfraMachine\"" },
    RuleInfo { id: "contract-bootstrap", severity: Severity::Error, meaning: "a bootstrap provider has no bootstrap config kind, or its schema lacks `status.dataSecretName` (string) or `status.ready` (v1beta1) / `status.initialization.dataSecretCreated` (v1beta2)", source: "CAPI contract \"BootstrapConfig\"" },
    RuleInfo { id: "contract-control-plane", severity: Severity::Error, meaning: "a control-plane provider has no control plane kind, or its schema lacks `status.ready` and `status.initialized` (v1beta1) / `status.initialization.controlPlaneInitialized` (v1beta2)", source: "CAPI contract \"ControlPlane\"" },
    RuleInfo { id: "contract-template", severity: Severity::Error, meaning: "the matching `...Template` kind is missing: InfraMachineTemplate and bootstrap ConfigTemplate (error); InfraClusterTemplate and ControlPlaneTemplate, needed for ClusterClass (warning, v1alpha4 and later)", source: "CAPI contracts \"InfraMachineTemplate\", \"BootstrapConfigTemplate\", \"InfraClusterTemplate\", \"ControlPlaneTemplate\"" },
    RuleInfo { id: "template-namespace", severity: Severity::Error, meaning: "a cluster template or ClusterClass file puts its objects in more than one namespace (clusterctl moves them all into one)", source: "spec R7.5, R8.2, R8.4" },
    RuleInfo { id: "class-template-ref", severity: Severity::Error, meaning: "a ClusterClass references a template (infrastructure, control plane, machine infrastructure, worker bootstrap/infrastructure) that is not among the inputs", source: "spec R8.4; topology.md (ClusterClass blueprint)" },
    RuleInfo { id: "class-variable", severity: Severity::Error, meaning: "a patch uses a variable (`valueFrom.variable`, or `.name` / `$.name` in `valueFrom.template` and `enabledIf`) that the ClusterClass does not declare and that is not a builtin, or a Cluster sets a variable its ClusterClass does not declare", source: "topology.md (patches, variables); CAPI ClusterClass webhook" },
    RuleInfo { id: "class-patch-path", severity: Severity::Error, meaning: "a JSON patch path does not exist in the schema of the template it selects (from the CRDs among the inputs)", source: "topology.md (inline patches); CAPI ClusterClass patch validation" },
    RuleInfo { id: "class-go-template", severity: Severity::Error, meaning: "a patch's `enabledIf` or `valueFrom.template` does not parse as a Go template with sprig", source: "topology.md (patches: enabledIf, valueFrom.template)" },
];

pub fn rule(id: &str) -> Option<&'static RuleInfo> {
    RULES.iter().find(|r| r.id == id)
}

/// One parsed YAML document of an input file.
#[derive(Debug, Clone)]
pub struct Doc {
    /// The file, relative to the linted root (or as given).
    pub file: String,
    /// 1-based document index (empty documents count, as an editor shows them).
    pub doc: usize,
    /// 1-based line the document starts on.
    pub line: usize,
    pub value: Value,
}

impl Doc {
    /// A finding at `path` in this document.
    pub fn finding(
        &self,
        rule: &'static str,
        severity: Severity,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Finding {
        Finding {
            file: self.file.clone(),
            document: Some(self.doc),
            line: Some(self.line),
            path: path.into(),
            rule,
            severity,
            message: message.into(),
            hint: None,
        }
    }

    pub fn kind(&self) -> &str {
        crate::model::object::kind(&self.value)
    }

    pub fn name(&self) -> &str {
        crate::model::object::name(&self.value)
    }

    pub fn namespace(&self) -> &str {
        crate::model::object::namespace(&self.value)
    }

    /// `Kind namespace/name` for messages.
    pub fn describe(&self) -> String {
        match self.namespace() {
            "" => format!("{} {}", self.kind(), self.name()),
            ns => format!("{} {ns}/{}", self.kind(), self.name()),
        }
    }
}

/// A finding about a whole file (no document).
pub fn file_finding(
    rule: &'static str,
    severity: Severity,
    file: &str,
    message: impl Into<String>,
) -> Finding {
    Finding {
        file: file.to_string(),
        document: None,
        line: None,
        path: String::new(),
        rule,
        severity,
        message: message.into(),
        hint: None,
    }
}

impl Finding {
    pub fn with_hint(mut self, hint: impl Into<String>) -> Finding {
        self.hint = Some(hint.into());
        self
    }
}

/// A file of a release: its name in the folder, path relative to the root, documents.
#[derive(Debug, Clone, Default)]
pub struct File {
    pub name: String,
    pub rel: String,
    pub text: String,
    pub docs: Vec<Doc>,
    /// The file did not read or parse (a `file-invalid` finding says why): the
    /// rules that need its content skip it rather than report it missing or empty.
    pub invalid: bool,
}

/// One `<label>/<version>/` folder.
#[derive(Debug, Clone)]
pub struct Release {
    pub label: String,
    pub provider_type: Option<ProviderType>,
    pub version: String,
    /// The folder relative to the root (`.` for the root itself).
    pub rel: String,
    /// The YAML files of the folder, by name.
    pub files: Vec<File>,
    /// The release's contract, from its metadata.yaml (set by the metadata rules).
    pub contract: Option<String>,
}

impl Release {
    pub fn file(&self, name: &str) -> Option<&File> {
        self.files.iter().find(|f| f.name == name)
    }
}

/// The provider type a manifest label names (R1.1), `None` for another folder.
pub fn label_type(label: &str) -> Option<ProviderType> {
    if label == "cluster-api" {
        return Some(ProviderType::Core);
    }
    [
        ("bootstrap-", ProviderType::Bootstrap),
        ("control-plane-", ProviderType::ControlPlane),
        ("infrastructure-", ProviderType::Infrastructure),
        ("ipam-", ProviderType::Ipam),
        ("runtime-extension-", ProviderType::RuntimeExtension),
        ("addon-", ProviderType::Addon),
    ]
    .into_iter()
    .find(|(p, _)| label.strip_prefix(p).is_some_and(|n| !n.is_empty()))
    .map(|(_, t)| t)
}

/// Lint a provider folder: a release folder, a provider's folder of releases or a
/// whole local repository. Paths in the findings are relative to `dir`.
pub fn lint_provider(dir: &Path) -> Result<Vec<Finding>> {
    let (mut releases, mut findings) = input::read_provider(dir)?;
    for r in releases.iter_mut() {
        findings.extend(metadata::check(r));
    }
    let index = crds::Index::of_releases(&releases);
    for r in &releases {
        findings.extend(components::check(r));
        if let Some(f) = components::file_name(r)
            .and_then(|n| r.file(n))
            .filter(|f| !f.invalid)
        {
            let docs: Vec<&Doc> = f.docs.iter().collect();
            findings.extend(crds::check(&docs, r.contract.as_deref()));
            findings.extend(contracts::check(
                &docs,
                r.provider_type,
                r.contract.as_deref(),
                &f.rel,
            ));
        }
        let templates: Vec<&File> = r
            .files
            .iter()
            .filter(|f| classes::is_template_file(&f.name))
            .collect();
        for f in &templates {
            findings.extend(classes::check_file(f));
        }
        let class_docs: Vec<&Doc> = templates.iter().flat_map(|f| f.docs.iter()).collect();
        findings.extend(classes::check(&class_docs, &index));
    }
    finish(findings)
}

/// Lint ClusterClasses, cluster templates and CRDs given as files or directories
/// (`*.yaml`): the CRDs among them give the schemas of the patch path checks.
pub fn lint_files(paths: &[PathBuf]) -> Result<Vec<Finding>> {
    let (files, mut findings) = input::read_files(paths)?;
    let docs: Vec<&Doc> = files.iter().flat_map(|f| f.docs.iter()).collect();
    let index = crds::Index::of_docs(&docs);
    let crd_docs: Vec<&Doc> = docs
        .iter()
        .copied()
        .filter(|d| d.kind() == "CustomResourceDefinition")
        .collect();
    findings.extend(crds::check(&crd_docs, None));
    findings.extend(contracts::check(&crd_docs, None, None, ""));
    for f in &files {
        findings.extend(classes::check_file(f));
    }
    findings.extend(classes::check(&docs, &index));
    finish(findings)
}

fn finish(mut findings: Vec<Finding>) -> Result<Vec<Finding>> {
    findings.sort();
    findings.dedup();
    Ok(findings)
}

/// Whether any finding is an error (the run exits 1).
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_unique_and_known() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
        assert!(rule("crd-name").is_some());
    }

    #[test]
    fn labels() {
        assert_eq!(label_type("cluster-api"), Some(ProviderType::Core));
        assert_eq!(
            label_type("infrastructure-docker"),
            Some(ProviderType::Infrastructure)
        );
        assert_eq!(label_type("infrastructure-"), None);
        assert_eq!(label_type("cert-manager"), None);
    }
}
