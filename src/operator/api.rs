//! The provider custom resources (operator.md §1): API groups and versions we read,
//! the seven kinds and their three identifiers (R1.1.2), and [`ProviderCr`], one
//! provider after conversion to v1alpha2 (§2) and defaulting (§1.5).

use crate::model::pointer::Pointer as _;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::InputObject;
use crate::provider::ProviderType;

/// The operator's API group.
pub const OPERATOR_GROUP: &str = "operator.cluster.x-k8s.io";
/// The design proposal's API group (never shipped; translated per §2.4).
pub const PROPOSAL_GROUP: &str = "management.cluster.x-k8s.io";

/// Which schema a provider object was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiVersion {
    /// `operator.cluster.x-k8s.io/v1alpha2` (served by v0.29.0).
    V1alpha2,
    /// `operator.cluster.x-k8s.io/v1alpha1` (served up to v0.19.0).
    V1alpha1,
    /// `management.cluster.x-k8s.io/v1alpha1` (the proposal).
    Proposal,
}

/// The kind of a provider object and its provider type.
pub fn kind_type(kind: &str) -> Option<ProviderType> {
    Some(match kind {
        "CoreProvider" => ProviderType::Core,
        "BootstrapProvider" => ProviderType::Bootstrap,
        "ControlPlaneProvider" => ProviderType::ControlPlane,
        "InfrastructureProvider" => ProviderType::Infrastructure,
        "AddonProvider" => ProviderType::Addon,
        "IPAMProvider" => ProviderType::Ipam,
        "RuntimeExtensionProvider" => ProviderType::RuntimeExtension,
        _ => return None,
    })
}

/// The CR kind of a provider type.
pub fn type_kind(t: ProviderType) -> &'static str {
    t.as_str()
}

/// `GetType()`: the operator's type string (ConfigMap names/labels, OCI file names).
pub fn operator_type(t: ProviderType) -> &'static str {
    match t {
        ProviderType::Core => "core",
        ProviderType::Bootstrap => "bootstrap",
        ProviderType::ControlPlane => "control-plane",
        ProviderType::Infrastructure => "infrastructure",
        ProviderType::Addon => "addon",
        ProviderType::Ipam => "ipam",
        ProviderType::RuntimeExtension => "runtimeextension",
    }
}

/// Where an object came from, for messages: `file, document N` (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub file: String,
    /// 0-based document index in the file.
    pub doc: usize,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, document {}", self.file, self.doc + 1)
    }
}

