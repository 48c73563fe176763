//! Structural defaulting (apiextensions `structuraldefaulting.Default`) of variable
//! values, and CAPI's `DefaultClusterVariables` / `DefaultMachineVariables` over a list
//! of variables (internal/topology/variables/cluster_variable_defaulting.go).

use serde_json::{json, Value};

use super::field_error::{key, BadValue, FieldError};
use super::index::{raw_value, values_index, Definitions};
use super::schema::Schema;

/// Fills defaults into `x` in place: for an object, every property with a default that
/// is absent (or null) gets a copy of it; then every property (and additional property)
/// is defaulted recursively, including the copies. Array items likewise. Scalars and
/// values without a schema are left alone.
pub fn apply_defaults(x: &mut Value, s: &Schema) {
    match x {
        Value::Object(map) => {
            for (k, prop) in &s.properties {
                if let Some(d) = &prop.default {
                    if map.get(k).is_none_or(Value::is_null) {
                        map.insert(k.clone(), d.clone());
                    }
                }
            }
            for (k, v) in map.iter_mut() {
                if let Some(prop) = s.properties.get(k) {
                    apply_defaults(v, prop);
                } else if let Some(ap) = &s.additional_properties {
                    if v.is_null() {
                        *v = ap.default.clone().unwrap_or(Value::Null);
                    }
                    apply_defaults(v, ap);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = &s.items {
                for v in items.iter_mut() {
                    if v.is_null() {
                        *v = item_schema.default.clone().unwrap_or(Value::Null);
                    }
                    apply_defaults(v, item_schema);
                }
            }
        }
        _ => {}
    }
}

/// Defaults one variable: `current` is the user's value (`None` when the variable is
/// not set). Returns the defaulted value, or `None` when nothing is created.
pub fn default_value(current: Option<&Value>, s: &Schema, create: bool) -> Option<Value> {
    if current.is_none() && (!create || s.default.is_none()) {
        return None;
    }
    // The wrapper object {name: value} with the variable schema as its only property.
    let mut v = current.cloned().unwrap_or(Value::Null);
    if v.is_null() {
        if let Some(d) = &s.default {
            v = d.clone();
        }
    }
    apply_defaults(&mut v, s);
    Some(v)
}

/// `defaultClusterVariables`: the given variables in order (defaulted), then, when
/// `create` is set, the defined variables that are absent but have a top-level default,
/// in definition (alphabetical) order. Errors are field errors under `fld_path`.
pub fn default_variables(
    values: &[Value],
    definitions: &Definitions,
    create: bool,
    fld_path: &str,
) -> Result<Vec<Value>, Vec<FieldError>> {
    let index = values_index(values, fld_path)?;
    let defs = definitions.index(fld_path)?;
    let mut names: Vec<(String, Option<&Value>)> = values
        .iter()
        .map(|v| {
            (
                v.get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                Some(v),
            )
        })
        .collect();
    for name in &definitions.names {
        if !index.contains_key(name.as_str()) {
            names.push((name.to_string(), None));
        }
    }
    let mut errs = Vec::new();
    let mut out = Vec::new();
    for (name, given) in names {
        let path = key(fld_path, &name);
        let Some(def) = defs.get(name.as_str()) else {
            errs.push(FieldError::invalid(
                &path,
                BadValue::Str(raw_value(given)),
                "variable is not defined",
            ));
            continue;
        };
        let current = given.map(|v| v.get("value").cloned().unwrap_or(Value::Null));
        let schema = &def.schema;
        if let Some(v) = default_value(current.as_ref(), schema, create) {
            out.push(json!({"name": name, "value": v}));
        }
    }
    if errs.is_empty() {
        Ok(out)
    } else {
        Err(errs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(v: Value) -> Schema {
        Schema::from_value(&v, "s").unwrap()
    }

    #[test]
    fn nested_defaults_apply_where_the_parent_exists() {
        let s = schema(json!({"type": "object", "properties": {
            "a": {"type": "string", "default": "x"},
            "b": {"type": "object", "properties": {"c": {"type": "integer", "default": 3}}},
            "d": {"type": "object", "default": {}, "properties": {"e": {"type": "boolean", "default": true}}}
        }}));
        let mut v = json!({});
        apply_defaults(&mut v, &s);
        assert_eq!(v, json!({"a": "x", "d": {"e": true}}));
        let mut v = json!({"b": {}, "a": null});
        apply_defaults(&mut v, &s);
        assert_eq!(v, json!({"a": "x", "b": {"c": 3}, "d": {"e": true}}));
    }

    #[test]
    fn items_and_additional_properties() {
        let s = schema(
            json!({"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer", "default": 1}}}}),
        );
        let mut v = json!([{}, {"n": 5}]);
        apply_defaults(&mut v, &s);
        assert_eq!(v, json!([{"n": 1}, {"n": 5}]));
        let s = schema(
            json!({"type": "object", "additionalProperties": {"type": "object", "properties": {"p": {"type": "string", "default": "q"}}}}),
        );
        let mut v = json!({"k": {}});
        apply_defaults(&mut v, &s);
        assert_eq!(v, json!({"k": {"p": "q"}}));
    }

    #[test]
    fn top_level_default_creates_only_when_asked() {
        let s = schema(json!({"type": "string", "default": "d"}));
        assert_eq!(default_value(None, &s, true), Some(json!("d")));
        assert_eq!(default_value(None, &s, false), None);
        assert_eq!(
            default_value(Some(&json!(null)), &s, false),
            Some(json!("d"))
        );
        assert_eq!(
            default_value(None, &schema(json!({"type": "string"})), true),
            None
        );
    }

    fn status(name: &str, s: Value) -> Value {
        json!({"name": name, "definitionsConflict": false, "definitions": [{"from": "inline", "required": false, "schema": {"openAPIV3Schema": s}}]})
    }

    #[test]
    fn variable_lists_keep_user_order_then_definitions() {
        let defs = vec![
            status("a", json!({"type": "string", "default": "A"})),
            status("b", json!({"type": "string"})),
            status("z", json!({"type": "integer", "default": 1})),
        ];
        let values = vec![
            json!({"name": "z", "value": 4}),
            json!({"name": "b", "value": "B"}),
        ];
        let out = default_variables(
            &values,
            &Definitions::new(&defs),
            true,
            "spec.topology.variables",
        )
        .unwrap();
        assert_eq!(
            out,
            vec![
                json!({"name": "z", "value": 4}),
                json!({"name": "b", "value": "B"}),
                json!({"name": "a", "value": "A"})
            ]
        );
        let out = default_variables(&values, &Definitions::new(&defs), false, "p").unwrap();
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn undefined_variables_are_errors() {
        let defs = vec![status("a", json!({"type": "string"}))];
        let errs = default_variables(
            &[json!({"name": "x", "value": 1})],
            &Definitions::new(&defs),
            true,
            "spec.topology.variables",
        )
        .unwrap_err();
        assert_eq!(
            errs[0].to_string(),
            "spec.topology.variables[x]: Invalid value: \"1\": variable is not defined"
        );
    }
}
