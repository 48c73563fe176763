//! The ClusterClass webhook's validation (topology.md §8): patch definitions (names,
//! external patches, ops, paths, array indexes, values, variables, selectors,
//! `enabledIf` templates), template references, naming strategies and worker class
//! uniqueness.

use std::collections::BTreeSet;

use serde_json::Value;

mod patches;

use crate::error::{Error, Result};
use crate::topology::obj;
use crate::topology::variables::field_error::{self as fe, BadValue, FieldError};

/// Go's `template.New(name).Funcs(sprig.HermeticTxtFuncMap()).Parse(t)` error, if any.
pub fn template_parse_error(name: &str, t: &str) -> Option<String> {
    let o = crate::gotemplate::Options {
        name,
        ..Default::default()
    };
    let e = crate::gotemplate::parse_check(t, &o).err()?;
    Some(e.message().to_string())
}

/// `LocalObjectTemplateIsValid` for the template at `path` (`spec.infrastructure`, …).
fn template_ref(cc: &Value, tpl: Option<&Value>, path: &str, errs: &mut Vec<FieldError>) {
    let ns = obj::namespace(cc);
    let rp = fe::child(path, "ref");
    let Some(r) = tpl.and_then(|t| t.get("ref")).filter(|r| !r.is_null()) else {
        errs.push(FieldError::required(
            &rp,
            "template reference must be defined",
        ));
        return;
    };
    if obj::str_at(r, &["name"]).is_empty() {
        errs.push(FieldError::required(
            &fe::child(&rp, "name"),
            "template name must be defined",
        ));
    }
    let rns = obj::str_at(r, &["namespace"]);
    if !ns.is_empty() && rns != ns {
        errs.push(FieldError::invalid(
            &fe::child(&rp, "namespace"),
            BadValue::Str(rns.into()),
            format!("template must be in the same namespace as the ClusterClass ({ns})"),
        ));
    }
    let kind = obj::str_at(r, &["kind"]);
    if kind.len() <= "Template".len() || !kind.ends_with("Template") {
        errs.push(FieldError::invalid(
            &fe::child(&rp, "kind"),
            BadValue::Str(kind.into()),
            "template kind must be of form \"<name>Template\"",
        ));
    }
    let av = obj::str_at(r, &["apiVersion"]);
    if av.matches('/').count() > 1 {
        errs.push(FieldError::invalid(
            &fe::child(&rp, "apiVersion"),
            BadValue::Str(av.into()),
            format!("template apiVersion must be a valid Kubernetes apiVersion: unexpected GroupVersion string: {av}"),
        ));
    } else if av.is_empty() {
        errs.push(FieldError::required(
            &fe::child(&rp, "apiVersion"),
            "template apiVersion must be defined",
        ));
    }
}

/// `ClusterClassReferencesAreValid`.
fn references(cc: &Value, errs: &mut Vec<FieldError>) {
    template_ref(
        cc,
        obj::get(cc, &["spec", "infrastructure"]),
        "spec.infrastructure",
        errs,
    );
    template_ref(
        cc,
        obj::get(cc, &["spec", "controlPlane"]),
        "spec.controlPlane",
        errs,
    );
    if let Some(mi) =
        obj::get(cc, &["spec", "controlPlane", "machineInfrastructure"]).filter(|v| !v.is_null())
    {
        template_ref(
            cc,
            Some(mi),
            "spec.controlPlane.machineInfrastructure",
            errs,
        );
    }
    for field in ["machineDeployments", "machinePools"] {
        if let Some(Value::Array(list)) = obj::get(cc, &["spec", "workers", field]) {
            for (i, c) in list.iter().enumerate() {
                let p = fe::child(&fe::index(&format!("spec.workers.{field}"), i), "template");
                template_ref(
                    cc,
                    obj::get(c, &["template", "bootstrap"]),
                    &fe::child(&p, "bootstrap"),
                    errs,
                );
                template_ref(
                    cc,
                    obj::get(c, &["template", "infrastructure"]),
                    &fe::child(&p, "infrastructure"),
                    errs,
                );
            }
        }
    }
}

