//! clusterctl's final ordering (R7.7).
//!
//! clusterctl stable-sorts with a comparator that is not a strict ordering
//! ("Namespace first, then anything in group cert-manager.io"). Its observable
//! result is three buckets: the Namespace, then cert-manager objects in reverse
//! order of appearance, then everything else in original order.

use serde_json::Value;

use super::{group, kind};

pub fn order_objects(objs: Vec<Value>) -> Vec<Value> {
    let mut ns = Vec::new();
    let mut cm = Vec::new();
    let mut rest = Vec::new();
    for o in objs {
        if kind(&o) == "Namespace" {
            ns.push(o);
        } else if group(&o) == "cert-manager.io" {
            cm.push(o);
        } else {
            rest.push(o);
        }
    }
    cm.reverse();
    ns.into_iter().chain(cm).chain(rest).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn three_buckets() {
        let o = |k: &str, av: &str, n: &str| json!({"kind": k, "apiVersion": av, "metadata": {"name": n}});
        let out = order_objects(vec![
            o("CustomResourceDefinition", "apiextensions.k8s.io/v1", "crd"),
            o("Issuer", "cert-manager.io/v1", "issuer"),
            o("Deployment", "apps/v1", "d"),
            o("Certificate", "cert-manager.io/v1", "cert"),
            o("Namespace", "v1", "ns"),
        ]);
        let names: Vec<&str> = out
            .iter()
            .map(|o| o["metadata"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["ns", "cert", "issuer", "crd", "d"]);
    }
}
