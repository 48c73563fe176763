//! What the API server would do to a provider object before the operator sees it
//! (operator.md §1.5): CEL rules (R1.5.1, R1.5.2), minimums (R1.5.4), the CRD default
//! `verbosity: 1` (R1.5.3) and the mutating webhook's namespace defaults (R1.5.5).

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// Validate `spec` (v1alpha2 shape) against the CRD rules and apply the defaults,
/// `namespace` being the provider's namespace.
pub fn apply(spec: &mut Value, namespace: &str) -> Result<()> {
    let m = spec
        .as_object_mut()
        .ok_or_else(|| Error::new("spec: must be a mapping"))?;
    check_types(m)?;
    check_cel(m)?;
    check_minimums(m)?;
    if let Some(mg) = m.get_mut("manager") {
        default_verbosity(mg);
    }
    if let Some(Value::Object(ads)) = m.get_mut("additionalDeployments") {
        for ad in ads.values_mut() {
            if let Some(mg) = ad.get_mut("manager") {
                default_verbosity(mg);
            }
        }
    }
    for key in ["configSecret", "additionalManifests"] {
        if let Some(Value::Object(r)) = m.get_mut(key) {
            let empty = r
                .get("namespace")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty);
            if empty {
                r.insert("namespace".into(), Value::String(namespace.to_string()));
            }
        }
    }
    Ok(())
}

/// R1.5.3: `verbosity` defaults to 1 whenever a manager object is present.
fn default_verbosity(manager: &mut Value) {
    if let Value::Object(mg) = manager {
        if mg.get("verbosity").is_none_or(Value::is_null) {
            mg.insert("verbosity".into(), Value::from(1u64));
        }
    }
}

fn present(m: &Map<String, Value>, k: &str) -> bool {
    m.get(k).is_some_and(|v| !v.is_null())
}

/// The shapes the rest of the pipeline relies on.
fn check_types(m: &Map<String, Value>) -> Result<()> {
    let want = |k: &str, ok: fn(&Value) -> bool, what: &str| -> Result<()> {
        match m.get(k) {
            Some(v) if !v.is_null() && !ok(v) => {
                Err(Error::new(format!("spec.{k}: must be {what}")))
            }
            _ => Ok(()),
        }
    };
    want("version", Value::is_string, "a string")?;
    for k in [
        "manager",
        "deployment",
        "configSecret",
        "fetchConfig",
        "additionalManifests",
        "additionalDeployments",
    ] {
        want(k, Value::is_object, "a mapping")?;
    }
    want("manifestPatches", Value::is_array, "a list")?;
    want("patches", Value::is_array, "a list")?;
    for k in ["configSecret", "additionalManifests"] {
        if let Some(r) = m.get(k).and_then(Value::as_object) {
            if r.get("name")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                return Err(Error::new(format!("spec.{k}.name: Required value")));
            }
            if r.get("namespace")
                .is_some_and(|v| !v.is_null() && !v.is_string())
            {
                return Err(Error::new(format!("spec.{k}.namespace: must be a string")));
            }
        }
    }
    if let Some(fc) = m.get("fetchConfig").and_then(Value::as_object) {
        for k in ["url", "oci"] {
            if fc.get(k).is_some_and(|v| !v.is_null() && !v.is_string()) {
                return Err(Error::new(format!(
                    "spec.fetchConfig.{k}: must be a string"
                )));
            }
        }
        if fc
            .get("selector")
            .is_some_and(|v| !v.is_null() && !v.is_object())
        {
            return Err(Error::new("spec.fetchConfig.selector: must be a mapping"));
        }
    }
    Ok(())
}

/// R1.5.1, R1.5.2 (the CEL rules, with the API server's messages).
fn check_cel(m: &Map<String, Value>) -> Result<()> {
    if let Some(fc) = m.get("fetchConfig").and_then(Value::as_object) {
        let n = ["oci", "url", "selector"]
            .iter()
            .filter(|k| present(fc, k))
            .count();
        if n != 1 {
            return Err(Error::new(
                "spec.fetchConfig: Invalid value: \"object\": Must specify one and only one of {oci, url, selector}",
            ));
        }
    }
    if present(m, "patches") && present(m, "manifestPatches") {
        return Err(Error::new(
            "spec: Invalid value: \"object\": Cannot set both 'patches' and 'manifestPatches'",
        ));
    }
    Ok(())
}

