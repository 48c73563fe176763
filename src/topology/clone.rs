//! Cloning ClusterClass templates (topology.md §2): `templateToObject` (through
//! `external.GenerateTemplate`) and `templateToTemplate`.

use serde_json::{Map, Value};

use super::obj;
use crate::error::{Error, Result};

pub const CLUSTER_NAME_LABEL: &str = "cluster.x-k8s.io/cluster-name";
pub const OWNED_LABEL: &str = "topology.cluster.x-k8s.io/owned";
pub const CLONED_NAME: &str = "cluster.x-k8s.io/cloned-from-name";
pub const CLONED_GROUPKIND: &str = "cluster.x-k8s.io/cloned-from-groupkind";
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// What a clone needs besides the template.
pub struct CloneInput<'a> {
    pub template: &'a Value,
    /// `templateClonedFromRef`: (apiVersion, kind, name) for the cloned-from annotations.
    pub cloned_from: (&'a str, &'a str, &'a str),
    pub cluster_name: &'a str,
    pub namespace: &'a str,
    pub name: String,
    pub labels: Map<String, Value>,
    pub annotations: Map<String, Value>,
    pub owner_ref: Option<Value>,
    /// Cluster API v1.14's `GenerateTemplate` tolerates a template without
    /// `spec.template` (the object then has only what it sets); v1.10's fails.
    pub tolerate_missing_template: bool,
}

fn group_kind(api_version: &str, kind: &str) -> String {
    let g = obj::group_of(api_version);
    if g.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}.{g}")
    }
}

fn clear_server_fields(md: &mut Map<String, Value>) {
    for f in ["resourceVersion", "finalizers", "uid", "selfLink"] {
        md.remove(f);
    }
}

fn meta_map(o: &mut Value) -> &mut Map<String, Value> {
    if !o.get("metadata").is_some_and(Value::is_object) {
        obj::set(o, &["metadata"], Value::Object(Map::new()));
    }
    o["metadata"]
        .as_object_mut()
        .expect("metadata is an object")
}

/// `templateToObject`: the template's `spec.template` becomes the object.
pub fn template_to_object(input: CloneInput) -> Result<Value> {
    let t = input.template;
    let mut to = match obj::get(t, &["spec", "template"]) {
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => {
            return Err(Error::new(format!(
                "failed to retrieve Spec.Template map on {} {:?}",
                gvk_string(t),
                obj::name(t)
            )))
        }
        None if input.tolerate_missing_template => Value::Object(Map::new()),
        None => {
            return Err(Error::new(format!(
                "missing Spec.Template on {} {:?}",
                gvk_string(t),
                obj::name(t)
            )))
        }
    };
    let (cav, ckind, cname) = input.cloned_from;
    {
        let md = meta_map(&mut to);
        clear_server_fields(md);
        md.insert("name".into(), Value::from(input.name.clone()));
        md.insert("namespace".into(), Value::from(input.namespace));
        let mut ann = obj::string_map(&Value::Object(md.clone()), &["annotations"]);
        for (k, v) in input.annotations {
            ann.insert(k, v);
        }
        ann.insert(CLONED_NAME.into(), Value::from(cname));
        ann.insert(CLONED_GROUPKIND.into(), Value::from(group_kind(cav, ckind)));
        md.insert("annotations".into(), Value::Object(ann));
        let mut labels = obj::string_map(&Value::Object(md.clone()), &["labels"]);
        for (k, v) in input.labels {
            labels.insert(k, v);
        }
        labels.insert(CLUSTER_NAME_LABEL.into(), Value::from(input.cluster_name));
        labels.insert(OWNED_LABEL.into(), Value::from(""));
        md.insert("labels".into(), Value::Object(labels));
        if let Some(o) = input.owner_ref {
            md.insert("ownerReferences".into(), Value::Array(vec![o]));
        }
    }
    let m = to.as_object_mut().expect("object");
    if m.get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("")
        .is_empty()
    {
        m.insert("apiVersion".into(), Value::from(obj::api_version(t)));
    }
    if m.get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .is_empty()
    {
        let k = obj::kind(t);
        m.insert(
            "kind".into(),
            Value::from(k.strip_suffix("Template").unwrap_or(k)),
        );
    }
    Ok(to)
}

