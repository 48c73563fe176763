//! The ClusterClass webhook's structural rules (v1.14.2) on the v1beta2 shape:
//! `check.ClusterClassTemplatesAreValid` (template references), the worker classes'
//! uniqueness, `validateClusterClassRollout`, `validateNamingStrategies` and
//! `validateTaints`. Field paths are Go's, which for template references still read
//! `template.bootstrap.ref.name` where v1beta2 has `bootstrap.templateRef.name`.

use std::collections::HashSet;

use serde_json::Value;

use super::health::IntOrStr;
use super::{list, text, Gates};
use crate::topology::obj;
use crate::topology::variables::field_error::{child, index, key, BadValue, FieldError};

/// A `ClusterClassTemplateReference` is defined when any of its fields is set.
pub(super) fn ref_defined(r: Option<&Value>) -> bool {
    r.is_some_and(|r| {
        ["kind", "name", "apiVersion"]
            .iter()
            .any(|k| !text(r, &[k]).is_empty())
    })
}

/// `check.ClusterClassTemplateIsValid` of the reference `r` at `prefix`.
fn template_ref(r: Option<&Value>, prefix: &str, errs: &mut Vec<FieldError>) {
    let null = Value::Null;
    let r = r.unwrap_or(&null);
    let rp = child(prefix, "ref");
    if text(r, &["name"]).is_empty() {
        errs.push(FieldError::required(
            &child(&rp, "name"),
            "template name must be defined",
        ));
    }
    let kind = text(r, &["kind"]);
    if kind.len() <= "Template".len() || !kind.ends_with("Template") {
        errs.push(FieldError::invalid(
            &child(&rp, "kind"),
            BadValue::Str(kind.into()),
            "template kind must be of form \"<name>Template\"",
        ));
    }
    // schema.ParseGroupVersion: "" and "/" are the empty GroupVersion; more than one
    // "/" is an error.
    let av = text(r, &["apiVersion"]);
    if av.matches('/').count() > 1 {
        errs.push(FieldError::invalid(
            &child(&rp, "apiVersion"),
            BadValue::Str(av.into()),
            format!("template apiVersion must be a valid Kubernetes apiVersion: unexpected GroupVersion string: {av}"),
        ));
    } else if av.is_empty() || av == "/" {
        errs.push(FieldError::required(
            &child(&rp, "apiVersion"),
            "template apiVersion must be defined",
        ));
    }
}

/// `check.ClusterClassTemplatesAreValid`.
pub(super) fn template_refs(cc: &Value, errs: &mut Vec<FieldError>) {
    let at = |p: &[&str]| obj::get(cc, p);
    template_ref(
        at(&["spec", "infrastructure", "templateRef"]),
        "spec.infrastructure",
        errs,
    );
    template_ref(
        at(&["spec", "controlPlane", "templateRef"]),
        "spec.controlPlane",
        errs,
    );
    let mi = at(&[
        "spec",
        "controlPlane",
        "machineInfrastructure",
        "templateRef",
    ]);
    if ref_defined(mi) {
        template_ref(mi, "spec.controlPlane.machineInfrastructure", errs);
    }
    for field in ["machineDeployments", "machinePools"] {
        for (i, c) in list(cc, &["spec", "workers", field]).iter().enumerate() {
            let p = child(&index(&format!("spec.workers.{field}"), i), "template");
            for part in ["bootstrap", "infrastructure"] {
                template_ref(obj::get(c, &[part, "templateRef"]), &child(&p, part), errs);
            }
        }
    }
}

/// `check.MachineDeploymentClassesAreUnique`, then `check.MachinePoolClassesAreUnique`.
pub(super) fn unique_classes(cc: &Value, errs: &mut Vec<FieldError>) {
    for (field, what) in [
        ("machineDeployments", "MachineDeployment"),
        ("machinePools", "MachinePool"),
    ] {
        let mut seen = HashSet::new();
        for (i, c) in list(cc, &["spec", "workers", field]).iter().enumerate() {
            let n = text(c, &["class"]);
            if !seen.insert(n) {
                errs.push(FieldError::invalid(
                    &child(&index(&format!("spec.workers.{field}"), i), "class"),
                    BadValue::Str(n.into()),
                    format!("{what} class must be unique. {what} with class {} is defined more than once", crate::go::quote::quote(n)),
                ));
            }
        }
    }
}

/// `validateClusterClassRollout`: every MachineDeployment class's
/// `rollout.strategy.rollingUpdate` through `validateRolloutStrategy`.
pub(super) fn rollout(cc: &Value, errs: &mut Vec<FieldError>) {
    for md in list(cc, &["spec", "workers", "machineDeployments"]) {
        let sp = format!(
            "{}.rollout.strategy",
            key("spec.workers.machineDeployments", text(md, &["class"]))
        );
        let ru = ["rollout", "strategy", "rollingUpdate"];
        let field = |f: &str| IntOrStr::at(md, &[ru[0], ru[1], ru[2], f]);
        rolling_update(&sp, field("maxUnavailable"), field("maxSurge"), errs);
    }
}

