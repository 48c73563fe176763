//! `capi-render.lock` reader: whatever the lock says, every path it returns is a safe
//! relative path inside OUT, each with a sha256.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(owned) = capi_render::gitops::lock::read_outputs(text, "OUT/capi-render.lock") {
        for o in owned {
            let p = &o.path;
            assert!(capi_render::paths::is_safe_relative(p), "unsafe path accepted: {p:?}");
            assert!(!p.starts_with(".capi-render.staging"), "staging path accepted: {p:?}");
            assert_eq!(o.sha256.len(), 64, "not a sha256: {:?}", o.sha256);
        }
    }
});
