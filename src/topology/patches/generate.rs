//! The inline JSON patch generator (topology.md R6.4, R6.6, R6.8, R6.9): `enabledIf`,
//! values from `value`, `valueFrom.variable` and `valueFrom.template`.

use serde_json::{Map, Value};

use super::value;
use crate::error::{Error, Result};

/// Render a Go template with the variables and read the text as YAML
/// (`renderValueTemplate`).
pub fn render_value_template(template: &str, variables: &Map<String, Value>) -> Result<Value> {
    let data = Value::Object(variables.clone());
    // Quoted text is cut (`limits::excerpt`): an error never repeats megabytes of
    // template or output.
    let text = crate::gotemplate::execute(template, &data).map_err(|e| {
        e.wrap(format!(
            "failed to render template: {:?}",
            crate::limits::excerpt(template)
        ))
    })?;
    crate::yaml::read::parse_value_lenient(&text).map_err(|e| {
        e.wrap(format!(
            "failed to unmarshal rendered template: {:?}",
            crate::limits::excerpt(&text)
        ))
    })
}

/// `patchIsEnabled`: absent is enabled, otherwise the rendered value must be `true`.
pub fn is_enabled(enabled_if: Option<&str>, variables: &Map<String, Value>) -> Result<bool> {
    let Some(t) = enabled_if else { return Ok(true) };
    let v = render_value_template(t, variables)
        .map_err(|e| e.wrap("failed to calculate value for enabledIf"))?;
    Ok(v == Value::Bool(true))
}

/// `calculateValue` for one jsonPatch entry.
pub fn calculate_value(patch: &Value, variables: &Map<String, Value>) -> Result<Value> {
    let value = patch.get("value").filter(|v| !v.is_null());
    let from = patch.get("valueFrom").filter(|v| !v.is_null());
    let fail = |m: &str| Err(Error::new(format!("failed to calculate value: {m}")));
    let (var, tpl) = match from {
        Some(f) => (
            f.get("variable").and_then(Value::as_str),
            f.get("template").and_then(Value::as_str),
        ),
        None => (None, None),
    };
    match (value, from) {
        (None, None) => return fail("neither .value nor .valueFrom are set"),
        (Some(_), Some(_)) => return fail("both .value and .valueFrom are set"),
        (Some(v), None) => return Ok(v.clone()),
        _ => {}
    }
    match (var, tpl) {
        (None, None) => fail(
            ".valueFrom is set, but neither .valueFrom.variable nor .valueFrom.template are set",
        ),
        (Some(_), Some(_)) => {
            fail(".valueFrom is set, but both .valueFrom.variable and .valueFrom.template are set")
        }
        (Some(v), None) => {
            value::lookup(variables, v).map_err(|e| e.wrap("failed to calculate value"))
        }
        (None, Some(t)) => render_value_template(t, variables)
            .map_err(|e| e.wrap("failed to calculate value for template")),
    }
}

/// `generateJSONPatches`: one RFC 6902 document from a definition's jsonPatches.
pub fn json_patches(patches: &[Value], variables: &Map<String, Value>) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    for p in patches {
        let op = p.get("op").and_then(Value::as_str).unwrap_or("");
        let path = p.get("path").and_then(Value::as_str).unwrap_or("");
        let mut m = Map::new();
        m.insert("op".into(), Value::from(op));
        m.insert("path".into(), Value::from(path));
        if op != "remove" {
            let v = calculate_value(p, variables)?;
            m.insert("value".into(), v);
        }
        out.push(Value::Object(m));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn value_forms() {
        let vars = json!({"a": {"b": 3}}).as_object().unwrap().clone();
        assert_eq!(
            calculate_value(&json!({"value": [1]}), &vars).unwrap(),
            json!([1])
        );
        assert_eq!(
            calculate_value(&json!({"valueFrom": {"variable": "a.b"}}), &vars).unwrap(),
            json!(3)
        );
        assert!(calculate_value(&json!({}), &vars)
            .unwrap_err()
            .message()
            .contains("neither .value nor .valueFrom"));
        assert!(calculate_value(&json!({"value": 1, "valueFrom": {}}), &vars).is_err());
        assert!(calculate_value(&json!({"valueFrom": {}}), &vars)
            .unwrap_err()
            .message()
            .contains("neither .valueFrom.variable"));
    }

    #[test]
    fn remove_takes_no_value() {
        let vars = Map::new();
        let p = json_patches(&[json!({"op": "remove", "path": "/spec/x"})], &vars).unwrap();
        assert_eq!(p, vec![json!({"op": "remove", "path": "/spec/x"})]);
    }

    #[test]
    fn absent_enabled_if_is_enabled() {
        assert!(is_enabled(None, &Map::new()).unwrap());
    }
}
