//! `ClusterClass.status.variables` from `spec.variables`, as the ClusterClass reconciler
//! computes it (internal/controllers/clusterclass `reconcileVariables`): one entry per
//! name, a single `from: inline` definition, sorted by name. Definitions of one name from
//! several sources are appended and flagged `definitionsConflict` when they differ.

use crate::model::pointer::Pointer as _;
use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::schema::Schema;
use crate::error::{Error, Result};

/// `clusterv1.VariableDefinitionFromInline`.
pub const FROM_INLINE: &str = "inline";

/// One status definition (`ClusterClassStatusVariableDefinition`) built from a
/// `spec.variables[]` entry, in the typed form.
pub fn definition(variable: &Value, from: &str, path: &str) -> Result<Value> {
    let required = match variable.get("required") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(Error::new(format!("{path}.required: expected a boolean"))),
    };
    let schema = variable
        .ptr("/schema/openAPIV3Schema")
        .map(|s| Schema::from_value(s, &format!("{path}.schema.openAPIV3Schema")))
        .transpose()?
        .unwrap_or_default();
    Ok(json!({
        "from": from,
        "required": required,
        // v1beta2 renamed the variable's `metadata` to `deprecatedV1Beta1Metadata`.
        "metadata": typed_metadata(variable.get("metadata").or(variable.get("deprecatedV1Beta1Metadata"))),
        "schema": {"openAPIV3Schema": schema.to_value()},
    }))
}

/// `ClusterClassVariableMetadata` after a typed round trip (only labels/annotations, empty maps dropped).
fn typed_metadata(m: Option<&Value>) -> Value {
    let mut out = Map::new();
    for k in ["labels", "annotations"] {
        if let Some(Value::Object(o)) = m.and_then(|m| m.get(k)) {
            if !o.is_empty() {
                out.insert(k.to_string(), Value::Object(o.clone()));
            }
        }
    }
    Value::Object(out)
}

/// Adds a definition to a status variable; sets `definitionsConflict` when it differs
/// from the first definition in required, schema or metadata.
pub fn add_definition(status_variable: &mut Value, def: Value) {
    let conflict = status_variable
        .get("definitionsConflict")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let differs = match status_variable.ptr("/definitions/0") {
        Some(first) => ["required", "schema", "metadata"]
            .iter()
            .any(|k| first.get(*k) != def.get(*k)),
        None => false,
    };
    if let Some(Value::Array(defs)) = status_variable.get_mut("definitions") {
        defs.push(def);
    }
    if !conflict && differs {
        status_variable["definitionsConflict"] = Value::Bool(true);
    }
}

/// `status.variables` for a ClusterClass (any apiVersion with `spec.variables`).
pub fn status_variables(cluster_class: &Value) -> Result<Value> {
    let mut by_name: BTreeMap<String, Value> = BTreeMap::new();
    let vars = match cluster_class.ptr("/spec/variables") {
        None | Some(Value::Null) => return Ok(Value::Array(vec![])),
        Some(Value::Array(v)) => v,
        Some(_) => return Err(Error::new("spec.variables: expected a list")),
    };
    for (i, v) in vars.iter().enumerate() {
        let path = format!("spec.variables[{i}]");
        let name = v
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        // A Go map keyed by name: a later inline definition replaces an earlier one.
        let def = definition(v, FROM_INLINE, &path)?;
        by_name.insert(
            name.clone(),
            json!({"name": name, "definitionsConflict": false, "definitions": [def]}),
        );
    }
    Ok(Value::Array(by_name.into_values().collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_inline_definitions() {
        let cc = json!({"spec": {"variables": [
            {"name": "b", "required": true, "schema": {"openAPIV3Schema": {"type": "string", "x-kubernetes-list-type": "set"}}},
            {"name": "a", "metadata": {"labels": {"l": "v"}}, "schema": {"openAPIV3Schema": {"type": "integer"}}}
        ]}});
        let s = status_variables(&cc).unwrap();
        assert_eq!(
            s,
            json!([
                {"name": "a", "definitionsConflict": false, "definitions": [{"from": "inline", "required": false,
                    "metadata": {"labels": {"l": "v"}}, "schema": {"openAPIV3Schema": {"type": "integer"}}}]},
                {"name": "b", "definitionsConflict": false, "definitions": [{"from": "inline", "required": true,
                    "metadata": {}, "schema": {"openAPIV3Schema": {"type": "string"}}}]}
            ])
        );
    }

    #[test]
    fn v1beta2_metadata_is_read() {
        let cc = json!({"spec": {"variables": [{"name": "a", "deprecatedV1Beta1Metadata": {"annotations": {"k": "v"}}, "schema": {"openAPIV3Schema": {"type": "string"}}}]}});
        assert_eq!(
            status_variables(&cc).unwrap()[0]["definitions"][0]["metadata"],
            json!({"annotations": {"k": "v"}})
        );
    }

    #[test]
    fn no_variables_is_an_empty_list() {
        assert_eq!(status_variables(&json!({"spec": {}})).unwrap(), json!([]));
        assert!(status_variables(&json!({"spec": {"variables": 3}})).is_err());
    }

    #[test]
    fn differing_definitions_conflict() {
        let cc = json!({"spec": {"variables": [{"name": "a", "schema": {"openAPIV3Schema": {"type": "integer"}}}]}});
        let mut s = status_variables(&cc).unwrap()[0].clone();
        let same = definition(
            &json!({"schema": {"openAPIV3Schema": {"type": "integer"}}}),
            "p1",
            "x",
        )
        .unwrap();
        add_definition(&mut s, same);
        assert_eq!(s["definitionsConflict"], json!(false));
        let other = definition(
            &json!({"schema": {"openAPIV3Schema": {"type": "string"}}}),
            "p2",
            "x",
        )
        .unwrap();
        add_definition(&mut s, other);
        assert_eq!(s["definitionsConflict"], json!(true));
        assert_eq!(s["definitions"].as_array().unwrap().len(), 3);
    }
}
