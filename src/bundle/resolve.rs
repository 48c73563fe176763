//! Which providers a bundle holds and their files: the provider CRs among the
//! inputs, resolved by the operator pipeline exactly as `render` resolves them
//! (conversion, defaults, preflight, source selection, version, release read), plus
//! where a repository source keeps its version folder (for the repository subset).

use std::path::PathBuf;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::{InputObject, RenderOptions};
use crate::operator::api::ProviderCr;
use crate::operator::source::{self, Release, Source, SourceContext};
use crate::operator::{self, preflight};

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

/// Resolve every provider CR of `objects` (core first, then type, namespace, name).
pub fn resolve_all(objects: &[InputObject], opts: &RenderOptions) -> Result<Vec<BundleProvider>> {
    let provs = operator::providers(objects)?;
    if provs.is_empty() {
        return Err(Error::new(
            "no provider objects (operator.cluster.x-k8s.io CoreProvider, InfrastructureProvider, ...) among the inputs",
        ));
    }
    let cfg = operator::operator_config(opts)?;
    preflight::check_all(&provs, objects, &cfg)?;
    let ctx = SourceContext {
        objects,
        config: &cfg,
        repository_shown: opts.repository.as_deref(),
        oci_layout: opts.oci_layout.as_deref(),
    };
    let mut out = Vec::new();
    for p in provs {
        let src = source::source_for(&p, &ctx)?;
        let version = if p.version().is_empty() {
            src.default_version().map_err(|e| p.error(e))?.0
        } else {
            p.version().to_string()
        };
        let release = src.read(&p, &version, &ctx).map_err(|e| p.error(e))?;
        let (components_file, version_dir) = match &src {
            Source::Repository { repo, .. } => (
                repo.components_file.clone(),
                Some(repo.provider_dir().join(&release.version)),
            ),
            _ => (p.ptype.default_components_file().to_string(), None),
        };
        let object = objects
            .iter()
            .find(|o| o.file == p.origin.file && o.doc == p.origin.doc)
            .map(|o| o.value.clone())
            .unwrap_or(Value::Null);
        out.push(BundleProvider {
            label: p.manifest_label(),
            cr: p,
            object,
            release,
            components_file,
            version_dir,
        });
    }
    Ok(out)
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
