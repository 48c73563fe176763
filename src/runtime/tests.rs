use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::config::{check_url, extension_configs, parse_flag, selector_matches, UrlPolicy};
use super::registry::{ForObject, Registry};
use super::{CallError, Hook, Transport};

/// Answers by URL path suffix; records every request (url, body, timeout).
#[derive(Default)]
struct Fake {
    answers: Vec<(&'static str, Result<Value, &'static str>)>,
    seen: Mutex<Vec<(String, Value, Duration)>>,
}

impl Transport for Fake {
    fn post(&self, url: &str, body: &[u8], timeout: Duration) -> Result<Vec<u8>, CallError> {
        let req: Value = serde_json::from_slice(body).unwrap();
        self.seen
            .lock()
            .unwrap()
            .push((url.to_string(), req, timeout));
        for (suffix, a) in &self.answers {
            if url.ends_with(suffix) {
                return match a {
                    Ok(v) => Ok(serde_json::to_vec(v).unwrap()),
                    Err(e) => Err(CallError(format!("http call failed: {e}"))),
                };
            }
        }
        Err(CallError("http call failed: connection refused".into()))
    }
}

fn ext_config(name: &str, url: &str, extra: Value) -> Value {
    let mut spec = json!({"clientConfig": {"url": url}});
    if let (Value::Object(s), Value::Object(e)) = (&mut spec, extra) {
        s.extend(e);
    }
    json!({"apiVersion": "runtime.cluster.x-k8s.io/v1alpha1", "kind": "ExtensionConfig",
        "metadata": {"name": name}, "spec": spec})
}

/// The configs, each named by a `--runtime-extension` at the URL its
/// `spec.clientConfig.url` holds here.
fn configs(objs: &[Value]) -> Vec<super::ExtensionConfig> {
    let urls = objs
        .iter()
        .map(|o| {
            let url = o.pointer("/spec/clientConfig/url").unwrap().as_str();
            (
                o["metadata"]["name"].as_str().unwrap().to_string(),
                url.unwrap().to_string(),
            )
        })
        .collect();
    extension_configs(
        objs.iter()
            .enumerate()
            .map(|(i, o)| (format!("in.yaml[{i}]"), o)),
        &urls,
        UrlPolicy::default(),
    )
    .unwrap()
    .0
}

fn discovery() -> Value {
    json!({"status": "Success", "handlers": [
        {"name": "validate-topology", "requestHook": {"apiVersion": "hooks.runtime.cluster.x-k8s.io/v1alpha1", "hook": "ValidateTopology"}},
        {"name": "generate-patches", "requestHook": {"apiVersion": "hooks.runtime.cluster.x-k8s.io/v1alpha1", "hook": "GeneratePatches"},
         "timeoutSeconds": 3, "failurePolicy": "Ignore"},
        {"name": "before-create", "requestHook": {"apiVersion": "hooks.runtime.cluster.x-k8s.io/v1alpha1", "hook": "BeforeClusterCreate"}}
    ]})
}

const FOR: ForObject = ForObject {
    namespace: "ns",
    name: "c1",
    namespace_labels: None,
};

#[test]
fn discovery_registers_handlers_by_extension_with_defaults() {
    let fake = Fake {
        answers: vec![("/discovery", Ok(discovery()))],
        ..Default::default()
    };
    let reg = Registry::discover(
        configs(&[ext_config("ext", "https://127.0.0.1:9443/base", json!({}))]),
        &fake,
    )
    .unwrap();
    let hs: Vec<(String, Hook, i64, bool)> = reg
        .handlers()
        .map(|h| (h.name.clone(), h.hook, h.timeout_seconds, h.ignore_failures))
        .collect();
    assert_eq!(
        hs,
        vec![
            (
                "generate-patches.ext".into(),
                Hook::GeneratePatches,
                3,
                true
            ),
            (
                "validate-topology.ext".into(),
                Hook::ValidateTopology,
                10,
                false
            ),
        ]
    );
    let seen = fake.seen.lock().unwrap();
    assert_eq!(
        seen[0].0,
        "https://127.0.0.1:9443/base/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery"
    );
    assert_eq!(seen[0].1["kind"], "DiscoveryRequest");
    assert_eq!(seen[0].2, Duration::from_secs(10));
}

