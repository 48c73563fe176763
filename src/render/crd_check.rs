//! `render`'s inputs checked against the CRDs its providers install ([`crate::validate`]),
//! and, for a kind no installed provider defines, against the CRDs of the newest release
//! of every provider in `--repository` (a template of a provider another tree installs).

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::Inputs;
use crate::model::{InputObject, RenderedUnit};

/// Groups whose objects `render` consumes rather than applies (provider CRs, clusterctl's
/// own kinds): never checked, never warned about.
const CONSUMED_GROUPS: &[&str] = &[
    "operator.cluster.x-k8s.io",
    "management.cluster.x-k8s.io",
    "clusterctl.cluster.x-k8s.io",
];

/// The input objects checked against the CRDs the rendered providers install, and those
/// of the repository's releases for the kinds they lack ([`crate::validate`]): every
/// problem is an error (all of them in one); a kind with no CRD anywhere is a warning
/// naming it (once per kind), unless there is no CRD to check against at all. A
/// deferred file's Clusters (unchanged since the last run)
/// are not read again. Nothing with `--no-validate` (`off`).
pub(super) fn validate_inputs(
    inputs: &Inputs,
    providers: &[RenderedUnit],
    repository: Option<&Path>,
    off: bool,
    v1beta2_core: bool,
) -> crate::Result<Vec<String>> {
    if off {
        return Ok(Vec::new());
    }
    let mut index =
        crate::validate::CrdIndex::from_objects(providers.iter().flat_map(|u| &u.objects));
    use crate::model::object::{api_version, group_of, kind};
    // v1beta2 Clusters and ClusterClasses (and v1beta1 ones under a v1.11+ core) went
    // through admission (`super::admission`).
    let admitted = |v: &Value| {
        use crate::topology::{input, v1beta2};
        v1beta2::is_cluster(v)
            || v1beta2::is_cluster_class(v)
            || (v1beta2_core && (input::is_cluster(v) || input::is_cluster_class(v)))
    };
    let checked = |v: &Value| !CONSUMED_GROUPS.contains(&group_of(api_version(v))) && !admitted(v);
    let missing: BTreeSet<(String, String)> = inputs
        .objects
        .iter()
        .map(|o| &o.value)
        .filter(|v| checked(v))
        .filter_map(|v| {
            let (group, kind) = (group_of(api_version(v)), kind(v));
            (group.contains('.') && !index.served_kind(group, kind))
                .then(|| (group.to_string(), kind.to_string()))
        })
        .collect();
    let mut missing = missing;
    if !inputs.clusters.is_empty() && !index.served_kind("cluster.x-k8s.io", "Cluster") {
        missing.insert(("cluster.x-k8s.io".into(), "Cluster".into()));
    }
    if let (false, Some(dir)) = (missing.is_empty(), repository) {
        for crd in repository_crds(dir)? {
            let g = crd
                .pointer("/spec/group")
                .and_then(Value::as_str)
                .unwrap_or("");
            let k = crd
                .pointer("/spec/names/kind")
                .and_then(Value::as_str)
                .unwrap_or("");
            if missing.contains(&(g.to_string(), k.to_string())) {
                index.add(&crd);
            }
        }
    }
    // One topology Cluster decoded at a time: a fleet's Clusters stay compact.
    let clusters = inputs.clusters.iter().filter_map(|c| {
        c.value
            .as_ref()
            .map(|v| v.decode())
            .filter(|v| !admitted(v))
            .map(|value| InputObject {
                file: c.file.to_string(),
                doc: c.doc,
                value,
            })
    });
    let objects = inputs
        .objects
        .iter()
        .filter(|o| checked(&o.value))
        .map(Cow::Borrowed);
    // With no CRD to check against at all (no provider among the inputs, no
    // repository: a `diff` of Clusters and classes), nothing can be validated and
    // every kind would be named; say nothing, as for `--no-validate`.
    let sources = !index.is_empty() || repository.is_some();
    let (errors, warnings) =
        crate::validate::check_objects(objects.chain(clusters.map(Cow::Owned)), &index);
    if errors.is_empty() {
        return Ok(if sources { warnings } else { Vec::new() });
    }
    Err(crate::Error::new(format!(
        "{} problem(s) against the CRDs the tree installs (the API server would refuse these objects on apply):\n{}",
        errors.len(),
        errors.join("\n")
    ))
    .with_hint("fix each field named above; or pass --no-validate to skip this check"))
}

/// The CRDs of the newest release (by semver) of every provider directory in the
/// clusterctl repository `dir` (`DIR/<label>/<version>/*components.yaml`), each file
/// read within the run's limits. A directory that is no release is skipped.
pub(super) fn repository_crds(dir: &Path) -> crate::Result<Vec<Value>> {
    let mut out = Vec::new();
    let Ok(labels) = std::fs::read_dir(dir) else {
        return Ok(out);
    };
    let mut labels: Vec<_> = labels.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    labels.sort();
    let limit = crate::limits::Limits::current().file_bytes;
    for label in labels.iter().filter(|p| p.is_dir()) {
        let Some(newest) = newest_release(label) else {
            continue;
        };
        let Ok(files) = std::fs::read_dir(&newest) else {
            continue;
        };
        let mut files: Vec<_> = files
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with("components.yaml"))
            })
            .collect();
        files.sort();
        for f in files {
            let shown = f.display().to_string();
            let Some(text) = crate::limits::read_text_within(&f, &shown, limit, |e| {
                crate::Error::new(format!("failed to read {shown}: {e}"))
            })?
            else {
                continue;
            };
            // Components hold `${VAR}`s; a CRD's schema does not, and a file that does
            // not parse is simply not used.
            if let Ok(docs) = crate::yaml::read::parse_documents(&text) {
                out.extend(docs.into_iter().filter(|d| {
                    d.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
                }));
            }
        }
    }
    Ok(out)
}

/// The version directory of `label` with the highest semantic version.
fn newest_release(label: &Path) -> Option<std::path::PathBuf> {
    let entries = std::fs::read_dir(label).ok()?;
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let v = semver::Version::parse(name.strip_prefix('v')?).ok()?;
            e.path().is_dir().then_some((v, e.path()))
        })
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, p)| p)
}
