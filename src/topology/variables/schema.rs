//! The ClusterClass variable schema (v1beta1 `JSONSchemaProps`, the fields CAPI's type
//! keeps) read from a JSON value, and its typed form: what a Go round trip through
//! `clusterv1.JSONSchemaProps` leaves (unknown keys such as `x-kubernetes-list-type`
//! dropped, `false`/empty values omitted).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::go::json::as_int64;

/// One `x-kubernetes-validations` rule.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ValidationRule {
    pub rule: String,
    pub message: String,
    pub message_expression: String,
    pub reason: String,
    pub field_path: String,
}

/// `clusterv1.JSONSchemaProps`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Schema {
    pub description: String,
    pub example: Option<Value>,
    pub type_: String,
    pub properties: BTreeMap<String, Schema>,
    pub additional_properties: Option<Box<Schema>>,
    pub max_properties: Option<i64>,
    pub min_properties: Option<i64>,
    pub required: Vec<String>,
    pub items: Option<Box<Schema>>,
    pub max_items: Option<i64>,
    pub min_items: Option<i64>,
    pub unique_items: bool,
    pub format: String,
    pub max_length: Option<i64>,
    pub min_length: Option<i64>,
    pub pattern: String,
    pub maximum: Option<i64>,
    pub exclusive_maximum: bool,
    pub minimum: Option<i64>,
    pub exclusive_minimum: bool,
    pub preserve_unknown_fields: bool,
    /// `nullable` (CRD schemas: a null is kept rather than pruned).
    pub nullable: bool,
    pub enum_: Vec<Value>,
    pub default: Option<Value>,
    pub validations: Vec<ValidationRule>,
    pub x_metadata: Option<Value>,
    pub int_or_string: bool,
    pub all_of: Vec<Schema>,
    pub one_of: Vec<Schema>,
    pub any_of: Vec<Schema>,
    pub not: Option<Box<Schema>>,
    /// CRD schemas only ([`Schema::from_crd_value`]; Cluster API's JSONSchemaProps has
    /// neither): `multipleOf`.
    pub multiple_of: Option<f64>,
    /// CRD schemas only: `x-kubernetes-embedded-resource` (an object with implicit
    /// `apiVersion`, `kind` and ObjectMeta `metadata`).
    pub embedded_resource: bool,
}

fn str_field(m: &Map<String, Value>, k: &str, path: &str) -> Result<String> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(Error::new(format!("{path}.{k}: expected a string"))),
    }
}

fn bool_field(m: &Map<String, Value>, k: &str, path: &str) -> Result<bool> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(Error::new(format!("{path}.{k}: expected a boolean"))),
    }
}

fn int_field(m: &Map<String, Value>, k: &str, path: &str) -> Result<Option<i64>> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => as_int64(n)
            .map(Some)
            .ok_or_else(|| Error::new(format!("{path}.{k}: expected an integer"))),
        Some(_) => Err(Error::new(format!("{path}.{k}: expected an integer"))),
    }
}

fn schema_list(m: &Map<String, Value>, k: &str, path: &str) -> Result<Vec<Schema>> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(vec![]),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, s)| Schema::from_value(s, &format!("{path}.{k}[{i}]")))
            .collect(),
        Some(_) => Err(Error::new(format!("{path}.{k}: expected a list"))),
    }
}

fn schema_box(m: &Map<String, Value>, k: &str, path: &str) -> Result<Option<Box<Schema>>> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => Ok(Some(Box::new(Schema::from_value(
            v,
            &format!("{path}.{k}"),
        )?))),
    }
}

/// The CRD-only keywords of `raw` into `s` and its subschemas.
fn crd_extras(s: &mut Schema, raw: &Value) {
    s.multiple_of = raw.get("multipleOf").and_then(Value::as_f64);
    s.embedded_resource = raw
        .get("x-kubernetes-embedded-resource")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if let Some(Value::Object(props)) = raw.get("properties") {
        for (k, sub) in s.properties.iter_mut() {
            if let Some(r) = props.get(k) {
                crd_extras(sub, r);
            }
        }
    }
    for (k, sub) in [
        ("items", s.items.as_deref_mut()),
        (
            "additionalProperties",
            s.additional_properties.as_deref_mut(),
        ),
        ("not", s.not.as_deref_mut()),
    ] {
        if let (Some(sub), Some(r)) = (sub, raw.get(k)) {
            crd_extras(sub, r);
        }
    }
    for (k, list) in [
        ("allOf", &mut s.all_of),
        ("oneOf", &mut s.one_of),
        ("anyOf", &mut s.any_of),
    ] {
        if let Some(Value::Array(rs)) = raw.get(k) {
            for (sub, r) in list.iter_mut().zip(rs) {
                crd_extras(sub, r);
            }
        }
    }
}

