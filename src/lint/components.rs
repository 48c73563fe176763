//! The components file (spec R7): its name, its Namespace, the namespace and scope
//! of every object, its variables, images, manager container, provider label,
//! webhook Services and cert-manager objects.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{file_finding, Doc, Finding, Release, Severity};
use crate::components::filters::common_labels::PROVIDER_LABEL;
use crate::components::filters::target_namespace::CLUSTER_SCOPED_KINDS;
use crate::model::object::{api_version, get, group_of, str_at};

/// Kinds Kubernetes and cert-manager define cluster-scoped that clusterctl's list
/// (spec R7.5) does not know: clusterctl gives them a namespace.
const OTHER_CLUSTER_SCOPED: [&str; 12] = [
    "APIService",
    "ClusterIssuer",
    "IngressClass",
    "ComponentStatus",
    "FlowSchema",
    "PriorityLevelConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
    "ClusterTrustBundle",
    "IPAddress",
];

const INJECT_CA_FROM: &str = "cert-manager.io/inject-ca-from";

/// The components file name of the release's provider type (`None` for a folder
/// that is no provider label).
pub fn file_name(r: &Release) -> Option<&'static str> {
    r.provider_type.map(|t| t.default_components_file())
}

/// The components rules for one release.
pub fn check(r: &Release) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(name) = file_name(r) else {
        return out;
    };
    let Some(f) = r.file(name) else {
        let shown = format!("{}/{name}", r.rel)
            .trim_start_matches("./")
            .to_string();
        let others: Vec<&str> = r
            .files
            .iter()
            .map(|f| f.name.as_str())
            .filter(|n| n.ends_with("-components.yaml"))
            .collect();
        let mut x = file_finding(
            "components-file",
            Severity::Error,
            &shown,
            format!(
                "release {} of {} has no {name} (the components file of a {})",
                r.version,
                r.label,
                r.provider_type.map(|t| t.as_str()).unwrap_or("")
            ),
        );
        if !others.is_empty() {
            x = x.with_hint(format!(
                "found {}: rename it, or put it in the folder of its provider type",
                others.join(", ")
            ));
        }
        out.push(x);
        return out;
    };
    if f.invalid {
        return out;
    }
    let docs: Vec<&Doc> = f.docs.iter().collect();
    out.extend(variables(&f.rel, &f.text));
    out.extend(namespaces(&f.rel, &docs));
    out.extend(scope(&docs));
    for d in &docs {
        out.extend(images(d));
        out.extend(manager(d));
        out.extend(provider_label(d, &r.label));
    }
    out.extend(webhook_services(&docs));
    out.extend(cert_manager(&docs));
    out
}

/// components-variables: a reference that does not parse (error); a variable
/// without a default (note).
pub fn variables(file: &str, text: &str) -> Vec<Finding> {
    match crate::envsubst::processor::get_variable_map(text) {
        Err(e) => vec![file_finding(
            "components-variables",
            Severity::Error,
            file,
            format!("the variables do not parse: {e}"),
        )],
        Ok(vars) => vars
            .into_iter()
            .filter(|(_, default)| default.is_none())
            .map(|(name, _)| {
                file_finding(
                    "components-variables",
                    Severity::Note,
                    file,
                    format!("variable {name} has no default: it must be set (environment or clusterctl config) at init"),
                )
            })
            .collect(),
    }
}

/// components-namespace and components-object-namespace.
pub fn namespaces(file: &str, docs: &[&Doc]) -> Vec<Finding> {
    let mut out = Vec::new();
    let ns: Vec<&&Doc> = docs.iter().filter(|d| d.kind() == "Namespace").collect();
    match ns.as_slice() {
        [] => out.push(
            file_finding(
                "components-namespace",
                Severity::Warning,
                file,
                "the components hold no Namespace: clusterctl cannot default the target namespace",
            )
            .with_hint("add the provider's Namespace (e.g. <provider>-system)"),
        ),
        [one] => {
            let target = one.name();
            for d in docs {
                let n = d.namespace();
                if crate::components::filters::target_namespace::is_namespaced(d.kind())
                    && !n.is_empty()
                    && n != target
                {
                    out.push(d.finding(
                        "components-object-namespace",
                        Severity::Error,
                        "metadata.namespace",
                        format!(
                            "{} is in namespace {n}, not in the components' Namespace {target}: clusterctl moves it into the target namespace",
                            d.describe()
                        ),
                    ));
                }
            }
        }
        [_, rest @ ..] => {
            for d in rest {
                out.push(d.finding(
                    "components-namespace",
                    Severity::Error,
                    "",
                    format!(
                        "Namespace {} is one Namespace too many: clusterctl accepts no more than one resource with Kind Namespace in the provider components",
                        d.name()
                    ),
                ));
            }
        }
    }
    out
}

