//! Go's `json.Marshal` / `json.MarshalIndent` of the v1beta2 patch types the webhook
//! prints as bad values (`ClusterClassPatch`, `PatchSelector`, `JSONPatch`,
//! `JSONPatchValue`, `ExternalPatchDefinition`): fields in Go's order, `omitempty` /
//! `omitzero` as the types declare them, unknown fields dropped.

use serde_json::Value;

use crate::go::json::{marshal, write_string};

/// A JSON object under construction, fields in insertion order.
#[derive(Default)]
struct Obj(Vec<(&'static str, String)>);

impl Obj {
    fn raw(mut self, k: &'static str, v: Option<String>) -> Self {
        if let Some(v) = v {
            self.0.push((k, v));
        }
        self
    }

    /// A `string` field with `omitempty`.
    fn string(self, src: &Value, k: &'static str) -> Self {
        let v = src.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
        self.raw(k, v.map(|s| marshal(&Value::from(s))))
    }

    fn done(self) -> String {
        let mut out = String::from("{");
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_string(&mut out, k, true);
            out.push(':');
            out.push_str(v);
        }
        out.push('}');
        out
    }
}

/// A `*bool` field: absent or null is nil (omitted).
fn ptr_bool(src: &Value, k: &str) -> Option<String> {
    src.get(k).and_then(Value::as_bool).map(|b| b.to_string())
}

/// A `[]string` with `omitempty`.
fn strings(src: &Value, k: &str) -> Option<String> {
    let items: Vec<Value> = src
        .get(k)?
        .as_array()?
        .iter()
        .map(|s| Value::from(s.as_str().unwrap_or("")))
        .collect();
    (!items.is_empty()).then(|| marshal(&Value::Array(items)))
}

/// A pointer to a struct: absent or null is nil.
fn ptr<'a>(src: &'a Value, k: &str) -> Option<&'a Value> {
    src.get(k).filter(|v| !v.is_null())
}

/// `PatchSelector`.
pub(super) fn selector(s: &Value) -> String {
    let null = Value::Null;
    let mr = s.get("matchResources").unwrap_or(&null);
    let names =
        |k: &str| ptr(mr, k).map(|c| Obj::default().raw("names", strings(c, "names")).done());
    let m = Obj::default()
        .raw("controlPlane", ptr_bool(mr, "controlPlane"))
        .raw(
            "infrastructureCluster",
            ptr_bool(mr, "infrastructureCluster"),
        )
        .raw("machineDeploymentClass", names("machineDeploymentClass"))
        .raw("machinePoolClass", names("machinePoolClass"));
    // `omitzero`: a match with no pointer set is left out.
    let m = (!m.0.is_empty()).then(|| m.done());
    Obj::default()
        .string(s, "apiVersion")
        .string(s, "kind")
        .raw("matchResources", m)
        .done()
}

/// `JSONPatchValue`.
pub(super) fn value_from(v: &Value) -> String {
    Obj::default()
        .string(v, "variable")
        .string(v, "template")
        .done()
}

/// `JSONPatch` (`value` is raw JSON, compacted).
pub(super) fn json_patch(p: &Value) -> String {
    Obj::default()
        .string(p, "op")
        .string(p, "path")
        .raw("value", ptr(p, "value").map(marshal))
        .raw("valueFrom", ptr(p, "valueFrom").map(value_from))
        .done()
}

/// `ExternalPatchDefinition`.
pub(super) fn external(e: &Value) -> String {
    let settings = e
        .get("settings")
        .and_then(Value::as_object)
        .filter(|m| !m.is_empty())
        .map(|m| {
            let m: serde_json::Map<String, Value> = m
                .iter()
                .map(|(k, v)| (k.clone(), Value::from(v.as_str().unwrap_or(""))))
                .collect();
            marshal(&Value::Object(m))
        });
    Obj::default()
        .string(e, "generatePatchesExtension")
        .string(e, "validateTopologyExtension")
        .string(e, "discoverVariablesExtension")
        .raw("settings", settings)
        .done()
}

/// `ClusterClassPatch`.
pub(super) fn patch(p: &Value) -> String {
    let defs = p
        .get("definitions")
        .and_then(Value::as_array)
        .filter(|d| !d.is_empty());
    let defs = defs.map(|d| {
        let items: Vec<String> = d
            .iter()
            .map(|def| {
                let null = Value::Null;
                let sel = def.get("selector").unwrap_or(&null);
                // `omitzero`: the zero selector is left out.
                let s = selector(sel);
                let jps = def
                    .get("jsonPatches")
                    .and_then(Value::as_array)
                    .filter(|j| !j.is_empty())
                    .map(|j| {
                        let v: Vec<String> = j.iter().map(json_patch).collect();
                        format!("[{}]", v.join(","))
                    });
                Obj::default()
                    .raw("selector", (s != "{}").then_some(s))
                    .raw("jsonPatches", jps)
                    .done()
            })
            .collect();
        format!("[{}]", items.join(","))
    });
    Obj::default()
        .string(p, "name")
        .string(p, "description")
        .string(p, "enabledIf")
        .raw("definitions", defs)
        .raw("external", ptr(p, "external").map(external))
        .done()
}

/// Go's `json.Indent(dst, src, "", "  ")` of compact JSON text (what `MarshalIndent`
/// gives): a newline and indent after `{`, `[` and `,`, `": "` after a key; empty
/// objects and lists stay `{}` / `[]`.
pub(super) fn indent(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let mut in_str = false;
    let mut escaped = false;
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, d: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(d));
    };
    while let Some(c) = chars.next() {
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                if matches!(chars.peek(), Some('}' | ']')) {
                    out.extend(chars.next());
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_field_order_and_omitempty() {
        let p = json!({"op": "add", "path": "/spec/a", "value": {"b": [1, "<x>"]},
            "valueFrom": {"variable": "v", "template": "t"}, "unknown": 1});
        assert_eq!(
            json_patch(&p),
            r#"{"op":"add","path":"/spec/a","value":{"b":[1,"\u003cx\u003e"]},"valueFrom":{"variable":"v","template":"t"}}"#
        );
        assert_eq!(
            json_patch(&json!({"op": "", "path": "/x"})),
            r#"{"path":"/x"}"#
        );
        assert_eq!(
            selector(
                &json!({"apiVersion": "a", "matchResources": {"machineDeploymentClass": {"names": []}, "controlPlane": false}})
            ),
            r#"{"apiVersion":"a","matchResources":{"controlPlane":false,"machineDeploymentClass":{}}}"#
        );
        assert_eq!(selector(&json!({})), "{}");
        assert_eq!(
            external(&json!({"discoverVariablesExtension": "d", "settings": {"b": "1", "a": "2"}})),
            r#"{"discoverVariablesExtension":"d","settings":{"a":"2","b":"1"}}"#
        );
    }

    #[test]
    fn indent_as_go() {
        assert_eq!(
            indent(r#"{"a":{"b":[1,2]},"c":{},"d":"x,{:"}"#),
            "{\n  \"a\": {\n    \"b\": [\n      1,\n      2\n    ]\n  },\n  \"c\": {},\n  \"d\": \"x,{:\"\n}"
        );
        assert_eq!(indent("{}"), "{}");
    }
}