/// `templateToTemplate`: a copy of the whole template object.
pub fn template_to_template(input: CloneInput) -> Value {
    let mut to = input.template.clone();
    let (cav, ckind, cname) = input.cloned_from;
    let md = meta_map(&mut to);
    clear_server_fields(md);
    let mut labels = obj::string_map(&Value::Object(md.clone()), &["labels"]);
    for (k, v) in input.labels {
        labels.insert(k, v);
    }
    labels.insert(CLUSTER_NAME_LABEL.into(), Value::from(input.cluster_name));
    labels.insert(OWNED_LABEL.into(), Value::from(""));
    md.insert("labels".into(), Value::Object(labels));
    let mut ann = obj::string_map(&Value::Object(md.clone()), &["annotations"]);
    for (k, v) in input.annotations {
        ann.insert(k, v);
    }
    ann.insert(CLONED_NAME.into(), Value::from(cname));
    ann.insert(CLONED_GROUPKIND.into(), Value::from(group_kind(cav, ckind)));
    ann.remove(LAST_APPLIED);
    md.insert("annotations".into(), Value::Object(ann));
    if let Some(o) = input.owner_ref {
        md.insert("ownerReferences".into(), Value::Array(vec![o]));
    }
    md.insert("name".into(), Value::from(input.name));
    md.insert("namespace".into(), Value::from(input.namespace));
    to
}

/// Go's `schema.GroupVersionKind.String()`: `group/version, Kind=kind`.
pub fn gvk_string(o: &Value) -> String {
    let av = obj::api_version(o);
    let (g, v) = match av.rsplit_once('/') {
        Some((g, v)) => (g, v),
        None => ("", av),
    };
    format!("{g}/{v}, Kind={}", obj::kind(o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(t: &Value) -> CloneInput<'_> {
        CloneInput {
            template: t,
            cloned_from: (
                "infrastructure.cluster.x-k8s.io/v1beta1",
                "DockerClusterTemplate",
                "tpl",
            ),
            cluster_name: "c1",
            namespace: "ns",
            name: "c1-abcde".into(),
            labels: Map::new(),
            annotations: Map::new(),
            owner_ref: None,
            tolerate_missing_template: false,
        }
    }

    #[test]
    fn object_from_spec_template_strips_template_suffix() {
        let t = json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
            "kind": "DockerClusterTemplate", "metadata": {"name": "tpl", "resourceVersion": "3"},
            "spec": {"template": {"metadata": {"labels": {"a": "b"}}, "spec": {"x": 1}}}});
        let o = template_to_object(input(&t)).unwrap();
        assert_eq!(o["kind"], "DockerCluster");
        assert_eq!(o["spec"], json!({"x": 1}));
        assert_eq!(o["metadata"]["labels"]["a"], "b");
        assert_eq!(o["metadata"]["labels"][OWNED_LABEL], "");
        assert_eq!(
            o["metadata"]["annotations"][CLONED_GROUPKIND],
            "DockerClusterTemplate.infrastructure.cluster.x-k8s.io"
        );
    }

    #[test]
    fn v1_14_makes_an_object_of_a_template_without_spec_template() {
        let t = json!({"apiVersion": "a.b/v1", "kind": "XTemplate", "metadata": {"name": "n"}});
        let o = template_to_object(CloneInput {
            tolerate_missing_template: true,
            ..input(&t)
        })
        .unwrap();
        assert_eq!(o["kind"], "X");
        assert!(o.get("spec").is_none());
        assert_eq!(o["metadata"]["name"], "c1-abcde");
    }

    #[test]
    fn object_needs_spec_template() {
        let t = json!({"apiVersion": "a.b/v1", "kind": "XTemplate", "metadata": {"name": "n"}, "spec": {}});
        let e = template_to_object(input(&t)).unwrap_err();
        assert_eq!(
            e.message(),
            "missing Spec.Template on a.b/v1, Kind=XTemplate \"n\""
        );
    }

    #[test]
    fn template_copy_drops_last_applied() {
        let t = json!({"apiVersion": "a.b/v1", "kind": "XTemplate", "metadata": {"name": "n",
            "annotations": {LAST_APPLIED: "{}"}, "uid": "u"}, "spec": {"template": {"spec": {}}}});
        let o = template_to_template(input(&t));
        assert!(o["metadata"]["annotations"].get(LAST_APPLIED).is_none());
        assert!(o["metadata"].get("uid").is_none());
        assert_eq!(o["metadata"]["name"], "c1-abcde");
    }
}
