//! Input validation and preparation of `topology plan` (topology.md R0.1, §9 defaults).

use crate::model::pointer::Pointer as _;
use std::collections::BTreeMap;

use serde_json::Value;

use super::obj;
use crate::error::{Error, Result};

pub fn is_cluster(o: &Value) -> bool {
    obj::api_version(o) == "cluster.x-k8s.io/v1beta1" && obj::kind(o) == "Cluster"
}

pub fn is_cluster_class(o: &Value) -> bool {
    obj::api_version(o) == "cluster.x-k8s.io/v1beta1" && obj::kind(o) == "ClusterClass"
}

/// `validateInput`: one apiVersion per Group+Kind, one namespace, at most one
/// Cluster and one ClusterClass. Returns the namespace of the objects.
pub fn validate(objs: &[Value], target_ns: &str) -> Result<String> {
    let mut versions: BTreeMap<String, String> = BTreeMap::new();
    for o in objs {
        let av = obj::api_version(o);
        let (g, v) = match av.rsplit_once('/') {
            Some((g, v)) => (g, v),
            None => ("", av),
        };
        let gk = if g.is_empty() {
            obj::kind(o).to_string()
        } else {
            format!("{}.{g}", obj::kind(o))
        };
        if let Some(prev) = versions.insert(gk.clone(), v.to_string()) {
            if prev != v {
                return Err(Error::new(
                    "objects of the same Group.Kind should use the same apiVersion",
                )
                .with_hint(format!(
                    "{gk} appears with versions {prev} and {v} ({} is {av}): use one apiVersion for every {}",
                    describe(o),
                    obj::kind(o)
                )));
            }
        }
    }
    let ns_of = |o: &Value| -> String {
        if obj::kind(o) == "Namespace" {
            obj::name(o).to_string()
        } else {
            obj::namespace(o).to_string()
        }
    };
    // Each namespace with the first object in it, in input order.
    let mut first_in: Vec<(String, &Value)> = Vec::new();
    for o in objs {
        let n = ns_of(o);
        if !first_in.iter().any(|(m, _)| *m == n) {
            first_in.push((n, o));
        }
    }
    if first_in.len() != 1 {
        let shown: Vec<String> = first_in
            .iter()
            .map(|(n, o)| {
                let n = if n.is_empty() { "(none)" } else { n.as_str() };
                format!("{n} (e.g. {})", describe(o))
            })
            .collect();
        return Err(
            Error::new("all the objects in the input should belong to the same namespace")
                .with_hint(format!(
            "the input has objects in the namespaces {}: give them all the same metadata.namespace",
            shown.join(", ")
        )),
        );
    }
    let ns = first_in[0].0.clone();
    if !ns.is_empty() && !target_ns.is_empty() && ns != target_ns {
        return Err(Error::new(format!(
            "the namespace from the provided object(s) {ns:?} does not match the namespace {target_ns:?}"
        ))
        .with_hint(format!(
            "{} (and every other input object) is in namespace {ns:?}, -n asks for {target_ns:?}: drop -n or pass -n {ns}",
            describe(first_in[0].1)
        )));
    }
    let clusters = objs.iter().filter(|o| is_cluster(o)).count();
    let classes = objs.iter().filter(|o| is_cluster_class(o)).count();
    if clusters > 1 || classes > 1 {
        return Err(Error::new(format!(
            "input should have at most 1 Cluster(s) and at most 1 ClusterClass(es). Found {clusters} Cluster(s) and {classes} ClusterClass(es)"
        )));
    }
    Ok(ns)
}

/// `Kind namespace/name` of an object, for hints.
fn describe(o: &Value) -> String {
    let ns = obj::namespace(o);
    let name = obj::name(o);
    let kind = obj::kind(o);
    let kind = if kind.is_empty() { "object" } else { kind };
    if ns.is_empty() {
        format!("{kind} {name:?}")
    } else {
        format!("{kind} \"{ns}/{name}\"")
    }
}

/// `setMissingNamespaces`: objects without a namespace get `ns` (or `default`).
pub fn set_missing_namespaces(objs: &mut [Value], ns: &str) {
    let ns = if ns.is_empty() { "default" } else { ns };
    for o in objs.iter_mut() {
        if obj::namespace(o).is_empty() && obj::kind(o) != "Namespace" {
            obj::set(o, &["metadata", "namespace"], Value::from(ns));
        }
    }
}

/// ClusterClass webhook defaulting: template refs without namespace get the class's.
pub fn default_cluster_class(cc: &mut Value) {
    let ns = obj::namespace(cc).to_string();
    let set_ns = |r: Option<&mut Value>| {
        if let Some(Value::Object(m)) = r {
            if m.get("namespace")
                .and_then(Value::as_str)
                .unwrap_or("")
                .is_empty()
            {
                m.insert("namespace".into(), Value::from(ns.clone()));
            }
        }
    };
    let spec = match cc.get_mut("spec") {
        Some(s) => s,
        None => return,
    };
    set_ns(spec.ptr_mut("/infrastructure/ref"));
    set_ns(spec.ptr_mut("/controlPlane/ref"));
    set_ns(spec.ptr_mut("/controlPlane/machineInfrastructure/ref"));
    set_ns(spec.ptr_mut("/controlPlane/machineHealthCheck/remediationTemplate"));
    for key in ["machineDeployments", "machinePools"] {
        if let Some(Value::Array(list)) = spec.ptr_mut(&format!("/workers/{key}")) {
            for c in list {
                set_ns(c.ptr_mut("/template/bootstrap/ref"));
                set_ns(c.ptr_mut("/template/infrastructure/ref"));
                set_ns(c.ptr_mut("/machineHealthCheck/remediationTemplate"));
            }
        }
    }
}

