//! apimachinery's `field.Error` / `field.ErrorList` texts (util/validation/field), the
//! aggregate formatting (`[a, b]`, duplicates dropped) and `apierrors.NewInvalid`.

use crate::go::quote::quote as go_quote;

/// `field.ErrorType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorType {
    NotFound,
    Required,
    Duplicate,
    Invalid,
    NotSupported,
    Forbidden,
    TooLong,
    TooMany,
    Internal,
    TypeInvalid,
}

impl ErrorType {
    /// `ErrorType.String()`.
    pub fn text(self) -> &'static str {
        match self {
            ErrorType::NotFound => "Not found",
            ErrorType::Required => "Required value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::Internal => "Internal error",
        }
    }
}

/// A `BadValue` as Go prints it in `ErrorBody`.
#[derive(Debug, Clone, PartialEq)]
pub enum BadValue {
    /// `%q`.
    Str(String),
    /// `%v` of an int64 / int.
    Int(i64),
    /// `%v` of a float64 (Go's `%v` is `%g`).
    Float(f64),
    Bool(bool),
    /// nil → `null`.
    Null,
    /// `omitValue`: only the type text.
    Omit,
    /// Printed as is: Go's `%#v` of a map or slice.
    GoSyntax(String),
    /// Printed as is: Go's `json.Marshal` of a value that is not a string, number or
    /// bool (how apimachinery v0.33+, Cluster API v1.14's, prints every other value,
    /// nil included).
    Json(String),
    /// A value Kubernetes prints differently since v0.33 (Cluster API v1.14): printed as
    /// `before_v033` (v0.32, clusterctl v1.10's); `since_v033` is the newer form
    /// ([`BadValue::since_v033`]).
    Versioned {
        before_v033: Box<BadValue>,
        since_v033: Box<BadValue>,
    },
}

impl BadValue {
    /// The value as apimachinery v0.33+ prints it: a [`BadValue::Versioned`]'s newer
    /// form, nil as `null`.
    pub fn since_v033(self) -> BadValue {
        match self {
            BadValue::Versioned { since_v033, .. } => since_v033.since_v033(),
            BadValue::Null => BadValue::Json("null".into()),
            other => other,
        }
    }

    /// `ErrorBody`'s text of the value (`None`: omitted).
    fn text(&self) -> Option<String> {
        Some(match self {
            BadValue::Omit => return None,
            BadValue::Str(v) => go_quote(v),
            BadValue::Int(i) => i.to_string(),
            BadValue::Float(f) => go_v_float(*f),
            BadValue::Bool(b) => b.to_string(),
            BadValue::Null => "\"null\"".to_string(),
            BadValue::GoSyntax(v) | BadValue::Json(v) => v.clone(),
            BadValue::Versioned { before_v033, .. } => return before_v033.text(),
        })
    }
}

/// One `field.Error`.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub kind: ErrorType,
    pub field: String,
    pub bad_value: BadValue,
    pub detail: String,
}

impl FieldError {
    pub fn new(
        kind: ErrorType,
        field: &str,
        bad_value: BadValue,
        detail: impl Into<String>,
    ) -> Self {
        FieldError {
            kind,
            field: field.to_string(),
            bad_value,
            detail: detail.into(),
        }
    }

