//! Provider identity, types, manifest labels and clusterctl's built-in provider list
//! (R1.1–R1.4).

use std::cmp::Ordering;
use std::fmt;

use crate::error::{Error, Result};
use crate::model::clusterctl::Clusterctl;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProviderType {
    Core,
    Bootstrap,
    ControlPlane,
    Infrastructure,
    Ipam,
    RuntimeExtension,
    Addon,
}

impl ProviderType {
    pub const ALL: [ProviderType; 7] = [
        ProviderType::Core,
        ProviderType::Bootstrap,
        ProviderType::ControlPlane,
        ProviderType::Infrastructure,
        ProviderType::Ipam,
        ProviderType::RuntimeExtension,
        ProviderType::Addon,
    ];

    /// The type string clusterctl uses (`CoreProvider`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderType::Core => "CoreProvider",
            ProviderType::Bootstrap => "BootstrapProvider",
            ProviderType::ControlPlane => "ControlPlaneProvider",
            ProviderType::Infrastructure => "InfrastructureProvider",
            ProviderType::Ipam => "IPAMProvider",
            ProviderType::RuntimeExtension => "RuntimeExtensionProvider",
            ProviderType::Addon => "AddonProvider",
        }
    }

    pub fn parse(s: &str) -> Option<ProviderType> {
        ProviderType::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// Sort order of R1.1.
    pub fn order(self) -> u8 {
        self as u8
    }

    /// The name of the components file in clusterctl's built-in URLs.
    pub fn default_components_file(self) -> &'static str {
        match self {
            ProviderType::Core => "core-components.yaml",
            ProviderType::Bootstrap => "bootstrap-components.yaml",
            ProviderType::ControlPlane => "control-plane-components.yaml",
            ProviderType::Infrastructure => "infrastructure-components.yaml",
            ProviderType::Ipam => "ipam-components.yaml",
            ProviderType::RuntimeExtension => "runtime-extensions-components.yaml",
            ProviderType::Addon => "addon-components.yaml",
        }
    }
}

impl fmt::Display for ProviderType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `ManifestLabel(name, type)` (R1.1).
pub fn manifest_label(name: &str, t: ProviderType) -> String {
    match t {
        ProviderType::Core => name.to_string(),
        ProviderType::Bootstrap => format!("bootstrap-{name}"),
        ProviderType::ControlPlane => format!("control-plane-{name}"),
        ProviderType::Infrastructure => format!("infrastructure-{name}"),
        ProviderType::Ipam => format!("ipam-{name}"),
        ProviderType::RuntimeExtension => format!("runtime-extension-{name}"),
        ProviderType::Addon => format!("addon-{name}"),
    }
}

/// A configured provider: name, type and URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provider {
    pub name: String,
    pub ptype: ProviderType,
    pub url: String,
}

impl Provider {
    pub fn manifest_label(&self) -> String {
        manifest_label(&self.name, self.ptype)
    }

    /// The type as clusterctl's messages name it: cert-manager's repository is built
    /// from a provider of no type (`config.NewProvider("cert-manager", url, "")`), which
    /// capi-render models as a core provider reading `cert-manager.yaml`.
    pub fn type_in_messages(&self) -> &'static str {
        if self.ptype == ProviderType::Core
            && self.name == "cert-manager"
            && self.url.ends_with("/cert-manager.yaml")
        {
            ""
        } else {
            self.ptype.as_str()
        }
    }

    pub fn same_as(&self, o: &Provider) -> bool {
        self.name == o.name && self.ptype == o.ptype
    }

    /// R1.1 ordering: type order, then name byte-wise.
    pub fn cmp_order(&self, o: &Provider) -> Ordering {
        self.ptype
            .order()
            .cmp(&o.ptype.order())
            .then_with(|| self.name.as_bytes().cmp(o.name.as_bytes()))
    }
}

const GH: &str = "https://github.com";

