use super::*;
use crate::topology::variables::cel::decl::decl_of;
use crate::topology::variables::cel::parser::parse;
use crate::topology::variables::schema::Schema;
use serde_json::Value;

/// cel-go's own estimates, printed by a Go program against the module cache (see the
/// file's header).
const CELGO: &str = include_str!("testdata/celgo-costs.jsonl");

fn root_decl(schema: &Value) -> Decl {
    decl_of(&Schema::from_value(schema, "s").unwrap(), true).unwrap()
}

#[test]
fn estimates_match_cel_go_where_known() {
    let mut unknown = Vec::new();
    let mut known = 0;
    for line in CELGO.lines().filter(|l| !l.starts_with('#')) {
        let case: Value = serde_json::from_str(line).unwrap();
        let d = root_decl(&case["schema"]);
        let rule = case["rule"].as_str().unwrap();
        let ours = rule_cost(&parse(rule).unwrap(), &d);
        let msg = case["messageExpression"].as_str();
        let ours_msg = msg.map(|m| message_cost(&parse(m).unwrap(), &d));
        if case.get("error").is_some() {
            assert!(
                ours.is_none() || ours_msg.is_some_and(|m| m.is_none()),
                "{line}"
            );
            continue;
        }
        let want = case["cost"].as_u64();
        match ours {
            Some(c) => {
                assert_eq!(Some(c), want, "rule {rule}");
                known += 1;
            }
            None => unknown.push(rule.to_string()),
        }
        if let (Some(Some(m)), Some(want)) = (ours_msg, case["messageCost"].as_u64()) {
            assert_eq!(m, want, "messageExpression {msg:?}");
        }
    }
    eprintln!("unknown: {unknown:#?}");
    assert!(known >= 100, "{known} known, unknown: {unknown:?}");
}

#[test]
fn cardinality_of_the_rule_node_comes_from_its_minimum_size() {
    for line in CELGO.lines().filter(|l| !l.starts_with('#')) {
        let case: Value = serde_json::from_str(line).unwrap();
        if let Some(c) = case["cardinality"].as_u64() {
            let d = root_decl(&case["schema"]);
            assert_eq!(
                budget::cardinality(None, d.min_serialized_size),
                c,
                "{line}"
            );
        }
    }
}

#[test]
fn unknown_constructs_are_not_costed() {
    let d = root_decl(&serde_json::json!({"type": "object", "properties": {
        "s": {"type": "string"}, "ios": {"x-kubernetes-int-or-string": true}}}));
    for rule in [
        "self.s.isQuantity()",
        "self.ios == 'x'",
        "self.nope == 'x'",
        "self.s == null",
        "self.s",
        "[1, 'a'].size() > 0",
        "url(self.s).getHost() == 'x'",
    ] {
        assert_eq!(rule_cost(&parse(rule).unwrap(), &d), None, "{rule}");
    }
}
