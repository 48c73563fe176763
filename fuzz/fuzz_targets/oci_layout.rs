//! The OCI layout reader of `render --oci-layout` (`operator::oci::read_artifact`) on a
//! layout it must not trust. The input is a list of files, each `path` NUL `content`
//! NUL, written into a fresh layout directory (paths with `..` or a leading `/` are
//! skipped by the harness), beside a marker file outside the layout. Whatever the
//! index and manifests say (digests of `../`, absolute or unknown algorithms, sizes),
//! the read fails cleanly or returns files of the layout: never the marker's bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::atomic::{AtomicUsize, Ordering};

static RUN: AtomicUsize = AtomicUsize::new(0);
const MARKER: &str = "MARKER-outside-the-layout-7f3a";

fuzz_target!(|data: &[u8]| {
    let root = std::env::temp_dir().join(format!(
        "capi-render-fuzz-oci-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    let layout = root.join("layout");
    std::fs::create_dir_all(&layout).unwrap();
    std::fs::write(root.join("outside.yaml"), MARKER).unwrap();
    std::fs::create_dir_all(root.join("blobs/sha256")).unwrap();
    std::fs::write(root.join("blobs/sha256/outside"), MARKER).unwrap();
    let mut it = data.split(|b| *b == 0);
    while let (Some(path), Some(content)) = (it.next(), it.next()) {
        let Ok(path) = std::str::from_utf8(path) else { continue };
        if path.is_empty()
            || path.starts_with('/')
            || path.split('/').any(|c| c == ".." || c == "." || c.is_empty())
            || path.len() > 200
        {
            continue;
        }
        let p = layout.join(path);
        if let Some(d) = p.parent() {
            if std::fs::create_dir_all(d).is_err() {
                continue;
            }
        }
        let _ = std::fs::write(&p, content);
    }
    if let Ok(files) = capi_render::operator::oci::read_artifact(&layout, "example.com/capi", "v1.0.0") {
        for bytes in files.values() {
            assert!(
                !bytes.windows(MARKER.len()).any(|w| w == MARKER.as_bytes()),
                "a file outside the layout was read"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&root);
});
