//! Label and annotation checks on variable `metadata` and schema `x-metadata`
//! (apimachinery `ValidateLabels` / `ValidateAnnotations`, `IsQualifiedName`,
//! `IsValidLabelValue`). Map entries are checked in key order (Go ranges over a map).

use serde_json::{Map, Value};

use super::field_error::{BadValue, FieldError};
use crate::provider::dns1123_subdomain_errors;

const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_MSG: &str =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
/// `TotalAnnotationSizeLimitB`.
const ANNOTATIONS_LIMIT: usize = 256 * 1024;

/// apimachinery's `RegexError`.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let shown: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!(
        "{msg} (e.g. {}regex used for validation is '{fmt}')",
        shown.join(" or ")
    )
}

/// `[A-Za-z0-9]`, then `[-A-Za-z0-9_.]*`, ending alphanumeric.
fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_alphanumeric();
    !b.is_empty()
        && alnum(&b[0])
        && alnum(&b[b.len() - 1])
        && b.iter()
            .all(|c| alnum(c) || matches!(c, b'-' | b'_' | b'.'))
}

/// `IsQualifiedName`.
pub fn qualified_name_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(dns1123_subdomain_errors(prefix).into_iter().map(|m| format!("prefix part {m}")));
            }
            *name
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

/// `IsValidLabelValue`.
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

fn str_of(v: &Value) -> String {
    v.as_str().unwrap_or("").to_string()
}

/// `ValidateLabels`.
pub fn label_errors(labels: &Map<String, Value>, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (k, v) in labels {
        for m in qualified_name_errors(k) {
            errs.push(FieldError::invalid(path, BadValue::Str(k.clone()), m));
        }
        for m in label_value_errors(&str_of(v)) {
            errs.push(FieldError::invalid(path, BadValue::Str(str_of(v)), m));
        }
    }
    errs
}

/// `ValidateAnnotations`.
pub fn annotation_errors(annotations: &Map<String, Value>, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for k in annotations.keys() {
        for m in qualified_name_errors(&k.to_lowercase()) {
            errs.push(FieldError::invalid(path, BadValue::Str(k.clone()), m));
        }
    }
    let size: usize = annotations
        .iter()
        .map(|(k, v)| k.len() + str_of(v).len())
        .sum();
    if size > ANNOTATIONS_LIMIT {
        errs.push(FieldError::too_long(path, ANNOTATIONS_LIMIT as i64));
    }
    errs
}

/// Labels and annotations of a metadata object (`{labels, annotations}`) at `path`.
pub fn metadata_errors(metadata: Option<&Value>, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Some(Value::Object(l)) = metadata.and_then(|m| m.get("labels")) {
        errs.extend(label_errors(l, &format!("{path}.labels")));
    }
    if let Some(Value::Object(a)) = metadata.and_then(|m| m.get("annotations")) {
        errs.extend(annotation_errors(a, &format!("{path}.annotations")));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(m: Value) -> Vec<String> {
        metadata_errors(Some(&m), "p")
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn valid_metadata() {
        assert!(texts(json!({"labels": {"a.b/c-d": "v_1", "x": ""}, "annotations": {"Example.com/Key": "anything"}})).is_empty());
    }

    #[test]
    fn invalid_label_key_and_value() {
        assert_eq!(texts(json!({"labels": {"-bad": "ok"}})), vec![
            "p.labels: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        ]);
        assert_eq!(texts(json!({"labels": {"k": "bad value"}})), vec![
            "p.labels: Invalid value: \"bad value\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ]);
    }

    #[test]
    fn prefixes_and_sizes() {
        assert_eq!(
            qualified_name_errors("/x"),
            vec!["prefix part must be non-empty"]
        );
        assert_eq!(qualified_name_errors("a/b/c").len(), 1);
        assert_eq!(
            qualified_name_errors(&"a".repeat(64)),
            vec!["name part must be no more than 63 characters"]
        );
        let big = json!({"annotations": {"k": "x".repeat(300 * 1024)}});
        assert_eq!(
            texts(big),
            vec!["p.annotations: Too long: may not be more than 262144 bytes"]
        );
    }
}
