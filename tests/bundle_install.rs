//! A bundle installs as the README says: `kubectl apply --server-side -R -f
//! BUNDLE/configmaps/` meets every namespace before the objects in it (the walk order is
//! kubectl's), a mirror Secret in another namespace included.
//!
//! Corpus-based: skipped with a note when `$CAPI_CORPUS` is absent.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use capi_render::bundle::{self, BundleOptions};
use serde_json::Value;

mod common;
use common::corpus;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("capi-bundle-install-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn make(out: &Path, opts: &BundleOptions, inputs: &[PathBuf]) {
    bundle::write(inputs, opts, out).unwrap_or_else(|e| panic!("bundle failed: {e}"));
}

fn repo_opts(c: &Path) -> BundleOptions {
    BundleOptions {
        repository: Some(c.join("repository")),
        ..Default::default()
    }
}

fn docs(path: &Path) -> Vec<Value> {
    capi_render::yaml::parse_documents(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The files under `dir` in the order `kubectl apply -R -f dir` applies them (Go's
/// `filepath.Walk`: names sorted, directories entered where they sort).
fn kubectl_walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for p in names {
        if p.is_dir() {
            kubectl_walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Applying `configmaps/` recursively never meets an object before its Namespace.
fn assert_namespaces_first(bundle: &Path) -> usize {
    let mut files = Vec::new();
    kubectl_walk(&bundle.join("configmaps"), &mut files);
    let mut created = BTreeSet::new();
    let mut namespaced = 0;
    for f in files {
        for d in docs(&f) {
            let name = d.pointer("/metadata/name").and_then(Value::as_str).unwrap();
            if d["kind"] == "Namespace" {
                created.insert(name.to_string());
                continue;
            }
            let ns = d
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap();
            assert!(
                created.contains(ns),
                "{}: {} {name} comes before Namespace {ns}",
                f.display(),
                d["kind"]
            );
            namespaced += 1;
        }
    }
    namespaced
}

#[test]
fn configmaps_apply_recursively_with_their_namespaces_first() {
    let Some(c) = corpus() else { return };
    // Four providers in four namespaces: ConfigMap and CR each.
    let d = scratch("namespaces");
    let shared = d.join("plain");
    make(
        &shared,
        &repo_opts(&c),
        &[root().join("fixtures/bundle/providers.yaml")],
    );
    let shared = shared.as_path();
    assert_eq!(assert_namespaces_first(shared), 8);
    for ns in [
        "capi-system",
        "capi-kubeadm-bootstrap-system",
        "capd-system",
    ] {
        let d = docs(&shared.join(format!("configmaps/{ns}/00-namespace.yaml")));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0]["kind"], "Namespace");
        assert_eq!(d[0]["metadata"]["name"], ns);
    }
    // A mirror Secret that lands in the config Secret's own namespace, elsewhere.
    let input = d.join("providers.yaml");
    let text = std::fs::read_to_string(root().join("fixtures/bundle/customised.yaml")).unwrap();
    let text = text
        .replace(
            "    name: core-vars\n",
            "    name: core-vars\n    namespace: capi-config\n",
        )
        .replace(
            "  name: core-vars\n  namespace: capi-system\n",
            "  name: core-vars\n  namespace: capi-config\n",
        );
    std::fs::write(&input, text).unwrap();
    let out = d.join("b");
    make(
        &out,
        &BundleOptions {
            image_registry: Some("mirror.example/capi".into()),
            ..repo_opts(&c)
        },
        &[input],
    );
    let secret = docs(&out.join("configmaps/capi-system/core-cluster-api-images-secret.yaml"));
    assert_eq!(
        (
            secret[0]["kind"].as_str(),
            secret[1]["metadata"]["namespace"].as_str()
        ),
        (Some("Namespace"), Some("capi-config"))
    );
    // A ConfigMap, a CR and a mirror Secret for each of the two providers.
    assert_eq!(assert_namespaces_first(&out), 6);
    assert_eq!(bundle::verify(&out).unwrap().problems, Vec::<String>::new());
    std::fs::remove_dir_all(&d).ok();
}
