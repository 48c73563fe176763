//! `render --runtime-extension` end to end against a fake Runtime SDK extension served on
//! loopback by the test (the real one, Cluster API's runtime server, is
//! conformance/runtime-sdk.sh's): discovery, each hook, failure policies and timeouts, a
//! failing validation, a required discovered variable, the loopback rule, a missing
//! extension, `--check` when the extension answers differently, and `--from-lock`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

mod common;

const E2E: &str =
    "e2e-repository/infrastructure-docker/v1.11.11/clusterclass-quick-start-runtimesdk.yaml";
const EXT: &str = "k8s-upgrade-with-runtimesdk";

/// How the fake extension behaves.
#[derive(Clone)]
struct Behaviour {
    /// The image tag prefix its generate-patches writes (`<prefix>-<version>`).
    image: String,
    /// Discovery's failure policy and timeout for generate-patches.
    generate_policy: &'static str,
    generate_timeout: i64,
    /// Seconds generate-patches waits before answering.
    generate_delay: u64,
}

impl Default for Behaviour {
    fn default() -> Self {
        Behaviour {
            image: "kindest/node:fake".into(),
            generate_policy: "Fail",
            generate_timeout: 10,
            generate_delay: 0,
        }
    }
}

/// Serve the fake extension until the test process ends; its URL, and the behaviour to
/// change between runs.
fn serve(b: Behaviour) -> (String, Arc<Mutex<Behaviour>>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let shared = Arc::new(Mutex::new(b));
    let state = shared.clone();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let state = state.clone();
            std::thread::spawn(move || {
                let mut r = BufReader::new(s.try_clone().unwrap());
                let mut line = String::new();
                let _ = r.read_line(&mut line);
                let mut len = 0;
                loop {
                    let mut h = String::new();
                    if r.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                        break;
                    }
                    if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; len];
                let _ = r.read_exact(&mut body);
                let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
                let b = state.lock().unwrap().clone();
                let answer = answer(&path, &req, &b);
                let text = answer.to_string();
                let mut s = s;
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                    text.len()
                );
            });
        }
    });
    (url, shared)
}

fn hook(name: &str, h: &str) -> Value {
    json!({"name": name, "requestHook": {"apiVersion": "hooks.runtime.cluster.x-k8s.io/v1alpha1", "hook": h}})
}

fn var<'a>(list: &'a Value, name: &str) -> Option<&'a Value> {
    list.as_array()?
        .iter()
        .find(|v| v["name"] == name)
        .map(|v| &v["value"])
}

