//! Our CEL: lex, parse, type-check, cost and evaluate arbitrary rules against `self`
//! (JSON after a NUL).
#![no_main]
use capi_render::topology::variables::cel::{eval, parser, value};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (rule, json) = text.split_once('\0').unwrap_or((text, "{\"a\": [1, 2.5, \"x\"]}"));
    let Ok(expr) = parser::parse(rule) else {
        return;
    };
    // The webhook's type checker and AST validators, on the same schema as the estimate.
    let d = decl();
    let _ = capi_render::topology::variables::cel::check::rule_error(rule, &d);
    let _ = capi_render::topology::variables::cel::check::message_expression_error(rule, &d);
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or(serde_json::Value::Null);
    let scope = eval::Scope::root_with_cost(vec![("self".into(), value::from_json(&v, None))], 1_000_000);
    let _ = eval::eval(&expr, &scope);
    // The static cost estimate of the same rule on a schema with every kind of node.
    let _ = capi_render::topology::variables::cel::cost::rule_cost(&expr, &d);
    let _ = capi_render::topology::variables::cel::cost::message_cost(&expr, &d);
});

fn decl() -> capi_render::topology::variables::cel::decl::Decl {
    let schema = serde_json::json!({"type": "object", "properties": {
        "a": {"type": "array", "items": {"type": "string"}},
        "b": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 63}},
        "m": {"type": "object", "additionalProperties": {"type": "integer"}},
        "n": {"type": "number"}, "i": {"type": "integer"}, "s": {"type": "string"},
        "t": {"type": "boolean"},
        "o": {"type": "object", "properties": {"x": {"type": "array", "items": {"type": "object",
            "properties": {"y": {"type": "string"}}}}}}}});
    let s = capi_render::topology::variables::schema::Schema::from_value(&schema, "fuzz").unwrap();
    capi_render::topology::variables::cel::decl::decl_of(&s, true).unwrap()
}