/// `validateNamingStrategies`: every naming template renders for cluster `cluster`
/// (topology names `mdtopology` / `mptopology`) to a DNS-1123 subdomain.
fn naming_strategies(cc: &Value, errs: &mut Vec<FieldError>) {
    use crate::topology::names::{render, Strategy};
    let mut check = |tpl: Option<&str>, path: String, what: &str, strategy: Strategy| {
        let Some(t) = tpl else { return };
        match render(t, "cluster", &strategy, "xxxxx") {
            Err(e) => errs.push(FieldError::invalid(
                &path,
                BadValue::Str(t.into()),
                format!("invalid {what} name template: {}", e.message()),
            )),
            Ok(name) => {
                for m in crate::provider::dns1123_subdomain_errors(&name) {
                    errs.push(FieldError::invalid(&path, BadValue::Str(t.into()), m));
                }
            }
        }
    };
    fn tpl(v: Option<&Value>) -> Option<&str> {
        v.and_then(|s| s.get("template")).and_then(Value::as_str)
    }
    check(
        tpl(obj::get(cc, &["spec", "infrastructureNamingStrategy"])),
        "spec.infrastructureNamingStrategy.template".into(),
        "InfraCluster",
        Strategy::Cluster,
    );
    check(
        tpl(obj::get(cc, &["spec", "controlPlane", "namingStrategy"])),
        "spec.controlPlane.namingStrategy.template".into(),
        "ControlPlane",
        Strategy::Cluster,
    );
    for (field, what) in [
        ("machineDeployments", "MachineDeployment"),
        ("machinePools", "MachinePool"),
    ] {
        if let Some(Value::Array(list)) = obj::get(cc, &["spec", "workers", field]) {
            for c in list {
                let path = fe::child(
                    &fe::child(
                        &fe::key(&format!("spec.workers.{field}"), obj::str_at(c, &["class"])),
                        "namingStrategy",
                    ),
                    "template",
                );
                let strategy = if field == "machineDeployments" {
                    Strategy::MachineDeployment("mdtopology")
                } else {
                    Strategy::MachinePool("mptopology")
                };
                check(tpl(c.get("namingStrategy")), path, what, strategy);
            }
        }
    }
}

/// ClusterClass validation errors (references, worker class uniqueness, control plane
/// MHC, variables, patches).
pub fn cluster_class_errors(cc: &Value) -> Vec<FieldError> {
    cluster_class_errors_with(cc, false)
}

/// [`cluster_class_errors`], with CAPI v1.14's builtin variables and patch path rule when `head` (a v1beta2
/// ClusterClass converted by `topology::v1beta2`).
pub fn cluster_class_errors_with(cc: &Value, head: bool) -> Vec<FieldError> {
    cluster_class_errors_sdk(cc, head, false)
}

/// [`cluster_class_errors_with`], with the RuntimeSDK feature gate on when `runtime_sdk`
/// (a run that calls extensions): external patches are allowed, and need a generate or
/// validate handler.
pub fn cluster_class_errors_sdk(cc: &Value, head: bool, runtime_sdk: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    references(cc, &mut errs);
    for (field, what) in [
        ("machineDeployments", "MachineDeployment"),
        ("machinePools", "MachinePool"),
    ] {
        let mut seen = BTreeSet::new();
        if let Some(Value::Array(list)) = obj::get(cc, &["spec", "workers", field]) {
            for (i, c) in list.iter().enumerate() {
                let n = obj::str_at(c, &["class"]);
                if !seen.insert(n.to_string()) {
                    errs.push(FieldError::invalid(
                        &fe::child(&fe::index(&format!("spec.workers.{field}"), i), "class"),
                        BadValue::Str(n.into()),
                        format!("{what} class must be unique. {what} with class {n:?} is defined more than once"),
                    ));
                }
            }
        }
    }
    let cp_set = |k: &str| obj::get(cc, &["spec", "controlPlane", k]).is_some_and(|v| !v.is_null());
    errs.extend(crate::topology::mhc_validation::control_plane_errors(cc));
    if cp_set("machineHealthCheck") && !cp_set("machineInfrastructure") {
        errs.push(FieldError::forbidden(
            "spec.controlPlane.machineHealthCheck.machineInfrastructure",
            "can be set only if spec.controlPlane.machineInfrastructure is set",
        ));
    }
    errs.extend(crate::topology::mhc_validation::machine_deployment_errors(
        cc,
    ));
    naming_strategies(cc, &mut errs);
    errs.extend(
        // v1beta2 classes too: on every rule measured, the estimate is cel-go v0.29's
        // (Cluster API v1.14's) or lower (variables/cel/cost/tests.rs).
        crate::topology::variables::definitions::variable_definition_errors(cc),
    );
    let var_names: BTreeSet<String> = obj::get(cc, &["spec", "variables"])
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|v| obj::str_at(v, &["name"]).to_string())
                .collect()
        })
        .unwrap_or_default();
    let mut names = BTreeSet::new();
    if let Some(Value::Array(patches)) = obj::get(cc, &["spec", "patches"]) {
        for (i, p) in patches.iter().enumerate() {
            let pp = fe::index("spec.patches", i);
            let name = obj::str_at(p, &["name"]);
            if name.is_empty() {
                errs.push(FieldError::required(
                    &fe::child(&pp, "name"),
                    "patch name must be defined",
                ));
            }
            if name == "inline" {
                errs.push(FieldError::required(
                    &fe::child(&pp, "name"),
                    "\"inline\" can not be used as the name of a patch",
                ));
            }
            if names.contains(name) {
                errs.push(FieldError::invalid(
                    &fe::child(&pp, "name"),
                    BadValue::Str(name.into()),
                    format!("patch names must be unique. Patch with name {name:?} is defined more than once"),
                ));
            }
            names.insert(name.to_string());
            if let Some(t) = p.get("enabledIf").and_then(Value::as_str) {
                if let Some(e) = template_parse_error("enabledIf", t) {
                    errs.push(FieldError::invalid(
                        &fe::child(&pp, "enabledIf"),
                        BadValue::Str(t.into()),
                        format!("template can not be parsed: {e}"),
                    ));
                }
            }
            let defs = p.get("definitions").filter(|v| !v.is_null());
            let ext = p.get("external").filter(|v| !v.is_null());
            if defs.is_none() && ext.is_none() {
                errs.push(FieldError::required(
                    &pp,
                    "one of definitions or external must be defined",
                ));
            }
            if let Some(Value::Array(defs)) = defs {
                for (j, d) in defs.iter().enumerate() {
                    let dp = fe::index(&fe::child(&pp, "definitions"), j);
                    let jps: &[Value] = d
                        .get("jsonPatches")
                        .and_then(Value::as_array)
                        .map_or(&[], Vec::as_slice);
                    patches::json_patches(
                        jps,
                        &var_names,
                        &fe::child(&dp, "jsonPatches"),
                        head,
                        &mut errs,
                    );
                    patches::selectors(
                        d.get("selector").unwrap_or(&Value::Null),
                        cc,
                        &fe::child(&dp, "selector"),
                        &mut errs,
                    );
                }
            }
            if let Some(ext) = ext {
                if !runtime_sdk {
                    errs.push(FieldError::forbidden(
                        &fe::child(&pp, "external"),
                        "patch.external can be used only if the RuntimeSDK feature flag is enabled",
                    ));
                }
                let (generate, validate) = crate::topology::patches::external::handlers(p);
                if generate.is_none() && validate.is_none() {
                    errs.push(FieldError::invalid(
                        &fe::child(&pp, "external"),
                        BadValue::Str(crate::go::json::marshal(ext)),
                        "one of validateTopologyExtension and generatePatchesExtension must be defined",
                    ));
                }
            }
        }
    }
    errs.extend(crate::topology::metadata_validation::cluster_class_metadata_errors(cc));
    errs
}

