//! R6.2: which Deployments get which customisation (`customizeObjectsFn`).
//!
//! * exactly one object of kind `Deployment` (any group) in the list: it gets the main
//!   `spec.deployment` + `spec.manager`, whatever its name;
//! * several: a Deployment named `ca*-controller-manager` gets the main spec (all of
//!   them, if several match); any other gets `additionalDeployments[<its name>]` when
//!   that key exists and is left untouched otherwise. An `additionalDeployments` key
//!   naming a `ca*-controller-manager` Deployment is ignored.
//!
//! The count is taken over the whole input list (Namespace objects included, which
//! cannot be Deployments anyway).

use serde_json::Value;

use super::spec::{DeploymentSpec, ManagerSpec, ProviderSpec};
use crate::components::filters::{kind, name};

/// What one Deployment gets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Selection<'a> {
    /// The provider's own `deployment`/`manager` (and `paused`, when set).
    Main {
        deployment: Option<&'a DeploymentSpec>,
        manager: Option<&'a ManagerSpec>,
    },
    /// `additionalDeployments[<name>]`.
    Additional {
        deployment: Option<&'a DeploymentSpec>,
        manager: Option<&'a ManagerSpec>,
    },
    /// Left as it is (and not round-tripped).
    Untouched,
}

/// `isMultipleDeployments`: more than one object of kind `Deployment`.
pub fn is_multiple_deployments(objs: &[Value]) -> bool {
    objs.iter().filter(|o| kind(o) == "Deployment").count() > 1
}

/// `isProviderManagerDeploymentName`: `ca*-controller-manager`.
pub fn is_provider_manager_deployment_name(name: &str) -> bool {
    name.starts_with("ca") && name.ends_with("-controller-manager")
}

/// The customisation for the Deployment `d`.
pub fn select<'a>(d: &Value, multiple: bool, spec: &'a ProviderSpec) -> Selection<'a> {
    let n = name(d);
    if multiple && !is_provider_manager_deployment_name(n) {
        return match spec.additional_deployments.as_ref().and_then(|m| m.get(n)) {
            Some(ad) => Selection::Additional {
                deployment: ad.deployment.as_ref(),
                manager: ad.manager.as_ref(),
            },
            None => Selection::Untouched,
        };
    }
    Selection::Main {
        deployment: spec.deployment.as_ref(),
        manager: spec.manager.as_ref(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dep(n: &str) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": n}})
    }

    fn spec() -> ProviderSpec {
        ProviderSpec::from_json(&json!({
            "manager": {"verbosity": 3},
            "additionalDeployments": {
                "helper": {"manager": {"verbosity": 5}},
                "capz-controller-manager": {"manager": {"verbosity": 7}},
            }
        }))
        .unwrap()
    }

    fn verbosity(s: Selection) -> Option<i64> {
        match s {
            Selection::Main { manager, .. } => manager.map(|m| m.verbosity),
            Selection::Additional { manager, .. } => manager.map(|m| 100 + m.verbosity),
            Selection::Untouched => None,
        }
    }

    #[test]
    fn a_single_deployment_gets_the_main_spec_whatever_its_name() {
        let s = spec();
        let objs = vec![dep("helper"), json!({"kind": "Service"})];
        assert!(!is_multiple_deployments(&objs));
        assert_eq!(verbosity(select(&objs[0], false, &s)), Some(3));
    }

    #[test]
    fn several_deployments_use_the_name_rule_and_additional_deployments() {
        let s = spec();
        let objs = vec![
            dep("capz-controller-manager"),
            dep("helper"),
            dep("other"),
            dep("cabpk-controller-manager"),
        ];
        assert!(is_multiple_deployments(&objs));
        let got: Vec<_> = objs
            .iter()
            .map(|o| verbosity(select(o, true, &s)))
            .collect();
        // The additionalDeployments key naming a ca*-controller-manager is ignored.
        assert_eq!(got, vec![Some(3), Some(105), None, Some(3)]);
    }

    #[test]
    fn name_rule() {
        assert!(is_provider_manager_deployment_name(
            "capi-controller-manager"
        ));
        assert!(is_provider_manager_deployment_name("ca-controller-manager"));
        assert!(!is_provider_manager_deployment_name(
            "azureserviceoperator-controller-manager"
        ));
        assert!(!is_provider_manager_deployment_name(
            "capi-controller-manager-2"
        ));
    }

    #[test]
    fn no_additional_deployments_leaves_others_untouched() {
        let s = ProviderSpec::default();
        assert_eq!(select(&dep("x"), true, &s), Selection::Untouched);
    }
}
