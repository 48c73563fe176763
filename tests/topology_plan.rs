//! `topology plan` against the committed clusterctl goldens (golden/topology/<case>/,
//! written by conformance/topology.sh from the real clusterctl), without Go.
//! clusterctl's random 5-character suffixes, condition times and diff header times are
//! normalised on both sides; the summary table's rows are compared as a set (their
//! order follows the random names).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use capi_render::topology::plan;
use regex::Regex;
use serde_json::Value;

mod common;
use common::root;

fn normalise(s: &str) -> String {
    let suffix = Regex::new(r"-[bcdfghjklmnpqrstvwxz2456789]{5}([^a-z0-9]|$)").unwrap();
    let time = Regex::new(r#"(lastTransitionTime"?:"? ?"?)[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z"#)
        .unwrap();
    let header = Regex::new(r"(?m)^(---|\+\+\+) (.*)\t.*$").unwrap();
    // CEL names the type of `self` `selfType` and the clock's nanoseconds.
    let self_type = Regex::new(r"selfType[0-9]+").unwrap();
    let s = self_type.replace_all(s, "selfTypeN");
    let s = suffix.replace_all(&s, "-XXXXX$1");
    let s = suffix.replace_all(&s, "-XXXXX$1");
    let s = time.replace_all(&s, "${1}TIME");
    header.replace_all(&s, "$1 $2\tTIME").into_owned()
}

fn normalise_stdout(s: &str) -> String {
    let row = Regex::new(r"^  [a-z0-9-]+ +[A-Z]").unwrap();
    let mut out: Vec<String> = Vec::new();
    let mut rows: Vec<String> = Vec::new();
    for l in normalise(s).split_inclusive('\n') {
        if row.is_match(l) {
            rows.push(l.to_string());
            continue;
        }
        rows.sort();
        out.append(&mut rows);
        out.push(l.to_string());
    }
    rows.sort();
    out.append(&mut rows);
    out.concat()
}

/// The case's inputs, in conformance/topology.sh's order; None (after the test's skip
/// notice) when the case reads corpus files and the corpus is absent.
fn inputs(case: &Path) -> Option<Result<Vec<Value>, String>> {
    let mut files = Vec::new();
    if let Ok(list) = std::fs::read_to_string(case.join("corpus.txt")) {
        for l in list
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            files.push(common::corpus_path(l)?);
        }
    }
    let mut own: Vec<PathBuf> = std::fs::read_dir(case)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    own.sort();
    files.extend(own);
    let mut objs = Vec::new();
    for f in files {
        match capi_render::yaml::parse_documents(&std::fs::read_to_string(&f).unwrap()) {
            Ok(docs) => objs.extend(docs),
            // The expected error of a case whose input YAML does not read (the CLI's
            // wording around it is checked by conformance/topology.sh).
            Err(e) => return Some(Err(e.to_string())),
        }
    }
    Some(Ok(objs))
}

fn golden_files(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for e in walkdir::WalkDir::new(dir) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let rel = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.insert(rel, std::fs::read_to_string(e.path()).unwrap());
        }
    }
    out
}

/// `flags.txt`: `-n NS` and `--cluster NAME`.
fn flags(case: &Path) -> (String, String) {
    let text = std::fs::read_to_string(case.join("flags.txt")).unwrap_or_default();
    let words: Vec<&str> = text.split_whitespace().collect();
    let (mut ns, mut cluster) = (String::new(), String::new());
    for w in words.windows(2) {
        match w[0] {
            "-n" | "--namespace" => ns = w[1].to_string(),
            "-c" | "--cluster" => cluster = w[1].to_string(),
            _ => {}
        }
    }
    (ns, cluster)
}

fn our_files(objs: Vec<Value>, (ns, cluster): (String, String)) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    match plan::plan(objs, &ns, &cluster, ".") {
        Ok(p) => {
            out.insert("stdout.txt".to_string(), p.stdout);
            for f in p.files {
                out.insert(f.path, f.content);
            }
        }
        Err(e) => {
            out.insert("stdout.txt".to_string(), String::new());
            out.insert("error.txt".to_string(), format!("{}\n", e.message()));
        }
    }
    out
}

