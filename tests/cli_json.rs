//! `--output-format json` (and `upgrade plan`'s `yaml`): every JSON result is parsed with
//! serde_json, checked against the book's example of its kind (`docs/src/reference/json.md`;
//! no field the book does not document, with the documented type) and against what the text form says, on
//! the bundled fixtures and, when present, on the corpus. Exit codes are the text form's.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

mod common;
use common::{bin, corpus, root, Scratch};

fn run_in(dir: &Path, args: &[&str]) -> Output {
    bin()
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .output()
        .unwrap()
}

fn run(args: &[&str]) -> Output {
    run_in(&root(), args)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// stdout parsed as one JSON value (the whole of stdout).
fn json(o: &Output) -> Value {
    let s = text(&o.stdout);
    assert!(s.ends_with("}\n"), "stdout is not one JSON object:\n{s}");
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("not JSON ({e}):\n{s}"))
}

/// The ```json examples of the book's JSON page, by kind.
/// The page that documents every JSON shape.
const JSON_PAGE: &str = "docs/src/reference/json.md";

fn documented() -> BTreeMap<String, Value> {
    let page = std::fs::read_to_string(root().join(JSON_PAGE)).unwrap();
    let mut out = BTreeMap::new();
    for block in page.split("```json\n").skip(1) {
        let body = block.split("\n```").next().unwrap();
        let v: Value = serde_json::from_str(body)
            .unwrap_or_else(|e| panic!("{JSON_PAGE}: json example does not parse ({e}):\n{body}"));
        let kind = v["kind"]
            .as_str()
            .expect("example without kind")
            .to_string();
        assert!(
            out.insert(kind.clone(), v).is_none(),
            "{JSON_PAGE}: two examples of {kind}"
        );
    }
    out
}

/// Fields the book documents as "`null` when none".
const NULLABLE: [&str; 2] = [
    "TopologyPlan.cluster",
    "DiffResult.impact.clusters[0].upgradePlan",
];

/// `at` with every list index as `[0]` (the book shows one item per list).
fn any_index(at: &str) -> String {
    let mut out = String::new();
    let mut skip = false;
    for c in at.chars() {
        match c {
            '[' => {
                out.push_str("[0");
                skip = true;
            }
            ']' => {
                out.push(']');
                skip = false;
            }
            _ if !skip => out.push(c),
            _ => {}
        }
    }
    out
}

/// Every field of `real` is in `doc` at the same place, with the same JSON type.
fn conforms(real: &Value, doc: &Value, at: &str) {
    match (real, doc) {
        (Value::Object(r), Value::Object(d)) => {
            for (k, v) in r {
                let dv = d
                    .get(k)
                    .unwrap_or_else(|| panic!("{at}.{k} is not documented in {JSON_PAGE}"));
                conforms(v, dv, &format!("{at}.{k}"));
            }
        }
        (Value::Array(r), Value::Array(d)) => {
            if !r.is_empty() {
                let de = d.first().unwrap_or_else(|| {
                    panic!("{at}: {JSON_PAGE} shows an empty list, the output has items")
                });
                for (i, e) in r.iter().enumerate() {
                    conforms(e, de, &format!("{at}[{i}]"));
                }
            }
        }
        (Value::String(_), Value::String(_))
        | (Value::Number(_), Value::Number(_))
        | (Value::Bool(_), Value::Bool(_)) => {}
        (Value::Null, _) if NULLABLE.contains(&any_index(at).as_str()) => {}
        _ => panic!("{at}: output {real} does not have the documented type of {doc}"),
    }
}

