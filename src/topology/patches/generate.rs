//! The inline JSON patch generator (topology.md R6.4, R6.6, R6.8, R6.9): `enabledIf`,
//! values from `value`, `valueFrom.variable` and `valueFrom.template`.

use serde_json::{Map, Value};

use super::value;
use crate::error::{Error, Result};

/// One patch item's variables: the map (`valueFrom.variable` looks paths up in it)
/// and the template data, converted once when the first template needs it.
pub struct Vars {
    map: Map<String, Value>,
    data: std::cell::OnceCell<crate::gotemplate::Data>,
}

impl Vars {
    pub fn new(map: Map<String, Value>) -> Vars {
        Vars {
            map,
            data: Default::default(),
        }
    }

    fn data(&self) -> &crate::gotemplate::Data {
        self.data
            .get_or_init(|| crate::gotemplate::Data::from_map(&self.map))
    }
}

/// Render a Go template with the variables and read the text as YAML
/// (`renderValueTemplate`).
pub fn render_value_template(template: &str, variables: &Vars) -> Result<Value> {
    let opts = crate::gotemplate::Options::default();
    // Quoted text is cut (`limits::excerpt`): an error never repeats megabytes of
    // template or output.
    let text = crate::gotemplate::execute_data(template, variables.data(), &opts).map_err(|e| {
        e.wrap(format!(
            "failed to render template: {:?}",
            crate::limits::excerpt(template)
        ))
    })?;
    if let Some(s) = plain_word(&text) {
        return Ok(Value::String(s.to_string()));
    }
    crate::yaml::read::parse_value_lenient(&text).map_err(|e| {
        e.wrap(format!(
            "failed to unmarshal rendered template: {:?}",
            crate::limits::excerpt(&text)
        ))
    })
}

/// A rendered text that YAML reads as the string it is, without a YAML parse (most
/// templates print an image, a name or a version): a short word of letters, digits
/// and `._/-:` starting with a letter and not ending with `:`, optionally followed by
/// one newline, which YAML 1.1 resolves to no bool or null.
fn plain_word(text: &str) -> Option<&str> {
    let w = text.strip_suffix('\n').unwrap_or(text);
    let word = w.len() <= 256
        && w.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
        && !w.ends_with(':')
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-' | b':'));
    (word && crate::yaml::resolve::plain_resolves_to_str(w)).then_some(w)
}

/// `patchIsEnabled`: absent is enabled, otherwise the rendered value must be `true`.
pub fn is_enabled(enabled_if: Option<&str>, variables: &Vars) -> Result<bool> {
    let Some(t) = enabled_if else { return Ok(true) };
    let v = render_value_template(t, variables)
        .map_err(|e| e.wrap("failed to calculate value for enabledIf"))?;
    Ok(v == Value::Bool(true))
}

/// `calculateValue` for one jsonPatch entry.
pub fn calculate_value(patch: &Value, variables: &Vars) -> Result<Value> {
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
            value::lookup(&variables.map, v).map_err(|e| e.wrap("failed to calculate value"))
        }
        (None, Some(t)) => render_value_template(t, variables)
            .map_err(|e| e.wrap("failed to calculate value for template")),
    }
}

/// `generateJSONPatches`: one RFC 6902 document from a definition's jsonPatches.
pub fn json_patches(patches: &[Value], variables: &Vars) -> Result<Vec<Value>> {
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
        let vars = Vars::new(json!({"a": {"b": 3}}).as_object().unwrap().clone());
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
        let vars = Vars::new(Map::new());
        let p = json_patches(&[json!({"op": "remove", "path": "/spec/x"})], &vars).unwrap();
        assert_eq!(p, vec![json!({"op": "remove", "path": "/spec/x"})]);
    }

    #[test]
    fn absent_enabled_if_is_enabled() {
        assert!(is_enabled(None, &Vars::new(Map::new())).unwrap());
    }

    #[test]
    fn plain_words_read_as_the_yaml_parse_reads_them() {
        for w in [
            "v1.32.0",
            "kindest/node",
            "registry.k8s.io/pause",
            "md-0",
            "a_b",
            "e1",
            "Infinity",
            "NaN",
            "nulls",
            "yesno",
            "x1.2e3",
            "true",
            "True",
            "yes",
            "y",
            "N",
            "no",
            "off",
            "On",
            "null",
            "Null",
            "NULL",
            "1.0",
            "0x1F",
            "12:30",
            ".inf",
            "-",
            "a b",
            "a:",
            "",
            "kindest/node:v1.32.0\n",
            "a:b",
            "a::b:c",
            "a:\n",
            "yes\n",
            "a\n\n",
            "a\r\n",
            "x\n",
        ] {
            if let Some(s) = plain_word(w) {
                let parsed = crate::yaml::read::parse_value_lenient(w);
                assert_eq!(parsed, Ok(Value::String(s.to_string())), "{w:?}");
            }
        }
        assert_eq!(plain_word("v1.32.0"), Some("v1.32.0"));
        assert_eq!(plain_word("true"), None);
        assert_eq!(plain_word("y"), None);
        assert_eq!(
            plain_word("kindest/node:v1.32.0\n"),
            Some("kindest/node:v1.32.0")
        );
        assert_eq!(plain_word("a\n\n"), None);
    }
}
