//! The inline JSON patch generator (topology.md R6.4, R6.6, R6.8, R6.9): `enabledIf`,
//! values from `value`, `valueFrom.variable` and `valueFrom.template`.

use serde_json::{Map, Value};

use super::value;
use crate::error::{Error, Result};

/// A Cluster's variables for the patches (`builtin` and the topology's values), with
/// their template form converted once, when the first template needs it, and shared by
/// every item.
pub struct Global {
    map: Map<String, Value>,
    fields: std::cell::OnceCell<crate::gotemplate::Fields>,
}

impl Global {
    pub fn new(map: Map<String, Value>) -> Global {
        Global {
            map,
            fields: Default::default(),
        }
    }

    fn fields(&self) -> &crate::gotemplate::Fields {
        self.fields
            .get_or_init(|| crate::gotemplate::Fields::from_map(&self.map))
    }
}

/// One patch item's variables: the Cluster's under the item's overrides, with the
/// item's `builtin` part merged in (`MergeVariableMaps`). Both forms are built when
/// first needed: the map (`valueFrom.variable` looks paths up in it) and the template
/// data, which converts only the item's own values and shares the Cluster's.
pub struct Vars<'a> {
    global: &'a Global,
    overrides: Vec<(String, Value)>,
    builtin: Value,
    map: std::cell::OnceCell<Map<String, Value>>,
    data: std::cell::OnceCell<crate::gotemplate::Data>,
}

