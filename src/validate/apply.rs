//! What the API server validates on apply when a defaulting webhook sits in front of
//! it, and `capi-render validate`'s files.
//!
//! Unknown fields are found by the request's strict decoding, before any admission
//! webhook: they are looked for in the object as written. The schema and the CEL rules
//! run after the mutating webhooks. CAPI's defaulting webhooks (controller-runtime
//! `CustomDefaulter`) decode the object into its Go type and answer with the patch to its
//! re-encoding, so what the schema sees is the typed round trip ([`crate::typed`]):
//! empty `omitempty` fields dropped (e.g. a topology Cluster's `classNamespace: ""`,
//! which the CRD's `minLength: 1` would refuse as written), zero values of the others
//! added. This is done for the Cluster API kinds the round trip knows (the v1beta1
//! core and kubeadm kinds, whose providers all serve defaulting webhooks); an object
//! the Go type cannot decode (a webhook would refuse it too) is validated as written,
//! so the schema names the field. The webhooks' own defaults are not reproduced.

use std::path::PathBuf;

use serde_json::Value;

use super::{check_objects_with, check_parts, CrdIndex, Outcome};

/// Whether a defaulting webhook of a provider re-encodes `v` before the schema sees it,
/// and the re-encoding (`None`: validated as written).
pub fn webhook_round_trip(v: &Value) -> Option<Value> {
    let api = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    let group = api.split_once('/').map_or("", |(g, _)| g);
    if !group.ends_with("cluster.x-k8s.io") || !crate::typed::is_supported(api, kind) {
        return None;
    }
    crate::typed::round_trip(v).ok()
}

/// [`super::check_value`] as an apply sees the object: unknown fields in `v` as written,
/// the schema and CEL rules on its webhook round trip ([`webhook_round_trip`]).
pub fn check_applied(v: &Value, index: &CrdIndex) -> Outcome {
    match webhook_round_trip(v) {
        Some(typed) => check_parts(v, &typed, index),
        None => check_parts(v, v, index),
    }
}

/// `capi-render validate`: every object of `files` checked as an apply sees it
/// ([`check_applied`]) against the CustomResourceDefinitions found in `crds` (other
/// objects there are skipped): the error lines, in input order, and the warnings (one
/// per kind with no CRD). Both sets of files are read within the run's limits.
/// `webhooks: false` validates every object as written ([`super::check_value`]), as an
/// API server without the providers' webhooks would (`validate --no-webhooks`).
pub fn validate_paths(
    crds: &[PathBuf],
    files: &[PathBuf],
    webhooks: bool,
) -> crate::Result<(Vec<String>, Vec<String>)> {
    let meter = crate::limits::Meter::current();
    let crd_objects = crate::load::load_paths_in(crds, &meter)?.objects;
    let index = CrdIndex::from_objects(crd_objects.iter().map(|o| &o.value));
    if index.is_empty() {
        return Err(crate::Error::new(
            "no CustomResourceDefinition with a served version's schema in the --crds files",
        )
        .with_hint("pass provider components files (e.g. core-components.yaml) or CRD files"));
    }
    let objects = crate::load::load_paths_in(files, &meter)?.objects;
    let check = if webhooks {
        check_applied
    } else {
        super::check_value
    };
    Ok(check_objects_with(&objects, &index, check))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trip_only_for_known_cluster_api_kinds() {
        let c = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
            "metadata": {"name": "a"},
            "spec": {"topology": {"class": "c", "classNamespace": "", "version": "v1.31.0"}}});
        let t = webhook_round_trip(&c).unwrap();
        assert!(t.pointer("/spec/topology/classNamespace").is_none());
        assert_eq!(t.pointer("/spec/topology/class"), Some(&json!("c")));
        let other = json!({"apiVersion": "ex.io/v1", "kind": "Cluster"});
        assert!(webhook_round_trip(&other).is_none());
        // A value the Go type cannot decode: validated as written.
        let bad = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
            "spec": {"topology": {"class": "c", "version": 1.32}}});
        assert!(webhook_round_trip(&bad).is_none());
    }
}
