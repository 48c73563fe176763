//! `--clusters flatten`: the desired objects as what the tree applies, for a management
//! cluster without the topology controller. The Cluster loses `spec.topology` and keeps
//! its refs; every template is named by its content, so a template whose spec changes
//! is a new object and every reference to it moves, as the topology controller rotates
//! templates (the API server refuses a changed template spec under the same name).

use std::collections::HashMap;

use serde_json::Value;

use super::{input, names, obj, v1beta2};

/// An object the Cluster API providers treat as an immutable template: a kind ending
/// in `Template` of a `*cluster.x-k8s.io` group (DockerMachineTemplate,
/// KubeadmConfigTemplate, KubeadmControlPlaneTemplate, ...). Their webhooks refuse a
/// change of `spec` under the same name.
pub fn is_template(o: &Value) -> bool {
    let group = obj::api_version(o).rsplit_once('/').map_or("", |(g, _)| g);
    is_template_kind(group, obj::kind(o))
}

/// [`is_template`] by API group and kind.
pub fn is_template_kind(group: &str, kind: &str) -> bool {
    kind.len() > "Template".len()
        && kind.ends_with("Template")
        && (group == "cluster.x-k8s.io" || group.ends_with(".cluster.x-k8s.io"))
}

/// The name of a template whose content is `o`: the generated name's stem (without the
/// 5 random characters the topology controller appends, when it ends with them) and 5
/// characters of the same alphabet derived from apiVersion, kind and `spec`.
pub fn content_name(o: &Value) -> String {
    let name = obj::name(o);
    let spec = o.get("spec").cloned().unwrap_or(Value::Null);
    let text = format!(
        "{}\n{}\n{}",
        obj::api_version(o),
        obj::kind(o),
        serde_json::to_string(&spec).unwrap_or_default()
    );
    let stem = match name.len().checked_sub(names::SUFFIX_LEN + 1) {
        Some(at)
            if name.as_bytes()[at] == b'-'
                && name.as_bytes()[at + 1..]
                    .iter()
                    .all(|b| names::ALPHABET.contains(b)) =>
        {
            &name[..=at]
        }
        _ => name,
    };
    let mut stem = stem.to_string();
    if !stem.ends_with('-') {
        stem.push('-');
    }
    if stem.len() > names::MAX_PREFIX_LEN {
        let mut cut = names::MAX_PREFIX_LEN;
        while !stem.is_char_boundary(cut) {
            cut -= 1;
        }
        stem.truncate(cut);
    }
    format!("{stem}{}", names::suffix(&text))
}

/// Flatten one Cluster's desired objects (see the module).
pub fn flatten(mut objs: Vec<Value>) -> Vec<Value> {
    let mut renames: HashMap<(String, String), String> = HashMap::new();
    for o in &objs {
        if is_template(o) {
            let new = content_name(o);
            if new != obj::name(o) {
                renames.insert((obj::kind(o).to_string(), obj::name(o).to_string()), new);
            }
        }
    }
    for o in &mut objs {
        if let Some(new) = renames.get(&(obj::kind(o).to_string(), obj::name(o).to_string())) {
            if is_template(o) {
                obj::set(o, &["metadata", "name"], Value::String(new.clone()));
            }
        }
        if let Value::Object(m) = o {
            for (k, v) in m.iter_mut() {
                if k != "metadata" {
                    move_refs(v, &renames);
                }
            }
        }
        if input::is_cluster(o) || v1beta2::is_cluster(o) {
            if let Some(Value::Object(spec)) = o.get_mut("spec") {
                spec.remove("topology");
            }
        }
    }
    objs
}

