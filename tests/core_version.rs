//! The core provider decides how v1beta1 topology Clusters render (issue 40): a core of
//! v1.11 or later (`--capi-version`, or the inputs' CoreProvider CR) renders them as its
//! controller computes them, written back as v1beta1; an older core or none keeps
//! clusterctl v1.10.10's semantics byte for byte. The v1.14 output itself is compared
//! with CAPI v1.14.2's own code by conformance/topology-v1beta2.sh (`core-v1.14-*`).

mod common;
use common::*;

fn render(extra: &[&str]) -> std::process::Output {
    let eq = root().join("fixtures/topology-v1beta2/equivalence");
    let mut cmd = bin();
    cmd.args(["render", "--stdout", "-q", "--clusters", "desired"])
        .args(extra)
        .arg("-f")
        .arg(eq.join("v1beta1.yaml"))
        .arg("-f")
        .arg(eq.join("templates.yaml"));
    run(&mut cmd, None)
}

fn stdout(o: &std::process::Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn docs(text: &str) -> Vec<serde_json::Value> {
    ("\n".to_string() + text)
        .split("\n---\n")
        .filter(|d| !d.trim().is_empty())
        .map(|d| capi_render::yaml::parse_value(d).unwrap())
        .collect()
}

#[test]
fn an_older_core_or_none_renders_as_before() {
    let none = stdout(&render(&[]));
    let old = stdout(&render(&["--capi-version", "v1.10.10"]));
    assert_eq!(none, old);
    // v1.10.10 semantics: the MachineDeployment's strategy carries the delete policy.
    assert!(none.contains("deletePolicy: Newest"), "{none}");
}

#[test]
fn a_v1_14_core_writes_v1beta1_objects_as_its_controller_computes_them() {
    let new = stdout(&render(&["--capi-version", "v1.14.2"]));
    let old = stdout(&render(&[]));
    assert_ne!(
        new, old,
        "a v1.14 core must change the v1beta1 Cluster's output"
    );
    let objs = docs(&new);
    let capi: Vec<_> = objs
        .iter()
        .filter(|o| {
            o["apiVersion"]
                .as_str()
                .unwrap_or("")
                .starts_with("cluster.x-k8s.io/")
        })
        .collect();
    let kinds: Vec<_> = capi.iter().map(|o| o["kind"].as_str().unwrap()).collect();
    assert!(
        kinds.contains(&"Cluster") && kinds.contains(&"MachineDeployment"),
        "{kinds:?}"
    );
    assert!(kinds.contains(&"MachineHealthCheck"), "{kinds:?}");
    for o in &capi {
        assert_eq!(o["apiVersion"], "cluster.x-k8s.io/v1beta1", "{o}");
    }
    let cluster = capi.iter().find(|o| o["kind"] == "Cluster").unwrap();
    assert_eq!(cluster["spec"]["topology"]["class"], "eq");
    assert!(
        cluster["spec"]["controlPlaneRef"]["apiVersion"].is_string(),
        "{cluster}"
    );
    // ConvertFrom lifts the Machine template's minReadySeconds to the spec.
    let md = capi
        .iter()
        .find(|o| o["kind"] == "MachineDeployment")
        .unwrap();
    assert_eq!(md["spec"]["minReadySeconds"].as_f64(), Some(7.0), "{md}");
}

#[test]
fn a_core_provider_that_disagrees_with_the_flag_is_an_error_naming_its_file() {
    let s = Scratch::new("core-version");
    let cr = s.write(
        "core.yaml",
        "apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.10.10\n",
    );
    let o = render(&["--capi-version", "v1.14.2", "-f", &cr]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("core.yaml (document 1)"), "{err}");
    assert!(
        err.contains("spec.version is v1.10.10 but --capi-version is v1.14.2"),
        "{err}"
    );
    let bad = render(&["--capi-version", "latest"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--capi-version \"latest\""));
}
