//! ClusterClass topologies: the topology controller's desired state for Clusters with
//! `spec.topology` (shared/spec/topology.md).

pub mod variables;
