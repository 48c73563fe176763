//! Workload-cluster templates (R8.1, R8.2, R8.4): flavors, substitution, namespace
//! enforcement, and the ClusterClasses a topology Cluster needs.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::components::filters::{group, kind, namespace, target_namespace::fix_target_namespace};
use crate::config::{Clusterctl, Config};
use crate::envsubst::processor;
use crate::error::{Error, Result};
use crate::repository::LocalRepository;

/// A processed template.
#[derive(Debug, Clone, Default)]
pub struct Template {
    /// Variable names, sorted.
    pub variables: Vec<String>,
    /// name → default (first occurrence), `None` when there is none.
    pub variable_map: BTreeMap<String, Option<String>>,
    pub target_namespace: String,
    /// The objects; empty in list-variables mode.
    pub objs: Vec<Value>,
}

impl Template {
    pub fn yaml(&self) -> String {
        crate::yaml::from_objects(&self.objs)
    }
}

/// `cluster-template.yaml` or `cluster-template-<flavor>.yaml`.
pub fn template_file_name(flavor: &str) -> String {
    if flavor.is_empty() {
        "cluster-template.yaml".to_string()
    } else {
        format!("cluster-template-{flavor}.yaml")
    }
}

/// `clusterclass-<name>.yaml`.
pub fn clusterclass_file_name(name: &str) -> String {
    format!("clusterclass-{name}.yaml")
}

/// R8.2 `NewTemplate` on raw text.
pub fn new_template(
    raw: &str,
    target_namespace: &str,
    skip_process: bool,
    config: &Config,
) -> Result<Template> {
    // One parse of the text for its variables and its substitution.
    let prepared = processor::Prepared::new(raw)?;
    let variables = prepared.variables();
    let variable_map = prepared.variable_map().into_iter().collect();
    let mut t = Template {
        variables,
        variable_map,
        target_namespace: target_namespace.to_string(),
        objs: vec![],
    };
    if skip_process {
        return Ok(t);
    }
    let processed = prepared.process(&|k: &str| config.get(k))?;
    drop(prepared);
    let mut objs =
        crate::yaml::parse_documents(&processed).map_err(|e| e.wrap("failed to parse yaml"))?;
    if !target_namespace.is_empty() {
        fix_target_namespace(&mut objs, target_namespace, config.k8s())
            .map_err(|e| e.wrap("failed to set the TargetNamespace in the template"))?;
    }
    t.objs = objs;
    Ok(t)
}

/// Read a file of the template set (cluster template or ClusterClass) from the repository.
fn read(repo: &LocalRepository, version: &str, file: &str) -> Result<(String, std::path::PathBuf)> {
    repo.read_with_override(version, file).map_err(|e| {
        e.wrap(format!(
            "failed to read {file:?} from provider's repository {:?}",
            repo.label
        ))
    })
}

/// R8.1: the template of `flavor` at `version` ("" → default, `latest` → latest release).
pub fn get(
    repo: &LocalRepository,
    version: &str,
    flavor: &str,
    target_namespace: &str,
    skip_process: bool,
    config: &Config,
) -> Result<Template> {
    if target_namespace.is_empty() {
        return Err(Error::new(
            "invalid arguments: please provide a targetNamespace",
        ));
    }
    let (raw, path) = read(repo, version, &template_file_name(flavor))?;
    new_template(&raw, target_namespace, skip_process, config)
        .map_err(|e| e.in_file(path.display()))
}

/// The (namespace, name) class keys of the topology Clusters in `objs` (R8.4), as the
/// clusterctl release `c` finds them: v1.10 converts every Cluster to v1beta1 (another
/// version is an error); v1.14 reads v1beta2 Clusters (`spec.topology.classRef`) and
/// v1beta1 ones (`class`, `classNamespace`) and passes over any other version.
pub fn cluster_class_keys(objs: &[Value], c: Clusterctl) -> Result<Vec<(String, String)>> {
    let mut keys = Vec::new();
    for o in objs
        .iter()
        .filter(|o| group(o) == "cluster.x-k8s.io" && kind(o) == "Cluster")
    {
        let key = match (
            c,
            crate::model::object::version_of(crate::model::object::api_version(o)),
        ) {
            (Clusterctl::V1_14, "v1beta2") => v1beta2_class_key(o)?,
            (Clusterctl::V1_14, "v1beta1") | (Clusterctl::V1_10, _) => v1beta1_class_key(o)?,
            _ => None,
        };
        keys.extend(key);
    }
    Ok(keys)
}

/// A string field of a Cluster's topology, as the typed conversion reads it.
fn topology_string(topo: &Value, path: &[&str]) -> Result<String> {
    let mut v = topo;
    for k in path {
        match v.get(k) {
            None | Some(Value::Null) => return Ok(String::new()),
            Some(x) => v = x,
        }
    }
    match v {
        Value::String(s) => Ok(s.clone()),
        _ => Err(Error::new(format!(
            "failed to convert object to Cluster: .spec.topology.{}: expected a string",
            path.join(".")
        ))),
    }
}

/// The class key of a v1beta1 Cluster: `class`, in `classNamespace` or the Cluster's own.
/// The conversion checks the Cluster against clusterctl v1.10's v1beta1 type (the one our
/// models have; v1.14's reads the fields used here alike).
fn v1beta1_class_key(o: &Value) -> Result<Option<(String, String)>> {
    crate::components::filters::typed_round_trip(
        o,
        "cluster.x-k8s.io/v1beta1",
        crate::typed::K8s::V0_32,
    )
    .map_err(|e| e.wrap("failed to convert object to Cluster"))?;
    let Some(topo) = o
        .get("spec")
        .and_then(|s| s.get("topology"))
        .filter(|t| !t.is_null())
    else {
        return Ok(None);
    };
    let class = topology_string(topo, &["class"])?;
    let class_ns = topology_string(topo, &["classNamespace"])?;
    Ok(Some((or_namespace(class_ns, o), class)))
}

