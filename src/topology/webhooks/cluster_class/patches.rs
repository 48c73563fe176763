//! The ClusterClass webhook's patch checks (patch_validation.go): JSON patches (ops,
//! paths, array indexes, value/valueFrom, variables) and selectors.

use std::collections::BTreeSet;

use serde_json::Value;

use super::template_parse_error;
use crate::go::json::{marshal_indent, write_indented};
use crate::topology::obj;
use crate::topology::variables::field_error::{self as fe, BadValue, FieldError};

const BUILTINS: &[&str] = &[
    "builtin",
    "builtin.cluster",
    "builtin.cluster.name",
    "builtin.cluster.namespace",
    "builtin.cluster.uid",
    "builtin.cluster.metadata.labels",
    "builtin.cluster.metadata.annotations",
    "builtin.cluster.topology",
    "builtin.cluster.topology.class",
    "builtin.cluster.topology.classNamespace",
    "builtin.cluster.topology.version",
    "builtin.cluster.network",
    "builtin.cluster.network.serviceDomain",
    "builtin.cluster.network.services",
    "builtin.cluster.network.pods",
    "builtin.cluster.network.ipFamily",
    "builtin.controlPlane",
    "builtin.controlPlane.name",
    "builtin.controlPlane.replicas",
    "builtin.controlPlane.version",
    "builtin.controlPlane.metadata.labels",
    "builtin.controlPlane.metadata.annotations",
    "builtin.controlPlane.machineTemplate.infrastructureRef.name",
    "builtin.machineDeployment",
    "builtin.machineDeployment.class",
    "builtin.machineDeployment.name",
    "builtin.machineDeployment.replicas",
    "builtin.machineDeployment.topologyName",
    "builtin.machineDeployment.version",
    "builtin.machineDeployment.metadata.labels",
    "builtin.machineDeployment.metadata.annotations",
    "builtin.machineDeployment.bootstrap.configRef.name",
    "builtin.machineDeployment.infrastructureRef.name",
    "builtin.machinePool",
    "builtin.machinePool.class",
    "builtin.machinePool.name",
    "builtin.machinePool.replicas",
    "builtin.machinePool.topologyName",
    "builtin.machinePool.version",
    "builtin.machinePool.metadata.labels",
    "builtin.machinePool.metadata.annotations",
    "builtin.machinePool.bootstrap.configRef.name",
    "builtin.machinePool.infrastructureRef.name",
];

/// A `clusterv1.JSONPatch` as Go prints it: op, path, value, valueFrom in field order.
fn pretty_json_patch(p: &Value) -> String {
    let mut s = format!(
        "{{\n  \"op\": {},\n  \"path\": {}",
        crate::go::json::marshal(&Value::from(obj::str_at(p, &["op"]))),
        crate::go::json::marshal(&Value::from(obj::str_at(p, &["path"])))
    );
    if let Some(v) = p.get("value").filter(|v| !v.is_null()) {
        let mut t = String::new();
        write_indented(v, 1, &mut t);
        s.push_str(&format!(",\n  \"value\": {t}"));
    }
    if let Some(Value::Object(vf)) = p.get("valueFrom") {
        let mut parts = Vec::new();
        for k in ["variable", "template"] {
            if let Some(x) = vf.get(k).and_then(Value::as_str) {
                parts.push(format!(
                    "    \"{k}\": {}",
                    crate::go::json::marshal(&Value::from(x))
                ));
            }
        }
        if parts.is_empty() {
            s.push_str(",\n  \"valueFrom\": {}");
        } else {
            s.push_str(&format!(
                ",\n  \"valueFrom\": {{\n{}\n  }}",
                parts.join(",\n")
            ));
        }
    }
    s.push_str("\n}");
    s
}

/// The builtins CAPI v1.13 adds to [`BUILTINS`] (v1beta2 ClusterClasses); it also
/// drops `builtin.cluster.network.ipFamily`.
const HEAD_ONLY_BUILTINS: &[&str] = &[
    "builtin.cluster.topology.classRef.name",
    "builtin.cluster.topology.classRef.namespace",
];

fn is_builtin(v: &str, head: bool) -> bool {
    if head {
        v != "builtin.cluster.network.ipFamily"
            && (BUILTINS.contains(&v) || HEAD_ONLY_BUILTINS.contains(&v))
    } else {
        BUILTINS.contains(&v)
    }
}

