//! `render-inputs/`: what the bundle's render read that the rest of the bundle does
//! not carry, so that `bundle verify` can re-render `rendered/` and `images.txt` from
//! the bundle alone:
//!
//! * `render-inputs/objects.yaml`: the providers' config Secrets (`spec.configSecret`),
//!   reduced to the keys the components (and additional manifests) name as `${VAR}`
//!   plus `images`, as `stringData`; and their additional-manifests ConfigMaps
//!   (`spec.additionalManifests`), `data.manifests` only. Name and namespace only
//!   in `metadata`.
//! * `render-inputs/clusterctl.yaml`: the `images:` section of `--config` (the
//!   operator's own image overrides, R8, and cert-manager's).
//!
//! Each file is written only when it has content. Reading checks the shape strictly:
//! nothing else may hide there (no provider CR, no provider ConfigMap, no other config
//! key).

use crate::model::pointer::Pointer as _;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{json, Map, Value};

use super::stage::Tree;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::model::InputObject;
use crate::operator::resolve::Resolution;
use crate::operator::secret;

/// The directory.
pub const DIR: &str = "render-inputs/";
/// Secrets and ConfigMaps the providers read.
pub const OBJECTS: &str = "render-inputs/objects.yaml";
/// The `images:` section of the clusterctl config.
pub const CONFIG: &str = "render-inputs/clusterctl.yaml";

/// `(namespace, name)` of `spec.<field>` (`configSecret`, `additionalManifests`).
fn reference(spec: &Value, field: &str) -> Option<(String, String)> {
    let r = spec.get(field).and_then(Value::as_object)?;
    let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    Some((s("namespace"), s("name")))
}

/// The `v1` ConfigMap `ns/name` among `objects` (as the operator pipeline finds it).
fn find_configmap<'a>(objects: &'a [InputObject], ns: &str, name: &str) -> Option<&'a Value> {
    objects.iter().map(|o| &o.value).find(|v| {
        v.get("kind").and_then(Value::as_str) == Some("ConfigMap")
            && v.get("apiVersion").and_then(Value::as_str) == Some("v1")
            && v.ptr("/metadata/namespace").and_then(Value::as_str) == Some(ns)
            && v.ptr("/metadata/name").and_then(Value::as_str) == Some(name)
    })
}

/// The `${VAR}` names of `text` (all of them when it does not parse: the render
/// would have failed on it).
fn variable_names(text: &str) -> Option<BTreeSet<String>> {
    crate::envsubst::processor::get_variable_map(text)
        .ok()
        .map(|m| m.into_keys().collect())
}

fn meta(ns: &str, name: &str) -> Value {
    json!({"name": name, "namespace": ns})
}

/// The files of `render-inputs/` for a bundle of `res` rendered from `objects` with
/// the clusterctl config `res.config`.
pub fn record(objects: &[InputObject], res: &Resolution) -> Result<Vec<(String, Vec<u8>)>> {
    let mut secrets: BTreeMap<(String, String), BTreeMap<String, String>> = BTreeMap::new();
    let mut manifests: BTreeMap<(String, String), Option<String>> = BTreeMap::new();
    for r in &res.providers {
        let mut names = variable_names(&r.release.components);
        if let Some((ns, name)) = reference(&r.cr.spec, "additionalManifests") {
            let text = find_configmap(objects, &ns, &name)
                .and_then(|cm| cm.ptr("/data/manifests"))
                .and_then(Value::as_str)
                .map(str::to_string);
            if let (Some(n), Some(t)) = (names.as_mut(), &text) {
                match variable_names(t) {
                    Some(more) => n.extend(more),
                    None => names = None,
                }
            }
            manifests.insert((ns, name), text);
        }
        let Some((ns, name)) = reference(&r.cr.spec, "configSecret") else {
            continue;
        };
        let Some(s) = secret::find_secret(objects, &ns, &name) else {
            continue;
        };
        let vars = secret::variables(&s.value)?;
        let kept = secrets.entry((ns, name)).or_default();
        for (k, v) in vars {
            if k == "images" || names.as_ref().is_none_or(|n| n.contains(&k)) {
                kept.insert(k, v);
            }
        }
    }
    let mut objs = Vec::new();
    for ((ns, name), text) in manifests {
        let mut cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(&ns, &name)});
        if let Some(t) = text {
            cm["data"] = json!({ "manifests": t });
        }
        objs.push(cm);
    }
    for ((ns, name), vars) in secrets {
        objs.push(
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": meta(&ns, &name),
                         "type": "Opaque", "stringData": vars}),
        );
    }
    let mut out = Vec::new();
    if !objs.is_empty() {
        out.push((OBJECTS.to_string(), yaml_file(&objs)));
    }
    if let Some(imgs) = res.config.images_as_written() {
        let m: Map<String, Value> = imgs
            .iter()
            .map(|(k, i)| {
                let v = json!({"repository": i.repository, "name": i.name, "tag": i.tag});
                (k.clone(), v)
            })
            .collect();
        out.push((CONFIG.to_string(), yaml_file(&[json!({ "images": m })])));
    }
    Ok(out)
}