fn normalised(files: BTreeMap<String, String>) -> BTreeMap<String, String> {
    files
        .into_iter()
        .map(|(k, v)| {
            let v = if k == "error.txt" {
                normalise(v.trim_end())
            } else if k == "stdout.txt" {
                normalise_stdout(&v)
            } else {
                normalise(&v)
            };
            (normalise(&k), v)
        })
        .collect()
}

#[test]
fn plan_matches_clusterctl_goldens() {
    let mut compared = 0;
    let mut failures = Vec::new();
    for e in std::fs::read_dir(root().join("fixtures/topology")).unwrap() {
        let case = e.unwrap().path();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let Some(objs) = inputs(&case) else {
            continue;
        };
        let golden = golden_files(&root().join("golden/topology").join(&name));
        assert!(!golden.is_empty(), "no golden for {name}");
        let objs = match objs {
            Ok(objs) => objs,
            Err(e) => {
                let want = golden.get("error.txt").map(String::as_str).unwrap_or("");
                if !want.trim_end().ends_with(e.trim_end()) {
                    failures.push(format!("{name}: clusterctl: {want}\nours: {e}"));
                }
                compared += 1;
                continue;
            }
        };
        let ours = our_files(objs, flags(&case));
        let (mut g, mut o) = (normalised(golden), normalised(ours));
        // `differences.txt`: `same-until: MARKER` — the error texts agree up to MARKER.
        if let Ok(d) = std::fs::read_to_string(case.join("differences.txt")) {
            let marker = d
                .lines()
                .find_map(|l| l.strip_prefix("same-until: "))
                .expect("differences.txt: same-until: MARKER");
            for files in [&mut g, &mut o] {
                if let Some(e) = files.get_mut("error.txt") {
                    if let Some(i) = e.find(marker) {
                        e.truncate(i + marker.len());
                    }
                }
            }
        }
        if g != o {
            for (k, v) in &g {
                if o.get(k) != Some(v) {
                    failures.push(format!(
                        "{name}: {k} differs or is missing\n--- clusterctl\n{v}\n--- ours\n{}",
                        o.get(k).map(String::as_str).unwrap_or("<none>")
                    ));
                }
            }
            for k in o.keys().filter(|k| !g.contains_key(*k)) {
                failures.push(format!("{name}: extra file {k}"));
            }
        }
        compared += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 1, "no topology case compared");
}

fn fixture(name: &str) -> Vec<Value> {
    inputs(&root().join("fixtures/topology").join(name))
        .unwrap()
        .unwrap()
}

#[test]
fn rendering_twice_gives_identical_bytes() {
    let a = plan::plan(fixture("value-variable"), "", "", "out").unwrap();
    let b = plan::plan(fixture("value-variable"), "", "", "out").unwrap();
    assert_eq!(a.stdout, b.stdout);
    let fa: Vec<_> = a.files.iter().map(|f| (&f.path, &f.content)).collect();
    let fb: Vec<_> = b.files.iter().map(|f| (&f.path, &f.content)).collect();
    assert_eq!(fa, fb);
}

fn renamed(objs: &[Value], cluster: &str) -> Vec<Value> {
    objs.iter()
        .map(|o| {
            let mut o = o.clone();
            if o["kind"] == "Cluster" {
                o["metadata"]["name"] = Value::from(cluster);
            }
            o
        })
        .collect()
}

/// `render`'s Clusters: (namespace/name, objects) in input order.
fn render_fleet(objects: &[Value]) -> Vec<(String, Vec<Value>)> {
    use capi_render::model::{InputObject, RenderOptions};
    use capi_render::render::render_objects;
    let objects = objects
        .iter()
        .enumerate()
        .map(|(doc, value)| InputObject {
            file: "fleet.yaml".into(),
            doc,
            value: value.clone(),
        })
        .collect();
    let opts = RenderOptions {
        clusters: capi_render::model::ClusterMode::Desired,
        ..RenderOptions::default()
    };
    let set = render_objects(objects, Vec::new(), &opts).unwrap();
    set.units
        .into_iter()
        .map(|u| (format!("{}/{}", u.namespace, u.name), u.objects))
        .collect()
}