/// `<Kind> <namespace>/<name> (<file>, document <n>)` of any input object.
pub fn describe_object(o: &InputObject) -> String {
    let s = |k: &str| {
        o.value
            .ptr(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    format!(
        "{} {}/{} ({})",
        s("/kind"),
        s("/metadata/namespace"),
        s("/metadata/name"),
        Origin {
            file: o.file.clone(),
            doc: o.doc
        }
    )
}

/// One provider object, converted to the v1alpha2 `ProviderSpec` and defaulted.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderCr {
    pub origin: Origin,
    pub api: ApiVersion,
    /// `apiVersion` as written.
    pub api_version: String,
    pub kind: String,
    pub ptype: ProviderType,
    pub name: String,
    pub namespace: String,
    /// The v1alpha2 spec (a JSON object).
    pub spec: Value,
    /// The proposal's `paused` (always false for the operator groups).
    pub paused: bool,
    /// `status.installedVersion`, when the input carries status (R3.2).
    pub installed_version: Option<String>,
}

impl ProviderCr {
    /// `<Kind> <ns>/<name> (<file>, document <n>)`.
    pub fn describe(&self) -> String {
        format!(
            "{} {}/{} ({})",
            self.kind, self.namespace, self.name, self.origin
        )
    }

    /// An error about this provider: its description, then the message.
    pub fn error(&self, msg: impl std::fmt::Display) -> Error {
        Error::new(format!("{}: {msg}", self.describe())).in_file(&self.origin.file)
    }

    /// [`ProviderCr::error`] of an error, its hint kept.
    pub fn wrap_error(&self, e: Error) -> Error {
        let hint = e.hint().map(str::to_string);
        let out = self.error(e);
        match hint {
            Some(h) => out.with_hint(h),
            None => out,
        }
    }

    /// `spec.version` ("" when unset).
    pub fn version(&self) -> &str {
        self.spec
            .get("version")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// `spec.fetchConfig`, if set.
    pub fn fetch_config(&self) -> Option<&Value> {
        self.spec.get("fetchConfig").filter(|v| !v.is_null())
    }

    /// The manifest label (`cluster.x-k8s.io/provider` value).
    pub fn manifest_label(&self) -> String {
        crate::provider::manifest_label(&self.name, self.ptype)
    }

    /// `GetType()`.
    pub fn operator_type(&self) -> &'static str {
        operator_type(self.ptype)
    }
}

/// Is this object in one of the provider API groups?
pub fn is_provider_group(api_version: &str) -> bool {
    // `group/version`; a bare group (version forgotten) still counts, so that it is
    // reported as an unknown apiVersion instead of being ignored.
    let group = api_version.split('/').next().unwrap_or("");
    group == OPERATOR_GROUP || group == PROPOSAL_GROUP
}

/// Classify an object of a provider group: its schema and provider type, or an error
/// naming the file/document for an unknown apiVersion or kind.
pub fn classify(o: &InputObject) -> Result<(ApiVersion, ProviderType)> {
    let origin = Origin {
        file: o.file.clone(),
        doc: o.doc,
    };
    let api = o
        .value
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = o.value.get("kind").and_then(Value::as_str).unwrap_or("");
    let fail = |msg: String| Err(Error::new(format!("{origin}: {msg}")).in_file(&o.file));
    let version = match api {
        "operator.cluster.x-k8s.io/v1alpha2" => ApiVersion::V1alpha2,
        "operator.cluster.x-k8s.io/v1alpha1" => ApiVersion::V1alpha1,
        "management.cluster.x-k8s.io/v1alpha1" => ApiVersion::Proposal,
        _ => {
            return fail(format!(
                "unknown apiVersion {api:?} (kind {kind:?}): capi-render reads operator.cluster.x-k8s.io/v1alpha2, operator.cluster.x-k8s.io/v1alpha1 and management.cluster.x-k8s.io/v1alpha1"
            ))
        }
    };
    let Some(t) = kind_type(kind) else {
        return fail(format!("unknown kind {kind:?} in {api}"));
    };
    if version != ApiVersion::V1alpha2
        && !matches!(
            t,
            ProviderType::Core
                | ProviderType::Bootstrap
                | ProviderType::ControlPlane
                | ProviderType::Infrastructure
        )
    {
        return fail(format!(
            "kind {kind:?} does not exist in {api} (only CoreProvider, BootstrapProvider, ControlPlaneProvider and InfrastructureProvider do)"
        ));
    }
    Ok((version, t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(api: &str, kind: &str) -> InputObject {
        InputObject {
            file: "f.yaml".into(),
            doc: 2,
            value: json!({"apiVersion": api, "kind": kind, "metadata": {"name": "x", "namespace": "n"}}),
        }
    }

    #[test]
    fn kinds_and_type_strings() {
        for t in ProviderType::ALL {
            assert_eq!(kind_type(type_kind(t)), Some(t));
        }
        assert_eq!(
            operator_type(ProviderType::RuntimeExtension),
            "runtimeextension"
        );
        assert_eq!(operator_type(ProviderType::ControlPlane), "control-plane");
    }

    #[test]
    fn classify_versions() {
        assert_eq!(
            classify(&obj("operator.cluster.x-k8s.io/v1alpha2", "IPAMProvider")).unwrap(),
            (ApiVersion::V1alpha2, ProviderType::Ipam)
        );
        assert_eq!(
            classify(&obj("management.cluster.x-k8s.io/v1alpha1", "CoreProvider")).unwrap(),
            (ApiVersion::Proposal, ProviderType::Core)
        );
        let e = classify(&obj("operator.cluster.x-k8s.io/v1alpha1", "AddonProvider")).unwrap_err();
        assert!(
            e.message()
                .starts_with("f.yaml, document 3: kind \"AddonProvider\" does not exist"),
            "{e}"
        );
        let e = classify(&obj("operator.cluster.x-k8s.io/v1beta1", "CoreProvider")).unwrap_err();
        assert!(
            e.message()
                .contains("unknown apiVersion \"operator.cluster.x-k8s.io/v1beta1\""),
            "{e}"
        );
        let e = classify(&obj("operator.cluster.x-k8s.io/v1alpha2", "FooProvider")).unwrap_err();
        assert!(e.message().contains("unknown kind \"FooProvider\""), "{e}");
        assert!(is_provider_group("operator.cluster.x-k8s.io/v9"));
        assert!(is_provider_group("management.cluster.x-k8s.io"));
        assert!(!is_provider_group("v1"));
    }
}
