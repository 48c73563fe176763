//! Cluster templates and ClusterClasses: one namespace per file, every template a
//! ClusterClass references is among the inputs, every variable a patch or a Cluster
//! uses is declared, JSON patch paths exist in the selected template's schema (from
//! the CRDs among the inputs), `enabledIf` and value templates parse.

use std::collections::BTreeSet;

use serde_json::Value;

use super::crds::Index;
use super::{Doc, File, Finding, Severity};
use crate::components::filters::target_namespace::is_namespaced;
use crate::model::object::{api_version, get, group_of, str_at};

/// `cluster-template*.yaml` and `clusterclass-*.yaml` (spec R3.8).
pub fn is_template_file(name: &str) -> bool {
    (name.starts_with("cluster-template") || name.starts_with("clusterclass-"))
        && (name.ends_with(".yaml") || name.ends_with(".yml"))
}

/// template-namespace: the namespaced objects of one file share one namespace.
pub fn check_file(f: &File) -> Vec<Finding> {
    let mut first: Option<&str> = None;
    let mut out = Vec::new();
    for d in &f.docs {
        let ns = d.namespace();
        if ns.is_empty() || !is_namespaced(d.kind()) {
            continue;
        }
        match first {
            None => first = Some(ns),
            Some(f0) if f0 == ns => {}
            Some(f0) => out.push(d.finding(
                "template-namespace",
                Severity::Error,
                "metadata.namespace",
                format!(
                    "{} is in namespace {ns}, the file's first object in {f0}: clusterctl puts them all in one namespace",
                    d.describe()
                ),
            )),
        }
    }
    out
}

fn is_capi(d: &Doc) -> bool {
    group_of(api_version(&d.value)) == "cluster.x-k8s.io"
}

/// (path, ref) of every template reference of a ClusterClass (v1beta1 `ref`,
/// v1beta2 `templateRef`).
fn template_refs(cc: &Value) -> Vec<(String, &Value)> {
    fn push<'a>(out: &mut Vec<(String, &'a Value)>, path: String, v: Option<&'a Value>) {
        for key in ["ref", "templateRef"] {
            if let Some(r) = v.and_then(|v| v.get(key)) {
                out.push((format!("{path}.{key}"), r));
            }
        }
    }
    let mut out = Vec::new();
    push(
        &mut out,
        "spec.infrastructure".into(),
        get(cc, &["spec", "infrastructure"]),
    );
    push(
        &mut out,
        "spec.controlPlane".into(),
        get(cc, &["spec", "controlPlane"]),
    );
    push(
        &mut out,
        "spec.controlPlane.machineInfrastructure".into(),
        get(cc, &["spec", "controlPlane", "machineInfrastructure"]),
    );
    for pool in ["machineDeployments", "machinePools"] {
        if let Some(Value::Array(cs)) = get(cc, &["spec", "workers", pool]) {
            for (i, c) in cs.iter().enumerate() {
                for part in ["bootstrap", "infrastructure"] {
                    let base = format!("spec.workers.{pool}[{i}]");
                    push(
                        &mut out,
                        format!("{base}.template.{part}"),
                        get(c, &["template", part]),
                    );
                    push(&mut out, format!("{base}.{part}"), c.get(part));
                }
            }
        }
    }
    out
}

/// Builtin variables (`builtin.cluster.name`, ...) need no declaration.
fn declared(cc: &Value) -> BTreeSet<String> {
    let mut s: BTreeSet<String> = BTreeSet::from(["builtin".to_string()]);
    if let Some(Value::Array(vs)) = get(cc, &["spec", "variables"]) {
        for v in vs {
            if let Some(n) = v.get("name").and_then(Value::as_str) {
                s.insert(n.to_string());
            }
        }
    }
    s
}

fn has_external_patches(cc: &Value) -> bool {
    matches!(get(cc, &["spec", "patches"]), Some(Value::Array(ps)) if ps.iter().any(|p| p.get("external").is_some()))
}

/// The top-level variable of a `valueFrom.variable` path (`a.b`, `a[0]`).
fn top_variable(path: &str) -> &str {
    path.split(['.', '[']).next().unwrap_or(path)
}

/// class-go-template (the text does not parse) and class-variable (it reads a
/// variable the class does not declare).
fn go_template(d: &Doc, path: String, text: &str, vars: &BTreeSet<String>, out: &mut Vec<Finding>) {
    let o = crate::gotemplate::Options::default();
    match crate::gotemplate::root_fields(text, &o) {
        Err(e) => out.push(d.finding(
            "class-go-template",
            Severity::Error,
            path,
            format!("{}: {e}", d.describe()),
        )),
        Ok(fields) => {
            for f in fields.iter().filter(|f| !vars.contains(*f)) {
                out.push(d.finding(
                    "class-variable",
                    Severity::Error,
                    path.clone(),
                    format!(
                        "the template reads .{f}, which ClusterClass {} does not declare",
                        d.name()
                    ),
                ));
            }
        }
    }
}

