use super::*;
use serde_json::json;

/// With the operator's error prefixes.
fn run(mut doc: Value, patch: Value) -> Result<Value, String> {
    let ops = decode(&patch).expect("decodes as RFC 6902");
    match apply(&mut doc, &ops) {
        Ok(()) => Ok(doc),
        Err(Failure::Decode(e)) => Err(format!("failed to decode RFC6902 patch: {e}")),
        Err(Failure::Apply(e)) => Err(format!("failed to apply RFC6902 patch: {e}")),
    }
}

fn doc() -> Value {
    json!({"kind": "Deployment", "spec": {"replicas": 1, "template": {"spec": {"containers": [
        {"name": "manager", "args": ["--a=1", "--b=2"]}, {"name": "proxy"}]}}}})
}

#[test]
fn add_replace_remove() {
    let got = run(
        doc(),
        json!([
            {"op": "add", "path": "/spec/template/spec/containers/0/args/-", "value": "--c=3"},
            {"op": "replace", "path": "/spec/replicas", "value": 2},
            {"op": "remove", "path": "/spec/template/spec/containers/1"},
            {"op": "add", "path": "/metadata", "value": {"labels": {"a": "b"}}},
        ]),
    )
    .unwrap();
    assert_eq!(got["spec"]["replicas"], json!(2));
    assert_eq!(
        got["spec"]["template"]["spec"]["containers"],
        json!([{"name": "manager", "args": ["--a=1", "--b=2", "--c=3"]}])
    );
    assert_eq!(got["metadata"], json!({"labels": {"a": "b"}}));
}

#[test]
fn negative_and_atoi_indices() {
    let got = run(doc(), json!([
        {"op": "replace", "path": "/spec/template/spec/containers/-2/args/-1", "value": "--b=9"},
        {"op": "add", "path": "/spec/template/spec/containers/+0/args/00", "value": "--first"},
    ]))
    .unwrap();
    assert_eq!(
        got["spec"]["template"]["spec"]["containers"][0]["args"],
        json!(["--first", "--a=1", "--b=9"])
    );
}

#[test]
fn move_copy_test() {
    let got = run(
        doc(),
        json!([
            {"op": "test", "path": "/spec/replicas", "value": 1.0},
            {"op": "test", "path": "/spec/missing"},
            {"op": "copy", "from": "/spec/replicas", "path": "/spec/copy"},
            {"op": "move", "from": "/spec/copy", "path": "/spec/moved"},
        ]),
    )
    .unwrap();
    assert_eq!(got["spec"]["moved"], json!(1));
    assert!(got["spec"].get("copy").is_none());
}

#[test]
fn missing_value_is_null() {
    let got = run(doc(), json!([{"op": "add", "path": "/spec/x"}])).unwrap();
    assert_eq!(got["spec"]["x"], Value::Null);
}

#[test]
fn path_without_leading_slash_addresses_the_root() {
    let got = run(doc(), json!([{"op": "add", "path": "spec/x", "value": 1}])).unwrap();
    assert_eq!(got["x"], json!(1));
}

