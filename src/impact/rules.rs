//! Cluster API's up-to-date rules, per kind and API version: which changed field paths
//! of a control plane, MachineDeployment or MachinePool replace machines (`rollout`),
//! which are propagated to existing machines (`in-place`), and which the provider
//! decides at run time (`unknown`). Any other path (the object's own labels, the
//! rollout strategy, remediation, ...) touches no machine.
//!
//! Sources (Cluster API v1.14.2 for `v1beta2`, v1.10 for `v1beta1`):
//! * MachineDeployment: `mdutil.MachineTemplateUpToDate` and
//!   `MachineTemplateDeepCopyRolloutFields`. v1.14 compares `version`, `bootstrap`,
//!   `infrastructureRef` and `failureDomain` of the machine template; v1.10 compares the
//!   whole template spec except `readinessGates` and the node timeouts. Both propagate
//!   the template metadata, the timeouts and `minReadySeconds` in place; `rollout.after`
//!   (`rolloutAfter`) replaces every machine.
//! * KubeadmControlPlane: `controlplane/kubeadm/pkg/filters.go` `UpToDate` (v1.14;
//!   `internal/filters.go` in v1.10): `version`, the infrastructure template ref,
//!   `kubeadmConfigSpec` and `rollout.after` (`rolloutAfter`); the machine template
//!   metadata and timeouts propagate in place. Not compared: `clusterConfiguration.dns`
//!   (KCP updates CoreDNS in the workload cluster: in place) and
//!   `joinConfiguration.discovery` (used by the next join only); in v1.14 also
//!   `initConfiguration` (an existing init machine is compared as a join machine:
//!   `PrepareKubeadmConfigsForDiff`), the control plane component health check timeout
//!   and `controlPlaneEndpoint`.
//! * MachinePool: the infrastructure provider replaces instances; a `version` change
//!   always does, the bootstrap and infrastructure objects are the provider's decision.

use serde_json::Value;

use super::paths::{at, changed, under};
use super::Action;

/// The rules for one kind at one API version.
pub struct Rules {
    /// Paths that touch no machine although a broader path below would (checked first).
    pub none: &'static [&'static str],
    pub in_place: &'static [&'static str],
    pub rollout: &'static [&'static str],
    /// Under this path, any change not `in_place` replaces machines (v1.10's whole
    /// template comparison).
    pub rollout_rest: Option<&'static str>,
    pub unknown: &'static [&'static str],
    /// Where the infrastructure and bootstrap references are (`kind` + `name`).
    pub refs: &'static [&'static str],
    /// What a changed referenced object's spec does.
    pub ref_spec: Action,
}

const MD_V1BETA2: Rules = Rules {
    none: &[],
    in_place: &[
        "spec.replicas",
        "spec.template.metadata",
        "spec.template.spec.minReadySeconds",
        "spec.template.spec.readinessGates",
        "spec.template.spec.deletion",
        "spec.template.spec.taints",
    ],
    rollout: &[
        "spec.template.spec.version",
        "spec.template.spec.bootstrap",
        "spec.template.spec.infrastructureRef",
        "spec.template.spec.failureDomain",
        "spec.rollout.after",
    ],
    rollout_rest: None,
    unknown: &[],
    refs: &[
        "spec.template.spec.infrastructureRef",
        "spec.template.spec.bootstrap.configRef",
    ],
    ref_spec: Action::Rollout,
};

const MD_V1BETA1: Rules = Rules {
    none: &[],
    in_place: &[
        "spec.replicas",
        "spec.minReadySeconds",
        "spec.template.metadata",
        "spec.template.spec.readinessGates",
        "spec.template.spec.nodeDrainTimeout",
        "spec.template.spec.nodeVolumeDetachTimeout",
        "spec.template.spec.nodeDeletionTimeout",
    ],
    rollout: &["spec.rolloutAfter"],
    rollout_rest: Some("spec.template.spec"),
    unknown: &[],
    refs: &[
        "spec.template.spec.infrastructureRef",
        "spec.template.spec.bootstrap.configRef",
    ],
    ref_spec: Action::Rollout,
};

