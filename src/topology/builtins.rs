//! Builtin variables (topology.md §7): the `builtin` variable each patch item sees,
//! computed from the desired objects before patching.

use std::net::IpAddr;

use serde_json::{json, Map, Value};

use super::obj;

fn metadata_of(o: &Value) -> Option<Value> {
    let md = o.get("metadata")?;
    let mut m = Map::new();
    for f in ["labels", "annotations"] {
        if let Some(Value::Object(x)) = md.get(f) {
            if !x.is_empty() {
                m.insert(f.into(), Value::Object(x.clone()));
            }
        }
    }
    let has = md.get("labels").is_some_and(|v| !v.is_null())
        || md.get("annotations").is_some_and(|v| !v.is_null());
    has.then_some(Value::Object(m))
}

/// `GetIPFamily` as the builtin prints it.
pub fn ip_family(cluster: &Value) -> &'static str {
    let cidrs = |f: &str| {
        crate::model::object::string_list(cluster, &["spec", "clusterNetwork", f, "cidrBlocks"])
    };
    let (pods, services) = (cidrs("pods"), cidrs("services"));
    if pods.is_empty() && services.is_empty() {
        return "IPv4";
    }
    let Some(pf) = family(&pods) else {
        return "Invalid";
    };
    if services.is_empty() {
        return pf;
    }
    let Some(sf) = family(&services) else {
        return "Invalid";
    };
    if pods.is_empty() {
        return sf;
    }
    if pf != sf {
        return "Invalid";
    }
    pf
}

fn family(cidrs: &[String]) -> Option<&'static str> {
    if cidrs.len() > 2 {
        return None;
    }
    let (mut v4, mut v6) = (false, false);
    for c in cidrs {
        let (ip, bits) = c.split_once('/')?;
        let ip: IpAddr = ip.parse().ok()?;
        let bits: u8 = bits.parse().ok()?;
        match ip {
            IpAddr::V4(_) if bits <= 32 => v4 = true,
            IpAddr::V6(a) if bits <= 128 => {
                if a.to_ipv4_mapped().is_some() {
                    v4 = true
                } else {
                    v6 = true
                }
            }
            _ => return None,
        }
    }
    Some(match (v4, v6) {
        (true, true) => "DualStack",
        (true, false) => "IPv4",
        (false, true) => "IPv6",
        _ => "Invalid",
    })
}

/// `variables.Global`'s `builtin.cluster`.
pub fn cluster(desired_cluster: &Value) -> Value {
    let c = desired_cluster;
    let ns = obj::namespace(c);
    let class_ns = obj::class_namespace(c);
    let mut m = Map::new();
    m.insert("name".into(), Value::from(obj::name(c)));
    m.insert("namespace".into(), Value::from(ns));
    let uid = obj::str_at(c, &["metadata", "uid"]);
    if !uid.is_empty() {
        m.insert("uid".into(), Value::from(uid));
    }
    if let Some(md) = metadata_of(c) {
        m.insert("metadata".into(), md);
    }
    m.insert(
        "topology".into(),
        json!({
            "version": obj::str_at(c, &["spec", "topology", "version"]),
            "class": obj::str_at(c, &["spec", "topology", "class"]),
            "classNamespace": class_ns,
        }),
    );
    if let Some(net) = obj::get(c, &["spec", "clusterNetwork"]).filter(|v| !v.is_null()) {
        let mut n = Map::new();
        n.insert("ipFamily".into(), Value::from(ip_family(c)));
        let sd = obj::str_at(net, &["serviceDomain"]);
        if !sd.is_empty() {
            n.insert("serviceDomain".into(), Value::from(sd));
        }
        for (f, out) in [("services", "services"), ("pods", "pods")] {
            if let Some(b) = obj::get(net, &[f, "cidrBlocks"]).filter(|v| !v.is_null()) {
                n.insert(out.into(), b.clone());
            }
        }
        m.insert("network".into(), Value::Object(n));
    }
    json!({ "cluster": m })
}

/// `variables.ControlPlane`'s `builtin.controlPlane`.
pub fn control_plane(
    cp: &Value,
    topology_replicas_set: bool,
    infra_template: Option<&Value>,
) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), Value::from(obj::name(cp)));
    m.insert(
        "version".into(),
        Value::from(obj::str_at(cp, &["spec", "version"])),
    );
    if topology_replicas_set {
        if let Some(r) = obj::get(cp, &["spec", "replicas"]) {
            m.insert("replicas".into(), r.clone());
        }
    }
    if let Some(md) = metadata_of(cp) {
        m.insert("metadata".into(), md);
    }
    if let Some(t) = infra_template {
        m.insert(
            "machineTemplate".into(),
            json!({"infrastructureRef": {"name": obj::name(t)}}),
        );
    }
    json!({ "controlPlane": m })
}

/// `variables.MachineDeployment` / `MachinePool`: `builtin.<key>`.
pub fn worker(
    key: &str,
    object: &Value,
    topology: &Value,
    bootstrap: &Value,
    infra: &Value,
) -> Value {
    let mut m = Map::new();
    m.insert(
        "version".into(),
        Value::from(obj::str_at(
            object,
            &["spec", "template", "spec", "version"],
        )),
    );
    m.insert(
        "class".into(),
        Value::from(obj::str_at(topology, &["class"])),
    );
    m.insert("name".into(), Value::from(obj::name(object)));
    m.insert(
        "topologyName".into(),
        Value::from(obj::str_at(topology, &["name"])),
    );
    if let Some(r) = obj::get(object, &["spec", "replicas"]) {
        m.insert("replicas".into(), r.clone());
    }
    if let Some(md) = metadata_of(object) {
        m.insert("metadata".into(), md);
    }
    m.insert(
        "bootstrap".into(),
        json!({"configRef": {"name": obj::name(bootstrap)}}),
    );
    m.insert(
        "infrastructureRef".into(),
        json!({"name": obj::name(infra)}),
    );
    let mut out = Map::new();
    out.insert(key.into(), Value::Object(m));
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(pods: &[&str], services: &[&str]) -> Value {
        json!({"spec": {"clusterNetwork": {"pods": {"cidrBlocks": pods}, "services": {"cidrBlocks": services}}}})
    }

    #[test]
    fn ip_families() {
        assert_eq!(ip_family(&net(&["10.0.0.0/16"], &["10.1.0.0/16"])), "IPv4");
        assert_eq!(ip_family(&net(&["fd00::/64"], &[])), "IPv6");
        assert_eq!(
            ip_family(&net(&["10.0.0.0/16", "fd00::/64"], &[])),
            "DualStack"
        );
        assert_eq!(ip_family(&net(&["10.0.0.0/16"], &["fd00::/64"])), "Invalid");
        assert_eq!(ip_family(&net(&["nope"], &[])), "Invalid");
        assert_eq!(ip_family(&json!({})), "IPv4");
    }

    #[test]
    fn cluster_builtin_defaults_class_namespace() {
        let c = json!({"metadata": {"name": "c", "namespace": "ns", "labels": {"a": "b"}},
            "spec": {"topology": {"class": "k", "version": "v1.30.0"}}});
        let b = cluster(&c);
        assert_eq!(b["cluster"]["topology"]["classNamespace"], "ns");
        assert_eq!(b["cluster"]["metadata"]["labels"]["a"], "b");
        assert!(b["cluster"].get("network").is_none());
        assert!(b["cluster"].get("uid").is_none());
    }
}
