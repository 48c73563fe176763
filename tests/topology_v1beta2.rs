//! `cluster.x-k8s.io/v1beta2` ClusterClasses and Clusters (topology.md §12) rendered
//! with HEAD semantics: every v1.11.11 docker ClusterClass of the corpus with a
//! Cluster of ours (fixtures/topology-v1beta2/); the v1beta1 / v1beta2 pair is in
//! `topology_v1beta2_equivalence.rs`.
//! The corpus is read from `$CAPI_CORPUS` (default `../shared/corpus`); its
//! `${VAR:-default}` placeholders get their defaults, as clusterctl would.

use capi_render::model::{InputObject, RenderOptions, UnitKind};
use capi_render::render::render_objects;
use capi_render::topology::{self, input, plan};
use serde_json::{json, Value};

mod common;
use common::v1beta2::*;

/// Render the first Cluster of `cluster_file` against the corpus class file: the
/// desired objects as `render` writes them (without the dry-run store's artefacts).
fn render(cluster_file: &str, class_file: &str) -> topology_result::R {
    let mut objs = fixture(cluster_file);
    objs.extend(corpus_objects(class_file));
    input::set_missing_namespaces(&mut objs, "");
    let (c, rest) = cluster_and_rest(objs);
    topology::render_cluster(&c, &rest)
}

mod topology_result {
    pub type R = capi_render::Result<Vec<serde_json::Value>>;
}

