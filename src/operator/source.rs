//! Where a provider's `metadata.yaml` and components come from, offline
//! (operator.md §4.1): ConfigMaps among the inputs (`fetchConfig.selector`, or the
//! operator's own stored ConfigMap, R4.1.2), a local clusterctl repository standing
//! for `fetchConfig.url` and the built-in provider list (R4.4), or an OCI image
//! layout on disk for `fetchConfig.oci` (R4.5).

use crate::model::pointer::Pointer as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::api::ProviderCr;
use super::configmap::{self, LabelSelector};
use super::oci;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::model::{InputFile, InputObject};
use crate::provider::Provider;
use crate::repository::LocalRepository;
use crate::version::Version;

/// What the source lookups need besides the provider.
pub struct SourceContext<'a> {
    pub objects: &'a [InputObject],
    /// The clusterctl config (`--config`, no environment) with `--repository` set.
    pub config: &'a Config,
    /// `--repository DIR` as given (for messages and provenance).
    pub repository_shown: Option<&'a Path>,
    /// `--oci-layout DIR`.
    pub oci_layout: Option<&'a Path>,
}

impl<'a> SourceContext<'a> {
    /// The context of a run: its objects, the operator's clusterctl config and the
    /// `--repository` / `--oci-layout` options.
    pub fn new(
        objects: &'a [InputObject],
        config: &'a Config,
        opts: &'a crate::model::RenderOptions,
    ) -> Self {
        SourceContext {
            objects,
            config,
            repository_shown: opts.repository.as_deref(),
            oci_layout: opts.oci_layout.as_deref(),
        }
    }
}

/// A resolved source of one provider.
pub enum Source<'a> {
    /// Provider ConfigMaps (exactly one after R4.3.8), with the selector used.
    ConfigMaps {
        selector: LabelSelector,
        maps: Vec<&'a InputObject>,
    },
    /// A local clusterctl repository folder.
    Repository {
        repo: LocalRepository,
        /// The version named in the URL (`None` for `latest`).
        url_version: Option<String>,
    },
    /// An OCI image layout on disk.
    Oci {
        layout: PathBuf,
        reference: String,
        tag: Option<String>,
    },
}

/// One release read from a source.
#[derive(Debug, Clone)]
pub struct Release {
    pub version: String,
    pub metadata: String,
    pub components: String,
    /// Provenance for `ProviderInfo.source`.
    pub source: String,
    /// Files read outside the input set (repository / OCI blobs), for the lock.
    pub files: Vec<InputFile>,
}

/// The `v1` ConfigMaps of namespace `ns` among the inputs, in input order.
pub(super) fn configmaps_in<'a>(objects: &'a [InputObject], ns: &str) -> Vec<&'a InputObject> {
    objects
        .iter()
        .filter(|o| {
            o.value.get("kind").and_then(Value::as_str) == Some("ConfigMap")
                && o.value.get("apiVersion").and_then(Value::as_str) == Some("v1")
                && o.value.ptr("/metadata/namespace").and_then(Value::as_str) == Some(ns)
        })
        .collect()
}

fn describe_all(maps: &[&InputObject]) -> String {
    maps.iter()
        .map(|o| super::api::describe_object(o))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The repository URL segments `(version, file)` of a GitHub/GitLab release URL.
fn url_parts(url: &str) -> (Option<String>, Option<String>) {
    let path = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).skip(1).collect();
    let file = segs
        .last()
        .filter(|s| s.ends_with(".yaml") || s.ends_with(".yml"))
        .map(|s| s.to_string());
    let dir_segs: &[&str] = if file.is_some() {
        &segs[..segs.len() - 1]
    } else {
        &segs
    };
    let version = dir_segs
        .iter()
        .rev()
        .find(|s| **s == "latest" || Version::parse(s).is_ok())
        .filter(|s| **s != "latest")
        .map(|s| s.to_string());
    (version, file)
}

/// R4.4.1: only https GitHub/GitLab release URLs are valid `fetchConfig.url`s.
fn check_url(url: &str) -> Result<()> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(Error::new(
            "invalid provider url. there are no provider implementation for \"\" schema",
        ));
    };
    if scheme != "https" {
        return Err(Error::new(format!(
            "invalid provider url. there are no provider implementation for \"{scheme}\" schema"
        )));
    }
    let host = rest.split('/').next().unwrap_or("");
    let path = &rest[host.len()..];
    let gitlab = host.starts_with("gitlab.") || host.starts_with("gitlab-");
    if host == "github.com" || (gitlab && path.starts_with("/api/v4/projects/")) {
        return Ok(());
    }
    Err(Error::new(
        "invalid provider url. Only GitHub and GitLab are supported for \"https\" schema",
    ))
}

