//! The YAML writer: any object the reader accepts is written and read back unchanged.
#![no_main]
use libfuzzer_sys::fuzz_target;

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
    let out = capi_render::yaml::from_objects(std::slice::from_ref(&v));
    let back = capi_render::yaml::parse_value(&out)
        .unwrap_or_else(|e| panic!("written YAML does not read back: {e}\n{out}"));
    assert_eq!(back, v, "round trip changed the object:\n{out}");
});
