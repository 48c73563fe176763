//! clusterctl local repositories (R3.1–R3.9): `{basepath}/{provider-label}/{version}/`.
//!
//! capi-render never contacts the network: a provider whose URL is a GitHub or
//! GitLab release is an error that says how to point it at a local folder.

pub mod fetch;
pub mod metadata;
pub mod versions;

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::provider::{Provider, ProviderType};

pub use metadata::Metadata;

/// The contract clusterctl v1.10.10 calls current (see [`crate::config::Clusterctl::contract`]
/// for the release a run follows).
pub const CURRENT_CONTRACT: &str = "v1beta1";

/// A provider's local repository.
#[derive(Debug, Clone)]
pub struct LocalRepository {
    pub provider: Provider,
    /// `{basepath}`.
    pub base: PathBuf,
    /// The provider's manifest label (the folder under `base`).
    pub label: String,
    /// The components file name (the last segment of the URL).
    pub components_file: String,
    /// The version in the URL, or the resolved `latest`.
    pub default_version: String,
    /// `overridesFolder`, if configured.
    pub overrides: Option<PathBuf>,
}

pub use crate::go::errors::go_os_error;

/// Refuse a file that a symbolic link leads outside `root` (the repository's base
/// folder, or the overrides folder; `what` says which): links inside it are followed,
/// as a render typed there follows them (SECURITY.md). A missing file passes: the read
/// reports it.
fn check_inside(root: &Path, file: &Path, what: &str) -> Result<()> {
    if crate::paths::resolves_inside(root, file) != Some(false) {
        return Ok(());
    }
    Err(Error::new(format!(
        "{}: a symbolic link leads outside the {what} {}; capi-render reads only files inside it",
        file.display(),
        root.display()
    ))
    .in_file(file.display())
    .with_hint(format!(
        "`readlink -f {}` shows where it leads: put that file in the {what} in place of the link",
        file.display()
    )))
}

/// The provider name a repository folder holds for type `t` (`infrastructure-docker` →
/// `docker`), None for another type's folder.
fn provider_name_of_label(label: &str, t: ProviderType) -> Option<String> {
    use ProviderType::*;
    let prefixes: &[(ProviderType, &str)] = &[
        (Bootstrap, "bootstrap-"),
        (ControlPlane, "control-plane-"),
        (Infrastructure, "infrastructure-"),
        (Ipam, "ipam-"),
        (RuntimeExtension, "runtime-extension-"),
        (Addon, "addon-"),
    ];
    let typed = prefixes
        .iter()
        .find(|(_, p)| label.starts_with(p) && label.len() > p.len());
    match (t, typed) {
        (Core, None) => Some(label.to_string()),
        (Core, Some(_)) => None,
        (_, Some((pt, p))) if *pt == t => Some(label[p.len()..].to_string()),
        _ => None,
    }
}

/// The path part of a provider URL, or the clusterctl error for other schemes (R3.1).
fn local_path(p: &Provider) -> Result<String> {
    let url = p.url.as_str();
    let wrap = |e: Error| {
        e.wrap("error creating the local filesystem repository client")
            .wrap(format!(
                "failed to get repository client for the {} with name {}",
                p.type_in_messages(),
                p.name
            ))
    };
    if let Some(rest) = url.strip_prefix("https://") {
        let host = rest.split('/').next().unwrap_or("");
        if host == "github.com" || host.starts_with("gitlab.") {
            return Err(Error::new(format!(
                "provider {} ({}) points at a remote release ({url}); capi-render works offline: \
                 use --repository DIR or a local `providers:` URL in the config file",
                p.name, p.ptype
            )));
        }
        return Err(Error::new(
            "invalid provider url. Only GitHub and GitLab are supported for \"https\" schema",
        ));
    }
    if let Some(rest) = url.strip_prefix("file://") {
        // file:///a/b → /a/b ; file://host/a → /a (the host is ignored, as url.Parse does)
        let path = match rest.find('/') {
            Some(i) => &rest[i..],
            None => "",
        };
        return Ok(path.to_string());
    }
    if let Some((scheme, _)) = url.split_once("://") {
        return Err(wrap(Error::new(format!(
            "invalid provider url. there are no provider implementation for \"{scheme}\" schema"
        ))));
    }
    Ok(url.to_string())
}

impl LocalRepository {
    /// R3.2: build the repository from the provider's URL.
    pub fn new(p: &Provider, config: &Config) -> Result<LocalRepository> {
        let wrap = |e: Error| {
            e.wrap("error creating the local filesystem repository client")
                .wrap(format!(
                    "failed to get repository client for the {} with name {}",
                    p.type_in_messages(),
                    p.name
                ))
        };
        let path = local_path(p)?;
        if !path.starts_with('/') {
            return Err(wrap(Error::new(format!(
                "invalid path: path {:?} must be an absolute path",
                p.url
            ))));
        }
        let parts: Vec<&str> = path.split('/').collect();
        if parts.len() < 3 {
            return Err(wrap(Error::new(
                "invalid path: path should be in the form {basepath}/{provider-name}/{version}/{components.yaml}",
            )));
        }
        let n = parts.len();
        let file = parts[n - 1];
        let version = parts[n - 2];
        if version != "latest" && crate::version::Version::parse(version).is_err() {
            return Err(wrap(Error::new(format!(
                "invalid version: {version:?}. Version must obey the syntax and semantics of the \"Semantic Versioning\" specification (http://semver.org/) and path format {{basepath}}/{{provider-name}}/{{version}}/{{components.yaml}}"
            ))));
        }
        let label = p.manifest_label();
        if parts[n - 3] != label {
            return Err(wrap(Error::new(format!(
                "invalid path: path {:?} must contain provider {:?} in the format {{basepath}}/{{provider-label}}/{{version}}/{{components.yaml}}",
                p.url, label
            ))));
        }
        let base_str = parts[..n - 3].join("/");
        let base = PathBuf::from(if base_str.is_empty() {
            "/".to_string()
        } else {
            base_str
        });
        let mut repo = LocalRepository {
            provider: p.clone(),
            base,
            label,
            components_file: file.to_string(),
            default_version: version.to_string(),
            overrides: config.overrides_folder(),
        };
        if version == "latest" {
            repo.default_version = repo
                .latest_contract_release(config.clusterctl.contract())
                .map_err(|e| wrap(e.wrap("failed to get latest version")))?;
        }
        Ok(repo)
    }

