//! cert-manager as clusterctl v1.10.10 installs it before any provider
//! (`cert_manager.go`), read offline from a local repository.
//!
//! clusterctl reads the manifest like a provider's components, through a provider named
//! `cert-manager` whose URL is the config's `cert-manager.url` (default: the GitHub
//! release of [`DEFAULT_VERSION`]), at the config's `cert-manager.version`. Offline,
//! a URL that is not a local path falls back to `--repository DIR`, where the file is
//! `DIR/cert-manager/<version>/cert-manager.yaml`. The objects are the file's documents
//! as they are (no variable substitution), the `cert-manager` image overrides applied to
//! Deployments and DaemonSets, and clusterctl's labels and version annotation.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::config::{Config, ImageMeta};
use crate::error::{Error, Result};
use crate::model::object;
use crate::provider::{Provider, ProviderType};
use crate::repository::LocalRepository;
use crate::typed::K8s;

/// `config.CertManagerDefaultVersion` of clusterctl v1.10.10 (v1.14.2's:
/// [`crate::config::Clusterctl::cert_manager_version`]).
pub const DEFAULT_VERSION: &str = "v1.19.1";
/// The components file name of cert-manager's release.
pub const FILE: &str = "cert-manager.yaml";
/// The image override component (`config.CertManagerImageComponent`).
pub const IMAGE_COMPONENT: &str = "cert-manager";
use crate::components::filters::common_labels::CLUSTERCTL_LABEL;
/// `clusterctlv1.ClusterctlCoreLabel`, whose value marks cert-manager's objects.
pub const CORE_LABEL: &str = "clusterctl.cluster.x-k8s.io/core";
/// `clusterctlv1.CertManagerVersionAnnotation`.
pub const VERSION_ANNOTATION: &str = "cert-manager.clusterctl.cluster.x-k8s.io/version";

/// The cert-manager release to read: where from and which version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    pub version: String,
    /// The manifest as read.
    pub text: String,
    /// The file it came from.
    pub path: PathBuf,
    /// How errors name it: the path, or, when `cert-manager.url` holds environment
    /// variables, the URL as written (an expanded value is never printed).
    pub shown: String,
}

/// The URL clusterctl would use: `cert-manager.url` (environment variables expanded)
/// or the default GitHub release, and the version.
fn url_and_version(config: &Config) -> (Option<String>, String) {
    let s = config.cert_manager();
    let version = s
        .version
        .clone()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| config.clusterctl.cert_manager_version().to_string());
    (s.url.clone().filter(|u| !u.is_empty()), version)
}

fn is_local(url: &str) -> bool {
    url.starts_with('/') || url.starts_with("file://")
}

/// `cert-manager.version` becomes a folder name (`<repository>/cert-manager/<version>/`,
/// and the overrides folder's): it must be one plain path segment (no `/`, `\\`, NUL,
/// `.` or `..`), checked before anything is read.
fn check_version(config: &Config, version: &str) -> Result<()> {
    if crate::paths::is_safe_segment(version) {
        return Ok(());
    }
    let file = config
        .file
        .as_ref()
        .map(|f| f.display().to_string())
        .unwrap_or_else(|| "the clusterctl config".to_string());
    let list = match &config.repository {
        Some(r) => format!("`ls {}/cert-manager` lists", r.display()),
        None => "`ls <repository>/cert-manager` lists".to_string(),
    };
    Err(Error::new(format!(
        "{file}: cert-manager.version {version:?} is not a release name: it names the folder the manifest is read from (<repository>/cert-manager/<version>/), so it must be one path segment without `/`, `\\`, NUL, `.` or `..`"
    ))
    .in_file(&file)
    .with_hint(format!(
        "set cert-manager.version in {file} to a release such as {DEFAULT_VERSION}, or remove it for that default; {list} the releases a local repository holds"
    )))
}

/// Where the release is read from, offline: a local `cert-manager.url`, else
/// `--repository`'s `cert-manager/<version>/`. `Ok(None)` when neither names a local
/// folder (clusterctl would download the release). An unsafe version is an error.
pub fn locate(config: &Config) -> Result<Option<(Provider, String)>> {
    let (url, version) = url_and_version(config);
    check_version(config, &version)?;
    let url = match url {
        Some(u) if is_local(&u) => u,
        _ => {
            let Some(dir) = config.repository.as_ref() else {
                return Ok(None);
            };
            format!("{}/cert-manager/{version}/{FILE}", dir.display())
        }
    };
    Ok(Some((
        Provider {
            name: "cert-manager".to_string(),
            ptype: ProviderType::Core,
            url,
        },
        version,
    )))
}