const KCP_V1BETA2: Rules = Rules {
    none: &[
        "spec.kubeadmConfigSpec.initConfiguration",
        "spec.kubeadmConfigSpec.joinConfiguration.discovery",
        "spec.kubeadmConfigSpec.joinConfiguration.timeouts.controlPlaneComponentHealthCheckSeconds",
        "spec.kubeadmConfigSpec.clusterConfiguration.controlPlaneEndpoint",
    ],
    in_place: &[
        "spec.replicas",
        "spec.kubeadmConfigSpec.clusterConfiguration.dns",
        "spec.machineTemplate.metadata",
        "spec.machineTemplate.spec.deletion",
        "spec.machineTemplate.spec.readinessGates",
    ],
    rollout: &[
        "spec.version",
        "spec.kubeadmConfigSpec",
        "spec.machineTemplate.spec.infrastructureRef",
        "spec.rollout.after",
    ],
    rollout_rest: None,
    unknown: &[],
    refs: &["spec.machineTemplate.spec.infrastructureRef"],
    ref_spec: Action::Rollout,
};

const KCP_V1BETA1: Rules = Rules {
    none: &["spec.kubeadmConfigSpec.joinConfiguration.discovery"],
    in_place: &[
        "spec.replicas",
        "spec.kubeadmConfigSpec.clusterConfiguration.dns",
        "spec.machineTemplate.metadata",
        "spec.machineTemplate.nodeDrainTimeout",
        "spec.machineTemplate.nodeVolumeDetachTimeout",
        "spec.machineTemplate.nodeDeletionTimeout",
    ],
    rollout: &[
        "spec.version",
        "spec.kubeadmConfigSpec",
        "spec.machineTemplate.infrastructureRef",
        "spec.rolloutAfter",
    ],
    rollout_rest: None,
    unknown: &[],
    refs: &["spec.machineTemplate.infrastructureRef"],
    ref_spec: Action::Rollout,
};

const MP: Rules = Rules {
    none: &[],
    in_place: &[
        "spec.replicas",
        "spec.minReadySeconds",
        "spec.template.metadata",
        "spec.template.spec.minReadySeconds",
        "spec.template.spec.deletion",
        "spec.template.spec.nodeDrainTimeout",
        "spec.template.spec.nodeVolumeDetachTimeout",
        "spec.template.spec.nodeDeletionTimeout",
    ],
    rollout: &["spec.template.spec.version"],
    rollout_rest: None,
    unknown: &[
        "spec.template.spec.bootstrap",
        "spec.template.spec.infrastructureRef",
        "spec.failureDomains",
    ],
    refs: &[
        "spec.template.spec.infrastructureRef",
        "spec.template.spec.bootstrap.configRef",
    ],
    ref_spec: Action::Unknown,
};

/// What a set of machines is: the control plane, a MachineDeployment or a MachinePool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    ControlPlane,
    MachineDeployment,
    MachinePool,
}

impl Owner {
    /// How reports name it: `control plane`, `MachineDeployment`, `MachinePool`.
    pub fn label(self) -> &'static str {
        match self {
            Owner::ControlPlane => "control plane",
            Owner::MachineDeployment => "MachineDeployment",
            Owner::MachinePool => "MachinePool",
        }
    }
}

/// The rules for `owner` at `api_version` (`cluster.x-k8s.io/v1beta1` or
/// `controlplane.cluster.x-k8s.io/v1beta1`: the v1.10 rules; any other: v1.14's).
pub fn rules(owner: Owner, api_version: &str) -> &'static Rules {
    let v1beta1 = api_version.ends_with("/v1beta1");
    match (owner, v1beta1) {
        (Owner::ControlPlane, true) => &KCP_V1BETA1,
        (Owner::ControlPlane, false) => &KCP_V1BETA2,
        (Owner::MachineDeployment, true) => &MD_V1BETA1,
        (Owner::MachineDeployment, false) => &MD_V1BETA2,
        (Owner::MachinePool, _) => &MP,
    }
}

const INIT: &str = "spec.kubeadmConfigSpec.initConfiguration";
const JOIN: &str = "spec.kubeadmConfigSpec.joinConfiguration";

