//! ClusterClass variables (topology.md §5): `status.variables` from `spec.variables`,
//! structural-schema defaulting and validation, CEL `x-kubernetes-validations`.

use serde_json::Value;

use crate::error::Result;

/// `status.variables` of a v1beta1 ClusterClass computed from its `spec.variables`
/// (the ClusterClass reconciler, topology.md §5.1): a JSON array.
pub fn status_variables(cluster_class: &Value) -> Result<Value> {
    let _ = cluster_class;
    Ok(Value::Array(vec![]))
}

/// Webhook-equivalent defaulting of a Cluster's `spec.topology.variables` and of the
/// per-MachineDeployment/MachinePool overrides against the ClusterClass's
/// `status.variables`. Mutates `cluster`.
pub fn default_cluster_variables(cluster: &mut Value, status_variables: &Value) -> Result<()> {
    let _ = (cluster, status_variables);
    Ok(())
}

/// Webhook-equivalent validation of a Cluster's variables (types, schema, CEL). Errors
/// name the Cluster, the variable and the schema path; returns warnings (e.g. an
/// unsupported CEL function) that must be shown to the user.
pub fn validate_cluster_variables(
    cluster: &Value,
    status_variables: &Value,
) -> Result<Vec<String>> {
    let _ = (cluster, status_variables);
    Ok(vec![])
}
