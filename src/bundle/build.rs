//! Assembling a bundle's files from resolved providers (see README "bundle" for the
//! layout). Pure: paths in, a [`Tree`] out; [`super::stage::write_bundle`] writes it.

use crate::model::pointer::Pointer as _;
use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{json, Value};

use super::images;
use super::oci;
use super::resolve::{self, BundleProvider};
use super::stage::Tree;
use crate::error::{Error, Result};
use crate::model::RenderOptions;
use crate::operator::configmap::{provider_configmap, LABEL_NAME, LABEL_TYPE, LABEL_VERSION};

/// `capi-render bundle` options.
#[derive(Debug, Clone, Default)]
pub struct BundleOptions {
    /// `--repository DIR` (made absolute by the caller or here).
    pub repository: Option<PathBuf>,
    /// `--config FILE`: clusterctl config (`providers:` URLs, variables, `images:`).
    pub config: Option<PathBuf>,
    /// `--image-registry REG`.
    pub image_registry: Option<String>,
    /// `--oci`: also write an OCI image layout per provider.
    pub oci: bool,
    /// `--oci-layout DIR`: where inputs with `fetchConfig.oci` are read from.
    pub oci_layout: Option<PathBuf>,
}

/// What a bundle holds, for the command's summary line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// `<type>-<name>-<version>` of each provider, in bundle order.
    pub providers: Vec<String>,
    pub images: usize,
    pub files: usize,
    /// Non-fatal findings for stderr (render's own warnings, mirror gaps).
    pub warnings: Vec<String>,
    /// The cert-manager release the bundle carries, if one was found locally.
    pub cert_manager: Option<String>,
}

/// The render options the bundle resolves and renders with.
pub fn render_options(opts: &BundleOptions) -> RenderOptions {
    RenderOptions {
        repository: opts.repository.clone(),
        config: opts.config.clone(),
        no_namespaces: false,
        oci_layout: opts.oci_layout.clone(),
        allow_empty: false,
        // The bundle carries cert-manager on its own (`repository/`, `rendered/`).
        cert_manager: false,
        clusters: Default::default(),
        // The inputs' CoreProvider decides the core version.
        capi_version: None,
        reads_inside: None,
        // The bundle installs the config Secrets beside the rendering.
        secrets: Default::default(),
        no_validate: false,
        // Bundles carry providers: no topology object is admitted.
        field_validation: Default::default(),
    }
}

/// The provider CR to apply with the bundle's ConfigMaps: the input CR without
/// server-set fields and status, `spec.fetchConfig` replaced by a selector on the
/// ConfigMap's name, type and version labels, and, with a mirror, `configSecret`
/// naming the Secret that carries the image override (unless it already names one).
pub fn provider_snippet(p: &BundleProvider, mirror_secret: Option<&str>) -> Value {
    let mut cr = p.object.clone();
    if let Some(o) = cr.as_object_mut() {
        o.remove("status");
    }
    if let Some(m) = cr.get_mut("metadata").and_then(Value::as_object_mut) {
        for k in [
            "uid",
            "resourceVersion",
            "generation",
            "creationTimestamp",
            "managedFields",
            "selfLink",
        ] {
            m.remove(k);
        }
        if let Some(a) = m.get_mut("annotations").and_then(Value::as_object_mut) {
            a.remove("kubectl.kubernetes.io/last-applied-configuration");
            if a.is_empty() {
                m.remove("annotations");
            }
        }
    }
    let selector = json!({"matchLabels": {
        LABEL_NAME: p.cr.name,
        LABEL_TYPE: p.operator_type(),
        LABEL_VERSION: p.release.version,
    }});
    if !cr.get("spec").is_some_and(Value::is_object) {
        cr["spec"] = json!({});
    }
    cr["spec"]["fetchConfig"] = json!({ "selector": selector });
    if let Some(name) = mirror_secret {
        if cr.ptr("/spec/configSecret/name").is_none() {
            cr["spec"]["configSecret"] = json!({"name": name, "namespace": p.cr.namespace});
        }
    }
    cr
}