/// Cluster API v1.14 compares the first control plane machine (made by `kubeadm init`)
/// as a join machine: its old `initConfiguration` (node registration, patches, skipped
/// phases, timeouts but the control plane health check's, local API endpoint) against
/// the new `joinConfiguration`, and only when those differ against the new
/// `initConfiguration` (`PrepareKubeadmConfigsForDiff`). So a change under
/// `initConfiguration` alone replaces that machine only when the old init settings
/// differ from the new join settings; the reason when it does.
pub fn init_machine_rolls(old: &Value, new: &Value) -> Option<String> {
    if changed(at(old, INIT), at(new, INIT)).is_empty() {
        return None;
    }
    let empty = |v: Option<&Value>| match v {
        None | Some(Value::Null) => true,
        Some(Value::Object(m)) => m.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        _ => false,
    };
    let same = |a: Option<&Value>, b: Option<&Value>| a == b || (empty(a) && empty(b));
    let timeouts = |v: &Value, base: &str| {
        let mut t = at(v, &format!("{base}.timeouts")).cloned();
        if let Some(Value::Object(m)) = t.as_mut() {
            m.remove("controlPlaneComponentHealthCheckSeconds");
        }
        t
    };
    let differs = ["nodeRegistration", "patches", "skipPhases"]
        .iter()
        .any(|f| {
            !same(
                at(old, &format!("{INIT}.{f}")),
                at(new, &format!("{JOIN}.{f}")),
            )
        })
        || !same(timeouts(old, INIT).as_ref(), timeouts(new, JOIN).as_ref())
        || !same(
            at(old, &format!("{INIT}.localAPIEndpoint")),
            at(new, &format!("{JOIN}.controlPlane.localAPIEndpoint")),
        );
    differs.then(|| {
        format!("{INIT}: the first control plane machine (kubeadm init) is replaced: its old initConfiguration differs from the new joinConfiguration")
    })
}

