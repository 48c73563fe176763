//! `validatePatches` (core/webhooks/admission/patch_validation.go, v1.14.2) on the
//! v1beta2 shape: patch names, definitions or external (one of them), `enabledIf` and
//! `valueFrom.template` templates, JSON patch ops, paths (`/spec` prefix, array
//! indexes), values, variables (defined or a builtin of v1.14), and selectors against the
//! class's template references.

use std::collections::HashSet;

use serde_json::Value;

use super::templates::ref_defined;
use super::{json, list, text, Gates};
use crate::topology::obj;
use crate::topology::variables::field_error::{child, index, BadValue, FieldError};
use crate::topology::webhooks::template_parse_error;

/// `builtinVariables` of v1.14.2's patch_validation.go.
const BUILTINS: &[&str] = &[
    "builtin",
    "builtin.cluster",
    "builtin.cluster.name",
    "builtin.cluster.namespace",
    "builtin.cluster.uid",
    "builtin.cluster.metadata.labels",
    "builtin.cluster.metadata.annotations",
    "builtin.cluster.topology",
    "builtin.cluster.topology.classRef.name",
    "builtin.cluster.topology.classRef.namespace",
    "builtin.cluster.topology.class",
    "builtin.cluster.topology.classNamespace",
    "builtin.cluster.topology.version",
    "builtin.cluster.network",
    "builtin.cluster.network.serviceDomain",
    "builtin.cluster.network.services",
    "builtin.cluster.network.pods",
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

/// A non-empty string field (Go's `!= ""`).
fn set<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// A pointer or slice field that is not nil (present and not null).
fn non_nil<'a>(v: &'a Value, k: &str) -> Option<&'a Value> {
    v.get(k).filter(|x| !x.is_null())
}

/// `validatePatches`.
pub(super) fn patches(cc: &Value, gates: &Gates, errs: &mut Vec<FieldError>) {
    let vars: HashSet<&str> = list(cc, &["spec", "variables"])
        .iter()
        .map(|v| text(v, &["name"]))
        .collect();
    let mut names: HashSet<&str> = HashSet::new();
    for (i, p) in list(cc, &["spec", "patches"]).iter().enumerate() {
        let path = index("spec.patches", i);
        let name = text(p, &["name"]);
        patch_name(name, &names, &path, errs);
        definitions(p, cc, &vars, gates, &path, errs);
        names.insert(name);
    }
}

/// `validatePatchName`.
fn patch_name(name: &str, names: &HashSet<&str>, path: &str, errs: &mut Vec<FieldError>) {
    let np = child(path, "name");
    if name.is_empty() {
        errs.push(FieldError::required(&np, "patch name must be defined"));
    }
    if name == "inline" {
        errs.push(FieldError::required(
            &np,
            "\"inline\" can not be used as the name of a patch",
        ));
    }
    if names.contains(name) {
        errs.push(FieldError::invalid(
            &np,
            BadValue::Str(name.into()),
            format!(
                "patch names must be unique. Patch with name {} is defined more than once",
                crate::go::quote::quote(name)
            ),
        ));
    }
}

/// A Go template that does not parse (sprig's functions known) at `path`.
fn template(t: &str, name: &str, path: &str, errs: &mut Vec<FieldError>) {
    if let Some(e) = template_parse_error(name, t) {
        errs.push(FieldError::invalid(
            path,
            BadValue::Str(t.into()),
            format!("template can not be parsed: {e}"),
        ));
    }
}

/// `validatePatchDefinitions`.
fn definitions(
    p: &Value,
    cc: &Value,
    vars: &HashSet<&str>,
    gates: &Gates,
    path: &str,
    errs: &mut Vec<FieldError>,
) {
    if let Some(t) = set(p, "enabledIf") {
        template(t, "enabledIf", &child(path, "enabledIf"), errs);
    }
    let defs = non_nil(p, "definitions");
    let ext = non_nil(p, "external");
    if defs.is_none() && ext.is_none() {
        errs.push(FieldError::required(
            path,
            "one of definitions or external must be defined",
        ));
    }
    if defs.is_some() && ext.is_some() {
        errs.push(FieldError::invalid(
            path,
            BadValue::Json(json::patch(p)),
            "only one of definitions or external can be defined",
        ));
    }
    for (j, d) in defs
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let dp = index(&child(path, "definitions"), j);
        let jps = d
            .get("jsonPatches")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        json_patches(jps, vars, &child(&dp, "jsonPatches"), errs);
        let null = Value::Null;
        selector(
            d.get("selector").unwrap_or(&null),
            cc,
            &child(&dp, "selector"),
            errs,
        );
    }
    if let Some(e) = ext {
        let ep = child(path, "external");
        if !gates.runtime_sdk {
            errs.push(FieldError::forbidden(
                &ep,
                "patch.external can be used only if the RuntimeSDK feature flag is enabled",
            ));
        }
        if set(e, "validateTopologyExtension").is_none()
            && set(e, "generatePatchesExtension").is_none()
        {
            errs.push(FieldError::invalid(
                &ep,
                BadValue::Json(json::external(e)),
                "one of validateTopologyExtension and generatePatchesExtension must be defined",
            ));
        }
    }
}

