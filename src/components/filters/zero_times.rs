//! clusterctl v1.14's typed round trips (apimachinery v0.36) omit a zero
//! `creationTimestamp` where v1.10's (v0.32) print `creationTimestamp: null`.

use serde_json::Value;

use super::kind;
use super::target_namespace::is_round_tripped;

/// On every object of a kind the pipeline converts to its typed struct and back
/// ([`super::fix_images`], [`super::target_namespace`]), the zero creation timestamps
/// of its `ObjectMeta`s omitted, as [`crate::typed::omit_zero_creation_timestamps`].
pub fn omit_round_trip_zero_times(objs: &mut [Value]) {
    for o in objs {
        if is_round_tripped(kind(o)) {
            crate::typed::omit_zero_creation_timestamps(o);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_round_tripped_kinds_lose_their_null_creation_timestamp() {
        let mut objs = vec![
            json!({"kind": "Deployment", "metadata": {"name": "d", "creationTimestamp": null},
                   "spec": {"template": {"metadata": {"creationTimestamp": null}}}}),
            json!({"kind": "ClusterRoleBinding", "metadata": {"creationTimestamp": null}}),
            json!({"kind": "ConfigMap", "metadata": {"creationTimestamp": null}}),
            json!({"kind": "CustomResourceDefinition", "metadata": {"creationTimestamp": "2024-01-02T03:04:05Z"}}),
        ];
        omit_round_trip_zero_times(&mut objs);
        assert_eq!(
            objs[0],
            json!({"kind": "Deployment", "metadata": {"name": "d"},
                   "spec": {"template": {"metadata": {}}}})
        );
        assert_eq!(
            objs[1],
            json!({"kind": "ClusterRoleBinding", "metadata": {}})
        );
        assert_eq!(objs[2]["metadata"]["creationTimestamp"], Value::Null);
        assert!(objs[2]["metadata"].get("creationTimestamp").is_some());
        assert_eq!(
            objs[3]["metadata"]["creationTimestamp"],
            "2024-01-02T03:04:05Z"
        );
    }
}
