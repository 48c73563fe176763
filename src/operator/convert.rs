//! Conversion of provider objects to the v1alpha2 `ProviderSpec` (operator.md §2):
//! `operator.cluster.x-k8s.io/v1alpha1` (R2.1, incl. the `conversion-data`
//! annotation) and the proposal's `management.cluster.x-k8s.io/v1alpha1` (R2.4).

use crate::model::pointer::Pointer as _;
use serde_json::{Map, Value};

use super::api::{classify, ApiVersion, Origin, ProviderCr};
use crate::error::{Error, Result};
use crate::model::InputObject;

const CONVERSION_DATA: &str = "cluster.x-k8s.io/conversion-data";

/// The proposal's `manager.debug: true` (its "opinionated values for a debugging
/// session"): verbosity 5 and the profiler on localhost:6060.
const DEBUG_VERBOSITY: u64 = 5;
const DEBUG_PROFILER: &str = "localhost:6060";

/// Read one provider object into a [`ProviderCr`] with a v1alpha2 spec (not yet defaulted).
pub fn to_provider(o: &InputObject) -> Result<ProviderCr> {
    let (api, ptype) = classify(o)?;
    let origin = Origin {
        file: o.file.clone(),
        doc: o.doc,
    };
    let kind = o.value["kind"].as_str().unwrap_or("").to_string();
    let head = |msg: String| {
        let name = o.value.ptr("/metadata/name").and_then(Value::as_str);
        let ns = o.value.ptr("/metadata/namespace").and_then(Value::as_str);
        Error::new(format!(
            "{kind} {}/{} ({origin}): {msg}",
            ns.unwrap_or(""),
            name.unwrap_or("")
        ))
        .in_file(&o.file)
    };
    let name = o
        .value
        .ptr("/metadata/name")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| head("metadata.name is required".into()))?
        .to_string();
    let namespace = o
        .value
        .ptr("/metadata/namespace")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            head("metadata.namespace is required (providers are namespaced; it is the namespace the provider is installed in)".into())
        })?
        .to_string();
    let raw_spec = match o.value.get("spec") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => return Err(head("spec: must be a mapping".into())),
    };
    let (spec, paused) = match api {
        ApiVersion::V1alpha2 => (raw_spec, false),
        ApiVersion::V1alpha1 => {
            let ann = o
                .value
                .ptr(&format!(
                    "/metadata/annotations/{}",
                    CONVERSION_DATA.replace('/', "~1")
                ))
                .and_then(Value::as_str);
            (
                from_v1alpha1(&raw_spec, ann).map_err(|e| head(e.to_string()))?,
                false,
            )
        }
        ApiVersion::Proposal => {
            from_proposal(&raw_spec, &namespace).map_err(|e| head(e.to_string()))?
        }
    };
    let installed_version = o
        .value
        .ptr("/status/installedVersion")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    Ok(ProviderCr {
        origin,
        api,
        api_version: o.value["apiVersion"].as_str().unwrap_or("").to_string(),
        kind,
        ptype,
        name,
        namespace,
        spec,
        paused,
        installed_version,
    })
}

fn as_obj<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| Error::new(format!("{path}: must be a mapping")))
}

fn opt_str(m: &Map<String, Value>, k: &str, path: &str) -> Result<Option<String>> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Error::new(format!("{path}.{k}: must be a string"))),
    }
}

/// R2.1: `image{repository, name, tag}` → `imageUrl`.
pub fn image_url(image: &Value, path: &str) -> Result<String> {
    let m = as_obj(image, path)?;
    let repo = opt_str(m, "repository", path)?.unwrap_or_default();
    let name = opt_str(m, "name", path)?.unwrap_or_default();
    let tag = opt_str(m, "tag", path)?.unwrap_or_default();
    let mut s = if repo.is_empty() {
        name
    } else {
        format!("{repo}/{name}")
    };
    if !tag.is_empty() {
        s.push(':');
        s.push_str(&tag);
    }
    Ok(s)
}