pub(super) fn json_patches(
    patches: &[Value],
    var_names: &BTreeSet<String>,
    path: &str,
    head: bool,
    errs: &mut Vec<FieldError>,
) {
    for (i, p) in patches.iter().enumerate() {
        let ip = fe::index(path, i);
        let op = obj::str_at(p, &["op"]);
        if !["add", "replace", "remove"].contains(&op) {
            errs.push(FieldError::not_supported(
                &fe::child(&ip, "op"),
                BadValue::Str(pretty_json_patch(p)),
                &["add".into(), "remove".into(), "replace".into()],
            ));
        }
        let jp = obj::str_at(p, &["path"]);
        if let Some(detail) = path_error(jp, head) {
            errs.push(FieldError::invalid(
                &fe::child(&ip, "path"),
                BadValue::Str(pretty_json_patch(p)),
                detail,
            ));
        }
        index_access(op, jp, &fe::child(&ip, "path"), errs);
        if op == "add" || op == "replace" {
            json_patch_values(p, var_names, &ip, head, errs);
        }
    }
}

/// The path rule of `validateJSONPatches`: v1.10 wants `/spec/`; since v1.13 (`head`) a
/// path only has to start with `/spec`, so a patch may set `/spec` itself.
fn path_error(jp: &str, head: bool) -> Option<&'static str> {
    match head {
        false if !jp.starts_with("/spec/") => Some("jsonPatch path must start with \"/spec/\""),
        true if !jp.starts_with("/spec") => Some("jsonPatch path must start with \"/spec\""),
        _ => None,
    }
}

/// `validateIndexAccess`: every path segment `strconv.Atoi` accepts is an index; `add`
/// allows only 0, `replace` and `remove` none (one error per segment, as Go).
fn index_access(op: &str, jp: &str, path: &str, errs: &mut Vec<FieldError>) {
    for seg in jp.split('/') {
        let Ok(index) = crate::go::strconv::parse_int(seg) else {
            continue;
        };
        if op == "add" && index != 0 {
            errs.push(FieldError::invalid(
                path,
                BadValue::Str(jp.to_string()),
                "arrays can only be accessed using \"0\" (prepend) or \"-\" (append)",
            ));
        }
        if op == "replace" || op == "remove" {
            errs.push(FieldError::invalid(
                path,
                BadValue::Str(jp.to_string()),
                format!("elements in arrays can not be accessed in a {op} operation"),
            ));
        }
    }
}

/// A `clusterv1.JSONPatchValue` as Go's `json.MarshalIndent` prints it: variable, then
/// template, each omitted when unset.
fn pretty_value_from(vf: &Value) -> String {
    let parts: Vec<String> = ["variable", "template"]
        .iter()
        .filter_map(|k| {
            let x = vf.get(*k).and_then(Value::as_str)?;
            Some(format!(
                "  \"{k}\": {}",
                crate::go::json::marshal(&Value::from(x))
            ))
        })
        .collect();
    if parts.is_empty() {
        return "{}".into();
    }
    format!("{{\n{}\n}}", parts.join(",\n"))
}

/// `validateJSONPatchValues` for an `add` / `replace` patch at `ip`.
fn json_patch_values(
    p: &Value,
    var_names: &BTreeSet<String>,
    ip: &str,
    head: bool,
    errs: &mut Vec<FieldError>,
) {
    let value = p.get("value").filter(|v| !v.is_null());
    let from = p.get("valueFrom").filter(|v| !v.is_null());
    if value.is_none() && from.is_none() {
        errs.push(FieldError::invalid(
            ip,
            BadValue::Str(pretty_json_patch(p)),
            "jsonPatch must define one of value or valueFrom",
        ));
    }
    if value.is_some() && from.is_some() {
        errs.push(FieldError::invalid(
            ip,
            BadValue::Str(pretty_json_patch(p)),
            "jsonPatch can not define both value and valueFrom",
        ));
    }
    let Some(f) = from else { return };
    let vfp = fe::child(ip, "valueFrom");
    let template = f.get("template").and_then(Value::as_str);
    let var = f.get("variable").and_then(Value::as_str);
    if template.is_none() && var.is_none() {
        errs.push(FieldError::invalid(
            &vfp,
            BadValue::Str(pretty_value_from(f)),
            "valueFrom must set either template or variable",
        ));
    }
    if template.is_some() && var.is_some() {
        errs.push(FieldError::invalid(
            &vfp,
            BadValue::Str(pretty_value_from(f)),
            "valueFrom can not set both template and variable",
        ));
    }
    if let Some(t) = template {
        if let Some(e) = template_parse_error("valueFrom.template", t) {
            errs.push(FieldError::invalid(
                &fe::child(&vfp, "template"),
                BadValue::Str(t.into()),
                format!("template can not be parsed: {e}"),
            ));
        }
    }
    if let Some(v) = var {
        variable_errors(v, var_names, &fe::child(&vfp, "variable"), head, errs);
    }
}

