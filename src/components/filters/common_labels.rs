//! The two provider labels on every object (R7.6).

use serde_json::Value;

use super::{set_metadata_field, string_map};

pub const PROVIDER_LABEL: &str = "cluster.x-k8s.io/provider";
pub const CLUSTERCTL_LABEL: &str = "clusterctl.cluster.x-k8s.io";

/// Merge `cluster.x-k8s.io/provider: <label>` and `clusterctl.cluster.x-k8s.io: ""`
/// into every object's labels. Labels that are not all strings are replaced, as
/// `GetLabels` reads them as absent.
pub fn add_common_labels(objs: &mut [Value], manifest_label: &str) {
    for o in objs.iter_mut() {
        let mut labels = string_map(o, "labels").unwrap_or_default();
        labels.insert(CLUSTERCTL_LABEL.to_string(), Value::String(String::new()));
        labels.insert(
            PROVIDER_LABEL.to_string(),
            Value::String(manifest_label.to_string()),
        );
        set_metadata_field(o, "labels", Value::Object(labels));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn labels_merged_and_overwritten() {
        let mut objs = vec![
            json!({"kind": "A", "metadata": {"labels": {"keep": "x", PROVIDER_LABEL: "old"}}}),
            json!({"kind": "B"}),
        ];
        add_common_labels(&mut objs, "cluster-api");
        assert_eq!(
            objs[0]["metadata"]["labels"],
            json!({"keep": "x", PROVIDER_LABEL: "cluster-api", CLUSTERCTL_LABEL: ""})
        );
        assert_eq!(objs[1]["metadata"]["labels"][PROVIDER_LABEL], "cluster-api");
    }
}