/// (name, type, org/repo, file) of clusterctl v1.10.10's built-in providers (R1.2).
const BUILTIN: &[(&str, ProviderType, &str, &str)] = {
    use ProviderType::*;
    &[
        (
            "cluster-api",
            Core,
            "kubernetes-sigs/cluster-api",
            "core-components.yaml",
        ),
        (
            "linode-linode",
            Infrastructure,
            "linode/cluster-api-provider-linode",
            "",
        ),
        (
            "aws",
            Infrastructure,
            "kubernetes-sigs/cluster-api-provider-aws",
            "",
        ),
        (
            "azure",
            Infrastructure,
            "kubernetes-sigs/cluster-api-provider-azure",
            "",
        ),
        (
            "docker",
            Infrastructure,
            "kubernetes-sigs/cluster-api",
            "infrastructure-components-development.yaml",
        ),
        (
            "cloudstack",
            Infrastructure,
            "kubernetes-sigs/cluster-api-provider-cloudstack",
            "",
        ),
        (
            "digitalocean",
            Infrastructure,
            "kubernetes-sigs/cluster-api-provider-digitalocean",
            "",
        ),
        (
            "gcp",
            Infrastructure,
            "kubernetes-sigs/cluster-api-provider-gcp",
            "",
        ),
        (
            "packet",
            Infrastructure,
            "kubernetes-sigs/cluster-api-provider-packet",
            "",
        ),
        (
            "tinkerbell-tinkerbell",
            Infrastructure,
            "tinkerbell/cluster-api-provider-tinkerbell",
            "",
        ),
        (
            "metal3",
            Infrastructure,
            "metal3-io/cluster-api-provider-metal3",
            "",
        ),
        (
            "nested",
            Infrastructure,
            "kubernetes-sigs/cluster-api-provider-nested",
            "",
        ),
        ("oci", Infrastructure, "oracle/cluster-api-provider-oci", ""),
        (
            "openstack",
            Infrastructure,
            "kubernetes-sigs/cluster-api-provider-openstack",
            "",
        ),
        ("sidero", Infrastructure, "siderolabs/sidero", ""),
        (
            "vcd",
            Infrastructure,
            "vmware/cluster-api-provider-cloud-director",
            "",
        ),
        (
            "vsphere",
            Infrastructure,
            "kubernetes-sigs/cluster-api-provider-vsphere",
            "",
        ),
        (
            "maas",
            Infrastructure,
            "spectrocloud/cluster-api-provider-maas",
            "",
        ),
        (
            "coxedge",
            Infrastructure,
            "coxedge/cluster-api-provider-coxedge",
            "",
        ),
        (
            "byoh",
            Infrastructure,
            "vmware-tanzu/cluster-api-provider-bringyourownhost",
            "",
        ),
        (
            "harvester-harvester",
            Infrastructure,
            "rancher-sandbox/cluster-api-provider-harvester",
            "",
        ),
        (
            "hetzner",
            Infrastructure,
            "syself/cluster-api-provider-hetzner",
            "",
        ),
        (
            "hivelocity-hivelocity",
            Infrastructure,
            "hivelocity/cluster-api-provider-hivelocity",
            "",
        ),
        (
            "huawei",
            Infrastructure,
            "HuaweiCloudDeveloper/cluster-api-provider-huawei",
            "",
        ),
        (
            "outscale",
            Infrastructure,
            "outscale/cluster-api-provider-outscale",
            "",
        ),
        (
            "ibmcloud",
            Infrastructure,
            "kubernetes-sigs/cluster-api-provider-ibmcloud",
            "",
        ),
        (
            "nutanix",
            Infrastructure,
            "nutanix-cloud-native/cluster-api-provider-nutanix",
            "",
        ),
        ("kubekey", Infrastructure, "kubesphere/kubekey", ""),
        (
            "kubevirt",
            Infrastructure,
            "kubernetes-sigs/cluster-api-provider-kubevirt",
            "",
        ),
        (
            "vcluster",
            Infrastructure,
            "loft-sh/cluster-api-provider-vcluster",
            "",
        ),
        (
            "virtink",
            Infrastructure,
            "smartxworks/cluster-api-provider-virtink",
            "",
        ),
        (
            "proxmox",
            Infrastructure,
            "ionos-cloud/cluster-api-provider-proxmox",
            "",
        ),
        (
            "k0sproject-k0smotron",
            Infrastructure,
            "k0smotron/k0smotron",
            "",
        ),
        (
            "ionoscloud-ionoscloud",
            Infrastructure,
            "ionos-cloud/cluster-api-provider-ionoscloud",
            "",
        ),
        (
            "vultr-vultr",
            Infrastructure,
            "vultr/cluster-api-provider-vultr",
            "",
        ),
        (
            "opennebula",
            Infrastructure,
            "OpenNebula/cluster-api-provider-opennebula",
            "",
        ),
        (
            "scaleway",
            Infrastructure,
            "scaleway/cluster-api-provider-scaleway",
            "",
        ),
        ("kubeadm", Bootstrap, "kubernetes-sigs/cluster-api", ""),
        ("kubekey-k3s", Bootstrap, "kubesphere/kubekey", ""),
        (
            "talos",
            Bootstrap,
            "siderolabs/cluster-api-bootstrap-provider-talos",
            "",
        ),
        (
            "microk8s",
            Bootstrap,
            "canonical/cluster-api-bootstrap-provider-microk8s",
            "",
        ),
        ("rke2", Bootstrap, "rancher/cluster-api-provider-rke2", ""),
        ("k0sproject-k0smotron", Bootstrap, "k0smotron/k0smotron", ""),
        (
            "canonical-kubernetes",
            Bootstrap,
            "canonical/cluster-api-k8s",
            "",
        ),
        ("kubeadm", ControlPlane, "kubernetes-sigs/cluster-api", ""),
        ("kubekey-k3s", ControlPlane, "kubesphere/kubekey", ""),
        (
            "talos",
            ControlPlane,
            "siderolabs/cluster-api-control-plane-provider-talos",
            "",
        ),
        (
            "microk8s",
            ControlPlane,
            "canonical/cluster-api-control-plane-provider-microk8s",
            "",
        ),
        (
            "nested",
            ControlPlane,
            "kubernetes-sigs/cluster-api-provider-nested",
            "",
        ),
        (
            "kamaji",
            ControlPlane,
            "clastix/cluster-api-control-plane-provider-kamaji",
            "",
        ),
        (
            "rke2",
            ControlPlane,
            "rancher/cluster-api-provider-rke2",
            "",
        ),
        (
            "k0sproject-k0smotron",
            ControlPlane,
            "k0smotron/k0smotron",
            "",
        ),
        (
            "canonical-kubernetes",
            ControlPlane,
            "canonical/cluster-api-k8s",
            "",
        ),
        (
            "in-cluster",
            Ipam,
            "kubernetes-sigs/cluster-api-ipam-provider-in-cluster",
            "",
        ),
        (
            "nutanix",
            Ipam,
            "nutanix-cloud-native/cluster-api-ipam-provider-nutanix",
            "",
        ),
        (
            "rancher-fleet",
            Addon,
            "rancher-sandbox/cluster-api-addon-provider-fleet",
            "",
        ),
        (
            "helm",
            Addon,
            "kubernetes-sigs/cluster-api-addon-provider-helm",
            "",
        ),
        (
            "nutanix",
            RuntimeExtension,
            "nutanix-cloud-native/cluster-api-runtime-extensions-nutanix",
            "",
        ),
    ]
};