/// A `valueFrom.variable` must be a builtin or name a ClusterClass variable.
fn variable_errors(
    v: &str,
    var_names: &BTreeSet<String>,
    vp: &str,
    head: bool,
    errs: &mut Vec<FieldError>,
) {
    if v.starts_with("builtin.") {
        if !is_builtin(v, head) {
            errs.push(FieldError::invalid(
                vp,
                BadValue::Str(v.into()),
                "not a defined builtin variable",
            ));
        }
        return;
    }
    let name = v.split(['[', '.']).find(|s| !s.is_empty()).unwrap_or("");
    if !var_names.contains(name) {
        errs.push(FieldError::invalid(
            vp,
            BadValue::Str(v.into()),
            format!("variable with name {v} cannot be found"),
        ));
    }
}

fn selector_matches(sel: &Value, r: Option<&Value>) -> bool {
    r.is_some_and(|r| {
        obj::str_at(sel, &["kind"]) == obj::str_at(r, &["kind"])
            && obj::str_at(sel, &["apiVersion"]) == obj::str_at(r, &["apiVersion"])
    })
}

/// `validateSelectorName`: a name with a `*` has one, at its start or end, and is a
/// qualified name with the `*` read as a letter.
fn selector_name_error(name: &str) -> Option<&'static str> {
    if !name.contains('*') {
        return None;
    }
    if name.matches('*').count() > 1 {
        return Some("selector can at most contain a single \"*\" rune");
    }
    if !(name.starts_with('*') || name.ends_with('*')) {
        return Some("\"*\" rune can only appear at the beginning, or ending of the selector");
    }
    let as_letter = name.replace('*', "a");
    if !crate::topology::variables::metadata::qualified_name_errors(&as_letter).is_empty() {
        return Some("selector does not comply with the Kubernetes naming standards");
    }
    None
}