impl Schema {
    /// A CRD's `openAPIV3Schema`: [`Schema::from_value`] plus what a CRD schema has
    /// and a ClusterClass variable's does not (`multipleOf`,
    /// `x-kubernetes-embedded-resource`).
    pub fn from_crd_value(v: &Value, path: &str) -> Result<Schema> {
        let mut s = Schema::from_value(v, path)?;
        crd_extras(&mut s, v);
        Ok(s)
    }

    /// Reads a schema object; `path` names it in errors.
    pub fn from_value(v: &Value, path: &str) -> Result<Schema> {
        let m = v
            .as_object()
            .ok_or_else(|| Error::new(format!("{path}: expected an object")))?;
        let mut s = Schema {
            description: str_field(m, "description", path)?,
            example: m.get("example").filter(|v| !v.is_null()).cloned(),
            type_: str_field(m, "type", path)?,
            additional_properties: schema_box(m, "additionalProperties", path)?,
            max_properties: int_field(m, "maxProperties", path)?,
            min_properties: int_field(m, "minProperties", path)?,
            items: schema_box(m, "items", path)?,
            max_items: int_field(m, "maxItems", path)?,
            min_items: int_field(m, "minItems", path)?,
            unique_items: bool_field(m, "uniqueItems", path)?,
            format: str_field(m, "format", path)?,
            max_length: int_field(m, "maxLength", path)?,
            min_length: int_field(m, "minLength", path)?,
            pattern: str_field(m, "pattern", path)?,
            maximum: int_field(m, "maximum", path)?,
            exclusive_maximum: bool_field(m, "exclusiveMaximum", path)?,
            minimum: int_field(m, "minimum", path)?,
            exclusive_minimum: bool_field(m, "exclusiveMinimum", path)?,
            preserve_unknown_fields: bool_field(m, "x-kubernetes-preserve-unknown-fields", path)?,
            nullable: bool_field(m, "nullable", path)?,
            default: m.get("default").filter(|v| !v.is_null()).cloned(),
            x_metadata: m.get("x-metadata").filter(|v| !v.is_null()).cloned(),
            int_or_string: bool_field(m, "x-kubernetes-int-or-string", path)?,
            all_of: schema_list(m, "allOf", path)?,
            one_of: schema_list(m, "oneOf", path)?,
            any_of: schema_list(m, "anyOf", path)?,
            not: schema_box(m, "not", path)?,
            ..Schema::default()
        };
        if let Some(p) = m.get("properties").filter(|v| !v.is_null()) {
            let pm = p
                .as_object()
                .ok_or_else(|| Error::new(format!("{path}.properties: expected an object")))?;
            for (k, ps) in pm {
                s.properties.insert(
                    k.clone(),
                    Schema::from_value(ps, &format!("{path}.properties[{k}]"))?,
                );
            }
        }
        if let Some(Value::Array(req)) = m.get("required") {
            for r in req {
                if let Some(r) = r.as_str() {
                    s.required.push(r.to_string());
                }
            }
        }
        if let Some(Value::Array(en)) = m.get("enum") {
            s.enum_ = en.clone();
        }
        if let Some(Value::Array(rules)) = m.get("x-kubernetes-validations") {
            for (i, r) in rules.iter().enumerate() {
                let rp = format!("{path}.x-kubernetes-validations[{i}]");
                let rm = r
                    .as_object()
                    .ok_or_else(|| Error::new(format!("{rp}: expected an object")))?;
                s.validations.push(ValidationRule {
                    rule: str_field(rm, "rule", &rp)?,
                    message: str_field(rm, "message", &rp)?,
                    message_expression: str_field(rm, "messageExpression", &rp)?,
                    reason: str_field(rm, "reason", &rp)?,
                    field_path: str_field(rm, "fieldPath", &rp)?,
                });
            }
        }
        Ok(s)
    }

