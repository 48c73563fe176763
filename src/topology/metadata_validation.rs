//! `clusterv1.ObjectMeta.Validate` as the ClusterClass and Cluster webhooks run it on
//! topology metadata (topology.md §9): label keys are qualified names, label values
//! valid label values, annotation keys qualified names in any case, and the
//! annotations at most 256 KiB together (apimachinery's `ValidateLabels` and
//! `ValidateAnnotations`). Go walks the maps in random order; we walk keys in byte
//! order, so several errors in one map come out sorted.

use serde_json::Value;

use super::obj;
use super::variables::field_error::{self as fe, BadValue, FieldError};

const QUALIFIED_NAME_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const TOTAL_ANNOTATION_SIZE_LIMIT: i64 = 256 * 1024;

/// `validation.RegexError(msg, fmt, examples...)`.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let ex: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    // Go appends "'x', " per example and " or " between them: "'a',  or 'b', ".
    format!(
        "{msg} (e.g. {}regex used for validation is '{fmt}')",
        ex.join(" or ")
    )
}

/// `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`.
fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_alphanumeric();
    !b.is_empty()
        && alnum(&b[0])
        && alnum(&b[b.len() - 1])
        && b.iter()
            .all(|c| alnum(c) || matches!(c, b'-' | b'_' | b'.'))
}

/// `validation.IsQualifiedName`.
pub fn qualified_name_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [n] => *n,
        [prefix, n] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(
                    crate::provider::dns1123_subdomain_errors(prefix)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *n
        }
        _ => {
            return vec![format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, &["MyName", "my.name", "123-abc"])
            )]
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 characters".to_string());
    }
    if !is_qualified_name_part(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_MSG,
                QUALIFIED_NAME_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// `validation.IsValidLabelValue`.
pub fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        errs.push(regex_error(
            LABEL_VALUE_MSG,
            &format!("({QUALIFIED_NAME_FMT})?"),
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

fn string_map(meta: Option<&Value>, field: &str) -> Vec<(String, String)> {
    meta.and_then(|m| m.get(field))
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// `ObjectMeta.Validate(path)` for a `{labels, annotations}` object (absent = empty).
pub fn object_meta_errors(meta: Option<&Value>, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let labels_path = fe::child(path, "labels");
    for (k, v) in string_map(meta, "labels") {
        for m in qualified_name_errors(&k) {
            errs.push(FieldError::invalid(
                &labels_path,
                BadValue::Str(k.clone()),
                m,
            ));
        }
        for m in label_value_errors(&v) {
            errs.push(FieldError::invalid(
                &labels_path,
                BadValue::Str(v.clone()),
                m,
            ));
        }
    }
    let annotations_path = fe::child(path, "annotations");
    let annotations = string_map(meta, "annotations");
    for (k, _) in &annotations {
        for m in qualified_name_errors(&k.to_lowercase()) {
            errs.push(FieldError::invalid(
                &annotations_path,
                BadValue::Str(k.clone()),
                m,
            ));
        }
    }
    let size: i64 = annotations
        .iter()
        .map(|(k, v)| (k.len() + v.len()) as i64)
        .sum();
    if size > TOTAL_ANNOTATION_SIZE_LIMIT {
        errs.push(FieldError::too_long(
            &annotations_path,
            TOTAL_ANNOTATION_SIZE_LIMIT,
        ));
    }
    errs
}

/// `validateClusterClassMetadata`: the control plane's and every worker class's
/// template metadata.
pub fn cluster_class_metadata_errors(cc: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_errors(
        obj::get(cc, &["spec", "controlPlane", "metadata"]),
        "spec.controlPlane.metadata",
    );
    for field in ["machineDeployments", "machinePools"] {
        for c in obj::get(cc, &["spec", "workers", field])
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let path = fe::child(
                &fe::key(&format!("spec.workers.{field}"), obj::str_at(c, &["class"])),
                "template.metadata",
            );
            errs.extend(object_meta_errors(
                obj::get(c, &["template", "metadata"]),
                &path,
            ));
        }
    }
    errs
}

/// `validateTopologyMetadata`: the Cluster topology's control plane and workers.
pub fn topology_metadata_errors(cluster: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_errors(
        obj::get(cluster, &["spec", "topology", "controlPlane", "metadata"]),
        "spec.topology.controlPlane.metadata",
    );
    for field in ["machineDeployments", "machinePools"] {
        for w in obj::get(cluster, &["spec", "topology", "workers", field])
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let path = fe::child(
                &fe::key(
                    &format!("spec.topology.workers.{field}"),
                    obj::str_at(w, &["name"]),
                ),
                "metadata",
            );
            errs.extend(object_meta_errors(w.get("metadata"), &path));
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn qualified_names() {
        assert!(qualified_name_errors("app.kubernetes.io/name").is_empty());
        assert!(qualified_name_errors("MyName").is_empty());
        assert_eq!(
            qualified_name_errors("-bad"),
            ["name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
]
        );
        assert_eq!(
            qualified_name_errors("/x"),
            ["prefix part must be non-empty"]
        );
        assert_eq!(
            qualified_name_errors(&"a".repeat(64)),
            ["name part must be no more than 63 characters"]
        );
        assert!(qualified_name_errors("a/b/c")[0].starts_with("a qualified name must consist"));
        assert!(qualified_name_errors("Bad_Prefix/x")[0]
            .starts_with("prefix part a lowercase RFC 1123 subdomain"));
    }

    #[test]
    fn label_values() {
        assert!(label_value_errors("").is_empty());
        assert!(label_value_errors("v1.2_3-x").is_empty());
        assert_eq!(
            label_value_errors(&"a".repeat(64)),
            ["must be no more than 63 characters"]
        );
        assert!(
            label_value_errors("bad value")[0].starts_with("a valid label must be an empty string")
        );
        assert!(label_value_errors("bad value")[0].ends_with(
            "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ));
    }

    #[test]
    fn topology_and_class_metadata_paths() {
        let cluster = json!({"spec": {"topology": {
            "controlPlane": {"metadata": {"labels": {"ok": "fine", "bad key!": "v"}}},
            "workers": {"machineDeployments": [{"name": "md-0", "metadata": {"annotations": {"Upper.Case/OK": "x", "-no": "y"}}}]}}}});
        let errs = topology_metadata_errors(&cluster);
        let fields: Vec<&str> = errs.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.topology.controlPlane.metadata.labels",
                "spec.topology.workers.machineDeployments[md-0].metadata.annotations"
            ]
        );
        assert_eq!(errs[0].bad_value, BadValue::Str("bad key!".into()));
        let cc = json!({"spec": {"workers": {"machinePools": [{"class": "pool", "template": {"metadata": {"labels": {"k": "no spaces"}}}}]}}});
        let errs = cluster_class_metadata_errors(&cc);
        assert_eq!(errs.len(), 1);
        assert_eq!(
            errs[0].field,
            "spec.workers.machinePools[pool].template.metadata.labels"
        );
        assert_eq!(errs[0].bad_value, BadValue::Str("no spaces".into()));
    }

    #[test]
    fn annotation_size_limit() {
        let big = "x".repeat(256 * 1024);
        let errs = object_meta_errors(Some(&json!({"annotations": {"a": big}})), "m");
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].detail, "may not be more than 262144 bytes");
    }
}
