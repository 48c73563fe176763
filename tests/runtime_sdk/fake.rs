//! The fake Runtime SDK extension the tests serve on loopback, and the inputs and runs
//! that call it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::common;

pub const E2E: &str =
    "e2e-repository/infrastructure-docker/v1.11.11/clusterclass-quick-start-runtimesdk.yaml";
pub const EXT: &str = "k8s-upgrade-with-runtimesdk";

/// How the fake extension behaves.
#[derive(Clone)]
pub struct Behaviour {
    /// The image tag prefix its generate-patches writes (`<prefix>-<version>`).
    pub image: String,
    /// Discovery's failure policy and timeout for generate-patches.
    pub generate_policy: &'static str,
    pub generate_timeout: i64,
    /// Seconds generate-patches waits before answering.
    pub generate_delay: u64,
    /// The request line of every request it got (shared by the clones).
    pub requests: Arc<Mutex<Vec<String>>>,
    /// When not 0: generate-patches also adds a 1 KiB value and copies its parent into
    /// itself this many times (2ⁿ KiB if applied whole).
    pub doubling: usize,
}

impl Default for Behaviour {
    fn default() -> Self {
        Behaviour {
            image: "kindest/node:fake".into(),
            generate_policy: "Fail",
            generate_timeout: 10,
            generate_delay: 0,
            requests: Arc::default(),
            doubling: 0,
        }
    }
}

/// One HTTP request read off `s`: its request line and its body (`Content-Length`).
fn read_request(s: &std::net::TcpStream) -> (String, Vec<u8>) {
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
    (line, body)
}

/// Serve the fake extension until the test process ends; its URL, and the behaviour to
/// change between runs.
pub fn serve(b: Behaviour) -> (String, Arc<Mutex<Behaviour>>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let shared = Arc::new(Mutex::new(b));
    let state = shared.clone();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let state = state.clone();
            std::thread::spawn(move || {
                let (line, body) = read_request(&s);
                let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
                let b = state.lock().unwrap().clone();
                b.requests.lock().unwrap().push(line.trim_end().to_string());
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
                let mut ops = json!([{"op": "add", "path": "/spec/template/spec/customImage", "value": image}]);
                if b.doubling > 0 {
                    let grow = "/spec/template/spec/grow";
                    let list = ops.as_array_mut().unwrap();
                    list.push(json!({"op": "add", "path": grow, "value": {"a": "x".repeat(1024)}}));
                    for k in 0..b.doubling {
                        list.push(json!({"op": "copy", "from": grow, "path": format!("{grow}/c{k}")}));
                    }
                }
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

pub const CONFIG: &str = "apiVersion: runtime.cluster.x-k8s.io/v1alpha1\nkind: ExtensionConfig\nmetadata:\n  name: k8s-upgrade-with-runtimesdk\nspec:\n  clientConfig:\n    service:\n      name: test-extension-webhook-service\n      namespace: test-extension-system\n";

/// The inputs in `dir`: the corpus class (defaults substituted), the ExtensionConfig and
/// a Cluster with `variables` and `replicas`.
pub fn inputs(dir: &std::path::Path, variables: &str, replicas: u32) {
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
pub fn regex_lite_defaults(text: &str) -> String {
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

pub fn render(dir: &std::path::Path, url: &str, extra: &[&str]) -> std::process::Output {
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

/// A Git work tree (`--from-lock` follows the lock's paths inside it) with the inputs
/// in `in/` (`imageTag: v7`, one control-plane machine); the tree's `in/` and `out/`.
pub fn work_tree(s: &common::Scratch) -> (std::path::PathBuf, std::path::PathBuf) {
    std::fs::create_dir_all(s.path().join(".git")).unwrap();
    let dir = s.path().join("in");
    inputs(&dir, "    - name: imageTag\n      value: v7\n", 1);
    (dir, s.path().join("out"))
}

/// `render -o out` of `dir`'s inputs, the extension at `url`, with `extra` flags.
pub fn render_tree(
    dir: &std::path::Path,
    out: &std::path::Path,
    url: &str,
    extra: &[&str],
) -> std::process::Output {
    common::run(
        common::bin()
            .args(["render", "-q", "-f"])
            .arg(dir)
            .arg("-o")
            .arg(out)
            .arg("--runtime-extension")
            .arg(format!("{EXT}={url}"))
            .args(extra),
        None,
    )
}

pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A server on loopback that answers every request with `response` (a whole HTTP
/// response) and records each request line; its URL and the record.
pub fn stub(response: Vec<u8>) -> (String, Arc<Mutex<Vec<String>>>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let record = seen.clone();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let (record, response) = (record.clone(), response.clone());
            std::thread::spawn(move || {
                let (line, _) = read_request(&s);
                record.lock().unwrap().push(line.trim_end().to_string());
                let mut s = s;
                let _ = s.write_all(&response);
            });
        }
    });
    (url, seen)
}

/// A whole HTTP response of `status` with `headers` (each ending in CRLF) and `body`.
pub fn response(status: u16, headers: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "HTTP/1.1 {status} X\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}
