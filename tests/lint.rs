//! `capi-render lint`: every rule has a failing fixture that reports exactly that rule
//! and a passing one that reports nothing (`fixtures/lint/<rule>/{fail,pass}`: a folder
//! with YAML files at its top is linted as `-f` inputs, else as `--provider`); the
//! release corpus reports exactly the findings listed, with why each is real, in
//! `fixtures/lint/corpus-expected.txt`; the book documents every rule (docs/src/reference/lint.md); SARIF and
//! JSON output and exit codes through the binary; symbolic links are not followed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use capi_render::lint::{self, Finding, RULES};

mod common;
use common::{bin, corpus, corpus_path, root};

fn fixtures() -> PathBuf {
    root().join("fixtures/lint")
}

fn has_top_yaml(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .any(|e| e.path().extension().is_some_and(|x| x == "yaml"))
}

fn lint_fixture(dir: &Path) -> Vec<Finding> {
    if has_top_yaml(dir) {
        lint::lint_files(&[dir.to_path_buf()]).unwrap()
    } else {
        lint::lint_provider(dir).unwrap()
    }
}

#[test]
fn every_rule_has_a_failing_and_a_passing_fixture() {
    let mut dirs = BTreeSet::new();
    for e in std::fs::read_dir(fixtures()).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            dirs.insert(e.file_name().into_string().unwrap());
        }
    }
    let ids: BTreeSet<String> = RULES.iter().map(|r| r.id.to_string()).collect();
    assert_eq!(
        dirs, ids,
        "fixtures/lint/<rule-id> for every rule, and no other"
    );
    for id in &ids {
        let fail = fixtures().join(id).join("fail");
        let got: BTreeSet<&str> = lint_fixture(&fail).iter().map(|f| f.rule).collect();
        assert_eq!(got, BTreeSet::from([id.as_str()]), "{}", fail.display());
        let pass = fixtures().join(id).join("pass");
        let got = lint_fixture(&pass);
        assert!(got.is_empty(), "{}: {got:#?}", pass.display());
    }
}

fn line(root: &str, f: &Finding) -> String {
    format!(
        "{root} {} {} {} {} {}",
        f.severity.as_str(),
        f.rule,
        f.file,
        f.document.map(|d| d.to_string()).unwrap_or("-".into()),
        if f.path.is_empty() { "-" } else { &f.path }
    )
}