/// What one changed field path of the owner does.
pub fn classify(r: &Rules, path: &str) -> Action {
    let any = |list: &[&str]| list.iter().any(|p| under(path, p));
    if any(r.none) {
        Action::None
    } else if any(r.in_place) {
        Action::InPlace
    } else if any(r.rollout) || r.rollout_rest.is_some_and(|p| under(path, p)) {
        Action::Rollout
    } else if any(r.unknown) {
        Action::Unknown
    } else {
        Action::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V2: &str = "cluster.x-k8s.io/v1beta2";
    const V1: &str = "cluster.x-k8s.io/v1beta1";

    #[test]
    fn machine_deployment_v1beta2_follows_machine_template_up_to_date() {
        let r = rules(Owner::MachineDeployment, V2);
        for p in [
            "spec.template.spec.version",
            "spec.template.spec.infrastructureRef.name",
            "spec.template.spec.bootstrap.configRef.name",
            "spec.template.spec.failureDomain",
            "spec.rollout.after",
        ] {
            assert_eq!(classify(r, p), Action::Rollout, "{p}");
        }
        for p in [
            "spec.replicas",
            "spec.template.metadata.labels.tier",
            "spec.template.spec.deletion.nodeDrainTimeoutSeconds",
            "spec.template.spec.minReadySeconds",
            "spec.template.spec.taints",
        ] {
            assert_eq!(classify(r, p), Action::InPlace, "{p}");
        }
        assert_eq!(
            classify(r, "spec.rollout.strategy.rollingUpdate.maxSurge"),
            Action::None
        );
        assert_eq!(classify(r, "metadata.labels.a"), Action::None);
    }

    #[test]
    fn machine_deployment_v1beta1_compares_the_whole_template_spec() {
        let r = rules(Owner::MachineDeployment, V1);
        assert_eq!(classify(r, "spec.template.spec.version"), Action::Rollout);
        assert_eq!(
            classify(r, "spec.template.spec.providerID"),
            Action::Rollout
        );
        assert_eq!(classify(r, "spec.rolloutAfter"), Action::Rollout);
        assert_eq!(
            classify(r, "spec.template.spec.nodeDrainTimeout"),
            Action::InPlace
        );
        assert_eq!(classify(r, "spec.minReadySeconds"), Action::InPlace);
        assert_eq!(classify(r, "spec.strategy.type"), Action::None);
    }

    #[test]
    fn control_plane_follows_kcp_up_to_date() {
        for (v, infra, timeout) in [
            (
                "controlplane.cluster.x-k8s.io/v1beta2",
                "spec.machineTemplate.spec.infrastructureRef.name",
                "spec.machineTemplate.spec.deletion.nodeDrainTimeoutSeconds",
            ),
            (
                "controlplane.cluster.x-k8s.io/v1beta1",
                "spec.machineTemplate.infrastructureRef.name",
                "spec.machineTemplate.nodeDrainTimeout",
            ),
        ] {
            let r = rules(Owner::ControlPlane, v);
            assert_eq!(classify(r, "spec.version"), Action::Rollout, "{v}");
            assert_eq!(classify(r, infra), Action::Rollout, "{v}");
            assert_eq!(
                classify(r, "spec.kubeadmConfigSpec.files"),
                Action::Rollout,
                "{v}"
            );
            assert_eq!(classify(r, timeout), Action::InPlace, "{v}");
            assert_eq!(classify(r, "spec.replicas"), Action::InPlace, "{v}");
            assert_eq!(
                classify(r, "spec.machineTemplate.metadata.labels.a"),
                Action::InPlace
            );
        }
    }

    #[test]
    fn kcp_leaves_dns_to_the_workload_cluster_and_discovery_to_the_next_join() {
        for v in [
            "controlplane.cluster.x-k8s.io/v1beta2",
            "controlplane.cluster.x-k8s.io/v1beta1",
        ] {
            let r = rules(Owner::ControlPlane, v);
            let dns = "spec.kubeadmConfigSpec.clusterConfiguration.dns.imageTag";
            assert_eq!(classify(r, dns), Action::InPlace, "{v}");
            let discovery = "spec.kubeadmConfigSpec.joinConfiguration.discovery.bootstrapToken";
            assert_eq!(classify(r, discovery), Action::None, "{v}");
            let join = "spec.kubeadmConfigSpec.joinConfiguration.nodeRegistration";
            assert_eq!(classify(r, join), Action::Rollout, "{v}");
        }
        // v1.14 compares an init machine as a join machine; v1.10 compared its
        // InitConfiguration.
        let init = "spec.kubeadmConfigSpec.initConfiguration.nodeRegistration";
        let v2 = rules(Owner::ControlPlane, "controlplane.cluster.x-k8s.io/v1beta2");
        let v1 = rules(Owner::ControlPlane, "controlplane.cluster.x-k8s.io/v1beta1");
        assert_eq!(classify(v2, init), Action::None);
        assert_eq!(classify(v1, init), Action::Rollout);
    }

    #[test]
    fn an_init_only_change_replaces_the_init_machine_when_init_and_join_differ() {
        let kcp = |init: &str, join: &str| {
            serde_json::json!({"spec": {"kubeadmConfigSpec": {
                "initConfiguration": {"nodeRegistration": {"kubeletExtraArgs": [{"name": "a", "value": init}]}},
                "joinConfiguration": {"nodeRegistration": {"kubeletExtraArgs": [{"name": "a", "value": join}]},
                    "controlPlane": {}}
            }}})
        };
        // Init and join alike before: the init machine still matches the join settings.
        assert_eq!(init_machine_rolls(&kcp("0", "0"), &kcp("1", "0")), None);
        // They differed before: the init machine is compared with the new init settings.
        let why = init_machine_rolls(&kcp("5", "0"), &kcp("6", "0")).unwrap();
        assert!(why.contains("kubeadm init"), "{why}");
        // No init change at all.
        assert_eq!(init_machine_rolls(&kcp("5", "0"), &kcp("5", "1")), None);
    }

    #[test]
    fn machine_pool_leaves_its_objects_to_the_provider() {
        let r = rules(Owner::MachinePool, V2);
        assert_eq!(classify(r, "spec.template.spec.version"), Action::Rollout);
        assert_eq!(
            classify(r, "spec.template.spec.infrastructureRef.name"),
            Action::Unknown
        );
        assert_eq!(classify(r, "spec.replicas"), Action::InPlace);
        assert_eq!(r.ref_spec, Action::Unknown);
    }
}
