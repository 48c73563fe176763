//! `merge-locks` on shard sidecars it must not trust: the input is the `shard.json` of
//! shard 1 of 2, a NUL, then shard 2's. Each run builds OUT in a fresh scratch
//! directory (the two sidecars only, beside a file outside OUT), merges, and checks
//! that nothing was written, moved or deleted outside OUT: whatever the sidecars say
//! (counts, `../` names, huge numbers), the merge fails cleanly or stays inside.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::atomic::{AtomicUsize, Ordering};

static RUN: AtomicUsize = AtomicUsize::new(0);

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(2, |b| *b == 0);
    let one = parts.next().unwrap_or_default();
    let two = parts.next().unwrap_or_default();
    let root = std::env::temp_dir().join(format!(
        "capi-render-fuzz-merge-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    let out = root.join("out");
    let shards = out.join(".capi-render.shards");
    for (k, text) in [("1-of-2", one), ("2-of-2", two)] {
        std::fs::create_dir_all(shards.join(k)).unwrap();
        std::fs::write(shards.join(k).join("shard.json"), text).unwrap();
    }
    std::fs::create_dir_all(root.join("outside")).unwrap();
    std::fs::write(root.join("outside/victim.yaml"), "victim: untouched\n").unwrap();
    let mut hook = |_: &capi_render::gitops::writer::Step| Ok(());
    let _ = capi_render::gitops::shard::merge(&out, &mut hook);
    // Outside OUT: exactly what was there.
    let mut names: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["out", "outside"], "something was written beside OUT");
    assert_eq!(
        std::fs::read_to_string(root.join("outside/victim.yaml")).unwrap(),
        "victim: untouched\n"
    );
    assert_eq!(std::fs::read_dir(root.join("outside")).unwrap().count(), 1);
    let _ = std::fs::remove_dir_all(&root);
});
