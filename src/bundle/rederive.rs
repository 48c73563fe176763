//! `bundle verify`'s second half: `rendered/` and `images.txt` re-derived from the
//! bundle's own content and compared byte for byte with what the bundle holds.
//!
//! The render is the one installing the bundle runs: the provider CRs, provider
//! ConfigMaps and mirror Secrets of `configmaps/` (each mirror Secret's `images` key
//! applied over the config Secret it names, as `kubectl apply` does), with what
//! `render-inputs/` recorded ([`super::inputs`]); cert-manager from
//! `repository/cert-manager/`. Nothing is read outside the bundle: every provider CR
//! must select its source with the bundle's `fetchConfig.selector` (no URL, no OCI
//! reference), and no `--repository` or config file is used.

use crate::model::pointer::Pointer as _;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::build::{render_options, BundleOptions};
use super::difference;
use super::images;
use super::inputs::yaml_file;
use super::stage::Tree;
use crate::error::{Error, Result};
use crate::model::InputObject;

/// The images file.
pub const IMAGES: &str = "images.txt";
/// The rendered tree.
pub const RENDERED: &str = "rendered/";
const CERT_MANAGER_DIR: &str = "repository/cert-manager/";

/// Every YAML document of `configmaps/`, as render inputs.
fn configmaps_docs(tree: &Tree) -> Result<Vec<InputObject>> {
    let mut out = Vec::new();
    for (path, bytes) in tree
        .range("configmaps/".to_string()..)
        .take_while(|(k, _)| k.starts_with("configmaps/"))
    {
        let text =
            std::str::from_utf8(bytes).map_err(|_| Error::new(format!("{path}: not UTF-8")))?;
        let docs = crate::yaml::parse_documents(text).map_err(|e| e.wrap(path))?;
        out.extend(
            docs.into_iter()
                .enumerate()
                .map(|(doc, value)| InputObject {
                    file: path.clone(),
                    doc,
                    value,
                }),
        );
    }
    Ok(out)
}

fn kind(v: &Value) -> &str {
    v.get("kind").and_then(Value::as_str).unwrap_or("")
}

fn key(v: &Value) -> (String, String) {
    let s = |p: &str| v.ptr(p).and_then(Value::as_str).unwrap_or("").to_string();
    (s("/metadata/namespace"), s("/metadata/name"))
}

