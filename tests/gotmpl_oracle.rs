//! Agreement of capi_render::gotemplate with Go's text/template + sprig v3.3.0
//! (cluster-api v1.10.10's `valueFrom.template` engine).
//!
//! golden/gotmpl/*.json are written by conformance/oracle/cmd/gotmplref
//! (`conformance/gotmpl.sh update`) from fixtures/gotmpl/*.json and a generated
//! set. No Go is needed here. Every case must give Go's output or Go's error
//! text exactly, unless it is listed in fixtures/gotmpl/differences.txt
//! (`case-name<TAB>reason`); a listed case that now agrees fails the test too,
//! so the list stays honest.

use std::collections::BTreeMap;

use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    name: String,
    template: String,
    data: serde_json::Value,
    output: Option<String>,
    output_hex: Option<String>,
    error: Option<String>,
}

fn root() -> String {
    env!("CARGO_MANIFEST_DIR").to_string()
}

fn load_cases() -> Vec<(String, Case)> {
    let dir = format!("{}/golden/gotmpl", root());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{f:?}: {e}"));
        let cases: Vec<Case> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{f:?}: {e}"));
        let stem = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.extend(cases.into_iter().map(|c| (stem.clone(), c)));
    }
    out
}

fn differences() -> BTreeMap<String, String> {
    let path = format!("{}/fixtures/gotmpl/differences.txt", root());
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, v) = l.split_once('\t').unwrap_or((l, ""));
            (k.trim().to_string(), v.trim().to_string())
        })
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn expected(c: &Case) -> String {
    match (&c.output, &c.output_hex, &c.error) {
        (_, _, Some(e)) => format!("error: {e}"),
        (Some(o), _, _) => format!("output: {o}"),
        (_, Some(h), _) => format!("hex: {h}"),
        _ => "nothing recorded".into(),
    }
}

fn ours(c: &Case) -> String {
    match capi_render::gotemplate::execute(&c.template, &c.data) {
        Ok(o) if c.output_hex.is_some() => format!("hex: {}", hex(o.as_bytes())),
        Ok(o) => format!("output: {o}"),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn gotmpl_matches_go() {
    let cases = load_cases();
    let known = differences();
    assert!(cases.len() > 1000, "too few golden cases: {}", cases.len());
    let mut per_file: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut unexpected = Vec::new();
    let mut stale = Vec::new();
    for (file, c) in &cases {
        let key = format!("{file}/{}", c.name);
        if std::env::var_os("GOTMPL_TRACE").is_some() {
            eprintln!("case {key}");
        }
        let (want, got) = (expected(c), ours(c));
        let same = want == got;
        let e = per_file.entry(file.clone()).or_default();
        e.0 += 1;
        e.1 += usize::from(same);
        match (same, known.contains_key(&key)) {
            (false, false) => unexpected.push(format!(
                "{key}\n  template: {:?}\n  data: {}\n  go:   {want:?}\n  ours: {got:?}",
                c.template, c.data
            )),
            (true, true) => stale.push(key),
            _ => {}
        }
    }
    let total: usize = per_file.values().map(|x| x.0).sum();
    let same: usize = per_file.values().map(|x| x.1).sum();
    for (f, (n, s)) in &per_file {
        eprintln!("gotmpl {f}: {s}/{n} identical");
    }
    eprintln!(
        "gotmpl total: {same}/{total} identical ({:.2}%), {} listed differences",
        100.0 * same as f64 / total as f64,
        known.len()
    );
    if let Ok(path) = std::env::var("GOTMPL_MISMATCHES") {
        let _ = std::fs::write(path, unexpected.join("\n"));
    }
    assert!(
        unexpected.is_empty(),
        "{} cases differ from Go and are not in fixtures/gotmpl/differences.txt; first:\n{}",
        unexpected.len(),
        unexpected
            .iter()
            .take(15)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        stale.is_empty(),
        "listed differences that now agree with Go (remove them): {stale:?}"
    );
}
