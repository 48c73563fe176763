//! go-yaml v2 key order (placeholder).
