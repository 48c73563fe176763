//! Where capi-render connects, whatever a lock, an input or an extension's answer says
//! (loopback only unless `--allow-remote-extensions` is on the command line; the URL a
//! `--runtime-extension` gives and no other; no redirect followed; no proxy for
//! loopback), and how much of an answer an error quotes (4 KiB, control characters
//! escaped). Every server here is a recording stub on 127.0.0.1: a test that expects no
//! connection asserts that its stub got no request.

use serde_json::json;

use super::common;
use super::fake::{
    inputs, render, render_tree, response, serve, stderr, stub, work_tree, Behaviour, CONFIG, E2E,
    EXT,
};

fn port_of(url: &str) -> &str {
    url.rsplit(':').next().unwrap()
}

#[test]
fn a_lock_asking_for_remote_calls_makes_no_connection() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let s = common::Scratch::new("rsdk-lock-remote");
    let (url, _) = serve(Behaviour::default());
    let (dir, out) = work_tree(&s);
    let o = render_tree(&dir, &out, &url, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A pull request edits the lock: remote calls allowed, the extension at 0.0.0.0
    // (this machine, where a recording extension listens on loopback).
    let (elsewhere, state) = serve(Behaviour::default());
    let lock_path = out.join("capi-render.lock");
    let lock = std::fs::read_to_string(&lock_path).unwrap();
    let recorded = format!("  runtimeExtensions:\n    extensions:\n    - {EXT}={url}\n");
    assert!(lock.contains(&recorded), "{lock}");
    let edited = lock.replace(
        &recorded,
        &format!(
            "  runtimeExtensions:\n    allowRemote: true\n    extensions:\n    - {EXT}=http://0.0.0.0:{}\n",
            port_of(&elsewhere)
        ),
    );
    std::fs::write(&lock_path, edited).unwrap();
    let o = common::run(
        common::bin()
            .args(["render", "--check", "--from-lock"])
            .arg(&out),
        None,
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("is not a loopback address"), "{e}");
    assert!(e.contains("--allow-remote-extensions"), "{e}");
    let requests = state.lock().unwrap().requests.clone();
    assert!(requests.lock().unwrap().is_empty(), "{requests:?}");
}

#[test]
fn an_input_extension_config_does_not_choose_where_to_connect() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let s = common::Scratch::new("rsdk-input-url");
    let dir = s.path();
    inputs(dir, "    - name: imageTag\n      value: v7\n", 1);
    // The class's ExtensionConfig points at an admin endpoint; another one is named by
    // the flag.
    let (admin, seen) = stub(response(
        200,
        "Content-Type: application/json\r\n",
        b"INTERNAL-SECRET token=abc",
    ));
    let own = CONFIG.replace(
        "    service:\n      name: test-extension-webhook-service\n      namespace: test-extension-system\n",
        &format!("    url: {admin}/admin/delete?confirm=yes&x=\n"),
    );
    let other = CONFIG.replace(EXT, "other");
    std::fs::write(dir.join("extension.yaml"), format!("{other}---\n{own}")).unwrap();
    let (url, state) = serve(Behaviour::default());
    let o = common::run(
        common::bin()
            .args(["render", "--stdout", "-q", "--clusters", "desired", "-f"])
            .arg(dir)
            .arg("--runtime-extension")
            .arg(format!("other={url}")),
        None,
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        seen.lock().unwrap().is_empty(),
        "{:?}",
        seen.lock().unwrap()
    );
    assert!(!e.contains("INTERNAL-SECRET"), "{e}");
    // The error names the ExtensionConfig, its file and the flag to pass.
    assert!(
        e.contains(&format!("ExtensionConfig \"{EXT}\" (")) && e.contains("extension.yaml"),
        "{e}"
    );
    assert!(e.contains(&format!("--runtime-extension {EXT}=")), "{e}");
    // The named one was discovered, at the flag's URL.
    let requests = state.lock().unwrap().requests.clone();
    assert!(
        requests.lock().unwrap()[0].contains("/discovery"),
        "{requests:?}"
    );
}

