//! The value checks of kube-openapi's `validate.SchemaValidator` as apiextensions runs
//! them for a custom resource (`validation.ValidateCustomResource`), over the schema
//! subset a ClusterClass variable can declare, with its messages and field paths.
//!
//! Values are seen as Go sees them after `k8s.io/apimachinery/pkg/util/json` decoding:
//! integral numbers are int64, others float64. Validators run in kube-openapi's order:
//! type, allOf/anyOf/oneOf/not, string, format, number, array, enum, object. Object
//! properties are visited in sorted order (Go iterates a map).

use serde_json::Value;

mod composition;

use super::field_error::{go_v_float, BadValue, FieldError};
use super::formats;

mod multiple_of;
use super::schema::Schema;
use crate::go::json::{as_int64, marshal};
use crate::go::quote::quote as go_quote;

/// kube-openapi's error codes that change the field error type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    InvalidType,
    Required,
    TooLong,
    Enum,
    MaxItems,
    TooManyProperties,
    /// Every other `*errors.Validation`.
    Other,
    /// `errors.New` results (allOf/anyOf/oneOf/not): reported at the root path.
    Composite,
}

/// One kube-openapi validation error.
#[derive(Debug, Clone, PartialEq)]
pub struct OaError {
    pub code: Code,
    /// kube-openapi's dotted name (`a.b`, `[0].c`, `.x` for a required root key).
    pub name: String,
    pub message: String,
    pub actual: i64,
    pub max: i64,
    pub enum_values: Vec<String>,
    /// kube-openapi's `Value` (what apiextensions prints as the bad value).
    pub value: BadValue,
}

impl OaError {
    pub(super) fn new(code: Code, name: &str, message: String) -> Self {
        OaError {
            code,
            name: name.to_string(),
            message,
            actual: -1,
            max: -1,
            enum_values: vec![],
            value: BadValue::Str(String::new()),
        }
    }

    fn with_value(mut self, v: BadValue) -> Self {
        self.value = v;
        self
    }
}

/// Go's dynamic kind of a decoded JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Nil,
    Bool,
    Str,
    Int,
    Float,
    Slice,
    Map,
}

pub(super) fn kind(v: &Value) -> Kind {
    match v {
        Value::Null => Kind::Nil,
        Value::Bool(_) => Kind::Bool,
        Value::String(_) => Kind::Str,
        Value::Number(n) if as_int64(n).is_some() => Kind::Int,
        Value::Number(_) => Kind::Float,
        Value::Array(_) => Kind::Slice,
        Value::Object(_) => Kind::Map,
    }
}

/// `name in body <rest>`, as kube-openapi words it for `in == "body"`.
fn msg(name: &str, rest: &str) -> String {
    format!("{name} in body {rest}")
}

/// The formats apiextensions keeps (`StripUnsupportedFormatsPostProcess`); others are dropped.
pub fn effective_format(format: &str) -> String {
    let normalized = format.replace('-', "");
    if formats::SUPPORTED.contains(&normalized.as_str()) {
        format.to_string()
    } else {
        String::new()
    }
}

/// The JSON types a schema accepts (`x-kubernetes-int-or-string` → integer,string).
pub(super) fn types_of(s: &Schema) -> Vec<&'static str> {
    if s.int_or_string {
        return vec!["integer", "string"];
    }
    match s.type_.as_str() {
        "" => vec![],
        "object" => vec!["object"],
        "array" => vec!["array"],
        "string" => vec!["string"],
        "integer" => vec!["integer"],
        "number" => vec!["number"],
        "boolean" => vec!["boolean"],
        "null" => vec!["null"],
        _ => vec!["<unknown>"],
    }
}

