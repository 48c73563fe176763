//! The typed round trip against goldens written by the Go reference
//! (`conformance/oracle/cmd/typedref`, built once per k8s.io release a reference tool is
//! built on; regenerate with `conformance/regen-typed.sh golden`): `golden/typed/` for
//! v0.32.3 (clusterctl v1.10.10), `golden/typed-v0.35.8/` (cluster-api-operator v0.29.0),
//! `golden/typed-v0.36.3/` (clusterctl v1.14.2), each against our model of that release.
//!
//! * `golden/typed*/<name>.json` — one record per document of `fixtures/typed/<name>.yaml`:
//!   the round-tripped object (typed JSON: integers vs floats distinguished), the error,
//!   or `skipped` for kinds clusterctl does not round trip.
//! * `golden/typed*/corpus.json` — sha256 of the typed JSON of every round-tripped object
//!   in every `*components*.yaml` of the corpus (`$CAPI_CORPUS`, default
//!   `../shared/corpus`); skipped with a note when the corpus is absent.

use std::path::{Path, PathBuf};

use capi_render::typed;
use capi_render::typed::K8s;
use capi_render::yaml::parse_documents;
use serde_json::Value;
use sha2::{Digest, Sha256};

mod common;

/// Each release's golden directory and our model of it.
const RELEASES: [(&str, K8s); 3] = [
    ("typed", K8s::V0_32),
    ("typed-v0.35.8", K8s::V0_35),
    ("typed-v0.36.3", K8s::V0_36),
];

fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Compare one fixture file with its golden in `dir`, round-tripped in `release`'s types;
/// returns (cases, failures).
fn check_fixture(name: &str, dir: &str, release: K8s) -> (usize, Vec<String>) {
    let root = crate_root();
    let input = read(&root.join(format!("fixtures/typed/{name}.yaml")));
    let golden: Value =
        serde_json::from_str(&read(&root.join(format!("golden/{dir}/{name}.json"))))
            .expect("golden");
    let golden = golden.as_array().expect("golden array");
    let docs = parse_documents(&input).expect("fixture parses");
    assert_eq!(docs.len(), golden.len(), "{name}: document count");
    let mut failures = Vec::new();
    for (doc, want) in docs.iter().zip(golden) {
        let idx = &want["index"];
        let av = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let kind = doc.get("kind").and_then(Value::as_str).unwrap_or("");
        if want.get("skipped").is_some() {
            if typed::is_supported(av, kind) {
                failures.push(format!(
                    "{dir}/{name}[{idx}]: Go skipped {av} {kind}, we support it"
                ));
            }
            continue;
        }
        let got = typed::round_trip_in(release, doc);
        match (got, want.get("result"), want.get("error")) {
            (Ok(v), Some(w), _) => {
                if &v != w {
                    failures.push(format!(
                        "{name}[{idx}]: result differs\n got: {}\nwant: {}",
                        serde_json::to_string(&v).unwrap_or_default(),
                        serde_json::to_string(w).unwrap_or_default()
                    ));
                }
            }
            (Err(e), _, Some(w)) => {
                if Some(e.message()) != w.as_str() {
                    failures.push(format!(
                        "{dir}/{name}[{idx}]: error {:?}, want {w}",
                        e.message()
                    ));
                }
            }
            (Ok(_), None, Some(w)) => {
                failures.push(format!("{dir}/{name}[{idx}]: no error, want {w}"))
            }
            (Err(e), Some(_), _) => failures.push(format!(
                "{name}[{idx}]: error {:?}, want a result",
                e.message()
            )),
            _ => failures.push(format!("{dir}/{name}[{idx}]: bad golden record")),
        }
    }
    (golden.len(), failures)
}

#[test]
fn fixtures_match_go() {
    let mut total = 0;
    let mut failures = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(crate_root().join("fixtures/typed"))
        .expect("fixtures/typed")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".yaml").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 7, "fixtures: {names:?}");
    for (dir, release) in RELEASES {
        for name in &names {
            let (n, f) = check_fixture(name, dir, release);
            total += n;
            failures.extend(f);
        }
    }
    assert!(total >= 150, "only {total} golden cases");
    assert!(
        failures.is_empty(),
        "{} of {total} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The typed JSON typedref hashes: sorted keys, minimal escaping, ints plain, floats in
/// shortest 'e' form with a bare exponent.
fn typed_json(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else {
                out.push_str(&format!("{:e}", n.as_f64().unwrap_or(0.0)));
            }
        }
        Value::String(s) => typed_string(s, out),
        Value::Array(a) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                typed_json(e, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, e)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                typed_string(k, out);
                out.push(':');
                typed_json(e, out);
            }
            out.push('}');
        }
    }
}