/// Convert `deployment.containers[].image` to `imageUrl` in a deployment spec.
fn convert_containers(deployment: &mut Value, path: &str) -> Result<()> {
    let Some(d) = deployment.as_object_mut() else {
        if deployment.is_null() {
            return Ok(());
        }
        return Err(Error::new(format!("{path}: must be a mapping")));
    };
    let Some(cs) = d.get_mut("containers") else {
        return Ok(());
    };
    let Some(list) = cs.as_array_mut() else {
        if cs.is_null() {
            return Ok(());
        }
        return Err(Error::new(format!("{path}.containers: must be a list")));
    };
    for (i, c) in list.iter_mut().enumerate() {
        let cpath = format!("{path}.containers[{i}]");
        let cm = c
            .as_object_mut()
            .ok_or_else(|| Error::new(format!("{cpath}: must be a mapping")))?;
        if let Some(img) = cm.remove("image") {
            if !img.is_null() {
                let url = image_url(&img, &format!("{cpath}.image"))?;
                cm.insert("imageUrl".into(), Value::String(url));
            }
        }
    }
    Ok(())
}

/// R2.1: v1alpha1 spec → v1alpha2 spec; `conversion_data` is the
/// `cluster.x-k8s.io/conversion-data` annotation (a v1alpha2 object as JSON).
pub fn from_v1alpha1(spec: &Value, conversion_data: Option<&str>) -> Result<Value> {
    let mut m = as_obj(spec, "spec")?.clone();
    let secret_name = opt_str(&m, "secretName", "spec")?.unwrap_or_default();
    let secret_ns = opt_str(&m, "secretNamespace", "spec")?.unwrap_or_default();
    m.remove("secretName");
    m.remove("secretNamespace");
    if !secret_name.is_empty() || !secret_ns.is_empty() {
        let mut cs = Map::new();
        cs.insert("name".into(), Value::String(secret_name));
        if !secret_ns.is_empty() {
            cs.insert("namespace".into(), Value::String(secret_ns));
        }
        m.insert("configSecret".into(), Value::Object(cs));
    }
    if let Some(d) = m.get_mut("deployment") {
        convert_containers(d, "spec.deployment")?;
    }
    if let Some(data) = conversion_data {
        restore_v1alpha2_only(&mut m, data)?;
    }
    Ok(Value::Object(m))
}

/// `utilconversion.UnmarshalData`: fields only v1alpha2 has come back from the
/// annotation (manifestPatches, additionalDeployments, fetchConfig.oci,
/// manager.additionalArgs, patches).
fn restore_v1alpha2_only(m: &mut Map<String, Value>, data: &str) -> Result<()> {
    let v: Value = serde_json::from_str(data).map_err(|e| {
        Error::new(format!(
            "metadata.annotations[{CONVERSION_DATA}]: not valid JSON: {e}"
        ))
    })?;
    let Some(spec) = v.get("spec").filter(|s| s.is_object()) else {
        return Ok(());
    };
    for k in ["manifestPatches", "additionalDeployments", "patches"] {
        if let Some(x) = spec.get(k) {
            m.insert(k.into(), x.clone());
        }
    }
    if let Some(oci) = spec.ptr("/fetchConfig/oci") {
        let fc = m
            .entry("fetchConfig")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(fc) = fc.as_object_mut() {
            fc.insert("oci".into(), oci.clone());
        }
    }
    if let Some(aa) = spec.ptr("/manager/additionalArgs") {
        let mg = m
            .entry("manager")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(mg) = mg.as_object_mut() {
            mg.insert("additionalArgs".into(), aa.clone());
        }
    }
    Ok(())
}