#[test]
fn discovery_validates_like_cluster_api() {
    let bad = json!({"status": "Success", "handlers": [
        {"name": "Bad_Name", "requestHook": {"apiVersion": "hooks.runtime.cluster.x-k8s.io/v1alpha1", "hook": "GeneratePatches"}},
        {"name": "slow", "timeoutSeconds": 31, "requestHook": {"apiVersion": "hooks.runtime.cluster.x-k8s.io/v1alpha1", "hook": "Nope"}}
    ]});
    let fake = Fake {
        answers: vec![("/discovery", Ok(bad))],
        ..Default::default()
    };
    let e = Registry::discover(
        configs(&[ext_config("ext", "http://localhost:1", json!({}))]),
        &fake,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with(
            "failed to discover extension \"ext\": failed to validate discovery response: ["
        ),
        "{e}"
    );
    assert!(e.contains("handler name Bad_Name is not valid"), "{e}");
    assert!(
        e.contains("handler slow timeoutSeconds 31 must be between 0 and 30"),
        "{e}"
    );
    assert!(e.contains("handler slow requestHook hooks.runtime.cluster.x-k8s.io/v1alpha1/Nope is not in the Runtime SDK catalog"), "{e}");
    // An extension that does not answer: the error says where it was looked for.
    let down = Fake::default();
    let e = Registry::discover(
        configs(&[ext_config("ext", "http://localhost:1", json!({}))]),
        &down,
    )
    .unwrap_err();
    assert_eq!(
        e.message(),
        "failed to discover extension \"ext\": http call failed: connection refused"
    );
    assert!(e.hint().unwrap().contains("http://localhost:1"));
}

#[test]
fn calls_merge_settings_take_the_timeout_and_apply_the_failure_policy() {
    let ok = json!({"status": "Success", "items": []});
    let fake = Fake {
        answers: vec![
            ("/discovery", Ok(discovery())),
            ("/generatepatches/generate-patches", Ok(ok.clone())),
        ],
        ..Default::default()
    };
    let cfgs = configs(&[ext_config(
        "ext",
        "https://127.0.0.1:9443",
        json!({"settings": {"a": "ext", "b": "ext"}}),
    )]);
    let reg = Registry::discover(cfgs, &fake).unwrap();
    let mut req = Map::new();
    req.insert("settings".into(), json!({"b": "patch"}));
    req.insert("items".into(), json!([]));
    let reply = reg
        .call(
            &fake,
            Hook::GeneratePatches,
            "generate-patches.ext",
            FOR,
            req,
        )
        .unwrap();
    assert_eq!(reply.response, ok);
    let seen = fake.seen.lock().unwrap();
    let (url, body, timeout) = seen.last().unwrap();
    assert_eq!(url, "https://127.0.0.1:9443/hooks.runtime.cluster.x-k8s.io/v1alpha1/generatepatches/generate-patches");
    assert_eq!(body["settings"], json!({"a": "ext", "b": "patch"}));
    assert_eq!(body["kind"], "GeneratePatchesRequest");
    assert_eq!(*timeout, Duration::from_secs(3));
    drop(seen);
    // ValidateTopology has the default policy, Fail: unreachable is an error.
    let e = reg
        .call(
            &fake,
            Hook::ValidateTopology,
            "validate-topology.ext",
            FOR,
            Map::new(),
        )
        .unwrap_err();
    assert_eq!(e.message(), "failed to call extension handler \"validate-topology.ext\": http call failed: connection refused");
}