    /// `field.Invalid`.
    pub fn invalid(field: &str, value: BadValue, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Invalid, field, value, detail)
    }

    /// `field.Required`.
    pub fn required(field: &str, detail: impl Into<String>) -> Self {
        Self::new(
            ErrorType::Required,
            field,
            BadValue::Str(String::new()),
            detail,
        )
    }

    /// `field.Forbidden`.
    pub fn forbidden(field: &str, detail: impl Into<String>) -> Self {
        Self::new(
            ErrorType::Forbidden,
            field,
            BadValue::Str(String::new()),
            detail,
        )
    }

    /// `field.NotSupported`: `supported values: "a", "b"`.
    pub fn not_supported(field: &str, value: BadValue, valid: &[String]) -> Self {
        let detail = if valid.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = valid.iter().map(|v| go_quote(v)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(ErrorType::NotSupported, field, value, detail)
    }

    /// `field.TooLong` (the value is always omitted).
    pub fn too_long(field: &str, max: i64) -> Self {
        let detail = if max >= 0 {
            format!("may not be more than {max} bytes")
        } else {
            "value is too long".to_string()
        };
        Self::new(
            ErrorType::TooLong,
            field,
            BadValue::Str("<value omitted>".into()),
            detail,
        )
    }

    /// `field.TooMany`.
    pub fn too_many(field: &str, actual: i64, max: i64) -> Self {
        let detail = if max >= 0 {
            format!("must have at most {max} items")
        } else {
            "has too many items".to_string()
        };
        let value = if actual >= 0 {
            BadValue::Int(actual)
        } else {
            BadValue::Omit
        };
        Self::new(ErrorType::TooMany, field, value, detail)
    }

    /// `field.InternalError`.
    pub fn internal(field: &str, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Internal, field, BadValue::Null, detail)
    }

    /// `ErrorBody()`.
    pub fn body(&self) -> String {
        let mut s = match self.kind {
            ErrorType::Required
            | ErrorType::Forbidden
            | ErrorType::TooLong
            | ErrorType::Internal => self.kind.text().to_string(),
            _ => match self.bad_value.text() {
                None => self.kind.text().to_string(),
                Some(v) => format!("{}: {v}", self.kind.text()),
            },
        };
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`).
pub fn go_v_float(f: f64) -> String {
    crate::go::float::format_g(f)
}

/// Go's `%#v` of a decoded JSON value (`map[string]interface {}{"a":1}`,
/// `[]interface {}{"x"}`, map keys sorted as fmt sorts them).
pub fn go_sharp_v(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Null => "interface {}(nil)".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => go_quote(s),
        Value::Number(n) => match crate::go::json::as_int64(n) {
            Some(i) => i.to_string(),
            None => go_v_float(n.as_f64().unwrap_or(0.0)),
        },
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(go_sharp_v).collect();
            format!("[]interface {{}}{{{}}}", parts.join(", "))
        }
        Value::Object(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}:{}", go_quote(k), go_sharp_v(v)))
                .collect();
            format!("map[string]interface {{}}{{{}}}", parts.join(", "))
        }
    }
}

/// A decoded JSON value as apimachinery v0.36's `ErrorBody` prints a bad value: a string
/// quoted, a number or bool as is, anything else as JSON (`json.Marshal`).
pub fn json_bad_value(v: &serde_json::Value) -> BadValue {
    use serde_json::Value;
    match v {
        Value::String(s) => BadValue::Str(s.clone()),
        Value::Bool(b) => BadValue::Bool(*b),
        Value::Number(n) => match crate::go::json::as_int64(n) {
            Some(i) => BadValue::Int(i),
            None => BadValue::Float(n.as_f64().unwrap_or(0.0)),
        },
        other => BadValue::GoSyntax(other.to_string()),
    }
}

/// `ErrorList.ToAggregate().Error()`: one message, or `[a, b]` without duplicates.
pub fn aggregate(errs: &[FieldError]) -> String {
    crate::go::errors::aggregate(errs.iter().map(ToString::to_string))
}

/// `apierrors.NewInvalid(kind, name, errs).Error()`.
pub fn invalid_object_message(qualified_kind: &str, name: &str, errs: &[FieldError]) -> String {
    if errs.is_empty() {
        format!("{qualified_kind} {} is invalid", go_quote(name))
    } else {
        format!(
            "{qualified_kind} {} is invalid: {}",
            go_quote(name),
            aggregate(errs)
        )
    }
}

/// `field.Path` building: `child` appends `.name` (or `name` at the root), `key`
/// appends `[key]`, `index` appends `[i]`.
pub fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

pub fn key(path: &str, k: &str) -> String {
    format!("{path}[{k}]")
}