/// Validates `v` against `s`; `path` is kube-openapi's name of `v` ("" at the root).
/// `warnings` collects what we cannot check (unimplemented formats).
pub fn validate(s: &Schema, v: &Value, path: &str, warnings: &mut Vec<String>) -> Vec<OaError> {
    let mut out: Vec<OaError> = Vec::new();
    let add = |errs: Vec<OaError>, out: &mut Vec<OaError>| {
        for e in errs {
            if !out.iter().any(|o| o.message == e.message) {
                out.push(e);
            }
        }
    };
    let k = kind(v);
    let format = effective_format(&s.format);
    if k == Kind::Nil {
        // kube-openapi's type validator accepts null where the schema is `nullable`.
        if !s.nullable {
            add(type_check(s, v, k, &format, path), &mut out);
        }
        add(enum_check(s, v, path), &mut out);
        return out;
    }
    add(type_check(s, v, k, &format, path), &mut out);
    add(
        composition::composition_check(s, v, path, warnings),
        &mut out,
    );
    if let Value::String(text) = v {
        add(string_check(s, text, path), &mut out);
        if !format.is_empty() {
            match formats::check(&format, text) {
                Some(true) => {}
                Some(false) => add(
                    vec![OaError::new(
                        Code::InvalidType,
                        path,
                        msg(
                            path,
                            &format!("must be of type {format}: {}", go_quote(text)),
                        ),
                    )
                    .with_value(BadValue::Str(text.clone()))],
                    &mut out,
                ),
                None => warnings.push(format!(
                    "format {format:?} is not checked by capi-render (value at {path:?})"
                )),
            }
        }
    }
    if matches!(k, Kind::Int | Kind::Float) {
        add(number_check(s, v, path), &mut out);
    }
    if let Value::Array(items) = v {
        add(slice_check(s, items, path, warnings), &mut out);
    }
    add(enum_check(s, v, path), &mut out);
    if let Value::Object(map) = v {
        add(object_check(s, map, path, warnings), &mut out);
    }
    out
}

pub(super) fn type_check(s: &Schema, v: &Value, k: Kind, format: &str, path: &str) -> Vec<OaError> {
    let types = types_of(s);
    if types.is_empty() && format.is_empty() {
        return vec![];
    }
    if k == Kind::Nil {
        if !types.is_empty() && !types.contains(&"null") {
            let m = msg(
                path,
                &format!("must be of type {}: \"null\"", types.join(",")),
            );
            return vec![
                OaError::new(Code::InvalidType, path, m).with_value(BadValue::Str("null".into()))
            ];
        }
        return vec![];
    }
    let (sch_type, sch_format) = match k {
        Kind::Bool => ("boolean", ""),
        Kind::Str => ("string", ""),
        Kind::Int => ("integer", "int64"),
        Kind::Float => ("number", "float64"),
        Kind::Slice => ("array", ""),
        _ => ("object", ""),
    };
    let float_int = k == Kind::Float
        && v.as_f64().is_some_and(|f| f.fract() == 0.0)
        && types.contains(&"integer");
    let int_float = k == Kind::Int && types.contains(&"number");
    let has = types.contains(&sch_type);
    if k != Kind::Str
        && k != Kind::Slice
        && !format.is_empty()
        && !(has || sch_format == format || float_int || int_float)
    {
        let m = msg(path, &format!("must be of type {format}: \"{sch_format}\""));
        return vec![
            OaError::new(Code::InvalidType, path, m).with_value(BadValue::Str(sch_format.into()))
        ];
    }
    let numeric = types.contains(&"number") || types.contains(&"integer");
    if !numeric && !format.is_empty() && matches!(k, Kind::Str | Kind::Slice) {
        return vec![];
    }
    if !(has || float_int || int_float) {
        let m = msg(
            path,
            &format!("must be of type {}: \"{sch_type}\"", types.join(",")),
        );
        return vec![
            OaError::new(Code::InvalidType, path, m).with_value(BadValue::Str(sch_type.into()))
        ];
    }
    vec![]
}

fn string_check(s: &Schema, text: &str, path: &str) -> Vec<OaError> {
    let len = text.chars().count() as i64;
    if let Some(max) = s.max_length {
        if len > max {
            let mut e = OaError::new(
                Code::TooLong,
                path,
                msg(path, &format!("should be at most {max} chars long")),
            );
            e.max = max;
            return vec![e];
        }
    }
    if let Some(min) = s.min_length {
        if len < min {
            return vec![OaError::new(
                Code::Other,
                path,
                msg(path, &format!("should be at least {min} chars long")),
            )
            .with_value(BadValue::Str(text.into()))];
        }
    }
    if !s.pattern.is_empty() {
        match crate::go::regex::compile(&s.pattern) {
            Ok(re) => {
                if !re.is_match(text) {
                    return vec![OaError::new(
                        Code::Other,
                        path,
                        msg(path, &format!("should match '{}'", s.pattern)),
                    )
                    .with_value(BadValue::Str(text.into()))];
                }
            }
            Err(err) => {
                let m = msg(
                    path,
                    &format!(
                        "should match '{}, but pattern is invalid: {}'",
                        s.pattern,
                        crate::go::regex::go_error(&s.pattern, &err)
                    ),
                );
                return vec![
                    OaError::new(Code::Other, path, m).with_value(BadValue::Str(text.into()))
                ];
            }
        }
    }
    vec![]
}

