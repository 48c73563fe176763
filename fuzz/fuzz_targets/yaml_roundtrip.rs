//! The YAML writer: any object the reader accepts is written and read back unchanged.
//!
//! One exception is Go's own: `sigs.k8s.io/yaml.Marshal` passes strings through JSON
//! text, and go-yaml reads a raw NEL (U+0085) there as a line break and folds it, so a
//! string holding NEL does not survive (clusterctl prints the folded text too). For
//! such objects the property is that writing is a fixed point after one round.
//!
//! U+2028/U+2029 are line breaks to go-yaml (YAML 1.1) but not to our YAML 1.2 reader
//! (README, "Known reader difference"): the writer breaks a quoted scalar after one and
//! indents the next line, and starts a literal block's line with one unindented, as
//! go-yaml does (golden/yaml/cases.json, `ls-ps-line-start-*`); our reader keeps the
//! indentation in the first case and ends the block in the second. For such objects the
//! property is only that writing and reading the output back do not panic.
//!
//! A key `<<` read as a string (quoted, or with a tag such as `!<x>`) is written plain,
//! as go-yaml v2 writes it (its writer resolves `<<` as a string), and then reads back
//! as a merge key, in go-yaml too, which fails when its value is not a mapping. For
//! such objects the property is only that writing them does not panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn any_str(v: &Value, f: &dyn Fn(&str) -> bool) -> bool {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().any(|x| any_str(x, f)),
        Value::Object(m) => m.iter().any(|(k, x)| f(k) || any_str(x, f)),
        _ => false,
    }
}

fn has_nel(v: &Value) -> bool {
    any_str(v, &|s| s.contains('\u{85}'))
}

fn has_merge_key_string(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.iter().any(has_merge_key_string),
        Value::Object(m) => m.iter().any(|(k, x)| k == "<<" || has_merge_key_string(x)),
        _ => false,
    }
}

fn has_ls_ps(v: &Value) -> bool {
    any_str(v, &|s| s.contains(['\u{2028}', '\u{2029}']))
}

/// One object as `sigs.k8s.io/yaml.Marshal` writes it. (Not `from_objects`: like
/// clusterctl's `JoinYaml` it drops the output's last newline, which a keep-chomped
/// block scalar at the very end does not survive, in clusterctl too.)
fn write_and_read(v: &Value) -> (String, Value) {
    let out = capi_render::yaml::to_yaml(v);
    let back = capi_render::yaml::parse_value(&out)
        .unwrap_or_else(|e| panic!("written YAML does not read back: {e}\n{out}"));
    (out, back)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(v) = capi_render::yaml::parse_value(text) else {
        return;
    };
    if !v.is_object() {
        return;
    }
    if has_merge_key_string(&v) {
        let _ = capi_render::yaml::to_yaml(&v);
        return;
    }
    if has_ls_ps(&v) {
        let _ = capi_render::yaml::parse_value(&capi_render::yaml::to_yaml(&v));
        return;
    }
    let (out, back) = write_and_read(&v);
    if !has_nel(&v) {
        assert_eq!(back, v, "round trip changed the object:\n{out}");
        return;
    }
    if !back.is_object() {
        return;
    }
    let (again, back2) = write_and_read(&back);
    assert_eq!(back2, back, "second round trip changed the object:\n{again}");
});
