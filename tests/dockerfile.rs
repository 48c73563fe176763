//! The Dockerfile cannot be built on the test machine (no container registry to pull
//! the base images from), so these checks keep it consistent with the crate: the
//! toolchain it builds with is the crate's minimum, everything it copies is in the build
//! context `.dockerignore` leaves, and the binary it ships is the one it builds.

mod common;
use common::root;

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap()
}

/// The Dockerfile's instructions (comments and continuations resolved), as (KEYWORD, rest).
fn instructions() -> Vec<(String, String)> {
    let text = read("Dockerfile").replace("\\\n", " ");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            (k.to_uppercase(), rest.trim().to_string())
        })
        .collect()
}

#[test]
fn builds_with_the_crates_minimum_rust() {
    let cargo = read("Cargo.toml");
    let msrv = cargo
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .unwrap()
        .trim_matches('"');
    let ins = instructions();
    assert!(
        ins.iter()
            .any(|(k, r)| k == "ARG" && r == &format!("RUST_VERSION={msrv}")),
        "Dockerfile: ARG RUST_VERSION={msrv} (Cargo.toml's rust-version) expected"
    );
}

#[test]
fn copies_only_what_the_context_holds_and_ships_the_built_binary() {
    // .dockerignore: ignore everything, then re-include a list.
    let ignore = read(".dockerignore");
    let rules: Vec<&str> = ignore
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert_eq!(rules.first(), Some(&"*"), ".dockerignore starts with *");
    let allowed: Vec<&str> = rules[1..]
        .iter()
        .map(|r| r.strip_prefix('!').expect("only re-includes after *"))
        .collect();
    let ins = instructions();
    let mut built_bin = None;
    let mut shipped = None;
    let mut copied: Vec<String> = Vec::new();
    for (k, r) in &ins {
        if k == "COPY" && !r.starts_with("--from") {
            let parts: Vec<&str> = r.split_whitespace().collect();
            for src in &parts[..parts.len() - 1] {
                let src = src.trim_end_matches('/');
                assert!(
                    allowed.contains(&src),
                    "COPY {src}: not in the build context"
                );
                assert!(root().join(src).exists(), "COPY {src}: no such file");
                copied.push(src.to_string());
            }
        }
        if k == "RUN" && r.contains("cargo build") {
            assert!(r.contains("--locked"), "{r}");
            built_bin = r
                .split("--bin ")
                .nth(1)
                .and_then(|s| s.split_whitespace().next())
                .map(str::to_string);
        }
        if k == "COPY" && r.starts_with("--from=build") {
            let parts: Vec<&str> = r.split_whitespace().collect();
            assert_eq!(parts[1], "/src/target/release/capi-render");
            shipped = Some(parts[2].to_string());
        }
    }
    assert_eq!(built_bin.as_deref(), Some("capi-render"));
    let shipped = shipped.expect("the runtime stage copies the binary");
    let entry = ins
        .iter()
        .rev()
        .find(|(k, _)| k == "ENTRYPOINT")
        .map(|(_, r)| r.clone())
        .unwrap();
    assert_eq!(entry, format!("[\"{shipped}\"]"));
    // The build needs the manifest, the lock, the sources and the build script (which
    // reads only src/typed/model.json); nothing is include_str!'d from outside src/
    // except in tests.
    for needed in ["Cargo.toml", "Cargo.lock", "src", "build.rs"] {
        assert!(
            copied.iter().any(|c| c == needed),
            "the build stage does not COPY {needed}"
        );
    }
}