pub fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_with_string_value() {
        let e = FieldError::invalid(
            "spec.topology.variables[count].value",
            BadValue::Str("7".into()),
            "should be less than or equal to 5",
        );
        assert_eq!(
            e.to_string(),
            "spec.topology.variables[count].value: Invalid value: \"7\": should be less than or equal to 5"
        );
    }

    #[test]
    fn required_and_too_long_omit_the_value() {
        assert_eq!(
            FieldError::required("a.b", "").to_string(),
            "a.b: Required value"
        );
        assert_eq!(
            FieldError::too_long("a", 3).to_string(),
            "a: Too long: may not be more than 3 bytes"
        );
        assert_eq!(
            FieldError::forbidden("a", "no").to_string(),
            "a: Forbidden: no"
        );
    }

    #[test]
    fn not_supported_quotes_the_values() {
        let e =
            FieldError::not_supported("p", BadValue::Str("x".into()), &["a".into(), "b".into()]);
        assert_eq!(
            e.to_string(),
            "p: Unsupported value: \"x\": supported values: \"a\", \"b\""
        );
    }

    #[test]
    fn too_many_prints_the_count() {
        assert_eq!(
            FieldError::too_many("p", 4, 3).to_string(),
            "p: Too many: 4: must have at most 3 items"
        );
    }

    #[test]
    fn aggregate_brackets_and_dedups() {
        let a = FieldError::required("a", "");
        let b = FieldError::required("b", "");
        assert_eq!(aggregate(std::slice::from_ref(&a)), "a: Required value");
        assert_eq!(
            aggregate(&[a.clone(), b.clone(), a.clone()]),
            "[a: Required value, b: Required value]"
        );
        assert_eq!(aggregate(&[a.clone(), a.clone()]), "a: Required value");
        assert_eq!(
            invalid_object_message("Cluster.cluster.x-k8s.io", "c1", &[a, b]),
            "Cluster.cluster.x-k8s.io \"c1\" is invalid: [a: Required value, b: Required value]"
        );
    }

    #[test]
    fn go_syntax_values() {
        let v = serde_json::json!({"b": [1.0, "x"], "a": true, "c": null});
        assert_eq!(
            go_sharp_v(&v),
            r#"map[string]interface {}{"a":true, "b":[]interface {}{1, "x"}, "c":interface {}(nil)}"#
        );
        let e = FieldError::invalid(
            "p",
            BadValue::GoSyntax(go_sharp_v(&serde_json::json!({"a": 1.5}))),
            "d",
        );
        assert_eq!(
            e.to_string(),
            r#"p: Invalid value: map[string]interface {}{"a":1.5}: d"#
        );
    }

    #[test]
    fn versioned_values_print_the_older_form() {
        let v = BadValue::Versioned {
            before_v033: Box::new(BadValue::Str("string".into())),
            since_v033: Box::new(BadValue::Versioned {
                before_v033: Box::new(BadValue::Omit),
                since_v033: Box::new(BadValue::Json("{\"a\":1}".into())),
            }),
        };
        let e = FieldError::invalid("p", v.clone(), "d");
        assert_eq!(e.to_string(), "p: Invalid value: \"string\": d");
        let e = FieldError::invalid("p", v.since_v033(), "d");
        assert_eq!(e.to_string(), "p: Invalid value: {\"a\":1}: d");
        let e = FieldError::invalid("p", BadValue::Null, "d");
        assert_eq!(e.to_string(), "p: Invalid value: \"null\": d");
        let e = FieldError::invalid("p", BadValue::Null.since_v033(), "d");
        assert_eq!(e.to_string(), "p: Invalid value: null: d");
        let e = FieldError::invalid("p", BadValue::Omit, "d");
        assert_eq!(e.to_string(), "p: Invalid value: d");
    }

    #[test]
    fn paths() {
        let p = key(&child(&child("spec", "topology"), "variables"), "x");
        assert_eq!(
            index(&child(&p, "value"), 2),
            "spec.topology.variables[x].value[2]"
        );
        assert_eq!(child("", "a"), "a");
    }
}
