//! RFC 6902 and RFC 7386 with evanphx's rules (`go::jsonpatch`, `go::mergepatch`: operator
//! patches and ClusterClass patches): a JSON document, a NUL byte, a JSON patch.
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
    // The one implementation both the operator's and the ClusterClass patches use.
    if let Some(ops) = capi_render::go::jsonpatch::decode(&patch) {
        let mut d = doc.clone();
        let _ = capi_render::go::jsonpatch::apply(&mut d, &ops);
    }
    let _ = capi_render::go::mergepatch::merge_patch(&doc, &patch);
    let _ = capi_render::go::mergepatch::create(&doc, &patch);
});