impl<'a> Vars<'a> {
    pub fn new(global: &'a Global, overrides: Vec<(String, Value)>, builtin: Value) -> Vars<'a> {
        Vars {
            global,
            overrides,
            builtin,
            map: Default::default(),
            data: Default::default(),
        }
    }

    fn map(&self) -> &Map<String, Value> {
        self.map
            .get_or_init(|| merge_variables(&self.global.map, &self.overrides, &self.builtin))
    }

    fn data(&self) -> &crate::gotemplate::Data {
        self.data.get_or_init(|| {
            let mut f = self.global.fields().clone();
            for (n, v) in &self.overrides {
                f.set(n, v);
            }
            // `merge_variables`: the item's builtin entries go into the merged map's
            // `builtin` when that is an object (a map field in the template form).
            if let Value::Object(ib) = &self.builtin {
                f.merge_into("builtin", ib);
            }
            f.data()
        })
    }
}

/// `MergeVariableMaps`: item values override global ones; `builtin` is merged.
pub fn merge_variables(
    global: &Map<String, Value>,
    overrides: &[(String, Value)],
    builtin: &Value,
) -> Map<String, Value> {
    let mut vars = global.clone();
    for (n, v) in overrides {
        vars.insert(n.clone(), v.clone());
    }
    if let (Some(Value::Object(b)), Value::Object(ib)) = (vars.get_mut("builtin"), builtin) {
        for (k, v) in ib {
            b.insert(k.clone(), v.clone());
        }
    }
    vars
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
    read_rendered(&text).map_err(|e| {
        e.wrap(format!(
            "failed to unmarshal rendered template: {:?}",
            crate::limits::excerpt(&text)
        ))
    })
}

/// Rendered texts read as YAML, cached per thread by text: the Clusters of a class
/// mostly render the same texts (an etcd tag, a list of files, `true` for an
/// `enabledIf`). Reading is a pure function of the text (`parse_value_lenient` has
/// only per-document limits), so a hit is what the parse would return. At most
/// [`READ_CACHE_ENTRIES`] texts and [`READ_CACHE_BYTES`] bytes of them; then the cache
/// starts over. Errors are not kept: a failing text is read again.
type ReadCache = std::collections::HashMap<String, Value>;

const READ_CACHE_ENTRIES: usize = 4096;
const READ_CACHE_BYTES: usize = 4 << 20;

thread_local! {
    static READ: std::cell::RefCell<(ReadCache, usize)> = Default::default();
}

fn read_rendered(text: &str) -> Result<Value> {
    if let Some(v) = READ.with(|c| c.borrow().0.get(text).cloned()) {
        return Ok(v);
    }
    let v = crate::yaml::read::parse_value_lenient(text)?;
    READ.with(|c| {
        let (map, bytes) = &mut *c.borrow_mut();
        if map.len() >= READ_CACHE_ENTRIES || *bytes + text.len() > READ_CACHE_BYTES {
            map.clear();
            *bytes = 0;
        }
        *bytes += text.len();
        map.insert(text.to_string(), v.clone());
    });
    Ok(v)
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
            value::lookup(variables.map(), v).map_err(|e| e.wrap("failed to calculate value"))
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

    fn object(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn value_forms() {
        let g = Global::new(object(json!({"a": {"b": 3}})));
        let vars = Vars::new(&g, vec![], Value::Null);
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
        let g = Global::new(Map::new());
        let vars = Vars::new(&g, vec![], Value::Null);
        let p = json_patches(&[json!({"op": "remove", "path": "/spec/x"})], &vars).unwrap();
        assert_eq!(p, vec![json!({"op": "remove", "path": "/spec/x"})]);
    }

    #[test]
    fn absent_enabled_if_is_enabled() {
        let g = Global::new(Map::new());
        assert!(is_enabled(None, &Vars::new(&g, vec![], Value::Null)).unwrap());
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

    /// The shared template data of an item is the data of its merged map: a template
    /// that prints the whole dot, and one that reads values of each layer, print the
    /// same with both.
    #[test]
    fn item_data_is_the_merged_maps_data() {
        let global = object(
            json!({"builtin": {"cluster": {"name": "c", "topology": {"version": "v1.30.0"}},
            "controlPlane": {"name": "old"}}, "v": 1, "w": {"x": [1, "a", null, true]}, "z": "s"}),
        );
        let cases = [
            (
                vec![],
                json!({"controlPlane": {"name": "cp", "replicas": 3}}),
            ),
            (
                vec![
                    ("v".to_string(), json!(2)),
                    ("n".to_string(), json!({"k": 1.5})),
                ],
                json!({}),
            ),
            (vec![("w".to_string(), json!(null))], Value::Null),
            (
                vec![("builtin".to_string(), json!("not a map"))],
                json!({"machineDeployment": {"class": "m"}}),
            ),
            (
                vec![("builtin".to_string(), json!({"own": 1}))],
                json!({"machineDeployment": {"class": "m"}}),
            ),
        ];
        let opts = crate::gotemplate::Options::default();
        for template in [
            "{{ . }}",
            "{{ .v }} {{ .w }} {{ .n }} {{ .builtin }} {{ .builtin.controlPlane.name }}",
        ] {
            for (overrides, builtin) in &cases {
                let g = Global::new(global.clone());
                let vars = Vars::new(&g, overrides.clone(), builtin.clone());
                let merged = merge_variables(&global, overrides, builtin);
                let want = crate::gotemplate::execute_data(
                    template,
                    &crate::gotemplate::Data::from_map(&merged),
                    &opts,
                );
                let got = crate::gotemplate::execute_data(template, vars.data(), &opts);
                assert_eq!(got, want, "{template} {overrides:?} {builtin}");
                assert_eq!(vars.map(), &merged);
            }
        }
        // The Cluster's fields are converted once and left as they were.
        let g = Global::new(global.clone());
        let a = Vars::new(&g, vec![], json!({"controlPlane": {"name": "a"}}));
        let b = Vars::new(&g, vec![], json!({"controlPlane": {"name": "b"}}));
        let t = "{{ .builtin.controlPlane.name }}";
        let run = |v: &Vars| crate::gotemplate::execute_data(t, v.data(), &opts).unwrap();
        assert_eq!((run(&a), run(&b)), ("a".to_string(), "b".to_string()));
        let plain = Vars::new(&g, vec![], Value::Null);
        assert_eq!(run(&plain), "old");
    }

    #[test]
    fn cached_reads_are_the_parse() {
        let texts = [
            "local:\n  imageTag: 3.5.0\n",
            "true",
            "- content: |\n    a: b\n  path: /x\n",
            "[1, 2.5, null]\n",
            "a: [unclosed\n",
            "{}",
            "",
        ];
        // Twice over, and again after more texts than the cache holds (it starts over).
        let extra = (0..READ_CACHE_ENTRIES + 3).map(|i| format!("n: {i}\n"));
        let all: Vec<String> = texts
            .iter()
            .map(|t| t.to_string())
            .chain(texts.iter().map(|t| t.to_string()))
            .chain(extra)
            .chain(texts.iter().map(|t| t.to_string()))
            .collect();
        for t in &all {
            assert_eq!(
                read_rendered(t),
                crate::yaml::read::parse_value_lenient(t),
                "{t:?}"
            );
        }
        READ.with(|c| {
            let (map, bytes) = &*c.borrow();
            assert!(map.len() <= READ_CACHE_ENTRIES && *bytes <= READ_CACHE_BYTES);
            // The failing text was never kept.
            assert!(!map.contains_key("a: [unclosed\n"));
        });
    }
}