fn check_min(v: Option<&Value>, path: &str, min: f64) -> Result<()> {
    match v {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Number(n)) => {
            let f = n.as_f64().unwrap_or(0.0);
            if f.fract() != 0.0 {
                return Err(Error::new(format!("{path}: must be an integer")));
            }
            if f < min {
                return Err(Error::new(format!(
                    "{path}: Invalid value: {f}: {path} in body should be greater than or equal to {min}"
                )));
            }
            Ok(())
        }
        Some(_) => Err(Error::new(format!("{path}: must be an integer"))),
    }
}

/// R1.5.4.
fn check_minimums(m: &Map<String, Value>) -> Result<()> {
    let mut managers = vec![("spec.manager".to_string(), m.get("manager"))];
    let mut deployments = vec![("spec.deployment".to_string(), m.get("deployment"))];
    if let Some(ads) = m.get("additionalDeployments").and_then(Value::as_object) {
        for (k, ad) in ads {
            let p = format!("spec.additionalDeployments.{k}");
            managers.push((format!("{p}.manager"), ad.get("manager")));
            deployments.push((format!("{p}.deployment"), ad.get("deployment")));
        }
    }
    for (p, mg) in managers {
        if let Some(mg) = mg.and_then(Value::as_object) {
            check_min(mg.get("verbosity"), &format!("{p}.verbosity"), 0.0)?;
            check_min(
                mg.get("maxConcurrentReconciles"),
                &format!("{p}.maxConcurrentReconciles"),
                1.0,
            )?;
        }
    }
    for (p, d) in deployments {
        if let Some(d) = d.and_then(Value::as_object) {
            check_min(d.get("replicas"), &format!("{p}.replicas"), 0.0)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(v: Value) -> Result<Value> {
        let mut v = v;
        apply(&mut v, "ns").map(|_| v)
    }

    #[test]
    fn defaults() {
        let v = run(json!({"manager": {"featureGates": {"A": true}},
                           "additionalDeployments": {"x": {"manager": {}}, "y": {"deployment": {}}},
                           "configSecret": {"name": "s"},
                           "additionalManifests": {"name": "m", "namespace": "other"}}))
        .unwrap();
        assert_eq!(v["manager"]["verbosity"], 1);
        assert_eq!(v["additionalDeployments"]["x"]["manager"]["verbosity"], 1);
        assert!(v["additionalDeployments"]["y"].get("manager").is_none());
        assert_eq!(v["configSecret"]["namespace"], "ns");
        assert_eq!(v["additionalManifests"]["namespace"], "other");
        // An explicit 0 stays.
        let v = run(json!({"manager": {"verbosity": 0}})).unwrap();
        assert_eq!(v["manager"]["verbosity"], 0);
        // No manager: nothing added.
        assert!(run(json!({})).unwrap().get("manager").is_none());
    }

    #[test]
    fn cel_rules() {
        for fc in [json!({}), json!({"url": "u", "oci": "o"})] {
            let e = run(json!({"fetchConfig": fc})).unwrap_err();
            assert!(e
                .message()
                .ends_with("Must specify one and only one of {oci, url, selector}"));
        }
        assert!(run(json!({"fetchConfig": {"selector": {}}})).is_ok());
        let e = run(json!({"patches": [], "manifestPatches": []})).unwrap_err();
        assert!(e
            .message()
            .ends_with("Cannot set both 'patches' and 'manifestPatches'"));
    }

    #[test]
    fn minimums_and_types() {
        let e = run(json!({"deployment": {"replicas": -1}})).unwrap_err();
        assert!(
            e.message()
                .starts_with("spec.deployment.replicas: Invalid value: -1"),
            "{e}"
        );
        let e = run(json!({"manager": {"maxConcurrentReconciles": 0}})).unwrap_err();
        assert!(
            e.message()
                .starts_with("spec.manager.maxConcurrentReconciles"),
            "{e}"
        );
        let e = run(json!({"additionalDeployments": {"d": {"manager": {"verbosity": -2}}}}))
            .unwrap_err();
        assert!(
            e.message()
                .starts_with("spec.additionalDeployments.d.manager.verbosity"),
            "{e}"
        );
        let e = run(json!({"version": 1})).unwrap_err();
        assert_eq!(e.message(), "spec.version: must be a string");
        let e = run(json!({"configSecret": {}})).unwrap_err();
        assert_eq!(e.message(), "spec.configSecret.name: Required value");
    }
}
