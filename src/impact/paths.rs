//! Field paths that differ between two objects, and how Cluster API treats each: the
//! pure comparison under the rules of [`super::rules`].

use serde_json::Value;

/// The leaf paths (`spec.template.spec.version`) at which `a` and `b` differ, sorted
/// as the objects' keys are (BTreeMap order). A list differs as a whole; a field
/// present on one side only differs at its own path. Linear in the objects' size.
pub fn changed(a: Option<&Value>, b: Option<&Value>) -> Vec<String> {
    let mut out = Vec::new();
    walk(a, b, &mut String::new(), &mut out);
    out
}

fn walk(a: Option<&Value>, b: Option<&Value>, path: &mut String, out: &mut Vec<String>) {
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                walk(x.get(k), y.get(k), path, out);
                path.truncate(len);
            }
        }
        (x, y) if x == y => {}
        _ => out.push(path.clone()),
    }
}

/// Whether `path` is `prefix` or lies under it.
pub fn under(path: &str, prefix: &str) -> bool {
    path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|r| r.starts_with('.'))
}

/// The value at a dotted path.
pub fn at<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, k| v.get(k))
}

/// The string at a dotted path, "" when absent.
pub fn str_at<'a>(v: &'a Value, path: &str) -> &'a str {
    at(v, path).and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn leaf_paths_of_changed_added_and_removed_fields() {
        let a = json!({"spec": {"replicas": 1, "template": {"spec": {"version": "v1.31.2"}}, "old": 1}});
        let b = json!({"spec": {"replicas": 1, "template": {"spec": {"version": "v1.32.0"}}, "new": [1]}});
        assert_eq!(
            changed(Some(&a), Some(&b)),
            vec!["spec.new", "spec.old", "spec.template.spec.version"]
        );
        assert!(changed(Some(&a), Some(&a)).is_empty());
        assert_eq!(changed(None, Some(&b)), vec![""]);
    }

    #[test]
    fn under_matches_whole_segments_only() {
        assert!(under(
            "spec.template.metadata.labels.a",
            "spec.template.metadata"
        ));
        assert!(under("spec.replicas", "spec.replicas"));
        assert!(!under("spec.replicasX", "spec.replicas"));
    }

    #[test]
    fn values_at_dotted_paths() {
        let v = json!({"spec": {"version": "v1", "n": 2}});
        assert_eq!(str_at(&v, "spec.version"), "v1");
        assert_eq!(str_at(&v, "spec.n"), "");
        assert_eq!(at(&v, "spec.n"), Some(&json!(2)));
        assert_eq!(at(&v, "spec.x.y"), None);
    }
}