    /// The folder of the provider (`{basepath}/{label}`).
    pub fn provider_dir(&self) -> PathBuf {
        self.base.join(&self.label)
    }

    /// R3.3 `GetFile(version, file)`, returning the bytes as text and the path read.
    pub fn get_file(&self, version: &str, file: &str) -> Result<(String, PathBuf)> {
        let version = match version {
            "latest" => self
                .latest_release()
                .map_err(|e| e.wrap("failed to get the latest release"))?,
            "" => self.default_version.clone(),
            v => v.to_string(),
        };
        let abs = self.provider_dir().join(&version).join(file);
        if abs.is_dir() {
            return Err(Error::new(format!(
                "invalid path: file {file:?} is actually a directory {:?}",
                abs.display().to_string()
            )));
        }
        check_inside(&self.base, &abs, "repository")?;
        let shown = abs.display().to_string();
        let bytes = crate::limits::read_file(&abs, &shown, |e| {
            let err = Error::new(format!(
                "failed to read file {:?} from local release {version}: {}",
                abs.display().to_string(),
                go_os_error("stat", &abs, &e)
            ));
            match self.missing_hint(&version) {
                Some(h) => err.with_hint(h),
                None => err,
            }
        })?;
        let text = String::from_utf8(bytes).map_err(|_| {
            Error::new(format!(
                "file {:?} is not valid UTF-8",
                abs.display().to_string()
            ))
        })?;
        Ok((text, abs))
    }

    /// What to do when a file of `version` is missing: when the provider's folder is
    /// missing, the providers of its type the repository has (with the closest name);
    /// when the version's folder is missing, the versions there. None when both exist.
    pub fn missing_hint(&self, version: &str) -> Option<String> {
        let dir = self.provider_dir();
        if !dir.is_dir() {
            return Some(self.providers_hint());
        }
        if dir.join(version).is_dir() {
            return None;
        }
        let mut versions = self.versions().unwrap_or_default();
        // Oldest first, as release numbers order (v1.9.11 before v1.10.10).
        versions.sort_by_cached_key(|v| {
            let sv = semver::Version::parse(v.trim_start_matches('v')).ok();
            (sv.is_none(), sv, v.clone())
        });
        Some(format!(
            "{} has no version {version}; {}",
            self.label,
            crate::suggest::did_you_mean_version(version, &versions)
        ))
    }

    /// The providers of this provider's type in the repository's base folder, with the
    /// closest to this one's name.
    pub fn providers_hint(&self) -> String {
        let t = self.provider.ptype;
        let mut names: Vec<String> = std::fs::read_dir(&self.base)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().is_dir())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter_map(|label| provider_name_of_label(&label, t))
            .collect();
        names.sort();
        format!(
            "no folder {:?} in {}; {}",
            self.label,
            self.base.display(),
            crate::suggest::did_you_mean(&self.provider.name, &format!("{t}s"), &names)
        )
    }

    /// Read a file, honouring the overrides folder (R3.9). `version` is the
    /// unresolved string (`""` and `latest` are used literally for the override path).
    pub fn read_with_override(&self, version: &str, file: &str) -> Result<(String, PathBuf)> {
        if let Some(dir) = &self.overrides {
            let p = dir.join(&self.label).join(version).join(file);
            check_inside(dir, &p, "overrides folder")?;
            let shown = p.display().to_string();
            let mut missing = false;
            match crate::limits::read_text(&p, &shown, |e| {
                missing = e.kind() == std::io::ErrorKind::NotFound;
                Error::new(go_os_error("open", &p, &e))
            }) {
                Ok(t) => return Ok((t, p)),
                Err(_) if missing => {}
                Err(e) => return Err(e),
            }
        }
        self.get_file(version, file)
    }

    /// The metadata of `version` (R3.7).
    pub fn metadata(&self, version: &str) -> Result<Metadata> {
        let (text, _) = self
            .read_with_override(version, "metadata.yaml")
            .map_err(|e| {
                e.wrap(format!(
                    "failed to read \"metadata.yaml\" from the repository for provider \"{}\"",
                    self.label
                ))
            })?;
        Metadata::parse(&text).map_err(|e| {
            e.wrap(format!(
                "error decoding \"metadata.yaml\" for provider \"{}\"",
                self.label
            ))
        })
    }
}
