//! The stage against cluster-api-operator v0.29.0 itself: every
//! `fixtures/operator-customize/<case>.yaml` is run through [`customize`] and compared
//! with `golden/operator-customize/<case>.json`, which only
//! `conformance/operator-customize.sh` writes (the operator's own `customizeObjectsFn`,
//! `applyPatches` and `imageOverrides` built from the module at v0.29.0).
//!
//! A fixture's first document is the header (`provider`, `spec`, optional `images`,
//! `paused`, and `"oracle": "skip"` for cases the operator cannot run); the rest are
//! the objects. Objects are compared as Go's `encoding/json` prints them, so `2` and
//! `2.0` are the same number, as they are in the YAML both tools write. Errors are
//! compared without our `<Kind> <namespace>/<name>: ` prefix.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::{customize, CustomizeInput, ProviderIdentity};
use crate::config::ImageMeta;
use crate::go::json::marshal;
use crate::yaml::parse_documents;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn s(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

struct Case {
    provider: ProviderIdentity,
    uid: String,
    spec: Value,
    images: Option<BTreeMap<String, ImageMeta>>,
    paused: bool,
    oracle: bool,
    objs: Vec<Value>,
}

fn load(name: &str) -> Case {
    load_from(&root().join("fixtures/operator-customize"), name)
}

fn load_from(dir: &std::path::Path, name: &str) -> Case {
    let path = dir.join(format!("{name}.yaml"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut docs = parse_documents(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let header = docs.remove(0);
    let p = &header["provider"];
    let images = header.get("images").filter(|v| !v.is_null()).map(|m| {
        m.as_object()
            .expect("images map")
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    ImageMeta {
                        repository: s(v, "repository"),
                        name: s(v, "name"),
                        tag: s(v, "tag"),
                    },
                )
            })
            .collect()
    });
    Case {
        provider: ProviderIdentity {
            kind: s(p, "kind"),
            name: s(p, "name"),
            namespace: s(p, "namespace"),
            manifest_label: s(p, "manifestLabel"),
        },
        uid: s(p, "uid"),
        spec: header.get("spec").cloned().unwrap_or(Value::Null),
        images,
        paused: header
            .get("paused")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        oracle: s(&header, "oracle") != "skip",
        objs: docs,
    }
}

fn run(c: &Case) -> crate::Result<Vec<Value>> {
    customize(
        c.objs.clone(),
        &CustomizeInput {
            provider: &c.provider,
            spec: &c.spec,
            paused: c.paused,
            operator_images: c.images.as_ref(),
            owner_uid: Some(&c.uid),
        },
    )
}

fn fixture_names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| {
            let n = e.ok()?.file_name().to_string_lossy().to_string();
            n.strip_suffix(".yaml").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

/// Compare every fixture of `fixtures` that the oracle ran with its golden in `goldens`;
/// returns (cases compared, failures).
fn compare_dir(fixtures: &std::path::Path, goldens: &std::path::Path) -> (usize, Vec<String>) {
    let mut compared = 0;
    let mut failures = Vec::new();
    for name in fixture_names(fixtures) {
        let case = load_from(fixtures, &name);
        let golden_path = goldens.join(format!("{name}.json"));
        if !case.oracle {
            assert!(
                !golden_path.exists(),
                "{name}: skipped by the oracle but has a golden"
            );
            continue;
        }
        let golden: Value = serde_json::from_str(
            &std::fs::read_to_string(&golden_path)
                .unwrap_or_else(|e| panic!("{}: {e}", golden_path.display())),
        )
        .expect("golden JSON");
        compared += 1;
        let prefix = format!(
            "{} {}/{}: ",
            case.provider.kind, case.provider.namespace, case.provider.name
        );
        match (run(&case), golden.get("objects"), golden.get("error")) {
            (Ok(objs), Some(Value::Array(want)), _) => {
                if objs.len() != want.len() {
                    failures.push(format!(
                        "{name}: {} objects, operator {}",
                        objs.len(),
                        want.len()
                    ));
                    continue;
                }
                for (i, (g, w)) in objs.iter().zip(want).enumerate() {
                    let (g, w) = (marshal(g), marshal(w));
                    if g != w {
                        failures.push(format!("{name}[{i}]:\n  ours:     {g}\n  operator: {w}"));
                    }
                }
            }
            (Err(e), _, Some(Value::String(want))) => {
                let got = e.message().strip_prefix(&prefix).unwrap_or(e.message());
                if got != want {
                    failures.push(format!(
                        "{name}: error differs\n  ours:     {got}\n  operator: {want}"
                    ));
                }
            }
            (Ok(_), _, Some(want)) => {
                failures.push(format!("{name}: operator fails ({want}), we succeed"))
            }
            (Err(e), _, _) => {
                failures.push(format!("{name}: we fail ({e}), the operator succeeds"))
            }
            (Ok(_), _, _) => failures.push(format!("{name}: malformed golden")),
        }
    }
    (compared, failures)
}

#[test]
fn fixtures_match_the_operator() {
    let (compared, failures) = compare_dir(
        &root().join("fixtures/operator-customize"),
        &root().join("golden/operator-customize"),
    );
    assert!(compared >= 40, "only {compared} golden cases");
    assert!(
        failures.is_empty(),
        "{} of {compared} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Real provider components: `conformance/operator-customize.sh` writes fixtures built
/// from every components file of `$CAPI_CORPUS` and the operator's output for them into
/// one directory and names it in `CAPI_OPERATOR_CORPUS_CASES` (never committed: the
/// corpus stays outside the repository). Without the variable there is nothing to do.
#[test]
fn corpus_cases_match_the_operator() {
    let Some(dir) = std::env::var_os("CAPI_OPERATOR_CORPUS_CASES") else {
        eprintln!("CAPI_OPERATOR_CORPUS_CASES not set; corpus cases are checked by conformance/operator-customize.sh");
        return;
    };
    let dir = PathBuf::from(dir);
    let (compared, failures) = compare_dir(&dir, &dir);
    eprintln!("corpus: {compared} cases, {} differences", failures.len());
    assert!(compared > 0, "no corpus cases in {}", dir.display());
    assert!(
        failures.is_empty(),
        "{} of {compared} corpus cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn paused_fixture() {
    let case = load("paused");
    assert!(case.paused && !case.oracle);
    let out = run(&case).unwrap();
    let d = out
        .iter()
        .find(|o| o["kind"] == "Deployment")
        .expect("deployment");
    assert_eq!(d["spec"]["replicas"], serde_json::json!(0));
    assert_eq!(
        d["metadata"]["annotations"]["management.cluster.x-k8s.io/original-controller-replicas"],
        "3"
    );
    // Apart from the pause, the output is the operator's for the same spec.
    let mut unpaused = case;
    unpaused.paused = false;
    let plain = run(&unpaused).unwrap();
    assert_eq!(plain.len(), out.len());
    let pd = plain.iter().find(|o| o["kind"] == "Deployment").unwrap();
    assert_eq!(pd["spec"]["replicas"], serde_json::json!(3));
}
