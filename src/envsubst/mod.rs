//! drone/envsubst v2 semantics and clusterctl's SimpleProcessor (placeholder).
