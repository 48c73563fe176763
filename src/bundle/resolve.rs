//! Which providers a bundle holds and where their files are: the provider CRs among
//! the inputs, each resolved to one version folder of a local clusterctl repository
//! (`--repository DIR`, or the `providers:` URL of `--config`), as `render` resolves
//! repository sources (operator.md §4.1/§4.4 offline note: the local repository
//! stands for the release the operator would download).
//!
//! Interim: the operator branch's loader/resolver (`operator::source`) replaces
//! the CR reading here once merged; the [`BundleProvider`] shape stays.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::provider::{Provider, ProviderType};
use crate::repository::LocalRepository;

/// The operator API groups whose provider kinds a bundle reads.
const GROUPS: [&str; 2] = ["operator.cluster.x-k8s.io/", "management.cluster.x-k8s.io/"];

/// One input document.
#[derive(Debug, Clone)]
pub struct InputDoc {
    pub file: String,
    /// 0-based document index.
    pub doc: usize,
    pub value: Value,
}

impl InputDoc {
    fn at(&self) -> String {
        format!("{}, document {}", self.file, self.doc + 1)
    }
}

/// One provider of the bundle, resolved.
#[derive(Debug, Clone)]
pub struct BundleProvider {
    /// The provider CR as read.
    pub cr: InputDoc,
    pub ptype: ProviderType,
    pub name: String,
    pub namespace: String,
    pub version: String,
    /// The clusterctl provider (name, type, URL) the repository was built from.
    pub provider: Provider,
    /// `<base>/<manifest-label>/<version>`.
    pub version_dir: PathBuf,
    /// The manifest label (`repository/<label>/<version>/` in the bundle).
    pub label: String,
    /// The components file name (`<type>-components.yaml` or the URL's last segment).
    pub components_file: String,
    pub metadata: String,
    pub components: String,
}

/// The provider kind of an object, if it is a provider CR of an operator group.
pub fn provider_kind(v: &Value) -> Option<ProviderType> {
    let api = v.get("apiVersion").and_then(Value::as_str)?;
    if !GROUPS.iter().any(|g| api.starts_with(g)) {
        return None;
    }
    match v.get("kind").and_then(Value::as_str)? {
        "CoreProvider" => Some(ProviderType::Core),
        "BootstrapProvider" => Some(ProviderType::Bootstrap),
        "ControlPlaneProvider" => Some(ProviderType::ControlPlane),
        "InfrastructureProvider" => Some(ProviderType::Infrastructure),
        "AddonProvider" => Some(ProviderType::Addon),
        "IPAMProvider" => Some(ProviderType::Ipam),
        "RuntimeExtensionProvider" => Some(ProviderType::RuntimeExtension),
        _ => None,
    }
}

/// Every YAML document of `paths` (files as given, directories walked for
/// `*.yaml`/`*.yml` in sorted order).
pub fn load_docs(paths: &[PathBuf]) -> Result<Vec<InputDoc>> {
    let mut files = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p)
            .map_err(|e| Error::new(format!("cannot read input {}: {e}", p.display())))?;
        if meta.is_dir() {
            for entry in walkdir::WalkDir::new(p).sort_by_file_name() {
                let entry = entry.map_err(|e| {
                    Error::new(format!("cannot walk input directory {}: {e}", p.display()))
                })?;
                let yaml = matches!(
                    entry.path().extension().and_then(|e| e.to_str()),
                    Some("yaml") | Some("yml")
                );
                if entry.file_type().is_file() && yaml {
                    files.push(entry.into_path());
                }
            }
        } else {
            files.push(p.clone());
        }
    }
    let mut out = Vec::new();
    for f in files {
        let shown = f.display().to_string();
        let text = std::fs::read_to_string(&f)
            .map_err(|e| Error::new(format!("cannot read input {shown}: {e}")))?;
        let docs = crate::yaml::parse_documents(&text).map_err(|e| e.in_file(&shown))?;
        out.extend(docs.into_iter().enumerate().map(|(doc, value)| InputDoc {
            file: shown.clone(),
            doc,
            value,
        }));
    }
    Ok(out)
}