#[test]
fn docker_quick_start_renders_with_v1beta2_shapes() {
    let Some(_) = common::corpus() else { return };
    let objs = render(
        "cluster-quick-start.yaml",
        &format!("{DOCKER}/clusterclass-quick-start.yaml"),
    )
    .unwrap();
    assert_eq!(
        kinds(&objs),
        [
            "infrastructure.cluster.x-k8s.io/v1beta2 DockerCluster",
            "infrastructure.cluster.x-k8s.io/v1beta2 DockerMachinePool",
            "infrastructure.cluster.x-k8s.io/v1beta2 DockerMachineTemplate",
            "infrastructure.cluster.x-k8s.io/v1beta2 DockerMachineTemplate",
            "bootstrap.cluster.x-k8s.io/v1beta2 KubeadmConfig",
            "bootstrap.cluster.x-k8s.io/v1beta2 KubeadmConfigTemplate",
            "controlplane.cluster.x-k8s.io/v1beta2 KubeadmControlPlane",
            "cluster.x-k8s.io/v1beta2 MachineDeployment",
            "cluster.x-k8s.io/v1beta2 MachineHealthCheck",
            "cluster.x-k8s.io/v1beta2 MachineHealthCheck",
            "cluster.x-k8s.io/v1beta2 MachinePool",
            "cluster.x-k8s.io/v1beta2 Cluster",
        ]
    );
    let cluster = one(&objs, "Cluster");
    let infra = one(&objs, "DockerCluster");
    let kcp = one(&objs, "KubeadmControlPlane");
    assert!(name(infra).starts_with("qs-") && name(kcp).starts_with("qs-"));
    assert_eq!(
        cluster["spec"]["infrastructureRef"],
        contract_ref(
            "infrastructure.cluster.x-k8s.io",
            "DockerCluster",
            name(infra)
        )
    );
    assert_eq!(
        cluster["spec"]["controlPlaneRef"],
        contract_ref(
            "controlplane.cluster.x-k8s.io",
            "KubeadmControlPlane",
            name(kcp)
        )
    );
    assert_eq!(
        cluster["spec"]["topology"]["classRef"],
        json!({"name": "quick-start"})
    );
    assert!(cluster["spec"]["topology"].get("class").is_none());
    assert_eq!(cluster["metadata"]["labels"]["team"], "blue");
    // KubeadmControlPlane v1beta2 is a v1beta2-contract ControlPlane.
    let mt = &kcp["spec"]["machineTemplate"];
    let cp_infra = mt["spec"]["infrastructureRef"]["name"].as_str().unwrap();
    assert_eq!(
        mt["spec"]["infrastructureRef"],
        contract_ref(
            "infrastructure.cluster.x-k8s.io",
            "DockerMachineTemplate",
            cp_infra
        )
    );
    assert_eq!(
        named(&objs, "DockerMachineTemplate", cp_infra)["metadata"]["annotations"]
            ["cluster.x-k8s.io/cloned-from-name"],
        "quick-start-control-plane"
    );
    assert_eq!(
        mt["spec"]["deletion"],
        json!({"nodeDrainTimeoutSeconds": 120})
    );
    assert!(mt.get("infrastructureRef").is_none() && mt.get("nodeDrainTimeout").is_none());
    assert_eq!(kcp["spec"]["replicas"], 3);
    assert_eq!(kcp["spec"]["version"], "v1.34.1");
    // Patches from variables and builtins.
    let cc = &kcp["spec"]["kubeadmConfigSpec"]["clusterConfiguration"];
    assert_eq!(cc["imageRepository"], "registry.example.com");
    assert_eq!(cc["etcd"], json!({"local": {"imageTag": "3.5.21-0"}}));
    assert!(
        cc.get("dns").is_none(),
        "coreDNSImageTag is empty: its patch is disabled"
    );
    let files = kcp["spec"]["kubeadmConfigSpec"]["files"][0]["content"]
        .as_str()
        .unwrap();
    assert!(
        files.contains("apiVersion: pod-security.admission.config.k8s.io/v1\n"),
        "{files}"
    );
    for t in objs.iter().filter(|o| o["kind"] == "DockerMachineTemplate") {
        assert_eq!(
            t["spec"]["template"]["spec"]["customImage"],
            "kindest/node:v1.34.1"
        );
    }
    assert_eq!(
        one(&objs, "DockerMachinePool")["spec"]["template"]["customImage"],
        "kindest/node:v1.34.1"
    );
    // MachineDeployment v1beta2.
    let md = one(&objs, "MachineDeployment");
    assert!(name(md).starts_with("qs-md-0-"));
    let ts = &md["spec"]["template"]["spec"];
    let boot = ts["bootstrap"]["configRef"]["name"].as_str().unwrap();
    let minfra = ts["infrastructureRef"]["name"].as_str().unwrap();
    assert_eq!(
        ts["bootstrap"]["configRef"],
        contract_ref("bootstrap.cluster.x-k8s.io", "KubeadmConfigTemplate", boot)
    );
    assert_eq!(
        ts["infrastructureRef"],
        contract_ref(
            "infrastructure.cluster.x-k8s.io",
            "DockerMachineTemplate",
            minfra
        )
    );
    named(&objs, "KubeadmConfigTemplate", boot);
    assert_eq!(
        named(&objs, "DockerMachineTemplate", minfra)["metadata"]["labels"]
            ["topology.cluster.x-k8s.io/deployment-name"],
        "md-0"
    );
    assert_eq!(ts["deletion"], json!({"nodeDeletionTimeoutSeconds": 30}));
    assert_eq!(md["spec"]["deletion"], json!({"order": "Oldest"}));
    assert_eq!(
        ts["taints"],
        json!([{"key": "dedicated", "value": "batch", "effect": "NoSchedule", "propagation": "Always"}])
    );
    assert!(md["spec"].get("strategy").is_none());
    assert_eq!(md["spec"]["replicas"], 2);
    // MachineHealthChecks from the class's healthCheck, v1beta2 shape.
    let mhcs: Vec<&Value> = objs
        .iter()
        .filter(|o| o["kind"] == "MachineHealthCheck")
        .collect();
    let mut targets: Vec<&str> = mhcs.iter().map(|m| name(m)).collect();
    targets.sort();
    let mut expected = vec![name(kcp), name(md)];
    expected.sort();
    assert_eq!(targets, expected);
    for m in mhcs {
        assert_eq!(
            m["spec"]["checks"]["unhealthyNodeConditions"],
            json!([{"type": "Ready", "status": "Unknown", "timeoutSeconds": 300},
                   {"type": "Ready", "status": "False", "timeoutSeconds": 300}])
        );
        assert!(m["spec"].get("unhealthyConditions").is_none());
        assert_eq!(m["spec"]["checks"]["nodeStartupTimeoutSeconds"], 600);
        assert!(
            m["spec"].get("remediation").is_none(),
            "no defaulted triggerIf"
        );
    }
    // MachinePool v1beta2.
    let mp = one(&objs, "MachinePool");
    let mts = &mp["spec"]["template"]["spec"];
    assert_eq!(mts["bootstrap"]["configRef"]["kind"], "KubeadmConfig");
    assert_eq!(
        mts["infrastructureRef"]["apiGroup"],
        "infrastructure.cluster.x-k8s.io"
    );
    named(
        &objs,
        "DockerMachinePool",
        mts["infrastructureRef"]["name"].as_str().unwrap(),
    );
}

