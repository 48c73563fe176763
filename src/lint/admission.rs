//! class-admission: a `cluster.x-k8s.io/v1beta2` ClusterClass, or a v1beta2 Cluster
//! against its class, that Cluster API v1.14.2's admission refuses ([`crate::admission`]:
//! the core CRD's schema with strict field validation, then the webhooks).

use std::collections::HashMap;

use serde_json::Value;

use super::{Doc, Finding, Severity};
use crate::admission::{self, FieldValidation, Refusal};
use crate::topology::v1beta2::{is_cluster, is_cluster_class};

fn finding(d: &Doc, r: &Refusal) -> Finding {
    let mut message = r.message.clone();
    for l in &r.lines {
        message.push_str("; ");
        message.push_str(l);
    }
    d.finding("class-admission", Severity::Error, r.field.clone(), message)
        .with_hint(r.hint.clone())
}

fn key(v: &Value, ns: &str, name: &str) -> (String, String) {
    let own = v
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or("");
    let ns = if ns.is_empty() { own } else { ns };
    let ns = if ns.is_empty() { "default" } else { ns };
    (ns.to_string(), name.to_string())
}

/// The refusals of the v1beta2 ClusterClasses among `docs`, then of the v1beta2
/// Clusters against their (admitted) classes, each a finding on its document.
pub fn check(docs: &[&Doc]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut classes: HashMap<(String, String), Value> = HashMap::new();
    for d in docs.iter().filter(|d| is_cluster_class(&d.value)) {
        match admission::admit_class(&d.value, None, FieldValidation::Strict) {
            Ok(a) => {
                classes.insert(key(&d.value, "", d.name()), a.value);
            }
            Err(r) => out.push(finding(d, &r)),
        }
    }
    for d in docs.iter().filter(|d| is_cluster(&d.value)) {
        let topo = |k: &str| {
            d.value
                .pointer(&format!("/spec/topology/classRef/{k}"))
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        let class = classes.get(&key(&d.value, topo("namespace"), topo("name")));
        let prepared = class.map(admission::cluster::Class::new);
        if let Err(r) =
            admission::admit_cluster(&d.value, prepared.as_ref(), None, FieldValidation::Strict)
        {
            out.push(finding(d, &r));
        }
    }
    out
}
