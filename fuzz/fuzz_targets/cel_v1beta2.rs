//! CEL as a cluster.x-k8s.io/v1beta2 ClusterClass brings it: the input is a rule, a NUL,
//! then the Cluster's value for the variable as JSON. The rule becomes the
//! `x-kubernetes-validations` of the `region` variable of the `acme` v1beta2 class
//! (conformance's oracle case), the value the Cluster's `region`, and the whole Cluster
//! renders (`topology::v1beta2::render_cluster`: the class's variable checks, the
//! Cluster's defaulting and validation, the desired state). Chained `replace`s, `join`s
//! and comprehensions must end in an error within the CEL cost limit, never an abort.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use std::sync::OnceLock;

fn acme() -> &'static [Value] {
    static ACME: OnceLock<Vec<Value>> = OnceLock::new();
    ACME.get_or_init(|| {
        let text = include_str!("../../fixtures/topology-v1beta2/oracle/acme.yaml");
        capi_render::load::parse_file("acme.yaml", text)
            .unwrap()
            .into_iter()
            .map(|o| o.value)
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (rule, value) = text.split_once('\0').unwrap_or((text, "\"eu-1\""));
    let value: Value = serde_json::from_str(value).unwrap_or(Value::from("eu-1"));
    let mut inputs = acme().to_vec();
    let mut cluster = None;
    for o in &mut inputs {
        match o["kind"].as_str() {
            Some("ClusterClass") => {
                o["spec"]["variables"][0]["schema"]["openAPIV3Schema"] = json!({
                    "type": "string", "maxLength": 64,
                    "x-kubernetes-validations": [{"rule": rule}]
                });
            }
            Some("Cluster") => cluster = Some(o.clone()),
            _ => {}
        }
    }
    let Some(mut cluster) = cluster else { return };
    if let Some(vars) = cluster["spec"]["topology"]["variables"].as_array_mut() {
        for v in vars.iter_mut().filter(|v| v["name"] == "region") {
            v["value"] = value.clone();
        }
    }
    let _ = capi_render::topology::v1beta2::render_cluster(&cluster, &inputs);
});
