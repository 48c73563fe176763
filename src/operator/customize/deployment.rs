//! R6.3.1–R6.3.6 and the driver of R6.3/R6.4 for one Deployment
//! (`customizeDeployment`, `customizeDeploymentSpec`): Deployment-level fields first,
//! then each `containers[]` entry in order (R6.3.7, [`super::containers`]), then the
//! manager container ([`super::manager`]), so manager settings win on conflicts.
//!
//! `d` is the Deployment after the typed apps/v1 round trip; values are assigned as
//! JSON and normalised by the round trip that follows (as the operator's typed
//! assignment and conversion back do).

use serde_json::Value;

use super::containers::customize_container;
use super::manager::{customize_manager_container, find_manager_container};
use super::podspec::{map_at, pod_spec_mut};
use super::spec::{DeploymentSpec, ManagerSpec};
use crate::components::filters::name;
use crate::error::{Error, Result};
use crate::go::quote::quote as go_quote;

/// `customizeDeploymentSpec`.
pub fn customize_deployment_spec(ds: &DeploymentSpec, d: &mut Value) -> Result<()> {
    if let Some(r) = ds.replicas {
        // `int32(*dSpec.Replicas)`: Go's conversion wraps.
        map_at(d, &["spec"]).insert("replicas".into(), Value::from(r as i32 as i64));
    }
    let ps = pod_spec_mut(d);
    if let Some(a) = &ds.affinity {
        ps.insert("affinity".into(), a.clone());
    }
    if let Some(n) = &ds.node_selector {
        ps.insert("nodeSelector".into(), n.clone());
    }
    if let Some(t) = &ds.tolerations {
        ps.insert("tolerations".into(), t.clone());
    }
    if !ds.service_account_name.is_empty() {
        ps.insert(
            "serviceAccountName".into(),
            Value::String(ds.service_account_name.clone()),
        );
    }
    if let Some(s) = &ds.image_pull_secrets {
        ps.insert("imagePullSecrets".into(), s.clone());
    }
    for c in &ds.containers {
        customize_container(c, d)?;
    }
    Ok(())
}

