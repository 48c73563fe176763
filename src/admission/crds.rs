//! The Cluster and ClusterClass CRDs admission checks against: those of the core provider
//! the tree installs (or the repository's newest core release), else Cluster API
//! v1.14.2's, built into the binary (`crds-v1.14.2.yaml`: the release's documents
//! verbatim, written by `conformance/regen-admission-crds.sh`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::Value;

use crate::topology::variables::schema::Schema;

/// The release whose CRDs are built in.
pub const BUILT_IN_RELEASE: &str = "v1.14.2";
const BUILT_IN: &str = include_str!("crds-v1.14.2.yaml");

/// The core group.
pub const GROUP: &str = "cluster.x-k8s.io";

/// One served version of a core CRD: its schema, parsed and as written (list types are
/// read from the latter).
#[derive(Debug)]
pub struct VersionSchema {
    pub schema: Schema,
    pub raw: Value,
}

/// The schemas of `Cluster` and `ClusterClass` by `(version, kind)`, and where they came
/// from (shown in errors).
#[derive(Debug, Default)]
pub struct CoreCrds {
    versions: BTreeMap<(String, String), VersionSchema>,
    pub source: String,
}

fn s<'a>(v: &'a Value, p: &str) -> &'a str {
    v.pointer(p).and_then(Value::as_str).unwrap_or("")
}

impl CoreCrds {
    /// The Cluster and ClusterClass CRDs among `objects` (other objects skipped; a version
    /// whose schema does not parse is left out).
    pub fn from_objects<'a>(
        objects: impl IntoIterator<Item = &'a Value>,
        source: &str,
    ) -> CoreCrds {
        let mut out = CoreCrds {
            source: source.to_string(),
            ..CoreCrds::default()
        };
        for o in objects {
            let kind = s(o, "/spec/names/kind");
            if s(o, "/kind") != "CustomResourceDefinition"
                || s(o, "/spec/group") != GROUP
                || !matches!(kind, "Cluster" | "ClusterClass")
            {
                continue;
            }
            for v in o
                .pointer("/spec/versions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if v.get("served").and_then(Value::as_bool) == Some(false) {
                    continue;
                }
                let Some(raw) = v.pointer("/schema/openAPIV3Schema") else {
                    continue;
                };
                if let Ok(schema) = Schema::from_crd_value(raw, "openAPIV3Schema") {
                    let key = (s(v, "/name").to_string(), kind.to_string());
                    out.versions.insert(
                        key,
                        VersionSchema {
                            schema,
                            raw: raw.clone(),
                        },
                    );
                }
            }
        }
        out
    }

    /// Cluster API v1.14.2's, built in.
    pub fn built_in() -> &'static CoreCrds {
        static CRDS: OnceLock<CoreCrds> = OnceLock::new();
        CRDS.get_or_init(|| {
            let docs = crate::yaml::read::parse_documents(BUILT_IN).unwrap_or_default();
            CoreCrds::from_objects(
                &docs,
                &format!("Cluster API {BUILT_IN_RELEASE}'s CRDs (built in)"),
            )
        })
    }

    /// The schema of `kind` at `version` (`v1beta1`, `v1beta2`).
    pub fn get(&self, version: &str, kind: &str) -> Option<&VersionSchema> {
        self.versions.get(&(version.to_string(), kind.to_string()))
    }

    /// Whether both kinds are served at `version`.
    pub fn serves(&self, version: &str) -> bool {
        self.get(version, "Cluster").is_some() && self.get(version, "ClusterClass").is_some()
    }
}

/// The CRDs to check objects of `version` against: `installed` when it serves that
/// version, else the built-in ones.
pub fn for_version<'a>(installed: Option<&'a CoreCrds>, version: &str) -> &'a CoreCrds {
    match installed {
        Some(c) if c.serves(version) => c,
        _ => CoreCrds::built_in(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_serves_both_versions_of_both_kinds() {
        let c = CoreCrds::built_in();
        for v in ["v1beta1", "v1beta2"] {
            assert!(c.serves(v), "{v}");
        }
        let cc = c.get("v1beta2", "ClusterClass").unwrap();
        // The v1beta2 variable requires `required` (v1beta1's did not).
        let var = &cc.schema.properties["spec"].properties["variables"]
            .items
            .as_ref()
            .unwrap();
        assert_eq!(var.required, vec!["name", "required", "schema"]);
    }

    #[test]
    fn built_in_is_the_release_verbatim() {
        let root = std::env::var("CAPI_CORPUS").unwrap_or_else(|_| "../shared/corpus".into());
        let path = format!("{root}/repository/cluster-api/{BUILT_IN_RELEASE}/core-components.yaml");
        let Ok(release) = std::fs::read_to_string(&path) else {
            eprintln!("skipped: no corpus at {path}");
            return;
        };
        let docs: Vec<&str> = BUILT_IN.split("\n---\n").collect();
        assert_eq!(docs.len(), 2);
        for d in docs {
            assert!(
                release.contains(d.trim_end()),
                "a built-in CRD is not in {path}"
            );
        }
    }

    #[test]
    fn installed_crds_win_when_they_serve_the_version() {
        let crd = |versions: Value| {
            serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "spec": {"group": GROUP, "names": {"kind": "Cluster"}, "versions": versions}})
        };
        let v = serde_json::json!([{"name": "v1beta1", "served": true,
            "schema": {"openAPIV3Schema": {"type": "object"}}}]);
        let mut both = vec![crd(v.clone())];
        both.push(serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "spec": {"group": GROUP, "names": {"kind": "ClusterClass"}, "versions": v}}));
        let installed = CoreCrds::from_objects(&both, "installed");
        assert_eq!(for_version(Some(&installed), "v1beta1").source, "installed");
        // A v1.10 core serves no v1beta2: the built-in ones check v1beta2 objects.
        assert!(for_version(Some(&installed), "v1beta2")
            .source
            .contains("built in"));
    }
}