/// What clusterctl v1.14.2's built-in list changes in v1.10.10's: providers gone,
/// repositories moved (old, new), providers added.
const V1_14_REMOVED: &[(&str, ProviderType)] = &[("packet", ProviderType::Infrastructure)];
const V1_14_MOVED: &[(&str, &str)] = &[
    ("k0smotron/k0smotron", "k0sproject/k0smotron"),
    (
        "rancher-sandbox/cluster-api-addon-provider-fleet",
        "rancher/cluster-api-addon-provider-fleet",
    ),
];
const V1_14_ADDED: &[(&str, ProviderType, &str, &str)] = {
    use ProviderType::*;
    &[
        (
            "cloudscale-ch-cloudscale",
            Infrastructure,
            "cloudscale-ch/cluster-api-provider-cloudscale",
            "",
        ),
        (
            "metal-stack",
            Infrastructure,
            "metal-stack/cluster-api-provider-metal-stack",
            "",
        ),
        (
            "oxide",
            Infrastructure,
            "oxidecomputer/cluster-api-provider-oxide",
            "",
        ),
        (
            "kubeswift-io",
            Infrastructure,
            "kubeswift-io/cluster-api-provider-kubeswift",
            "",
        ),
        (
            "hosted-control-plane",
            ControlPlane,
            "teutonet/cluster-api-provider-hosted-control-plane",
            "",
        ),
        ("metal3", Ipam, "metal3-io/ip-address-manager", ""),
        (
            "eitco-cdk8s",
            Addon,
            "eitco/cluster-api-addon-provider-cdk8s",
            "",
        ),
    ]
};

