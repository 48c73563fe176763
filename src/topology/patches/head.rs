//! The patch engine of CAPI v1.14 where it differs from v1.10's, for v1beta2 Clusters
//! (`Blueprint::head_builtins`): patches see and change metadata. Before the patches run,
//! each request item's template takes the labels and annotations of the desired object
//! it stands for; a patched template gives back its `spec` and its `metadata.labels` /
//! `metadata.annotations`; the desired objects take the patched labels and annotations
//! with the topology's own labels and cloned-from annotations kept. A field a template
//! lacks (`spec.template.spec` included) is skipped, never an error (`CopyFields`).

use serde_json::Value;

use super::obj;

/// A field copied from one object to another: (source path, destination path).
pub(super) type Field = (&'static [&'static str], &'static [&'static str]);

const LABELS: &[&str] = &["metadata", "labels"];
const ANNOTATIONS: &[&str] = &["metadata", "annotations"];
const TEMPLATE_LABELS: &[&str] = &["spec", "template", "metadata", "labels"];
const TEMPLATE_ANNOTATIONS: &[&str] = &["spec", "template", "metadata", "annotations"];
const TEMPLATE_SPEC: &[&str] = &["spec", "template", "spec"];

/// A desired object's metadata into the `spec.template.metadata` of the template it
/// comes from (InfrastructureCluster, ControlPlane, MachinePool objects).
pub(super) const OBJECT_TO_TEMPLATE: &[Field] = &[
    (LABELS, TEMPLATE_LABELS),
    (ANNOTATIONS, TEMPLATE_ANNOTATIONS),
];

/// A desired template's metadata into the class template's metadata.
pub(super) const TEMPLATE_TO_TEMPLATE_METADATA: &[Field] =
    &[(LABELS, LABELS), (ANNOTATIONS, ANNOTATIONS)];

/// What a patched request item gives back (`patchutil.Patch` with `spec` and metadata).
pub(super) const PATCHED_ITEM: &[Field] = &[
    (&["spec"], &["spec"]),
    (LABELS, LABELS),
    (ANNOTATIONS, ANNOTATIONS),
];

/// `patchObject`: a patched template into the object made from it.
pub(super) const PATCH_OBJECT: &[Field] = &[
    (TEMPLATE_SPEC, &["spec"]),
    (TEMPLATE_LABELS, LABELS),
    (TEMPLATE_ANNOTATIONS, ANNOTATIONS),
];

/// `patchTemplate`: a patched template into the template cloned from it.
pub(super) const PATCH_TEMPLATE: &[Field] = &[
    (LABELS, LABELS),
    (ANNOTATIONS, ANNOTATIONS),
    (TEMPLATE_SPEC, TEMPLATE_SPEC),
    (TEMPLATE_LABELS, TEMPLATE_LABELS),
    (TEMPLATE_ANNOTATIONS, TEMPLATE_ANNOTATIONS),
];

/// `alwaysPreserveLabelsAndAnnotations`: what patches can never change on a desired
/// object.
pub(super) const ALWAYS_PRESERVE: &[&[&str]] = &[
    &["metadata", "labels", "cluster.x-k8s.io/cluster-name"],
    &["metadata", "labels", "topology.cluster.x-k8s.io/owned"],
    &[
        "metadata",
        "labels",
        "topology.cluster.x-k8s.io/deployment-name",
    ],
    &["metadata", "labels", "topology.cluster.x-k8s.io/pool-name"],
    &[
        "metadata",
        "annotations",
        "cluster.x-k8s.io/cloned-from-name",
    ],
    &[
        "metadata",
        "annotations",
        "cluster.x-k8s.io/cloned-from-groupkind",
    ],
];