#[test]
fn evanphx_error_texts() {
    let e = |p: Value| run(doc(), p).unwrap_err();
    assert_eq!(e(json!([{"op": "replace", "path": "/spec/nope", "value": 1}])),
        "failed to apply RFC6902 patch: replace operation does not apply: doc is missing key: /spec/nope: missing value");
    assert_eq!(e(json!([{"op": "add", "path": "/nope/x", "value": 1}])),
        "failed to apply RFC6902 patch: add operation does not apply: doc is missing path: \"/nope/x\": missing value");
    assert_eq!(e(json!([{"op": "remove", "path": "/spec/nope"}])),
        "failed to apply RFC6902 patch: error in remove for path: '/spec/nope': unable to remove nonexistent key: nope: missing value");
    assert_eq!(
        e(json!([{"op": "test", "path": "/spec/replicas", "value": 2}])),
        "failed to apply RFC6902 patch: testing value /spec/replicas failed: test failed"
    );
    assert_eq!(e(json!([{"op": "add", "path": "/spec/template/spec/containers/5", "value": {}}])),
        "failed to apply RFC6902 patch: error in add for path: '/spec/template/spec/containers/5': Unable to access invalid index: 5: invalid index referenced");
    assert_eq!(e(json!([{"op": "add", "path": "/spec/template/spec/containers/x", "value": {}}])),
        "failed to apply RFC6902 patch: error in add for path: '/spec/template/spec/containers/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax");
    assert_eq!(e(json!([{"op": "move", "path": "/a"}])),
        "failed to decode RFC6902 patch: invalid operation {\"op\":\"move\",\"path\":\"/a\",\"value\":null}: failed to decode 'from': operation, missing from field: missing value");
    assert_eq!(e(json!([{"op": "frob", "path": "/a", "value": "<x>"}])),
        "failed to decode RFC6902 patch: invalid operation {\"op\":\"frob\",\"path\":\"/a\",\"value\":\"\\u003cx\\u003e\"}: unsupported operation");
    assert_eq!(
        e(json!([null])),
        "failed to decode RFC6902 patch: invalid operation null: unsupported operation"
    );
}

#[test]
fn decode_falls_back_for_non_rfc6902_shapes() {
    assert!(decode(&json!({"spec": {}})).is_none());
    assert!(decode(&json!([1])).is_none());
    assert!(decode(&json!([{"op": 1}])).is_none());
    assert_eq!(decode(&json!(null)), Some(vec![]));
    assert_eq!(
        decode(&json!([{"OP": "add", "Path": "/a", "extra": 1}])).unwrap()[0]
            .as_ref()
            .unwrap()
            .op,
        "add"
    );
}

// The error texts a ClusterClass patch reports (without the operator prefixes).
#[test]
fn patch_size_and_path_depth_are_limited() {
    let ops: Vec<Value> = (0..10_001)
        .map(|_| json!({"op": "add", "path": "/a", "value": 1}))
        .collect();
    let e = bare(json!({}), Value::Array(ops)).unwrap_err();
    assert!(e.contains("--max-patch-ops"), "{e}");
    let deep = "/a".repeat(200);
    let e = bare(json!({}), json!([{"op": "add", "path": deep, "value": 1}])).unwrap_err();
    assert!(e.contains("--max-patch-depth"), "{e:.300}");
}

#[test]
fn add_prepend_append_and_replace() {
    let d = bare(
        json!({"a": [1, 2], "m": {"k": 1}}),
        json!([{"op": "add", "path": "/a/0", "value": 0}, {"op": "add", "path": "/a/-", "value": 3},
               {"op": "replace", "path": "/m/k", "value": 2}, {"op": "add", "path": "/m/a~1b", "value": 1}]),
    )
    .unwrap();
    assert_eq!(d, json!({"a": [0, 1, 2, 3], "m": {"k": 2, "a/b": 1}}));
}

#[test]
fn evanphx_error_texts_of_class_patches() {
    let e = bare(
        json!({"spec": {}}),
        json!([{"op": "add", "path": "/spec/x/y", "value": 1}]),
    )
    .unwrap_err();
    assert_eq!(
        e,
        "add operation does not apply: doc is missing path: \"/spec/x/y\": missing value"
    );
    let e = bare(
        json!({"spec": {}}),
        json!([{"op": "remove", "path": "/spec/x"}]),
    )
    .unwrap_err();
    assert_eq!(
        e,
        "error in remove for path: '/spec/x': unable to remove nonexistent key: x: missing value"
    );
    let e = bare(
        json!({"spec": {}}),
        json!([{"op": "replace", "path": "/spec/x", "value": 1}]),
    )
    .unwrap_err();
    assert_eq!(
        e,
        "replace operation does not apply: doc is missing key: /spec/x: missing value"
    );
    let e = bare(
        json!({"a": []}),
        json!([{"op": "add", "path": "/a/3", "value": 1}]),
    )
    .unwrap_err();
    assert_eq!(e, "error in add for path: '/a/3': Unable to access invalid index: 3: invalid index referenced");
}

