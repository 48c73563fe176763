//! The provider components pipeline, in clusterctl's exact order (R7.1, R7.2):
//! discover variables → substitute → parse → image overrides (+ typed round trip)
//! → image list → default target namespace → add Namespace → fix target namespace
//! → common labels → final order.

pub mod filters;

use serde_json::Value;

use crate::config::Config;
use crate::envsubst::processor;
use crate::error::{Error, Result};
use crate::provider::Provider;
use crate::repository::LocalRepository;

use filters::add_namespace::{add_namespace_if_missing, default_target_namespace};
use filters::common_labels::add_common_labels;
use filters::fix_images::{fix_images, inspect_images};
use filters::order::order_objects;
use filters::target_namespace::fix_target_namespace;

/// Options of one components render.
#[derive(Debug, Clone, Default)]
pub struct ComponentsOptions {
    /// The version folder; "" means the repository's default version.
    pub version: String,
    /// The target namespace; "" means the components' own Namespace.
    pub target_namespace: String,
    /// `--raw`/`--describe`/list-images: discover variables but do not substitute.
    pub skip_template_process: bool,
}

/// Rendered provider components.
#[derive(Debug, Clone)]
pub struct Components {
    pub provider: Provider,
    pub version: String,
    /// Variable names, sorted.
    pub variables: Vec<String>,
    /// Images after overrides, in object order, duplicates kept.
    pub images: Vec<String>,
    /// Each Deployment and DaemonSet container image as written and after the image
    /// overrides, in object order (containers, then init containers).
    pub image_moves: Vec<(String, String)>,
    pub target_namespace: String,
    pub objs: Vec<Value>,
    /// The file the raw components came from.
    pub source: std::path::PathBuf,
}

impl Components {
    /// `Yaml()`: the objects joined as clusterctl joins them (no final newline).
    pub fn yaml(&self) -> String {
        crate::yaml::from_objects(&self.objs)
    }
}

/// Read the components file of `repo` at `opts.version` (R7.1).
pub fn fetch(
    repo: &LocalRepository,
    version: &str,
) -> Result<(String, String, std::path::PathBuf)> {
    let version = if version.is_empty() {
        repo.default_version.clone()
    } else {
        version.to_string()
    };
    let (text, path) = repo
        .read_with_override(&version, &repo.components_file)
        .map_err(|e| {
            e.wrap(format!(
                "failed to read {:?} from provider's repository {:?}",
                repo.components_file, repo.label
            ))
        })?;
    Ok((version, text, path))
}

/// Fetch and render a provider's components.
pub fn get(
    repo: &LocalRepository,
    opts: &ComponentsOptions,
    config: &Config,
) -> Result<Components> {
    let (version, raw, source) = fetch(repo, &opts.version)?;
    let mut c =
        render(&repo.provider, &raw, opts, config).map_err(|e| e.in_file(source.display()))?;
    c.version = version;
    c.source = source;
    Ok(c)
}

/// R7.2 on raw components text.
pub fn render(
    provider: &Provider,
    raw: &str,
    opts: &ComponentsOptions,
    config: &Config,
) -> Result<Components> {
    // One parse of the text for its variables and its substitution.
    let prepared = processor::Prepared::new(raw)?;
    let variables = prepared.variables();
    let processed = if opts.skip_template_process {
        raw.to_string()
    } else {
        prepared
            .process(&|k: &str| config.get(k))
            .map_err(|e| e.wrap("failed to perform variable substitution"))?
    };
    drop(prepared);
    let mut objs =
        crate::yaml::parse_documents(&processed).map_err(|e| e.wrap("failed to parse yaml"))?;
    let label = provider.manifest_label();
    let k8s = config.k8s();
    let image_moves = fix_images(&mut objs, config.images.as_ref(), &label, k8s)
        .map_err(|e| e.wrap("failed to apply image overrides"))?;
    let images = inspect_images(&objs);
    let default_ns = default_target_namespace(&objs)
        .map_err(|e| e.wrap("failed to detect default target namespace"))?;
    let target = if opts.target_namespace.is_empty() {
        default_ns
    } else {
        opts.target_namespace.clone()
    };
    if target.is_empty() {
        return Err(Error::new(
            "target namespace can't be defaulted. Please specify a target namespace",
        ));
    }
    add_namespace_if_missing(&mut objs, &target, config.clusterctl);
    fix_target_namespace(&mut objs, &target, k8s)
        .map_err(|e| e.wrap("failed to set the TargetNamespace on the components"))?;
    add_common_labels(&mut objs, &label);
    let objs = order_objects(objs);
    Ok(Components {
        provider: provider.clone(),
        version: opts.version.clone(),
        variables,
        images,
        image_moves,
        target_namespace: target,
        objs,
        source: Default::default(),
    })
}