/// The registry of a mirror Secret as `bundle --image-registry` writes it (only an
/// `images` key holding exactly [`images::mirror_secret_value`]).
fn mirror_registry(o: &InputObject) -> Result<String> {
    let at = || format!("{}, document {}: Secret", o.file, o.doc + 1);
    let allowed = ["apiVersion", "kind", "metadata", "type", "stringData"];
    let shape = o
        .value
        .as_object()
        .is_some_and(|m| m.keys().all(|k| allowed.contains(&k.as_str())))
        && o.value
            .get("stringData")
            .and_then(Value::as_object)
            .is_some_and(|m| m.len() == 1);
    let text = o.value.ptr("/stringData/images").and_then(Value::as_str);
    let reg = text
        .and_then(|t| crate::yaml::parse_value(t).ok())
        .and_then(|v| {
            v.ptr("/all/repository")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
    match (shape, text, reg) {
        (true, Some(t), Some(r)) if images::mirror_secret_value(&r) == t => {
            images::check_registry(&r).map_err(|e| e.wrap(at()))?;
            Ok(r)
        }
        _ => Err(Error::new(format!(
            "{}: not a mirror Secret as `bundle --image-registry` writes it (stringData with one key, images: {{all: {{repository: REG}}}})",
            at()
        ))),
    }
}

/// The render inputs of the bundle and its mirror registry, if any.
fn render_inputs(tree: &Tree, recorded: Vec<Value>) -> Result<(Vec<InputObject>, Option<String>)> {
    let mut objects = Vec::new();
    let mut secrets: BTreeMap<(String, String), InputObject> = BTreeMap::new();
    let mut extra = Vec::new();
    for (doc, value) in recorded.into_iter().enumerate() {
        let o = InputObject {
            file: super::inputs::OBJECTS.to_string(),
            doc,
            value,
        };
        if kind(&o.value) != "Secret" {
            extra.push(o);
        } else if secrets.insert(key(&o.value), o).is_some() {
            return Err(Error::new(format!(
                "{}: a Secret is recorded twice",
                super::inputs::OBJECTS
            )));
        }
    }
    let mut registry: Option<String> = None;
    for o in configmaps_docs(tree)? {
        if kind(&o.value) != "Secret" {
            objects.push(o);
            continue;
        }
        let r = mirror_registry(&o)?;
        if registry.as_ref().is_some_and(|x| *x != r) {
            return Err(Error::new(format!(
                "{}: mirror Secret for {r:?}, but another names {:?}; a bundle has one mirror",
                o.file,
                registry.unwrap_or_default()
            )));
        }
        registry = Some(r);
        // Applied over an existing config Secret, `images` replaces that key only.
        match secrets.get_mut(&key(&o.value)) {
            Some(s) => {
                let images = o.value["stringData"]["images"].clone();
                if !s.value.get("stringData").is_some_and(Value::is_object) {
                    s.value["stringData"] = serde_json::json!({});
                }
                s.value["stringData"]["images"] = images;
            }
            None => {
                secrets.insert(key(&o.value), o);
            }
        }
    }
    objects.extend(secrets.into_values());
    objects.extend(extra);
    Ok((objects, registry))
}

/// Every provider CR must read the bundle's own ConfigMap (`fetchConfig.selector`
/// only), and each needs a ConfigMap of its own.
fn check_providers(objects: &[InputObject]) -> Result<()> {
    let provs = crate::operator::providers(objects)?;
    if provs.is_empty() {
        return Err(Error::new(
            "configmaps/ holds no provider CR (<type>-<name>-provider.yaml)",
        ));
    }
    for p in &provs {
        let fc = p.spec.get("fetchConfig").and_then(Value::as_object);
        if !fc.is_some_and(|m| m.len() == 1 && m.contains_key("selector")) {
            return Err(p.error(
                "spec.fetchConfig must be the bundle's selector on its ConfigMap (a bundle reads nothing outside itself)",
            ));
        }
    }
    let cms = objects
        .iter()
        .filter(|o| kind(&o.value) == "ConfigMap")
        .count();
    if provs.len() > cms {
        return Err(Error::new(format!(
            "configmaps/ holds {} provider CRs but {cms} ConfigMaps; each provider has its own",
            provs.len()
        )));
    }
    Ok(())
}

/// The cert-manager release of `repository/cert-manager/<version>/cert-manager.yaml`.
fn cert_manager(tree: &Tree) -> Result<Option<crate::certmanager::Release>> {
    let files: Vec<(&String, &Vec<u8>)> = tree
        .range(CERT_MANAGER_DIR.to_string()..)
        .take_while(|(k, _)| k.starts_with(CERT_MANAGER_DIR))
        .collect();
    let (path, bytes) = match files.as_slice() {
        [] => return Ok(None),
        [one] => *one,
        _ => {
            return Err(Error::new(format!(
                "{CERT_MANAGER_DIR}: {} files; a bundle carries one cert-manager release",
                files.len()
            )))
        }
    };
    let rest = &path[CERT_MANAGER_DIR.len()..];
    let version = match rest.split_once('/') {
        Some((v, f)) if f == crate::certmanager::FILE => v.to_string(),
        _ => {
            return Err(Error::new(format!(
                "{path}: expected {CERT_MANAGER_DIR}<version>/{}",
                crate::certmanager::FILE
            )))
        }
    };
    let text =
        String::from_utf8(bytes.clone()).map_err(|_| Error::new(format!("{path}: not UTF-8")))?;
    Ok(Some(crate::certmanager::Release {
        version,
        text,
        path: path.into(),
        shown: path.clone(),
    }))
}

/// What `bundle` writes into `rendered/` and `images.txt` for this bundle's content.
pub fn expected(tree: &Tree) -> Result<Tree> {
    let recorded = super::inputs::read(tree)?;
    let (objects, registry) = render_inputs(tree, recorded.objects)?;
    check_providers(&objects)?;
    crate::admit::check(&objects)?;
    let ropts = render_options(&BundleOptions::default());
    let mut res = crate::operator::resolve::resolve(&objects, &ropts)?;
    if let Some(cfg) = recorded.config {
        res.config = cfg;
    }
    let rendered = crate::operator::render_resolved_with(&res, &objects, &ropts, None)?;
    let mut out = Tree::new();
    let mut all_images = BTreeSet::new();
    for (r, pr) in res.providers.iter().zip(rendered) {
        if registry.is_some() {
            all_images.extend(images::mirror_sources(&pr.unit.objects, &pr.image_moves).0);
        } else {
            all_images.extend(images::images_of(&pr.unit.objects));
        }
        let path = format!(
            "{RENDERED}{}/{}-{}.yaml",
            r.cr.namespace,
            r.cr.operator_type(),
            r.cr.name
        );
        out.insert(path, yaml_file(&pr.unit.objects));
    }
    if let Some(cm) = cert_manager(tree)? {
        let overrides = registry.as_deref().map(images::mirror_overrides);
        let override_images = overrides.as_ref().or(res.config.images.as_ref());
        let (objs, moves) =
            crate::certmanager::objects_and_moves(&cm, override_images, res.config.k8s())
                .map_err(|e| cm.error(e))?;
        if registry.is_some() {
            all_images.extend(images::mirror_sources(&objs, &moves).0);
        } else {
            all_images.extend(images::images_of(&objs));
        }
        out.insert(
            format!("{RENDERED}cert-manager/cert-manager.yaml"),
            yaml_file(&objs),
        );
    }
    let mirror = match &registry {
        Some(r) => Some(images::mirror_map(&all_images, r)?),
        None => None,
    };
    out.insert(
        IMAGES.to_string(),
        images::images_txt(&all_images, mirror.as_ref()).into_bytes(),
    );
    Ok(out)
}

/// An error as one bounded line.
fn one_line(e: &Error) -> String {
    let s: String = e
        .message()
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .take(difference::MAX_DETAIL)
        .collect();
    s
}

/// Compare `rendered/` and `images.txt` with [`expected`]; one problem per file
/// (`problems` so far: a file the sums already report missing is not repeated).
pub fn check(tree: &Tree, problems: &mut Vec<String>) {
    let want = match expected(tree) {
        Ok(w) => w,
        Err(e) => {
            problems.push(format!(
                "{RENDERED}: cannot re-derive rendered/ and images.txt from the bundle's configmaps/, render-inputs/ and repository/: {}",
                one_line(&e)
            ));
            return;
        }
    };
    let mut found = Vec::new();
    for (path, w) in &want {
        match tree.get(path) {
            None if problems.contains(&format!("{path}: missing")) => {}
            None => found.push(format!(
                "{path}: missing (the bundle's configmaps/ render it)"
            )),
            Some(h) if h != w => found.push(format!(
                "{path}: differs from what the bundle's configmaps/ and repository/ render: {}",
                difference::describe(w, h, path == IMAGES)
            )),
            Some(_) => {}
        }
    }
    for path in tree
        .range(RENDERED.to_string()..)
        .map(|(k, _)| k)
        .take_while(|k| k.starts_with(RENDERED))
        .filter(|k| !want.contains_key(*k))
    {
        found.push(format!(
            "{path}: not rendered by the bundle (no provider CR in configmaps/ and no repository/cert-manager/ release renders it)"
        ));
    }
    found.sort();
    problems.extend(found);
}