/// clusterctl's built-in providers with their release URLs: v1.10.10's list, or
/// v1.14.2's (the order does not matter: the list is sorted where it is used).
pub fn builtin_providers(c: Clusterctl) -> Vec<Provider> {
    let v114 = c == Clusterctl::V1_14;
    let added: &[(&str, ProviderType, &str, &str)] = if v114 { V1_14_ADDED } else { &[] };
    BUILTIN
        .iter()
        .filter(|(name, t, _, _)| !(v114 && V1_14_REMOVED.contains(&(*name, *t))))
        .chain(added)
        .map(|(name, t, repo, file)| {
            let file = if file.is_empty() {
                t.default_components_file()
            } else {
                file
            };
            let repo = match V1_14_MOVED.iter().find(|(old, _)| old == repo) {
                Some((_, new)) if v114 => new,
                _ => repo,
            };
            Provider {
                name: name.to_string(),
                ptype: *t,
                url: format!("{GH}/{repo}/releases/latest/{file}"),
            }
        })
        .collect()
}

const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

fn is_label_body(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// k8s `IsDNS1123Label`: the list of violation messages (empty when valid).
pub fn dns1123_label_errors(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !is_label_body(s) {
        errs.push(DNS1123_LABEL_MSG.to_string());
    }
    errs
}

/// k8s `IsDNS1123Subdomain`: the list of violation messages (empty when valid).
pub fn dns1123_subdomain_errors(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push("must be no more than 253 characters".to_string());
    }
    if !s.split('.').all(is_label_body) {
        errs.push(DNS1123_SUBDOMAIN_MSG.to_string());
    }
    errs
}

/// R1.4: `name[:version]` → (lower-cased name, version or "").
pub fn parse_provider_arg(s: &str) -> Result<(String, String)> {
    let parts: Vec<&str> = s.split(':').collect();
    let base = format!(
        "invalid provider name \"{s}\". Provider name should be in the form name[:version]"
    );
    if parts.len() > 2 {
        return Err(Error::new(base));
    }
    if parts[0].is_empty() {
        return Err(Error::new(format!("{base} and name cannot be empty")));
    }
    let name = parts[0].to_lowercase();
    let errs = dns1123_label_errors(&name);
    if !errs.is_empty() {
        return Err(Error::new(format!(
            "{base} and the name should be valid: {}",
            errs.join("; ")
        )));
    }
    let version = if parts.len() == 2 {
        if parts[1].is_empty() {
            return Err(Error::new(format!("{base} and version cannot be empty")));
        }
        parts[1].to_string()
    } else {
        String::new()
    };
    Ok((name, version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_labels() {
        assert_eq!(
            manifest_label("cluster-api", ProviderType::Core),
            "cluster-api"
        );
        assert_eq!(
            manifest_label("kubeadm", ProviderType::ControlPlane),
            "control-plane-kubeadm"
        );
        assert_eq!(
            manifest_label("x", ProviderType::RuntimeExtension),
            "runtime-extension-x"
        );
    }

    #[test]
    fn provider_args() {
        assert_eq!(
            parse_provider_arg("AWS:v1.0.0").unwrap(),
            ("aws".into(), "v1.0.0".into())
        );
        assert_eq!(
            parse_provider_arg("docker").unwrap(),
            ("docker".into(), "".into())
        );
        assert!(parse_provider_arg("a:b:c")
            .unwrap_err()
            .message()
            .ends_with("name[:version]"));
        assert!(parse_provider_arg("aws:")
            .unwrap_err()
            .message()
            .ends_with("version cannot be empty"));
        assert!(parse_provider_arg(":v1")
            .unwrap_err()
            .message()
            .ends_with("name cannot be empty"));
        assert!(parse_provider_arg("a_b")
            .unwrap_err()
            .message()
            .contains("RFC 1123 label"));
    }

    #[test]
    fn builtins_cover_docker_development_file() {
        let d = builtin_providers(Clusterctl::V1_10)
            .into_iter()
            .find(|p| p.name == "docker")
            .unwrap();
        assert!(d
            .url
            .ends_with("/releases/latest/infrastructure-components-development.yaml"));
        assert_eq!(builtin_providers(Clusterctl::V1_10).len(), 58);
    }

    #[test]
    fn dns_validation() {
        assert!(dns1123_label_errors("capi-system").is_empty());
        assert_eq!(dns1123_label_errors(&"a".repeat(64)).len(), 1);
        assert!(dns1123_subdomain_errors("my.cluster").is_empty());
        assert!(!dns1123_subdomain_errors("My").is_empty());
    }
}