fn typed_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[test]
fn typed_json_matches_typedref_writer() {
    let mut s = String::new();
    typed_json(
        &serde_json::json!({"b": [1, 1.5, 3.0, 1e-7, "a\"\n"], "a": null}),
        &mut s,
    );
    assert_eq!(s, r#"{"a":null,"b":[1,1.5e0,3e0,1e-7,"a\"\u000a"]}"#);
}

#[test]
fn corpus_matches_go() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let mut total = 0;
    let mut failures = Vec::new();
    for (dir, release) in RELEASES {
        let (n, f) = check_corpus(&corpus, dir, release);
        assert!(n > 300, "{dir}: only {n} corpus objects");
        total += n;
        failures.extend(f);
    }
    assert!(
        failures.is_empty(),
        "{} of {total} corpus objects differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The corpus digests of `golden/<dir>/corpus.json` against our round trip in `release`'s
/// types; returns (objects, failures).
fn check_corpus(corpus: &Path, dir: &str, release: K8s) -> (usize, Vec<String>) {
    let golden: Value = serde_json::from_str(&read(
        &crate_root().join(format!("golden/{dir}/corpus.json")),
    ))
    .expect("golden");
    let files = golden.as_object().expect("object");
    let mut total = 0;
    let mut failures = Vec::new();
    for (rel, recs) in files {
        let path = corpus.join(rel);
        if !path.is_file() {
            eprintln!("note: {} absent", path.display());
            continue;
        }
        let docs = parse_documents(&read(&path)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        for rec in recs.as_array().into_iter().flatten() {
            total += 1;
            let i = rec["index"].as_u64().unwrap_or(u64::MAX) as usize;
            let Some(doc) = docs.get(i) else {
                failures.push(format!("{dir} {rel}[{i}]: no such document"));
                continue;
            };
            match (
                typed::round_trip_in(release, doc),
                rec.get("sha256"),
                rec.get("error"),
            ) {
                (Ok(v), Some(want), _) => {
                    let mut s = String::new();
                    typed_json(&v, &mut s);
                    let got: String = Sha256::digest(s.as_bytes())
                        .iter()
                        .map(|b| format!("{b:02x}"))
                        .collect();
                    if Some(got.as_str()) != want.as_str() {
                        failures.push(format!("{dir} {rel}[{i}] {}: digest differs", rec["kind"]));
                    }
                }
                (Err(e), _, Some(w)) if Some(e.message()) == w.as_str() => {}
                (got, _, _) => {
                    failures.push(format!("{dir} {rel}[{i}]: got {got:?}, golden {rec}"))
                }
            }
        }
    }
    (total, failures)
}

#[test]
fn quantities_match_go() {
    // resource.Quantity is the same in every release: one set of goldens, the others equal.
    let text = read(&crate_root().join("golden/typed/quantities.json"));
    for (dir, _) in RELEASES {
        let other = read(&crate_root().join(format!("golden/{dir}/quantities.json")));
        assert!(
            text == other,
            "golden/{dir}/quantities.json differs from v0.32.3's"
        );
    }
    let golden: Value = serde_json::from_str(&text).expect("golden");
    let mut n = 0;
    for case in golden.as_array().expect("array") {
        let input = case["in"].as_str().expect("in");
        let got = typed::quantity::canonicalize(input).map_err(str::to_string);
        let want = match case.get("out") {
            Some(o) => Ok(o.as_str().unwrap_or_default().to_string()),
            None => Err(case["error"].as_str().unwrap_or_default().to_string()),
        };
        assert_eq!(got, want, "quantity {input:?}");
        n += 1;
    }
    assert!(n > 200);
}

/// Every fixture document pushed through every supported type: errors are fine,
/// panics are not.
#[test]
fn any_object_through_any_type_does_not_panic() {
    let dir = crate_root().join("fixtures/typed");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("fixtures").flatten() {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()) != Some("yaml") {
            continue;
        }
        for doc in parse_documents(&read(&p)).expect("parses") {
            for (av, kind) in typed::supported_kinds() {
                for (_, release) in RELEASES {
                    let _ = typed::round_trip_as(release, &doc, &av, &kind);
                    n += 1;
                }
            }
        }
    }
    assert!(n > 500);
}
