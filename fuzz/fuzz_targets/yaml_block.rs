//! The block-subset YAML reader against serde-saphyr on arbitrary text: wherever it
//! reads a document, serde-saphyr reads the same value with the same counts
//! (`block_reader_agrees`); a difference is a crash.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = capi_render::yaml::read::block_reader_agrees(text) {
            panic!("{e}\n{text:?}");
        }
    }
});
