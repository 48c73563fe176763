//! `cluster.x-k8s.io/v1beta2` against v1beta1 (topology.md §12): a v1beta1 / v1beta2
//! pair of Clusters and ClusterClasses (fixtures/topology-v1beta2/equivalence/) must
//! render the same desired objects up to the documented v1beta2 differences.

use serde_json::{json, Value};

mod common;
use common::v1beta2::*;

fn without_empty_maps(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), without_empty_maps(v)))
                .filter(|(_, v)| !v.as_object().is_some_and(|m| m.is_empty()))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_empty_maps).collect()),
        other => other.clone(),
    }
}

fn at<'a>(o: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(o, |v, k| &v[k])
}

#[test]
fn v1beta1_and_v1beta2_render_the_same_up_to_documented_differences() {
    let a = equivalence("v1beta1");
    let b = equivalence("v1beta2");
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        // CAPI v1.14 writes no upgrade-step annotation on a new Cluster.
        assert_eq!(
            (&x["kind"], &x["metadata"]),
            (&y["kind"], &y["metadata"]),
            "same objects, names and metadata"
        );
    }
    let core = ["Cluster", "MachineDeployment", "MachineHealthCheck"];
    for (x, y) in a.iter().zip(&b) {
        let kind = x["kind"].as_str().unwrap();
        if kind == "DockerCluster" {
            // HEAD no longer emits builtin.cluster.network.ipFamily.
            assert_eq!(
                x["spec"]["loadBalancer"],
                json!({"imageRepository": "eq", "imageTag": "IPv4"})
            );
            assert_eq!(
                y["spec"]["loadBalancer"],
                json!({"imageRepository": "eq", "imageTag": "<no value>"})
            );
        } else if !core.contains(&kind) {
            // Templates and the v1beta1-contract ControlPlane are identical up to empty
            // maps: clusterctl v1.10's create drops them (and its typed round trip adds
            // some to the KubeadmControlPlane), v1.13's apply keeps the desired ones.
            assert_eq!(without_empty_maps(x), without_empty_maps(y), "{kind}");
        } else {
            assert_eq!(x["apiVersion"], "cluster.x-k8s.io/v1beta1");
            assert_eq!(y["apiVersion"], "cluster.x-k8s.io/v1beta2");
        }
    }
    let kcp = one(&a, "KubeadmControlPlane");
    assert_eq!(kcp["spec"]["machineTemplate"]["nodeDrainTimeout"], "1m0s");
    assert_eq!(
        kcp["spec"]["machineTemplate"]["nodeVolumeDetachTimeout"],
        "2m0s"
    );
    assert_eq!(
        kcp["spec"]["kubeadmConfigSpec"]["clusterConfiguration"]["dns"],
        json!({"imageTag": "v1.12.0"})
    );
    assert!(name(kcp).starts_with("eq-cp-"));
    // MachineDeployment: field by field.
    let (mda, mdb) = (one(&a, "MachineDeployment"), one(&b, "MachineDeployment"));
    for (p1, p2) in [
        (
            "spec.template.spec.bootstrap.configRef.name",
            "spec.template.spec.bootstrap.configRef.name",
        ),
        (
            "spec.template.spec.infrastructureRef.name",
            "spec.template.spec.infrastructureRef.name",
        ),
        ("spec.template.spec.version", "spec.template.spec.version"),
        ("spec.template.metadata", "spec.template.metadata"),
        ("spec.selector", "spec.selector"),
        ("spec.replicas", "spec.replicas"),
        ("spec.minReadySeconds", "spec.template.spec.minReadySeconds"),
        (
            "spec.strategy.rollingUpdate.deletePolicy",
            "spec.deletion.order",
        ),
        (
            "spec.strategy.rollingUpdate.maxSurge",
            "spec.rollout.strategy.rollingUpdate.maxSurge",
        ),
    ] {
        assert!(!at(mda, p1).is_null(), "{p1}");
        assert_eq!(at(mda, p1), at(mdb, p2), "{p1} vs {p2}");
    }
    assert_eq!(at(mda, "spec.template.spec.nodeDeletionTimeout"), "45s");
    assert_eq!(
        at(
            mdb,
            "spec.template.spec.deletion.nodeDeletionTimeoutSeconds"
        ),
        45
    );
    assert_eq!(
        at(mdb, "spec.template.spec.infrastructureRef.apiGroup"),
        "infrastructure.cluster.x-k8s.io"
    );
    assert!(name(mda).starts_with("eq-md-0-"));
    // MachineHealthChecks.
    for (x, y) in a
        .iter()
        .zip(&b)
        .filter(|(x, _)| x["kind"] == "MachineHealthCheck")
    {
        assert_eq!(x["spec"]["selector"], y["spec"]["selector"]);
        // v1.10.10's webhook defaults maxUnhealthy to 100%; HEAD's does not.
        let trigger = &y["spec"]["remediation"]["triggerIf"]["unhealthyLessThanOrEqualTo"];
        if x["metadata"]["name"] == name(kcp) {
            assert_eq!(
                (&x["spec"]["maxUnhealthy"], trigger),
                (&json!("33%"), &json!("33%"))
            );
        } else {
            assert_eq!(
                (&x["spec"]["maxUnhealthy"], trigger),
                (&json!("100%"), &Value::Null)
            );
        }
        assert_eq!(
            x["spec"]["unhealthyRange"],
            y["spec"]["remediation"]["triggerIf"]["unhealthyInRange"]
        );
        let n = x["spec"]["unhealthyConditions"].as_array().unwrap().len();
        assert_eq!(
            y["spec"]["checks"]["unhealthyNodeConditions"]
                .as_array()
                .unwrap()
                .len(),
            n
        );
    }
    let cp_mhc = named(&b, "MachineHealthCheck", name(kcp));
    assert_eq!(cp_mhc["spec"]["checks"]["nodeStartupTimeoutSeconds"], 720);
    assert_eq!(
        named(&a, "MachineHealthCheck", name(kcp))["spec"]["nodeStartupTimeout"],
        "12m0s"
    );
    // Cluster.
    let (ca, cb) = (one(&a, "Cluster"), one(&b, "Cluster"));
    for f in ["infrastructureRef", "controlPlaneRef"] {
        let r = &ca["spec"][f];
        let group = r["apiVersion"].as_str().unwrap().split('/').next().unwrap();
        assert_eq!(
            cb["spec"][f],
            contract_ref(
                group,
                r["kind"].as_str().unwrap(),
                r["name"].as_str().unwrap()
            )
        );
    }
    assert_eq!(ca["spec"]["clusterNetwork"], cb["spec"]["clusterNetwork"]);
    assert_eq!(
        ca["spec"]["topology"]["variables"],
        cb["spec"]["topology"]["variables"]
    );
    assert_eq!(cb["spec"]["topology"]["classRef"], json!({"name": "eq"}));
}
