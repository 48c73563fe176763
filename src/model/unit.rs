//! The data every stage shares: an input file and object as read, a rendered unit
//! (a provider or a Cluster) and its directory, the set one run produces, and the
//! options of a run. Produced by `load`, `operator` and `topology`; consumed by
//! `render`, `gitops`, `bundle` and the `diff` command.

use serde_json::Value;

/// One input file as read: its path as given (relative paths stay relative) and the
/// sha256 (lower-case hex) of its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputFile {
    pub path: String,
    pub sha256: String,
}

/// What a rendered unit is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnitKind {
    /// A provider CR: `providers/<namespace>/<type>-<name>/`.
    Provider(ProviderInfo),
    /// A Cluster with `spec.topology`: `clusters/<namespace>/<name>/`.
    Cluster,
    /// A ClusterClass with the templates it refers to (`--clusters managed`):
    /// `classes/<namespace>/<name>/`, applied before the Clusters of the class.
    Class,
    /// cert-manager as clusterctl installs it (`render --cert-manager`): `cert-manager/`,
    /// before every provider (`provider_type` "cert-manager", kind "CertManager").
    CertManager(ProviderInfo),
    /// The Namespaces the other units are applied into (`namespaces/`), before every
    /// other unit: generated, or an input Namespace as written (`render::namespaces`).
    Namespaces,
}

/// Resolution facts of one provider, recorded in the lock file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProviderInfo {
    /// The operator type string (`GetType()`): core, bootstrap, control-plane,
    /// infrastructure, addon, ipam, runtimeextension.
    pub provider_type: String,
    /// The CR kind, e.g. `InfrastructureProvider`.
    pub kind: String,
    pub version: String,
    pub contract: String,
    /// Where the components came from, e.g. `repository:<dir>/<label>/<version>`,
    /// `configmap:<ns>/<name>`, `oci:<ref>`.
    pub source: String,
    /// `--secrets flux-substitute`: the Secret in flux-system whose keys the unit's
    /// Flux Kustomization substitutes (`postBuild.substituteFrom`).
    pub substitute_from: Option<String>,
    /// The indices (in the unit's objects) of the objects that carry a value of the
    /// provider's config Secret (or, with flux-substitute, its `${VAR}` placeholder).
    pub secret_objects: Vec<usize>,
    /// `--secrets sops`: the unit's files written encrypted, with the salted sums of
    /// their plaintext the lock records (`gitops::sealed`).
    pub sealed: Vec<SealedFile>,
    /// `--secrets sops` with `--flux`: the Secret in flux-system holding the age
    /// identity that the unit's Flux Kustomization decrypts with (`spec.decryption`).
    pub decryption: Option<String>,
}

/// A file written SOPS-encrypted (`render --secrets sops`): its path in OUT and the
/// salted sum of the plaintext object it holds ([`crate::sops::plain_sum`]), so that
/// the next run keeps the file (and its ciphertext) while the plaintext is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SealedFile {
    pub path: String,
    pub salt: String,
    pub plain_sha256: String,
}

/// The objects of one provider, class or cluster, in apply order.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedUnit {
    pub kind: UnitKind,
    pub namespace: String,
    pub name: String,
    /// What the unit applies.
    pub objects: Vec<Value>,
    /// Objects written for review only, never applied (`--clusters managed`: the
    /// topology controller's desired objects, in `<dir>/desired/`).
    pub review: Vec<Value>,
    /// The directories of the units this one must be applied after, beyond what its
    /// kinds imply (a Cluster's class unit).
    pub after: Vec<String>,
    /// What a Cluster's desired objects (`review`) leave out: the external patches of its
    /// ClusterClass, one line each naming the patch and its runtime extension, when they
    /// were not called (`diff` without the extension: its rollout impact is `unknown`).
    pub pending: Vec<String>,
    /// What runtime extensions answered for a Cluster (`<handler> <sha256 of the body>`,
    /// by handler), when the run called them: `diff` names a handler that answered
    /// differently on the two sides.
    pub answers: Vec<String>,
}

impl RenderedUnit {
    /// A unit that applies `objects`, with nothing for review and no explicit order.
    pub fn new(kind: UnitKind, namespace: String, name: String, objects: Vec<Value>) -> Self {
        RenderedUnit {
            kind,
            namespace,
            name,
            objects,
            review: Vec::new(),
            after: Vec::new(),
            pending: Vec::new(),
            answers: Vec::new(),
        }
    }

    /// The unit's directory inside the GitOps tree.
    pub fn dir(&self) -> String {
        unit_dir(&self.kind, &self.namespace, &self.name)
    }
}

/// The namespaces unit's directory (and its namespace, name and Flux name).
pub const NAMESPACES_DIR: &str = "namespaces";

/// A unit's directory inside the GitOps tree: `providers/<namespace>/<type>-<name>`,
/// `classes/<namespace>/<name>`, `clusters/<namespace>/<name>`, `cert-manager` or
/// `namespaces`.
pub fn unit_dir(kind: &UnitKind, namespace: &str, name: &str) -> String {
    match kind {
        UnitKind::Provider(p) => format!("providers/{namespace}/{}-{name}", p.provider_type),
        UnitKind::Cluster => format!("clusters/{namespace}/{name}"),
        UnitKind::Class => format!("classes/{namespace}/{name}"),
        UnitKind::CertManager(_) => "cert-manager".to_string(),
        UnitKind::Namespaces => NAMESPACES_DIR.to_string(),
    }
}

/// Everything one `render` run produced: providers first (core first), then clusters.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RenderSet {
    pub inputs: Vec<InputFile>,
    pub units: Vec<RenderedUnit>,
    /// Non-fatal findings to print on stderr (never secret values).
    pub warnings: Vec<String>,
}

