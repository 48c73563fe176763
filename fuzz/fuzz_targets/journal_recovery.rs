//! Recovery of an interrupted run from a crafted staging area: a real staging
//! directory (valid owner file), an arbitrary journal, a file in `old/` and one in
//! `new/`. Recovery may fail, but must never touch anything outside OUT.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    if let Ok(rd) = std::fs::read_dir(root) {
        for e in rd.flatten() {
            v.push((
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap_or_default(),
            ));
        }
    }
    v.sort();
    v
}

fuzz_target!(|data: &[u8]| {
    let Ok(journal) = std::str::from_utf8(data) else {
        return;
    };
    let base = std::env::temp_dir().join(format!("capi-render-fuzz-journal-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let (out, outside) = (base.join("out"), base.join("outside"));
    let staging = out.join(".capi-render.staging");
    std::fs::create_dir_all(staging.join("old")).unwrap();
    std::fs::create_dir_all(staging.join("new")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("victim.yaml"), "victim\n").unwrap();
    std::fs::write(out.join("README.md"), "mine\n").unwrap();
    std::fs::write(staging.join("old/a.yaml"), "old\n").unwrap();
    std::fs::write(staging.join("new/b.yaml"), "new\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(&staging).unwrap();
        std::fs::write(
            staging.join("owner"),
            format!("capi-render staging {} {}\n", m.dev(), m.ino()),
        )
        .unwrap();
    }
    std::fs::write(staging.join("journal"), journal).unwrap();
    let before = files(&outside);
    let _ = capi_render::gitops::writer::recover(&out);
    assert_eq!(files(&outside), before, "recovery changed a file outside OUT");
    assert!(base.join("outside").is_dir());
    let _ = std::fs::remove_dir_all(&base);
});