fn number_check(s: &Schema, v: &Value, path: &str) -> Vec<OaError> {
    let mut out = Vec::new();
    let n = match v {
        Value::Number(n) => n,
        _ => return out,
    };
    let int = as_int64(n);
    let f = n.as_f64().unwrap_or(0.0);
    if let Some(factor) = s.multiple_of {
        out.extend(multiple_of::check(s, factor, int, f, path, v));
    }
    if let Some(min) = s.minimum {
        let ex = s.exclusive_minimum;
        let fails = match int {
            Some(i) => (!ex && i < min) || (ex && i <= min),
            None => (!ex && f < min as f64) || (ex && f <= min as f64),
        };
        if fails {
            let bound = if int.is_some() {
                min.to_string()
            } else {
                go_v_float(min as f64)
            };
            let word = if ex {
                "should be greater than"
            } else {
                "should be greater than or equal to"
            };
            out.push(
                OaError::new(Code::Other, path, msg(path, &format!("{word} {bound}")))
                    .with_value(go_value(v)),
            );
        }
    }
    if let Some(max) = s.maximum {
        let ex = s.exclusive_maximum;
        let fails = match int {
            Some(i) => (!ex && i > max) || (ex && i >= max),
            None => (!ex && f > max as f64) || (ex && f >= max as f64),
        };
        if fails {
            let bound = if int.is_some() {
                max.to_string()
            } else {
                go_v_float(max as f64)
            };
            let word = if ex {
                "should be less than"
            } else {
                "should be less than or equal to"
            };
            out.push(
                OaError::new(Code::Other, path, msg(path, &format!("{word} {bound}")))
                    .with_value(go_value(v)),
            );
        }
    }
    out
}

fn slice_check(
    s: &Schema,
    items: &[Value],
    path: &str,
    warnings: &mut Vec<String>,
) -> Vec<OaError> {
    let mut out = Vec::new();
    if let Some(item_schema) = &s.items {
        for (i, item) in items.iter().enumerate() {
            out.extend(validate(
                item_schema,
                item,
                &format!("{path}[{i}]"),
                warnings,
            ));
        }
    }
    let size = items.len() as i64;
    if let Some(min) = s.min_items {
        if size < min {
            out.push(
                OaError::new(
                    Code::Other,
                    path,
                    msg(path, &format!("should have at least {min} items")),
                )
                .with_value(BadValue::Int(size)),
            );
        }
    }
    if let Some(max) = s.max_items {
        if size > max {
            let mut e = OaError::new(
                Code::MaxItems,
                path,
                msg(path, &format!("should have at most {max} items")),
            );
            e.actual = size;
            e.max = max;
            out.push(e);
        }
    }
    if s.unique_items {
        let dup = items
            .iter()
            .enumerate()
            .any(|(i, a)| items[..i].iter().any(|b| go_deep_equal(a, b)));
        if dup {
            out.push(OaError::new(
                Code::Other,
                path,
                msg(path, "shouldn't contain duplicates"),
            ));
        }
    }
    out
}

/// `reflect.DeepEqual` of two decoded values (int64 and float64 differ).
pub fn go_deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (as_int64(x), as_int64(y)) {
            (Some(i), Some(j)) => i == j,
            (None, None) => x.as_f64() == y.as_f64(),
            _ => false,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| go_deep_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, p)| y.get(k).is_some_and(|q| go_deep_equal(p, q)))
        }
        _ => a == b,
    }
}

/// Enum membership with kube-openapi's conversion rule: a value matches when it equals an
/// allowed value after conversion to that value's Go type (a float64 data converted to an
/// int64 enum value truncates).
fn enum_matches(data: &Value, allowed: &Value) -> bool {
    if go_deep_equal(data, allowed) {
        return true;
    }
    match (data, allowed) {
        (Value::Number(d), Value::Number(a)) => match (as_int64(d), as_int64(a)) {
            (None, Some(ai)) => {
                let f = d.as_f64().unwrap_or(f64::NAN);
                f.is_finite() && f.trunc() as i64 == ai
            }
            (Some(di), None) => a.as_f64() == Some(di as f64),
            _ => false,
        },
        _ => false,
    }
}