pub(super) fn selectors(sel: &Value, cc: &Value, path: &str, errs: &mut Vec<FieldError>) {
    let mr = sel.get("matchResources").unwrap_or(&Value::Null);
    let flag = |k: &str| mr.get(k).and_then(Value::as_bool).unwrap_or(false);
    let names = |k: &str| crate::model::object::string_list(mr, &[k, "names"]);
    let (md, mp) = (names("machineDeploymentClass"), names("machinePoolClass"));
    if !flag("infrastructureCluster") && !flag("controlPlane") && md.is_empty() && mp.is_empty() {
        errs.push(FieldError::invalid(
            path,
            BadValue::Str(marshal_indent(sel)),
            "no selector enabled",
        ));
        return;
    }
    let mrp = fe::child(path, "matchResources");
    if flag("infrastructureCluster")
        && !selector_matches(sel, obj::get(cc, &["spec", "infrastructure", "ref"]))
    {
        errs.push(FieldError::invalid(
            &fe::child(&mrp, "infrastructureCluster"),
            BadValue::Bool(true),
            "selector is enabled but does not match the infrastructure ref",
        ));
    }
    if flag("controlPlane")
        && !selector_matches(sel, obj::get(cc, &["spec", "controlPlane", "ref"]))
        && !selector_matches(
            sel,
            obj::get(
                cc,
                &["spec", "controlPlane", "machineInfrastructure", "ref"],
            ),
        )
    {
        errs.push(FieldError::invalid(
            &fe::child(&mrp, "controlPlane"),
            BadValue::Bool(true),
            "selector is enabled but matches neither the controlPlane ref nor the controlPlane machineInfrastructure ref",
        ));
    }
    for (key, list, what, field) in [
        (
            "machineDeploymentClass",
            &md,
            "MachineDeployment",
            "machineDeployments",
        ),
        ("machinePoolClass", &mp, "MachinePool", "machinePools"),
    ] {
        // Borrowed: the worker classes are looked at, once per selector.
        let classes: &[Value] = obj::get(cc, &["spec", "workers", field])
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        for (i, name) in list.iter().enumerate() {
            let np = fe::index(&fe::child(&fe::child(&mrp, key), "names"), i);
            if let Some(m) = selector_name_error(name) {
                errs.push(FieldError::invalid(&np, BadValue::Str(name.clone()), m));
                break;
            }
            let matched = classes.iter().any(|c| {
                let cn = obj::str_at(c, &["class"]);
                let m = cn == name
                    || name == "*"
                    || name.strip_prefix('*').is_some_and(|s| cn.ends_with(s))
                    || name.strip_suffix('*').is_some_and(|p| cn.starts_with(p));
                m && (selector_matches(sel, obj::get(c, &["template", "infrastructure", "ref"]))
                    || selector_matches(sel, obj::get(c, &["template", "bootstrap", "ref"])))
            });
            if !matched {
                errs.push(FieldError::invalid(
                    &np,
                    BadValue::Str(name.clone()),
                    format!("selector is enabled but matches neither the bootstrap ref nor the infrastructure ref of a {what} class"),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn head_allows_a_patch_of_spec_itself() {
        assert_eq!(
            path_error("/spec", false),
            Some("jsonPatch path must start with \"/spec/\"")
        );
        assert_eq!(path_error("/spec/a", false), None);
        assert_eq!(path_error("/spec", true), None);
        assert_eq!(path_error("/spec/a", true), None);
        assert_eq!(
            path_error("/metadata/labels", true),
            Some("jsonPatch path must start with \"/spec\"")
        );
    }

    #[test]
    fn head_builtins_differ_from_v1_10s() {
        for (v, old, head) in [
            ("builtin.cluster.topology.classRef.name", false, true),
            ("builtin.cluster.topology.classRef.namespace", false, true),
            ("builtin.cluster.network.ipFamily", true, false),
            ("builtin.cluster.topology.class", true, true),
        ] {
            assert_eq!(
                (is_builtin(v, false), is_builtin(v, true)),
                (old, head),
                "{v}"
            );
        }
    }

    fn details(errs: &[FieldError]) -> Vec<&str> {
        errs.iter().map(|e| e.detail.as_str()).collect()
    }

    #[test]
    fn index_access_reports_every_atoi_segment() {
        let mut errs = Vec::new();
        index_access("add", "/spec/a/1/b/2", "p", &mut errs);
        assert_eq!(errs.len(), 2);
        errs.clear();
        for zero in ["/spec/a/00", "/spec/a/+0", "/spec/a/-0", "/spec/a/-"] {
            index_access("add", zero, "p", &mut errs);
        }
        assert!(errs.is_empty());
        index_access("remove", "/spec/a/0/b/+3", "p", &mut errs);
        assert_eq!(
            details(&errs),
            ["elements in arrays can not be accessed in a remove operation"; 2]
        );
    }

    #[test]
    fn value_from_shape() {
        assert_eq!(pretty_value_from(&json!({})), "{}");
        assert_eq!(
            pretty_value_from(&json!({"template": "<x>", "variable": "v"})),
            "{\n  \"variable\": \"v\",\n  \"template\": \"\\u003cx\\u003e\"\n}"
        );
        let vars = BTreeSet::from(["v".to_string()]);
        let mut errs = Vec::new();
        for vf in [json!({}), json!({"variable": "v", "template": "{{"})] {
            let p = json!({"op": "add", "path": "/spec/x", "valueFrom": vf});
            json_patch_values(&p, &vars, "p", false, &mut errs);
        }
        assert_eq!(
            details(&errs)[..2],
            [
                "valueFrom must set either template or variable",
                "valueFrom can not set both template and variable",
            ]
        );
        assert!(errs[2].detail.starts_with("template can not be parsed"));
        assert_eq!(errs.len(), 3);
    }

    #[test]
    fn selector_names() {
        assert_eq!(selector_name_error("plain"), None);
        assert_eq!(selector_name_error("*-worker"), None);
        assert_eq!(
            selector_name_error("*-"),
            Some("selector does not comply with the Kubernetes naming standards")
        );
        assert_eq!(
            selector_name_error("bad name*"),
            Some("selector does not comply with the Kubernetes naming standards")
        );
        assert!(selector_name_error("a*b").is_some());
    }
}
