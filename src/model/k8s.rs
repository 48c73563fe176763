//! The k8s.io release (k8s.io/api, apimachinery, apiextensions-apiserver) a reference
//! tool is built on: its Go types are those its typed round trips go through
//! (`typed`).

use super::clusterctl::Clusterctl;

/// The k8s.io release whose Go types a round trip goes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum K8s {
    /// v0.32.3: clusterctl v1.10.10. Its model also has the Cluster API v1beta1 kinds
    /// clusterctl v1.10's template and topology code converts.
    V0_32,
    /// v0.35.8: cluster-api-operator v0.29.0.
    V0_35,
    /// v0.36.3: clusterctl v1.14.2.
    V0_36,
}

impl K8s {
    /// The release a clusterctl release is built on.
    pub fn for_clusterctl(c: Clusterctl) -> K8s {
        match c {
            Clusterctl::V1_10 => K8s::V0_32,
            Clusterctl::V1_14 => K8s::V0_36,
        }
    }

    /// The release's version, as in its go.mod.
    pub fn version(self) -> &'static str {
        match self {
            K8s::V0_32 => "v0.32.3",
            K8s::V0_35 => "v0.35.8",
            K8s::V0_36 => "v0.36.3",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_clusterctl_has_its_release() {
        assert_eq!(K8s::for_clusterctl(Clusterctl::V1_10), K8s::V0_32);
        assert_eq!(K8s::for_clusterctl(Clusterctl::V1_14).version(), "v0.36.3");
        assert_eq!(K8s::V0_35.version(), "v0.35.8");
    }
}