/// The Secret (or the part of an existing config Secret) carrying the mirror as the
/// clusterctl image override `images` (R5.1.2). Applying it with `kubectl apply`
/// adds/replaces the `images` key and keeps the Secret's other keys.
pub fn mirror_secret(p: &BundleProvider, registry: &str) -> (String, Value) {
    let (name, ns) = match (
        p.cr.spec.ptr("/configSecret/name").and_then(Value::as_str),
        p.cr.spec
            .ptr("/configSecret/namespace")
            .and_then(Value::as_str),
    ) {
        (Some(n), ns) => (
            n.to_string(),
            ns.filter(|s| !s.is_empty())
                .unwrap_or(&p.cr.namespace)
                .to_string(),
        ),
        (None, _) => (format!("{}-images", p.stem()), p.cr.namespace.clone()),
    };
    let secret = json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": ns},
        "type": "Opaque",
        "stringData": {"images": images::mirror_secret_value(registry)},
    });
    (name, secret)
}

/// `repository/<label>/<version>/...`: the version folder's files byte for byte, or,
/// for a ConfigMap/OCI source, the two files the release consists of.
fn repository_subset(p: &BundleProvider) -> Result<Vec<(String, Vec<u8>)>> {
    let prefix = format!("repository/{}/{}", p.label, p.release.version);
    let Some(dir) = &p.version_dir else {
        return Ok(vec![
            (
                format!("{prefix}/metadata.yaml"),
                p.release.metadata.clone().into_bytes(),
            ),
            (
                format!("{prefix}/{}", p.components_file),
                p.release.components.clone().into_bytes(),
            ),
        ]);
    };
    let mut out = Vec::new();
    for f in resolve::repository_files(dir, &p.components_file)? {
        let src = dir.join(&f);
        let bytes = std::fs::read(&src)
            .map_err(|e| Error::new(format!("cannot read {}: {e}", src.display())))?;
        out.push((format!("{prefix}/{f}"), bytes));
    }
    Ok(out)
}

/// The Namespace of a `configmaps/<ns>/` directory: its name sorts before every
/// provider file (`<type>-<name>...`), so a recursive apply creates it first.
pub const NAMESPACE_FILE: &str = "00-namespace.yaml";

