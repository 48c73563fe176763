//! The whole Fetch phase against cluster-api-operator itself (the version
//! `conformance/operator-customize.sh` names): every `fixtures/operator-fetch/<case>.yaml`
//! is a raw components text with a provider, its (defaulted) spec, its config Secret's
//! variables and the version, run through [`substitute_with`] and [`process_owned`]
//! and compared with `golden/operator-fetch/<case>.json`, which only the script
//! writes (clusterctl's `NewComponents` as the operator calls it, then
//! `customizeObjectsFn`, `applyPatches` and `imageOverrides`).
//!
//! The header is the file's first document (up to the first `---` line); everything
//! after that line is the components text, unparsed. Objects are compared as Go's
//! `encoding/json` prints them; errors without our `<Kind> <namespace>/<name> (...): `
//! prefix.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{process_owned, substitute_with};
use crate::config::ImageMeta;
use crate::go::json::marshal;
use crate::model::InputObject;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn s(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

/// (header, components text) of a fixture.
fn split(text: &str) -> (&str, &str) {
    match text.find("\n---\n") {
        Some(i) => (&text[..=i], &text[i + 5..]),
        None => (text, ""),
    }
}

/// What the operator would apply for the fixture at `path`, or the message of its error
/// (our provider prefix removed).
fn run(path: &Path) -> std::result::Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (head, components) = split(&text);
    let header = crate::yaml::read::parse_value_lenient(head).expect("header");
    let p = &header["provider"];
    let cr = InputObject {
        file: path.display().to_string(),
        doc: 0,
        value: json!({"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": s(p, "kind"),
            "metadata": {"name": s(p, "name"), "namespace": s(p, "namespace")},
            "spec": header.get("spec").cloned().unwrap_or(json!({}))}),
    };
    let cr = super::convert::to_provider(&cr).expect("provider");
    let fetch = &header["fetch"];
    let vars: BTreeMap<String, String> = fetch
        .get("variables")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default();
    let images: Option<BTreeMap<String, ImageMeta>> =
        header.get("images").filter(|v| !v.is_null()).map(|m| {
            m.as_object()
                .expect("images map")
                .iter()
                .map(|(k, v)| {
                    let meta = ImageMeta {
                        repository: s(v, "repository"),
                        name: s(v, "name"),
                        tag: s(v, "tag"),
                    };
                    (k.clone(), meta)
                })
                .collect()
        });
    let prefix = format!("{}: ", cr.describe());
    let strip = |e: crate::error::Error| {
        e.message()
            .strip_prefix(&prefix)
            .unwrap_or(e.message())
            .to_string()
    };
    let sub = substitute_with(&cr, components.to_string(), &vars).map_err(strip)?;
    let uid = s(p, "uid");
    process_owned(
        &cr,
        &s(fetch, "version"),
        &sub.text,
        &sub.config,
        images.as_ref(),
        Some(&uid),
    )
    .map(|p| p.objects)
    .map_err(strip)
}

fn fixture_names(dir: &Path) -> Vec<String> {
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

/// Compare every fixture of `fixtures` with its golden in `goldens`; returns (cases
/// compared, failures).
fn compare_dir(fixtures: &Path, goldens: &Path) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let names = fixture_names(fixtures);
    for name in &names {
        let golden_path = goldens.join(format!("{name}.json"));
        let golden: Value = serde_json::from_str(
            &std::fs::read_to_string(&golden_path)
                .unwrap_or_else(|e| panic!("{}: {e}", golden_path.display())),
        )
        .expect("golden JSON");
        match (
            run(&fixtures.join(format!("{name}.yaml"))),
            golden.get("objects"),
            golden.get("error"),
        ) {
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
            (Err(got), _, Some(Value::String(want))) if &got == want => {}
            (Err(got), _, Some(want)) => failures.push(format!(
                "{name}: error differs\n  ours:     {got}\n  operator: {want}"
            )),
            (Ok(_), _, Some(want)) => {
                failures.push(format!("{name}: operator fails ({want}), we succeed"))
            }
            (Err(e), _, _) => {
                failures.push(format!("{name}: we fail ({e}), the operator succeeds"))
            }
            (Ok(_), _, _) => failures.push(format!("{name}: malformed golden")),
        }
    }
    (names.len(), failures)
}

#[test]
fn fetch_fixtures_match_the_operator() {
    let (compared, failures) = compare_dir(
        &root().join("fixtures/operator-fetch"),
        &root().join("golden/operator-fetch"),
    );
    assert!(compared >= 4, "only {compared} fetch cases");
    assert!(
        failures.is_empty(),
        "{} of {compared} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every components file of `$CAPI_CORPUS` through the whole Fetch phase:
/// `conformance/operator-customize.sh` writes the cases and the operator's output into
/// one directory and names it in `CAPI_OPERATOR_FETCH_CASES` (never committed).
#[test]
fn corpus_fetch_cases_match_the_operator() {
    let Some(dir) = std::env::var_os("CAPI_OPERATOR_FETCH_CASES") else {
        eprintln!("CAPI_OPERATOR_FETCH_CASES not set; corpus fetch cases are checked by conformance/operator-customize.sh");
        return;
    };
    let dir = PathBuf::from(dir);
    let (compared, failures) = compare_dir(&dir, &dir);
    eprintln!(
        "corpus fetch: {compared} cases, {} differences",
        failures.len()
    );
    assert!(compared > 0, "no cases in {}", dir.display());
    assert!(
        failures.is_empty(),
        "{} of {compared} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn split_takes_the_first_separator_line() {
    assert_eq!(
        split("a: 1\n---\nb: 2\n---\nc: 3\n"),
        ("a: 1\n", "b: 2\n---\nc: 3\n")
    );
    assert_eq!(split("a: 1\n"), ("a: 1\n", ""));
}
