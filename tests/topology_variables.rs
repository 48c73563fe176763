//! ClusterClass variables against the real clusterctl v1.10.10.
//!
//! Every fixtures/topology-variables/<case>.yaml (a ClusterClass and a Cluster) was
//! planned by `clusterctl alpha topology plan` (conformance/topology-variables.sh), which
//! runs the ClusterClass and Cluster webhooks. golden/topology-variables/<case>.error is
//! the error clusterctl printed; <case>.cluster.yaml is the planned Cluster's
//! `spec.topology` with defaulted variables. fixtures/topology-variables/corpus/ holds
//! Clusters for real ClusterClasses of $CAPI_CORPUS (skipped without the corpus). No Go
//! is needed here.

use std::path::{Path, PathBuf};

use capi_render::topology::variables::{self, definitions, field_error};
use capi_render::yaml::read::{parse_documents, parse_value};
use serde_json::Value;

const PREFIX: &str = "failed defaulting and validation on input objects: ";

mod common;
use common::root;

fn cases(dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml") && n != "base.yaml")
        .map(|n| n.trim_end_matches(".yaml").to_string())
        .collect();
    names.sort();
    names
}

fn kind_of<'a>(docs: &'a mut [Value], kind: &str) -> &'a mut Value {
    docs.iter_mut()
        .find(|d| d["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind}"))
}

/// The input of a case: the fixture, or for a corpus case the named real ClusterClass
/// file (placeholders replaced as the header says) followed by the fixture; None (after
/// the test's skip notice) when that corpus file is absent.
fn input(dir: &str, case: &str) -> Option<String> {
    let text = std::fs::read_to_string(root().join(format!("{dir}/{case}.yaml"))).unwrap();
    let Some(rel) = text.lines().find_map(|l| l.strip_prefix("# corpus: ")) else {
        return Some(text);
    };
    let path = common::corpus_path(rel)?;
    let mut class = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    for (from, to) in text
        .lines()
        .filter_map(|l| l.strip_prefix("# replace: "))
        .filter_map(|r| r.split_once(" => "))
    {
        class = class.replace(from, to);
    }
    Some(format!("{class}\n---\n{text}"))
}

/// What capi-render does with a case: the error message clusterctl would print, or the
/// Cluster after defaulting; plus warnings. None when the case's corpus file is absent.
fn run(dir: &str, case: &str) -> Option<(Result<Value, String>, Vec<String>)> {
    let mut docs = parse_documents(&input(dir, case)?).unwrap();
    docs.retain(|d| !d.is_null());
    for d in docs.iter_mut() {
        // clusterctl puts objects without a namespace into "default".
        if d.pointer("/metadata/namespace").is_none() {
            d["metadata"]["namespace"] = Value::from("default");
        }
    }
    let cc = kind_of(&mut docs, "ClusterClass").clone();
    let cc_errs = definitions::variable_definition_errors(&cc);
    if !cc_errs.is_empty() {
        let name = cc["metadata"]["name"].as_str().unwrap_or("");
        let msg =
            field_error::invalid_object_message("ClusterClass.cluster.x-k8s.io", name, &cc_errs);
        return Some((
            Err(format!(
                "{PREFIX}failed to run defaulting and validation on ClusterClasses: failed validation of cluster.x-k8s.io/v1beta1, Kind=ClusterClass default/{name}: {msg}"
            )),
            vec![],
        ));
    }
    let status = variables::status_variables(&cc).unwrap();
    let cluster = kind_of(&mut docs, "Cluster");
    Some(
        match variables::default_and_validate_cluster_variables(
            cluster,
            &variables::definitions_of(&status),
        ) {
            Ok(w) => (Ok(cluster.clone()), w),
            Err(e) => (
                Err(format!(
                    "{PREFIX}failed to run defaulting and validation on Clusters: {}",
                    e.message()
                )),
                vec![],
            ),
        },
    )
}

/// The variable lists of a topology: (where, list).
fn variable_lists(topology: &Value) -> Vec<(String, Value)> {
    let mut out = vec![
        (
            "variables".to_string(),
            topology.get("variables").cloned().unwrap_or(Value::Null),
        ),
        (
            "controlPlane".to_string(),
            topology
                .pointer("/controlPlane/variables/overrides")
                .cloned()
                .unwrap_or(Value::Null),
        ),
    ];
    for kind in ["machineDeployments", "machinePools"] {
        for w in topology
            .pointer(&format!("/workers/{kind}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out.push((
                format!("{kind}[{}]", w["name"]),
                w.pointer("/variables/overrides")
                    .cloned()
                    .unwrap_or(Value::Null),
            ));
        }
    }
    out
}

fn golden(dir: &str, case: &str, ext: &str) -> Option<String> {
    std::fs::read_to_string(root().join(format!("{dir}/{case}.{ext}"))).ok()
}

