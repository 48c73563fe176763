//! go-yaml v2 compatible writer (placeholder until the emitter lands).
use serde_json::Value;

/// One document as `sigs.k8s.io/yaml.Marshal` writes it (ends with `\n`).
pub fn to_yaml(v: &Value) -> String {
    let _ = v;
    unimplemented!("YAML emitter")
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)` (placeholder).
pub fn format_go_float_g(f: f64) -> String {
    format!("{f}")
}
