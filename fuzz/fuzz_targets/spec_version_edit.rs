//! `upgrade apply`'s locator on arbitrary text: every document span and every byte range
//! it reports lies inside the text on character boundaries, and splicing a version in
//! never panics.
#![no_main]
use capi_render::yaml::locate::{locate, write_scalar, Locate};
use capi_render::yaml::split::document_spans;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(spans) = document_spans(text) else { return };
    for span in spans {
        assert!(span.start <= span.end && span.end <= text.len());
        let doc = &text[span];
        let mut out = doc.to_string();
        match locate(doc, "spec", "version", "v1.2.3") {
            Locate::Found { span, style } => {
                assert!(span.end <= doc.len());
                out.replace_range(span, &write_scalar("v1.2.3", style));
            }
            Locate::Insert { at, text } => {
                assert!(at <= doc.len());
                out.insert_str(at, &text);
            }
            Locate::Unsupported(_) => {}
        }
    }
});