/// `cert-manager.url` as written, when the read one differs from it (environment
/// variables expanded) and is the one read.
fn written_url(config: &Config, provider: &Provider) -> Option<String> {
    let s = config.cert_manager();
    let written = s.url_as_written.as_ref()?;
    (s.url.as_deref() == Some(provider.url.as_str()) && *written != provider.url)
        .then(|| written.clone())
}

/// Read the release [`locate`] names. `Ok(None)`: no local source is configured.
pub fn read(config: &Config) -> Result<Option<Release>> {
    config.cert_manager_externally_provisioned()?;
    let Some((provider, version)) = locate(config)? else {
        return Ok(None);
    };
    // A URL with environment variables: its errors would print the expanded values,
    // so they are replaced by one naming the URL as written.
    let written = written_url(config, &provider);
    let scrub = |e: Error| match &written {
        None => e,
        Some(w) => {
            let file = config
                .file
                .as_ref()
                .map(|f| f.display().to_string())
                .unwrap_or_default();
            Error::new(format!(
                "{file}: cert-manager.url {w:?}: failed to read the cert-manager {version} manifest from it, with its environment variables expanded (the expanded path is not shown)"
            ))
            .in_file(&file)
            .with_hint(format!(
                "`echo \"{w}\"` shows the path it names: it must be {{basepath}}/cert-manager/<version>/{FILE} and exist"
            ))
        }
    };
    let repo = LocalRepository::new(&provider, config).map_err(scrub)?;
    let (text, path) = repo
        .read_with_override(&version, &repo.components_file)
        .map_err(|e| {
            e.wrap(format!("failed to read the cert-manager {version} manifest"))
                .with_hint(format!(
                    "put cert-manager's release manifest at {}/cert-manager/{version}/{FILE} in the local repository, or set cert-manager.url (and version) in the clusterctl config",
                    repo.base.display()
                ))
        })
        .map_err(scrub)?;
    let shown = match &written {
        Some(w) => format!("cert-manager.url {w}"),
        None => path.display().to_string(),
    };
    Ok(Some(Release {
        version,
        text,
        path,
        shown,
    }))
}

/// `getManifestObjs`: the manifest's objects, the `cert-manager` image overrides
/// applied, clusterctl's labels and the version annotation on every object.
pub fn objects(
    release: &Release,
    images: Option<&BTreeMap<String, ImageMeta>>,
    k8s: K8s,
) -> Result<Vec<Value>> {
    Ok(objects_and_moves(release, images, k8s)?.0)
}

/// The objects, and each Deployment and DaemonSet image as written and as overridden.
pub type ObjectsAndMoves = (Vec<Value>, Vec<(String, String)>);

/// [`objects`], and each Deployment and DaemonSet image as written and as overridden.
pub fn objects_and_moves(
    release: &Release,
    images: Option<&BTreeMap<String, ImageMeta>>,
    k8s: K8s,
) -> Result<ObjectsAndMoves> {
    let mut objs = crate::yaml::parse_documents(&release.text)
        .map_err(|e| e.wrap("failed to parse yaml for cert-manager manifest"))?;
    let moves =
        crate::components::filters::fix_images::fix_images(&mut objs, images, IMAGE_COMPONENT, k8s)
            .map_err(|e| e.wrap("failed to apply image override to the cert-manager manifest"))?;
    for o in &mut objs {
        label(o, &release.version);
    }
    Ok((objs, moves))
}

/// `addCerManagerLabel` and `addCerManagerAnnotations` (`GetLabels`/`SetLabels`: a map
/// with a non-string value reads as empty).
fn label(o: &mut Value, version: &str) {
    if !o.is_object() {
        return;
    }
    let mut labels = object::nested_string_map(o, "labels").unwrap_or_default();
    labels.insert(CLUSTERCTL_LABEL.into(), Value::from(""));
    labels.insert(CORE_LABEL.into(), Value::from("cert-manager"));
    object::set_metadata_field(o, "labels", Value::Object(labels));
    let mut ann = object::nested_string_map(o, "annotations").unwrap_or_default();
    ann.insert(VERSION_ANNOTATION.into(), Value::from(version));
    object::set_metadata_field(o, "annotations", Value::Object(ann));
}

