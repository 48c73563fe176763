//! The ClusterClass and Cluster webhooks' validation as `topology plan` runs it
//! (topology.md §8, §9): a subset, one file per webhook.

mod cluster;
mod cluster_class;

pub use cluster::{cluster_errors, validate_cluster};
pub use cluster_class::{
    cluster_class_errors, cluster_class_errors_sdk, cluster_class_errors_with,
    template_parse_error, validate_cluster_class, validate_cluster_class_sdk,
    validate_cluster_class_with,
};
