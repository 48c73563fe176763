//! The clusterctl release a run follows (`--clusterctl-version`): a fact every stage
//! may ask (contracts, "latest", built-in providers, typed round trips, cert-manager).

/// The clusterctl release whose behaviour the clusterctl-compatible commands follow
/// (`--clusterctl-version`): the contracts it accepts, what "latest" resolves to, and
/// its typed round trips. The library's default is v1.10; the CLI's `generate` and
/// `init` default to v1.14, and so do the operator pipeline's components stages
/// (`operator::release`: cluster-api-operator v0.29.0 is built on Cluster API v1.13.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Clusterctl {
    /// clusterctl v1.10.10: contract v1beta1 only.
    #[default]
    V1_10,
    /// clusterctl v1.14.2: contract v1beta2, and v1beta1 while it is served.
    V1_14,
}

impl Clusterctl {
    /// The spellings `--clusterctl-version` takes: a minor (`v1.14`) or its followed
    /// patch release (`v1.14.2`), with or without the `v`.
    pub fn parse(s: &str) -> crate::error::Result<Clusterctl> {
        match s.strip_prefix('v').unwrap_or(s) {
            "1.10" | "1.10.10" => Ok(Clusterctl::V1_10),
            "1.14" | "1.14.2" => Ok(Clusterctl::V1_14),
            _ => Err(crate::error::Error::new(format!(
                "clusterctl version {s:?} is not followed: choose v1.14 (clusterctl v1.14.2) or v1.10 (clusterctl v1.10.10)"
            ))),
        }
    }

    /// The clusterctl release followed.
    pub fn release(self) -> &'static str {
        match self {
            Clusterctl::V1_10 => "v1.10.10",
            Clusterctl::V1_14 => "v1.14.2",
        }
    }

    /// The contract of the release (`clusterv1.GroupVersion.Version`): "latest" is the
    /// newest release of this contract.
    pub fn contract(self) -> &'static str {
        match self {
            Clusterctl::V1_10 => "v1beta1",
            Clusterctl::V1_14 => "v1beta2",
        }
    }

    /// `contract.GetCompatibleVersions(contract)`: the contracts a provider may implement,
    /// in the order clusterctl v1.14.2's message lists them.
    pub fn compatible_contracts(self) -> &'static [&'static str] {
        match self {
            Clusterctl::V1_10 => &["v1beta1"],
            Clusterctl::V1_14 => &["v1beta2", "v1beta1"],
        }
    }

    /// `config.CertManagerDefaultVersion`: the cert-manager release this clusterctl
    /// installs when the config names none.
    pub fn cert_manager_version(self) -> &'static str {
        match self {
            Clusterctl::V1_10 => "v1.19.1",
            Clusterctl::V1_14 => "v1.21.1",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_and_facts() {
        for s in ["v1.14", "1.14", "v1.14.2"] {
            assert_eq!(Clusterctl::parse(s).unwrap(), Clusterctl::V1_14);
        }
        for s in ["v1.10", "1.10.10"] {
            assert_eq!(Clusterctl::parse(s).unwrap(), Clusterctl::V1_10);
        }
        let e = Clusterctl::parse("v1.12").unwrap_err();
        assert!(e.message().contains("choose v1.14"), "{}", e.message());
        assert_eq!(Clusterctl::default(), Clusterctl::V1_10);
        assert_eq!(
            Clusterctl::V1_14.compatible_contracts(),
            ["v1beta2", "v1beta1"]
        );
        assert_eq!(Clusterctl::V1_10.compatible_contracts(), ["v1beta1"]);
        assert_eq!(Clusterctl::V1_14.cert_manager_version(), "v1.21.1");
        assert_eq!(Clusterctl::V1_10.cert_manager_version(), "v1.19.1");
    }
}