fn enum_check(s: &Schema, v: &Value, path: &str) -> Vec<OaError> {
    if s.enum_.is_empty() || (!v.is_null() && s.enum_.iter().any(|a| enum_matches(v, a))) {
        return vec![];
    }
    let shown: Vec<String> = s
        .enum_
        .iter()
        .map(|a| match a {
            Value::String(t) => t.clone(),
            other => marshal(other),
        })
        .collect();
    let mut e = OaError::new(
        Code::Enum,
        path,
        msg(path, &format!("should be one of [{}]", shown.join(" "))),
    )
    .with_value(go_value(v));
    e.enum_values = shown;
    vec![e]
}

fn object_check(
    s: &Schema,
    map: &serde_json::Map<String, Value>,
    path: &str,
    warnings: &mut Vec<String>,
) -> Vec<OaError> {
    let mut out = Vec::new();
    let n = map.len() as i64;
    if let Some(min) = s.min_properties {
        if n < min {
            out.push(
                OaError::new(
                    Code::Other,
                    path,
                    msg(path, &format!("should have at least {min} properties")),
                )
                .with_value(BadValue::Int(n)),
            );
        }
    }
    if let Some(max) = s.max_properties {
        if n > max {
            let mut e = OaError::new(
                Code::TooManyProperties,
                path,
                msg(path, &format!("should have at most {max} properties")),
            );
            e.actual = n;
            e.max = max;
            out.push(e);
        }
    }
    if let Some(ap) = &s.additional_properties {
        for (k, item) in map {
            if !s.properties.contains_key(k) {
                out.extend(validate(ap, item, &format!("{path}.{k}"), warnings));
            }
        }
    }
    for (k, ps) in &s.properties {
        if let Some(item) = map.get(k) {
            let name = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            out.extend(validate(ps, item, &name, warnings));
        }
    }
    for r in &s.required {
        if !map.contains_key(r) {
            let name = format!("{path}.{r}");
            out.push(OaError::new(
                Code::Required,
                &name,
                msg(&name, "is required"),
            ));
        }
    }
    out
}

/// Go's printed form of a decoded value as a bad value (`%v` scalars, `%q` strings,
/// `%#v` lists and maps).
pub fn go_value(v: &Value) -> BadValue {
    match v {
        Value::Null => BadValue::Null,
        Value::Bool(b) => BadValue::Bool(*b),
        Value::String(s) => BadValue::Str(s.clone()),
        Value::Number(n) => match as_int64(n) {
            Some(i) => BadValue::Int(i),
            None => BadValue::Float(n.as_f64().unwrap_or(0.0)),
        },
        other => BadValue::Versioned {
            before_v033: Box::new(BadValue::GoSyntax(super::field_error::go_sharp_v(other))),
            since_v033: Box::new(BadValue::Json(crate::go::json::marshal(other))),
        },
    }
}

/// `kubeOpenAPIResultToFieldErrors` plus CAPI's fix-ups for variable values (`raw` set):
/// every error's bad value is the variable's raw JSON and a leading ` in body ` is
/// trimmed from the detail. Without `raw` (ClusterClass example/enum checks) the errors
/// keep kube-openapi's values and texts.
pub fn to_field_errors(errs: &[OaError], fld_path: &str, raw: Option<&str>) -> Vec<FieldError> {
    errs.iter()
        .map(|e| {
            let bad = || match raw {
                Some(r) => BadValue::Str(r.to_string()),
                None => e.value.clone(),
            };
            if e.code == Code::Composite {
                return FieldError::invalid(fld_path, bad(), e.message.clone());
            }
            let path = match e.name.as_str() {
                "" | "." => fld_path.to_string(),
                n => format!("{fld_path}.{}", n.strip_prefix('.').unwrap_or(n)),
            };
            let detail = match raw {
                Some(_) => e
                    .message
                    .strip_prefix(" in body ")
                    .unwrap_or(&e.message)
                    .to_string(),
                None => e.message.clone(),
            };
            let mut fe = match e.code {
                Code::Required => FieldError::required(&path, ""),
                Code::Enum => FieldError::not_supported(&path, bad(), &e.enum_values),
                Code::TooLong => FieldError::too_long(&path, e.max),
                Code::MaxItems | Code::TooManyProperties => {
                    FieldError::too_many(&path, e.actual, e.max)
                }
                Code::InvalidType => FieldError::new(
                    super::field_error::ErrorType::TypeInvalid,
                    &path,
                    bad(),
                    detail,
                ),
                _ => FieldError::invalid(&path, bad(), detail),
            };
            if raw.is_some() {
                fe.bad_value = bad();
            }
            fe
        })
        .collect()
}

