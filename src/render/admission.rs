//! `render`'s admission step ([`crate::admission`], issue 58): every
//! `cluster.x-k8s.io/v1beta2` ClusterClass among the inputs, then every v1beta2 topology
//! Cluster against its admitted class, through the API server's CRD handling and Cluster
//! API v1.14.2's webhooks, before anything renders. A refusal is an error naming the
//! file, the document and the line of the field; under `--field-validation warn` a
//! pruned field is a warning and the topology engine reads the object as stored.

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;
use serde_json::Value;

use super::inputs::PendingCluster;
use crate::admission::{self, CoreCrds, FieldValidation, Refusal};
use crate::model::{InputObject, RenderedUnit};
use crate::topology::v1beta2::{is_cluster, is_cluster_class};

/// The core CRDs admission checks against: the core provider's the tree installs, else
/// the newest core release's in `--repository` (only read when there is a v1beta2
/// object), else none (the built-in ones serve).
fn core_crds(
    providers: &[RenderedUnit],
    repository: Option<&Path>,
    needed: bool,
) -> crate::Result<Option<CoreCrds>> {
    let installed = CoreCrds::from_objects(
        providers.iter().flat_map(|u| &u.objects),
        "the core provider the tree installs",
    );
    if installed.serves("v1beta2") || installed.serves("v1beta1") {
        return Ok(Some(installed));
    }
    match repository {
        Some(dir) if needed => {
            let crds = super::crd_check::repository_crds(dir)?;
            let c = CoreCrds::from_objects(
                &crds,
                &format!("the newest core release in {}", dir.display()),
            );
            Ok(c.serves("v1beta2").then_some(c))
        }
        _ => Ok(None),
    }
}

fn namespace_of(v: &Value) -> &str {
    match v.pointer("/metadata/namespace").and_then(Value::as_str) {
        Some(ns) if !ns.is_empty() => ns,
        _ => "default",
    }
}