/// `validateRolloutStrategy` (machinedeployment.go) at `path` (the strategy).
pub(super) fn rolling_update(
    path: &str,
    max_unavailable: Option<IntOrStr>,
    max_surge: Option<IntOrStr>,
    errs: &mut Vec<FieldError>,
) {
    let ru = child(path, "rollingUpdate");
    IntOrStr::check(
        max_unavailable.as_ref(),
        &child(&ru, "maxUnavailable"),
        errs,
    );
    IntOrStr::check(max_surge.as_ref(), &child(&ru, "maxSurge"), errs);
    if let (Some(IntOrStr::Int(0)), Some(IntOrStr::Int(0))) = (&max_unavailable, &max_surge) {
        errs.push(FieldError::invalid(
            &ru,
            BadValue::Str("0".into()),
            "maxUnavailable and maxSurge cannot both be 0",
        ));
    }
}

/// `validateNamingStrategies`: each naming template renders for Cluster `cluster` (topology
/// names `mdtopology` / `mptopology`, a name over 63 characters cut to 58 plus 5 random
/// ones, as the generator does) to a DNS-1123 subdomain.
pub(super) fn naming_strategies(cc: &Value, errs: &mut Vec<FieldError>) {
    use crate::topology::names::{from_template, Strategy};
    let mut check = |t: &str, path: &str, what: &str, strategy: Strategy| {
        if t.is_empty() {
            return;
        }
        match from_template(Some(t), "cluster", strategy, "admission") {
            Err(e) => errs.push(FieldError::invalid(
                path,
                BadValue::Str(t.into()),
                format!("invalid {what} name template: {}", e.message()),
            )),
            Ok(name) => {
                for m in crate::provider::dns1123_subdomain_errors(&name) {
                    errs.push(FieldError::invalid(path, BadValue::Str(t.into()), m));
                }
            }
        }
    };
    check(
        text(cc, &["spec", "infrastructure", "naming", "template"]),
        "spec.infrastructure.naming.template",
        "InfraCluster",
        Strategy::Cluster,
    );
    check(
        text(cc, &["spec", "controlPlane", "naming", "template"]),
        "spec.controlPlane.naming.template",
        "ControlPlane",
        Strategy::Cluster,
    );
    for (field, what) in [
        ("machineDeployments", "MachineDeployment"),
        ("machinePools", "MachinePool"),
    ] {
        for c in list(cc, &["spec", "workers", field]) {
            let path = format!(
                "{}.naming.template",
                key(&format!("spec.workers.{field}"), text(c, &["class"]))
            );
            let strategy = if field == "machineDeployments" {
                Strategy::MachineDeployment("mdtopology")
            } else {
                Strategy::MachinePool("mptopology")
            };
            check(text(c, &["naming", "template"]), &path, what, strategy);
        }
    }
}

/// `taints.ValidateMachineTaints` of the list at `path`.
pub fn machine_taints(taints: &[Value], path: &str, gates: &Gates, errs: &mut Vec<FieldError>) {
    if !gates.machine_taint_propagation && !taints.is_empty() {
        errs.push(FieldError::forbidden(
            path,
            "taints are not allowed to be set when the feature gate MachineTaintPropagation is disabled",
        ));
    }
    for (i, t) in taints.iter().enumerate() {
        let kp = child(&index(path, i), "key");
        let k = text(t, &["key"]);
        let bad = |m: &str| FieldError::invalid(&kp, BadValue::Str(k.into()), m);
        if k == "node.cluster.x-k8s.io/uninitialized"
            || k == "node.cluster.x-k8s.io/outdated-revision"
        {
            errs.push(bad("taint key is not allowed"));
        } else if k.starts_with("node.kubernetes.io/") && k != "node.kubernetes.io/out-of-service" {
            errs.push(bad("taint key must not have the prefix node.kubernetes.io/, except for node.kubernetes.io/out-of-service"));
        } else if k.starts_with("node.cloudprovider.kubernetes.io/") {
            errs.push(bad(
                "taint key must not have the prefix node.cloudprovider.kubernetes.io/",
            ));
        } else if k == "node-role.kubernetes.io/master" {
            errs.push(bad(
                "taint is deprecated since 1.24 and should not be used anymore",
            ));
        }
        for m in super::meta::label_key_errors(k) {
            errs.push(bad(&m));
        }
    }
}

/// `validateTaints`: the control plane's, then every worker class's.
pub(super) fn taints(cc: &Value, gates: &Gates, errs: &mut Vec<FieldError>) {
    machine_taints(
        list(cc, &["spec", "controlPlane", "taints"]),
        "spec.controlPlane.taints",
        gates,
        errs,
    );
    for field in ["machineDeployments", "machinePools"] {
        for c in list(cc, &["spec", "workers", field]) {
            let path = child(
                &key(&format!("spec.workers.{field}"), text(c, &["class"])),
                "taints",
            );
            machine_taints(list(c, &["taints"]), &path, gates, errs);
        }
    }
}
