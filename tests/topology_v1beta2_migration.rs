//! The migration path: `cluster.x-k8s.io/v1beta1` Clusters and ClusterClasses rendered
//! under a core provider of v1.14 (`--capi-version v1.14.2`) as Cluster API v1.14.2
//! converts and computes them. Each test holds one behaviour that real provider classes
//! met (fixtures/topology-v1beta2/core-v1.14/; their goldens from the oracle are cases of
//! conformance/topology-v1beta2/cases.txt).

use serde_json::Value;

mod common;
use common::root;

/// `render --stdout` of one fixture with `flags`: the documents, or the error text.
fn render(fixture: &str, flags: &[&str]) -> Result<Vec<Value>, String> {
    let rel = format!("fixtures/topology-v1beta2/core-v1.14/{fixture}");
    render_files(&[&rel], flags)
}

/// `render --stdout` of files (relative to the repository) with `flags`.
fn render_files(files: &[&str], flags: &[&str]) -> Result<Vec<Value>, String> {
    let mut cmd = common::bin();
    cmd.args(["render", "--stdout", "-q", "--clusters", "desired"]);
    cmd.args(flags);
    for f in files {
        cmd.arg("-f").arg(root().join(f));
    }
    let out = common::run(&mut cmd, None);
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8(out.stdout).unwrap();
    Ok(capi_render::yaml::parse_documents(&text).unwrap())
}

fn of_kind<'a>(docs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    docs.iter().filter(|d| d["kind"] == kind).collect()
}

const CORE_V1_14: &[&str] = &["--capi-version", "v1.14.2"];

#[test]
fn v1beta2_contract_control_plane_gets_its_machine_fields_at_v1beta2_paths() {
    let docs = render("rke2-harvester.yaml", CORE_V1_14).unwrap();
    let cp = of_kind(&docs, "RKE2ControlPlane");
    let mt = &cp[0]["spec"]["machineTemplate"];
    // The template's own v1beta1-contract fields stay (a patch cannot change them).
    assert_eq!(mt["infrastructureRef"]["name"], "hv-cp-machine", "{mt}");
    assert_eq!(mt["nodeDrainTimeout"], "5m", "{mt}");
    // The cloned machine template, the class's drain timeout and gates: v1beta2 paths.
    let clone = of_kind(&docs, "HarvesterMachineTemplate")
        .into_iter()
        .find(|t| {
            t["metadata"]["annotations"]["cluster.x-k8s.io/cloned-from-name"] == "hv-cp-machine"
        })
        .unwrap();
    assert_eq!(
        mt["spec"]["infrastructureRef"],
        serde_json::json!({"apiGroup": "infrastructure.cluster.x-k8s.io",
            "kind": "HarvesterMachineTemplate", "name": clone["metadata"]["name"]})
    );
    assert_eq!(
        mt["spec"]["deletion"]["nodeDrainTimeoutSeconds"].as_f64(),
        Some(90.0)
    );
    assert_eq!(
        mt["spec"]["readinessGates"][0]["conditionType"],
        "example.com/Ready"
    );
    assert_eq!(cp[0]["spec"]["serverConfig"]["cni"], "cilium");
}

#[test]
fn v1beta1_contract_control_plane_keeps_v1beta1_paths() {
    let docs = render("rke2-v1alpha1.yaml", CORE_V1_14).unwrap();
    let mt = &of_kind(&docs, "RKE2ControlPlane")[0]["spec"]["machineTemplate"];
    assert_eq!(
        mt["infrastructureRef"]["apiVersion"],
        "infrastructure.cluster.x-k8s.io/v1alpha1"
    );
    assert_eq!(mt["infrastructureRef"]["namespace"], "default");
    assert_eq!(mt["nodeDrainTimeout"], "2m0s");
    assert!(mt.get("spec").is_none(), "{mt}");
}

