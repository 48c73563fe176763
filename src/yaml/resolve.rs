//! YAML 1.1 resolution (placeholder).
