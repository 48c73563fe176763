//! The bundle verifier's readers: `SHA256SUMS` lines, operator ConfigMaps (gzip
//! `binaryData` included), `render-inputs/`, the re-derivation of `rendered/` from
//! `configmaps/`, and the bounded description of a difference, on arbitrary text.
#![no_main]
use libfuzzer_sys::fuzz_target;

use capi_render::bundle::{difference, inputs, rederive, stage::Tree};

fuzz_target!(|data: &[u8]| {
    // Two sides of a difference: split at the first NUL byte, else in the middle.
    let cut = data
        .iter()
        .position(|b| *b == 0)
        .unwrap_or(data.len() / 2);
    for lines in [false, true] {
        let d = difference::describe(&data[..cut], &data[cut..], lines);
        assert!(d.len() <= difference::MAX_DETAIL + 3, "unbounded description");
    }
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
    for path in [inputs::OBJECTS, inputs::CONFIG, "configmaps/x/x.yaml"] {
        let mut tree = Tree::new();
        tree.insert(path.to_string(), data.to_vec());
        let _ = rederive::expected(&tree);
    }
});
