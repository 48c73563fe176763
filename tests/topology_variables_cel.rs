//! capi-render's CEL evaluator against apiextensions' CEL validator, rule by rule.
//!
//! golden/topology-variables/cel.json is written by conformance/oracle/cmd/varsref from
//! fixtures/topology-variables/cel/cases.yaml (conformance/topology-variables.sh). Rules
//! that Go's type checker rejects ("rule compile error") are skipped: capi-render has no
//! type checker. No Go is needed here.

use std::collections::BTreeMap;

use capi_render::topology::variables::cel;
use capi_render::topology::variables::schema::Schema;
use capi_render::yaml::read::parse_value;
use serde_json::{json, Value};

fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn cel_rules_match_apiextensions() {
    let cases = parse_value(
        &std::fs::read_to_string(root().join("fixtures/topology-variables/cel/cases.yaml"))
            .unwrap(),
    )
    .unwrap();
    let golden: BTreeMap<String, Vec<String>> = serde_json::from_str(
        &std::fs::read_to_string(root().join("golden/topology-variables/cel.json")).unwrap(),
    )
    .unwrap();
    let (mut compared, mut skipped, mut failing) = (0, 0, 0);
    let mut diffs = Vec::new();
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let want = &golden[name];
        let rules = case["rules"].as_array().unwrap();
        assert_eq!(rules.len(), want.len(), "{name}: golden is stale");
        for (rule, want) in rules.iter().zip(want) {
            if want.contains("rule compile error") {
                skipped += 1;
                continue;
            }
            let mut schema_json = case["schema"].clone();
            schema_json["x-kubernetes-validations"] = json!([{"rule": rule}]);
            let schema = Schema::from_value(&schema_json, "schema").unwrap();
            let mut out = cel::Outcome::default();
            cel::validate(&schema, &case["value"], "value", None, &mut out);
            let got: Vec<String> = out.errors.iter().map(|e| e.to_string()).collect();
            let got = got.join("\n");
            compared += 1;
            if !want.is_empty() {
                failing += 1;
            }
            if &got != want || !out.warnings.is_empty() {
                diffs.push(format!(
                    "{name}: {rule}\n  apiextensions: {want:?}\n  capi-render:   {got:?} {:?}",
                    out.warnings
                ));
            }
        }
    }
    assert!(
        diffs.is_empty(),
        "{} of {compared} rules differ:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
    // The set exercises both outcomes and only a few type-checker-only cases.
    assert!(
        compared >= 80 && failing >= 20 && skipped <= 5,
        "compared {compared}, failing {failing}, skipped {skipped}"
    );
}

#[test]
fn golden_names_match_the_fixture() {
    let cases = parse_value(
        &std::fs::read_to_string(root().join("fixtures/topology-variables/cel/cases.yaml"))
            .unwrap(),
    )
    .unwrap();
    let golden: BTreeMap<String, Value> = serde_json::from_str(
        &std::fs::read_to_string(root().join("golden/topology-variables/cel.json")).unwrap(),
    )
    .unwrap();
    let names: Vec<&str> = cases
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), golden.len());
    assert!(names.iter().all(|n| golden.contains_key(*n)));
}