fn name_of(v: &Value) -> &str {
    v.pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The line of `field` in document `doc` of `file` (read again: only a refusal asks).
fn field_line(file: &str, doc: usize, field: &str) -> Option<usize> {
    // A named list item (`machineDeployments[md-0]`) as its index in the document.
    let parsed = |d: &str| {
        crate::yaml::read::parse_documents(d)
            .ok()?
            .into_iter()
            .next()
    };
    let limit = crate::limits::Limits::current().file_bytes;
    let text = crate::limits::read_text_within(Path::new(file), file, limit, |e| {
        crate::Error::new(e.to_string())
    })
    .ok()??;
    let docs = crate::yaml::split::split_documents_at(&text).ok()?;
    let (start, d) = docs.get(doc)?;
    let field = match parsed(d) {
        Some(v) => crate::yaml::field_line::resolve_list_keys(&v, field),
        None => field.to_string(),
    };
    let (line, _) = crate::yaml::field_line::field_position(d, &field)?;
    Some(start + line - 1)
}

/// A refusal as render's error: file, document, line, the object, the message.
pub(super) fn refusal_error(file: &str, doc: usize, who: &str, r: &Refusal) -> crate::Error {
    let at = match field_line(file, doc, &r.field) {
        Some(l) => format!("{file}, document {}, line {l}", doc + 1),
        None => format!("{file}, document {}", doc + 1),
    };
    let mut msg = format!("{at}: {who}: {}", r.message);
    for l in &r.lines {
        msg.push_str("\n  ");
        msg.push_str(l);
    }
    crate::Error::new(msg)
        .with_hint(r.hint.clone())
        .in_file(file)
}

/// `stored` as the topology engine reads it: the object as decoded, its own `status`
/// (admission's computed status variables are not input).
fn as_input(raw: &Value, mut stored: Value) -> Value {
    if let Some(m) = stored.as_object_mut() {
        match raw.get("status") {
            Some(s) => m.insert("status".into(), s.clone()),
            None => m.remove("status"),
        };
    }
    stored
}

/// Admits every v1beta2 ClusterClass of `objects` and every v1beta2 topology Cluster of
/// `clusters` (deferred ones are not read again), in input order; under warn, an object
/// with pruned fields is replaced by its stored form. The warnings, each naming its
/// object.
pub(super) fn admit(
    objects: &mut [InputObject],
    clusters: &mut [PendingCluster],
    providers: &[RenderedUnit],
    repository: Option<&Path>,
    mode: FieldValidation,
    v1beta2_core: bool,
) -> crate::Result<Vec<String>> {
    use crate::topology::input;
    // v1beta1 objects are admitted under a v1.11+ core (the API server converts them).
    let v1beta1_class = |v: &Value| v1beta2_core && input::is_cluster_class(v);
    let any_class = objects
        .iter()
        .any(|o| is_cluster_class(&o.value) || v1beta1_class(&o.value));
    let any_cluster = clusters.iter().any(|c| c.value.is_some());
    if !any_class && !any_cluster {
        return Ok(Vec::new());
    }
    let crds = core_crds(providers, repository, true)?;
    let mut warnings = Vec::new();
    let mut classes: HashMap<(String, String), Value> = HashMap::new();
    for o in objects.iter_mut().filter(|o| is_cluster_class(&o.value)) {
        let who = format!(
            "ClusterClass {}/{}",
            namespace_of(&o.value),
            name_of(&o.value)
        );
        let a = admission::admit_class(&o.value, crds.as_ref(), mode)
            .map_err(|r| refusal_error(&o.file, o.doc, &who, &r))?;
        let pruned = mode == FieldValidation::Warn
            && a.warnings
                .iter()
                .any(|w| w.ends_with("(--field-validation warn)"));
        warnings.extend(
            a.warnings
                .iter()
                .map(|w| format!("{}, document {}: {who}: {w}", o.file, o.doc + 1)),
        );
        let key = (
            namespace_of(&o.value).to_string(),
            name_of(&o.value).to_string(),
        );
        if pruned {
            o.value = as_input(&o.value, a.value.clone());
        }
        if is_cluster_class(&o.value) {
            classes.insert(key, a.value);
        }
    }
    // A class whose variables a runtime extension discovers has its status variables
    // only when render calls the extension: the Cluster's variables are defaulted and
    // validated then (the topology engine), not here.
    let discovers = |cc: &Value| {
        cc.pointer("/spec/patches")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|p| p.pointer("/external/discoverVariablesExtension").is_some())
    };
    let prepared: HashMap<&(String, String), admission::cluster::Class> = classes
        .iter()
        .map(|(k, v)| {
            let mut c = admission::cluster::Class::new(v);
            if discovers(v) {
                c.reconciled = false;
            }
            (k, c)
        })
        .collect();
    let results: Vec<crate::Result<(Option<Value>, Vec<String>)>> = clusters
        .par_iter()
        .map(|c| {
            let Some(compact) = &c.value else {
                return Ok((None, Vec::new()));
            };
            let v = compact.decode();
            if v1beta2_core && input::is_cluster(&v) {
                let who = format!("Cluster {}/{}", namespace_of(&v), name_of(&v));
                let a = admission::admit_v1beta1_cluster(&v, crds.as_ref(), mode)
                    .map_err(|r| refusal_error(&c.file, c.doc, &who, &r))?;
                let shown = a
                    .warnings
                    .iter()
                    .map(|w| format!("{}, document {}: {who}: {w}", c.file, c.doc + 1))
                    .collect();
                let pruned = mode == FieldValidation::Warn && !a.warnings.is_empty();
                return Ok((pruned.then(|| as_input(&v, a.value)), shown));
            }
            if !is_cluster(&v) {
                return Ok((None, Vec::new()));
            }
            let ns = namespace_of(&v).to_string();
            let class_ns = v
                .pointer("/spec/topology/classRef/namespace")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .unwrap_or(&ns)
                .to_string();
            let class_name = v
                .pointer("/spec/topology/classRef/name")
                .and_then(Value::as_str)
                .unwrap_or("");
            let class = prepared.get(&(class_ns, class_name.to_string()));
            let who = format!("Cluster {ns}/{}", name_of(&v));
            let a = admission::admit_cluster(&v, class, crds.as_ref(), mode)
                .map_err(|r| refusal_error(&c.file, c.doc, &who, &r))?;
            let discovered = class.is_some_and(|k| discovers(k.cc));
            let shown: Vec<String> = a
                .warnings
                .iter()
                // A class not among the inputs is render's own error, with its hint.
                .filter(|w| !w.contains("this ClusterClass does not exist"))
                .filter(|w| !(discovered && w.contains("hasn't been successfully reconciled")))
                .map(|w| format!("{}, document {}: {who}: {w}", c.file, c.doc + 1))
                .collect();
            let pruned = mode == FieldValidation::Warn
                && a.warnings
                    .iter()
                    .any(|w| w.ends_with("(--field-validation warn)"));
            Ok((pruned.then(|| as_input(&v, a.value)), shown))
        })
        .collect();
    for (c, r) in clusters.iter_mut().zip(results) {
        let (replaced, w) = r?;
        warnings.extend(w);
        if let Some(v) = replaced {
            c.value = Some(crate::model::compact::Compact::encode(&v));
        }
    }
    Ok(warnings)
}
