//! Admission as Cluster API v1.14.2 runs it (issue 58), for every `cluster.x-k8s.io/v1beta2`
//! Cluster and ClusterClass, and for v1beta1 ones under a v1.11+ core (which the API server
//! converts to v1beta2 before the webhooks see them):
//! 1. the CRD schema of the core types ([`crds`]: the core provider's CRDs the tree
//!    installs or the repository holds, else the v1.14.2 ones built into the binary):
//!    unknown fields under `--field-validation` ([`fields`]), the structural schema, CEL
//!    rules and defaults;
//! 2. the defaulting and validating webhooks: [`class`] (ClusterClass) and [`cluster`]
//!    (Cluster, against its admitted ClusterClass).
//!
//! The errors are Cluster API's (field paths, reasons, v1beta2 field names), in the API
//! server's form `Kind.cluster.x-k8s.io "name" is invalid: ...`.

pub mod class;
pub mod cluster;
pub mod crds;
pub mod fields;

pub use crate::model::FieldValidation;

pub mod schema;
pub mod v1beta1;

pub use v1beta1::{admit_v1beta1_class, admit_v1beta1_cluster};

use serde_json::Value;

use crate::topology::variables::field_error::invalid_object_message;
pub use crds::CoreCrds;

/// Why Cluster API (or the API server in front of it) refuses an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The message as the API server returns it (a webhook's is prefixed with
    /// `admission webhook "NAME" denied the request: `).
    pub message: String,
    /// The field the first error names (the line an error points at).
    pub field: String,
    /// One line per unknown field (strict field validation).
    pub lines: Vec<String>,
    /// What to do next.
    pub hint: String,
}

/// A webhook's refusal over `errs` (not empty) of `kind` `name`.
fn webhook_refusal(
    webhook: &str,
    kind: &str,
    name: &str,
    errs: &[crate::topology::variables::field_error::FieldError],
) -> Refusal {
    Refusal {
        message: format!(
            "admission webhook {} denied the request: {}",
            crate::go::quote::quote(webhook),
            invalid_object_message(&format!("{kind}.cluster.x-k8s.io"), name, errs)
        ),
        field: errs.first().map(|e| e.field.clone()).unwrap_or_default(),
        lines: Vec::new(),
        hint: format!(
            "fix the field named above: Cluster API {}'s {kind} webhook refuses it",
            crds::BUILT_IN_RELEASE
        ),
    }
}

/// The Cluster defaulting webhook's refusal (`message`: its NewInvalid text).
fn default_refusal(message: String) -> Refusal {
    Refusal {
        message: format!(
            "admission webhook \"default.cluster.cluster.x-k8s.io\" denied the request: {message}"
        ),
        field: String::new(),
        lines: Vec::new(),
        hint: "fix the Cluster's variables or topology named above".into(),
    }
}

/// An admitted object as the controllers read it (pruned, defaulted), and the warnings.
#[derive(Debug, Clone)]
pub struct Admitted {
    pub value: Value,
    pub warnings: Vec<String>,
}

impl Admitted {
    /// `raw` as given: no CRD serves its version (nothing to check it against).
    fn unchecked(raw: &Value) -> Admitted {
        Admitted {
            value: raw.clone(),
            warnings: Vec::new(),
        }
    }
}

fn version_of(o: &Value) -> &str {
    let api = o.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    api.rsplit_once('/').map_or("", |(_, v)| v)
}

fn name_of(o: &Value) -> &str {
    o.pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// A `cluster.x-k8s.io/v1beta2` ClusterClass through the API server and Cluster API
/// v1.14.2: decoding against its CRD, schema validation, the validating webhook. The
/// admitted class carries `status.variables` as the ClusterClass controller computes
/// them (what the Cluster webhook reads).
pub fn admit_class(
    raw: &Value,
    crds: Option<&CoreCrds>,
    mode: FieldValidation,
) -> Result<Admitted, Refusal> {
    let version = version_of(raw);
    let Some(vs) = crds::for_version(crds, version).get(version, "ClusterClass") else {
        return Ok(Admitted::unchecked(raw));
    };
    let schema::Decoded {
        mut value,
        mut warnings,
    } = schema::decode(raw, vs, mode)?;
    class::default(&mut value);
    schema::validate(&value, vs, "ClusterClass", name_of(raw))?;
    // External patches are render's to call or defer (`--runtime-extension`), so the
    // RuntimeSDK gate is on, as Cluster API runs classes with extensions.
    let gates = class::Gates {
        runtime_sdk: true,
        ..class::Gates::default()
    };
    let (errs, w) = class::validate_create_with(&value, &gates);
    warnings.extend(w);
    if !errs.is_empty() {
        return Err(webhook_refusal(
            "validation.clusterclass.cluster.x-k8s.io",
            "ClusterClass",
            name_of(raw),
            &errs,
        ));
    }
    let status = class::status_variables(&value);
    if let Some(m) = value.as_object_mut() {
        let st = m
            .entry("status")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Some(st) = st.as_object_mut() {
            st.insert("variables".into(), status);
        }
    }
    Ok(Admitted { value, warnings })
}

/// The webhook answers with the patch to the Cluster's typed re-encoding: an empty list
/// of variable values (`omitempty`) is no field of it.
fn omit_empty_variables(cluster: &mut Value) {
    use crate::model::pointer::Pointer as _;
    let empty = |v: Option<&Value>| v.and_then(Value::as_array).is_some_and(Vec::is_empty);
    let mut holders = vec![
        ("/spec/topology".to_string(), "variables"),
        (
            "/spec/topology/controlPlane/variables".to_string(),
            "overrides",
        ),
    ];
    for kind in ["machineDeployments", "machinePools"] {
        let n = cluster
            .pointer(&format!("/spec/topology/workers/{kind}"))
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        for i in 0..n {
            holders.push((
                format!("/spec/topology/workers/{kind}/{i}/variables"),
                "overrides",
            ));
        }
    }
    for (p, k) in holders {
        if let Some(Value::Object(m)) = cluster.ptr_mut(&p) {
            if empty(m.get(k)) {
                m.remove(k);
            }
        }
    }
}

/// A `cluster.x-k8s.io/v1beta2` Cluster through the API server and Cluster API v1.14.2,
/// against its admitted ClusterClass (`None`: not among the inputs), prepared once for
/// all its Clusters ([`cluster::Class::new`]): decoding, the defaulting webhook, schema
/// validation, the validating webhook.
pub fn admit_cluster(
    raw: &Value,
    class: Option<&cluster::Class>,
    crds: Option<&CoreCrds>,
    mode: FieldValidation,
) -> Result<Admitted, Refusal> {
    let version = version_of(raw);
    let Some(vs) = crds::for_version(crds, version).get(version, "Cluster") else {
        return Ok(Admitted::unchecked(raw));
    };
    let schema::Decoded {
        mut value,
        mut warnings,
    } = schema::decode(raw, vs, mode)?;
    let (defaulted, w) = cluster::default_with(&mut value, class);
    warnings.extend(w);
    omit_empty_variables(&mut value);
    defaulted.map_err(default_refusal)?;
    schema::validate(&value, vs, "Cluster", name_of(raw))?;
    let (errs, w) = cluster::validate_create_with(&value, class);
    warnings.extend(w);
    if !errs.is_empty() {
        return Err(webhook_refusal(
            "validation.cluster.cluster.x-k8s.io",
            "Cluster",
            name_of(raw),
            &errs,
        ));
    }
    Ok(Admitted { value, warnings })
}

#[cfg(test)]
mod tests;
