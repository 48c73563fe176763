//! Which providers a bundle holds and their files: the provider CRs among the inputs
//! as [`crate::operator::resolve`] resolved them for the bundle's one render
//! (conversion, defaults, preflight, source selection, version, release read), plus
//! where a repository source keeps its version folder (for the repository subset).

use std::path::PathBuf;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::InputObject;
use crate::operator::api::ProviderCr;
use crate::operator::resolve::Resolution;
use crate::operator::source::Release;

/// One provider of the bundle, resolved.
#[derive(Debug, Clone)]
pub struct BundleProvider {
    pub cr: ProviderCr,
    /// The provider object as written in the inputs.
    pub object: Value,
    pub release: Release,
    /// The manifest label (`repository/<label>/<version>/` in the bundle).
    pub label: String,
    /// The components file name in the repository folder.
    pub components_file: String,
    /// The version folder when the source is a local repository.
    pub version_dir: Option<PathBuf>,
}

impl BundleProvider {
    /// `GetType()`.
    pub fn operator_type(&self) -> &'static str {
        self.cr.operator_type()
    }

    /// `<type>-<name>-<version>`: the ConfigMap name and the OCI layout folder.
    pub fn unit_name(&self) -> String {
        format!(
            "{}-{}-{}",
            self.operator_type(),
            self.cr.name,
            self.release.version
        )
    }

    /// `<type>-<name>`: the provider's file stem in `configmaps/` and `rendered/`.
    pub fn stem(&self) -> String {
        format!("{}-{}", self.operator_type(), self.cr.name)
    }
}

/// The bundle's view of every resolved provider (in resolution order), with the
/// provider object as written in the inputs.
pub fn bundle_providers(objects: &[InputObject], res: &Resolution) -> Vec<BundleProvider> {
    res.providers
        .iter()
        .map(|r| {
            let (components_file, version_dir) = match &r.repository {
                Some(f) => (f.components_file.clone(), Some(f.version_dir.clone())),
                None => (r.cr.ptype.default_components_file().to_string(), None),
            };
            let object = objects
                .iter()
                .find(|o| o.file == r.cr.origin.file && o.doc == r.cr.origin.doc)
                .map(|o| o.value.clone())
                .unwrap_or(Value::Null);
            BundleProvider {
                label: r.cr.manifest_label(),
                cr: r.cr.clone(),
                object,
                release: r.release.clone(),
                components_file,
                version_dir,
            }
        })
        .collect()
}

/// The repository files a bundle copies from a version folder: metadata, the
/// components file, cluster templates and ClusterClasses (sorted names).
pub fn repository_files(dir: &std::path::Path, components_file: &str) -> Result<Vec<String>> {
    let rd = std::fs::read_dir(dir)
        .map_err(|e| Error::new(format!("cannot list {}: {e}", dir.display())))?;
    let mut names = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| Error::new(format!("cannot list {}: {e}", dir.display())))?;
        if !entry.file_type().map(|t| t.is_file()).unwrap_or(false) {
            continue;
        }
        let n = entry.file_name().to_string_lossy().into_owned();
        if n == "metadata.yaml"
            || n == components_file
            || (n.ends_with(".yaml")
                && (n.starts_with("cluster-template") || n.starts_with("clusterclass")))
        {
            names.push(n);
        }
    }
    names.sort();
    Ok(names)
}