/// The images clusterctl lists for cert-manager (`InspectImages` of [`objects`]).
pub fn images(
    release: &Release,
    images: Option<&BTreeMap<String, ImageMeta>>,
    k8s: K8s,
) -> Result<Vec<String>> {
    let objs = objects(release, images, k8s)?;
    Ok(crate::components::filters::fix_images::inspect_images(
        &objs,
    ))
}

impl Release {
    /// The error of a cert-manager object, naming the manifest.
    pub fn error(&self, e: Error) -> Error {
        e.in_file(&self.shown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn release(text: &str) -> Release {
        Release {
            version: "v1.19.1".into(),
            text: text.into(),
            path: "/r/cert-manager/v1.19.1/cert-manager.yaml".into(),
            shown: "/r/cert-manager/v1.19.1/cert-manager.yaml".into(),
        }
    }

    #[test]
    fn objects_get_clusterctls_labels_and_version() {
        let r = release(
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: cert-manager\n  labels:\n    a: b\n---\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cm\n  namespace: cert-manager\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n        image: quay.io/jetstack/cert-manager-controller:v1.19.1\n",
        );
        let mut m = BTreeMap::new();
        m.insert(
            "cert-manager".to_string(),
            ImageMeta {
                repository: "mirror.local/jetstack".into(),
                name: String::new(),
                tag: String::new(),
            },
        );
        let objs = objects(&r, Some(&m), K8s::V0_32).unwrap();
        assert_eq!(objs.len(), 2);
        assert_eq!(
            objs[0]["metadata"],
            json!({"name": "cert-manager",
                "labels": {"a": "b", CLUSTERCTL_LABEL: "", CORE_LABEL: "cert-manager"},
                "annotations": {VERSION_ANNOTATION: "v1.19.1"}})
        );
        assert_eq!(
            images(&r, Some(&m), K8s::V0_32).unwrap(),
            ["mirror.local/jetstack/cert-manager-controller:v1.19.1"]
        );
        assert_eq!(
            images(&r, None, K8s::V0_32).unwrap(),
            ["quay.io/jetstack/cert-manager-controller:v1.19.1"]
        );
    }

    #[test]
    fn locate_prefers_a_local_url_then_the_repository() {
        let mut c = Config::new(BTreeMap::new());
        assert!(
            locate(&c).unwrap().is_none(),
            "no local source: clusterctl would download"
        );
        c.repository = Some("/repo".into());
        let (p, v) = locate(&c).unwrap().unwrap();
        assert_eq!(
            (p.url.as_str(), v.as_str()),
            ("/repo/cert-manager/v1.19.1/cert-manager.yaml", "v1.19.1")
        );
        let c = Config::from_text(
            "cert-manager:\n  url: /other/cert-manager/v1.18.0/cert-manager.yaml\n  version: v1.18.0\n",
            std::path::Path::new("/x/c.yaml"),
            BTreeMap::new(),
        )
        .unwrap();
        let (p, v) = locate(&c).unwrap().unwrap();
        assert_eq!(
            (p.url.as_str(), v.as_str()),
            ("/other/cert-manager/v1.18.0/cert-manager.yaml", "v1.18.0")
        );
        let remote = Config::from_text(
            "cert-manager:\n  url: https://example.com/cert-manager.yaml\n",
            std::path::Path::new("/x/c.yaml"),
            BTreeMap::new(),
        )
        .unwrap();
        assert!(locate(&remote).unwrap().is_none());
    }

    #[test]
    fn a_version_that_is_not_one_segment_is_refused_before_any_read() {
        for bad in [
            "../../../../etc/.kube",
            "v1/../../x",
            "..",
            ".",
            "a\\b",
            "/etc",
        ] {
            let c = Config::from_text(
                &format!("cert-manager:\n  url: /proc/self/cwd/cert-manager/v1.0.0/config\n  version: {bad:?}\n"),
                std::path::Path::new("/x/c.yaml"),
                BTreeMap::new(),
            )
            .unwrap();
            let e = locate(&c).unwrap_err();
            assert!(
                e.message().starts_with("/x/c.yaml: cert-manager.version "),
                "{bad}: {e}"
            );
            assert!(read(&c).is_err(), "{bad}");
        }
    }
}