#[test]
fn max_in_flight_alone_defines_a_machine_deployment_health_check() {
    let docs = render("md-remediation.yaml", CORE_V1_14).unwrap();
    let mut checks: Vec<(String, Value)> = of_kind(&docs, "MachineHealthCheck")
        .into_iter()
        .map(|m| {
            let md =
                &m["spec"]["selector"]["matchLabels"]["topology.cluster.x-k8s.io/deployment-name"];
            (md.as_str().unwrap().to_string(), m["spec"].clone())
        })
        .collect();
    checks.sort_by(|a, b| a.0.cmp(&b.0));
    let names: Vec<&str> = checks.iter().map(|(n, _)| n.as_str()).collect();
    // md-disabled's topology turns its class's health check off.
    assert_eq!(names, ["md-class", "md-override", "md-topology"]);
    for (name, spec) in &checks {
        // The topology's (empty) checks win over the class's (md-override); no
        // maxUnhealthy is written (v1.14's webhook defaults none).
        assert!(spec.get("maxUnhealthy").is_none(), "{name}: {spec}");
        assert!(spec.get("unhealthyConditions").is_none(), "{name}: {spec}");
        assert_eq!(spec["nodeStartupTimeout"], "10m0s", "{name}");
    }
    // The class's maxInFlight reaches the MachineDeployments of that class.
    let md = of_kind(&docs, "MachineDeployment")
        .into_iter()
        .find(|m| {
            m["metadata"]["labels"]["topology.cluster.x-k8s.io/deployment-name"] == "md-class"
        })
        .unwrap();
    assert_eq!(md["spec"]["strategy"]["remediation"]["maxInFlight"], "50%");
}

#[test]
fn a_missing_endpoint_port_is_desired_state_under_v1_14() {
    let docs = render("endpoint-port.yaml", CORE_V1_14).unwrap();
    let dc = of_kind(&docs, "DockerCluster");
    assert_eq!(
        dc[0]["spec"]["controlPlaneEndpoint"],
        serde_json::json!({"host": "lb.example.com", "port": "<no value>"})
    );
    // clusterctl v1.10.10's dry run (no v1.11+ core) stops at the ignore paths.
    let e = render("endpoint-port.yaml", &[]).unwrap_err();
    assert!(e.contains("failed to calculate ignore paths"), "{e}");
}

#[test]
fn a_control_plane_machine_template_that_is_no_map_is_refused_under_v1_14() {
    for case in [
        "cp-machine-template-null",
        "error-cp-machine-template-scalar",
    ] {
        let class = format!("fixtures/topology/{case}/class.yaml");
        let cluster = format!("fixtures/topology/{case}/cluster.yaml");
        let e = render_files(&[&class, &cluster], CORE_V1_14).unwrap_err();
        assert!(
            e.contains("failed to compute ControlPlane: failed to set spec.machineTemplate.infrastructureRef in the ControlPlane object: failed to set object reference on object controlplane.cluster.x-k8s.io/v1beta1, Kind=KubeadmControlPlane default/cp-")
                && e.contains(": value cannot be set because .spec.machineTemplate is not a map[string]interface{}"),
            "{case}: {e}"
        );
    }
    // clusterctl v1.10.10's typed round trip makes a null machineTemplate a map.
    let ok = render_files(
        &[
            "fixtures/topology/cp-machine-template-null/class.yaml",
            "fixtures/topology/cp-machine-template-null/cluster.yaml",
        ],
        &[],
    );
    assert!(ok.is_ok(), "{ok:?}");
}

#[test]
fn a_v1beta1_class_finds_its_templates_in_its_own_namespace_under_v1_14() {
    // Its references name namespace `default`; the class and templates are in `hv`.
    let docs = render("ref-namespace.yaml", CORE_V1_14).unwrap();
    let cp = of_kind(&docs, "RKE2ControlPlane");
    assert_eq!(cp[0]["metadata"]["namespace"], "hv");
    assert_eq!(
        cp[0]["metadata"]["annotations"]["cluster.x-k8s.io/cloned-from-name"],
        "rke2-cp"
    );
    // clusterctl v1.10.10's ClusterClass webhook refuses it.
    let e = render("ref-namespace.yaml", &[]).unwrap_err();
    assert!(
        e.contains("template must be in the same namespace as the ClusterClass (hv)"),
        "{e}"
    );
}
