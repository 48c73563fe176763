//! Names inside the tree: directory segments taken from inputs are checked (nothing
//! may escape OUT), object file names are derived and made unique, and relative paths
//! read back from a lock or journal are validated before any use.

use crate::model::pointer::Pointer as _;
use std::collections::BTreeSet;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::sha256_hex;

/// A namespace or name used as a directory: a DNS-1123 subdomain (what Kubernetes
/// accepts for these names), so never empty, `.`, `..` or containing `/`.
pub fn check_segment(what: &str, s: &str) -> Result<()> {
    let errs = crate::provider::dns1123_subdomain_errors(s);
    if errs.is_empty() && s != "." && s != ".." {
        return Ok(());
    }
    Err(Error::new(format!(
        "{what} {s:?} cannot name a directory of the tree: {}",
        if errs.is_empty() {
            "reserved name".to_string()
        } else {
            errs.join("; ")
        }
    )))
}

pub use crate::paths::is_safe_relative;

/// Longest file stem before `.yaml`, leaving room for a `-N` suffix.
const MAX_STEM: usize = 180;

/// `<kind>-<name>` of an object, lower-cased, with every byte outside
/// `[a-z0-9._-]` replaced by `_` (e.g. `system:manager` → `system_manager`).
pub fn object_stem(obj: &Value) -> String {
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    let name = obj
        .ptr("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = if kind.is_empty() { "object" } else { kind };
    let raw = format!("{kind}-{name}").to_lowercase();
    let mut s: String = raw
        .chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '.' | '-' | '_' => c,
            _ => '_',
        })
        .collect();
    if s.starts_with('.') {
        s.replace_range(0..1, "_");
    }
    if s.len() > MAX_STEM {
        let h = &sha256_hex(raw.as_bytes())[..12];
        s.truncate(MAX_STEM - 13);
        s = format!("{s}-{h}");
    }
    s
}

/// Unique `.yaml` file names for objects, in order: a repeated stem gets `-2`, `-3`...
pub fn object_file_names(objs: &[Value]) -> Vec<String> {
    let mut used = BTreeSet::new();
    used.insert("kustomization".to_string());
    objs.iter()
        .map(|o| {
            let stem = object_stem(o);
            let mut cand = stem.clone();
            let mut n = 2;
            while !used.insert(cand.clone()) {
                cand = format!("{stem}-{n}");
                n += 1;
            }
            format!("{cand}.yaml")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn segments_must_be_dns_subdomains() {
        assert!(check_segment("namespace", "capi-system").is_ok());
        assert!(check_segment("name", "my.cluster").is_ok());
        for bad in ["", "..", ".", "a/b", "../x", "UPPER", "a b"] {
            assert!(check_segment("name", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn stems_are_sanitised_and_unique() {
        let objs = vec![
            json!({"kind": "ClusterRole", "metadata": {"name": "system:Manager"}}),
            json!({"kind": "ClusterRole", "metadata": {"name": "system:manager"}}),
            json!({"kind": "ClusterRole", "metadata": {"name": "system_manager"}}),
            json!({"metadata": {"name": ".hidden"}}),
            json!({"kind": ".", "metadata": {}}),
        ];
        assert_eq!(
            object_file_names(&objs),
            vec![
                "clusterrole-system_manager.yaml",
                "clusterrole-system_manager-2.yaml",
                "clusterrole-system_manager-3.yaml",
                "object-.hidden.yaml",
                "_-.yaml",
            ]
        );
    }

    #[test]
    fn long_names_are_cut_with_a_hash() {
        let a = json!({"kind": "ConfigMap", "metadata": {"name": "a".repeat(300)}});
        let b = json!({"kind": "ConfigMap", "metadata": {"name": format!("{}b", "a".repeat(299))}});
        let (sa, sb) = (object_stem(&a), object_stem(&b));
        assert!(sa.len() <= MAX_STEM && sb.len() <= MAX_STEM);
        assert_ne!(sa, sb);
    }
}
