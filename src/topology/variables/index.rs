//! CAPI's variable indexes (internal/topology/variables/utils.go): values by name
//! (no `definitionFrom`, no duplicates) and status definitions by name (at least one
//! definition, no conflict).

use crate::go::quote::quote as go_q;
use crate::model::pointer::Pointer as _;
use std::collections::BTreeMap;

use serde_json::Value;

use super::field_error::{key, BadValue, ErrorType, FieldError};
use super::schema::Schema;
use crate::go::json::marshal;

/// `string(value.Value.Raw)`: the compact JSON of a variable's value, "" when there is no
/// `value` key. A user's `value: null` decodes to no raw bytes in Go as well; callers
/// model that by dropping the key (see `strip_null_values`), while a null written by
/// defaulting is the raw text `null`.
pub fn raw_value(variable: Option<&Value>) -> String {
    match variable.and_then(|v| v.get("value")) {
        None => String::new(),
        Some(v) => marshal(v),
    }
}

/// A list as Go decodes user input: `value: null` has no raw bytes.
pub fn strip_null_values(values: &[Value]) -> Vec<Value> {
    values
        .iter()
        .map(|v| {
            let mut v = v.clone();
            if let Some(m) = v.as_object_mut() {
                if m.get("value").is_some_and(Value::is_null) {
                    m.remove("value");
                }
            }
            v
        })
        .collect()
}

fn name_of(v: &Value) -> &str {
    v.get("name").and_then(Value::as_str).unwrap_or("")
}

/// `newValuesIndex`.
pub fn values_index<'a>(
    values: &'a [Value],
    fld_path: &str,
) -> Result<BTreeMap<&'a str, &'a Value>, Vec<FieldError>> {
    let mut map = BTreeMap::new();
    let mut errs = Vec::new();
    for v in values {
        let name = name_of(v);
        let from = v
            .get("definitionFrom")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !from.is_empty() {
            errs.push(FieldError::invalid(
                &key(fld_path, name),
                BadValue::Str(raw_value(Some(v))),
                format!("variable {} has DefinitionFrom set. DefinitionFrom is deprecated, must not be set anymore and is going to be removed in the next apiVersion", go_q(name)),
            ));
        }
        if map.contains_key(name) {
            errs.push(FieldError::invalid(
                &key(fld_path, name),
                BadValue::Str(raw_value(Some(v))),
                format!("variable {} is set more than once", go_q(name)),
            ));
        }
        map.insert(name, v);
    }
    if errs.is_empty() {
        Ok(map)
    } else {
        Err(errs)
    }
}

/// A variable's (first) definition from `status.variables`.
#[derive(Debug, Clone)]
pub struct Definition {
    pub name: String,
    pub required: bool,
    pub from: String,
    pub schema: Schema,
}

/// A ClusterClass's status definitions with their index (`newDefinitionsIndex`),
/// built once for all the variable lists of a Cluster: the schemas are read once, not
/// once per list for defaulting and again for validation.
/// Owned, so that a prepared ClusterClass holds it for all its Clusters.
pub struct Definitions {
    /// The definitions' names, in the list's order.
    pub names: Vec<String>,
    /// The index, or what is wrong with the definitions.
    index: Result<BTreeMap<String, Definition>, Vec<String>>,
}

impl Definitions {
    pub fn new(list: &[Value]) -> Definitions {
        Definitions {
            names: list.iter().map(|d| name_of(d).to_string()).collect(),
            index: index_definitions(list),
        }
    }

    /// `newDefinitionsIndex` for the list at `fld_path` (where an error is reported).
    pub fn index(&self, fld_path: &str) -> Result<&BTreeMap<String, Definition>, Vec<FieldError>> {
        let problems = match &self.index {
            Ok(map) => return Ok(map),
            Err(p) => p,
        };
        let names: Vec<String> = self.names.iter().map(|n| format!("Name: {n}")).collect();
        let agg = crate::go::errors::aggregate(problems.clone());
        Err(vec![FieldError::new(
            ErrorType::TypeInvalid,
            fld_path,
            BadValue::Str(format!("[{}]", names.join(","))),
            format!("variable definitions in the ClusterClass not valid: {agg}"),
        )])
    }
}

/// The definitions by name, or the problems found (in order).
fn index_definitions(definitions: &[Value]) -> Result<BTreeMap<String, Definition>, Vec<String>> {
    let mut map = BTreeMap::new();
    let mut problems = Vec::new();
    for d in definitions {
        let name = name_of(d).to_string();
        let defs = d
            .get("definitions")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        if defs.is_empty() {
            problems.push(format!("variable {} has no definitions", go_q(&name)));
        }
        if d.get("definitionsConflict")
            .and_then(Value::as_bool)
            .unwrap_or(false)
        {
            problems.push(format!(
                "variable {} has conflicting definitions",
                go_q(&name)
            ));
        }
        if let Some(first) = defs.first() {
            let schema = match first.ptr("/schema/openAPIV3Schema") {
                Some(s) => match Schema::from_value(
                    s,
                    &format!("status.variables[{name}].schema.openAPIV3Schema"),
                ) {
                    Ok(s) => s,
                    Err(e) => {
                        problems.push(e.message().to_string());
                        Schema::default()
                    }
                },
                None => Schema::default(),
            };
            map.insert(
                name.clone(),
                Definition {
                    name: name.clone(),
                    required: first
                        .get("required")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                    from: first
                        .get("from")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    schema,
                },
            );
        }
    }
    if problems.is_empty() {
        Ok(map)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn duplicate_and_definition_from() {
        let values = vec![
            json!({"name": "a", "value": 1}),
            json!({"name": "a", "value": 2, "definitionFrom": "p"}),
        ];
        let errs = values_index(&values, "v").unwrap_err();
        let texts: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
        assert_eq!(texts, vec![
            "v[a]: Invalid value: \"2\": variable \"a\" has DefinitionFrom set. DefinitionFrom is deprecated, must not be set anymore and is going to be removed in the next apiVersion",
            "v[a]: Invalid value: \"2\": variable \"a\" is set more than once",
        ]);
    }

    #[test]
    fn conflicting_definitions() {
        let defs = vec![
            json!({"name": "a", "definitionsConflict": true, "definitions": [{"from": "inline"}]}),
            json!({"name": "b", "definitions": []}),
        ];
        let errs = Definitions::new(&defs).index("v").unwrap_err();
        assert_eq!(
            errs[0].to_string(),
            "v: Invalid value: \"[Name: a,Name: b]\": variable definitions in the ClusterClass not valid: [variable \"a\" has conflicting definitions, variable \"b\" has no definitions]"
        );
    }

    #[test]
    fn raw_values() {
        assert_eq!(raw_value(Some(&json!({"name": "a"}))), "");
        assert_eq!(
            raw_value(Some(&json!({"name": "a", "value": null}))),
            "null"
        );
        let stripped = strip_null_values(&[json!({"name": "a", "value": null})]);
        assert_eq!(raw_value(stripped.first()), "");
        assert_eq!(
            raw_value(Some(&json!({"name": "a", "value": {"b": [1.0]}}))),
            "{\"b\":[1]}"
        );
    }
}