/// Cluster webhook defaulting (without variables): ref namespaces, the `v` prefix of
/// the topology version, MHC remediation template namespaces.
pub fn default_cluster(c: &mut Value) -> Result<()> {
    let ns = obj::namespace(c).to_string();
    for f in ["infrastructureRef", "controlPlaneRef"] {
        if let Some(Value::Object(r)) = c.ptr_mut(&format!("/spec/{f}")) {
            if r.get("namespace")
                .and_then(Value::as_str)
                .unwrap_or("")
                .is_empty()
            {
                r.insert("namespace".into(), Value::from(ns.clone()));
            }
        }
    }
    if obj::get(c, &["spec", "topology"]).is_none_or(Value::is_null) {
        return Ok(());
    }
    let v = obj::str_at(c, &["spec", "topology", "version"]);
    if !v.starts_with('v') {
        let nv = format!("v{v}");
        obj::set(c, &["spec", "topology", "version"], Value::from(nv));
    }
    if obj::str_at(c, &["spec", "topology", "class"]).is_empty() {
        return Err(Error::new(format!(
            "failed defaulting of cluster.x-k8s.io/v1beta1, Kind=Cluster {}/{}: Cluster.cluster.x-k8s.io {:?} is invalid: spec.topology.class: Required value: class cannot be empty",
            obj::namespace(c),
            obj::name(c),
            obj::name(c)
        )));
    }
    let mut rts =
        vec!["/spec/topology/controlPlane/machineHealthCheck/remediationTemplate".to_string()];
    if let Some(Value::Array(l)) =
        obj::get(c, &["spec", "topology", "workers", "machineDeployments"])
    {
        for i in 0..l.len() {
            rts.push(format!("/spec/topology/workers/machineDeployments/{i}/machineHealthCheck/remediationTemplate"));
        }
    }
    for p in rts {
        if let Some(Value::Object(r)) = c.ptr_mut(&p) {
            if r.get("namespace")
                .and_then(Value::as_str)
                .unwrap_or("")
                .is_empty()
            {
                r.insert("namespace".into(), Value::from(ns.clone()));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_namespace_and_version() {
        let a = json!({"apiVersion": "x/v1", "kind": "A", "metadata": {"namespace": "n"}});
        let b = json!({"apiVersion": "x/v2", "kind": "A", "metadata": {"namespace": "n"}});
        let c = json!({"apiVersion": "x/v1", "kind": "B", "metadata": {}});
        assert_eq!(validate(std::slice::from_ref(&a), "").unwrap(), "n");
        assert!(validate(&[a.clone(), b], "")
            .unwrap_err()
            .message()
            .contains("same apiVersion"));
        assert!(validate(&[a.clone(), c], "")
            .unwrap_err()
            .message()
            .contains("same namespace"));
        assert!(validate(&[a], "m")
            .unwrap_err()
            .message()
            .contains("does not match"));
    }

    #[test]
    fn namespace_errors_name_the_objects() {
        let a =
            json!({"apiVersion": "x/v1", "kind": "A", "metadata": {"name": "a", "namespace": "n"}});
        let c = json!({"apiVersion": "x/v1", "kind": "B", "metadata": {"name": "b"}});
        let e = validate(&[a.clone(), c], "").unwrap_err();
        assert_eq!(
            e.hint(),
            Some("the input has objects in the namespaces n (e.g. A \"n/a\"), (none) (e.g. B \"b\"): give them all the same metadata.namespace")
        );
        let e = validate(&[a], "m").unwrap_err();
        assert_eq!(
            e.message(),
            "the namespace from the provided object(s) \"n\" does not match the namespace \"m\""
        );
        assert!(
            e.hint()
                .unwrap()
                .starts_with("A \"n/a\" (and every other input object) is in namespace \"n\""),
            "{:?}",
            e.hint()
        );
    }

    #[test]
    fn version_gets_v_prefix() {
        let mut c = json!({"metadata": {"name": "c", "namespace": "n"},
            "spec": {"topology": {"class": "k", "version": "1.30.0"}}});
        default_cluster(&mut c).unwrap();
        assert_eq!(c["spec"]["topology"]["version"], "v1.30.0");
    }

    #[test]
    fn class_refs_get_namespace() {
        let mut cc = json!({"metadata": {"namespace": "n"}, "spec": {"infrastructure": {"ref": {"name": "x"}}}});
        default_cluster_class(&mut cc);
        assert_eq!(cc["spec"]["infrastructure"]["ref"]["namespace"], "n");
    }
}
