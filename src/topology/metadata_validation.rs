//! `clusterv1.ObjectMeta.Validate` as the ClusterClass and Cluster webhooks run it on
//! topology metadata (topology.md §9), with the label/annotation checks of
//! `variables::metadata` (apimachinery's `ValidateLabels` and `ValidateAnnotations`).
//! Go walks the maps in random order; we walk keys in byte order, so several errors in
//! one map come out sorted.

use serde_json::Value;

use super::obj;
use super::variables::field_error::{self as fe, FieldError};
use super::variables::metadata::metadata_errors as object_meta_errors;

/// `validateClusterClassMetadata`: the control plane's and every worker class's
/// template metadata.
pub fn cluster_class_metadata_errors(cc: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_errors(
        obj::get(cc, &["spec", "controlPlane", "metadata"]),
        "spec.controlPlane.metadata",
    );
    for field in ["machineDeployments", "machinePools"] {
        for c in obj::get(cc, &["spec", "workers", field])
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let path = fe::child(
                &fe::key(&format!("spec.workers.{field}"), obj::str_at(c, &["class"])),
                "template.metadata",
            );
            errs.extend(object_meta_errors(
                obj::get(c, &["template", "metadata"]),
                &path,
            ));
        }
    }
    errs
}

/// `validateTopologyMetadata`: the Cluster topology's control plane and workers.
pub fn topology_metadata_errors(cluster: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_errors(
        obj::get(cluster, &["spec", "topology", "controlPlane", "metadata"]),
        "spec.topology.controlPlane.metadata",
    );
    for field in ["machineDeployments", "machinePools"] {
        for w in obj::get(cluster, &["spec", "topology", "workers", field])
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let path = fe::child(
                &fe::key(
                    &format!("spec.topology.workers.{field}"),
                    obj::str_at(w, &["name"]),
                ),
                "metadata",
            );
            errs.extend(object_meta_errors(w.get("metadata"), &path));
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::super::variables::field_error::BadValue;
    use super::*;
    use serde_json::json;

    #[test]
    fn topology_and_class_metadata_paths() {
        let cluster = json!({"spec": {"topology": {
            "controlPlane": {"metadata": {"labels": {"ok": "fine", "bad key!": "v"}}},
            "workers": {"machineDeployments": [{"name": "md-0", "metadata": {"annotations": {"Upper.Case/OK": "x", "-no": "y"}}}]}}}});
        let errs = topology_metadata_errors(&cluster);
        let fields: Vec<&str> = errs.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.topology.controlPlane.metadata.labels",
                "spec.topology.workers.machineDeployments[md-0].metadata.annotations"
            ]
        );
        assert_eq!(errs[0].bad_value, BadValue::Str("bad key!".into()));
        let cc = json!({"spec": {"workers": {"machinePools": [{"class": "pool", "template": {"metadata": {"labels": {"k": "no spaces"}}}}]}}});
        let errs = cluster_class_metadata_errors(&cc);
        assert_eq!(errs.len(), 1);
        assert_eq!(
            errs[0].field,
            "spec.workers.machinePools[pool].template.metadata.labels"
        );
        assert_eq!(errs[0].bad_value, BadValue::Str("no spaces".into()));
    }
}
