//! Assembling a bundle's files from resolved providers (see README "bundle" for the
//! layout). Pure: paths in, a [`Tree`] out; [`super::stage::write_bundle`] writes it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::{json, Value};

use super::configmap::{
    operator_type, provider_configmap, LABEL_NAME, LABEL_TYPE, LABEL_VERSION,
};
use super::images;
use super::oci;
use super::resolve::{self, BundleProvider};
use super::stage::Tree;
use crate::components::{self, ComponentsOptions};
use crate::config::Config;
use crate::error::{Error, Result};

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
}

/// What a bundle holds, for the command's summary line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// `<type>-<name>-<version>` of each provider, in bundle order.
    pub providers: Vec<String>,
    pub images: usize,
    pub files: usize,
}

/// The clusterctl configuration of a bundle run. The environment is not read: the
/// operator takes variables from the provider's config Secret only (R5.1.1), so a
/// bundle must not depend on the machine that made it.
pub fn bundle_config(opts: &BundleOptions) -> Result<Config> {
    let mut cfg = match &opts.config {
        Some(p) => Config::load(p, BTreeMap::new())?,
        None => Config::new(BTreeMap::new()),
    };
    if let Some(r) = &opts.repository {
        let abs = std::path::absolute(r)
            .map_err(|e| Error::new(format!("--repository {}: {e}", r.display())))?;
        cfg.repository = Some(abs);
    }
    Ok(cfg)
}

/// The objects a provider installs: the clusterctl components pipeline on the raw
/// components, in the provider CR's namespace, variables from the config file.
pub fn render_provider(p: &BundleProvider, cfg: &Config) -> Result<Vec<Value>> {
    render_raw(p, &p.components, cfg)
}

/// [`render_provider`] on given raw components text (a ConfigMap's, in tests).
pub fn render_raw(p: &BundleProvider, raw: &str, cfg: &Config) -> Result<Vec<Value>> {
    let o = ComponentsOptions {
        version: p.version.clone(),
        target_namespace: p.namespace.clone(),
        skip_template_process: false,
    };
    components::render(&p.provider, raw, &o, cfg)
        .map(|c| c.objs)
        .map_err(|e| e.wrap(format!("rendering {} {}", p.ptype.as_str(), p.name)))
}

/// `<type>-<name>-<version>`: the ConfigMap name and the OCI layout folder.
pub fn unit_name(p: &BundleProvider) -> String {
    format!("{}-{}-{}", operator_type(p.ptype), p.name, p.version)
}

/// The provider CR to apply with the bundle's ConfigMaps: the input CR without
/// server-set fields and status, `spec.fetchConfig` replaced by a selector on the
/// ConfigMap's name, type and version labels, and, with a mirror, `configSecret`
/// naming the Secret that carries the image override (unless it already names one).
pub fn provider_snippet(p: &BundleProvider, mirror_secret: Option<&str>) -> Value {
    let mut cr = p.cr.value.clone();
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
        LABEL_NAME: p.name,
        LABEL_TYPE: operator_type(p.ptype),
        LABEL_VERSION: p.version,
    }});
    if !cr.get("spec").is_some_and(Value::is_object) {
        cr["spec"] = json!({});
    }
    cr["spec"]["fetchConfig"] = json!({ "selector": selector });
    if let Some(name) = mirror_secret {
        if cr.pointer("/spec/configSecret/name").is_none() {
            cr["spec"]["configSecret"] = json!({"name": name, "namespace": p.namespace});
        }
    }
    cr
}

/// The Secret (or the part of an existing config Secret) carrying the mirror as the
/// clusterctl image override `images` (R5.1.2). Applying it with `kubectl apply`
/// adds/replaces the `images` key and keeps the Secret's other keys.
pub fn mirror_secret(p: &BundleProvider, registry: &str) -> (String, Value) {
    let (name, ns) = match (
        p.cr.value.pointer("/spec/configSecret/name").and_then(Value::as_str),
        p.cr.value.pointer("/spec/configSecret/namespace").and_then(Value::as_str),
    ) {
        (Some(n), ns) => (n.to_string(), ns.filter(|s| !s.is_empty()).unwrap_or(&p.namespace).to_string()),
        (None, _) => (format!("{}-{}-images", operator_type(p.ptype), p.name), p.namespace.clone()),
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

fn yaml_file(objs: &[Value]) -> Vec<u8> {
    let mut s = crate::yaml::from_objects(objs);
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s.into_bytes()
}

/// Every file of the bundle (without `SHA256SUMS`).
pub fn build(paths: &[PathBuf], opts: &BundleOptions) -> Result<(Tree, Summary)> {
    if let Some(r) = &opts.image_registry {
        images::check_registry(r)?;
    }
    let cfg = bundle_config(opts)?;
    let docs = resolve::load_docs(paths)?;
    let providers = resolve::resolve_all(&docs, &cfg)?;
    let mut tree = Tree::new();
    let mut all_images = BTreeSet::new();
    let mut summary = Summary::default();
    let mut rendered: Vec<(&BundleProvider, Vec<Value>)> = Vec::new();
    for p in &providers {
        let unit = unit_name(p);
        summary.providers.push(unit.clone());
        for f in resolve::repository_files(&p.version_dir, &p.components_file)? {
            let src = p.version_dir.join(&f);
            let bytes = std::fs::read(&src)
                .map_err(|e| Error::new(format!("cannot read {}: {e}", src.display())))?;
            tree.insert(format!("repository/{}/{}/{f}", p.label, p.version), bytes);
        }
        let cm = provider_configmap(
            p.ptype,
            &p.name,
            &p.namespace,
            &p.version,
            &p.metadata,
            &p.components,
            None,
        );
        tree.insert(format!("configmaps/{}/{unit}.yaml", p.namespace), yaml_file(&[cm]));
        let mut secret_name = None;
        if let Some(reg) = &opts.image_registry {
            let (name, secret) = mirror_secret(p, reg);
            tree.insert(
                format!("configmaps/{}/{}-{}-images-secret.yaml", p.namespace, operator_type(p.ptype), p.name),
                yaml_file(&[secret]),
            );
            secret_name = Some(name);
        }
        let snippet = provider_snippet(p, secret_name.as_deref());
        tree.insert(
            format!("configmaps/{}/{}-{}-provider.yaml", p.namespace, operator_type(p.ptype), p.name),
            yaml_file(&[snippet]),
        );
        if opts.oci {
            let (mt, ct) = oci::file_titles(operator_type(p.ptype), &p.name, &p.version);
            let layout = oci::write_layout(
                &p.version,
                &[
                    (mt, p.metadata.clone().into_bytes()),
                    (ct, p.components.clone().into_bytes()),
                ],
            );
            for (k, v) in layout {
                tree.insert(format!("oci/{unit}/{k}"), v);
            }
        }
        let objs = render_provider(p, &cfg)?;
        all_images.extend(images::images_of(&objs));
        rendered.push((p, objs));
    }
    let mirror = match &opts.image_registry {
        Some(r) => Some(images::mirror_map(&all_images, r)?),
        None => None,
    };
    for (p, mut objs) in rendered {
        if let Some(r) = &opts.image_registry {
            images::rewrite_objects(&mut objs, r)?;
        }
        tree.insert(
            format!("rendered/{}/{}-{}.yaml", p.namespace, operator_type(p.ptype), p.name),
            yaml_file(&objs),
        );
    }
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
    let (tree, summary) = build(paths, opts)?;
    super::stage::write_bundle(out, tree)?;
    Ok(summary)
}
