//! R7.2: legacy `manifestPatches` (`patch.ApplyPatches`). Each entry is a YAML JSON
//! merge patch (RFC 7386, [`super::merge`]); all entries are applied, in order, to each
//! object whose identity matches, with the operator's quirks:
//!
//! * the patch's `kind` must equal the object's (a patch without `kind` matches nothing);
//! * a patch without `apiVersion` matches only objects without one (so nothing), and a
//!   patch with one matches any apiVersion — the whole patch is merged, so its
//!   `apiVersion` then overwrites the object's;
//! * `metadata.name`, when set in the patch, must equal the object's;
//!   `metadata.namespace` only matters together with a non-matching name (never, in
//!   effect);
//! * identities are read with Go's case-insensitive field matching (`Kind:` counts);
//! * every object, patched or not, is written to YAML and read back, so all its numbers
//!   become `float64` (what `sigs.k8s.io/yaml.Unmarshal` gives).

use serde_json::{Map, Value};

use super::patches::yaml_to_json;
use crate::error::{Error, Result};
use crate::go::json::{float_numbers, type_name};
use crate::go::mergepatch::merge_patch;

/// The identity a patch and a resource are matched on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MatchInfo {
    pub kind: String,
    pub api_version: String,
    pub name: String,
    pub namespace: String,
}

const PREFIX: &str = "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal";

/// The member of `m` Go's decoder would use for `field`: exact name first, then a
/// case-insensitive match.
fn member<'a>(m: &'a Map<String, Value>, field: &str) -> Option<&'a Value> {
    m.get(field).or_else(|| {
        m.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(field))
            .map(|(_, v)| v)
    })
}

fn string_member(
    m: &Map<String, Value>,
    field: &str,
    go_path: &str,
) -> std::result::Result<String, String> {
    match member(m, field) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(format!(
            "{PREFIX} {} into Go struct field {go_path} of type string",
            type_name(v)
        )),
    }
}

/// `yaml.Unmarshal(raw, &matchInfo{})` on the JSON form of a document.
pub fn match_info(v: &Value) -> std::result::Result<MatchInfo, String> {
    let m = match v {
        Value::Null => return Ok(MatchInfo::default()),
        Value::Object(m) => m,
        other => {
            return Err(format!(
                "{PREFIX} {} into Go value of type patch.matchInfo",
                type_name(other)
            ))
        }
    };
    let mut mi = MatchInfo {
        kind: string_member(m, "kind", "matchInfo.kind")?,
        api_version: string_member(m, "apiVersion", "matchInfo.apiVersion")?,
        ..Default::default()
    };
    match member(m, "metadata") {
        None | Some(Value::Null) => {}
        Some(Value::Object(md)) => {
            mi.name = string_member(md, "name", "matchInfo.metadata.name")?;
            mi.namespace = string_member(md, "namespace", "matchInfo.metadata.namespace")?;
        }
        Some(other) => {
            return Err(format!(
                "{PREFIX} {} into Go struct field matchInfo.metadata of type patch.Metadata",
                type_name(other)
            ))
        }
    }
    Ok(mi)
}

/// `resource.matches(patch)`.
pub fn matches(resource: &MatchInfo, patch: &MatchInfo) -> bool {
    if resource.kind != patch.kind {
        return false;
    }
    if patch.api_version.is_empty() && resource.api_version != patch.api_version {
        return false;
    }
    if !patch.namespace.is_empty()
        && !patch.name.is_empty()
        && resource.namespace != patch.namespace
        && resource.name != patch.name
    {
        return false;
    }
    if !patch.name.is_empty() && resource.name != patch.name {
        return false;
    }
    true
}