/// `validateJSONPatches`.
fn json_patches(jps: &[Value], vars: &HashSet<&str>, path: &str, errs: &mut Vec<FieldError>) {
    for (i, p) in jps.iter().enumerate() {
        let ip = index(path, i);
        let pretty = || BadValue::Str(json::indent(&json::json_patch(p)));
        let op = text(p, &["op"]);
        if !["add", "replace", "remove"].contains(&op) {
            errs.push(FieldError::not_supported(
                &child(&ip, "op"),
                pretty(),
                &["add".into(), "remove".into(), "replace".into()],
            ));
        }
        let jp = text(p, &["path"]);
        if !jp.starts_with("/spec") {
            errs.push(FieldError::invalid(
                &child(&ip, "path"),
                pretty(),
                "jsonPatch path must start with \"/spec\"",
            ));
        }
        index_access(op, jp, &child(&ip, "path"), errs);
        values(p, vars, &ip, errs);
    }
}

/// `validateIndexAccess`: every path segment `strconv.Atoi` reads is an index; `add` may
/// use only 0, `replace` and `remove` none (one error per segment).
fn index_access(op: &str, jp: &str, path: &str, errs: &mut Vec<FieldError>) {
    for seg in jp.split('/') {
        let Ok(i) = crate::go::strconv::parse_int(seg) else {
            continue;
        };
        let bad = |m: String| FieldError::invalid(path, BadValue::Str(jp.into()), m);
        if op == "add" && i != 0 {
            errs.push(bad(
                "arrays can only be accessed using \"0\" (prepend) or \"-\" (append)".into(),
            ));
        }
        if op == "replace" || op == "remove" {
            errs.push(bad(format!(
                "elements in arrays can not be accessed in a {op} operation"
            )));
        }
    }
}

/// `validateJSONPatchValues` (`add` and `replace` only).
fn values(p: &Value, vars: &HashSet<&str>, ip: &str, errs: &mut Vec<FieldError>) {
    let op = text(p, &["op"]);
    if op != "add" && op != "replace" {
        return;
    }
    let pretty = || BadValue::Str(json::indent(&json::json_patch(p)));
    let (value, from) = (non_nil(p, "value"), non_nil(p, "valueFrom"));
    if value.is_none() && from.is_none() {
        errs.push(FieldError::invalid(
            ip,
            pretty(),
            "jsonPatch must define one of value or valueFrom",
        ));
    }
    if value.is_some() && from.is_some() {
        errs.push(FieldError::invalid(
            ip,
            pretty(),
            "jsonPatch can not define both value and valueFrom",
        ));
    }
    let Some(f) = from else { return };
    let fp = child(ip, "valueFrom");
    let pretty_from = || BadValue::Str(json::indent(&json::value_from(f)));
    let (tpl, var) = (set(f, "template"), set(f, "variable"));
    if tpl.is_none() && var.is_none() {
        errs.push(FieldError::invalid(
            &fp,
            pretty_from(),
            "valueFrom must set either template or variable",
        ));
    }
    if tpl.is_some() && var.is_some() {
        errs.push(FieldError::invalid(
            &fp,
            pretty_from(),
            "valueFrom can not set both template and variable",
        ));
    }
    if let Some(t) = tpl {
        template(t, "valueFrom.template", &child(&fp, "template"), errs);
    }
    if let Some(v) = var {
        let vp = child(&fp, "variable");
        if v.starts_with("builtin.") {
            if !BUILTINS.contains(&v) {
                errs.push(FieldError::invalid(
                    &vp,
                    BadValue::Str(v.into()),
                    "not a defined builtin variable",
                ));
            }
        } else {
            // getVariableName: the first field between `[` and `.` separators.
            let name = v.split(['[', '.']).find(|s| !s.is_empty()).unwrap_or("");
            if !vars.contains(name) {
                errs.push(FieldError::invalid(
                    &vp,
                    BadValue::Str(v.into()),
                    format!("variable with name {v} cannot be found"),
                ));
            }
        }
    }
}

