//! The core provider version a tree installs, which decides how v1beta1 topology
//! Clusters render: its CoreProvider CR's `spec.version` among the inputs, or
//! `--capi-version` when the inputs have none. A core of v1.11 or later reads every
//! Cluster as v1beta2 (`topology::v1beta2::render_v1beta1_cluster`); an older core, or
//! none, keeps clusterctl v1.10.10's semantics.

use crate::model::InputObject;

/// The CoreProvider kinds: the operator's API, and the management API proposal's.
const GROUPS: [&str; 2] = ["operator.cluster.x-k8s.io", "management.cluster.x-k8s.io"];

fn is_core_provider(o: &InputObject) -> bool {
    let av = o
        .value
        .get("apiVersion")
        .and_then(|v| v.as_str())
        .unwrap_or("");
    let kind = o.value.get("kind").and_then(|v| v.as_str()).unwrap_or("");
    kind == "CoreProvider" && GROUPS.contains(&crate::model::object::group_of(av))
}

/// `vX.Y.Z` (or `X.Y.Z`) as (major, minor); `None` when it is not a version.
pub fn major_minor(v: &str) -> Option<(u64, u64)> {
    let mut parts = v.strip_prefix('v').unwrap_or(v).split(['.', '-', '+']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// Whether the core version reads Clusters as v1beta2 (v1.11 or later).
pub fn is_v1beta2_core(v: &str) -> bool {
    major_minor(v).is_some_and(|mm| mm >= (1, 11))
}

/// The core version the tree installs: the CoreProvider CR's `spec.version`, else
/// `flag`; `None` when neither. A CR whose version is not `vX.Y.Z`, or that disagrees
/// with `flag`, is an error naming its file and document.
pub fn core_version(objects: &[InputObject], flag: Option<&str>) -> crate::Result<Option<String>> {
    if let Some(f) = flag.filter(|f| major_minor(f).is_none()) {
        return Err(crate::Error::new(format!(
            "--capi-version {f:?}: not a version; give the core provider's release, e.g. v1.14.2"
        )));
    }
    let Some(cr) = objects.iter().find(|o| is_core_provider(o)) else {
        return Ok(flag.map(str::to_string));
    };
    let where_ = format!("{} (document {}): CoreProvider", cr.file, cr.doc + 1);
    let v = cr
        .value
        .pointer("/spec/version")
        .and_then(|v| v.as_str())
        .unwrap_or("");
    if v.is_empty() {
        // The operator installs its default core release; the version is not known here.
        return Ok(flag.map(str::to_string));
    }
    if major_minor(v).is_none() {
        return Err(crate::Error::new(format!(
            "{where_} spec.version {v:?}: not a version (vX.Y.Z)"
        )));
    }
    if let Some(f) = flag.filter(|f| f.trim_start_matches('v') != v.trim_start_matches('v')) {
        return Err(crate::Error::new(format!(
            "{where_} spec.version is {v} but --capi-version is {f}: the CoreProvider decides the core version; drop --capi-version or make them agree"
        )));
    }
    Ok(Some(v.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cr(version: &str) -> InputObject {
        InputObject {
            file: "core.yaml".into(),
            doc: 0,
            value: json!({"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": "CoreProvider",
                "metadata": {"name": "cluster-api"}, "spec": {"version": version}}),
        }
    }

    #[test]
    fn versions_from_v1_11_read_clusters_as_v1beta2() {
        assert!(
            is_v1beta2_core("v1.11.0") && is_v1beta2_core("v1.14.2") && is_v1beta2_core("2.0.0")
        );
        assert!(!is_v1beta2_core("v1.10.10") && !is_v1beta2_core("x"));
        assert_eq!(major_minor("v1.14.2-rc.1"), Some((1, 14)));
    }

    #[test]
    fn the_core_provider_decides_then_the_flag() {
        assert_eq!(
            core_version(&[cr("v1.10.10")], None).unwrap().as_deref(),
            Some("v1.10.10")
        );
        assert_eq!(
            core_version(&[], Some("v1.14.2")).unwrap().as_deref(),
            Some("v1.14.2")
        );
        assert_eq!(core_version(&[], None).unwrap(), None);
        assert_eq!(
            core_version(&[cr("v1.14.2")], Some("1.14.2"))
                .unwrap()
                .as_deref(),
            Some("v1.14.2")
        );
    }

    #[test]
    fn conflicts_and_bad_versions_name_the_file() {
        let m = core_version(&[cr("v1.10.10")], Some("v1.14.2"))
            .unwrap_err()
            .to_string();
        assert!(
            m.contains("core.yaml (document 1)") && m.contains("--capi-version is v1.14.2"),
            "{m}"
        );
        let m = core_version(&[cr("latest")], None).unwrap_err().to_string();
        assert!(m.contains("core.yaml") && m.contains("spec.version"), "{m}");
        assert!(core_version(&[], Some("main")).is_err());
    }
}
