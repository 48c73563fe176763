//! The Cluster itself: its references to the infrastructure cluster and the control plane.

use super::*;

pub(super) fn compute_cluster(cluster: &Value, infra: &Value, cp: &Value) -> Value {
    let mut c = cluster.clone();
    let name = obj::name(cluster).to_string();
    let mut labels = obj::string_map(cluster, &["metadata", "labels"]);
    labels.insert(CLUSTER_NAME_LABEL.into(), Value::from(name));
    labels.insert(OWNED_LABEL.into(), Value::from(""));
    obj::set(&mut c, &["metadata", "labels"], Value::Object(labels));
    obj::set(
        &mut c,
        &["spec", "infrastructureRef"],
        desired_ref(cluster, "infrastructureRef", infra),
    );
    obj::set(
        &mut c,
        &["spec", "controlPlaneRef"],
        desired_ref(cluster, "controlPlaneRef", cp),
    );
    c
}

/// `calculateRefDesiredAPIVersion`: keep the current ref's apiVersion when the group
/// and kind are unchanged.
pub(super) fn desired_ref(cluster: &Value, field: &str, target: &Value) -> Value {
    let mut r = obj::ref_to(target);
    if let Some(cur) = obj::get(cluster, &["spec", field]) {
        let cav = obj::str_at(cur, &["apiVersion"]);
        if obj::group_of(cav) == obj::group_of(obj::api_version(target))
            && obj::str_at(cur, &["kind"]) == obj::kind(target)
            && !cav.is_empty()
        {
            r["apiVersion"] = Value::from(cav);
        }
    }
    r
}
