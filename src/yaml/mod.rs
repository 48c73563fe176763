//! YAML as Go's `sigs.k8s.io/yaml` reads and writes it.
//!
//! * [`split`]: the apimachinery YAMLReader's document splitting (R5.1–R5.3).
//! * [`read`]: one document → `serde_json::Value` with Go's scalar rules (R5.4);
//!   every number becomes an `f64`, as Go's `encoding/json` gives `float64`.
//! * [`emit`]: `serde_json::Value` → the exact bytes of `sigs.k8s.io/yaml.Marshal`
//!   (go-yaml v2 emitter), with [`keysort`] (go-yaml v2 key order) and
//!   [`resolve`] (the YAML 1.1 resolution table the writer uses to choose quoting).

pub mod emit;
pub mod keysort;
pub mod read;
pub mod resolve;
pub mod split;

use serde_json::Value;

pub use emit::to_yaml;
pub use read::{parse_documents, parse_value};

/// clusterctl's `JoinYaml`: every document gets a leading and trailing newline if it
/// lacks one, documents are joined with `---`, then one leading and one trailing
/// newline of the whole are removed (R9.1).
pub fn join_documents<S: AsRef<str>>(docs: &[S]) -> String {
    let mut out = String::new();
    for (i, d) in docs.iter().enumerate() {
        let d = d.as_ref();
        if i > 0 {
            out.push_str("---");
        }
        if !d.starts_with('\n') {
            out.push('\n');
        }
        out.push_str(d);
        if !d.ends_with('\n') {
            out.push('\n');
        }
    }
    let s = out.strip_prefix('\n').unwrap_or(&out);
    let s = s.strip_suffix('\n').unwrap_or(s);
    s.to_string()
}

/// clusterctl's `FromUnstructured`: marshal every object and join them (R9.1).
pub fn from_objects(objs: &[Value]) -> String {
    let docs: Vec<String> = objs.iter().map(to_yaml).collect();
    join_documents(&docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_puts_separators_between_documents_only() {
        assert_eq!(join_documents(&["a: 1\n", "b: 2\n"]), "a: 1\n---\nb: 2");
        assert_eq!(join_documents(&["a: 1\n"]), "a: 1");
        assert_eq!(join_documents::<&str>(&[]), "");
    }
}
