//! `capi-render.lock` reader: whatever the lock says, every path it returns is a safe
//! relative path inside OUT, each with a sha256, and every unit record names a
//! Cluster's directory inside OUT with a sha256 fingerprint. A lock the dedicated line
//! reader accepts reads the same through the YAML reader. A recorded `command:` reads
//! back with at least one input file, or is an error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(lock) = capi_render::gitops::lock::read_lock(text, "OUT/capi-render.lock") {
        for o in &lock.outputs {
            let p = &o.path;
            assert!(capi_render::paths::is_safe_relative(p), "unsafe path accepted: {p:?}");
            assert!(!p.starts_with(".capi-render.staging"), "staging path accepted: {p:?}");
            assert_eq!(o.sha256.len(), 64, "not a sha256: {:?}", o.sha256);
        }
        for u in &lock.units {
            let d = &u.dir;
            assert!(capi_render::paths::is_safe_relative(d), "unsafe unit dir: {d:?}");
            assert!(d.starts_with("clusters/") && d.split('/').count() == 3, "{d:?}");
            assert_eq!(u.inputs.len(), 64, "not a sha256: {:?}", u.inputs);
        }
    }
    if let Ok(Some(c)) = capi_render::gitops::lock::read_command(text, "OUT/capi-render.lock") {
        assert!(!c.files.is_empty(), "a command without input files: {c:?}");
    }
});