#[test]
fn docker_in_memory_renders() {
    let Some(_) = common::corpus() else { return };
    let objs = render(
        "cluster-in-memory.yaml",
        &format!("{DOCKER}/clusterclass-in-memory.yaml"),
    )
    .unwrap();
    let ks = sorted_kinds(&objs);
    assert_eq!(
        ks,
        [
            "Cluster",
            "DevCluster",
            "DevMachineTemplate",
            "DevMachineTemplate",
            "KubeadmConfigTemplate",
            "KubeadmControlPlane",
            "MachineDeployment",
            "MachineHealthCheck"
        ]
    );
    // The class's control plane `healthCheck` sits under `templateRef` (a field the
    // API server prunes): only the MachineDeployment gets a MachineHealthCheck.
    let md = one(&objs, "MachineDeployment");
    assert_eq!(name(one(&objs, "MachineHealthCheck")), name(md));
    assert_eq!(md["spec"]["replicas"], 5);
    assert_eq!(
        md["spec"]["template"]["spec"]["infrastructureRef"]["kind"],
        "DevMachineTemplate"
    );
    let kcp = one(&objs, "KubeadmControlPlane");
    assert_eq!(
        kcp["spec"]["machineTemplate"]["spec"]["infrastructureRef"]["kind"],
        "DevMachineTemplate"
    );
    assert_eq!(
        one(&objs, "Cluster")["spec"]["infrastructureRef"]["kind"],
        "DevCluster"
    );
}

#[test]
fn e2e_quick_start_renders_with_its_patches() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let objs = render(
        "cluster-e2e-quick-start.yaml",
        &format!("{E2E}/clusterclass-quick-start.yaml"),
    )
    .unwrap();
    assert_eq!(objs.len(), 11, "{:?}", kinds(&objs));
    // Only the control plane has a health check in this class.
    let mhc = one(&objs, "MachineHealthCheck");
    assert_eq!(name(mhc), name(one(&objs, "KubeadmControlPlane")));
    assert_eq!(
        mhc["spec"]["checks"]["unhealthyNodeConditions"][0]["type"],
        "e2e.remediation.condition"
    );
    let dc = one(&objs, "DockerCluster");
    assert_eq!(dc["spec"]["loadBalancer"]["imageRepository"], "kindest");
    for t in objs.iter().filter(|o| o["kind"] == "DockerMachineTemplate") {
        assert_eq!(
            t["spec"]["template"]["spec"]["preLoadImages"],
            json!(["kindest/node:v1.34.1"])
        );
    }
    let kcp = one(&objs, "KubeadmControlPlane");
    assert_eq!(
        kcp["metadata"]["labels"]["Cluster.topology.controlPlane.label"],
        "Cluster.topology.controlPlane.labelValue"
    );
    // The template's own nodeDrainTimeoutSeconds stays beside the topology's fields.
    assert_eq!(
        kcp["spec"]["machineTemplate"]["spec"]["deletion"],
        json!({"nodeDeletionTimeoutSeconds": 30, "nodeDrainTimeoutSeconds": 1.0, "nodeVolumeDetachTimeoutSeconds": 300})
    );
    let md = one(&objs, "MachineDeployment");
    assert_eq!(
        md["spec"]["rollout"],
        json!({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "20%", "maxUnavailable": 0}}})
    );
    let ts = &md["spec"]["template"]["spec"];
    assert_eq!(ts["minReadySeconds"], 5);
    assert_eq!(ts["failureDomain"], "fd4");
    assert_eq!(
        md["metadata"]["labels"]["ClusterClass.machineDeployment.label"],
        "ClusterClass.machineDeployment.labelValue"
    );
    let mp = one(&objs, "MachinePool");
    assert_eq!(mp["spec"]["failureDomains"], json!(["fd4"]));
    assert_eq!(mp["spec"]["template"]["spec"]["minReadySeconds"], 5);
    // Defaulted variables are written back into the v1beta2 topology.
    let vars = &one(&objs, "Cluster")["spec"]["topology"]["variables"];
    let lb = vars
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "lbImageRepository")
        .unwrap();
    assert_eq!(lb["value"], "kindest");
}