/// The class key of a v1beta2 Cluster: `classRef.name`, in `classRef.namespace` or the
/// Cluster's own; none when the topology is the zero value (`Topology.IsDefined`).
fn v1beta2_class_key(o: &Value) -> Result<Option<(String, String)>> {
    let Some(topo) = o.get("spec").and_then(|s| s.get("topology")) else {
        return Ok(None);
    };
    let name = topology_string(topo, &["classRef", "name"])?;
    let class_ns = topology_string(topo, &["classRef", "namespace"])?;
    if is_zero(topo) {
        return Ok(None);
    }
    Ok(Some((or_namespace(class_ns, o), name)))
}

/// Whether a decoded value is its Go type's zero value as far as a JSON object can
/// tell: null, `""`, `0`, `false`, and objects holding only such values.
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(_) => false,
        Value::Object(m) => m.values().all(is_zero),
    }
}

fn or_namespace(class_ns: String, o: &Value) -> String {
    if class_ns.is_empty() {
        namespace(o).to_string()
    } else {
        class_ns
    }
}

/// `MergeTemplates`: objects concatenated, variables the sorted union, the first
/// non-nil default wins, the target namespace blanked if they differ.
pub fn merge(templates: Vec<Template>) -> Option<Template> {
    let mut it = templates.into_iter();
    let first = it.next()?;
    let mut merged = Template {
        target_namespace: first.target_namespace.clone(),
        ..Default::default()
    };
    for t in std::iter::once(first).chain(it) {
        let mut vars: std::collections::BTreeSet<String> = merged.variables.drain(..).collect();
        vars.extend(t.variables.iter().cloned());
        merged.variables = vars.into_iter().collect();
        for (k, v) in t.variable_map {
            let slot = merged.variable_map.entry(k).or_insert(None);
            if slot.is_none() {
                *slot = v;
            }
        }
        if merged.target_namespace != t.target_namespace {
            merged.target_namespace.clear();
        }
        merged.objs.extend(t.objs);
    }
    Some(merged)
}

/// R8.4 offline: every class key, in order, pulls `clusterclass-<name>.yaml` from the
/// same repository and version (no de-duplication); ClusterClasses come first.
pub fn add_cluster_classes(
    template: Template,
    repo: &LocalRepository,
    version: &str,
    skip_process: bool,
    config: &Config,
) -> Result<Template> {
    let keys = cluster_class_keys(&template.objs, config.clusterctl)?;
    if keys.is_empty() {
        return Ok(template);
    }
    let mut classes = Vec::new();
    for (ns, name) in keys {
        let t = (|| {
            if ns.is_empty() {
                return Err(Error::new(
                    "invalid arguments: please provide a targetNamespace",
                ));
            }
            let (raw, path) = read(repo, version, &clusterclass_file_name(&name))?;
            new_template(&raw, &ns, skip_process, config).map_err(|e| e.in_file(path.display()))
        })()
        .map_err(|e| {
            e.wrap(format!(
                "failed to get the cluster class template for \"{ns}/{name}\""
            ))
        })?;
        classes.push(t);
    }
    let mut all: Vec<Template> = merge(classes).into_iter().collect();
    all.push(template);
    Ok(merge(all).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn file_names() {
        assert_eq!(template_file_name(""), "cluster-template.yaml");
        assert_eq!(template_file_name("dev"), "cluster-template-dev.yaml");
        assert_eq!(
            clusterclass_file_name("quick-start"),
            "clusterclass-quick-start.yaml"
        );
    }

    #[test]
    fn class_keys_use_class_namespace_then_cluster_namespace() {
        let objs = vec![
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "metadata": {"namespace": "a"},
                   "spec": {"topology": {"class": "c1"}}}),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "metadata": {"namespace": "a"},
                   "spec": {"topology": {"class": "c2", "classNamespace": "shared"}}}),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "spec": {}}),
        ];
        assert_eq!(
            cluster_class_keys(&objs, Clusterctl::V1_10).unwrap(),
            vec![
                ("a".to_string(), "c1".to_string()),
                ("shared".to_string(), "c2".to_string())
            ]
        );
    }

    #[test]
    fn old_cluster_versions_are_rejected_like_clusterctl() {
        let objs = vec![json!({"apiVersion": "cluster.x-k8s.io/v1alpha4", "kind": "Cluster"})];
        assert!(cluster_class_keys(&objs, Clusterctl::V1_10)
            .unwrap_err()
            .message()
            .starts_with("failed to convert object to Cluster: no kind"));
    }

    #[test]
    fn merge_keeps_first_non_nil_default() {
        let t = |vars: &[(&str, Option<&str>)], ns: &str| Template {
            variables: vars.iter().map(|(k, _)| k.to_string()).collect(),
            variable_map: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
                .collect(),
            target_namespace: ns.into(),
            objs: vec![],
        };
        let m = merge(vec![
            t(&[("A", None), ("B", Some("b"))], "x"),
            t(&[("A", Some("a")), ("C", None)], "y"),
        ])
        .unwrap();
        assert_eq!(m.variables, ["A", "B", "C"]);
        assert_eq!(m.variable_map["A"].as_deref(), Some("a"));
        assert_eq!(m.target_namespace, "");
    }
}
