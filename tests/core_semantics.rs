//! What a core provider of v1.11 or later changes in v1beta1 topologies (issue 40,
//! deliverable 3: "measure and list the differences between the two on the corpus and
//! fixtures"). Every valid case of `fixtures/topology/` (the corpus classes among them) is
//! rendered twice, as clusterctl v1.10.10 computes it (no core) and as Cluster API v1.14.2
//! does (`--capi-version v1.14.2`); each side is checked against its real tool elsewhere
//! (`conformance/topology.sh`, and the `core-v1.14-*` cases of
//! `conformance/topology-v1beta2.sh`). The fields that differ, by kind, with the number of
//! cases, must be the table in `docs/src/reference/versions.md`: the test prints the
//! measured table when they are not.

mod common;
use common::*;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

const BEGIN: &str = "<!-- BEGIN core-semantics: tests/core_semantics.rs measures this table -->";
const END: &str = "<!-- END core-semantics -->";

/// Every leaf (and empty map or list) of an object, by path (`[]` for list items).
fn leaves(v: &Value, path: &str, out: &mut BTreeMap<String, BTreeSet<String>>) {
    let mut leaf = |s: String| {
        out.entry(path.to_string()).or_default().insert(s);
    };
    match v {
        Value::Object(m) if m.is_empty() => leaf("{}".into()),
        Value::Object(m) => {
            for (k, x) in m {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                leaves(x, &p, out);
            }
        }
        Value::Array(a) if a.is_empty() => leaf("[]".into()),
        Value::Array(a) => a.iter().for_each(|x| leaves(x, &format!("{path}[]"), out)),
        other => leaf(other.to_string()),
    }
}

/// The name without the 5-character suffix the topology controller generates.
fn stem(name: &str) -> &str {
    match name.rsplit_once('-') {
        Some((s, x)) if x.len() == 5 && x.bytes().all(|b| b.is_ascii_alphanumeric()) => s,
        _ => name,
    }
}

type Objects = BTreeMap<(String, String), BTreeMap<String, BTreeSet<String>>>;

fn objects(text: &str) -> Objects {
    let mut out = Objects::new();
    for d in ("\n".to_string() + text).split("\n---\n") {
        if d.trim().is_empty() {
            continue;
        }
        let v = capi_render::yaml::parse_value(d).unwrap();
        let kind = v["kind"].as_str().unwrap_or("").to_string();
        let name = stem(v["metadata"]["name"].as_str().unwrap_or("")).to_string();
        let mut l = BTreeMap::new();
        leaves(&v, "", &mut l);
        out.insert((kind, name), l);
    }
    out
}

fn inputs(case: &std::path::Path, corpus: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    if let Ok(list) = std::fs::read_to_string(case.join("corpus.txt")) {
        for l in list.lines().map(str::trim) {
            if !l.is_empty() && !l.starts_with('#') {
                files.push(corpus.join(l));
            }
        }
    }
    let mut own: Vec<_> = std::fs::read_dir(case)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    own.sort();
    files.extend(own);
    files
}

fn render(files: &[std::path::PathBuf], extra: &[&str]) -> Option<String> {
    let mut cmd = bin();
    cmd.args(["render", "--stdout", "-q", "--clusters", "desired"])
        .args(extra);
    for f in files {
        cmd.arg("-f").arg(f);
    }
    let o = run(&mut cmd, None);
    o.status
        .success()
        .then(|| String::from_utf8(o.stdout).unwrap())
}

#[test]
fn the_versions_page_lists_what_a_v1_14_core_changes_in_v1beta1_topologies() {
    let Some(corpus) = corpus() else { return };
    let mut cases = 0;
    let mut refused = Vec::new();
    // (kind, field, change) -> cases
    let mut rows: BTreeMap<(String, String, &str), BTreeSet<String>> = BTreeMap::new();
    let mut dirs: Vec<_> = std::fs::read_dir(root().join("fixtures/topology"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for case in dirs {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("error-") {
            continue;
        }
        let files = inputs(&case, &corpus);
        let (Some(old), Some(new)) = (
            render(&files, &[]),
            render(&files, &["--capi-version", "v1.14.2"]),
        ) else {
            refused.push(name);
            continue;
        };
        cases += 1;
        let (old, new) = (objects(&old), objects(&new));
        let keys: BTreeSet<_> = old.keys().chain(new.keys()).cloned().collect();
        for k in keys {
            let mut add = |field: &str, change| {
                rows.entry((k.0.clone(), field.to_string(), change))
                    .or_default()
                    .insert(name.clone());
            };
            match (old.get(&k), new.get(&k)) {
                (Some(a), Some(b)) => {
                    let paths: BTreeSet<_> = a.keys().chain(b.keys()).collect();
                    for p in paths {
                        match (a.get(p), b.get(p)) {
                            (Some(x), Some(y)) if x != y => add(p, "changed"),
                            (Some(_), None) => add(p, "only without"),
                            (None, Some(_)) => add(p, "only with"),
                            _ => {}
                        }
                    }
                }
                (Some(_), None) => add("(the object)", "only without"),
                (None, Some(_)) => add("(the object)", "only with"),
                (None, None) => unreachable!(),
            }
        }
    }
    // Refused either way: YAML with a duplicate key; under a v1.11+ core, a ControlPlane
    // template whose `machineTemplate` is null (v1.14 cannot set the reference in it),
    // and a version that is no semantic version (v1.14.2's Cluster webhook refuses it,
    // as conformance/admission.sh's `cluster-version-not-semver` shows).
    assert_eq!(
        refused,
        [
            "cp-machine-template-null",
            "duplicate-keys",
            "version-odd-suffix"
        ]
    );
    let mut table = format!(
        "{BEGIN}\n\nMeasured on {cases} cases of `fixtures/topology/` (the corpus v1.10.10 classes among them):\n\n| kind | field | under a v1.11+ core | cases |\n|---|---|---|---|\n"
    );
    for ((kind, field, change), in_cases) in &rows {
        let what = match *change {
            "changed" => "another value",
            "only without" => "absent",
            _ => "present (absent before)",
        };
        table += &format!("| {kind} | `{field}` | {what} | {} |\n", in_cases.len());
    }
    table += &format!("\n{END}");
    // The README's summary quotes the counts.
    let count = |kind: &str, field: &str| {
        rows.iter()
            .find(|((k, f, _), _)| k == kind && f.ends_with(field))
            .map_or(0, |(_, c)| c.len())
    };
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    for quoted in [
        format!("measured with v1.14.2 on the {cases} valid topology cases"),
        format!(
            "in {} of {cases} cases",
            count("KubeadmControlPlane", "clusterConfiguration.networking")
        ),
        format!("`ipFamily` ({} cases)", count("DockerCluster", ".ipFamily")),
        format!(
            "`maxUnhealthy` ({})",
            count("MachineHealthCheck", "maxUnhealthy")
        ),
    ] {
        assert!(
            readme.contains(&quoted),
            "README.md does not say {quoted:?}"
        );
    }
    let page = std::fs::read_to_string(root().join("docs/src/reference/versions.md")).unwrap();
    let shown = page
        .find(BEGIN)
        .and_then(|b| page[b..].find(END).map(|e| &page[b..b + e + END.len()]))
        .unwrap_or("(no table)");
    assert_eq!(
        shown, table,
        "docs/src/reference/versions.md: the measured table differs; it is now:\n{table}"
    );
}
