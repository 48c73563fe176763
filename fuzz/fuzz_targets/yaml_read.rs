//! The YAML reader on arbitrary text: clean errors, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = capi_render::yaml::parse_documents(text);
        let _ = capi_render::load::parse_file("fuzz.yaml", text);
    }
});