/// What patches can never change on the ControlPlane (v1.14's `updateDesiredState`, in
/// its order): the machine fields of both contracts, replicas, version, `rollout.after`.
pub(super) const CONTROL_PLANE_PRESERVE: &[&[&str]] = &[
    &["spec", "machineTemplate", "metadata"],
    &["spec", "machineTemplate", "readinessGates"],
    &["spec", "machineTemplate", "spec", "readinessGates"],
    &["spec", "machineTemplate", "taints"],
    &["spec", "machineTemplate", "spec", "taints"],
    &["spec", "machineTemplate", "infrastructureRef"],
    &["spec", "machineTemplate", "spec", "infrastructureRef"],
    &["spec", "machineTemplate", "nodeDrainTimeout"],
    &["spec", "machineTemplate", "nodeVolumeDetachTimeout"],
    &["spec", "machineTemplate", "nodeDeletionTimeout"],
    &[
        "spec",
        "machineTemplate",
        "spec",
        "deletion",
        "nodeDrainTimeoutSeconds",
    ],
    &[
        "spec",
        "machineTemplate",
        "spec",
        "deletion",
        "nodeVolumeDetachTimeoutSeconds",
    ],
    &[
        "spec",
        "machineTemplate",
        "spec",
        "deletion",
        "nodeDeletionTimeoutSeconds",
    ],
    &["spec", "replicas"],
    &["spec", "version"],
    &["spec", "rollout", "after"],
];

/// Annotations a request item never carries (`cleanupUnstructured`).
const HIDDEN_ANNOTATIONS: [&str; 2] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    "cluster.x-k8s.io/conversion-data",
];

/// `CopyFields`: every source field that exists is set at its destination in `dest`;
/// the `preserve` fields `dest` had before are restored after.
pub(super) fn copy_fields(dest: &mut Value, src: &Value, fields: &[Field], preserve: &[&[&str]]) {
    let kept: Vec<(&[&str], Value)> = preserve
        .iter()
        .filter_map(|p| obj::get(dest, p).map(|v| (*p, v.clone())))
        .collect();
    for (from, to) in fields {
        if let Some(v) = obj::get(src, from) {
            obj::set(dest, to, v.clone());
        }
    }
    for (p, v) in kept {
        obj::set(dest, p, v);
    }
}

/// `cleanupUnstructured` on a request item's template: the hidden annotations go, and
/// an emptied annotation map with them.
pub(super) fn cleanup(template: &mut Value) {
    let annotations = template
        .get_mut("metadata")
        .and_then(|m| m.get_mut("annotations"))
        .and_then(Value::as_object_mut);
    let Some(a) = annotations else {
        return;
    };
    for k in HIDDEN_ANNOTATIONS {
        a.remove(k);
    }
    if a.is_empty() {
        obj::remove(template, ANNOTATIONS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn missing_source_fields_are_skipped_and_preserved_fields_restored() {
        let mut dest = json!({"metadata": {"labels": {"cluster.x-k8s.io/cluster-name": "c", "a": "1"}},
            "spec": {"x": 1}});
        let src = json!({"spec": {"template": {"metadata": {"labels": {"b": "2"}}}}});
        copy_fields(&mut dest, &src, PATCH_OBJECT, ALWAYS_PRESERVE);
        // No spec.template.spec: the object's spec stays; the labels are the template's
        // plus the preserved cluster-name.
        assert_eq!(dest["spec"], json!({"x": 1}));
        assert_eq!(
            dest["metadata"]["labels"],
            json!({"b": "2", "cluster.x-k8s.io/cluster-name": "c"})
        );
        assert!(dest["metadata"].get("annotations").is_none());
    }

    #[test]
    fn template_fields_copy_into_templates() {
        let mut dest = json!({"metadata": {"annotations": {"cluster.x-k8s.io/cloned-from-name": "t"}},
            "spec": {"template": {"spec": {"a": 1}}}});
        let src = json!({"metadata": {"annotations": {"n": "v"}},
            "spec": {"template": {"spec": {"a": 2}}}});
        copy_fields(&mut dest, &src, PATCH_TEMPLATE, ALWAYS_PRESERVE);
        assert_eq!(dest["spec"]["template"]["spec"]["a"], 2);
        assert_eq!(
            dest["metadata"]["annotations"],
            json!({"n": "v", "cluster.x-k8s.io/cloned-from-name": "t"})
        );
    }

    #[test]
    fn cleanup_drops_hidden_annotations_and_an_emptied_map() {
        let mut t = json!({"metadata": {"annotations": {"cluster.x-k8s.io/conversion-data": "x"}}});
        cleanup(&mut t);
        assert_eq!(t, json!({"metadata": {}}));
        let mut t = json!({"metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}", "k": "v"}}});
        cleanup(&mut t);
        assert_eq!(t["metadata"]["annotations"], json!({"k": "v"}));
        let mut t = json!(3);
        cleanup(&mut t);
        assert_eq!(t, json!(3));
    }
}
