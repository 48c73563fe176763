//! R7.1: `patches` (`patch.ApplyGenericPatches`). Patches run in list order; each is
//! applied to every object its `target` matches (no target: every object). Target
//! fields are ANDed, empty ones are wildcards: `group`, `version`, `kind` against the
//! object's apiVersion/kind, `name`, `namespace`, and `labelSelector` (a Kubernetes
//! label selector, [`super::label_selector`]).
//!
//! The patch text is YAML converted to JSON. If it decodes as a list of RFC 6902
//! operations it is applied as a JSON Patch ([`crate::go::jsonpatch`]; `null`, `""` and `[]`
//! give `rfc6902 patch is nil`), otherwise as an RFC 7386 merge patch
//! ([`super::merge`]). The patched document is read back as an unstructured object: it
//! must be a JSON object with a `kind`, and integral numbers become integers.

use serde_json::Value;

use super::label_selector::Selector;
use super::spec::{Patch, PatchSelector};
use crate::components::filters::{group, kind, name, namespace, string_map, version};
use crate::error::{Error, Result};
use crate::go::json::{marshal, normalize_numbers, type_name};
use crate::go::jsonpatch::{self, Failure};
use crate::go::mergepatch::merge_patch;
use crate::go::quote::quote as go_quote;

/// `sigs.k8s.io/yaml.YAMLToJSON` of a patch text (`""` is `null`).
pub fn yaml_to_json(text: &str) -> Result<Value> {
    crate::yaml::read::parse_value_lenient(text)
}

/// `obj.UnmarshalJSON(patched)`: the document must be an object whose `kind` is set
/// (and whose apiVersion parses); numbers are re-read as Go does.
pub fn unmarshal_unstructured(v: Value) -> std::result::Result<Value, String> {
    let text = marshal(&v);
    let v = match v {
        Value::Null => Value::Object(Default::default()),
        Value::Object(_) => v,
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                type_name(&other)
            ))
        }
    };
    let av = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if kind(&v).is_empty() || av.matches('/').count() > 1 {
        return Err(format!("Object 'Kind' is missing in '{text}'"));
    }
    Ok(normalize_numbers(v))
}

/// `matchSelector`.
pub fn matches(o: &Value, sel: Option<&PatchSelector>, ls: Option<&Selector>) -> bool {
    let Some(sel) = sel else {
        return true;
    };
    // `obj.GroupVersionKind()`: an apiVersion that does not parse gives an empty GVK.
    let av = o.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let (g, v, k) = if av.matches('/').count() > 1 {
        ("", "", "")
    } else {
        (group(o), version(o), kind(o))
    };
    let field_ok = |want: &str, have: &str| want.is_empty() || want == have;
    if !(field_ok(&sel.group, g)
        && field_ok(&sel.version, v)
        && field_ok(&sel.kind, k)
        && field_ok(&sel.name, name(o))
        && field_ok(&sel.namespace, namespace(o)))
    {
        return false;
    }
    match ls {
        Some(ls) if !sel.label_selector.is_empty() => {
            ls.matches(&string_map(o, "labels").unwrap_or_default())
        }
        _ => true,
    }
}

/// `inferAndApplyPatchType` for one object.
fn infer_and_apply(o: &Value, patch: &Value) -> std::result::Result<Value, String> {
    if let Some(ops) = jsonpatch::decode(patch) {
        if ops.is_empty() {
            return Err("rfc6902 patch is nil".into());
        }
        let mut patched = o.clone();
        jsonpatch::apply(&mut patched, &ops).map_err(|e| match e {
            Failure::Decode(e) => format!("failed to decode RFC6902 patch: {e}"),
            Failure::Apply(e) => format!("failed to apply RFC6902 patch: {e}"),
        })?;
        return unmarshal_unstructured(patched)
            .map_err(|e| format!("failed to unmarshal patched JSON to object: {e}"));
    }
    unmarshal_unstructured(merge_patch(o, patch)).map_err(|e| {
        format!("failed to apply strategic merge patch: failed to unmarshal patched JSON to object: {e}")
    })
}

