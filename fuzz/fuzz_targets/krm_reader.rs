//! The KRM function's ResourceList reader on arbitrary text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(req) = capi_render::krm::parse_resource_list(text) {
        let _ = capi_render::krm::item_objects(&req.items);
    }
});
