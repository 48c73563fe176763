//! `metadata.yaml`: release series → contract (R3.7).

use serde_json::Value;

use crate::error::{Error, Result};
use crate::version::Version;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseSeries {
    pub major: i64,
    pub minor: i64,
    pub contract: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Metadata {
    pub release_series: Vec<ReleaseSeries>,
}

const API_VERSION: &str = "clusterctl.cluster.x-k8s.io/v1alpha3";

impl Metadata {
    /// Decode metadata.yaml as clusterctl's scheme decoder does: `kind` may be
    /// omitted (it defaults to `Metadata`), `apiVersion` must be the clusterctl one.
    pub fn parse(text: &str) -> Result<Metadata> {
        let docs = crate::yaml::parse_documents(text)?;
        let Some(doc) = docs.first() else {
            return Err(Error::new("Object 'Kind' is missing in '{}'"));
        };
        let api = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let kind = doc.get("kind").and_then(Value::as_str).unwrap_or("");
        if !kind.is_empty() && kind != "Metadata" {
            return Err(Error::new(format!(
                "no kind \"{kind}\" is registered for version \"{api}\" in scheme"
            )));
        }
        if api != API_VERSION {
            return Err(Error::new(format!(
                "no kind \"Metadata\" is registered for version \"{api}\" in scheme"
            )));
        }
        let mut out = Metadata::default();
        let Some(series) = doc.get("releaseSeries") else {
            return Ok(out);
        };
        let list = match series {
            Value::Null => return Ok(out),
            Value::Array(a) => a,
            _ => return Err(Error::new("releaseSeries: expected a list")),
        };
        for (i, s) in list.iter().enumerate() {
            let int = |k: &str| -> Result<i64> {
                match s.get(k) {
                    None | Some(Value::Null) => Ok(0),
                    Some(Value::Number(n)) => n
                        .as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() <= i32::MAX as f64)
                        .map(|f| f as i64)
                        .ok_or_else(|| {
                            Error::new(format!("releaseSeries[{i}].{k}: expected an int32"))
                        }),
                    Some(_) => Err(Error::new(format!(
                        "releaseSeries[{i}].{k}: expected an int32"
                    ))),
                }
            };
            let contract = match s.get("contract") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(c)) => c.clone(),
                Some(_) => {
                    return Err(Error::new(format!(
                        "releaseSeries[{i}].contract: expected a string"
                    )))
                }
            };
            out.release_series.push(ReleaseSeries {
                major: int("major")?,
                minor: int("minor")?,
                contract,
            });
        }
        Ok(out)
    }

    /// The first series whose major.minor equals the version's.
    pub fn series_for_version(&self, v: &Version) -> Option<&ReleaseSeries> {
        self.release_series
            .iter()
            .find(|s| s.major as u64 == v.major && s.minor as u64 == v.minor)
    }

    /// Among the series with `contract`, the one with the highest major.minor.
    pub fn series_for_contract(&self, contract: &str) -> Option<&ReleaseSeries> {
        self.release_series
            .iter()
            .filter(|s| s.contract == contract)
            .fold(None, |best: Option<&ReleaseSeries>, s| match best {
                Some(b) if (b.major, b.minor) >= (s.major, s.minor) => Some(b),
                _ => Some(s),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nreleaseSeries:\n  - major: 1\n    minor: 11\n    contract: v1beta2\n  - major: 1\n    minor: 10\n    contract: v1beta1\n  - major: 1\n    minor: 9\n    contract: v1beta1\n";

    #[test]
    fn series_lookup() {
        let m = Metadata::parse(M).unwrap();
        assert_eq!(
            m.series_for_version(&Version::parse("v1.10.3").unwrap())
                .unwrap()
                .contract,
            "v1beta1"
        );
        assert!(m
            .series_for_version(&Version::parse("v0.4.0").unwrap())
            .is_none());
        let s = m.series_for_contract("v1beta1").unwrap();
        assert_eq!((s.major, s.minor), (1, 10));
    }

    #[test]
    fn kind_is_optional_but_api_version_is_not() {
        assert!(Metadata::parse(&format!("kind: Metadata\n{M}")).is_ok());
        assert!(Metadata::parse("apiVersion: v1\nkind: Metadata\n").is_err());
        assert!(
            Metadata::parse("apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Other\n")
                .is_err()
        );
    }
}
