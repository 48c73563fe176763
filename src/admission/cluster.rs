//! Cluster API v1.14.2's Cluster webhook (`core/webhooks/admission/cluster.go`) on a
//! `cluster.x-k8s.io/v1beta2` Cluster: defaulting, then validation on create.