#[test]
fn e2e_kcp_only_renders_without_workers() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let objs = render(
        "cluster-kcp-only.yaml",
        &format!("{E2E}/clusterclass-quick-start-kcp-only.yaml"),
    )
    .unwrap();
    let ks = sorted_kinds(&objs);
    assert_eq!(
        ks,
        [
            "Cluster",
            "DockerCluster",
            "DockerMachineTemplate",
            "KubeadmControlPlane",
            "MachineHealthCheck"
        ]
    );
    let kcp = one(&objs, "KubeadmControlPlane");
    assert_eq!(name(one(&objs, "MachineHealthCheck")), name(kcp));
    assert_eq!(
        kcp["spec"]["machineTemplate"]["spec"]["deletion"],
        json!({"nodeDeletionTimeoutSeconds": 30, "nodeDrainTimeoutSeconds": 1.0})
    );
}

#[test]
fn external_patch_classes_need_a_runtime_extension() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    for (cluster, class, cc_name) in [
        (
            "cluster-runtimesdk.yaml",
            format!("{E2E}/clusterclass-quick-start-runtimesdk.yaml"),
            "quick-start-runtimesdk",
        ),
        (
            "cluster-runtimesdk-v1beta1.yaml",
            format!("{E2E}/clusterclass-quick-start-runtimesdk-v1beta1.yaml"),
            "quick-start-runtimesdk-v1beta1",
        ),
        (
            "cluster-in-memory.yaml",
            format!("{E2E}/clusterclass-in-memory.yaml"),
            "in-memory",
        ),
    ] {
        let e = render(cluster, &class).unwrap_err().to_string();
        assert!(e.contains("needs a runtime extension"), "{class}: {e}");
        assert!(
            e.contains(&format!("ClusterClass default/{cc_name}: spec.patches[")),
            "{class}: {e}"
        );
    }
}

#[test]
fn render_objects_renders_v1beta2_clusters() {
    let Some(_) = common::corpus() else { return };
    let mut objects = Vec::new();
    for (file, docs) in [
        (
            "cluster-quick-start.yaml",
            fixture("cluster-quick-start.yaml"),
        ),
        (
            "clusterclass-quick-start.yaml",
            corpus_objects(&format!("{DOCKER}/clusterclass-quick-start.yaml")),
        ),
    ] {
        for (doc, value) in docs.into_iter().enumerate() {
            objects.push(InputObject {
                file: file.to_string(),
                doc,
                value,
            });
        }
    }
    let opts = RenderOptions {
        clusters: capi_render::model::ClusterMode::Desired,
        ..RenderOptions::default()
    };
    let set = render_objects(objects, Vec::new(), &opts).unwrap();
    let units: Vec<_> = set
        .units
        .iter()
        .filter(|u| matches!(u.kind, UnitKind::Cluster))
        .collect();
    assert_eq!(units.len(), 1);
    assert_eq!(
        (units[0].namespace.as_str(), units[0].name.as_str()),
        ("default", "qs")
    );
    let c = units[0]
        .objects
        .iter()
        .find(|o| o["kind"] == "Cluster")
        .unwrap();
    assert_eq!(c["apiVersion"], "cluster.x-k8s.io/v1beta2");
    assert_eq!(units[0].objects.len(), 12);
}