/// `customizeDeployment`: deployment spec, then manager container.
pub fn customize_deployment(
    ds: Option<&DeploymentSpec>,
    ms: Option<&ManagerSpec>,
    d: &mut Value,
) -> Result<()> {
    if let Some(ds) = ds {
        customize_deployment_spec(ds, d)?;
    }
    if let Some(ms) = ms {
        let dn = name(d).to_string();
        let c = find_manager_container(d).ok_or_else(|| {
            Error::new(format!(
                "cannot find \"manager\" container in deployment {}",
                go_quote(&dn)
            ))
        })?;
        customize_manager_container(ms, c)
            .map_err(|e| e.wrap("failed to customize manager container"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operator::customize::spec::ProviderSpec;
    use serde_json::json;

    fn dep() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "capi-controller-manager"},
               "spec": {"replicas": 1, "template": {"spec": {
                   "nodeSelector": {"a": "b"},
                   "tolerations": [{"key": "k", "effect": "NoSchedule"}],
                   "imagePullSecrets": [{"name": "old"}],
                   "serviceAccountName": "sa",
                   "affinity": {"nodeAffinity": {}},
                   "containers": [{"name": "manager", "image": "gcr.io/a/b:1", "args": ["--v=1"]}]}}}})
    }

    fn spec(j: Value) -> ProviderSpec {
        ProviderSpec::from_json(&j).unwrap()
    }

    fn pod(d: &Value) -> &Value {
        &d["spec"]["template"]["spec"]
    }

    #[test]
    fn replicas_including_zero() {
        let mut d = dep();
        let s = spec(json!({"deployment": {"replicas": 0}}));
        customize_deployment(s.deployment.as_ref(), None, &mut d).unwrap();
        assert_eq!(d["spec"]["replicas"], json!(0));
        let s = spec(json!({"deployment": {"replicas": 3}}));
        customize_deployment(s.deployment.as_ref(), None, &mut d).unwrap();
        assert_eq!(d["spec"]["replicas"], json!(3));
    }

    #[test]
    fn affinity_replaced_wholesale() {
        let mut d = dep();
        let aff =
            json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": []}});
        let s = spec(json!({"deployment": {"affinity": aff}}));
        customize_deployment(s.deployment.as_ref(), None, &mut d).unwrap();
        assert_eq!(pod(&d)["affinity"], aff);
    }

    #[test]
    fn node_selector_replaced_and_empty_clears() {
        let mut d = dep();
        let s = spec(json!({"deployment": {"nodeSelector": {"x": "y"}}}));
        customize_deployment(s.deployment.as_ref(), None, &mut d).unwrap();
        assert_eq!(pod(&d)["nodeSelector"], json!({"x": "y"}));
        let s = spec(json!({"deployment": {"nodeSelector": {}}}));
        customize_deployment(s.deployment.as_ref(), None, &mut d).unwrap();
        assert_eq!(pod(&d)["nodeSelector"], json!({}));
    }

    #[test]
    fn tolerations_replaced_and_empty_list_clears_null_keeps() {
        let mut d = dep();
        let s = spec(json!({"deployment": {"tolerations": null}}));
        customize_deployment(s.deployment.as_ref(), None, &mut d).unwrap();
        assert_eq!(pod(&d)["tolerations"].as_array().unwrap().len(), 1);
        let s = spec(json!({"deployment": {"tolerations": []}}));
        customize_deployment(s.deployment.as_ref(), None, &mut d).unwrap();
        assert_eq!(pod(&d)["tolerations"], json!([]));
    }

    #[test]
    fn service_account_only_when_non_empty() {
        let mut d = dep();
        let s = spec(json!({"deployment": {"serviceAccountName": ""}}));
        customize_deployment(s.deployment.as_ref(), None, &mut d).unwrap();
        assert_eq!(pod(&d)["serviceAccountName"], "sa");
        let s = spec(json!({"deployment": {"serviceAccountName": "other"}}));
        customize_deployment(s.deployment.as_ref(), None, &mut d).unwrap();
        assert_eq!(pod(&d)["serviceAccountName"], "other");
    }

    #[test]
    fn image_pull_secrets_replaced_and_empty_clears() {
        let mut d = dep();
        let s = spec(json!({"deployment": {"imagePullSecrets": [{"name": "new"}]}}));
        customize_deployment(s.deployment.as_ref(), None, &mut d).unwrap();
        assert_eq!(pod(&d)["imagePullSecrets"], json!([{"name": "new"}]));
        let s = spec(json!({"deployment": {"imagePullSecrets": []}}));
        customize_deployment(s.deployment.as_ref(), None, &mut d).unwrap();
        assert_eq!(pod(&d)["imagePullSecrets"], json!([]));
    }

    #[test]
    fn manager_wins_over_container_args() {
        let mut d = dep();
        let s = spec(json!({
            "deployment": {"containers": [{"name": "manager", "args": {"--v": "4", "--extra": "x"}}]},
            "manager": {"verbosity": 2}
        }));
        customize_deployment(s.deployment.as_ref(), s.manager.as_ref(), &mut d).unwrap();
        assert_eq!(
            pod(&d)["containers"][0]["args"],
            json!(["--v=2", "--extra=x"])
        );
    }

    #[test]
    fn no_containers_with_a_manager_spec_fails() {
        let mut d = json!({"kind": "Deployment", "metadata": {"name": "x"}, "spec": {"template": {"spec": {"containers": null}}}});
        let s = spec(json!({"manager": {"verbosity": 1}}));
        let e = customize_deployment(None, s.manager.as_ref(), &mut d).unwrap_err();
        assert_eq!(
            e.message(),
            "cannot find \"manager\" container in deployment \"x\""
        );
    }
}
