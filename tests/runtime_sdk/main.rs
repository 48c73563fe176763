//! `render --runtime-extension` end to end against a fake Runtime SDK extension served on
//! loopback by the test (the real one, Cluster API's runtime server, is
//! conformance/runtime-sdk.sh's): discovery, each hook, failure policies and timeouts, a
//! failing validation, a required discovered variable, the loopback rule, a missing
//! extension, `--check` when the extension answers differently, and `--from-lock`;
//! `hostile`: where capi-render connects, whatever a lock, an input or an answer says,
//! and how much of an answer an error quotes.

use std::net::TcpListener;

use serde_json::Value;

#[path = "../common/mod.rs"]
mod common;
mod fake;
mod hostile;

use fake::{
    inputs, regex_lite_defaults, render, render_tree, serve, stderr, work_tree, Behaviour, CONFIG,
    E2E, EXT,
};

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
    let (url, state) = serve(Behaviour::default());
    let (dir, out) = work_tree(&s);
    let tree = |extra: &[&str]| render_tree(&dir, &out, &url, extra);
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