#[test]
fn null_parents_are_missing() {
    let e = bare(
        json!({"spec": {"x": null}}),
        json!([{"op": "add", "path": "/spec/x/y", "value": 1}]),
    );
    assert!(e.unwrap_err().contains("doc is missing path"));
}

fn bare(mut doc: Value, patch: Value) -> Result<Value, String> {
    match apply(&mut doc, &decode(&patch).expect("decodes")) {
        Ok(()) => Ok(doc),
        Err(Failure::Decode(e) | Failure::Apply(e)) => Err(e),
    }
}

#[test]
fn equality_compares_number_text() {
    assert!(equal(&json!({"a": 1}), &json!({"a": 1.0})));
    assert!(!equal(&json!({"a": 1}), &json!({"a": "1"})));
    assert!(!equal(&json!([1, 2]), &json!([1])));
}

/// A 1 KB annotation and 40 copies of its parent into itself: 2⁴⁰ KB if built. The
/// budget stops it at `--max-patch-bytes` (16 MiB) in about 14 doublings, having
/// built no more than the limit; issue 55's finding (the process aborted).
#[test]
fn copies_that_double_a_value_stop_at_the_byte_limit() {
    let mut ops =
        vec![json!({"op": "add", "path": "/metadata/annotations/a", "value": "x".repeat(1024)})];
    for i in 0..40 {
        ops.push(json!({"op": "copy", "from": "/metadata/annotations", "path": format!("/metadata/annotations/c{i}")}));
    }
    let doc = json!({"kind": "Deployment", "metadata": {"name": "m", "annotations": {}}});
    let e = run(doc.clone(), Value::Array(ops.clone())).unwrap_err();
    assert!(
        e.starts_with("failed to apply RFC6902 patch: error in copy for from: '/metadata/annotations': the values this patch builds: more than 16777216 bytes is over the JSON patch value limit of 16777216 bytes (raise it with --max-patch-bytes)"),
        "{e}"
    );
    // Ten doublings fit: 1 KB × 2¹⁰.
    let got = run(doc, Value::Array(ops[..11].to_vec())).unwrap();
    let text = serde_json::to_string(&got).unwrap();
    assert!(
        text.len() > 1 << 20 && text.len() < 2 << 20,
        "{}",
        text.len()
    );
}

/// `move` adds depth without bytes: a value moved ever deeper stops at 256 levels.
#[test]
fn moves_into_ever_deeper_paths_stop_at_the_depth_limit() {
    let chain = |root: &str, n: usize| -> Vec<Value> {
        (1..=n)
            .map(|i| json!({"op": "add", "path": format!("{root}{}", "/x".repeat(i)), "value": {}}))
            .collect()
    };
    let mut ops = chain("/c", 127);
    ops.extend(chain("/d", 127));
    ops.push(json!({"op": "add", "path": "/e", "value": {"z": {}}}));
    // /c's 128 levels moved to level 128: 255 deep, within the limit.
    ops.push(json!({"op": "move", "from": "/c", "path": format!("/d{}/y", "/x".repeat(126))}));
    let doc = json!({"c": {}, "d": {}});
    let ok = bare(doc.clone(), Value::Array(ops.clone())).unwrap();
    assert!(ok.get("c").is_none() && ok.get("e").is_some());
    // /d's 255 levels moved to level 3: 257.
    ops.push(json!({"op": "move", "from": "/d", "path": "/e/z/w"}));
    let e = bare(doc, Value::Array(ops)).unwrap_err();
    assert_eq!(
        e,
        "error in move for path: 'd': the value would end more than 256 levels deep (a patched object may nest at most 256 levels)"
    );
}
