//! Cluster API v1.14.2's ClusterClass webhook (`core/webhooks/admission/clusterclass.go`)
//! on a `cluster.x-k8s.io/v1beta2` ClusterClass: defaulting, then validation on create.