/// `v` is a `kind` result of the documented shape, with every documented top-level
/// field present (except those in `optional`).
fn check_shape(v: &Value, kind: &str, optional: &[&str]) {
    assert_eq!(v["apiVersion"], "capi-render.io/v1alpha1", "{v:#}");
    assert_eq!(v["kind"], kind, "{v:#}");
    let docs = documented();
    let doc = docs
        .get(kind)
        .unwrap_or_else(|| panic!("{JSON_PAGE} has no ```json example of {kind}"));
    conforms(v, doc, kind);
    for k in doc.as_object().unwrap().keys() {
        assert!(
            optional.contains(&k.as_str()) || v.get(k).is_some(),
            "{kind}: documented field {k} is missing: {v:#}"
        );
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// `(path, status)` of a `[{path, status}]` list.
fn changes(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn book_documents_one_example_per_kind() {
    let kinds: Vec<String> = documented().into_keys().collect();
    assert_eq!(
        kinds,
        [
            "BundleVerifyResult",
            "CheckResult",
            "DiffResult",
            "RenderResult",
            "TopologyPlan",
            "UpgradePlan"
        ]
    );
}

const QS: [&str; 7] = [
    "--config",
    "fixtures/quickstart/clusterctl.yaml",
    "render",
    "-f",
    "fixtures/quickstart/providers",
    "-f",
    "fixtures/quickstart/clusters",
];

fn qs(out: &Path, extra: &[&str]) -> Output {
    let mut a: Vec<&str> = QS.to_vec();
    a.extend(["-o", out.to_str().unwrap()]);
    a.extend(extra);
    run(&a)
}

#[test]
fn render_and_check_report_files_as_json() {
    let s = Scratch::new("json-render");
    let out = s.path().join("out");
    let o = qs(&out, &["--output-format", "json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v = json(&o);
    check_shape(&v, "RenderResult", &[]);
    assert_eq!(v["output"], out.to_str().unwrap());
    let written = strings(&v["written"]);
    // Exactly the files on disk (the lock included), sorted.
    let on_disk: Vec<String> = common::snapshot(&out)
        .into_iter()
        .filter(|(_, n)| matches!(n, common::Node::File(_)))
        .map(|(p, _)| p)
        .collect();
    assert_eq!(written, on_disk);
    assert!(written.contains(&"capi-render.lock".to_string()));
    assert!(strings(&v["unchanged"]).is_empty() && strings(&v["removed"]).is_empty());

    // Again: nothing written (the lock's bytes do not change either).
    let v = json(&qs(&out, &["--output-format", "json"]));
    assert!(strings(&v["written"]).is_empty(), "{v:#}");
    assert_eq!(strings(&v["unchanged"]), on_disk);
    // Without JSON the kept Clusters' files are counted, not listed: the same number.
    let o = qs(&out, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let summary = format!("0 written, {} unchanged, 0 removed", on_disk.len());
    assert!(text(&o.stderr).contains(&summary), "{}", text(&o.stderr));

    // Up to date: exit 0, an empty list.
    let o = qs(&out, &["--check", "--output-format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json(&o);
    check_shape(&v, "CheckResult", &[]);
    assert_eq!(v["upToDate"], true);
    assert!(changes(&v["files"]).is_empty());

    // Drift: one file edited, one deleted, one owned file the render would remove.
    let md = on_disk
        .iter()
        .find(|p| p.contains("/machinedeployment-"))
        .unwrap()
        .clone();
    let gone = on_disk
        .iter()
        .find(|p| p.contains("/cluster-dev.yaml"))
        .unwrap()
        .clone();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(out.join(&md))
        .unwrap();
    std::io::Write::write_all(&mut f, b"# edited\n").unwrap();
    std::fs::remove_file(out.join(&gone)).unwrap();
    // The incremental check looks at a kept Cluster's directories, not its files;
    // `--full` compares every file.
    let o = qs(&out, &["--check", "--output-format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let o = qs(&out, &["--check", "--full", "--output-format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v = json(&o);
    check_shape(&v, "CheckResult", &[]);
    assert_eq!(v["upToDate"], false);
    let mut want = vec![
        (md.clone(), "changed".into()),
        (gone.clone(), "added".into()),
    ];
    want.sort();
    assert_eq!(changes(&v["files"]), want);
    // The text form names the same files, in its diff headers.
    let t = qs(&out, &["--check", "--full"]);
    assert_eq!(t.status.code(), Some(1));
    let diff = text(&t.stdout);
    assert!(diff.starts_with("--- "), "{diff}");
    assert!(diff.contains(&format!("+++ b/{md}\n")) && diff.contains(&format!("+++ b/{gone}\n")));

    // A unit that is no longer rendered: its files would be removed, but not the one
    // edited since it was written (an error, exit 2, naming it) until it is deleted.
    let providers_only = || {
        run(&[
            "--config",
            "fixtures/quickstart/clusterctl.yaml",
            "render",
            "-f",
            "fixtures/quickstart/providers",
            "-o",
            out.to_str().unwrap(),
            "--check",
            "--output-format",
            "json",
        ])
    };
    let o = providers_only();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains(&md), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
    std::fs::remove_file(out.join(&md)).unwrap();
    let o = providers_only();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let files = changes(&json(&o)["files"]);
    assert!(files
        .iter()
        .any(|(p, s)| p.starts_with("clusters/default/prod/") && s == "removed"));
    // The deleted files are neither planned nor on disk any more: not a change.
    assert!(files.iter().all(|(p, _)| p != &gone && p != &md));

    // An error: exit 2 and nothing on stdout.
    let o = run(&[
        "render",
        "-f",
        "does-not-exist.yaml",
        "-o",
        out.to_str().unwrap(),
        "--check",
        "--output-format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
}

#[test]
fn json_conflicts_with_stdout() {
    let mut a: Vec<&str> = QS.to_vec();
    a.extend(["--stdout", "--output-format", "json"]);
    let o = run(&a);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty());
}

/// The quick-start Clusters after a change: `prod` scaled, `dev` removed, `qa` added.
fn changed_clusters(dir: &Path) {
    let src =
        std::fs::read_to_string(root().join("fixtures/quickstart/clusters/clusters.yaml")).unwrap();
    let docs: Vec<&str> = src.split("\n---\n").collect();
    let dev = docs
        .iter()
        .find(|d| d.contains("name: dev\n"))
        .expect("quick start has a dev Cluster");
    let prod = docs
        .iter()
        .find(|d| d.contains("name: prod\n"))
        .expect("quick start has a prod Cluster");
    assert!(prod.contains("replicas: 3"), "{prod}");
    let qa = dev.replace("name: dev\n", "name: qa\n");
    let prod = prod.replace("replicas: 3", "replicas: 5");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(
        root().join("fixtures/quickstart/clusters/class.yaml"),
        dir.join("class.yaml"),
    )
    .unwrap();
    std::fs::write(dir.join("clusters.yaml"), format!("{prod}\n---\n{qa}\n")).unwrap();
}

#[test]
fn diff_reports_units_and_objects_as_json() {
    let s = Scratch::new("json-diff");
    let after = s.path().join("after");
    changed_clusters(&after);
    let base = "fixtures/quickstart/clusters";
    let o = run(&[
        "diff",
        "-f",
        base,
        "--against",
        after.to_str().unwrap(),
        "--output-format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v = json(&o);
    check_shape(&v, "DiffResult", &[]);
    assert_eq!(v["differs"], true);
    let units: Vec<(String, String)> = v["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["unit"].as_str().unwrap().to_string(),
                u["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        units,
        [
            ("clusters/default/dev".to_string(), "removed".to_string()),
            ("clusters/default/prod".into(), "changed".into()),
            ("clusters/default/qa".into(), "added".into()),
        ]
    );
    for u in v["units"].as_array().unwrap() {
        let unit = u["unit"].as_str().unwrap();
        let objs = changes(&u["objects"]);
        assert!(!objs.is_empty(), "{unit}");
        for (p, st) in &objs {
            assert!(p.starts_with(&format!("{unit}/")), "{p}");
            match u["status"].as_str().unwrap() {
                "changed" => assert!(["changed", "added", "removed"].contains(&st.as_str())),
                other => assert_eq!(st, other, "{p}"),
            }
        }
    }
    // The scaled Cluster: the MachineDeployment among its changed objects.
    let prod = &v["units"][1]["objects"];
    assert!(changes(prod)
        .iter()
        .any(|(p, s)| p.contains("/machinedeployment-prod-md-0-") && s == "changed"));

    // The text forms list the same units and the same object paths.
    let names = run(&[
        "diff",
        "-f",
        base,
        "--against",
        after.to_str().unwrap(),
        "--name-only",
    ]);
    assert_eq!(names.status.code(), Some(1));
    let want: Vec<String> = units.iter().map(|(u, _)| u.clone()).collect();
    assert_eq!(text(&names.stdout).lines().collect::<Vec<_>>(), want);
    let diff = run(&["diff", "-f", base, "--against", after.to_str().unwrap()]);
    let diff = text(&diff.stdout);
    for u in v["units"].as_array().unwrap() {
        for (p, _) in changes(&u["objects"]) {
            assert!(
                diff.contains(&format!("/{p}\n")),
                "{p} not in the text diff"
            );
        }
    }

    // No difference: exit 0, an empty list.
    let o = run(&[
        "diff",
        "-f",
        base,
        "--against",
        base,
        "--output-format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json(&o);
    check_shape(&v, "DiffResult", &[]);
    assert_eq!(v["differs"], false);
    assert!(v["units"].as_array().unwrap().is_empty());
}

#[test]
fn bundle_verify_reports_counts_and_problems_as_json() {
    let s = Scratch::new("json-bundle");
    let b = s.path().join("bundle");
    let o = run(&[
        "--config",
        "fixtures/quickstart/clusterctl.yaml",
        "bundle",
        "-f",
        "fixtures/quickstart/providers",
        "-o",
        b.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let verify = |extra: &[&str]| {
        let mut a = vec!["bundle", "verify", b.to_str().unwrap()];
        a.extend(extra);
        run(&a)
    };
    let o = verify(&["--output-format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json(&o);
    check_shape(&v, "BundleVerifyResult", &[]);
    assert_eq!(v["ok"], true);
    assert_eq!(v["configMaps"], 3);
    assert!(strings(&v["problems"]).is_empty());
    // The counts are the text form's.
    let t = text(&verify(&[]).stdout);
    assert_eq!(
        t,
        format!(
            "OK: {} files, {} ConfigMaps, {} OCI layouts\n",
            v["files"], v["configMaps"], v["ociLayouts"]
        )
    );

    std::fs::write(b.join("extra"), "x").unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(b.join("images.txt"))
        .unwrap();
    std::io::Write::write_all(&mut f, b"x\n").unwrap();
    let o = verify(&["--output-format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    check_shape(&v, "BundleVerifyResult", &[]);
    assert_eq!(v["ok"], false);
    let problems = strings(&v["problems"]);
    assert_eq!(
        problems[..2],
        [
            "extra: not listed in SHA256SUMS",
            "images.txt: checksum mismatch"
        ]
    );
    // And the list is not what the bundle renders.
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems[2].starts_with("images.txt: differs from what the bundle's configmaps/ and repository/ render: extra lines: \"x\"; first difference at line "),
        "{problems:?}"
    );
    let t = verify(&[]);
    assert_eq!(t.status.code(), Some(1));
    assert_eq!(
        text(&t.stdout).lines().collect::<Vec<_>>(),
        problems.iter().map(String::as_str).collect::<Vec<_>>()
    );
}

/// `topology plan` of a fixture case (the corpus files its `corpus.txt` names, then
/// every file of the directory) into a new scratch directory; returns (JSON output,
/// text output run into a second directory), or `None` without the corpus.
fn plan_case(case: &str) -> Option<(Output, Output, Scratch)> {
    let dir = root().join("fixtures/topology").join(case);
    let mut files: Vec<String> = Vec::new();
    if let Ok(list) = std::fs::read_to_string(dir.join("corpus.txt")) {
        for l in list
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            files.push(common::corpus_path(l)?.to_str().unwrap().to_string());
        }
    }
    let mut own: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    own.sort();
    files.extend(own);
    let s = Scratch::new("json-plan");
    for d in ["json", "text"] {
        std::fs::create_dir(s.path().join(d)).unwrap();
    }
    let go = |d: &str, extra: &[&str]| {
        let mut a = vec!["--color", "never", "topology", "plan"];
        for f in &files {
            a.extend(["-f", f.as_str()]);
        }
        let out = s.path().join(d);
        let out = out.to_str().unwrap().to_string();
        a.extend(["-o", &out]);
        a.extend(extra);
        run(&a)
    };
    let j = go("json", &["--output-format", "json"]);
    let t = go("text", &[]);
    Some((j, t, s))
}

#[test]
fn topology_plan_reports_the_summary_table_as_json() {
    check_plans(&["value-variable", "pools-and-checks", "naming-strategies"]);
}

#[test]
fn topology_plan_json_on_corpus_classes() {
    check_plans(&["corpus-quick-start", "corpus-in-memory"]);
}

fn check_plans(cases: &[&str]) {
    for case in cases {
        let Some((j, t, s)) = plan_case(case) else {
            return;
        };
        assert!(j.status.success(), "{case}: {}", text(&j.stderr));
        assert!(t.status.success(), "{case}: {}", text(&t.stderr));
        let v = json(&j);
        check_shape(&v, "TopologyPlan", &[]);
        assert_eq!(
            v["outputDirectory"],
            s.path().join("json").to_str().unwrap(),
            "{case}"
        );
        // The rows are the text table's rows (NAMESPACE KIND NAME ACTION).
        let table = text(&t.stdout);
        let rows: Vec<Vec<String>> = table
            .lines()
            .skip_while(|l| !l.trim_start().starts_with("NAMESPACE"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .collect();
        let got: Vec<Vec<String>> = v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                ["namespace", "kind", "name", "action"]
                    .iter()
                    .map(|k| c[*k].as_str().unwrap().to_string())
                    .collect()
            })
            .collect();
        assert!(!got.is_empty(), "{case}");
        assert_eq!(got, rows, "{case}:\n{table}");
        let target = v["cluster"].as_str().unwrap();
        assert!(
            table.contains(&format!("Changes for Cluster \"{target}\"")),
            "{case}"
        );
        for c in strings(&v["clusters"])
            .iter()
            .chain(&strings(&v["clusterClasses"]))
        {
            assert!(table.contains(&format!(" ＊ {c}\n")), "{case}: {c}");
        }
        // `files` lists exactly what was written, and both runs wrote the same bytes.
        let mut listed = strings(&v["files"]);
        listed.sort();
        let snap = |d: &str| -> Vec<(String, common::Node)> {
            common::snapshot(&s.path().join(d))
                .into_iter()
                .filter(|(_, n)| matches!(n, common::Node::File(_)))
                .collect()
        };
        let (js, ts) = (snap("json"), snap("text"));
        let paths =
            |v: &[(String, common::Node)]| v.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
        assert_eq!(paths(&js), listed, "{case}");
        assert_eq!(paths(&ts), listed, "{case}");
        // Same bytes (the `.diff` headers name the directory, which differs).
        for ((p, a), (_, b)) in js.iter().zip(&ts) {
            assert!(p.ends_with(".diff") || a == b, "{case}: {p} differs");
        }
    }
}

#[test]
fn topology_plan_without_clusters_has_no_target() {
    let s = Scratch::new("json-plan-none");
    let o = run(&[
        "topology",
        "plan",
        "-f",
        "fixtures/topology/value-variable/class.yaml",
        "-o",
        s.path().to_str().unwrap(),
        "--output-format",
        "json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v = json(&o);
    check_shape(&v, "TopologyPlan", &[]);
    assert_eq!(v["cluster"], Value::Null);
    assert!(v["changes"].as_array().unwrap().is_empty());
    assert_eq!(strings(&v["clusterClasses"]), ["default/plain"]);
}

/// `upgrade plan --output-format json` is the `yaml` object plus the warnings; the
/// hidden `-o` of earlier releases still works.
fn upgrade_json_matches_yaml(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.extend(["-o", "json"]);
    let o = run(&a);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v = json(&o);
    check_shape(&v, "UpgradePlan", &["contractChange"]);
    let mut a = args.to_vec();
    a.extend(["--output-format", "yaml"]);
    let y = run(&a);
    assert!(y.status.success(), "{}", text(&y.stderr));
    let y = capi_render::yaml::parse_value(&text(&y.stdout)).unwrap();
    let mut body = v.clone();
    let m = body.as_object_mut().unwrap();
    m.remove("warnings");
    assert_eq!(body, y);
    v
}

#[test]
fn upgrade_plan_json_on_the_quickstart() {
    // As `render` reads the example: the synthetic providers are named by the config.
    let v = upgrade_json_matches_yaml(&[
        "--config",
        "fixtures/quickstart/clusterctl.yaml",
        "upgrade",
        "plan",
        "-f",
        "fixtures/quickstart/providers",
    ]);
    assert_eq!(v["coreContract"], "v1beta1");
    assert_eq!(v["providers"].as_array().unwrap().len(), 3);
    assert!(v.get("contractChange").is_none());
    // An unknown format is still an error (exit 1, as before).
    let o = run(&[
        "--config",
        "fixtures/quickstart/clusterctl.yaml",
        "upgrade",
        "plan",
        "-f",
        "fixtures/quickstart/providers",
        "-o",
        "xml",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
}

#[test]
fn upgrade_plan_json_on_the_corpus() {
    let Some(c) = corpus() else { return };
    let repo = c.join("repository");
    let v = upgrade_json_matches_yaml(&[
        "--repository",
        repo.to_str().unwrap(),
        "upgrade",
        "plan",
        "-f",
        "fixtures/operator/upgrade",
    ]);
    assert_eq!(v["coreContract"], "v1beta1");
    assert_eq!(v["contractChange"]["contract"], "v1beta2");
    assert_eq!(v["contractChange"]["together"].as_array().unwrap().len(), 4);
    assert_eq!(v["providers"][3]["newestInContract"], "v1.10.10");
}

#[test]
fn corpus_providers_diff_and_bundle_as_json() {
    let Some(c) = corpus() else { return };
    let repo = c.join("repository");
    let repo = repo.to_str().unwrap();
    let s = Scratch::new("json-corpus");
    // A version move of the docker provider: its unit changes, the others do not.
    let before = root().join("fixtures/operator/upgrade/providers.yaml");
    let src = std::fs::read_to_string(&before).unwrap();
    let docs: Vec<String> = src
        .split("\n---\n")
        .map(|d| {
            if d.contains("kind: InfrastructureProvider") {
                d.replace("version: v1.9.11", "version: v1.10.10")
            } else {
                d.to_string()
            }
        })
        .collect();
    let after = s.path().join("after.yaml");
    std::fs::write(&after, docs.join("\n---\n")).unwrap();
    assert_ne!(std::fs::read_to_string(&after).unwrap(), src);
    let o = run(&[
        "--repository",
        repo,
        "diff",
        "-f",
        before.to_str().unwrap(),
        "--against",
        after.to_str().unwrap(),
        "--output-format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v = json(&o);
    check_shape(&v, "DiffResult", &[]);
    let units: Vec<&str> = v["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["unit"].as_str().unwrap())
        .collect();
    assert_eq!(units, ["providers/capd-system/infrastructure-docker"]);
    assert_eq!(v["units"][0]["status"], "changed");
    assert!(changes(&v["units"][0]["objects"])
        .iter()
        .any(|(p, s)| p.contains("/deployment-capd-controller-manager") && s == "changed"));

    // A bundle of the corpus providers verifies, as JSON.
    let b = s.path().join("bundle");
    let o = run(&[
        "--repository",
        repo,
        "bundle",
        "-f",
        "fixtures/bundle/providers.yaml",
        "-o",
        b.to_str().unwrap(),
        "--oci",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = run(&[
        "bundle",
        "verify",
        b.to_str().unwrap(),
        "--output-format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json(&o);
    check_shape(&v, "BundleVerifyResult", &[]);
    assert_eq!(v["ok"], true);
    assert!(v["ociLayouts"].as_u64().unwrap() > 0);
    assert_eq!(v["ociLayouts"], v["configMaps"]);
}
