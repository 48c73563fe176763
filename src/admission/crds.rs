//! The Cluster and ClusterClass CRDs admission checks against.