#[test]
fn topology_plan_refuses_v1beta2_objects() {
    let Some(_) = common::corpus() else { return };
    let mut objs = fixture("cluster-quick-start.yaml");
    objs.extend(corpus_objects(&format!(
        "{DOCKER}/clusterclass-quick-start.yaml"
    )));
    let e = match plan::plan(objs, "", "", "out") {
        Ok(_) => panic!("topology plan accepted v1beta2 objects"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("topology plan is clusterctl v1.10.10's; v1beta2 objects render with `capi-render render`"),
        "{e}"
    );
}

#[test]
fn rendering_is_deterministic() {
    let a = equivalence("v1beta2");
    let b = equivalence("v1beta2");
    assert_eq!(a, b);
}

#[test]
fn conversion_errors_name_the_cluster_and_field() {
    let mut objs = fixture("equivalence/templates.yaml");
    objs.extend(fixture("equivalence/v1beta2.yaml"));
    let (mut c, rest) = cluster_and_rest(objs);
    c["spec"]["topology"]["controlPlane"]["deletion"]["nodeDrainTimeoutSeconds"] = json!("1m");
    let e = topology::render_cluster(&c, &rest).unwrap_err().to_string();
    assert!(
        e.contains("Cluster eq/eq")
            && e.contains("spec.topology.controlPlane.deletion.nodeDrainTimeoutSeconds"),
        "{e}"
    );
    let mut c2 = c.clone();
    c2["spec"]["topology"]["controlPlane"]["deletion"] = json!({});
    c2["spec"]["topology"]["classRef"]["name"] = json!("missing");
    let e = topology::render_cluster(&c2, &rest)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("spec.topology.classRef") && e.contains("missing"),
        "{e}"
    );
}

#[test]
fn patches_see_heads_builtin_class_ref() {
    let mut objs = fixture("equivalence/templates.yaml");
    objs.extend(fixture("equivalence/v1beta2.yaml"));
    let cc = objs
        .iter_mut()
        .find(|o| o["kind"] == "ClusterClass")
        .unwrap();
    cc["spec"]["patches"][1]["definitions"][0]["jsonPatches"][0]["valueFrom"]["template"] =
        json!("imageRepository: {{ .builtin.cluster.topology.classRef.name }}/{{ .builtin.cluster.topology.classRef.namespace }}");
    let (c, rest) = cluster_and_rest(objs);
    let out = topology::render_cluster(&c, &rest).unwrap();
    assert_eq!(
        one(&out, "DockerCluster")["spec"]["loadBalancer"],
        json!({"imageRepository": "eq/eq"})
    );
}

fn pointers(v: &Value, prefix: String, out: &mut Vec<String>) {
    let children: Vec<(String, &Value)> = match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, x)| (k.replace('~', "~0").replace('/', "~1"), x))
            .collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, x)| (i.to_string(), x))
            .collect(),
        _ => Vec::new(),
    };
    for (k, x) in children {
        let p = format!("{prefix}/{k}");
        out.push(p.clone());
        pointers(x, p, out);
    }
}

/// Every field of the v1beta2 Cluster and ClusterClass replaced by odd values (one at a
/// time) gives a result or an error, never a panic.
#[test]
fn odd_v1beta2_inputs_never_panic() {
    let mut base = fixture("equivalence/templates.yaml");
    base.extend(fixture("equivalence/v1beta2.yaml"));
    let odd = [
        Value::Null,
        json!("x"),
        json!(1.5),
        json!(-3),
        json!([]),
        json!({}),
    ];
    let mut runs = 0;
    for doc in 0..base.len() {
        if !matches!(base[doc]["kind"].as_str(), Some("Cluster" | "ClusterClass")) {
            continue;
        }
        let mut ptrs = Vec::new();
        pointers(&base[doc], String::new(), &mut ptrs);
        for (i, p) in ptrs.iter().enumerate() {
            let mut objs = base.clone();
            if let Some(slot) = objs[doc].pointer_mut(p) {
                *slot = odd[i % odd.len()].clone();
            }
            let c = objs
                .iter()
                .find(|o| o["kind"] == "Cluster")
                .cloned()
                .unwrap_or_default();
            let rest: Vec<Value> = objs
                .into_iter()
                .filter(|o| o["kind"] != "Cluster")
                .collect();
            let _ = topology::render_cluster(&c, &rest);
            runs += 1;
        }
    }
    assert!(runs > 100, "only {runs} mutations");
}
