//! Fields an object's apiVersion does not declare. Under `--field-validation strict` each
//! is an error; under `warn` it is pruned with a warning, as the API server does. Where
//! the field belongs to the other version of the same kind, the message names the field
//! to use: v1beta1 and v1beta2 Clusters and ClusterClasses renamed and moved many.

/// `(kind, parent, v1beta1 name, v1beta2 name)`: the same field in both versions, the
/// names relative to `parent` (a list item is `[]`). From Cluster API v1.14.2's
/// conversion (`api/core/v1beta1/conversion.go`).
const RENAMES: &[(&str, &str, &str, &str)] = &[
    ("ClusterClass", "spec.infrastructure", "ref", "templateRef"),
    (
        "ClusterClass",
        "spec",
        "infrastructureNamingStrategy",
        "infrastructure.naming",
    ),
    ("ClusterClass", "spec.controlPlane", "ref", "templateRef"),
    (
        "ClusterClass",
        "spec.controlPlane.machineInfrastructure",
        "ref",
        "templateRef",
    ),
    (
        "ClusterClass",
        "spec.controlPlane",
        "machineHealthCheck",
        "healthCheck",
    ),
    (
        "ClusterClass",
        "spec.controlPlane",
        "namingStrategy",
        "naming",
    ),
    (
        "ClusterClass",
        "spec.controlPlane",
        "nodeDrainTimeout",
        "deletion.nodeDrainTimeoutSeconds",
    ),
    (
        "ClusterClass",
        "spec.controlPlane",
        "nodeVolumeDetachTimeout",
        "deletion.nodeVolumeDetachTimeoutSeconds",
    ),
    (
        "ClusterClass",
        "spec.controlPlane",
        "nodeDeletionTimeout",
        "deletion.nodeDeletionTimeoutSeconds",
    ),
    (
        "ClusterClass",
        "spec.workers.machineDeployments[]",
        "template",
        "bootstrap, infrastructure and metadata",
    ),
    (
        "ClusterClass",
        "spec.workers.machineDeployments[]",
        "machineHealthCheck",
        "healthCheck",
    ),
    (
        "ClusterClass",
        "spec.workers.machineDeployments[]",
        "namingStrategy",
        "naming",
    ),
    (
        "ClusterClass",
        "spec.workers.machineDeployments[]",
        "strategy",
        "rollout.strategy",
    ),
    (
        "ClusterClass",
        "spec.workers.machineDeployments[]",
        "nodeDrainTimeout",
        "deletion.nodeDrainTimeoutSeconds",
    ),
    (
        "ClusterClass",
        "spec.workers.machineDeployments[]",
        "nodeVolumeDetachTimeout",
        "deletion.nodeVolumeDetachTimeoutSeconds",
    ),
    (
        "ClusterClass",
        "spec.workers.machineDeployments[]",
        "nodeDeletionTimeout",
        "deletion.nodeDeletionTimeoutSeconds",
    ),
    (
        "ClusterClass",
        "spec.workers.machinePools[]",
        "template",
        "bootstrap, infrastructure and metadata",
    ),
    (
        "ClusterClass",
        "spec.workers.machinePools[]",
        "namingStrategy",
        "naming",
    ),
    (
        "ClusterClass",
        "spec.workers.machinePools[]",
        "nodeDrainTimeout",
        "deletion.nodeDrainTimeoutSeconds",
    ),
    (
        "ClusterClass",
        "spec.workers.machinePools[]",
        "nodeVolumeDetachTimeout",
        "deletion.nodeVolumeDetachTimeoutSeconds",
    ),
    (
        "ClusterClass",
        "spec.workers.machinePools[]",
        "nodeDeletionTimeout",
        "deletion.nodeDeletionTimeoutSeconds",
    ),
    (
        "ClusterClass",
        "spec.variables[]",
        "metadata",
        "deprecatedV1Beta1Metadata",
    ),
    (
        "ClusterClass",
        "spec.patches[].external",
        "generateExtension",
        "generatePatchesExtension",
    ),
    (
        "ClusterClass",
        "spec.patches[].external",
        "validateExtension",
        "validateTopologyExtension",
    ),
    ("Cluster", "spec.topology", "class", "classRef.name"),
    (
        "Cluster",
        "spec.topology",
        "classNamespace",
        "classRef.namespace",
    ),
    (
        "Cluster",
        "spec.topology",
        "rolloutAfter",
        "controlPlane.rollout.after",
    ),
    (
        "Cluster",
        "spec.topology.controlPlane",
        "machineHealthCheck",
        "healthCheck",
    ),
    (
        "Cluster",
        "spec.topology.controlPlane",
        "nodeDrainTimeout",
        "deletion.nodeDrainTimeoutSeconds",
    ),
    (
        "Cluster",
        "spec.topology.controlPlane",
        "nodeVolumeDetachTimeout",
        "deletion.nodeVolumeDetachTimeoutSeconds",
    ),
    (
        "Cluster",
        "spec.topology.controlPlane",
        "nodeDeletionTimeout",
        "deletion.nodeDeletionTimeoutSeconds",
    ),
    (
        "Cluster",
        "spec.topology.workers.machineDeployments[]",
        "machineHealthCheck",
        "healthCheck",
    ),
    (
        "Cluster",
        "spec.topology.workers.machineDeployments[]",
        "strategy",
        "rollout.strategy",
    ),
    (
        "Cluster",
        "spec.topology.workers.machineDeployments[]",
        "nodeDrainTimeout",
        "deletion.nodeDrainTimeoutSeconds",
    ),
    (
        "Cluster",
        "spec.topology.workers.machineDeployments[]",
        "nodeVolumeDetachTimeout",
        "deletion.nodeVolumeDetachTimeoutSeconds",
    ),
    (
        "Cluster",
        "spec.topology.workers.machineDeployments[]",
        "nodeDeletionTimeout",
        "deletion.nodeDeletionTimeoutSeconds",
    ),
    (
        "Cluster",
        "spec.topology.workers.machinePools[]",
        "nodeDrainTimeout",
        "deletion.nodeDrainTimeoutSeconds",
    ),
    (
        "Cluster",
        "spec.topology.workers.machinePools[]",
        "nodeVolumeDetachTimeout",
        "deletion.nodeVolumeDetachTimeoutSeconds",
    ),
    (
        "Cluster",
        "spec.topology.workers.machinePools[]",
        "nodeDeletionTimeout",
        "deletion.nodeDeletionTimeoutSeconds",
    ),
    ("Cluster", "spec.controlPlaneRef", "apiVersion", "apiGroup"),
    (
        "Cluster",
        "spec.infrastructureRef",
        "apiVersion",
        "apiGroup",
    ),
];

