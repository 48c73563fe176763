//! The YAML writer: any object the reader accepts is written and read back unchanged.
//!
//! One exception is Go's own: `sigs.k8s.io/yaml.Marshal` passes strings through JSON
//! text, and go-yaml reads a raw NEL (U+0085) there as a line break and folds it, so a
//! string holding NEL does not survive (clusterctl prints the folded text too). For
//! such objects the property is that writing is a fixed point after one round.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn has_nel(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains('\u{85}'),
        Value::Array(a) => a.iter().any(has_nel),
        Value::Object(m) => m.iter().any(|(k, x)| k.contains('\u{85}') || has_nel(x)),
        _ => false,
    }
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