fn answer(path: &str, req: &Value, b: &Behaviour) -> Value {
    let ok = |mut v: Value| {
        v["status"] = json!("Success");
        v
    };
    if path.ends_with("/discovery") {
        let mut generate = hook("generate-patches", "GeneratePatches");
        generate["failurePolicy"] = json!(b.generate_policy);
        generate["timeoutSeconds"] = json!(b.generate_timeout);
        return ok(json!({"handlers": [generate,
            hook("validate-topology", "ValidateTopology"),
            hook("discover-variables", "DiscoverVariables")]}));
    }
    if path.ends_with("/discover-variables") {
        return ok(json!({"variables": [
            {"name": "imageTag", "required": true, "schema": {"openAPIV3Schema": {"type": "string"}}},
            {"name": "replicasCap", "required": false, "schema": {"openAPIV3Schema": {"type": "integer", "default": 5}}}
        ]}));
    }
    if path.ends_with("/generate-patches") {
        std::thread::sleep(std::time::Duration::from_secs(b.generate_delay));
        let tag = var(&req["variables"], "imageTag")
            .cloned()
            .unwrap_or_default();
        let items: Vec<Value> = req["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|i| i["object"]["kind"] == "DockerMachineTemplate")
            .map(|i| {
                let version = var(&i["variables"], "builtin")
                    .and_then(|b| b.pointer("/controlPlane/version").or(b.pointer("/machineDeployment/version")))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let image = format!("{}-{}-{version}", b.image, tag.as_str().unwrap_or(""));
                let ops = json!([{"op": "add", "path": "/spec/template/spec/customImage", "value": image}]);
                json!({"uid": i["uid"], "patchType": "JSONPatch", "patch": b64(ops.to_string().as_bytes())})
            })
            .collect();
        return ok(json!({"items": items}));
    }
    if path.ends_with("/validate-topology") {
        let cap = var(&req["variables"], "replicasCap")
            .and_then(Value::as_i64)
            .unwrap_or(i64::MAX);
        for i in req["items"].as_array().into_iter().flatten() {
            let r = var(&i["variables"], "builtin")
                .and_then(|b| b.pointer("/controlPlane/replicas"))
                .and_then(Value::as_i64)
                .unwrap_or(0);
            if r > cap {
                return json!({"status": "Failure", "message": format!("{r} control plane replicas, over {cap}")});
            }
        }
        return ok(json!({}));
    }
    json!({"status": "Failure", "message": format!("no handler at {path}")})
}

fn b64(data: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in data.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

const CONFIG: &str = "apiVersion: runtime.cluster.x-k8s.io/v1alpha1\nkind: ExtensionConfig\nmetadata:\n  name: k8s-upgrade-with-runtimesdk\nspec:\n  clientConfig:\n    service:\n      name: test-extension-webhook-service\n      namespace: test-extension-system\n";

/// The inputs in `dir`: the corpus class (defaults substituted), the ExtensionConfig and
/// a Cluster with `variables` and `replicas`.
fn inputs(dir: &std::path::Path, variables: &str, replicas: u32) {
    let class = std::fs::read_to_string(common::corpus_dir().join(E2E)).unwrap();
    let class = regex_lite_defaults(&class);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("class.yaml"), class).unwrap();
    std::fs::write(dir.join("extension.yaml"), CONFIG).unwrap();
    std::fs::write(
        dir.join("cluster.yaml"),
        format!("apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata:\n  name: rsdk\n  namespace: default\nspec:\n  topology:\n    classRef:\n      name: quick-start-runtimesdk\n    version: v1.34.1\n    controlPlane:\n      replicas: {replicas}\n    variables:\n{variables}"),
    )
    .unwrap();
}

/// `${VAR:-default}` → `default`, as clusterctl substitutes with no variables set.
fn regex_lite_defaults(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find('}').unwrap();
        let inner = &after[..end];
        out.push_str(inner.split_once(":-").map_or("", |(_, d)| d));
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

fn render(dir: &std::path::Path, url: &str, extra: &[&str]) -> std::process::Output {
    common::run(
        common::bin()
            .args(["render", "--stdout", "-q", "--clusters", "desired", "-f"])
            .arg(dir)
            .arg("--runtime-extension")
            .arg(format!("{EXT}={url}"))
            .args(extra),
        None,
    )
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn each_hook_is_called_and_its_answer_applied() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let s = common::Scratch::new("rsdk-hooks");
    let (url, _) = serve(Behaviour::default());
    inputs(s.path(), "    - name: imageTag\n      value: v7\n", 1);
    let o = render(s.path(), &url, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    // GeneratePatches: each DockerMachineTemplate (control plane and worker) took its holder's version.
    assert!(
        out.contains("customImage: kindest/node:fake-v7-v1.34.1"),
        "{out}"
    );
    // DiscoverVariables: replicasCap's discovered default is set on the Cluster.
    assert!(out.contains("name: replicasCap\n      value: 5"), "{out}");
    // One call at a time gives the same objects.
    let o = render(s.path(), &url, &["--runtime-concurrency", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), out);
    let o = render(s.path(), &url, &["--runtime-concurrency", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn a_failing_validation_and_a_required_discovered_variable_are_errors() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let s = common::Scratch::new("rsdk-errors");
    let (url, _) = serve(Behaviour::default());
    inputs(
        s.path(),
        "    - name: imageTag\n      value: v7\n    - name: replicasCap\n      value: 2\n",
        3,
    );
    let o = render(s.path(), &url, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("validation of patch \"test-patch\" failed: failed to call extension handler \"validate-topology.k8s-upgrade-with-runtimesdk\": got failure response with message: 3 control plane replicas, over 2"), "{}", stderr(&o));
    inputs(s.path(), "    - name: other\n      value: 1\n", 1);
    let o = render(s.path(), &url, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("required variable \"imageTag\" must be set"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_failure_policy_decides_what_a_timeout_does() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let s = common::Scratch::new("rsdk-timeout");
    inputs(s.path(), "    - name: imageTag\n      value: v7\n", 1);
    let slow = Behaviour {
        generate_timeout: 1,
        generate_delay: 3,
        ..Behaviour::default()
    };
    let (url, state) = serve(slow);
    let o = render(s.path(), &url, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("failed to generate patches for patch \"test-patch\": failed to call extension handler \"generate-patches.k8s-upgrade-with-runtimesdk\": http call failed"), "{}", stderr(&o));
    state.lock().unwrap().generate_policy = "Ignore";
    let o = render(s.path(), &url, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("customImage"));
}

#[test]
fn the_loopback_rule_and_a_missing_extension_are_errors_that_say_what_to_do() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let s = common::Scratch::new("rsdk-refused");
    inputs(s.path(), "    - name: imageTag\n      value: v7\n", 1);
    let o = render(s.path(), "https://extensions.example.com:9443", &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("is not a loopback address"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("--allow-remote-extensions"),
        "{}",
        stderr(&o)
    );
    // Nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let o = render(s.path(), &format!("http://127.0.0.1:{port}"), &[]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains(
            "failed to discover extension \"k8s-upgrade-with-runtimesdk\": http call failed"
        ),
        "{e}"
    );
    assert!(e.contains("start the extension"), "{e}");
    // An ExtensionConfig the flag names but the inputs lack.
    let o = common::run(
        common::bin()
            .args(["render", "--stdout", "-f"])
            .arg(s.path())
            .args(["--runtime-extension", "typo=http://127.0.0.1:1"]),
        None,
    );
    assert!(
        stderr(&o).contains("no ExtensionConfig \"typo\" among the inputs"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("the inputs define: k8s-upgrade-with-runtimesdk"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn check_fails_when_the_extension_answers_differently_and_from_lock_calls_it_from_the_lock() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let s = common::Scratch::new("rsdk-check");
    // A work tree: --from-lock follows the lock's paths inside it.
    std::fs::create_dir_all(s.path().join(".git")).unwrap();
    let (url, state) = serve(Behaviour::default());
    let dir = s.path().join("in");
    inputs(&dir, "    - name: imageTag\n      value: v7\n", 1);
    let out = s.path().join("out");
    let tree = |extra: &[&str]| {
        common::run(
            common::bin()
                .args(["render", "-q", "-f"])
                .arg(&dir)
                .arg("-o")
                .arg(&out)
                .arg("--runtime-extension")
                .arg(format!("{EXT}={url}"))
                .args(extra),
            None,
        )
    };
    let o = tree(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = tree(&["--check"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let from_lock = |extra: &[&str]| {
        common::run(
            common::bin()
                .args(["render", "--from-lock"])
                .arg(&out)
                .arg("--runtime-extension")
                .arg(format!("{EXT}={url}"))
                .args(extra),
            None,
        )
    };
    let o = from_lock(&["--check"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The lock records the flags: --from-lock alone calls the same extension.
    let lock = std::fs::read_to_string(out.join("capi-render.lock")).unwrap();
    assert!(
        lock.contains(&format!(
            "  runtimeExtensions:\n    extensions:\n    - {EXT}={url}\n"
        )),
        "{lock}"
    );
    let alone = || {
        common::run(
            common::bin()
                .args(["render", "--check", "--from-lock"])
                .arg(&out),
            None,
        )
    };
    let o = alone();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The extension now answers with another image: the tree is out of date.
    state.lock().unwrap().image = "registry.example/node".into();
    let o = common::run(
        common::bin()
            .args(["render", "--check", "-f"])
            .arg(&dir)
            .arg("-o")
            .arg(&out)
            .arg("--runtime-extension")
            .arg(format!("{EXT}={url}")),
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // The message names the extension's handlers the Clusters were patched by.
    assert!(
        stderr(&o).contains("patched by runtime extension handler(s) discover-variables.k8s-upgrade-with-runtimesdk, generate-patches.k8s-upgrade-with-runtimesdk, validate-topology.k8s-upgrade-with-runtimesdk"),
        "{}",
        stderr(&o)
    );
    let o = from_lock(&["--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = alone();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn diff_calls_the_extension_on_both_sides_and_names_it_in_the_reasons() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let s = common::Scratch::new("rsdk-diff");
    let (url, _) = serve(Behaviour::default());
    let (a, b) = (s.path().join("a"), s.path().join("b"));
    inputs(&a, "    - name: imageTag\n      value: v7\n", 1);
    inputs(&b, "    - name: imageTag\n      value: v8\n", 1);
    let o = common::run(
        common::bin()
            .args(["diff", "-f"])
            .arg(&a)
            .arg("--against")
            .arg(&b)
            .args(["--output-format", "json", "--runtime-extension"])
            .arg(format!("{EXT}={url}")),
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let cp = &v["impact"]["clusters"][0]["controlPlane"];
    // The extension's new image rolls the control plane, and the reasons say who wrote it.
    assert_eq!(cp["action"], "rollout", "{v}");
    let reasons = cp["reasons"].to_string();
    assert!(reasons.contains("customImage"), "{reasons}");
    assert!(
        reasons.contains("runtime extension handler(s) generate-patches.k8s-upgrade-with-runtimesdk answered differently for this Cluster"),
        "{reasons}"
    );
}

#[test]
fn a_v1beta1_class_names_its_handlers_by_the_v1beta1_fields() {
    let rel = "e2e-repository/infrastructure-docker/v1.11.11/clusterclass-quick-start-runtimesdk-v1beta1.yaml";
    let Some(path) = common::corpus_path(rel) else {
        return;
    };
    let s = common::Scratch::new("rsdk-v1beta1");
    let (url, _) = serve(Behaviour::default());
    let dir = s.path();
    let class = regex_lite_defaults(&std::fs::read_to_string(path).unwrap());
    assert!(class.contains("generateExtension: generate-patches.test-extension"));
    std::fs::write(dir.join("class.yaml"), class).unwrap();
    std::fs::write(
        dir.join("extension.yaml"),
        CONFIG.replace(EXT, "test-extension"),
    )
    .unwrap();
    std::fs::write(
        dir.join("cluster.yaml"),
        "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: old\n  namespace: default\nspec:\n  topology:\n    class: quick-start-runtimesdk-v1beta1\n    version: v1.34.1\n    controlPlane:\n      replicas: 1\n    variables:\n    - name: imageTag\n      value: v7\n",
    )
    .unwrap();
    let run = |core: &str| {
        common::run(
            common::bin()
                .args([
                    "render",
                    "--stdout",
                    "-q",
                    "--clusters",
                    "desired",
                    "--capi-version",
                    core,
                    "-f",
                ])
                .arg(dir)
                .arg("--runtime-extension")
                .arg(format!("test-extension={url}")),
            None,
        )
    };
    // Under a v1.14 core the v1beta1 class calls its extension as a v1beta2 one would.
    let o = run("v1.14.2");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("customImage: kindest/node:fake-v7-v1.34.1")
    );
    // Under a v1.10 core, clusterctl v1.10.10's semantics: its webhook refuses the patch.
    let o = run("v1.10.10");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o)
            .contains("patch.external can be used only if the RuntimeSDK feature flag is enabled"),
        "{}",
        stderr(&o)
    );
}