#[test]
fn ignore_passes_an_unreachable_handler_but_not_a_failure() {
    let down = Fake {
        answers: vec![
            ("/discovery", Ok(discovery())),
            ("/generate-patches", Err("context deadline exceeded")),
        ],
        ..Default::default()
    };
    let reg = Registry::discover(
        configs(&[ext_config("ext", "http://[::1]:8080", json!({}))]),
        &down,
    )
    .unwrap();
    let reply = reg
        .call(
            &down,
            Hook::GeneratePatches,
            "generate-patches.ext",
            FOR,
            Map::new(),
        )
        .unwrap();
    assert_eq!(reply.response["status"], "Success");
    assert!(reply.body.is_empty());
    let failing = Fake {
        answers: vec![
            ("/discovery", Ok(discovery())),
            (
                "/generate-patches",
                Ok(json!({"status": "Failure", "message": "imageTag is required"})),
            ),
        ],
        ..Default::default()
    };
    let e = reg
        .call(
            &failing,
            Hook::GeneratePatches,
            "generate-patches.ext",
            FOR,
            Map::new(),
        )
        .unwrap_err();
    assert_eq!(
        e.message(),
        "failed to call extension handler \"generate-patches.ext\": got failure response with message: imageTag is required"
    );
}

#[test]
fn an_unknown_handler_names_the_registered_ones() {
    let fake = Fake {
        answers: vec![("/discovery", Ok(discovery()))],
        ..Default::default()
    };
    let reg = Registry::discover(
        configs(&[ext_config("ext", "http://127.0.0.1:1", json!({}))]),
        &fake,
    )
    .unwrap();
    let e = reg
        .call(
            &fake,
            Hook::GeneratePatches,
            "generate-patches.other",
            FOR,
            Map::new(),
        )
        .unwrap_err();
    assert!(
        e.message()
            .ends_with("handler with name \"generate-patches.other\" has not been registered"),
        "{}",
        e.message()
    );
    assert_eq!(
        e.hint(),
        Some("GeneratePatches handlers registered: generate-patches.ext")
    );
    let e = reg
        .call(
            &fake,
            Hook::GeneratePatches,
            "validate-topology.ext",
            FOR,
            Map::new(),
        )
        .unwrap_err();
    assert!(
        e.message().contains("handler does not match GroupHook"),
        "{}",
        e.message()
    );
}

