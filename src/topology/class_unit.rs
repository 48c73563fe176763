//! What a class unit (`--clusters managed`) applies: a ClusterClass with the templates
//! it refers to. The topology controller reads them from the API server, so the tree
//! must carry them; a Cluster unit is applied after its class unit.

use serde_json::Value;

use super::{input, obj, v1beta2};

/// One template reference of a ClusterClass: its field path (as the webhooks print
/// paths, e.g. `spec.workers.machineDeployments[0].template.infrastructure.ref`), the
/// kind and the name it refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateRef {
    pub path: String,
    pub kind: String,
    pub name: String,
}

/// A ClusterClass of either version `render` reads.
pub fn is_class(o: &Value) -> bool {
    input::is_cluster_class(o) || v1beta2::is_cluster_class(o)
}

/// Every template reference of a ClusterClass, in spec order: each mapping with a
/// string `kind` and `name` under `spec.infrastructure`, `spec.controlPlane` and
/// `spec.workers` (v1beta1 `ref`s and v1beta2 `templateRef`s alike).
pub fn template_refs(class: &Value) -> Vec<TemplateRef> {
    let mut out = Vec::new();
    for top in ["infrastructure", "controlPlane", "workers"] {
        if let Some(v) = obj::get(class, &["spec", top]) {
            walk(v, &mut format!("spec.{top}"), &mut out);
        }
    }
    out
}

