//! metadata.yaml (spec R3.7): present, decodes as clusterctl's Metadata, a release
//! series covers the version folder, the contracts are Cluster API's.

use super::{file_finding, Finding, Release, Severity};
use crate::repository::metadata::Metadata;
use crate::version::Version;

/// The contracts Cluster API has had.
pub const KNOWN_CONTRACTS: [&str; 5] = ["v1alpha2", "v1alpha3", "v1alpha4", "v1beta1", "v1beta2"];

/// The metadata rules for one release; sets `r.contract` when the series is found.
pub fn check(r: &mut Release) -> Vec<Finding> {
    let mut out = Vec::new();
    let shown = format!("{}/metadata.yaml", r.rel)
        .trim_start_matches("./")
        .to_string();
    let Some(f) = r.file("metadata.yaml") else {
        out.push(
            file_finding(
                "metadata-missing",
                Severity::Error,
                &shown,
                format!("release {} of {} has no metadata.yaml", r.version, r.label),
            )
            .with_hint("add metadata.yaml (apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3, kind: Metadata, releaseSeries: [{major, minor, contract}])"),
        );
        return out;
    };
    if f.invalid {
        return out;
    }
    let md = match Metadata::parse(&f.text) {
        Ok(m) => m,
        Err(e) => {
            out.push(file_finding(
                "metadata-invalid",
                Severity::Error,
                &f.rel,
                format!(
                    "error decoding \"metadata.yaml\" for provider {:?}: {e}",
                    r.label
                ),
            ));
            return out;
        }
    };
    let at = |path: String, rule, sev, msg: String| {
        let mut x = file_finding(rule, sev, &f.rel, msg);
        if let Some(d) = f.docs.first() {
            x.document = Some(d.doc);
            x.line = Some(d.line);
        }
        x.path = path;
        x
    };
    if md.release_series.is_empty() {
        out.push(at(
            "releaseSeries".into(),
            "metadata-invalid",
            Severity::Error,
            format!(
                "releaseSeries is empty in metadata.yaml for provider {}",
                r.label
            ),
        ));
    }
    for (i, s) in md.release_series.iter().enumerate() {
        if !KNOWN_CONTRACTS.contains(&s.contract.as_str()) {
            out.push(at(
                format!("releaseSeries[{i}].contract"),
                "metadata-contract",
                Severity::Error,
                format!(
                    "release series {}.{} names contract {:?}, which is not a Cluster API contract ({})",
                    s.major,
                    s.minor,
                    s.contract,
                    KNOWN_CONTRACTS.join(", ")
                ),
            ));
        }
    }
    match Version::parse(&r.version) {
        Err(e) => out.push(at(
            String::new(),
            "metadata-series",
            Severity::Error,
            format!(
                "version folder {:?} is not a semantic version ({e}); clusterctl does not list it",
                r.version
            ),
        )),
        Ok(v) => match md.series_for_version(&v) {
            None => out.push(
                at(
                    "releaseSeries".into(),
                    "metadata-series",
                    Severity::Error,
                    format!(
                        "no release series covers version {} (major {}, minor {})",
                        r.version, v.major, v.minor
                    ),
                )
                .with_hint(format!(
                    "add {{major: {}, minor: {}, contract: <contract>}} to releaseSeries",
                    v.major, v.minor
                )),
            ),
            Some(s) => r.contract = Some(s.contract.clone()),
        },
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::File;

    fn release(version: &str, text: Option<&str>) -> Release {
        let files = text
            .map(|t| {
                vec![File {
                    name: "metadata.yaml".into(),
                    rel: "p/v/metadata.yaml".into(),
                    text: t.into(),
                    docs: vec![],
                    invalid: false,
                }]
            })
            .unwrap_or_default();
        Release {
            label: "infrastructure-x".into(),
            provider_type: None,
            version: version.into(),
            rel: "p/v".into(),
            files,
            contract: None,
        }
    }

    fn rules(r: &mut Release) -> Vec<&'static str> {
        check(r).into_iter().map(|f| f.rule).collect()
    }

    const OK: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 2\n  contract: v1beta1\n";

    #[test]
    fn rules_fire() {
        let mut r = release("v1.2.3", Some(OK));
        assert!(rules(&mut r).is_empty());
        assert_eq!(r.contract.as_deref(), Some("v1beta1"));
        assert_eq!(rules(&mut release("v1.3.0", Some(OK))), ["metadata-series"]);
        assert_eq!(rules(&mut release("latest", Some(OK))), ["metadata-series"]);
        assert_eq!(rules(&mut release("v1.2.0", None)), ["metadata-missing"]);
        assert_eq!(
            rules(&mut release("v1.2.0", Some("apiVersion: x/v1\n"))),
            ["metadata-invalid"]
        );
        assert_eq!(
            rules(&mut release("v1.2.0", Some(&OK.replace("v1beta1", "v2")))),
            ["metadata-contract"]
        );
    }
}
