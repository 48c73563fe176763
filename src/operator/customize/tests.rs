//! Whole-stage tests: order of the steps, selection, precedence, `paused`, round trips.

use super::*;
use serde_json::json;

fn provider() -> ProviderIdentity {
    ProviderIdentity {
        kind: "InfrastructureProvider".into(),
        name: "docker".into(),
        namespace: "capd-system".into(),
        manifest_label: "infrastructure-docker".into(),
    }
}

fn dep(name: &str, args: &[&str]) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": name, "namespace": "capd-system", "labels": {"cluster.x-k8s.io/provider": "infrastructure-docker"}},
           "spec": {"replicas": 2.0, "selector": {"matchLabels": {"a": "b"}},
                    "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [
                        {"name": "manager", "image": "gcr.io/k8s-staging-cluster-api/capd-manager:v1.10.0", "args": args,
                         "resources": {"limits": {"cpu": "0.5"}}}]}}}})
}

fn objs() -> Vec<Value> {
    vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "capd-system"}}),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa", "namespace": "capd-system"}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}}),
        dep("capd-controller-manager", &["--leader-elect", "--v=2"]),
    ]
}

fn run(objs: Vec<Value>, spec: Value) -> Result<Vec<Value>> {
    run_with(objs, spec, false, None, None)
}

fn run_with(
    objs: Vec<Value>,
    spec: Value,
    paused: bool,
    images: Option<&BTreeMap<String, ImageMeta>>,
    uid: Option<&str>,
) -> Result<Vec<Value>> {
    let p = provider();
    customize(
        objs,
        &CustomizeInput {
            provider: &p,
            spec: &spec,
            paused,
            operator_images: images,
            owner_uid: uid,
        },
    )
}

fn find<'a>(objs: &'a [Value], name: &str) -> &'a Value {
    objs.iter()
        .find(|o| o["metadata"]["name"] == name)
        .expect(name)
}

fn container(d: &Value) -> &Value {
    &d["spec"]["template"]["spec"]["containers"][0]
}

#[test]
fn empty_spec_drops_namespace_and_round_trips_the_deployment() {
    let out = run(objs(), json!({})).unwrap();
    assert_eq!(out.len(), 3);
    assert!(out.iter().all(|o| o["kind"] != "Namespace"));
    let d = find(&out, "capd-controller-manager");
    // Typed round trip even without customisation (R6.2.4).
    // (apimachinery v0.34 omits the zero creationTimestamp.)
    assert!(d["metadata"].get("creationTimestamp").is_none());
    assert_eq!(d["spec"]["strategy"], json!({}));
    assert_eq!(d["status"], json!({}));
    assert_eq!(d["spec"]["replicas"], json!(2));
    assert_eq!(container(d)["resources"]["limits"]["cpu"], "500m");
    assert_eq!(out[0], objs()[1]);
    // No owner references without a UID.
    assert!(out
        .iter()
        .all(|o| o["metadata"].get("ownerReferences").is_none()));
}

#[test]
fn owner_references_with_a_uid() {
    let out = run_with(objs(), json!({}), false, None, Some("uid-1")).unwrap();
    let want = json!([{"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": "InfrastructureProvider", "name": "docker", "uid": "uid-1"}]);
    assert_eq!(find(&out, "sa")["metadata"]["ownerReferences"], want);
    assert_eq!(
        find(&out, "capd-controller-manager")["metadata"]["ownerReferences"],
        want
    );
    assert!(find(&out, "r")["metadata"].get("ownerReferences").is_none());
}

#[test]
fn precedence_deployment_then_container_then_manager() {
    let out = run(
        objs(),
        json!({
            "deployment": {"replicas": 1, "containers": [{"name": "manager",
                "args": {"--v": "7", "--sync-period": "1s"}, "imageUrl": "quay.io/me/capd:dev",
                "resources": {"requests": {"memory": "1024Mi"}}}]},
            "manager": {"verbosity": 4, "syncPeriod": "10m", "featureGates": {"MachinePool": true}}
        }),
    )
    .unwrap();
    let d = find(&out, "capd-controller-manager");
    assert_eq!(d["spec"]["replicas"], json!(1));
    let c = container(d);
    assert_eq!(c["image"], "quay.io/me/capd:dev");
    assert_eq!(c["resources"], json!({"requests": {"memory": "1Gi"}}));
    assert_eq!(
        c["args"],
        json!([
            "--leader-elect",
            "--v=4",
            "--sync-period=600s",
            "--feature-gates=MachinePool=true"
        ])
    );
}