/// `ApplyPatches`.
pub fn apply_manifest_patches(objs: Vec<Value>, patches: &[String]) -> Result<Vec<Value>> {
    let mut resources = Vec::with_capacity(objs.len());
    for o in objs {
        let mi = match_info(&o).map_err(|e| {
            Error::new(format!(
                "failed to parse resources: failed to parse resource: failed to parse match info: {e}"
            ))
        })?;
        resources.push((mi, o));
    }
    let mut parsed = Vec::with_capacity(patches.len());
    for p in patches {
        let json = yaml_to_json(p).map_err(|e| {
            e.wrap("failed to parse patches: failed to parse patch: failed to parse match info")
        })?;
        let mi = match_info(&json).map_err(|e| {
            Error::new(format!(
                "failed to parse patches: failed to parse patch: failed to parse match info: {e}"
            ))
        })?;
        parsed.push((mi, json));
    }
    let mut out = Vec::with_capacity(resources.len());
    for (mi, mut json) in resources {
        for (pmi, pjson) in &parsed {
            if matches(&mi, pmi) {
                json = merge_patch(&json, pjson);
            }
        }
        out.push(float_numbers(json));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn objs() -> Vec<Value> {
        vec![
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a", "namespace": "ns"},
                   "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "manager"}]}}}}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "b", "namespace": "ns"}, "spec": {"replicas": 1}}),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "ns"}}),
        ]
    }

    #[test]
    fn kind_and_name_match_and_apiversion_is_not_compared() {
        let out = apply_manifest_patches(objs(), &["apiVersion: apps/v1beta1\nkind: Deployment\nmetadata:\n  name: a\nspec:\n  replicas: 3\n".into()]).unwrap();
        assert_eq!(out[0]["spec"]["replicas"], json!(3.0));
        // The patch's apiVersion is merged in.
        assert_eq!(out[0]["apiVersion"], "apps/v1beta1");
        assert_eq!(out[1]["spec"]["replicas"], json!(1.0));
        assert!(out[2].get("spec").is_none());
    }

    #[test]
    fn without_api_version_nothing_matches() {
        let out =
            apply_manifest_patches(objs(), &["kind: Deployment\nspec:\n  replicas: 3\n".into()])
                .unwrap();
        assert_eq!(out[0]["spec"]["replicas"], json!(1.0));
        assert_eq!(out[1]["spec"]["replicas"], json!(1.0));
    }

    #[test]
    fn without_kind_nothing_matches() {
        let out = apply_manifest_patches(
            objs(),
            &["apiVersion: v1\nmetadata:\n  labels: {a: b}\n".into()],
        )
        .unwrap();
        assert!(out.iter().all(|o| o["metadata"].get("labels").is_none()));
    }

    #[test]
    fn without_name_every_object_of_the_kind_matches_namespace_ignored() {
        let out = apply_manifest_patches(
            objs(),
            &["apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  namespace: other\n  labels:\n    x: z\n".into()],
        )
        .unwrap();
        assert_eq!(out[0]["metadata"]["labels"], json!({"x": "z"}));
        assert_eq!(out[1]["metadata"]["labels"], json!({"x": "z"}));
        // The merged namespace is written too.
        assert_eq!(out[0]["metadata"]["namespace"], "other");
    }

    #[test]
    fn patches_apply_in_order_and_lists_are_replaced() {
        let out = apply_manifest_patches(
            objs(),
            &[
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {template: {spec: {containers: [{name: x}]}}}\n".into(),
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {replicas: null}\n".into(),
            ],
        )
        .unwrap();
        assert_eq!(
            out[0]["spec"],
            json!({"template": {"spec": {"containers": [{"name": "x"}]}}})
        );
    }

    #[test]
    fn every_number_becomes_a_float() {
        let mut o = objs();
        o[2]["spec"] = json!({"ports": [{"port": 443}]});
        let out = apply_manifest_patches(o, &[]).unwrap();
        assert!(out[2]["spec"]["ports"][0]["port"].is_f64());
    }

    #[test]
    fn case_insensitive_identity() {
        let mi = match_info(
            &json!({"Kind": "Deployment", "APIVERSION": "apps/v1", "Metadata": {"Name": "a"}}),
        )
        .unwrap();
        assert_eq!(
            mi,
            MatchInfo {
                kind: "Deployment".into(),
                api_version: "apps/v1".into(),
                name: "a".into(),
                namespace: String::new()
            }
        );
    }

    #[test]
    fn malformed_patches() {
        let e = apply_manifest_patches(objs(), &["- a\n".into()]).unwrap_err();
        assert_eq!(e.message(), "failed to parse patches: failed to parse patch: failed to parse match info: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type patch.matchInfo");
        let e = apply_manifest_patches(objs(), &["kind: 5\n".into()]).unwrap_err();
        assert_eq!(e.message(), "failed to parse patches: failed to parse patch: failed to parse match info: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go struct field matchInfo.kind of type string");
    }
}