/// The field errors `schema` gives for `v`, as text (shared by the validators' tests).
#[cfg(test)]
pub(crate) fn test_errors(schema: Value, v: Value) -> Vec<String> {
    let s = Schema::from_value(&schema, "s").unwrap();
    let mut w = vec![];
    let oa = validate(&s, &v, "", &mut w);
    to_field_errors(&oa, "v", Some(&marshal(&v)))
        .iter()
        .map(|e| e.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errs(schema: Value, v: Value) -> Vec<String> {
        test_errors(schema, v)
    }

    #[test]
    fn type_errors() {
        assert_eq!(
            errs(json!({"type": "integer"}), json!("x")),
            vec![r#"v: Invalid value: "\"x\"": must be of type integer: "string""#]
        );
        assert_eq!(
            errs(json!({"type": "integer"}), json!(1.5)),
            vec![r#"v: Invalid value: "1.5": must be of type integer: "number""#]
        );
        assert!(errs(json!({"type": "number"}), json!(2.0)).is_empty());
        assert!(errs(json!({"x-kubernetes-int-or-string": true}), json!("a")).is_empty());
        assert_eq!(
            errs(json!({"x-kubernetes-int-or-string": true}), json!(true)),
            vec![r#"v: Invalid value: "true": must be of type integer,string: "boolean""#]
        );
    }

    #[test]
    fn bounds_and_lengths() {
        assert_eq!(
            errs(json!({"type": "integer", "maximum": 5}), json!(7.0)),
            vec![r#"v: Invalid value: "7": should be less than or equal to 5"#]
        );
        assert_eq!(
            errs(
                json!({"type": "integer", "minimum": 5, "exclusiveMinimum": true}),
                json!(5.0)
            ),
            vec![r#"v: Invalid value: "5": should be greater than 5"#]
        );
        assert_eq!(
            errs(
                json!({"properties": {"a": {"type": "string", "maxLength": 3, "minLength": 1}}}),
                json!({"a": "abcd"})
            ),
            vec!["v.a: Too long: may not be more than 3 bytes"]
        );
        assert_eq!(
            errs(
                json!({"properties": {"a": {"type": "string", "minLength": 2}}}),
                json!({"a": "x"})
            ),
            vec![
                r#"v.a: Invalid value: "{\"a\":\"x\"}": a in body should be at least 2 chars long"#
            ]
        );
    }

    #[test]
    fn arrays_and_objects() {
        assert_eq!(
            errs(
                json!({"type": "array", "maxItems": 1, "uniqueItems": true}),
                json!([1.0, 1.0])
            ),
            vec![
                r#"v: Too many: "[1,1]": must have at most 1 items"#,
                r#"v: Invalid value: "[1,1]": shouldn't contain duplicates"#
            ]
        );
        assert_eq!(
            errs(
                json!({"type": "array", "items": {"type": "object", "required": ["n"]}}),
                json!([{}])
            ),
            vec!["v.[0].n: Required value"]
        );
        assert_eq!(
            errs(json!({"type": "object", "required": ["n"]}), json!({})),
            vec!["v.n: Required value"]
        );
        assert_eq!(
            errs(
                json!({"type": "object", "additionalProperties": {"type": "integer"}}),
                json!({"k": "x"})
            ),
            vec![
                r#"v.k: Invalid value: "{\"k\":\"x\"}": .k in body must be of type integer: "string""#
            ]
        );
    }

    #[test]
    fn enum_and_pattern() {
        assert_eq!(
            errs(json!({"type": "string", "enum": ["a", "b"]}), json!("c")),
            vec![r#"v: Unsupported value: "\"c\"": supported values: "a", "b""#]
        );
        assert!(errs(json!({"type": "integer", "enum": [1, 2]}), json!(2.0)).is_empty());
        assert_eq!(
            errs(json!({"type": "string", "pattern": "^a+$"}), json!("b")),
            vec![r#"v: Invalid value: "\"b\"": should match '^a+$'"#]
        );
    }

    #[test]
    fn null_values() {
        assert_eq!(
            errs(json!({"type": "string"}), json!(null)),
            vec![r#"v: Invalid value: "null": must be of type string: "null""#]
        );
        assert!(errs(json!({}), json!(null)).is_empty());
    }
}