#[test]
fn patches_run_after_customisation_and_images_last() {
    let mut images = BTreeMap::new();
    images.insert(
        "infrastructure-docker".to_string(),
        ImageMeta {
            repository: "mirror.io/capd".into(),
            name: String::new(),
            tag: String::new(),
        },
    );
    let out = run_with(
        objs(),
        json!({
            "deployment": {"containers": [{"name": "manager", "imageUrl": "quay.io/me/capd:dev"}]},
            "manager": {"verbosity": 1, "additionalArgs": {"--extra": "1"}},
            "patches": [{"target": {"kind": "Deployment"},
                         "patch": "- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --patched=true\n"}]
        }),
        false,
        Some(&images),
        None,
    )
    .unwrap();
    let c = container(find(&out, "capd-controller-manager"));
    assert_eq!(
        c["args"],
        json!(["--leader-elect", "--v=2", "--extra=1", "--patched=true"])
    );
    // The imageUrl override is itself rewritten by the image overrides (R8.2).
    assert_eq!(c["image"], "mirror.io/capd/capd:dev");
}

#[test]
fn both_patch_kinds_is_an_error_after_customisation() {
    let e = run(
        objs(),
        json!({"patches": [{"patch": "a: 1"}], "manifestPatches": ["kind: X"]}),
    )
    .unwrap_err();
    assert_eq!(
        e.message(),
        "InfrastructureProvider capd-system/docker: cannot use both 'patches' and 'manifestPatches'; please choose one"
    );
    // A customisation error comes first.
    let e = run(
        objs(),
        json!({"patches": [{"patch": "a: 1"}], "manifestPatches": ["kind: X"],
                               "deployment": {"containers": [{"name": "nope"}]}}),
    )
    .unwrap_err();
    assert_eq!(
        e.message(),
        "InfrastructureProvider capd-system/docker: cannot find container \"nope\" in deployment \"capd-controller-manager\""
    );
}

#[test]
fn manager_errors_are_wrapped() {
    let e = run(
        objs(),
        json!({"manager": {"verbosity": 1, "additionalArgs": {"--v": "3"}}}),
    )
    .unwrap_err();
    assert_eq!(
        e.message(),
        "InfrastructureProvider capd-system/docker: failed to customize manager container: arg \"--v\" already exists"
    );
}

#[test]
fn multiple_deployments() {
    let mut o = objs();
    o.push(dep("helper", &["--v=2"]));
    o.push(dep("other", &["--v=2"]));
    let out = run(o, json!({
        "manager": {"verbosity": 5},
        "additionalDeployments": {"helper": {"manager": {"verbosity": 6}, "deployment": {"replicas": 3}}}
    }))
    .unwrap();
    assert_eq!(
        container(find(&out, "capd-controller-manager"))["args"],
        json!(["--leader-elect", "--v=5"])
    );
    let h = find(&out, "helper");
    assert_eq!(container(h)["args"], json!(["--v=6"]));
    assert_eq!(h["spec"]["replicas"], json!(3));
    // Untouched: not round-tripped, numbers and quantities as they came.
    let other = find(&out, "other");
    assert_eq!(other, &dep("other", &["--v=2"]));
}

#[test]
fn additional_deployment_entry_without_specs_still_round_trips() {
    let mut o = objs();
    o.push(dep("helper", &[]));
    let out = run(o, json!({"additionalDeployments": {"helper": {}}})).unwrap();
    assert_eq!(find(&out, "helper")["status"], json!({}));
}