/// `selectorMatchTemplate`: the selector's apiVersion and kind are the reference's.
fn matches(sel: &Value, r: Option<&Value>) -> bool {
    let null = Value::Null;
    let r = r.unwrap_or(&null);
    text(sel, &["kind"]) == text(r, &["kind"])
        && text(sel, &["apiVersion"]) == text(r, &["apiVersion"])
}

/// `validateSelectorName`: a name with `*` has one, at its start or end, and is a
/// qualified name with the `*` read as a letter.
fn selector_name_error(name: &str) -> Option<&'static str> {
    if !name.contains('*') {
        return None;
    }
    if name.matches('*').count() > 1 {
        return Some("selector can at most contain a single \"*\" rune");
    }
    if !name.starts_with('*') && !name.ends_with('*') {
        return Some("\"*\" rune can only appear at the beginning, or ending of the selector");
    }
    if !super::meta::label_key_errors(&name.replace('*', "a")).is_empty() {
        return Some("selector does not comply with the Kubernetes naming standards");
    }
    None
}

/// `validateSelectors`.
fn selector(sel: &Value, cc: &Value, path: &str, errs: &mut Vec<FieldError>) {
    let null = Value::Null;
    let mr = sel.get("matchResources").unwrap_or(&null);
    let flag = |k: &str| mr.get(k).and_then(Value::as_bool).unwrap_or(false);
    let names = |k: &str| -> Vec<&str> {
        list(mr, &[k, "names"])
            .iter()
            .map(|n| n.as_str().unwrap_or(""))
            .collect()
    };
    let (md_names, mp_names) = (names("machineDeploymentClass"), names("machinePoolClass"));
    if !flag("infrastructureCluster")
        && !flag("controlPlane")
        && md_names.is_empty()
        && mp_names.is_empty()
    {
        errs.push(FieldError::invalid(
            path,
            BadValue::Str(json::indent(&json::selector(sel))),
            "no selector enabled",
        ));
        return;
    }
    let mrp = child(path, "matchResources");
    let at = |p: &[&str]| obj::get(cc, p);
    if flag("infrastructureCluster")
        && !matches(sel, at(&["spec", "infrastructure", "templateRef"]))
    {
        errs.push(FieldError::invalid(
            &child(&mrp, "infrastructureCluster"),
            BadValue::Bool(true),
            "selector is enabled but does not match the infrastructure ref",
        ));
    }
    if flag("controlPlane") {
        let mi = at(&[
            "spec",
            "controlPlane",
            "machineInfrastructure",
            "templateRef",
        ]);
        let matched = matches(sel, at(&["spec", "controlPlane", "templateRef"]))
            || (ref_defined(mi) && matches(sel, mi));
        if !matched {
            errs.push(FieldError::invalid(
                &child(&mrp, "controlPlane"),
                BadValue::Bool(true),
                "selector is enabled but matches neither the controlPlane ref nor the controlPlane machineInfrastructure ref",
            ));
        }
    }
    for (k, names, field, what) in [
        (
            "machineDeploymentClass",
            &md_names,
            "machineDeployments",
            "MachineDeployment",
        ),
        ("machinePoolClass", &mp_names, "machinePools", "MachinePool"),
    ] {
        let classes = list(cc, &["spec", "workers", field]);
        for (i, name) in names.iter().enumerate() {
            let np = index(&child(&child(&mrp, k), "names"), i);
            if let Some(m) = selector_name_error(name) {
                errs.push(FieldError::invalid(&np, BadValue::Str(name.to_string()), m));
                break;
            }
            let matched = classes.iter().any(|c| {
                let cn = text(c, &["class"]);
                let named = cn == *name
                    || *name == "*"
                    || name.strip_prefix('*').is_some_and(|s| cn.ends_with(s))
                    || name.strip_suffix('*').is_some_and(|s| cn.starts_with(s));
                named
                    && (matches(sel, obj::get(c, &["infrastructure", "templateRef"]))
                        || matches(sel, obj::get(c, &["bootstrap", "templateRef"])))
            });
            if !matched {
                errs.push(FieldError::invalid(
                    &np,
                    BadValue::Str(name.to_string()),
                    format!("selector is enabled but matches neither the bootstrap ref nor the infrastructure ref of a {what} class"),
                ));
            }
        }
    }
}