/// The files of one provider outside `rendered/` and `images.txt`.
fn provider_files(p: &BundleProvider, opts: &BundleOptions) -> Result<Vec<(String, Vec<u8>)>> {
    let ns = &p.cr.namespace;
    let mut out = repository_subset(p)?;
    // First in its directory, so `kubectl apply -R -f configmaps/` creates the
    // namespace before the objects in it.
    out.push((
        format!("configmaps/{ns}/{NAMESPACE_FILE}"),
        super::inputs::yaml_file(&[crate::operator::namespace_object(ns)]),
    ));
    let cm = provider_configmap(
        p.cr.ptype,
        &p.cr.name,
        ns,
        &p.release.version,
        &p.release.metadata,
        &p.release.components,
        None,
    );
    out.push((
        format!("configmaps/{ns}/{}.yaml", p.unit_name()),
        super::inputs::yaml_file(&[cm]),
    ));
    let mut secret_name = None;
    if let Some(reg) = &opts.image_registry {
        let (name, secret) = mirror_secret(p, reg);
        // A config Secret in another namespace: that namespace first, in the same file.
        let secret_ns = secret
            .ptr("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or(ns);
        let objs = if secret_ns == ns {
            vec![secret.clone()]
        } else {
            vec![crate::operator::namespace_object(secret_ns), secret.clone()]
        };
        out.push((
            format!("configmaps/{ns}/{}-images-secret.yaml", p.stem()),
            super::inputs::yaml_file(&objs),
        ));
        secret_name = Some(name);
    }
    out.push((
        format!("configmaps/{ns}/{}-provider.yaml", p.stem()),
        super::inputs::yaml_file(&[provider_snippet(p, secret_name.as_deref())]),
    ));
    if opts.oci {
        let (mt, ct) = oci::file_titles(p.operator_type(), &p.cr.name, &p.release.version);
        let layout = oci::write_layout(
            &p.release.version,
            &[
                (mt, p.release.metadata.clone().into_bytes()),
                (ct, p.release.components.clone().into_bytes()),
            ],
        );
        for (k, v) in layout {
            out.push((format!("oci/{}/{k}", p.unit_name()), v));
        }
    }
    Ok(out)
}

/// What a mirror does not reach in one provider: workloads other than Deployments and
/// DaemonSets, images the operator's customisation sets after the override, and an
/// `images` key of the provider's config Secret, which the mirror Secret replaces.
fn mirror_warnings(p: &BundleProvider, r: &crate::operator::ProviderRender) -> Vec<String> {
    let mut out = Vec::new();
    if r.replaced_images {
        out.push(format!(
            "{}: the images key of its config Secret is replaced by the mirror (the bundle's Secret sets images to the mirror override); put any other image override into spec.deployment or the mirror",
            p.cr.describe()
        ));
    }
    for (img, what) in images::unreachable_by_overrides(&r.unit.objects) {
        out.push(format!(
            "{}: {img} ({what}) is listed for mirroring, but the operator's image override does not reach {what}; point it at the mirror with spec.patches",
            p.cr.describe()
        ));
    }
    let (_, customised) = images::mirror_sources(&r.unit.objects, &r.image_moves);
    for img in customised {
        out.push(format!(
            "{}: {img} is set by the provider's customisation (spec.deployment, spec.manager or the operator's image overrides) after the mirror override, so the cluster pulls it as written; it is listed for mirroring: point that setting at the mirror",
            p.cr.describe()
        ));
    }
    out
}

/// Every file of the bundle (without `SHA256SUMS`).
pub fn build(paths: &[PathBuf], opts: &BundleOptions) -> Result<(Tree, Summary)> {
    if let Some(r) = &opts.image_registry {
        images::check_registry(r)?;
    }
    let ropts = render_options(opts);
    let loaded = crate::load::load_paths(paths)?;
    crate::admit::check(&loaded.objects)?;
    // One resolution and one render of each provider: the files below and the
    // `rendered/` objects come from the same release.
    let res = crate::operator::resolve::resolve(&loaded.objects, &ropts)?;
    if res.providers.is_empty() {
        return Err(Error::new(
            "no provider objects (operator.cluster.x-k8s.io CoreProvider, InfrastructureProvider, ...) among the inputs",
        ));
    }
    // With a mirror, each provider renders with it as clusterctl's image override, as
    // the operator will once the bundle's Secret carries it (`images`).
    let overrides = opts.image_registry.as_deref().map(images::mirror_overrides);
    let rendered =
        crate::operator::render_resolved_with(&res, &loaded.objects, &ropts, overrides.as_ref())?;
    let providers = resolve::bundle_providers(&loaded.objects, &res);
    let mut tree = Tree::new();
    let mut summary = Summary {
        warnings: res.warnings.clone(),
        ..Default::default()
    };
    for (k, v) in super::inputs::record(&loaded.objects, &res)? {
        tree.insert(k, v);
    }
    let mut all_images = BTreeSet::new();
    for (p, r) in providers.iter().zip(rendered) {
        summary.providers.push(p.unit_name());
        for (k, v) in provider_files(p, opts)? {
            tree.insert(k, v);
        }
        if opts.image_registry.is_some() {
            summary.warnings.extend(mirror_warnings(p, &r));
            let (sources, _) = images::mirror_sources(&r.unit.objects, &r.image_moves);
            all_images.extend(sources);
        } else {
            all_images.extend(images::images_of(&r.unit.objects));
        }
        tree.insert(
            format!("rendered/{}/{}.yaml", p.cr.namespace, p.stem()),
            super::inputs::yaml_file(&r.unit.objects),
        );
    }
    if let Some(cm) = crate::certmanager::read(&res.config)? {
        let override_images = overrides.as_ref().or(res.config.images.as_ref());
        let k8s = res.config.k8s();
        let (objs, moves) = crate::certmanager::objects_and_moves(&cm, override_images, k8s)
            .map_err(|e| cm.error(e))?;
        if opts.image_registry.is_some() {
            all_images.extend(images::mirror_sources(&objs, &moves).0);
        } else {
            all_images.extend(images::images_of(&objs));
        }
        tree.insert(
            format!(
                "repository/cert-manager/{}/{}",
                cm.version,
                crate::certmanager::FILE
            ),
            cm.text.clone().into_bytes(),
        );
        tree.insert(
            "rendered/cert-manager/cert-manager.yaml".to_string(),
            super::inputs::yaml_file(&objs),
        );
        summary.cert_manager = Some(cm.version.clone());
    }
    let mirror = match &opts.image_registry {
        Some(r) => Some(images::mirror_map(&all_images, r)?),
        None => None,
    };
    tree.insert(
        "images.txt".to_string(),
        images::images_txt(&all_images, mirror.as_ref()).into_bytes(),
    );
    summary.images = all_images.len();
    summary.files = tree.len() + 1;
    Ok((tree, summary))
}

/// Build and write the bundle to `out` (which must not exist yet).
pub fn write(paths: &[PathBuf], opts: &BundleOptions, out: &std::path::Path) -> Result<Summary> {
    if out.symlink_metadata().is_ok() {
        return Err(Error::new(format!(
            "{} already exists; choose a new output directory",
            out.display()
        )));
    }
    let (tree, summary) = build(paths, opts)?;
    super::stage::write_bundle(out, tree)?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::InputObject;
    use crate::operator::source::Release;

    fn provider(cr: &str) -> BundleProvider {
        let value = crate::yaml::parse_value(cr).unwrap();
        let objs = vec![InputObject {
            file: "in.yaml".into(),
            doc: 0,
            value: value.clone(),
        }];
        let p = crate::operator::providers(&objs).unwrap().remove(0);
        BundleProvider {
            label: p.manifest_label(),
            cr: p,
            object: value,
            release: Release {
                version: "v1.10.10".into(),
                metadata: String::new(),
                components: String::new(),
                source: String::new(),
                files: Vec::new(),
            },
            components_file: "infrastructure-components.yaml".into(),
            version_dir: None,
        }
    }

    const CR: &str = "apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata:
  name: docker
  namespace: capd-system
  uid: 1234
  resourceVersion: \"7\"
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{}'
spec:
  version: v1.10.10
  fetchConfig:
    url: https://github.com/kubernetes-sigs/cluster-api/releases/v1.10.10/infrastructure-components.yaml
  manager:
    verbosity: 3
status:
  installedVersion: v1.10.9
";

    #[test]
    fn snippet_keeps_the_spec_and_selects_the_configmap() {
        let p = provider(CR);
        let s = provider_snippet(&p, None);
        assert!(s.get("status").is_none());
        assert_eq!(
            s["metadata"],
            json!({"name": "docker", "namespace": "capd-system"})
        );
        assert_eq!(s["spec"]["manager"]["verbosity"], 3.0);
        assert_eq!(
            s["spec"]["fetchConfig"],
            json!({"selector": {"matchLabels": {
                "provider.cluster.x-k8s.io/name": "docker",
                "provider.cluster.x-k8s.io/type": "infrastructure",
                "provider.cluster.x-k8s.io/version": "v1.10.10"}}})
        );
        assert!(s["spec"].get("configSecret").is_none());
        // The snippet is itself a valid provider object for the operator pipeline.
        let back = crate::model::InputObject {
            file: "snippet.yaml".into(),
            doc: 0,
            value: s,
        };
        assert_eq!(crate::operator::providers(&[back]).unwrap().len(), 1);
    }

    #[test]
    fn mirror_secret_is_new_or_the_existing_config_secret() {
        let p = provider(CR);
        let (name, secret) = mirror_secret(&p, "mirror.local");
        assert_eq!(name, "infrastructure-docker-images");
        assert_eq!(secret["metadata"]["namespace"], "capd-system");
        assert_eq!(
            secret["stringData"]["images"],
            "all:\n  repository: mirror.local\n"
        );
        let s = provider_snippet(&p, Some(&name));
        assert_eq!(
            s["spec"]["configSecret"],
            json!({"name": "infrastructure-docker-images", "namespace": "capd-system"})
        );
        let with_secret = CR.replace(
            "  version: v1.10.10\n",
            "  version: v1.10.10\n  configSecret:\n    name: docker-vars\n",
        );
        let p = provider(&with_secret);
        let (name, secret) = mirror_secret(&p, "mirror.local");
        assert_eq!(name, "docker-vars");
        // The webhook default fills the namespace (R1.5.5).
        assert_eq!(secret["metadata"]["namespace"], "capd-system");
        let s = provider_snippet(&p, Some(&name));
        assert_eq!(s["spec"]["configSecret"], json!({"name": "docker-vars"}));
    }
}