/// R2.4: proposal spec → (v1alpha2 spec, paused).
pub fn from_proposal(spec: &Value, namespace: &str) -> Result<(Value, bool)> {
    let src = as_obj(spec, "spec")?;
    const KNOWN: &[&str] = &[
        "version",
        "manager",
        "deployment",
        "secretName",
        "fetchConfig",
        "paused",
    ];
    if let Some(k) = src.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(Error::new(format!(
            "spec.{k}: unknown field in management.cluster.x-k8s.io/v1alpha1 (the proposal's ProviderSpec has {})",
            KNOWN.join(", ")
        )));
    }
    let mut m = Map::new();
    if let Some(v) = src.get("version").filter(|v| !v.is_null()) {
        m.insert("version".into(), v.clone());
    }
    if let Some(name) = opt_str(src, "secretName", "spec")?.filter(|s| !s.is_empty()) {
        let mut cs = Map::new();
        cs.insert("name".into(), Value::String(name));
        cs.insert("namespace".into(), Value::String(namespace.to_string()));
        m.insert("configSecret".into(), Value::Object(cs));
    }
    if let Some(fc) = src.get("fetchConfig").filter(|v| !v.is_null()) {
        let fm = as_obj(fc, "spec.fetchConfig")?;
        if let Some(k) = fm.keys().find(|k| *k != "url" && *k != "selector") {
            return Err(Error::new(format!(
                "spec.fetchConfig.{k}: unknown field in management.cluster.x-k8s.io/v1alpha1 (url or selector)"
            )));
        }
        m.insert("fetchConfig".into(), fc.clone());
    }
    if let Some(d) = src.get("deployment").filter(|v| !v.is_null()) {
        let mut d = d.clone();
        convert_containers(&mut d, "spec.deployment")?;
        m.insert("deployment".into(), d);
    }
    if let Some(mg) = src.get("manager").filter(|v| !v.is_null()) {
        let mut mm = as_obj(mg, "spec.manager")?.clone();
        let debug = match mm.remove("debug") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => false,
            Some(Value::Bool(true)) => true,
            Some(_) => return Err(Error::new("spec.manager.debug: must be a boolean")),
        };
        if debug {
            // The proposal: "Debug, if set, will override a set of fields with
            // opinionated values for a debugging session (Verbosity=5,
            // ProfilerAddress=localhost:6060)".
            mm.insert("verbosity".into(), Value::from(DEBUG_VERBOSITY));
            mm.insert(
                "profilerAddress".into(),
                Value::String(DEBUG_PROFILER.into()),
            );
        }
        m.insert("manager".into(), Value::Object(mm));
    }
    let paused = match src.get("paused") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(Error::new("spec.paused: must be a boolean")),
    };
    Ok((Value::Object(m), paused))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn image_meta_to_url() {
        let f = |v: Value| image_url(&v, "x").unwrap();
        assert_eq!(
            f(json!({"repository": "r/ns", "name": "img", "tag": "t"})),
            "r/ns/img:t"
        );
        assert_eq!(f(json!({"name": "img", "tag": "t"})), "img:t");
        assert_eq!(f(json!({"repository": "r", "name": "img"})), "r/img");
        assert_eq!(f(json!({})), "");
    }

    #[test]
    fn v1alpha1_secret_and_images() {
        let s = from_v1alpha1(
            &json!({"version": "v1.0.0", "secretName": "s",
                    "deployment": {"containers": [{"name": "manager", "image": {"repository": "r", "name": "n", "tag": "t"}}]}}),
            None,
        )
        .unwrap();
        assert_eq!(s["configSecret"], json!({"name": "s"}));
        assert_eq!(s["deployment"]["containers"][0]["imageUrl"], "r/n:t");
        assert!(s["deployment"]["containers"][0].get("image").is_none());
        assert!(s.get("secretName").is_none());
        // Only the namespace set still creates configSecret (R2.1).
        let s = from_v1alpha1(&json!({"secretNamespace": "x"}), None).unwrap();
        assert_eq!(s["configSecret"], json!({"name": "", "namespace": "x"}));
    }

    #[test]
    fn v1alpha1_conversion_data_restores_v1alpha2_fields() {
        let ann = r#"{"spec":{"manifestPatches":["a: b"],"fetchConfig":{"oci":"reg/x:v1"},"manager":{"additionalArgs":{"--x":"1"}}}}"#;
        let s = from_v1alpha1(&json!({"manager": {"verbosity": 2}}), Some(ann)).unwrap();
        assert_eq!(s["manifestPatches"], json!(["a: b"]));
        assert_eq!(s["fetchConfig"]["oci"], "reg/x:v1");
        assert_eq!(
            s["manager"],
            json!({"verbosity": 2, "additionalArgs": {"--x": "1"}})
        );
        assert!(from_v1alpha1(&json!({}), Some("{")).is_err());
    }

    #[test]
    fn proposal_translation() {
        let (s, paused) = from_proposal(
            &json!({"version": "v1.0.0", "secretName": "vars", "paused": true,
                    "manager": {"debug": true, "verbosity": 2, "featureGates": {"A": true}},
                    "fetchConfig": {"url": "https://github.com/o/r/releases"}}),
            "ns1",
        )
        .unwrap();
        assert!(paused);
        assert_eq!(
            s["configSecret"],
            json!({"name": "vars", "namespace": "ns1"})
        );
        assert_eq!(
            s["manager"],
            json!({"verbosity": 5, "profilerAddress": "localhost:6060", "featureGates": {"A": true}})
        );
        let e = from_proposal(&json!({"additionalManifests": {"name": "x"}}), "n").unwrap_err();
        assert!(
            e.message()
                .contains("spec.additionalManifests: unknown field"),
            "{e}"
        );
        let e = from_proposal(&json!({"paused": "yes"}), "n").unwrap_err();
        assert_eq!(e.message(), "spec.paused: must be a boolean");
    }
}
