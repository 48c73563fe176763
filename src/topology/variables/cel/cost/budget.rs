//! The cost budget of the ClusterClass webhook (CAPI v1.10.10
//! `clusterclass_variable_validation.go`, apiextensions v0.32.3 `CELSchemaContext`): a
//! rule's cost times how many times it can run (the schema node's cardinality) against
//! the per-expression limit, `messageExpression` costs alone against the same limit,
//! and the sum of all of a variable's costs against the per-schema limit.

use super::super::decl::{Decl, MAX_REQUEST_SIZE_BYTES};
use super::super::parser::parse;
use super::{message_cost, rule_cost};
use crate::topology::variables::field_error::{child, FieldError};
use crate::topology::variables::schema::ValidationRule;

/// `StaticEstimatedCostLimit`, per expression.
pub const EXPRESSION_LIMIT: u64 = 10_000_000;
/// `StaticEstimatedCRDCostLimit`, per variable schema.
pub const SCHEMA_LIMIT: u64 = 100_000_000;

/// `multiplyWithOverflowGuard`.
pub fn multiply(base: u64, cardinality: u64) -> u64 {
    base.saturating_mul(cardinality)
}

/// The cardinality of a rule's node: the product of the `maxItems`/`maxProperties` of
/// the lists and maps above it, or, with one unbounded, how many values of the node's
/// smallest serialized size fit in a request (`CompilationResult.MaxCardinality`).
pub fn cardinality(bounded: Option<u64>, min_serialized_size: i64) -> u64 {
    bounded.unwrap_or_else(|| (MAX_REQUEST_SIZE_BYTES / (min_serialized_size + 1)) as u64)
}

/// `getCostErrorMessage`.
pub fn cost_error_message(name: &str, cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    let factor = if factor > 100.0 {
        "more than 100x".to_string()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    };
    format!("{name} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)")
}

/// `TotalCost`: the sum of a variable's expression costs and its (at most four) most
/// expensive expressions of at least 1% of the schema limit. `unknown` once an
/// expression's cost is not known: the total is then not judged. `off`: no budget is
/// checked at all.
#[derive(Debug, Default)]
pub struct TotalCost {
    pub total: u64,
    pub most_expensive: Vec<(String, u64)>,
    pub unknown: bool,
    pub off: bool,
}

impl TotalCost {
    /// A total that checks nothing (a Cluster API version whose estimator is not
    /// reproduced).
    pub fn off() -> TotalCost {
        TotalCost {
            off: true,
            ..TotalCost::default()
        }
    }

    /// `ObserveExpressionCost` (the sort is stable, as Go's insertion sort is on so few).
    pub fn observe(&mut self, path: &str, cost: Option<u64>) {
        let Some(cost) = cost else {
            self.unknown = true;
            return;
        };
        self.total = self.total.saturating_add(cost);
        if cost < SCHEMA_LIMIT / 100 {
            return;
        }
        self.most_expensive.push((path.to_string(), cost));
        self.most_expensive.sort_by_key(|e| std::cmp::Reverse(e.1));
        self.most_expensive.truncate(4);
    }

    /// Over the limit: the paths of the most expensive expressions, then the message
    /// for the schema.
    pub fn exceeded(&self) -> Option<(Vec<&str>, String)> {
        if self.off || self.unknown || self.total <= SCHEMA_LIMIT {
            return None;
        }
        Some((
            self.most_expensive.iter().map(|(p, _)| p.as_str()).collect(),
            cost_error_message(
                "x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema",
                self.total,
                SCHEMA_LIMIT,
            ),
        ))
    }
}

/// The detail of each expensive expression when the total is exceeded.
pub const CONTRIBUTED: &str = "contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema";

/// The cost errors of a rule that compiles, at `base` (`...x-kubernetes-validations[i]`),
/// in the webhook's order (the rule's, then its `messageExpression`'s); `decl` is the
/// rule's node, `bounded` its cardinality when every list and map above it has a
/// maximum. Each cost is added to `total`; what the estimator cannot cost makes the
/// total unknown and reports nothing.
pub fn rule_errors(
    rule: &ValidationRule,
    decl: Option<&Decl>,
    bounded: Option<u64>,
    base: &str,
    total: &mut TotalCost,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if total.off {
        return errs;
    }
    let Some(decl) = decl else {
        total.observe("", None);
        return errs;
    };
    let rule_path = child(base, "rule");
    let cost = parse(&rule.rule)
        .ok()
        .and_then(|e| rule_cost(&e, decl))
        .map(|c| multiply(c, cardinality(bounded, decl.min_serialized_size)));
    total.observe(&rule_path, cost);
    let Some(cost) = cost else {
        return errs;
    };
    if cost > EXPRESSION_LIMIT {
        errs.push(FieldError::forbidden(
            &rule_path,
            cost_error_message("estimated rule cost", cost, EXPRESSION_LIMIT),
        ));
    }
    if rule.message_expression.is_empty() {
        return errs;
    }
    let msg_path = child(base, "messageExpression");
    let msg = parse(&rule.message_expression)
        .ok()
        .and_then(|e| message_cost(&e, decl));
    total.observe(&msg_path, msg);
    if let Some(m) = msg.filter(|m| *m > EXPRESSION_LIMIT) {
        errs.push(FieldError::forbidden(
            &msg_path,
            cost_error_message("estimated messageExpression cost", m, EXPRESSION_LIMIT),
        ));
    }
    errs
}

/// The extra factor a child schema node multiplies its parent's cardinality by
/// (`extractMaxElements`): a list's `maxItems`, a map's `maxProperties`, `None` when
/// they are not set, 1 for objects and scalars.
pub fn child_cardinality(
    parent: Option<u64>,
    type_: &str,
    is_map: bool,
    max: Option<i64>,
) -> Option<u64> {
    let parent = parent?;
    let factor = match (type_, is_map) {
        ("array", _) | ("object", true) => max?.max(0) as u64,
        _ => 1,
    };
    Some(multiply(parent, factor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_are_formatted_as_go_does() {
        let m = cost_error_message("estimated rule cost", 10_000_001, EXPRESSION_LIMIT);
        assert!(m.starts_with("estimated rule cost exceeds budget by factor of 1.000000x (try"));
        let m = cost_error_message("estimated rule cost", 32_985_757, EXPRESSION_LIMIT);
        assert!(m.contains("factor of 3.3x"));
        let m = cost_error_message("estimated rule cost", u64::MAX, EXPRESSION_LIMIT);
        assert!(m.contains("factor of more than 100x"));
    }

    #[test]
    fn totals_keep_the_four_most_expensive() {
        let mut t = TotalCost::default();
        for (i, c) in [
            5_000_000u64,
            30_000_000,
            999_999,
            20_000_000,
            30_000_000,
            40_000_000,
        ]
        .iter()
        .enumerate()
        {
            t.observe(&format!("r{i}"), Some(*c));
        }
        let (paths, msg) = t.exceeded().unwrap();
        assert_eq!(paths, vec!["r5", "r1", "r4", "r3"]);
        assert!(msg.contains("factor of 1.260000x"), "{msg}");
        t.observe("x", None);
        assert!(t.exceeded().is_none());
        assert_eq!(multiply(u64::MAX / 2, 3), u64::MAX);
        assert_eq!(cardinality(None, 2), 1_048_576);
        assert_eq!(cardinality(Some(7), 2), 7);
    }
}