/// What `render-inputs/` holds, read back for `bundle verify`.
#[derive(Debug, Default)]
pub struct Recorded {
    /// The Secrets and ConfigMaps of `objects.yaml`.
    pub objects: Vec<Value>,
    /// `clusterctl.yaml`, when present.
    pub config: Option<Config>,
}

fn text_of<'a>(tree: &'a Tree, path: &str) -> Result<Option<&'a str>> {
    tree.get(path)
        .map(|b| std::str::from_utf8(b).map_err(|_| Error::new(format!("{path}: not UTF-8"))))
        .transpose()
}

/// Only `allowed` keys in the mapping at `v` (`at` names it in the error).
fn only_keys(v: &Value, allowed: &[&str], at: &str) -> Result<()> {
    let Some(m) = v.as_object() else {
        return Err(Error::new(format!("{at}: must be a mapping")));
    };
    match m.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(Error::new(format!(
            "{at}: unexpected key {:?} (a bundle records only {})",
            k.chars().take(80).collect::<String>(),
            allowed.join(", ")
        ))),
        None => Ok(()),
    }
}

/// Read `render-inputs/` from the bundle's files, checking its shape.
pub fn read(tree: &Tree) -> Result<Recorded> {
    if let Some(other) = tree
        .range(DIR.to_string()..)
        .take_while(|(k, _)| k.starts_with(DIR))
        .map(|(k, _)| k)
        .find(|k| *k != OBJECTS && *k != CONFIG)
    {
        return Err(Error::new(format!(
            "{other}: not a file a bundle records (only {OBJECTS} and {CONFIG})"
        )));
    }
    let mut out = Recorded::default();
    if let Some(text) = text_of(tree, OBJECTS)? {
        let docs = crate::yaml::parse_documents(text).map_err(|e| e.wrap(OBJECTS))?;
        for (i, d) in docs.into_iter().enumerate() {
            let at = format!("{OBJECTS}, document {}", i + 1);
            let kind = d.get("kind").and_then(Value::as_str).unwrap_or("");
            let data = match kind {
                "Secret" => ["stringData", "type"],
                "ConfigMap" => ["data", "data"],
                _ => {
                    return Err(Error::new(format!(
                        "{at}: kind {kind:?}: only config Secrets and additional-manifests ConfigMaps are recorded"
                    )))
                }
            };
            only_keys(
                &d,
                &["apiVersion", "kind", "metadata", data[0], data[1]],
                &at,
            )?;
            only_keys(
                &d["metadata"],
                &["name", "namespace"],
                &format!("{at}: metadata"),
            )?;
            if d.get("apiVersion").and_then(Value::as_str) != Some("v1") {
                return Err(Error::new(format!("{at}: apiVersion must be v1")));
            }
            out.objects.push(d);
        }
    }
    if let Some(text) = text_of(tree, CONFIG)? {
        let v = crate::yaml::parse_value(text).map_err(|e| e.wrap(CONFIG))?;
        only_keys(&v, &["images"], CONFIG)?;
        out.config = Some(Config::from_text(text, Path::new(CONFIG), BTreeMap::new())?);
    }
    Ok(out)
}

/// The bundle's YAML for `objs` (a final newline).
pub(super) fn yaml_file(objs: &[Value]) -> Vec<u8> {
    let mut s = crate::yaml::from_objects(objs);
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> Tree {
        files
            .iter()
            .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn recorded_secrets_configmaps_and_images_read_back() {
        let t = tree(&[
            (
                OBJECTS,
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra, namespace: a}\ndata: {manifests: 'kind: X'}\n---\n\
                 apiVersion: v1\nkind: Secret\nmetadata: {name: vars, namespace: a}\ntype: Opaque\nstringData: {K: v}\n",
            ),
            (CONFIG, "images:\n  all:\n    repository: r.example\n    name: ''\n    tag: ''\n"),
        ]);
        let r = read(&t).unwrap();
        assert_eq!(r.objects.len(), 2);
        let cfg = r.config.unwrap();
        assert_eq!(cfg.images.unwrap()["all"].repository, "r.example");
    }

    #[test]
    fn anything_else_in_render_inputs_is_refused() {
        for (files, want) in [
            (
                vec![("render-inputs/x.yaml", "")],
                "render-inputs/x.yaml: not a file",
            ),
            (
                vec![(
                    OBJECTS,
                    "apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\n",
                )],
                "kind \"CoreProvider\"",
            ),
            (
                vec![(
                    OBJECTS,
                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, labels: {a: b}}\n",
                )],
                "metadata: unexpected key",
            ),
            (
                vec![(
                    OBJECTS,
                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\nbinaryData: {}\n",
                )],
                "unexpected key",
            ),
            (vec![(CONFIG, "providers: []\n")], "unexpected key"),
            (vec![(CONFIG, "- a\n")], "must be a mapping"),
        ] {
            let e = read(&tree(&files)).unwrap_err();
            assert!(e.message().contains(want), "{want}: {e}");
        }
    }
}