/// components-scope: cluster-scoped kinds (Kubernetes', cert-manager's, or of a
/// cluster-scoped CRD of the components) that clusterctl would namespace.
pub fn scope(docs: &[&Doc]) -> Vec<Finding> {
    let crd_scoped: BTreeSet<(String, String)> = docs
        .iter()
        .filter(|d| d.kind() == "CustomResourceDefinition")
        .filter(|d| str_at(&d.value, &["spec", "scope"]) == "Cluster")
        .map(|d| {
            (
                str_at(&d.value, &["spec", "group"]).to_string(),
                str_at(&d.value, &["spec", "names", "kind"]).to_string(),
            )
        })
        .collect();
    docs.iter()
        .filter(|d| !CLUSTER_SCOPED_KINDS.contains(&d.kind()))
        .filter(|d| {
            OTHER_CLUSTER_SCOPED.contains(&d.kind())
                || crd_scoped.contains(&(
                    group_of(api_version(&d.value)).to_string(),
                    d.kind().to_string(),
                ))
        })
        .map(|d| {
            d.finding(
                "components-scope",
                Severity::Error,
                "kind",
                format!(
                    "{} is cluster-scoped, but clusterctl treats kind {} as namespaced and gives it the target namespace",
                    d.describe(),
                    d.kind()
                ),
            )
            .with_hint("create it outside the components (clusterctl knows cluster-scoped kinds by name only)")
        })
        .collect()
}

fn containers(d: &Doc) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    for list in ["containers", "initContainers"] {
        if let Some(Value::Array(cs)) = get(&d.value, &["spec", "template", "spec", list]) {
            for (i, c) in cs.iter().enumerate() {
                out.push((format!("spec.template.spec.{list}[{i}]"), c));
            }
        }
    }
    out
}

/// components-image: Deployments and DaemonSets are apps/v1 and their images parse.
pub fn images(d: &Doc) -> Vec<Finding> {
    let mut out = Vec::new();
    if !matches!(d.kind(), "Deployment" | "DaemonSet") {
        return out;
    }
    if api_version(&d.value) != "apps/v1" {
        out.push(d.finding(
            "components-image",
            Severity::Error,
            "apiVersion",
            format!(
                "{} is {:?}: clusterctl converts Deployments and DaemonSets as apps/v1 only",
                d.describe(),
                api_version(&d.value)
            ),
        ));
    }
    for (path, c) in containers(d) {
        let image = c.get("image").and_then(Value::as_str).unwrap_or("");
        if image.contains("${") {
            continue;
        }
        if let Err(e) = crate::image::parse_image(image) {
            out.push(d.finding(
                "components-image",
                Severity::Error,
                format!("{path}.image"),
                format!("{}: {e}", d.describe()),
            ));
        }
    }
    out
}

/// components-manager: every Deployment has a container named `manager`.
pub fn manager(d: &Doc) -> Vec<Finding> {
    if d.kind() != "Deployment" {
        return vec![];
    }
    let names: Vec<&str> = containers(d)
        .into_iter()
        .filter(|(p, _)| p.contains(".containers["))
        .filter_map(|(_, c)| c.get("name").and_then(Value::as_str))
        .collect();
    if names.contains(&"manager") {
        return vec![];
    }
    vec![d
        .finding(
            "components-manager",
            Severity::Warning,
            "spec.template.spec.containers",
            format!(
                "{} has no container named manager (it has: {})",
                d.describe(),
                names.join(", ")
            ),
        )
        .with_hint("name the provider's controller container `manager`")]
}

/// components-provider-label: a provider label other than the manifest label.
pub fn provider_label(d: &Doc, label: &str) -> Vec<Finding> {
    match get(&d.value, &["metadata", "labels", PROVIDER_LABEL]).and_then(Value::as_str) {
        Some(v) if v != label => vec![d.finding(
            "components-provider-label",
            Severity::Warning,
            format!("metadata.labels[{PROVIDER_LABEL}]"),
            format!(
                "{} is labelled {PROVIDER_LABEL}={v}; clusterctl sets it to {label}",
                d.describe()
            ),
        )],
        _ => vec![],
    }
}

fn services(docs: &[&Doc]) -> BTreeSet<(String, String)> {
    docs.iter()
        .filter(|d| d.kind() == "Service")
        .map(|d| (d.namespace().to_string(), d.name().to_string()))
        .collect()
}

/// (path, service) of every webhook client config of a document.
fn webhook_refs(d: &Doc) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    match d.kind() {
        "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration" => {
            if let Some(Value::Array(ws)) = d.value.get("webhooks") {
                for (i, w) in ws.iter().enumerate() {
                    if let Some(s) = get(w, &["clientConfig", "service"]) {
                        out.push((format!("webhooks[{i}].clientConfig.service"), s));
                    }
                }
            }
        }
        "CustomResourceDefinition" => {
            for (path, p) in [
                (
                    "spec.conversion.webhook.clientConfig.service",
                    &["spec", "conversion", "webhook", "clientConfig", "service"][..],
                ),
                (
                    "spec.conversion.webhookClientConfig.service",
                    &["spec", "conversion", "webhookClientConfig", "service"][..],
                ),
            ] {
                if let Some(s) = get(&d.value, p) {
                    out.push((path.to_string(), s));
                }
            }
        }
        _ => {}
    }
    out
}

