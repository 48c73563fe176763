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

/// How a field the object's apiVersion does not declare is handled (kubectl's
/// `--validate` / the API server's `fieldValidation`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldValidation {
    /// An error naming the field (kubectl's default).
    #[default]
    Strict,
    /// Pruned, with a warning (the API server's default, e.g. for Flux's server-side apply).
    Warn,
}
