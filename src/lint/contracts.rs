//! The provider contracts' schema rules: InfraCluster, InfraMachine, bootstrap
//! config and control plane kinds have the fields Cluster API reads (v1beta1:
//! `status.ready` and friends; v1beta2: `status.initialization.*`), and their
//! `...Template` kinds exist.

use serde_json::Value;

use super::crds::{newest_label_contract, schema_at, Crd, Role};
use super::{file_finding, Doc, Finding, Severity};
use crate::provider::ProviderType;

/// (field path, JSON schema type) a role's schema must have under `contract`.
fn required(role: Role, contract: &str) -> Vec<(&'static str, &'static str)> {
    let v1beta2 = contract == "v1beta2";
    match role {
        Role::InfraCluster => {
            let mut r = vec![
                ("spec.controlPlaneEndpoint.host", "string"),
                ("spec.controlPlaneEndpoint.port", "integer"),
            ];
            r.push(if v1beta2 {
                ("status.initialization.provisioned", "boolean")
            } else {
                ("status.ready", "boolean")
            });
            r
        }
        Role::InfraMachine => vec![
            ("spec.providerID", "string"),
            if v1beta2 {
                ("status.initialization.provisioned", "boolean")
            } else {
                ("status.ready", "boolean")
            },
        ],
        Role::BootstrapConfig => vec![
            ("status.dataSecretName", "string"),
            if v1beta2 {
                ("status.initialization.dataSecretCreated", "boolean")
            } else {
                ("status.ready", "boolean")
            },
        ],
        Role::ControlPlane => {
            if v1beta2 {
                vec![("status.initialization.controlPlaneInitialized", "boolean")]
            } else {
                vec![
                    ("status.ready", "boolean"),
                    ("status.initialized", "boolean"),
                ]
            }
        }
        _ => vec![],
    }
}

fn rule_of(role: Role) -> &'static str {
    match role {
        Role::InfraCluster | Role::InfraClusterTemplate => "contract-infra-cluster",
        Role::InfraMachine | Role::InfraMachineTemplate => "contract-infra-machine",
        Role::BootstrapConfig | Role::BootstrapConfigTemplate => "contract-bootstrap",
        Role::ControlPlane | Role::ControlPlaneTemplate => "contract-control-plane",
    }
}

/// The contract rules over the CRDs among `docs` (a components file, or `-f`
/// inputs with `provider_type` and `contract` `None`); `file` names the components
/// file for a kind that is missing altogether.
pub fn check(
    docs: &[&Doc],
    provider_type: Option<ProviderType>,
    contract: Option<&str>,
    file: &str,
) -> Vec<Finding> {
    let crds: Vec<Crd> = docs.iter().filter_map(|d| Crd::of(d)).collect();
    let mut out = Vec::new();
    let needed: &[(Role, &str)] = match provider_type {
        Some(ProviderType::Infrastructure) => &[
            (
                Role::InfraCluster,
                "an InfraCluster (<Name>Cluster in infrastructure.cluster.x-k8s.io)",
            ),
            (
                Role::InfraMachine,
                "an InfraMachine (<Name>Machine in infrastructure.cluster.x-k8s.io)",
            ),
        ],
        Some(ProviderType::Bootstrap) => &[(
            Role::BootstrapConfig,
            "a bootstrap config (<Name>Config in bootstrap.cluster.x-k8s.io)",
        )],
        Some(ProviderType::ControlPlane) => &[(
            Role::ControlPlane,
            "a control plane (<Name>ControlPlane in controlplane.cluster.x-k8s.io)",
        )],
        _ => &[],
    };
    for (role, what) in needed {
        if !crds.iter().any(|c| c.role() == Some(*role)) {
            out.push(file_finding(
                rule_of(*role),
                Severity::Error,
                file,
                format!("the provider defines no CRD for {what}"),
            ));
        }
    }
    for c in &crds {
        let Some(role) = c.role() else { continue };
        let Some(contract) = contract.or_else(|| newest_label_contract(c)) else {
            continue;
        };
        let fields = required(role, contract);
        if !fields.is_empty() {
            let versions: Vec<&str> = c.contract_versions(contract).unwrap_or_else(|| c.served());
            for (name, _, schema, spath) in &c.versions {
                if !versions.contains(name) {
                    continue;
                }
                let Some(schema) = schema else { continue };
                for (path, ty) in &fields {
                    let segs: Vec<&str> = path.split('.').collect();
                    let got = schema_at(schema, &segs);
                    let got_ty = got.and_then(|s| s.get("type")).and_then(Value::as_str);
                    if got_ty != Some(ty) {
                        let found = match (got, got_ty) {
                            (None, _) => "it is missing".to_string(),
                            (Some(_), Some(t)) => format!("it is of type {t}"),
                            (Some(_), None) => "it has no type".to_string(),
                        };
                        out.push(c.doc.finding(
                            rule_of(role),
                            Severity::Error,
                            format!("{spath}.properties.{}", segs.join(".properties.")),
                            format!(
                                "{} {name} ({role:?}, contract {contract}) must have {path} ({ty}): {found}",
                                c.kind
                            ),
                        ));
                    }
                }
            }
        }
        if let Some(t) = role.template() {
            let tkind = format!("{}Template", c.kind);
            let have = crds
                .iter()
                .any(|x| x.kind == tkind && x.group == c.group && x.role() == Some(t));
            let for_class = matches!(role, Role::InfraCluster | Role::ControlPlane);
            if have || (for_class && matches!(contract, "v1alpha2" | "v1alpha3")) {
                continue;
            }
            let (sev, why) = if for_class {
                (Severity::Warning, "ClusterClasses cannot use it")
            } else {
                (
                    Severity::Error,
                    "MachineDeployments and MachineSets clone from it",
                )
            };
            out.push(c.doc.finding(
                "contract-template",
                sev,
                "spec.names.kind",
                format!(
                    "{} has no matching {tkind} kind in {}: {why}",
                    c.kind, c.group
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_per_contract() {
        assert!(required(Role::InfraCluster, "v1beta1").contains(&("status.ready", "boolean")));
        assert!(required(Role::InfraCluster, "v1beta2")
            .contains(&("status.initialization.provisioned", "boolean")));
        assert_eq!(
            required(Role::ControlPlane, "v1beta2"),
            [("status.initialization.controlPlaneInitialized", "boolean")]
        );
        assert!(required(Role::InfraMachineTemplate, "v1beta1").is_empty());
    }

    #[test]
    fn missing_kinds() {
        let f = check(
            &[],
            Some(ProviderType::Infrastructure),
            Some("v1beta1"),
            "i.yaml",
        );
        let rules: Vec<&str> = f.iter().map(|f| f.rule).collect();
        assert_eq!(rules, ["contract-infra-cluster", "contract-infra-machine"]);
        assert!(check(&[], Some(ProviderType::Core), None, "c.yaml").is_empty());
    }
}
