//! drone/envsubst: parse and execute arbitrary templates with a fixed lookup.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(t) = capi_render::envsubst::parse::parse(text) {
        let lookup = |k: &str| (k.len() % 2 == 0).then(|| format!("v-{k}"));
        let _ = t.execute_bytes(&lookup);
    }
});