#[test]
fn corpus_reports_exactly_the_documented_findings() {
    let Some(c) = corpus() else { return };
    let Some(_) = corpus_path("stress/repository") else {
        return;
    };
    let want: Vec<String> = std::fs::read_to_string(fixtures().join("corpus-expected.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    let mut got = Vec::new();
    for r in ["repository", "e2e-repository", "stress/repository"] {
        for f in lint::lint_provider(&c.join(r)).unwrap() {
            got.push(line(r, &f));
        }
    }
    assert_eq!(got, want);
    // Every release of the corpus passes (no error) but v0.3.25's.
    for l in got.iter().filter(|l| l.split(' ').nth(1) == Some("error")) {
        assert!(l.contains("/v0.3.25/"), "{l}");
    }
}

#[test]
fn book_documents_every_rule() {
    let page = std::fs::read_to_string(root().join("docs/src/reference/lint.md")).unwrap();
    for r in RULES {
        let row = format!("| `{}` |", r.id);
        assert!(
            page.contains(&row),
            "docs/src/reference/lint.md: the rule table lacks {row}"
        );
    }
}

#[test]
fn cli_sarif_json_and_exit_codes() {
    let fail = fixtures().join("crd-name/fail");
    let o = bin()
        .args(["lint", "--provider"])
        .arg(&fail)
        .args(["--output-format", "sarif"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["version"], "2.1.0");
    assert!(s["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run = &s["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "capi-render");
    assert_eq!(
        run["tool"]["driver"]["rules"].as_array().unwrap().len(),
        RULES.len()
    );
    let r = &run["results"][0];
    assert_eq!(r["ruleId"], "crd-name");
    assert_eq!(r["level"], "error");
    let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        uri.ends_with("infrastructure-demo/v0.1.0/infrastructure-components.yaml"),
        "{uri}"
    );
    assert!(r["locations"][0]["physicalLocation"]["region"]["startLine"]
        .as_u64()
        .is_some());

    // Relative paths stay relative.
    let o = bin()
        .current_dir(fixtures())
        .args(["lint", "--provider", "crd-name/fail", "-o", "json"])
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["kind"], "LintResult");
    assert_eq!(
        j["findings"][0]["file"],
        "crd-name/fail/infrastructure-demo/v0.1.0/infrastructure-components.yaml"
    );

    // Warnings and notes only: exit 0; text by default.
    let o = bin()
        .args(["lint", "--provider"])
        .arg(fixtures().join("components-manager/fail"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let t = String::from_utf8(o.stdout).unwrap();
    assert!(t.contains("warning[components-manager]"), "{t}");
    assert!(t.ends_with("0 error(s), 1 warning(s), 0 note(s)\n"), "{t}");

    // A folder that is not there: exit 2.
    let o = bin()
        .args(["lint", "--provider", "/nonexistent/lint/dir"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
}

#[cfg(unix)]
#[test]
fn symbolic_links_are_findings_not_followed() {
    let tmp = common::Scratch::new("lint-symlink");
    let rel = tmp.path().join("addon-demo/v0.1.0");
    std::fs::create_dir_all(&rel).unwrap();
    let src = fixtures().join("file-invalid/pass/addon-demo/v0.1.0");
    for n in ["metadata.yaml", "addon-components.yaml"] {
        std::fs::copy(src.join(n), rel.join(n)).unwrap();
    }
    let secret = tmp.path().join("outside.yaml");
    std::fs::write(&secret, "kind: Secret\nstringData: {token: s3cr3t}\n").unwrap();
    std::os::unix::fs::symlink(&secret, rel.join("cluster-template.yaml")).unwrap();
    let got = lint::lint_provider(tmp.path()).unwrap();
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(got[0].rule, "file-invalid");
    assert_eq!(got[0].file, "addon-demo/v0.1.0/cluster-template.yaml");
    assert!(!format!("{got:?}").contains("s3cr3t"));
}

#[test]
fn release_and_provider_folders_as_well_as_repositories() {
    let repo = fixtures().join("crd-name/fail");
    let rel = lint::lint_provider(&repo.join("infrastructure-demo/v0.1.0")).unwrap();
    assert_eq!(rel.len(), 1, "{rel:#?}");
    assert_eq!(rel[0].file, "infrastructure-components.yaml");
    let prov = lint::lint_provider(&repo.join("infrastructure-demo")).unwrap();
    assert_eq!(prov[0].file, "v0.1.0/infrastructure-components.yaml");
    let all = lint::lint_provider(&repo).unwrap();
    assert_eq!(
        all[0].file,
        "infrastructure-demo/v0.1.0/infrastructure-components.yaml"
    );
    assert_eq!(all[0].rule, "crd-name");
}

#[test]
fn an_unparsable_metadata_or_components_file_is_reported_once() {
    let tmp = common::Scratch::new("lint-broken");
    let rel = tmp.path().join("addon-demo/v0.1.0");
    std::fs::create_dir_all(&rel).unwrap();
    std::fs::write(rel.join("metadata.yaml"), "releaseSeries: [\n").unwrap();
    std::fs::write(rel.join("addon-components.yaml"), "kind: [\n").unwrap();
    let got = lint::lint_provider(tmp.path()).unwrap();
    let rules: Vec<(&str, &str)> = got.iter().map(|f| (f.rule, f.file.as_str())).collect();
    assert_eq!(
        rules,
        [
            ("file-invalid", "addon-demo/v0.1.0/addon-components.yaml"),
            ("file-invalid", "addon-demo/v0.1.0/metadata.yaml")
        ]
    );
}