/// Point every reference (a mapping with `kind` and `name`) at the renamed template.
fn move_refs(v: &mut Value, renames: &HashMap<(String, String), String>) {
    match v {
        Value::Object(m) => {
            let hit = match (m.get("kind"), m.get("name")) {
                (Some(Value::String(k)), Some(Value::String(n))) => {
                    renames.get(&(k.clone(), n.clone())).cloned()
                }
                _ => None,
            };
            if let Some(new) = hit {
                m.insert("name".to_string(), Value::String(new));
                return;
            }
            m.values_mut().for_each(|c| move_refs(c, renames));
        }
        Value::Array(items) => items.iter_mut().for_each(|c| move_refs(c, renames)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn objs(image: &str) -> Vec<Value> {
        vec![
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
                "metadata": {"name": "dev", "namespace": "ns"},
                "spec": {"topology": {"class": "c", "version": "v1.33.0"},
                    "infrastructureRef": {"kind": "DockerCluster", "name": "dev-abcde"}}}),
            json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "DockerCluster",
                "metadata": {"name": "dev-abcde", "namespace": "ns"}, "spec": {}}),
            json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "DockerMachineTemplate",
                "metadata": {"name": "dev-md-0-q8l6q", "namespace": "ns", "labels": {"a": "b"}},
                "spec": {"template": {"spec": {"customImage": image}}}}),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachineDeployment",
                "metadata": {"name": "dev-md-0-pwsq8", "namespace": "ns"},
                "spec": {"template": {"spec": {"infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
                    "kind": "DockerMachineTemplate", "name": "dev-md-0-q8l6q"}}}}}),
        ]
    }

    #[test]
    fn templates_are_named_by_content_and_references_move() {
        let a = flatten(objs("kindest/node:v1.33.0"));
        let name = obj::name(&a[2]).to_string();
        assert!(
            name.starts_with("dev-md-0-") && name.len() == "dev-md-0-q8l6q".len(),
            "{name}"
        );
        assert_ne!(name, "dev-md-0-q8l6q");
        assert_eq!(
            a[3]["spec"]["template"]["spec"]["infrastructureRef"]["name"],
            Value::String(name.clone())
        );
        // Not templates: names kept; the Cluster keeps its refs, without topology.
        assert_eq!(obj::name(&a[1]), "dev-abcde");
        assert_eq!(a[0]["spec"]["infrastructureRef"]["name"], "dev-abcde");
        assert!(a[0]["spec"].get("topology").is_none());
        // Same content, same name; changed spec, new name; labels alone do not rename.
        assert_eq!(obj::name(&flatten(objs("kindest/node:v1.33.0"))[2]), name);
        let b = flatten(objs("kindest/node:v1.33.1"));
        let renamed = obj::name(&b[2]).to_string();
        assert_ne!(renamed, name);
        assert_eq!(
            b[3]["spec"]["template"]["spec"]["infrastructureRef"]["name"],
            Value::String(renamed)
        );
        let mut relabelled = objs("kindest/node:v1.33.0");
        relabelled[2]["metadata"]["labels"]["a"] = json!("c");
        assert_eq!(obj::name(&flatten(relabelled)[2]), name);
    }

    #[test]
    fn names_without_a_generated_suffix_keep_their_stem() {
        let t = json!({"apiVersion": "bootstrap.cluster.x-k8s.io/v1beta1", "kind": "KubeadmConfigTemplate",
            "metadata": {"name": "workers"}, "spec": {}});
        let n = content_name(&t);
        assert!(
            n.starts_with("workers-") && n.len() == "workers-".len() + 5,
            "{n}"
        );
        let long = json!({"apiVersion": "bootstrap.cluster.x-k8s.io/v1beta1", "kind": "KubeadmConfigTemplate",
            "metadata": {"name": "x".repeat(63)}, "spec": {}});
        assert_eq!(content_name(&long).len(), 63);
    }

    #[test]
    fn only_cluster_api_templates_are_templates() {
        let t = |api: &str, kind: &str| is_template(&json!({"apiVersion": api, "kind": kind}));
        assert!(t(
            "infrastructure.cluster.x-k8s.io/v1beta1",
            "DockerMachineTemplate"
        ));
        assert!(t(
            "controlplane.cluster.x-k8s.io/v1beta1",
            "KubeadmControlPlaneTemplate"
        ));
        assert!(!t("v1", "PodTemplate"));
        assert!(!t("cluster.x-k8s.io/v1beta1", "ClusterClass"));
        assert!(!t(
            "infrastructure.cluster.x-k8s.io/v1beta1",
            "DockerMachine"
        ));
    }
}