/// The ClusterClass rules, with the schemas of `index`.
pub fn check(docs: &[&Doc], index: &Index) -> Vec<Finding> {
    let mut out = Vec::new();
    let objects: BTreeSet<(&str, &str)> = docs.iter().map(|d| (d.kind(), d.name())).collect();
    for d in docs
        .iter()
        .filter(|d| d.kind() == "ClusterClass" && is_capi(d))
    {
        let cc = &d.value;
        for (path, r) in template_refs(cc) {
            let kind = str_at(r, &["kind"]);
            let name = str_at(r, &["name"]);
            if !objects.contains(&(kind, name)) {
                out.push(d.finding(
                    "class-template-ref",
                    Severity::Error,
                    path,
                    format!(
                        "ClusterClass {} references {kind} {name}, which is not among the inputs",
                        d.name()
                    ),
                ));
            }
        }
        let vars = declared(cc);
        let Some(Value::Array(patches)) = get(cc, &["spec", "patches"]) else {
            continue;
        };
        for (i, p) in patches.iter().enumerate() {
            if let Some(e) = p.get("enabledIf").and_then(Value::as_str) {
                go_template(
                    d,
                    format!("spec.patches[{i}].enabledIf"),
                    e,
                    &vars,
                    &mut out,
                );
            }
            let Some(Value::Array(defs)) = p.get("definitions") else {
                continue;
            };
            for (j, def) in defs.iter().enumerate() {
                let av = str_at(def, &["selector", "apiVersion"]);
                let kind = str_at(def, &["selector", "kind"]);
                let Some(Value::Array(jps)) = def.get("jsonPatches") else {
                    continue;
                };
                for (k, jp) in jps.iter().enumerate() {
                    let base = format!("spec.patches[{i}].definitions[{j}].jsonPatches[{k}]");
                    let ptr = str_at(jp, &["path"]);
                    if index.pointer_exists(av, kind, ptr) == Some(false) {
                        out.push(d.finding(
                            "class-patch-path",
                            Severity::Error,
                            format!("{base}.path"),
                            format!(
                                "patch {:?} path {ptr} is not in the schema of {kind} {av}",
                                str_at(p, &["name"])
                            ),
                        ));
                    }
                    if let Some(v) = get(jp, &["valueFrom", "variable"]).and_then(Value::as_str) {
                        let top = top_variable(v);
                        if !vars.contains(top) {
                            out.push(d.finding(
                                "class-variable",
                                Severity::Error,
                                format!("{base}.valueFrom.variable"),
                                format!("patch {:?} uses variable {top}, which ClusterClass {} does not declare", str_at(p, &["name"]), d.name()),
                            ));
                        }
                    }
                    if let Some(t) = get(jp, &["valueFrom", "template"]).and_then(Value::as_str) {
                        go_template(d, format!("{base}.valueFrom.template"), t, &vars, &mut out);
                    }
                }
            }
        }
    }
    out.extend(cluster_variables(docs));
    out
}

/// class-variable for Clusters: a topology variable (or override) its ClusterClass,
/// when it is among the inputs, does not declare.
fn cluster_variables(docs: &[&Doc]) -> Vec<Finding> {
    let mut out = Vec::new();
    for d in docs.iter().filter(|d| d.kind() == "Cluster" && is_capi(d)) {
        let t = &d.value;
        let class = match str_at(t, &["spec", "topology", "class"]) {
            "" => str_at(t, &["spec", "topology", "classRef", "name"]),
            c => c,
        };
        if class.is_empty() || class.contains("${") {
            continue;
        }
        let Some(cc) = docs
            .iter()
            .find(|c| c.kind() == "ClusterClass" && is_capi(c) && c.name() == class)
        else {
            continue;
        };
        // Variables of external patches come from the runtime extension.
        if has_external_patches(&cc.value) {
            continue;
        }
        let vars = declared(&cc.value);
        let mut check = |path: String, list: Option<&Value>| {
            if let Some(Value::Array(vs)) = list {
                for (i, v) in vs.iter().enumerate() {
                    let n = str_at(v, &["name"]);
                    if !vars.contains(n) {
                        out.push(d.finding(
                            "class-variable",
                            Severity::Error,
                            format!("{path}[{i}].name"),
                            format!("Cluster {} sets variable {n}, which ClusterClass {class} does not declare", d.name()),
                        ));
                    }
                }
            }
        };
        check(
            "spec.topology.variables".into(),
            get(t, &["spec", "topology", "variables"]),
        );
        for pool in ["machineDeployments", "machinePools"] {
            if let Some(Value::Array(ws)) = get(t, &["spec", "topology", "workers", pool]) {
                for (i, w) in ws.iter().enumerate() {
                    check(
                        format!("spec.topology.workers.{pool}[{i}].variables.overrides"),
                        get(w, &["variables", "overrides"]),
                    );
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn helpers() {
        assert!(is_template_file("cluster-template-dev.yaml"));
        assert!(is_template_file("clusterclass-quick-start.yaml"));
        assert!(!is_template_file("infrastructure-components.yaml"));
        assert_eq!(top_variable("a.b[0]"), "a");
        assert_eq!(top_variable("builtin.cluster.name"), "builtin");
        let cc = json!({"spec": {
            "infrastructure": {"ref": {"kind": "A", "name": "a"}},
            "controlPlane": {"templateRef": {"kind": "B", "name": "b"},
                "machineInfrastructure": {"ref": {"kind": "C", "name": "c"}}},
            "workers": {"machineDeployments": [{"template": {"bootstrap": {"ref": {"kind": "D", "name": "d"}}}}]},
            "variables": [{"name": "v"}],
            "patches": [{"external": {}}]}});
        let paths: Vec<String> = template_refs(&cc).into_iter().map(|(p, _)| p).collect();
        assert_eq!(
            paths,
            [
                "spec.infrastructure.ref",
                "spec.controlPlane.templateRef",
                "spec.controlPlane.machineInfrastructure.ref",
                "spec.workers.machineDeployments[0].template.bootstrap.ref"
            ]
        );
        assert!(declared(&cc).contains("v"));
        assert!(has_external_patches(&cc));
    }
}