    /// The JSON a Go round trip through the typed struct produces.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        let s = |m: &mut Map<String, Value>, k: &str, v: &str| {
            if !v.is_empty() {
                m.insert(k.into(), Value::String(v.into()));
            }
        };
        let i = |m: &mut Map<String, Value>, k: &str, v: Option<i64>| {
            if let Some(v) = v {
                m.insert(k.into(), Value::from(v));
            }
        };
        let b = |m: &mut Map<String, Value>, k: &str, v: bool| {
            if v {
                m.insert(k.into(), Value::Bool(true));
            }
        };
        let list = |m: &mut Map<String, Value>, k: &str, v: &[Schema]| {
            if !v.is_empty() {
                m.insert(
                    k.into(),
                    Value::Array(v.iter().map(Schema::to_value).collect()),
                );
            }
        };
        s(&mut m, "description", &self.description);
        if let Some(e) = &self.example {
            m.insert("example".into(), e.clone());
        }
        s(&mut m, "type", &self.type_);
        if !self.properties.is_empty() {
            let p: Map<String, Value> = self
                .properties
                .iter()
                .map(|(k, v)| (k.clone(), v.to_value()))
                .collect();
            m.insert("properties".into(), Value::Object(p));
        }
        if let Some(a) = &self.additional_properties {
            m.insert("additionalProperties".into(), a.to_value());
        }
        i(&mut m, "maxProperties", self.max_properties);
        i(&mut m, "minProperties", self.min_properties);
        if !self.required.is_empty() {
            m.insert("required".into(), Value::from(self.required.clone()));
        }
        if let Some(it) = &self.items {
            m.insert("items".into(), it.to_value());
        }
        i(&mut m, "maxItems", self.max_items);
        i(&mut m, "minItems", self.min_items);
        b(&mut m, "uniqueItems", self.unique_items);
        s(&mut m, "format", &self.format);
        i(&mut m, "maxLength", self.max_length);
        i(&mut m, "minLength", self.min_length);
        s(&mut m, "pattern", &self.pattern);
        i(&mut m, "maximum", self.maximum);
        b(&mut m, "exclusiveMaximum", self.exclusive_maximum);
        i(&mut m, "minimum", self.minimum);
        b(&mut m, "exclusiveMinimum", self.exclusive_minimum);
        b(
            &mut m,
            "x-kubernetes-preserve-unknown-fields",
            self.preserve_unknown_fields,
        );
        if !self.enum_.is_empty() {
            m.insert("enum".into(), Value::Array(self.enum_.clone()));
        }
        if let Some(d) = &self.default {
            m.insert("default".into(), d.clone());
        }
        if !self.validations.is_empty() {
            let rules = self
                .validations
                .iter()
                .map(|r| {
                    let mut rm = Map::new();
                    rm.insert("rule".into(), Value::String(r.rule.clone()));
                    s(&mut rm, "message", &r.message);
                    s(&mut rm, "messageExpression", &r.message_expression);
                    s(&mut rm, "reason", &r.reason);
                    s(&mut rm, "fieldPath", &r.field_path);
                    Value::Object(rm)
                })
                .collect();
            m.insert("x-kubernetes-validations".into(), Value::Array(rules));
        }
        if let Some(x) = &self.x_metadata {
            m.insert("x-metadata".into(), x.clone());
        }
        b(&mut m, "x-kubernetes-int-or-string", self.int_or_string);
        list(&mut m, "allOf", &self.all_of);
        list(&mut m, "oneOf", &self.one_of);
        list(&mut m, "anyOf", &self.any_of);
        if let Some(n) = &self.not {
            m.insert("not".into(), n.to_value());
        }
        Value::Object(m)
    }

    /// Whether this schema or any nested one has `x-kubernetes-validations`.
    pub fn has_validations(&self) -> bool {
        !self.validations.is_empty()
            || self.properties.values().any(Schema::has_validations)
            || self
                .additional_properties
                .as_deref()
                .is_some_and(Schema::has_validations)
            || self.items.as_deref().is_some_and(Schema::has_validations)
            || self.all_of.iter().any(Schema::has_validations)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_and_writes_the_typed_subset() {
        let v = json!({
            "type": "object",
            "x-kubernetes-list-type": "atomic",
            "uniqueItems": false,
            "properties": {"a": {"type": "integer", "minimum": 1.0, "default": 2.0}},
            "required": ["a"],
            "x-kubernetes-validations": [{"rule": "self.a > 0", "message": "m"}]
        });
        let s = Schema::from_value(&v, "schema").unwrap();
        assert_eq!(s.properties["a"].minimum, Some(1));
        assert_eq!(s.validations[0].rule, "self.a > 0");
        assert_eq!(
            s.to_value(),
            json!({
                "type": "object",
                "properties": {"a": {"type": "integer", "minimum": 1, "default": 2.0}},
                "required": ["a"],
                "x-kubernetes-validations": [{"rule": "self.a > 0", "message": "m"}]
            })
        );
    }

    #[test]
    fn rejects_a_fractional_minimum_and_wrong_types() {
        assert!(Schema::from_value(&json!({"minimum": 1.5}), "s").is_err());
        assert!(Schema::from_value(&json!({"type": 3}), "s").is_err());
        assert!(Schema::from_value(&json!("x"), "s").is_err());
    }

    #[test]
    fn finds_nested_validations() {
        let s = Schema::from_value(
            &json!({"items": {"x-kubernetes-validations": [{"rule": "true"}]}}),
            "s",
        )
        .unwrap();
        assert!(s.has_validations());
        assert!(!Schema::default().has_validations());
    }
}
