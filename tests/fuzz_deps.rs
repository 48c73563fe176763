//! The fuzz targets (`fuzz/`, their own Cargo.lock) must test the dependency versions
//! the binary ships with: every package both lock files hold has one version. A drift
//! once had the fuzzers run granit-parser 2.2.0 (serde-saphyr's YAML parser) while
//! capi-render was built with 2.1.0, and they parse some inputs differently.

use std::collections::BTreeMap;

mod common;

fn versions(path: &str) -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(common::root().join(path)).unwrap();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut name = None;
    for l in text.lines() {
        if let Some(n) = l.strip_prefix("name = ") {
            name = Some(n.trim_matches('"').to_string());
        } else if let (Some(v), Some(n)) = (l.strip_prefix("version = "), name.take()) {
            out.entry(n)
                .or_default()
                .push(v.trim_matches('"').to_string());
        }
    }
    out
}

#[test]
fn fuzz_lock_matches_the_binary_lock() {
    let main = versions("Cargo.lock");
    let fuzz = versions("fuzz/Cargo.lock");
    assert!(main.contains_key("serde-saphyr") && fuzz.contains_key("serde-saphyr"));
    let drift: Vec<String> = main
        .iter()
        .filter_map(|(k, v)| {
            let f = fuzz.get(k)?;
            // Every version the fuzzers build is one the binary's lock holds. The binary's
            // lock may hold more: a second major version of a package that only a
            // dev-dependency pulls in (rand 0.10 through proptest beside age's rand 0.8).
            let single = v.len() == 1 && f != v;
            (single || f.iter().any(|x| !v.contains(x)))
                .then(|| format!("{k}: {v:?} in Cargo.lock, {f:?} in fuzz/Cargo.lock"))
        })
        .collect();
    assert!(
        drift.is_empty(),
        "align fuzz/Cargo.lock (cargo update -p NAME --precise VERSION in fuzz/):\n{}",
        drift.join("\n")
    );
}