/// Compares every case of `fixtures` with `goldens`; returns (errors, defaulted, skipped)
/// counts (skipped: cases whose corpus file is absent).
fn compare_all(fixtures: &str, goldens: &str) -> (usize, usize, usize) {
    let names = cases(fixtures);
    let mut failures = Vec::new();
    let (mut errors, mut defaulted, mut skipped) = (0, 0, 0);
    for case in &names {
        let Some((ours, warnings)) = run(fixtures, case) else {
            skipped += 1;
            continue;
        };
        if !warnings.is_empty() {
            failures.push(format!("{case}: unexpected warnings {warnings:?}"));
        }
        match (
            golden(goldens, case, "error"),
            golden(goldens, case, "cluster.yaml"),
            ours,
        ) {
            (Some(want), _, Err(got)) => {
                errors += 1;
                if want.trim_end() != got {
                    failures.push(format!(
                        "{case}:\n  clusterctl:  {}\n  capi-render: {got}",
                        want.trim_end()
                    ));
                }
            }
            (None, Some(want), Ok(cluster)) => {
                defaulted += 1;
                let want = parse_value(&want).unwrap();
                let got = variable_lists(&cluster["spec"]["topology"]);
                let exp = variable_lists(&want["topology"]);
                if got != exp {
                    failures.push(format!(
                        "{case}:\n  clusterctl:  {exp:?}\n  capi-render: {got:?}"
                    ));
                }
            }
            (Some(want), _, Ok(_)) => failures.push(format!(
                "{case}: clusterctl failed ({}), capi-render did not",
                want.trim_end()
            )),
            (None, Some(_), Err(got)) => failures.push(format!(
                "{case}: capi-render failed ({got}), clusterctl did not"
            )),
            (None, None, _) => failures.push(format!("{case}: no golden file")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
    (errors, defaulted, skipped)
}

#[test]
fn variables_match_clusterctl() {
    let (errors, defaulted, skipped) =
        compare_all("fixtures/topology-variables", "golden/topology-variables");
    assert_eq!(
        skipped, 0,
        "fixtures/topology-variables/*.yaml need no corpus"
    );
    // Both outcomes are covered.
    assert!(
        errors >= 40 && defaulted >= 5,
        "errors {errors}, defaulted {defaulted}"
    );
}

#[test]
fn real_cluster_classes_match_clusterctl() {
    let Some(_) = common::corpus() else { return };
    let (errors, defaulted, skipped) = compare_all(
        "fixtures/topology-variables/corpus",
        "golden/topology-variables/corpus",
    );
    if skipped > 0 {
        return; // a part of the corpus is absent: the notice is printed
    }
    assert!(
        errors >= 2 && defaulted >= 4,
        "errors {errors}, defaulted {defaulted}"
    );
}

#[test]
fn corpus_cluster_classes_have_valid_variable_definitions() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let mut files = Vec::new();
    collect(&corpus, &mut files);
    let mut classes = 0;
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        if !text.contains("kind: ClusterClass") {
            continue;
        }
        // Corpus files are templates with ${VAR} placeholders; read what parses.
        let Ok(docs) = parse_documents(&text) else {
            continue;
        };
        for d in docs.iter().filter(|d| {
            d["kind"] == "ClusterClass" && d["apiVersion"] == "cluster.x-k8s.io/v1beta1"
        }) {
            classes += 1;
            let errs = definitions::variable_definition_errors(d);
            assert!(
                errs.is_empty(),
                "{}: {}",
                f.display(),
                field_error::aggregate(&errs)
            );
            let status = variables::status_variables(d).unwrap();
            // Every variable with a top-level default defaults and validates cleanly.
            let mut cluster: Value = serde_json::json!({"metadata": {"name": "c", "namespace": "default"}, "spec": {"topology": {"variables": []}}});
            let _ = variables::default_cluster_variables(&mut cluster, &status);
            let report = variables::validate_variables(&cluster, &status);
            for e in &report.errors {
                let msg = e.to_string();
                assert!(
                    msg.contains("Required value: required variable"),
                    "{}: {msg}",
                    f.display()
                );
            }
        }
    }
    assert!(
        classes > 0,
        "no ClusterClass found under {}",
        corpus.display()
    );
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml") {
            out.push(p);
        }
    }
}

/// Every fixture value against every fixture schema: defaulting and validation report
/// errors or warnings but never panic.
#[test]
fn any_value_against_any_schema_does_not_panic() {
    let mut schemas = Vec::new();
    let mut values = Vec::new();
    for case in cases("fixtures/topology-variables") {
        let text = std::fs::read_to_string(
            root().join(format!("fixtures/topology-variables/{case}.yaml")),
        )
        .unwrap();
        for d in parse_documents(&text).unwrap() {
            for v in d
                .pointer("/spec/variables")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                schemas.push(v.clone());
            }
            for v in d
                .pointer("/spec/topology/variables")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                values.push(v.get("value").cloned().unwrap_or(Value::Null));
            }
        }
    }
    assert!(schemas.len() > 50 && values.len() > 50);
    let mut outcomes = (0, 0);
    for s in &schemas {
        let mut def = s.clone();
        def["name"] = Value::from("v");
        def["required"] = Value::from(false);
        let status =
            variables::status_variables(&serde_json::json!({"spec": {"variables": [def]}}))
                .unwrap();
        for v in &values {
            let mut cluster = serde_json::json!({"metadata": {"name": "c", "namespace": "n"},
                "spec": {"topology": {"variables": [{"name": "v", "value": v}]}}});
            match variables::default_and_validate_cluster_variables(
                &mut cluster,
                &variables::definitions_of(&status),
            ) {
                Ok(_) => outcomes.0 += 1,
                Err(_) => outcomes.1 += 1,
            }
        }
    }
    assert!(outcomes.0 > 0 && outcomes.1 > 0, "{outcomes:?}");
}