#[test]
fn a_redirect_is_not_followed() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let s = common::Scratch::new("rsdk-redirect");
    inputs(s.path(), "    - name: imageTag\n      value: v7\n", 1);
    let (target, target_seen) = serve(Behaviour::default());
    for status in [301, 302, 303, 307] {
        let (redirect, seen) = stub(response(
            status,
            &format!("Location: http://0.0.0.0:{}/\r\n", port_of(&target)),
            b"moved",
        ));
        let o = render(s.path(), &redirect, &[]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{e}");
        assert!(
            e.contains(&format!("status code {status} (a redirect")),
            "{e}"
        );
        assert_eq!(seen.lock().unwrap().len(), 1);
    }
    let requests = target_seen.lock().unwrap().requests.clone();
    assert!(requests.lock().unwrap().is_empty(), "{requests:?}");
}

#[test]
fn loopback_calls_go_through_no_proxy() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let s = common::Scratch::new("rsdk-proxy");
    inputs(s.path(), "    - name: imageTag\n      value: v7\n", 1);
    let (proxy, proxied) = stub(response(502, "", b"proxy"));
    let (url, state) = serve(Behaviour::default());
    let o = common::run(
        common::bin()
            .args(["render", "--stdout", "-q", "--clusters", "desired", "-f"])
            .arg(s.path())
            .arg("--runtime-extension")
            .arg(format!("{EXT}={url}"))
            .env("HTTP_PROXY", &proxy)
            .env("http_proxy", &proxy)
            .env("HTTPS_PROXY", &proxy)
            .env_remove("NO_PROXY")
            .env_remove("no_proxy"),
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(proxied.lock().unwrap().is_empty(), "{:?}", proxied.lock());
    let requests = state.lock().unwrap().requests.clone();
    assert!(!requests.lock().unwrap().is_empty());
}

#[test]
fn an_answer_is_quoted_in_4_kib_with_its_control_characters_escaped() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let s = common::Scratch::new("rsdk-quoted");
    inputs(s.path(), "    - name: imageTag\n      value: v7\n", 1);
    let bad_names: Vec<_> = (0..150_000)
        .map(|i| json!({"name": format!("B_{i}")}))
        .collect();
    let discovery = json!({"status": "Success", "handlers": bad_names}).to_string();
    let mut faults = Vec::new();
    for (what, answer, expect) in [
        (
            "a 403 with 1 MiB",
            response(403, "", &vec![b'A'; 1 << 20]),
            "status code 403",
        ),
        (
            "8 MiB of \\x01",
            response(500, "", &vec![1; 8 << 20]),
            r"\x01\x01",
        ),
        (
            "150,000 invalid handler names",
            response(
                200,
                "Content-Type: application/json\r\n",
                discovery.as_bytes(),
            ),
            "handler name B_0 is not valid",
        ),
    ] {
        let (url, _) = stub(answer);
        let o = render(s.path(), &url, &[]);
        let e = stderr(&o);
        let head: String = e.chars().take(2000).collect();
        if o.status.code() != Some(1) || !e.contains(expect) {
            faults.push(format!("{what}: exit {:?}, {head}", o.status.code()));
        }
        if o.stderr.len() >= 8 << 10 {
            faults.push(format!("{what}: {} bytes on stderr", o.stderr.len()));
        }
        if o.stderr.contains(&1) {
            faults.push(format!("{what}: a raw control character on stderr"));
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
}

/// An extension's GeneratePatches answer of an `add` and 24 `copy`s of a value into
/// itself (16 GiB if built; the process aborted, issue 55) stops at `--max-patch-bytes`.
#[test]
fn an_answer_that_doubles_a_value_stops_at_the_patch_byte_limit() {
    let Some(_) = common::corpus_path(E2E) else {
        return;
    };
    let s = common::Scratch::new("rsdk-doubling");
    inputs(s.path(), "    - name: imageTag\n      value: v7\n", 1);
    let (url, _) = serve(Behaviour {
        doubling: 24,
        ..Behaviour::default()
    });
    let o = render(s.path(), &url, &[]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains(
            "over the JSON patch value limit of 16777216 bytes (raise it with --max-patch-bytes)"
        ),
        "{e}"
    );
}
