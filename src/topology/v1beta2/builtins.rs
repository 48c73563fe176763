//! HEAD's builtin variables for v1beta2 Clusters, from v1.10.10's (topology.md §12):
//! `builtin.cluster.topology.classRef` is added, `builtin.cluster.network.ipFamily` is
//! no longer emitted (nor `network` when nothing else is in it), and the Cluster's
//! last-applied-configuration and conversion-data annotations are not exposed.

use serde_json::{json, Value};

/// Annotations HEAD's `cleanupAnnotations` drops from `builtin.cluster.metadata`.
const HIDDEN_ANNOTATIONS: [&str; 2] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    "cluster.x-k8s.io/conversion-data",
];

/// Adjust a `{"cluster": …}` builtin value built by `builtins::cluster`.
pub fn adjust(builtin: &mut Value) {
    let Some(c) = builtin.get_mut("cluster").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(net) = c.get_mut("network").and_then(Value::as_object_mut) {
        net.remove("ipFamily");
        if net.is_empty() {
            c.remove("network");
        }
    }
    let annotations = c
        .get_mut("metadata")
        .and_then(|m| m.get_mut("annotations"))
        .and_then(Value::as_object_mut);
    if let Some(a) = annotations {
        for k in HIDDEN_ANNOTATIONS {
            a.remove(k);
        }
        if a.is_empty() {
            if let Some(m) = c.get_mut("metadata").and_then(Value::as_object_mut) {
                m.remove("annotations");
            }
        }
    }
    if let Some(t) = c.get_mut("topology").and_then(Value::as_object_mut) {
        let class_ref = json!({
            "name": t.get("class").cloned().unwrap_or(Value::from("")),
            "namespace": t.get("classNamespace").cloned().unwrap_or(Value::from("")),
        });
        t.insert("classRef".into(), class_ref);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_ref_added_and_ip_family_dropped() {
        let mut b = json!({"cluster": {"name": "c",
            "topology": {"version": "v1", "class": "k", "classNamespace": "ns"},
            "network": {"ipFamily": "IPv4", "pods": ["10.0.0.0/8"]}}});
        adjust(&mut b);
        assert_eq!(
            b["cluster"]["topology"]["classRef"],
            json!({"name": "k", "namespace": "ns"})
        );
        assert_eq!(b["cluster"]["topology"]["class"], "k");
        assert_eq!(b["cluster"]["network"], json!({"pods": ["10.0.0.0/8"]}));
    }

    #[test]
    fn empty_network_goes_and_hidden_annotations_are_dropped() {
        let mut b = json!({"cluster": {"network": {"ipFamily": "IPv4"},
            "metadata": {"labels": {"a": "b"},
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}",
                    "cluster.x-k8s.io/conversion-data": "x"}}}});
        adjust(&mut b);
        assert_eq!(b, json!({"cluster": {"metadata": {"labels": {"a": "b"}}}}));
        let mut b = json!({"cluster": {"metadata": {"annotations": {"keep": "1", "cluster.x-k8s.io/conversion-data": "x"}}}});
        adjust(&mut b);
        assert_eq!(
            b["cluster"]["metadata"]["annotations"],
            json!({"keep": "1"})
        );
    }

    #[test]
    fn odd_shapes_are_left_alone() {
        let mut b = json!(3);
        adjust(&mut b);
        assert_eq!(b, json!(3));
    }
}