/// components-webhook-service.
pub fn webhook_services(docs: &[&Doc]) -> Vec<Finding> {
    let have = services(docs);
    let mut out = Vec::new();
    for d in docs {
        for (path, s) in webhook_refs(d) {
            let ns = s.get("namespace").and_then(Value::as_str).unwrap_or("");
            let name = s.get("name").and_then(Value::as_str).unwrap_or("");
            if !have.contains(&(ns.to_string(), name.to_string())) {
                out.push(d.finding(
                    "components-webhook-service",
                    Severity::Error,
                    path,
                    format!(
                        "{} calls Service {ns}/{name}, which the components do not hold",
                        d.describe()
                    ),
                ));
            }
        }
    }
    out
}

/// components-cert-manager.
pub fn cert_manager(docs: &[&Doc]) -> Vec<Finding> {
    let is_cm = |d: &Doc| group_of(api_version(&d.value)) == "cert-manager.io";
    let of_kind = |k: &str| -> BTreeSet<(String, String)> {
        docs.iter()
            .filter(|d| d.kind() == k && is_cm(d))
            .map(|d| (d.namespace().to_string(), d.name().to_string()))
            .collect()
    };
    let issuers = of_kind("Issuer");
    let certs = of_kind("Certificate");
    let mut out = Vec::new();
    for d in docs {
        if d.kind() == "Certificate" && is_cm(d) {
            let kind = str_at(&d.value, &["spec", "issuerRef", "kind"]);
            let name = str_at(&d.value, &["spec", "issuerRef", "name"]);
            let group = str_at(&d.value, &["spec", "issuerRef", "group"]);
            if matches!(kind, "" | "Issuer")
                && matches!(group, "" | "cert-manager.io")
                && !issuers.contains(&(d.namespace().to_string(), name.to_string()))
            {
                out.push(d.finding(
                    "components-cert-manager",
                    Severity::Error,
                    "spec.issuerRef",
                    format!(
                        "{} is issued by Issuer {name}, which is not in namespace {} of the components",
                        d.describe(),
                        d.namespace()
                    ),
                ));
            }
        }
        let Some(v) =
            get(&d.value, &["metadata", "annotations", INJECT_CA_FROM]).and_then(Value::as_str)
        else {
            continue;
        };
        let path = format!("metadata.annotations[{INJECT_CA_FROM}]");
        match v.split('/').collect::<Vec<_>>().as_slice() {
            [ns, name] if certs.contains(&(ns.to_string(), name.to_string())) => {}
            [ns, name] => out.push(d.finding(
                "components-cert-manager",
                Severity::Error,
                path,
                format!("{} injects the CA of Certificate {ns}/{name}, which the components do not hold", d.describe()),
            )),
            _ => out.push(d.finding(
                "components-cert-manager",
                Severity::Error,
                path,
                format!("{} has {INJECT_CA_FROM}: {v:?}, not <namespace>/<certificate> (clusterctl refuses it)", d.describe()),
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(v: Value) -> Doc {
        Doc {
            file: "c.yaml".into(),
            doc: 1,
            line: 1,
            value: v,
        }
    }

    fn deployment(container: &str, image: &str) -> Doc {
        doc(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "m", "namespace": "ns"},
            "spec": {"template": {"spec": {"containers": [{"name": container, "image": image}]}}}}))
    }

    #[test]
    fn images_and_manager() {
        assert!(images(&deployment("manager", "registry.k8s.io/x:v1")).is_empty());
        assert!(images(&deployment("manager", "${IMAGE}")).is_empty());
        let f = images(&deployment("manager", "Bad/Name:v1"));
        assert_eq!(f[0].path, "spec.template.spec.containers[0].image");
        assert!(manager(&deployment("manager", "x")).is_empty());
        assert_eq!(
            manager(&deployment("ctrl", "x"))[0].rule,
            "components-manager"
        );
    }

    #[test]
    fn namespaces_and_scope() {
        let ns = doc(json!({"kind": "Namespace", "metadata": {"name": "ns"}}));
        let other = doc(json!({"kind": "Service", "metadata": {"name": "s", "namespace": "x"}}));
        let cr = doc(json!({"kind": "ClusterRole", "metadata": {"name": "r"}}));
        assert!(namespaces("c.yaml", &[&ns, &cr]).is_empty());
        assert_eq!(
            namespaces("c.yaml", &[&ns, &other])[0].rule,
            "components-object-namespace"
        );
        assert_eq!(namespaces("c.yaml", &[&cr])[0].severity, Severity::Warning);
        assert_eq!(
            namespaces("c.yaml", &[&ns, &ns])[0].severity,
            Severity::Error
        );
        let api = doc(
            json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "a"}}),
        );
        assert_eq!(scope(&[&api]).len(), 1);
        assert!(scope(&[&cr]).is_empty());
    }

    #[test]
    fn variables_listed() {
        let f = variables("c.yaml", "a: ${A}\nb: ${B:=x}\n");
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("variable A"));
        assert_eq!(f[0].severity, Severity::Note);
    }
}