/// `{base}/{label}/latest/{file}` → `{base}/{label}/{version}/{file}`.
fn pin_version(url: &str, version: &str) -> String {
    let mut parts: Vec<&str> = url.split('/').collect();
    let n = parts.len();
    if n >= 2 && parts[n - 2] == "latest" {
        parts[n - 2] = version;
    }
    parts.join("/")
}

fn is_remote(url: &str) -> bool {
    url.starts_with("https://") || url.starts_with("http://")
}

/// Pick the source of a provider (R4.1.1–R4.1.3).
pub fn source_for<'a>(p: &ProviderCr, ctx: &SourceContext<'a>) -> Result<Source<'a>> {
    source_with(p, ctx, true)
}

/// [`source_for`]; with `single_configmap` false, several ConfigMaps may match a
/// selector (one per version, as `upgrade plan` lists them; the operator itself ends in
/// R4.3.8's error then).
pub fn source_with<'a>(
    p: &ProviderCr,
    ctx: &SourceContext<'a>,
    single_configmap: bool,
) -> Result<Source<'a>> {
    let fc = p.fetch_config();
    let selector = fc.and_then(|f| f.get("selector")).filter(|v| !v.is_null());
    if let Some(sel) = selector {
        let selector = LabelSelector::from_value(sel).map_err(|e| p.error(e))?;
        let maps: Vec<&InputObject> = configmaps_in(ctx.objects, &p.namespace)
            .into_iter()
            .filter(|o| selector.matches(&o.value))
            .collect();
        if maps.is_empty() {
            return Err(p.error(format!(
                "no ConfigMaps found with selector {}",
                selector.go_struct_string()
            )));
        }
        for o in &maps {
            configmap::configmap_version(&o.value).map_err(|e| {
                p.error(format!(
                    "{} [{}]",
                    e.message(),
                    super::api::describe_object(o)
                ))
            })?;
        }
        if maps.len() > 1 && single_configmap {
            return Err(p.error(format!(
                "multiple ConfigMaps match selector \"{}\" in namespace \"{}\"; only one is allowed: {}",
                selector.selector_string(),
                p.namespace,
                describe_all(&maps)
            )));
        }
        return Ok(Source::ConfigMaps { selector, maps });
    }
    // R4.1.2: a ConfigMap the operator (or `preload`) stored earlier wins.
    let mut labels = configmap::provider_labels(p.operator_type(), &p.name, p.version(), false);
    if p.version().is_empty() {
        labels.remove(configmap::LABEL_VERSION);
    }
    let selector = LabelSelector::from_labels(labels);
    let stored: Vec<&InputObject> = configmaps_in(ctx.objects, &p.namespace)
        .into_iter()
        .filter(|o| selector.matches(&o.value))
        .collect();
    if stored.len() > 1 {
        return Err(p.error(format!(
            "more than one config maps were found for given selector: {}: {}",
            selector.selector_string(),
            describe_all(&stored)
        )));
    }
    if stored.len() == 1 {
        return Ok(Source::ConfigMaps {
            selector,
            maps: stored,
        });
    }
    if let Some(o) = fc
        .and_then(|f| f.get("oci"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    {
        let (reference, tag, _) = oci::parse_oci_source(o, "");
        let Some(layout) = ctx.oci_layout else {
            return Err(p.error(format!(
                "fetchConfig.oci {o:?} needs the artifact on disk: pass --oci-layout DIR (an OCI image layout, e.g. from `oras copy {o} --to-oci-layout DIR`)"
            )));
        };
        return Ok(Source::Oci {
            layout: layout.to_path_buf(),
            reference,
            tag: Some(tag).filter(|t| !t.is_empty()),
        });
    }
    let url = fc
        .and_then(|f| f.get("url"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    let known = ctx.config.provider(&p.name, p.ptype).ok();
    let (local, url_version, file) = match url {
        Some(u) => {
            check_url(u).map_err(|e| p.error(e))?;
            let (v, f) = url_parts(u);
            let file = f.unwrap_or_else(|| p.ptype.default_components_file().to_string());
            let base = match (ctx.config.repository.as_ref(), known.as_ref()) {
                (Some(dir), _) => dir
                    .join(p.manifest_label())
                    .join("latest")
                    .join(&file)
                    .to_string_lossy()
                    .into_owned(),
                (None, Some(k)) if !is_remote(&k.url) => k.url.clone(),
                _ => {
                    return Err(p.error(format!(
                        "fetchConfig.url {u} is a remote release and capi-render works offline: pass --repository DIR (the release is read from DIR/{}/<version>/{file}) or give the provider a local `providers:` URL in --config",
                        p.manifest_label()
                    )))
                }
            };
            (base, v, file)
        }
        None => {
            let Some(k) = known else {
                return Err(p.error(
                    "Either Selector, OCI URL or provider URL must be provided for a not predefined provider",
                ));
            };
            if is_remote(&k.url) {
                return Err(p.error(format!(
                    "the built-in source of this provider is the remote release {}; capi-render works offline: pass --repository DIR (read from DIR/{}/<version>/) or a local `providers:` URL in --config",
                    k.url,
                    p.manifest_label()
                )));
            }
            let file = k.url.rsplit('/').next().unwrap_or("").to_string();
            let (v, _) = url_parts(&format!("file://{}", k.url));
            (k.url.clone(), v, file)
        }
    };
    // With a known version, point the URL at it: the repository then needs no `latest`
    // resolution (which would read folders this render does not use).
    let pinned = Some(p.version())
        .filter(|v| Version::parse(v).is_ok())
        .map(str::to_string)
        .or_else(|| url_version.clone());
    let provider = Provider {
        name: p.name.clone(),
        ptype: p.ptype,
        url: match &pinned {
            Some(v) => pin_version(&local, v),
            None => local,
        },
    };
    let mut repo = LocalRepository::new(&provider, ctx.config).map_err(|e| p.error(e))?;
    repo.components_file = file;
    Ok(Source::Repository { repo, url_version })
}

impl Source<'_> {
    /// The versions this source offers, as written (unsorted for ConfigMaps).
    pub fn versions(&self) -> Result<Vec<String>> {
        match self {
            Source::ConfigMaps { maps, .. } => maps
                .iter()
                .map(|o| configmap::configmap_version(&o.value))
                .collect(),
            Source::Repository { repo, .. } => repo.versions(),
            Source::Oci { tag, .. } => Ok(tag.iter().cloned().collect()),
        }
    }

    /// R4.1.4 offline: the version used when `spec.version` is empty, and a note
    /// when it was chosen as "the highest local version".
    pub fn default_version(&self) -> Result<(String, Option<String>)> {
        match self {
            Source::ConfigMaps { .. } => {
                let mut best: Option<Version> = None;
                for v in self.versions()? {
                    let pv = Version::parse(&v)?;
                    if best.as_ref().is_none_or(|b| pv.compare(b).is_gt()) {
                        best = Some(pv);
                    }
                }
                let b = best.ok_or_else(|| Error::new("no versions available"))?;
                Ok((format!("v{b}"), None))
            }
            Source::Repository { repo, url_version } => match url_version {
                Some(v) => Ok((v.clone(), None)),
                None => {
                    let v = repo.latest_release()?;
                    Ok((
                        v.clone(),
                        Some(format!(
                            "spec.version is empty: using {v}, the highest release in {} (the operator would ask the release host for its latest release)",
                            repo.provider_dir().display()
                        )),
                    ))
                }
            },
            Source::Oci { tag, .. } => tag.clone().map(|t| (t, None)).ok_or_else(|| {
                Error::new("fetchConfig.oci has no tag and spec.version is empty: set spec.version")
            }),
        }
    }

    /// Read one release (R4.3, R4.4.2, R4.5.2).
    pub fn read(&self, p: &ProviderCr, version: &str, ctx: &SourceContext) -> Result<Release> {
        match self {
            Source::ConfigMaps { maps, .. } => {
                let mut found = None;
                for o in maps {
                    if configmap::configmap_version(&o.value)? == version {
                        found = Some(*o);
                    }
                }
                let o = found.ok_or_else(|| {
                    Error::new(format!(
                        "failed to read \"metadata.yaml\" from the repository for provider \"{}\": unable to get files for version {version}",
                        p.name
                    ))
                })?;
                let (metadata, components) = configmap::read_configmap(&o.value)
                    .map_err(|e| e.wrap(super::api::describe_object(o)))?;
                Ok(Release {
                    version: version.to_string(),
                    metadata,
                    components,
                    source: format!("configmap:{}", configmap::ns_name(&o.value)),
                    files: Vec::new(),
                })
            }
            Source::Repository { repo, .. } => {
                let wrap = |e: Error, f: &str| {
                    e.wrap(format!(
                        "failed to read {f:?} from the repository for provider \"{}\"",
                        p.name
                    ))
                };
                let (metadata, mpath) = repo
                    .get_file(version, "metadata.yaml")
                    .map_err(|e| wrap(e, "metadata.yaml"))?;
                let (components, cpath) = repo
                    .get_file(version, &repo.components_file)
                    .map_err(|e| wrap(e, &repo.components_file))?;
                let shown_dir = match ctx.repository_shown {
                    Some(d)
                        if ctx
                            .config
                            .repository
                            .as_ref()
                            .is_some_and(|r| repo.base == *r) =>
                    {
                        d.join(&repo.label).join(version)
                    }
                    _ => repo.provider_dir().join(version),
                };
                let files = vec![
                    InputFile {
                        path: shown_dir.join("metadata.yaml").display().to_string(),
                        sha256: crate::model::sha256_hex(metadata.as_bytes()),
                    },
                    InputFile {
                        path: shown_dir.join(&repo.components_file).display().to_string(),
                        sha256: crate::model::sha256_hex(components.as_bytes()),
                    },
                ];
                let _ = (mpath, cpath);
                Ok(Release {
                    version: version.to_string(),
                    metadata,
                    components,
                    source: format!("repository:{}", shown_dir.display()),
                    files,
                })
            }
            Source::Oci {
                layout, reference, ..
            } => {
                let files = oci::read_artifact(layout, reference, version)
                    .map_err(|e| e.wrap(format!("fetchConfig.oci {reference}:{version}")))?;
                let (metadata, components) =
                    oci::pick_files(&files, p.operator_type(), &p.name, version)?;
                Ok(Release {
                    version: version.to_string(),
                    files: vec![
                        InputFile {
                            path: format!("oci:{reference}:{version}/metadata"),
                            sha256: crate::model::sha256_hex(metadata.as_bytes()),
                        },
                        InputFile {
                            path: format!("oci:{reference}:{version}/components"),
                            sha256: crate::model::sha256_hex(components.as_bytes()),
                        },
                    ],
                    metadata,
                    components,
                    source: format!("oci:{reference}:{version}"),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_url_parts() {
        assert_eq!(
            url_parts("https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml"),
            (
                Some("v1.2.3".into()),
                Some("infrastructure-components.yaml".into())
            )
        );
        assert_eq!(
            url_parts("https://github.com/o/r/releases/latest/core-components.yaml"),
            (None, Some("core-components.yaml".into()))
        );
        assert_eq!(url_parts("https://github.com/o/r/releases"), (None, None));
        assert_eq!(
            url_parts("https://gitlab.example.com/api/v4/projects/1/packages/generic/p/v0.1.0/x-components.yaml"),
            (Some("v0.1.0".into()), Some("x-components.yaml".into()))
        );
    }

    #[test]
    fn pinning_replaces_only_latest() {
        assert_eq!(
            pin_version("/r/x/latest/c.yaml", "v1.0.0"),
            "/r/x/v1.0.0/c.yaml"
        );
        assert_eq!(
            pin_version("/r/x/v0.9.0/c.yaml", "v1.0.0"),
            "/r/x/v0.9.0/c.yaml"
        );
    }

    #[test]
    fn url_checks() {
        assert!(check_url("https://github.com/o/r/releases/latest/x.yaml").is_ok());
        assert!(
            check_url("https://gitlab.com/api/v4/projects/1/packages/generic/p/v1/x.yaml").is_ok()
        );
        assert_eq!(
            check_url("http://github.com/x").unwrap_err().message(),
            "invalid provider url. there are no provider implementation for \"http\" schema"
        );
        assert_eq!(
            check_url("https://example.com/x").unwrap_err().message(),
            "invalid provider url. Only GitHub and GitLab are supported for \"https\" schema"
        );
        assert!(check_url("https://gitlab.com/o/r/releases").is_err());
    }
}