/// `ApplyGenericPatches`.
pub fn apply_patches(mut objs: Vec<Value>, patches: &[Patch]) -> Result<Vec<Value>> {
    for (idx, p) in patches.iter().enumerate() {
        let patch =
            yaml_to_json(&p.patch).map_err(|e| e.wrap("failed to convert patch YAML to JSON"))?;
        let target = p.target.as_ref();
        let ls = match target {
            Some(t) if !t.label_selector.is_empty() => {
                Some(Selector::parse(&t.label_selector).map_err(|e| {
                    Error::new(format!(
                        "patch {idx}: failed to parse label selector {}: {e}",
                        go_quote(&t.label_selector)
                    ))
                })?)
            }
            _ => None,
        };
        for o in objs.iter_mut() {
            if !matches(o, target, ls.as_ref()) {
                continue;
            }
            *o = infer_and_apply(o, &patch).map_err(|e| {
                Error::new(format!(
                    "patch {idx}: failed to apply patch to {}/{}: {e}",
                    namespace(o),
                    name(o)
                ))
            })?;
        }
    }
    Ok(objs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn objs() -> Vec<Value> {
        vec![
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "capi-controller-manager", "namespace": "capi-system", "labels": {"control-plane": "controller-manager"}},
                   "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "manager", "args": ["--a=1"]}]}}}}),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "webhook", "namespace": "capi-system"},
                   "spec": {"ports": [{"port": 443.0}]}}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}}),
        ]
    }

    fn patch(text: &str, target: Option<Value>) -> Patch {
        let mut m = json!({"patch": text});
        if let Some(t) = target {
            m["target"] = t;
        }
        Patch::from_map(m.as_object().unwrap(), "p").unwrap()
    }

    #[test]
    fn merge_patch_with_kind_target_replaces_lists_and_deletes_with_null() {
        let out = apply_patches(objs(), &[patch(
            "spec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: x\n",
            Some(json!({"kind": "Deployment"})),
        )])
        .unwrap();
        assert_eq!(out[0]["spec"]["replicas"], json!(3));
        assert_eq!(
            out[0]["spec"]["template"]["spec"]["containers"],
            json!([{"name": "manager", "image": "x"}])
        );
        assert_eq!(out[1], objs()[1]);
        let out = apply_patches(
            objs(),
            &[patch(
                "metadata:\n  labels: null\n",
                Some(json!({"name": "capi-controller-manager"})),
            )],
        )
        .unwrap();
        assert!(out[0]["metadata"].get("labels").is_none());
    }

    #[test]
    fn rfc6902_patch_on_label_selected_objects() {
        let out = apply_patches(
            objs(),
            &[patch(
                "- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --b=2\n",
                Some(json!({"labelSelector": "control-plane in (controller-manager)"})),
            )],
        )
        .unwrap();
        assert_eq!(
            out[0]["spec"]["template"]["spec"]["containers"][0]["args"],
            json!(["--a=1", "--b=2"])
        );
        assert_eq!(out[1], objs()[1]);
    }

    #[test]
    fn target_fields_are_anded() {
        let t = |j: Value| -> Vec<bool> {
            let sel = Patch::from_map(json!({"target": j}).as_object().unwrap(), "p")
                .unwrap()
                .target;
            let ls = sel
                .as_ref()
                .filter(|s| !s.label_selector.is_empty())
                .map(|s| Selector::parse(&s.label_selector).unwrap());
            objs()
                .iter()
                .map(|o| matches(o, sel.as_ref(), ls.as_ref()))
                .collect()
        };
        assert_eq!(t(json!({})), [true, true, true]);
        assert_eq!(t(json!({"group": "apps"})), [true, false, false]);
        assert_eq!(t(json!({"group": "", "version": "v1"})), [true, true, true]);
        assert_eq!(
            t(json!({"version": "v1", "kind": "Service"})),
            [false, true, false]
        );
        assert_eq!(
            t(json!({"namespace": "capi-system", "name": "webhook"})),
            [false, true, false]
        );
        assert_eq!(
            t(json!({"labelSelector": "!control-plane"})),
            [false, true, true]
        );
        assert!(matches(&objs()[0], None, None));
    }

    #[test]
    fn patched_numbers_are_reread_as_integers() {
        let out = apply_patches(
            objs(),
            &[patch(
                "metadata:\n  annotations:\n    a: b\n",
                Some(json!({"kind": "Service"})),
            )],
        )
        .unwrap();
        assert!(out[1]["spec"]["ports"][0]["port"].is_i64());
    }

    #[test]
    fn errors() {
        let e = |p: Patch| {
            apply_patches(objs(), &[p])
                .unwrap_err()
                .message()
                .to_string()
        };
        assert_eq!(e(patch("", None)), "patch 0: failed to apply patch to capi-system/capi-controller-manager: rfc6902 patch is nil");
        assert_eq!(e(patch("[]", None)), "patch 0: failed to apply patch to capi-system/capi-controller-manager: rfc6902 patch is nil");
        assert_eq!(
            e(patch("kind: null", Some(json!({"kind": "ClusterRole"})))),
            "patch 0: failed to apply patch to /r: failed to apply strategic merge patch: failed to unmarshal patched JSON to object: Object 'Kind' is missing in '{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"metadata\":{\"name\":\"r\"}}'"
        );
        assert_eq!(
            e(patch("- op: replace\n  path: /spec/nope\n  value: 1\n", Some(json!({"kind": "Service"})))),
            "patch 0: failed to apply patch to capi-system/webhook: failed to apply RFC6902 patch: replace operation does not apply: doc is missing key: /spec/nope: missing value"
        );
        assert!(e(patch("a: 1", Some(json!({"labelSelector": "a in b"})))).starts_with(
            "patch 0: failed to parse label selector \"a in b\": unable to parse requirement: found 'b' expected: '('"
        ));
        assert_eq!(
            e(patch("[1, 2]", Some(json!({"kind": "Service"})))),
            "patch 0: failed to apply patch to capi-system/webhook: failed to apply strategic merge patch: failed to unmarshal patched JSON to object: json: cannot unmarshal array into Go value of type map[string]interface {}"
        );
    }

    #[test]
    fn second_patch_error_reports_its_index() {
        let e = apply_patches(
            objs(),
            &[
                patch("metadata: {}", None),
                patch(
                    "- op: remove\n  path: /nope\n",
                    Some(json!({"kind": "ClusterRole"})),
                ),
            ],
        )
        .unwrap_err();
        assert!(
            e.message()
                .starts_with("patch 1: failed to apply patch to /r: "),
            "{e}"
        );
    }
}
