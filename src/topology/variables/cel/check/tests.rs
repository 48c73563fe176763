use super::*;
use crate::topology::variables::cel::decl::decl_of;
use crate::topology::variables::schema::Schema;
use serde_json::{json, Value};

fn root(schema: Value) -> Decl {
    decl_of(&Schema::from_value(&schema, "s").unwrap(), true).unwrap()
}

fn s1() -> Decl {
    root(json!({"type": "object", "properties": {
        "s": {"type": "string"}, "i": {"type": "integer"}, "b": {"type": "boolean"},
        "l": {"type": "array", "items": {"type": "string"}},
        "m": {"type": "object", "additionalProperties": {"type": "integer"}},
        "o": {"type": "object", "properties": {"a": {"type": "string"}}},
        "ios": {"x-kubernetes-int-or-string": true}}}))
}

#[test]
fn well_typed_rules_pass() {
    let d = s1();
    for rule in [
        "self.s == 'x'",
        "self.l.all(x, x.startsWith('a'))",
        "self.m.exists(k, self.m[k] > 1)",
        "has(self.o.a) && self.o.a.size() < 3",
        "self.l.map(x, x.size()).sum() > 2 || self.l.filter(x, x == 'a').size() == 1",
        "self.ios == 1 || self.ios == 'a'",
        "self.i < 2.5 && [1, 2].exists_one(v, v == self.i)",
        "!!self.b",
        "self.s.matches('^a') ? true : false",
        "type(self.i) == int",
    ] {
        assert_eq!(rule_error(rule, &d), None, "{rule}");
    }
}

#[test]
fn errors_read_as_cel_go_prints_them() {
    let d = s1();
    assert_eq!(
        rule_error("self.nope == 1", &d).unwrap(),
        "compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^"
    );
    assert_eq!(
        rule_error("self.s + 1 == 'a'", &d).unwrap(),
        "compilation failed: ERROR: <input>:1:8: found no matching overload for '_+_' applied to '(string, int)'\n | self.s + 1 == 'a'\n | .......^"
    );
    assert_eq!(
        rule_error("self.s.size()", &d).unwrap(),
        "cel expression must evaluate to a bool"
    );
    assert_eq!(
        message_expression_error("self.i", &d).unwrap(),
        "messageExpression must evaluate to a string"
    );
    assert!(rule_error("self.l.all(x, x)", &d)
        .unwrap()
        .contains("expected type 'bool' but found 'string'"));
}

#[test]
fn what_it_cannot_follow_is_unknown() {
    let d = s1();
    for rule in [
        "self.?s",
        "cel.bind(x, 1, x > 0)",
        "google.protobuf.Duration{}",
        "has(1)",
    ] {
        assert_eq!(check(rule, &d), None, "{rule}");
    }
}

#[test]
fn wide_characters_get_wide_dots() {
    let d = s1();
    let e = rule_error("'é' + self.x == ''", &d).unwrap();
    assert!(
        e.ends_with(" | 'é' + self.x == ''\n | .\u{ff0e}........^"),
        "{e}"
    );
}

/// cel-go's own verdicts, printed by the Go program in `conformance/celgo` (see the
/// file's header).
const CELGO: &str = include_str!("testdata/celgo-check.jsonl");

/// Every case where the checker has a verdict: it is cel-go's, word for word, apart from
/// the number in the name of `self`'s type. Where it has none, cel-go may reject the
/// rule (it is then accepted as before), but most cases must have one.
#[test]
fn verdicts_match_cel_go() {
    let mut schemas = std::collections::BTreeMap::new();
    let (mut known, mut unknown, mut mismatches) = (0, Vec::new(), Vec::new());
    for line in CELGO.lines().filter(|l| !l.starts_with('#')) {
        let case: Value = serde_json::from_str(line).unwrap();
        if let Some(name) = case["define"].as_str() {
            schemas.insert(name.to_string(), root(case["schema"].clone()));
            continue;
        }
        let d = &schemas[case["schema"].as_str().unwrap()];
        let rule = case["rule"].as_str().unwrap();
        let ours = match case["messageExpression"].as_str() {
            Some(m) => check(rule, d).map(|_| message_expression_error(m, d)),
            None => check(rule, d).map(|_| rule_error(rule, d)),
        };
        let Some(ours) = ours.filter(|_| check_message(&case, d)) else {
            unknown.push(rule.to_string());
            continue;
        };
        known += 1;
        let want = case["error"].as_str().map(normalize_self_type);
        if ours.as_deref().map(normalize_self_type) != want {
            mismatches.push(format!("{rule}\n  ours: {ours:?}\n  go:   {want:?}"));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    eprintln!(
        "{known} with a verdict, {} unknown: {unknown:#?}",
        unknown.len()
    );
    assert!(
        known * 10 >= (known + unknown.len()) * 9,
        "{known} known, {} unknown",
        unknown.len()
    );
}

fn check_message(case: &Value, d: &Decl) -> bool {
    case["messageExpression"]
        .as_str()
        .is_none_or(|m| check(m, d).is_some())
}

fn normalize_self_type(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("selfType") {
        out.push_str(&rest[..i + 8]);
        rest = rest[i + 8..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push('N');
    }
    out + rest
}
