//! Agreement with the real drone/envsubst and clusterctl SimpleProcessor.
//!
//! golden/envsubst/*.json are written by conformance/oracle/cmd/envsubstref
//! (regenerate with `conformance/regen-envsubst.sh golden`). No Go is needed
//! here.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use capi_render::envsubst::{self, gostr};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    id: usize,
    kind: String,
    input: String,
    vars: BTreeMap<String, String>,
    parse_error: Option<String>,
    output: Option<String>,
    output_hex: Option<String>,
    panic: Option<String>,
    variables: Option<Vec<String>>,
    variable_map: Option<BTreeMap<String, Option<String>>>,
    variables_error: Option<String>,
    process_output: Option<String>,
    process_output_hex: Option<String>,
    process_error: Option<String>,
    process_panic: Option<String>,
}

fn load<T: for<'de> Deserialize<'de>>(file: &str) -> T {
    let path = format!("{}/golden/envsubst/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

/// A Go result rendered comparably: `ok:<text>`, `hex:<bytes>`, `error:..`, `panic:..`.
fn expected(
    text: &Option<String>,
    hx: &Option<String>,
    err: &Option<String>,
    panic: &Option<String>,
) -> String {
    match (text, hx, err, panic) {
        (_, _, Some(e), _) => format!("error:{e}"),
        (_, _, _, Some(p)) => format!("panic:{p}"),
        (Some(t), _, _, _) => format!("ok:{t}"),
        (_, Some(h), _, _) => format!("hex:{h}"),
        _ => "nothing recorded".into(),
    }
}

fn bytes_result(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(t) => format!("ok:{t}"),
        Err(_) => format!("hex:{}", hex(b)),
    }
}

fn drone_got(c: &Case, lookup: envsubst::Lookup) -> String {
    match envsubst::parse(&c.input) {
        Err(e) => format!("error:{e}"),
        Ok(t) => match t.execute_bytes(lookup) {
            Ok(b) => bytes_result(&b),
            Err(p) => format!("panic:{}", p.message()),
        },
    }
}

fn process_got(c: &Case, lookup: envsubst::Lookup) -> String {
    match envsubst::process_bytes(&c.input, lookup) {
        Ok(b) => bytes_result(&b),
        Err(e) if e.message().starts_with("runtime error:") => format!("panic:{e}"),
        Err(e) => format!("error:{e}"),
    }
}

fn variables_got(c: &Case) -> String {
    match (
        envsubst::get_variables(&c.input),
        envsubst::get_variable_map(&c.input),
    ) {
        (Ok(v), Ok(m)) => format!("{v:?} {m:?}"),
        (Err(e), _) | (_, Err(e)) => format!("error:{e}"),
    }
}

fn variables_expected(c: &Case) -> String {
    match (&c.variables_error, &c.variables, &c.variable_map) {
        (Some(e), _, _) => format!("error:{e}"),
        (None, v, m) => format!(
            "{:?} {:?}",
            v.clone().unwrap_or_default(),
            m.clone().unwrap_or_default()
        ),
    }
}

#[test]
fn agrees_with_drone_and_clusterctl_on_every_case() {
    let cases: Vec<Case> = load("cases.json");
    assert!(cases.len() >= 2000, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for c in &cases {
        let lookup = |k: &str| c.vars.get(k).cloned();
        let checks = [
            (
                "drone",
                expected(&c.output, &c.output_hex, &c.parse_error, &c.panic),
                drone_got(c, &lookup),
            ),
            ("variables", variables_expected(c), variables_got(c)),
            (
                "process",
                expected(
                    &c.process_output,
                    &c.process_output_hex,
                    &c.process_error,
                    &c.process_panic,
                ),
                process_got(c, &lookup),
            ),
        ];
        for (what, want, got) in checks {
            if want != got {
                failures.push(format!(
                    "case {} ({}) {what}\n  input:    {:?}\n  vars:     {:?}\n  expected: {want:?}\n  got:      {got:?}",
                    c.id, c.kind, c.input, c.vars
                ));
            }
        }
    }
    let checked = cases.len() * 3;
    assert!(
        failures.is_empty(),
        "{} of {checked} checks disagree ({:.2}% agreement); first ones:\n{}",
        failures.len(),
        100.0 * (checked - failures.len()) as f64 / checked as f64,
        failures
            .iter()
            .take(15)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    eprintln!("{} cases, {checked} checks, 100% agreement", cases.len());
}

#[derive(Deserialize)]
struct UnicodeData {
    go_unicode_version: String,
    letter: Vec<(u32, u32)>,
    digit: Vec<(u32, u32)>,
    to_upper: Vec<(u32, u32)>,
    to_lower: Vec<(u32, u32)>,
}

fn in_ranges(ranges: &[(u32, u32)], c: u32) -> bool {
    let i = ranges.partition_point(|&(lo, _)| lo <= c);
    i > 0 && ranges[i - 1].1 >= c
}

#[test]
fn unicode_tables_match_go_for_every_rune() {
    let u: UnicodeData = load("unicode.json");
    let upper: BTreeMap<u32, u32> = u.to_upper.into_iter().collect();
    let lower: BTreeMap<u32, u32> = u.to_lower.into_iter().collect();
    let mut bad = Vec::new();
    for c in (0..=0x10FFFF).filter_map(char::from_u32) {
        let n = u32::from(c);
        let checks = [
            ("IsLetter", gostr::is_letter(c), in_ranges(&u.letter, n)),
            ("IsDigit", gostr::is_digit(c), in_ranges(&u.digit, n)),
            (
                "ToUpper",
                u32::from(gostr::to_upper(c)) == *upper.get(&n).unwrap_or(&n),
                true,
            ),
            (
                "ToLower",
                u32::from(gostr::to_lower(c)) == *lower.get(&n).unwrap_or(&n),
                true,
            ),
        ];
        for (what, got, want) in checks {
            if got != want {
                bad.push(format!("{what}(U+{n:04X})"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "Go unicode {} disagrees on {} runes: {:?}",
        u.go_unicode_version,
        bad.len(),
        &bad[..bad.len().min(20)]
    );
}
