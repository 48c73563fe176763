//! RFC 6902 with evanphx's rules (operator patches and ClusterClass patches): a JSON
//! document, a NUL byte, a JSON patch.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some((doc, patch)) = text.split_once('\0') else {
        return;
    };
    let (Ok(doc), Ok(patch)) = (
        serde_json::from_str::<serde_json::Value>(doc),
        serde_json::from_str::<serde_json::Value>(patch),
    ) else {
        return;
    };
    if let Some(ops) = capi_render::operator::customize::json6902::decode(&patch) {
        let _ = capi_render::operator::customize::json6902::apply(&doc, &ops);
    }
    if let Some(ops) = patch.as_array() {
        let mut d = doc.clone();
        let _ = capi_render::topology::patches::rfc6902::apply(&mut d, ops);
    }
});