fn walk(v: &Value, path: &mut String, out: &mut Vec<TemplateRef>) {
    let len = path.len();
    match v {
        Value::Object(m) => {
            if let (Some(Value::String(kind)), Some(Value::String(name))) =
                (m.get("kind"), m.get("name"))
            {
                out.push(TemplateRef {
                    path: path.clone(),
                    kind: kind.clone(),
                    name: name.clone(),
                });
                return;
            }
            for (k, child) in m {
                path.push('.');
                path.push_str(k);
                walk(child, path, out);
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                path.push_str(&format!("[{i}]"));
                walk(child, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// The namespace and name of the ClusterClass a topology Cluster uses: v1beta1
/// `spec.topology.class` (with `classNamespace`), v1beta2 `spec.topology.classRef`;
/// the Cluster's own namespace when none is given.
pub fn class_of(cluster: &Value) -> Option<(String, String)> {
    let (name, ns) = if v1beta2::is_cluster(cluster) {
        let ns = obj::str_at(cluster, &["spec", "topology", "classRef", "namespace"]);
        (
            obj::str_at(cluster, &["spec", "topology", "classRef", "name"]),
            if ns.is_empty() {
                obj::namespace(cluster)
            } else {
                ns
            },
        )
    } else {
        (
            obj::str_at(cluster, &["spec", "topology", "class"]),
            obj::class_namespace(cluster),
        )
    };
    (!name.is_empty()).then(|| (ns.to_string(), name.to_string()))
}

/// The namespace of a Cluster's ClusterClass when it is not the Cluster's own
/// (`classNamespace`, v1beta2 `classRef.namespace`).
pub fn foreign_class_namespace(cluster: &Value) -> Option<String> {
    let (cns, _) = class_of(cluster)?;
    (cns != obj::namespace(cluster)).then_some(cns)
}

/// The hint for a Cluster whose ClusterClass is not among the inputs: the closest
/// class and every ClusterClass of `spaces` (namespace, its objects), as `namespace/name`;
/// when the class's namespace holds no ClusterClass at all, first the closest namespace
/// and the namespaces that hold one.
pub fn classes_hint<'a>(
    cluster: &Value,
    spaces: impl Iterator<Item = (&'a str, &'a [Value])>,
) -> String {
    let (wanted_ns, wanted) = class_of(cluster)
        .map(|(ns, n)| (ns.clone(), format!("{ns}/{n}")))
        .unwrap_or_default();
    let mut classes: Vec<String> = spaces
        .flat_map(|(ns, objects)| {
            objects
                .iter()
                .filter(|o| is_class(o))
                .map(move |o| format!("{ns}/{}", obj::name(o)))
        })
        .collect();
    classes.sort();
    classes.dedup();
    format!(
        "{}{} (a Cluster names its class with spec.topology.class and classNamespace, or classRef.name and classRef.namespace in v1beta2; add the class to the inputs with -f)",
        namespace_hint(&wanted_ns, &classes),
        crate::suggest::did_you_mean(&wanted, "ClusterClasses among the inputs", &classes)
    )
}

/// "namespace NS holds no ClusterClass; did you mean X? namespaces with a ClusterClass
/// there: ...; " when no class of `classes` (sorted `namespace/name`) is in `ns`.
fn namespace_hint(ns: &str, classes: &[String]) -> String {
    let mut spaces: Vec<String> = classes
        .iter()
        .filter_map(|c| c.split_once('/').map(|(n, _)| n.to_string()))
        .collect();
    spaces.dedup();
    if ns.is_empty() || spaces.is_empty() || spaces.iter().any(|s| s == ns) {
        return String::new();
    }
    format!(
        "namespace {ns:?} holds no ClusterClass; {}; ",
        crate::suggest::did_you_mean(ns, "namespaces with a ClusterClass", &spaces)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refs_of_a_v1beta1_class_in_spec_order() {
        let cc = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "ClusterClass",
        "metadata": {"name": "c", "namespace": "ns"},
        "spec": {
            "controlPlane": {"ref": {"apiVersion": "controlplane.cluster.x-k8s.io/v1beta1", "kind": "KubeadmControlPlaneTemplate", "name": "cp"},
                "machineInfrastructure": {"ref": {"kind": "DockerMachineTemplate", "name": "cp-m"}}},
            "infrastructure": {"ref": {"kind": "DockerClusterTemplate", "name": "infra"}},
            "workers": {"machineDeployments": [
                {"class": "a", "template": {"bootstrap": {"ref": {"kind": "KubeadmConfigTemplate", "name": "b"}},
                    "infrastructure": {"ref": {"kind": "DockerMachineTemplate", "name": "m"}}}}]},
            "variables": [{"name": "kind", "schema": {"openAPIV3Schema": {"properties": {"kind": {"type": "string"}, "name": {"type": "string"}}}}}],
        }});
        let refs: Vec<(String, String)> = template_refs(&cc)
            .into_iter()
            .map(|r| (r.path, r.name))
            .collect();
        assert_eq!(
            refs,
            [
                ("spec.infrastructure.ref", "infra"),
                ("spec.controlPlane.machineInfrastructure.ref", "cp-m"),
                ("spec.controlPlane.ref", "cp"),
                (
                    "spec.workers.machineDeployments[0].template.bootstrap.ref",
                    "b"
                ),
                (
                    "spec.workers.machineDeployments[0].template.infrastructure.ref",
                    "m"
                ),
            ]
            .map(|(p, n)| (p.to_string(), n.to_string()))
        );
    }

    #[test]
    fn refs_of_a_v1beta2_class() {
        let cc = json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "ClusterClass",
            "metadata": {"name": "c"},
            "spec": {"infrastructure": {"templateRef": {"apiVersion": "x/v1", "kind": "DockerClusterTemplate", "name": "i"}}}});
        let r = template_refs(&cc);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].path, "spec.infrastructure.templateRef");
        assert_eq!(
            (r[0].kind.as_str(), r[0].name.as_str()),
            ("DockerClusterTemplate", "i")
        );
    }

    #[test]
    fn a_namespace_without_classes_gets_its_own_hint() {
        let classes = vec![
            "prod/a".to_string(),
            "staging/a".to_string(),
            "staging/b".into(),
        ];
        assert_eq!(
            namespace_hint("prd", &classes),
            "namespace \"prd\" holds no ClusterClass; did you mean \"prod\"? namespaces with a ClusterClass there: prod, staging; "
        );
        assert_eq!(namespace_hint("staging", &classes), "");
        assert_eq!(namespace_hint("x", &[]), "");
    }

    #[test]
    fn class_of_both_versions() {
        let c1 = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
            "metadata": {"name": "a", "namespace": "ns"}, "spec": {"topology": {"class": "k"}}});
        assert_eq!(class_of(&c1), Some(("ns".into(), "k".into())));
        let c2 = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
            "metadata": {"name": "a", "namespace": "ns"}, "spec": {"topology": {"class": "k", "classNamespace": "shared"}}});
        assert_eq!(class_of(&c2), Some(("shared".into(), "k".into())));
        let c3 = json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
            "metadata": {"name": "a", "namespace": "ns"}, "spec": {"topology": {"classRef": {"name": "k"}}}});
        assert_eq!(class_of(&c3), Some(("ns".into(), "k".into())));
        let none = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
            "metadata": {"name": "a"}, "spec": {"topology": {}}});
        assert_eq!(class_of(&none), None);
    }
}