/// One object of the inputs: the file it came from, its document index (0-based) and
/// the parsed object.
#[derive(Debug, Clone, PartialEq)]
pub struct InputObject {
    pub file: String,
    pub doc: usize,
    pub value: Value,
}

/// Where a unit's review files go, inside its directory (outside every kustomization).
pub const REVIEW_DIR: &str = "desired";

/// How `render` turns a topology Cluster into what the tree applies (`--clusters`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClusterMode {
    /// The topology controller reconciles: the tree applies the Cluster as given and a
    /// class unit (the ClusterClass and its templates) it depends on; the desired
    /// objects are written for review only.
    #[default]
    Managed,
    /// No topology controller: the desired objects are what the tree applies, the
    /// Cluster without `spec.topology`, every template named by its content.
    Flatten,
    /// The desired objects exactly as the topology controller computes them
    /// (`--stdout` and `diff` only: review, never a tree to apply).
    Desired,
}

impl ClusterMode {
    pub const NAMES: [&'static str; 3] = ["managed", "flatten", "desired"];

    pub fn as_str(self) -> &'static str {
        match self {
            ClusterMode::Managed => "managed",
            ClusterMode::Flatten => "flatten",
            ClusterMode::Desired => "desired",
        }
    }

    pub fn parse(s: &str) -> Option<ClusterMode> {
        match s {
            "managed" => Some(ClusterMode::Managed),
            "flatten" => Some(ClusterMode::Flatten),
            "desired" => Some(ClusterMode::Desired),
            _ => None,
        }
    }
}

/// `--field-validation`: what admission does with a field a Cluster's or ClusterClass's
/// apiVersion does not declare (the API server's `fieldValidation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FieldValidation {
    /// An error naming the field (kubectl's default).
    #[default]
    Strict,
    /// Pruned, with a warning (the API server's default, e.g. for Flux's server-side
    /// apply).
    Warn,
}

impl FieldValidation {
    pub const NAMES: [&'static str; 2] = ["strict", "warn"];

    pub fn as_str(self) -> &'static str {
        match self {
            FieldValidation::Strict => "strict",
            FieldValidation::Warn => "warn",
        }
    }

    pub fn parse(s: &str) -> Option<FieldValidation> {
        match s {
            "strict" => Some(FieldValidation::Strict),
            "warn" => Some(FieldValidation::Warn),
            _ => None,
        }
    }
}

/// Options of a render run.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// `--repository DIR`: local clusterctl repository for URL/default sources.
    pub repository: Option<std::path::PathBuf>,
    /// `--config FILE`: clusterctl config file (its `providers:` URLs map to folders).
    pub config: Option<std::path::PathBuf>,
    /// Do not emit Namespace objects: neither the providers' nor the namespaces unit
    /// (`--no-namespaces`; a Namespace among the inputs is then an error).
    pub no_namespaces: bool,
    /// `--oci-layout DIR`: an OCI image layout holding the artifacts `fetchConfig.oci`
    /// names (found by tag, files by their title annotations).
    pub oci_layout: Option<std::path::PathBuf>,
    /// Accept inputs that yield no unit (`--allow-empty`); without it that is an error,
    /// so that a wrong input never empties a tree.
    pub allow_empty: bool,
    /// Render cert-manager as the first unit (`--cert-manager`), from the release the
    /// config's `cert-manager:` section or `--repository` locates.
    pub cert_manager: bool,
    /// `--clusters`: what a topology Cluster's unit applies.
    pub clusters: ClusterMode,
    /// `--capi-version`: the core provider version the tree installs when the inputs
    /// hold no CoreProvider CR with a version (it decides how v1beta1 topologies render).
    pub capi_version: Option<String>,
    /// `render --from-lock` (the repository root) and `krm` with a functionConfig
    /// `config` (the kustomization's directory): the directory that every local path
    /// the clusterctl config names (provider URLs, `cert-manager.url`,
    /// `overridesFolder`) must lie inside, checked before anything is read (SECURITY.md).
    pub reads_inside: Option<std::path::PathBuf>,
    /// `--secrets`: how values from a provider's config Secret are written.
    pub secrets: SecretsMode,
    /// `--no-validate`: do not check the input objects against the CRDs the tree
    /// installs ([`crate::validate`] is on by default).
    pub no_validate: bool,
    /// `--field-validation`: unknown fields of Clusters and ClusterClasses
    /// ([`crate::admission`]).
    pub field_validation: FieldValidation,
}

/// `render --secrets`: what becomes of the values a provider's config Secret gives
/// its components.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SecretsMode {
    /// Written as substituted (today's output; a warning names each file).
    #[default]
    Keep,
    /// Written as `${VAR}` placeholders that the unit's Flux Kustomization restores
    /// from a Secret the cluster holds (`postBuild.substituteFrom`).
    FluxSubstitute,
    /// `diff`: `${VAR}` placeholders where a value went, so that no value is printed
    /// (nothing applies this rendering).
    Placeholders,
    /// Rendered as `Keep`; the tree writes each Secret that carries a value
    /// SOPS-encrypted for the `--sops-age-recipient`s (`gitops::sealed`).
    Sops,
}

impl SecretsMode {
    /// The flag value.
    pub fn as_str(self) -> &'static str {
        match self {
            SecretsMode::Keep => "keep",
            SecretsMode::FluxSubstitute => "flux-substitute",
            SecretsMode::Placeholders => "placeholders",
            SecretsMode::Sops => "sops",
        }
    }
}