/// `a.b[3].c[7]` → `a.b[].c[]`.
fn shape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push('[');
            }
            ']' => {
                in_index = false;
                out.push(']');
            }
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out
}

/// When `path` of a `kind` object at `version` (`v1beta1` or `v1beta2`) is a field of
/// the other version that this one renamed or moved: `(version, what version calls it)`,
/// relative to the same parent.
pub fn other_name(kind: &str, version: &str, path: &str) -> Option<(&'static str, &'static str)> {
    let p = shape(path);
    RENAMES.iter().find_map(|&(k, parent, old, new)| {
        let (mine, theirs, this) = match version {
            "v1beta2" => (old, new, "v1beta2"),
            "v1beta1" => (new, old, "v1beta1"),
            _ => return None,
        };
        (k == kind && p == format!("{parent}.{mine}")).then_some((this, theirs))
    })
}

/// The line naming one unknown field: `spec.x: unknown field in cluster.x-k8s.io/v1beta2`,
/// and what this version calls it when that is known.
pub fn unknown_field_line(api_version: &str, kind: &str, path: &str) -> String {
    let version = api_version.rsplit('/').next().unwrap_or("");
    match other_name(kind, version, path) {
        Some((v, name)) => format!("{path}: unknown field in {api_version} ({v} calls it {name})"),
        None => format!("{path}: unknown field in {api_version}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_v1beta1_field_in_a_v1beta2_object_names_the_v1beta2_field() {
        assert_eq!(
            unknown_field_line("cluster.x-k8s.io/v1beta2", "ClusterClass", "spec.controlPlane.machineHealthCheck"),
            "spec.controlPlane.machineHealthCheck: unknown field in cluster.x-k8s.io/v1beta2 (v1beta2 calls it healthCheck)"
        );
        assert_eq!(
            unknown_field_line("cluster.x-k8s.io/v1beta2", "Cluster", "spec.topology.workers.machineDeployments[2].strategy"),
            "spec.topology.workers.machineDeployments[2].strategy: unknown field in cluster.x-k8s.io/v1beta2 (v1beta2 calls it rollout.strategy)"
        );
    }

    #[test]
    fn a_v1beta2_field_in_a_v1beta1_object_names_the_v1beta1_field() {
        assert_eq!(
            unknown_field_line(
                "cluster.x-k8s.io/v1beta1",
                "Cluster",
                "spec.topology.classRef"
            ),
            "spec.topology.classRef: unknown field in cluster.x-k8s.io/v1beta1"
        );
        assert_eq!(
            unknown_field_line("cluster.x-k8s.io/v1beta1", "ClusterClass", "spec.controlPlane.healthCheck"),
            "spec.controlPlane.healthCheck: unknown field in cluster.x-k8s.io/v1beta1 (v1beta1 calls it machineHealthCheck)"
        );
    }

    #[test]
    fn a_plain_typo_gets_no_hint() {
        assert_eq!(
            unknown_field_line(
                "cluster.x-k8s.io/v1beta2",
                "Cluster",
                "spec.topology.contrlPlane"
            ),
            "spec.topology.contrlPlane: unknown field in cluster.x-k8s.io/v1beta2"
        );
    }
}
