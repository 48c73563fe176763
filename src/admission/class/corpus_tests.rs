//! Every v1beta2 ClusterClass of the corpus's Docker provider releases (v1.11–v1.14 and
//! the e2e repository) is admitted (with the RuntimeSDK gate when it has external
//! patches). Skipped with a note when the corpus is absent.

use std::path::{Path, PathBuf};

/// `$CAPI_CORPUS`, else `../shared/corpus` beside the crate.
fn corpus() -> PathBuf {
    std::env::var_os("CAPI_CORPUS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
}

/// `${VAR:-default}` replaced by its default (`${VAR}` by "").
fn substitute_defaults(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let body = &rest[start + 2..start + end];
        out.push_str(body.split_once(":-").map_or("", |(_, d)| d));
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    out
}

fn class_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let dirs = [
        ("repository/infrastructure-docker", true),
        ("e2e-repository/infrastructure-docker", false),
    ];
    for (dir, only_recent) in dirs {
        let Ok(versions) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for v in versions.flatten() {
            let name = v.file_name().to_string_lossy().to_string();
            if only_recent
                && !["v1.11", "v1.12", "v1.13", "v1.14"]
                    .iter()
                    .any(|p| name.starts_with(p))
            {
                continue;
            }
            for f in std::fs::read_dir(v.path()).into_iter().flatten().flatten() {
                let n = f.file_name().to_string_lossy().to_string();
                if n.starts_with("clusterclass-") && n.ends_with(".yaml") {
                    files.push(f.path());
                }
            }
        }
    }
    files.sort();
    files
}

#[test]
fn corpus_v1beta2_classes_are_admitted() {
    let root = corpus();
    if !root.join("repository").is_dir() {
        eprintln!(
            "SKIPPED (corpus): no {} (set CAPI_CORPUS to the release corpus)",
            root.display()
        );
        return;
    }
    let mut checked = 0;
    let mut failures = Vec::new();
    for f in class_files(&root) {
        let text = substitute_defaults(&std::fs::read_to_string(&f).expect("readable"));
        for doc in crate::yaml::read::parse_documents(&text).expect("YAML") {
            if doc["kind"] != "ClusterClass" || doc["apiVersion"] != "cluster.x-k8s.io/v1beta2" {
                continue;
            }
            checked += 1;
            // A class with external patches needs the RuntimeSDK gate, as Cluster API's
            // e2e tests run it.
            let external = doc["spec"]["patches"]
                .as_array()
                .is_some_and(|ps| ps.iter().any(|p| p.get("external").is_some()));
            let gates = super::Gates {
                runtime_sdk: external,
                ..super::Gates::default()
            };
            let (errs, _) = super::validate_create_with(&doc, &gates);
            if !errs.is_empty() {
                failures.push(format!("{}: {}", f.display(), super::refusal(&doc, &errs)));
            }
            assert!(super::status_variables(&doc).is_array());
        }
    }
    assert!(
        checked >= 8,
        "only {checked} v1beta2 classes found under {}",
        root.display()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn defaults_are_substituted() {
    assert_eq!(substitute_defaults("a ${X:-b} ${Y} c${Z:-}"), "a b  c");
    assert_eq!(substitute_defaults("${open"), "${open");
}