#[test]
fn fleet_renders_each_cluster_independently() {
    let own = fixture("value-variable");
    let alone = render_fleet(&own);
    assert_eq!(alone.len(), 1);
    // A second Cluster of the same class and, with the corpus, one of another class
    // (the corpus in-memory class) in another namespace of the same input.
    let mut many = own.clone();
    many.extend(
        renamed(&own, "beta")
            .into_iter()
            .filter(|o| o["kind"] == "Cluster"),
    );
    let mut want = vec!["default/alpha", "default/beta"];
    if let Some(Ok(mem)) = inputs(&root().join("fixtures/topology/corpus-in-memory")) {
        many.extend(mem.into_iter().map(|mut o| {
            o["metadata"]["namespace"] = Value::from("mem");
            o
        }));
        want.push("mem/mem-1");
    }
    let fleet = render_fleet(&many);
    let keys: Vec<&str> = fleet.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, want);
    assert_eq!(
        fleet[0], alone[0],
        "a second Cluster changed the first one's output"
    );
    // Different clusters get different generated names.
    let names = |objs: &[Value]| -> Vec<String> {
        objs.iter()
            .map(|o| o["metadata"]["name"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_ne!(names(&fleet[0].1), names(&fleet[1].1));
}

/// Odd values at every level of a Cluster and its class: errors, never panics.
#[test]
fn odd_inputs_never_panic() {
    let base = fixture("templates-and-defaults");
    let odd = [
        Value::Null,
        Value::from("x"),
        Value::from(1.5),
        Value::Array(vec![]),
        serde_json::json!({}),
    ];
    fn pointers(v: &Value, prefix: String, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let p = format!("{prefix}/{}", k.replace('~', "~0").replace('/', "~1"));
                    out.push(p.clone());
                    pointers(x, p, out);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    let p = format!("{prefix}/{i}");
                    out.push(p.clone());
                    pointers(x, p, out);
                }
            }
            _ => {}
        }
    }
    let mut runs = 0;
    for (doc, obj) in base.iter().enumerate().filter(|(_, o)| {
        matches!(
            o["kind"].as_str(),
            Some("Cluster" | "ClusterClass" | "KubeadmControlPlaneTemplate")
        )
    }) {
        let mut ptrs = Vec::new();
        pointers(obj, String::new(), &mut ptrs);
        for (i, p) in ptrs.iter().enumerate() {
            let v = &odd[i % odd.len()];
            let mut objs = base.clone();
            if let Some(slot) = objs[doc].pointer_mut(p) {
                *slot = v.clone();
            }
            let _ = plan::plan(objs, "", "", ".");
            runs += 1;
        }
    }
    assert!(runs > 100, "only {runs} mutations");
}

/// Checks that exist only because clusterctl plans in a dry run (the mock CRDs it makes
/// for `*.cluster.x-k8s.io` groups only) stop `topology plan`, as they stop clusterctl,
/// but not `render`: a management cluster has the provider's real CRDs.
#[test]
fn dry_run_artefacts_stop_the_plan_not_the_render() {
    let objs = fixture("error-template-group");
    let err = capi_render::topology::plan::plan(objs.clone(), "", "", ".")
        .err()
        .expect("topology plan refuses a template group without a mock CRD");
    assert!(
        err.to_string().contains(
            "customresourcedefinitions.apiextensions.k8s.io \"dockerclustertemplates.infrastructure.example.com\" not found"
        ),
        "{err}"
    );
    let units = render_fleet(&objs);
    assert_eq!(units.len(), 1);
    let (name, objects) = &units[0];
    assert_eq!(name, "default/tpl");
    assert!(objects
        .iter()
        .any(|o| o["apiVersion"] == "infrastructure.example.com/v1beta1"
            && o["kind"] == "DockerCluster"));
}