/// The ClusterClass webhook's verdict as the plan reports it.
pub fn validate_cluster_class(cc: &Value) -> Result<()> {
    validate_cluster_class_with(cc, false)
}

/// [`validate_cluster_class`] with [`cluster_class_errors_with`]'s `head`.
pub fn validate_cluster_class_with(cc: &Value, head: bool) -> Result<()> {
    validate_cluster_class_sdk(cc, head, false)
}

/// [`validate_cluster_class_with`] with the RuntimeSDK gate as `runtime_sdk` says.
pub fn validate_cluster_class_sdk(cc: &Value, head: bool, runtime_sdk: bool) -> Result<()> {
    let errs = cluster_class_errors_sdk(cc, head, runtime_sdk);
    if errs.is_empty() {
        return Ok(());
    }
    Err(Error::new(fe::invalid_object_message(
        "ClusterClass.cluster.x-k8s.io",
        obj::name(cc),
        &errs,
    ))
    .wrap(format!(
        "failed validation of cluster.x-k8s.io/v1beta1, Kind=ClusterClass {}/{}",
        obj::namespace(cc),
        obj::name(cc)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn template_parse_errors_only() {
        assert_eq!(
            template_parse_error("enabledIf", "{{ if .a }}x").as_deref(),
            Some("template: enabledIf:1: unexpected EOF")
        );
        // Execution errors (a function on a missing value) are not parse errors.
        assert_eq!(
            template_parse_error("enabledIf", "{{ semverCompare \">1\" .x }}"),
            None
        );
        assert_eq!(template_parse_error("enabledIf", "{{ .a }}"), None);
    }

    #[test]
    fn patch_checks() {
        let cc = json!({"metadata": {"name": "k", "namespace": "n"}, "spec": {
            "infrastructure": {"ref": {"apiVersion": "i/v1", "kind": "ITemplate", "name": "x", "namespace": "n"}},
            "controlPlane": {"ref": {"apiVersion": "c/v1", "kind": "CTemplate", "name": "y", "namespace": "n"}},
            "variables": [{"name": "v", "schema": {"openAPIV3Schema": {"type": "string"}}}],
            "patches": [{"name": "p", "definitions": [{"selector": {"apiVersion": "i/v1", "kind": "ITemplate",
                "matchResources": {"infrastructureCluster": true}},
                "jsonPatches": [{"op": "add", "path": "/metadata/x", "valueFrom": {"variable": "nope"}},
                                {"op": "replace", "path": "/spec/a/0", "value": 1},
                                {"op": "add", "path": "/spec/b", "valueFrom": {"variable": "builtin.cluster.metadata"}}]}]},
                {"name": "p", "external": {"generateExtension": "x"}}]}});
        let errs = cluster_class_errors(&cc);
        let details: Vec<&str> = errs.iter().map(|e| e.detail.as_str()).collect();
        assert_eq!(
            details,
            [
                "jsonPatch path must start with \"/spec/\"",
                "variable with name nope cannot be found",
                "elements in arrays can not be accessed in a replace operation",
                "not a defined builtin variable",
                "patch names must be unique. Patch with name \"p\" is defined more than once",
                "patch.external can be used only if the RuntimeSDK feature flag is enabled",
            ]
        );
    }
}