fn field<'a>(d: &'a InputDoc, path: &str, what: &str) -> Result<&'a str> {
    match d.value.pointer(path) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.as_str()),
        None | Some(Value::Null) => Err(Error::new(format!("{}: {what} is required", d.at()))),
        Some(_) => Err(Error::new(format!("{}: {what} must be a non-empty string", d.at()))),
    }
    .map_err(|e| e.in_file(&d.file))
}

/// Resolve one provider CR against the repository configuration.
pub fn resolve(d: &InputDoc, ptype: ProviderType, config: &Config) -> Result<BundleProvider> {
    let name = field(d, "/metadata/name", "metadata.name")?.to_string();
    let namespace = field(d, "/metadata/namespace", "metadata.namespace")?.to_string();
    let version = field(d, "/spec/version", "spec.version (a bundle pins versions)")?.to_string();
    let wrap = |e: Error| {
        e.wrap(format!(
            "{} ({}/{}, {})",
            ptype.as_str(),
            namespace,
            name,
            d.at()
        ))
        .in_file(&d.file)
    };
    if crate::version::Version::parse(&version).is_err() {
        return Err(wrap(Error::new(format!(
            "could not parse {version:?} as version"
        ))));
    }
    if let Some(fc) = d.value.pointer("/spec/fetchConfig").filter(|v| !v.is_null()) {
        for k in ["selector", "oci"] {
            if fc.get(k).is_some_and(|v| !v.is_null()) {
                return Err(wrap(Error::new(format!(
                    "spec.fetchConfig.{k} already points at an installable source; bundle providers that resolve to a local repository"
                ))));
            }
        }
    }
    let provider = config.provider(&name, ptype).map_err(wrap)?;
    let repo = LocalRepository::new(&provider, config).map_err(wrap)?;
    let version_dir = repo.provider_dir().join(&version);
    let read = |file: &str| {
        repo.get_file(&version, file)
            .map(|(t, _)| t)
            .map_err(|e| wrap(e.in_file(version_dir.join(file).display())))
    };
    let metadata = read("metadata.yaml")?;
    let components = read(&repo.components_file)?;
    Ok(BundleProvider {
        cr: d.clone(),
        ptype,
        name,
        namespace,
        version,
        provider,
        version_dir,
        label: repo.label.clone(),
        components_file: repo.components_file.clone(),
        metadata,
        components,
    })
}

/// Every provider CR of `docs`, resolved, core first then by type, namespace, name.
/// The same provider twice is an error (the operator allows one per kind and name).
pub fn resolve_all(docs: &[InputDoc], config: &Config) -> Result<Vec<BundleProvider>> {
    let mut out: Vec<BundleProvider> = Vec::new();
    for d in docs {
        let Some(t) = provider_kind(&d.value) else {
            continue;
        };
        let p = resolve(d, t, config)?;
        if let Some(o) = out.iter().find(|o| o.ptype == p.ptype && o.name == p.name) {
            return Err(Error::new(format!(
                "{}, document {}: {} {} is already defined in {}, document {}",
                d.file,
                d.doc + 1,
                t.as_str(),
                p.name,
                o.cr.file,
                o.cr.doc + 1
            ))
            .in_file(&d.file));
        }
        out.push(p);
    }
    if out.is_empty() {
        return Err(Error::new(
            "no provider custom resources (operator.cluster.x-k8s.io) found in the inputs",
        ));
    }
    out.sort_by(|a, b| {
        (a.ptype.order(), &a.namespace, &a.name).cmp(&(b.ptype.order(), &b.namespace, &b.name))
    });
    Ok(out)
}

/// The repository files a bundle copies from a version folder: metadata, the
/// components file, cluster templates and ClusterClasses (sorted names).
pub fn repository_files(dir: &Path, components_file: &str) -> Result<Vec<String>> {
    let rd = std::fs::read_dir(dir)
        .map_err(|e| Error::new(format!("cannot list {}: {e}", dir.display())))?;
    let mut names = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| Error::new(format!("cannot list {}: {e}", dir.display())))?;
        if !entry.file_type().map(|t| t.is_file()).unwrap_or(false) {
            continue;
        }
        let n = entry.file_name().to_string_lossy().into_owned();
        let yaml = n.ends_with(".yaml");
        if n == "metadata.yaml"
            || n == components_file
            || (yaml && (n.starts_with("cluster-template") || n.starts_with("clusterclass")))
        {
            names.push(n);
        }
    }
    names.sort();
    Ok(names)
}
