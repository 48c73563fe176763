//! Labels and annotations as apimachinery v0.36 (Cluster API v1.14.2's) checks them:
//! `content.IsLabelKey` and `content.IsLabelValue`, whose texts differ from v0.32's
//! (`variables::metadata`, clusterctl v1.10's) only in "bytes" for "characters" and
//! "a valid label key" for "a qualified name"; and `validateClusterClassMetadata`.

use serde_json::Value;

use super::{list, text};
use crate::topology::obj;
use crate::topology::variables::field_error::{child, key, FieldError};
use crate::topology::variables::metadata;

/// A v0.32 label text in v0.36's words.
fn v036(m: &str) -> String {
    let m = m
        .replace(
            "must be no more than 63 characters",
            "must be no more than 63 bytes",
        )
        .replace(
            "must be no more than 253 characters",
            "must be no more than 253 bytes",
        );
    match m.strip_prefix("a qualified name ") {
        Some(rest) => format!("a valid label key {rest}"),
        None => m,
    }
}

/// `content.IsLabelKey` (= `validation.IsQualifiedName` in v0.36).
pub fn label_key_errors(k: &str) -> Vec<String> {
    metadata::qualified_name_errors(k)
        .iter()
        .map(|m| v036(m))
        .collect()
}

/// A label or annotation error of v0.32's checks in v0.36's words (the value is kept).
pub(super) fn to_v036(mut e: FieldError) -> FieldError {
    e.detail = v036(&e.detail);
    e
}

/// `ObjectMeta.Validate` (`ValidateLabels`, `ValidateAnnotations`) of the metadata at
/// `path` (`{labels, annotations}`).
pub fn metadata_errors(m: Option<&Value>, path: &str) -> Vec<FieldError> {
    metadata::metadata_errors(m, path)
        .into_iter()
        .map(to_v036)
        .collect()
}

/// `validateClusterClassMetadata`: the control plane's metadata, then every worker
/// class's (v1beta2 `metadata`, reported at Go's `template.metadata`).
pub(super) fn class_metadata(cc: &Value, errs: &mut Vec<FieldError>) {
    errs.extend(metadata_errors(
        obj::get(cc, &["spec", "controlPlane", "metadata"]),
        "spec.controlPlane.metadata",
    ));
    for field in ["machineDeployments", "machinePools"] {
        for c in list(cc, &["spec", "workers", field]) {
            let path = child(
                &key(&format!("spec.workers.{field}"), text(c, &["class"])),
                "template.metadata",
            );
            errs.extend(metadata_errors(c.get("metadata"), &path));
        }
    }
}
