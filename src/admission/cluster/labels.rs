//! apimachinery v0.36.3's label and annotation checks as Cluster API v1.14.2 calls
//! them: `content.IsLabelKey` (`IsQualifiedName`), `content.IsLabelValue`
//! (`IsValidLabelValue`), `ValidateLabels`, `ValidateAnnotations` and
//! `clusterv1.ObjectMeta.Validate`. Their texts differ from v0.32's (v1.10's): lengths
//! are in bytes, and a key with several `/` is "a valid label key". Go walks a map in
//! random order; we walk its keys in byte order, so several errors of one map come out
//! sorted.

use serde_json::{Map, Value};

use crate::topology::variables::field_error::{BadValue, FieldError};

const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
/// `TotalAnnotationSizeLimitB`.
const ANNOTATIONS_LIMIT: usize = 256 * 1024;

/// `content.RegexError`.
fn regex_error(msg: &str, re: &str, examples: &[&str]) -> String {
    let shown: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!(
        "{msg} (e.g. {}regex used for validation is '{re}')",
        shown.join(" or ")
    )
}

/// `content.MaxLenError`.
fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} bytes")
}

/// `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`.
fn is_label_key_name(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_alphanumeric();
    b.first().is_some_and(alnum)
        && b.last().is_some_and(alnum)
        && b.iter()
            .all(|c| alnum(c) || matches!(c, b'-' | b'_' | b'.'))
}

/// `content.IsDNS1123Subdomain`.
fn dns1123_subdomain_errors(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(max_len_error(253));
    }
    let label = |l: &str| {
        let b = l.as_bytes();
        let ok = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        b.first().is_some_and(ok)
            && b.last().is_some_and(ok)
            && b.iter().all(|c| ok(c) || *c == b'-')
    };
    if !s.split('.').all(label) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `content.IsLabelKey` (`validation.IsQualifiedName`).
pub fn label_key_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(
                    dns1123_subdomain_errors(prefix)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *name
        }
        _ => {
            return vec![format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            )]
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !is_label_key_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                LABEL_KEY_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// `content.IsLabelValue` (`validation.IsValidLabelValue`).
pub fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !value.is_empty() && !is_label_key_name(value) {
        errs.push(regex_error(
            LABEL_VALUE_MSG,
            &format!("({LABEL_KEY_FMT})?"),
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

fn str_of(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// `metav1validation.ValidateLabels`.
fn label_errors(labels: &Map<String, Value>, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (k, v) in labels {
        for m in label_key_errors(k) {
            errs.push(FieldError::invalid(path, BadValue::Str(k.clone()), m));
        }
        for m in label_value_errors(str_of(v)) {
            errs.push(FieldError::invalid(
                path,
                BadValue::Str(str_of(v).into()),
                m,
            ));
        }
    }
    errs
}

/// `apivalidation.ValidateAnnotations`.
fn annotation_errors(annotations: &Map<String, Value>, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for k in annotations.keys() {
        for m in label_key_errors(&k.to_lowercase()) {
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

/// `clusterv1.ObjectMeta.Validate(path)`: the labels, then the annotations, of a
/// `{labels, annotations}` object.
pub fn object_meta_errors(metadata: Option<&Value>, path: &str) -> Vec<FieldError> {
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
        object_meta_errors(Some(&m), "p")
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn valid_metadata() {
        assert!(texts(json!({"labels": {"a.b/c-d": "v_1", "x": ""}, "annotations": {"Example.com/Key": "anything"}})).is_empty());
    }

    #[test]
    fn invalid_keys_and_values_in_v0_36_texts() {
        assert_eq!(texts(json!({"labels": {"-bad": "ok"}})), vec![
            "p.labels: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        ]);
        assert_eq!(texts(json!({"labels": {"k": "bad value"}})), vec![
            "p.labels: Invalid value: \"bad value\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ]);
        assert_eq!(texts(json!({"annotations": {"a/b/c": ""}})), vec![
            "p.annotations: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]);
    }

    #[test]
    fn lengths_are_in_bytes() {
        assert_eq!(
            label_value_errors(&"a".repeat(64)),
            vec!["must be no more than 63 bytes"]
        );
        assert_eq!(
            label_key_errors(&"a".repeat(64)),
            vec!["name part must be no more than 63 bytes"]
        );
        assert_eq!(
            label_key_errors("/x"),
            vec!["prefix part must be non-empty"]
        );
        assert_eq!(label_key_errors("Ex.com/x"), vec!["prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]);
        assert_eq!(
            texts(json!({"annotations": {"k": "x".repeat(300 * 1024)}})),
            vec!["p.annotations: Too long: may not be more than 262144 bytes"]
        );
    }
}
