//! Never panic on input: every node of a provider CR, its Secret and its ConfigMaps is
//! replaced in turn by values of every JSON type, and the render must return Ok or a
//! clean error (no panic). Synthetic inputs only (no corpus), so this always runs.

use capi_render::model::{InputObject, RenderOptions};
use capi_render::operator::configmap::provider_configmap;
use capi_render::provider::ProviderType;
use capi_render::render::render_objects;
use serde_json::{json, Value};

const META: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta1\n";

fn components(short: &str, ns: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {short}-controller-manager\n  namespace: {ns}\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: {short}\n  template:\n    metadata:\n      labels:\n        app: {short}\n    spec:\n      containers:\n      - name: manager\n        image: registry.example/{short}:v1.0.0\n        args: [\"--v=2\", \"--feature-gates=A=true\"]\n        env:\n        - name: X\n          value: ${{X:=x}}\n"
    )
}

fn base() -> Vec<Value> {
    let mut core_cm = provider_configmap(
        ProviderType::Core,
        "cluster-api",
        "capi-system",
        "v1.0.0",
        META,
        &components("capi", "capi-system"),
        None,
    );
    core_cm["metadata"]["labels"]["src"] = json!("core");
    let mut infra_cm = provider_configmap(
        ProviderType::Infrastructure,
        "synth",
        "synth-system",
        "v1.0.0",
        META,
        &components("capx", "synth-system"),
        None,
    );
    infra_cm["metadata"]["labels"]["src"] = json!("infra");
    vec![
        json!({"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": "CoreProvider",
               "metadata": {"name": "cluster-api", "namespace": "capi-system"},
               "spec": {"version": "v1.0.0", "fetchConfig": {"selector": {"matchLabels": {"src": "core"}}}}}),
        json!({"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": "InfrastructureProvider",
        "metadata": {"name": "synth", "namespace": "synth-system"},
        "spec": {
            "version": "v1.0.0",
            "fetchConfig": {"selector": {"matchLabels": {"src": "infra"},
                "matchExpressions": [{"key": "src", "operator": "In", "values": ["infra"]}]}},
            "configSecret": {"name": "vars"},
            "additionalManifests": {"name": "extra"},
            "manager": {"featureGates": {"B": true}, "syncPeriod": "10m",
                        "leaderElection": {"leaderElect": true, "leaseDuration": "15s"},
                        "additionalArgs": {"--extra": "1"}},
            "deployment": {"replicas": 2, "tolerations": [], "nodeSelector": {"a": "b"},
                           "containers": [{"name": "manager", "args": {"--v": "3"},
                                           "env": [{"name": "Y", "value": "y"}],
                                           "imageUrl": "mirror.example/capx:v1"}]},
            "patches": [{"patch": "[{\"op\": \"add\", \"path\": \"/metadata/labels/p\", \"value\": \"1\"}]",
                         "target": {"kind": "Deployment"}}]
        }}),
        json!({"apiVersion": "v1", "kind": "Secret",
               "metadata": {"name": "vars", "namespace": "synth-system"},
               "data": {"X": "eA=="}, "stringData": {"images": "all:\n  repository: r.example\n"}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "extra", "namespace": "synth-system"},
               "data": {"manifests": "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: extra\n"}}),
        core_cm,
        infra_cm,
    ]
}

/// JSON pointers of every node under `v`.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        _ => {}
    }
}

fn render(docs: Vec<Value>) -> Result<(), String> {
    let objs: Vec<InputObject> = docs
        .into_iter()
        .enumerate()
        .map(|(i, value)| InputObject {
            file: "in.yaml".into(),
            doc: i,
            value,
        })
        .collect();
    render_objects(objs, vec![], &RenderOptions::default())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn base_renders() {
    render(base()).unwrap();
}

#[test]
fn every_node_replaced_by_every_type_never_panics() {
    let replacements = [
        Value::Null,
        json!(-1.5),
        json!("v0.0.1"),
        json!([]),
        json!({}),
        json!(true),
    ];
    let docs = base();
    let mut cases = 0;
    let mut errors = 0;
    for (d, doc) in docs.iter().enumerate() {
        let mut ptrs = Vec::new();
        pointers(doc, String::new(), &mut ptrs);
        for p in &ptrs {
            for r in &replacements {
                let mut m = docs.clone();
                *m[d].pointer_mut(p).unwrap() = r.clone();
                let res = std::panic::catch_unwind(|| render(m));
                match res {
                    Err(_) => panic!("panic with document {d} {p} = {r}"),
                    Ok(Err(e)) => {
                        errors += 1;
                        assert!(!e.is_empty());
                        // Secret values never appear in messages.
                        assert!(!e.contains("r.example"), "{e}");
                    }
                    Ok(Ok(())) => {}
                }
                cases += 1;
            }
        }
    }
    assert!(cases > 500, "{cases}");
    assert!(errors > 50, "{errors}");
}