#[test]
fn the_namespace_selector_is_matched_against_the_namespace_among_the_inputs() {
    let fake = Fake {
        answers: vec![
            ("/discovery", Ok(discovery())),
            ("/validate-topology", Ok(json!({"status": "Success"}))),
        ],
        ..Default::default()
    };
    let sel = json!({"namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "In", "values": ["a"]}]}});
    let reg = Registry::discover(
        configs(&[ext_config("ext", "http://127.0.0.1:1", sel)]),
        &fake,
    )
    .unwrap();
    let e = reg
        .call(
            &fake,
            Hook::ValidateTopology,
            "validate-topology.ext",
            FOR,
            Map::new(),
        )
        .unwrap_err();
    assert!(
        e.hint().unwrap().contains("add the Namespace \"ns\""),
        "{e:?}"
    );
    let b = BTreeMap::from([("team".to_string(), "b".to_string())]);
    let e = reg
        .call(
            &fake,
            Hook::ValidateTopology,
            "validate-topology.ext",
            ForObject {
                namespace_labels: Some(&b),
                ..FOR
            },
            Map::new(),
        )
        .unwrap_err();
    assert!(
        e.message()
            .ends_with("namespaceSelector did not match object ns/c1"),
        "{}",
        e.message()
    );
    let a = BTreeMap::from([("team".to_string(), "a".to_string())]);
    reg.call(
        &fake,
        Hook::ValidateTopology,
        "validate-topology.ext",
        ForObject {
            namespace_labels: Some(&a),
            ..FOR
        },
        Map::new(),
    )
    .unwrap();
    assert!(selector_matches(
        &json!({"matchLabels": {"x": "1"}, "matchExpressions": [{"key": "y", "operator": "DoesNotExist"}]}),
        &BTreeMap::from([("x".to_string(), "1".to_string())])
    ));
}

#[test]
fn urls_are_loopback_unless_remote_extensions_are_allowed() {
    for ok in [
        "http://127.0.0.1:8080",
        "https://localhost/x",
        "https://[::1]:9443",
        "http://127.0.0.2",
    ] {
        check_url(ok, false).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
    for remote in [
        "https://ext.example.com:9443",
        "http://10.0.0.1",
        "https://[2001:db8::1]",
    ] {
        let e = check_url(remote, false).unwrap_err();
        assert!(
            e.message().contains("is not a loopback address"),
            "{remote}: {e}"
        );
        assert!(e.hint().unwrap().contains("--allow-remote-extensions"));
        check_url(remote, true).unwrap();
    }
    for bad in [
        "ftp://127.0.0.1",
        "127.0.0.1:80",
        "http://user@127.0.0.1",
        "http://127.0.0.1:port",
        "http://",
    ] {
        assert!(check_url(bad, true).is_err(), "{bad}");
    }
    assert_eq!(
        parse_flag("ext=http://127.0.0.1:1").unwrap(),
        ("ext".into(), "http://127.0.0.1:1".into())
    );
    assert!(parse_flag("ext").is_err());
}

#[test]
fn only_the_command_line_says_where_an_extension_is_called() {
    let svc = json!({"apiVersion": "runtime.cluster.x-k8s.io/v1alpha1", "kind": "ExtensionConfig",
        "metadata": {"name": "ext"}, "spec": {"clientConfig": {"service": {"namespace": "x", "name": "svc"}}}});
    let own = ext_config(
        "own",
        "http://localhost:1/admin/delete?confirm=yes&x=",
        json!({}),
    );
    let inputs = || {
        [
            ("f.yaml, document 1".to_string(), &svc),
            ("g.yaml, document 2".to_string(), &own),
        ]
    };
    let none = BTreeMap::new();
    // No flag: nothing is called, whatever the ExtensionConfigs' own clientConfig says.
    let (called, unnamed) = extension_configs(inputs(), &none, UrlPolicy::default()).unwrap();
    assert!(called.is_empty());
    assert_eq!(
        unnamed.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(),
        ["ext", "own"]
    );
    // A flag names one: that one is called at the flag's URL, the other is not.
    let urls = BTreeMap::from([("ext".to_string(), "https://127.0.0.1:9443".to_string())]);
    let (called, unnamed) = extension_configs(inputs(), &urls, UrlPolicy::default()).unwrap();
    assert_eq!(called.len(), 1);
    assert_eq!(called[0].url, "https://127.0.0.1:9443");
    assert_eq!(unnamed.len(), 1);
    assert_eq!(unnamed[0].source, "g.yaml, document 2");
    // A flag naming no ExtensionConfig is an error.
    let urls = BTreeMap::from([("nope".to_string(), "https://127.0.0.1:9443".to_string())]);
    let e = extension_configs(inputs(), &urls, UrlPolicy::default()).unwrap_err();
    assert!(e.message().contains("no ExtensionConfig \"nope\""), "{e}");
    // A class that needs the unnamed one is told which flag to pass; nothing is called.
    let fake = Fake {
        answers: vec![("/discovery", Ok(discovery()))],
        ..Default::default()
    };
    let urls = BTreeMap::from([("ext".to_string(), "https://127.0.0.1:9443".to_string())]);
    let (called, unnamed) = extension_configs(inputs(), &urls, UrlPolicy::default()).unwrap();
    let reg = Registry::discover(called, &fake)
        .unwrap()
        .with_unnamed(unnamed);
    fake.seen.lock().unwrap().clear();
    let e = reg
        .call(
            &fake,
            Hook::GeneratePatches,
            "generate-patches.own",
            FOR,
            Map::new(),
        )
        .unwrap_err();
    assert!(
        e.message().contains(
            "ExtensionConfig \"own\" (g.yaml, document 2) is not named by --runtime-extension"
        ),
        "{e}"
    );
    assert!(
        e.message().contains("pass --runtime-extension own=URL"),
        "{e}"
    );
    assert!(fake.seen.lock().unwrap().is_empty());
}

#[test]
fn answers_are_quoted_bounded_in_errors() {
    // 150,000 invalid handler names: five named, the rest counted.
    let handlers: Vec<Value> = (0..150_000)
        .map(|i| json!({"name": format!("Bad_{i}"), "requestHook": {"apiVersion": "hooks.runtime.cluster.x-k8s.io/v1alpha1", "hook": "GeneratePatches"}}))
        .collect();
    let fake = Fake {
        answers: vec![(
            "/discovery",
            Ok(json!({"status": "Success", "handlers": handlers})),
        )],
        ..Default::default()
    };
    let cfgs = || configs(&[ext_config("ext", "http://127.0.0.1:1", json!({}))]);
    let e = Registry::discover(cfgs(), &fake).unwrap_err().to_string();
    assert!(e.len() < 4096, "{} bytes", e.len());
    assert!(e.contains("handler name Bad_4 is not valid"), "{e}");
    assert!(!e.contains("Bad_5 "), "{e}");
    assert!(e.ends_with("(and 149995 more)"), "{e}");
    // A failure message of control characters and megabytes: escaped and cut.
    let message = "\u{1b}[2J".repeat(1 << 20);
    let fake = Fake {
        answers: vec![(
            "/discovery",
            Ok(json!({"status": "Failure", "message": message})),
        )],
        ..Default::default()
    };
    let e = Registry::discover(cfgs(), &fake).unwrap_err().to_string();
    assert!(e.len() < 4096 + 200, "{} bytes", e.len());
    assert!(!e.contains('\u{1b}'), "{e}");
    assert!(e.contains(r#"\x1b[2J"#), "{e}");
}

/// Holds every call a while and counts how many overlap: (in flight, most at once).
struct Slow {
    now: std::sync::Arc<Mutex<(usize, usize)>>,
}

impl Transport for Slow {
    fn post(&self, url: &str, _: &[u8], _: Duration) -> Result<Vec<u8>, CallError> {
        if url.ends_with("/discovery") {
            return Ok(serde_json::to_vec(&discovery()).unwrap());
        }
        {
            let mut n = self.now.lock().unwrap();
            n.0 += 1;
            n.1 = n.1.max(n.0);
        }
        std::thread::sleep(Duration::from_millis(40));
        self.now.lock().unwrap().0 -= 1;
        Ok(br#"{"status":"Success"}"#.to_vec())
    }
}

#[test]
fn a_session_keeps_its_calls_in_flight_within_the_bound() {
    for bound in [Some(1), Some(2), None] {
        let now = std::sync::Arc::new(Mutex::new((0, 0)));
        let slow = Slow { now: now.clone() };
        let reg = Registry::discover(
            configs(&[ext_config("ext", "http://127.0.0.1:1", json!({}))]),
            &slow,
        )
        .unwrap();
        let mut s = super::Session::new(reg, Box::new(slow), BTreeMap::new());
        if let Some(b) = bound {
            s = s.with_max_in_flight(b);
        }
        // Six calls at once, as six render workers would make them.
        let start = std::sync::Barrier::new(6);
        std::thread::scope(|sc| {
            for i in 0..6 {
                let (s, start) = (&s, &start);
                sc.spawn(move || {
                    start.wait();
                    s.call(
                        Hook::ValidateTopology,
                        "validate-topology.ext",
                        "ns",
                        &format!("c{i}"),
                        Map::new(),
                    )
                    .unwrap();
                });
            }
        });
        let (left, seen) = *now.lock().unwrap();
        assert_eq!(left, 0);
        // Bounded: never more than the bound; unbounded: the six overlap.
        match bound {
            Some(b) => assert!(seen <= b && seen >= 1, "bound {b}, {seen} at once"),
            None => assert!(seen >= 2, "unbounded calls did not overlap: {seen}"),
        }
        assert_eq!(s.answers_for("ns", "c5").len(), 1);
    }
}
