//! The bundle verifier's readers: `SHA256SUMS` lines and operator ConfigMaps (gzip
//! `binaryData` included), on arbitrary text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        let _ = capi_render::operator::configmap::gunzip(data);
        return;
    };
    if let Ok(sums) = capi_render::bundle::sums::parse_sums(text) {
        for p in sums.keys() {
            assert!(capi_render::paths::is_safe_relative(p), "unsafe bundle path accepted: {p:?}");
        }
    }
    if let Ok(v) = capi_render::yaml::parse_value(text) {
        let _ = capi_render::operator::configmap::read_configmap(&v);
    }
});