#[test]
fn a_deployment_that_cannot_be_converted_fails_even_when_untouched() {
    let mut o = objs();
    let mut bad = dep("other", &[]);
    bad["apiVersion"] = json!("apps/v1beta2");
    o.push(bad);
    let e = run(o, json!({})).unwrap_err();
    assert_eq!(
        e.message(),
        "InfrastructureProvider capd-system/docker: converting (v1beta2.Deployment) to (v1.Deployment): unknown conversion"
    );
}

#[test]
fn paused_scales_main_deployments_only() {
    let mut o = objs();
    o.push(dep("helper", &[]));
    let out = run_with(
        o,
        json!({"deployment": {"replicas": 4}, "additionalDeployments": {"helper": {"deployment": {"replicas": 3}}}}),
        true,
        None,
        None,
    )
    .unwrap();
    let d = find(&out, "capd-controller-manager");
    assert_eq!(d["spec"]["replicas"], json!(0));
    assert_eq!(
        d["metadata"]["annotations"]["management.cluster.x-k8s.io/original-controller-replicas"],
        "4"
    );
    let h = find(&out, "helper");
    assert_eq!(h["spec"]["replicas"], json!(3));
    assert!(h["metadata"].get("annotations").is_none());
}

#[test]
fn paused_keeps_the_manifest_count() {
    let out = run_with(objs(), json!({}), true, None, None).unwrap();
    let d = find(&out, "capd-controller-manager");
    assert_eq!(d["spec"]["replicas"], json!(0));
    assert_eq!(
        d["metadata"]["annotations"]["management.cluster.x-k8s.io/original-controller-replicas"],
        "2"
    );
}

#[test]
fn manifest_patches_through_the_stage() {
    let out = run(objs(), json!({"manifestPatches": [
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  annotations:\n    x: z\n"
    ]}))
    .unwrap();
    assert_eq!(
        find(&out, "sa")["metadata"]["annotations"],
        json!({"x": "z"})
    );
    assert!(find(&out, "capd-controller-manager")["spec"]["replicas"].is_f64());
}

#[test]
fn invalid_spec_is_reported_with_the_provider() {
    let e = run(objs(), json!({"deployment": {"replicas": "x"}})).unwrap_err();
    assert!(e.message().starts_with("InfrastructureProvider capd-system/docker: invalid ProviderSpec: spec.deployment.replicas"), "{e}");
}

#[test]
fn malformed_objects_give_errors_not_panics() {
    let weird = vec![
        json!("a string"),
        json!(null),
        json!([1, 2]),
        json!({"kind": "Deployment", "apiVersion": "apps/v1", "metadata": {"name": "d", "namespace": 5},
               "spec": {"template": {"spec": {"containers": "nope"}}}}),
        json!({"kind": "DaemonSet", "apiVersion": "apps/v1", "metadata": "x"}),
        json!({"kind": "Service", "metadata": {"name": "s", "namespace": "n", "labels": {"a": 1}}}),
    ];
    let specs = [
        json!({}),
        json!({"manager": {"verbosity": 2, "additionalArgs": {"--x": "1"}}}),
        json!({"deployment": {"containers": [{"name": "manager"}]}}),
        json!({"patches": [{"patch": "- op: add\n  path: /a/b/c\n  value: 1\n"}]}),
        json!({"patches": [{"patch": "metadata: {labels: {x: z}}", "target": {"labelSelector": "a"}}]}),
        json!({"manifestPatches": ["kind: Service\napiVersion: v1\nmetadata: {name: s}\n"]}),
        json!({"patches": [{"patch": "- op: move\n  from: /metadata\n  path: /metadata/x\n"}]}),
        json!({"patches": [{"patch": "- op: replace\n  path: ''\n  value: [1]\n"}]}),
    ];
    let mut images = BTreeMap::new();
    images.insert(
        "all".to_string(),
        ImageMeta {
            repository: "m.io/x".into(),
            name: String::new(),
            tag: "t".into(),
        },
    );
    for spec in specs {
        for objs in [weird.clone(), weird[3..].to_vec(), weird[5..].to_vec()] {
            // Only the absence of a panic matters here; errors are fine.
            let _ = run_with(objs, spec.clone(), true, Some(&images), Some("u"));
        }
    }
}
