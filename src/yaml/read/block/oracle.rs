//! The block reader against serde-saphyr, for the tests and the `yaml_block` fuzz
//! target.

use super::read;

/// Whether this reader agrees with serde-saphyr on `doc` (a document as `parse` gets
/// it), for the tests and the `yaml_block` fuzz target: where it reads `doc` under
/// either key rule, serde-saphyr reads the same value and counts the same nodes and
/// scalar bytes. `Ok(true)` when this reader took the document (lenient), `Err` says
/// how they differ.
#[doc(hidden)]
pub fn agrees(doc: &str) -> std::result::Result<bool, String> {
    use crate::limits::{Limits, Meter};
    let quoted = crate::yaml::plain::quote_misread_booleans(doc);
    let q: &str = quoted.as_deref().unwrap_or(doc);
    let budget = serde_saphyr::Budget::default();
    let mut took = false;
    for (keys, strict) in [
        (crate::yaml::read::Keys::LastWins, false),
        (crate::yaml::read::Keys::Strict, true),
    ] {
        // `parse_as` gives the block reader the document as it is (the quoting of
        // Go's string spellings of booleans comes after, on serde-saphyr's path).
        let Ok(mine) = read(doc, strict, budget.max_nodes, budget.max_total_scalar_bytes) else {
            continue;
        };
        took |= !strict;
        let meter = Meter::new(Limits::default());
        let theirs = crate::yaml::read::parse_as(doc, keys, 1, &meter, false)
            .map_err(|e| format!("strict={strict}: serde-saphyr fails where we read: {e}"))?;
        if theirs != mine.value {
            return Err(format!(
                "strict={strict}: serde-saphyr reads {theirs}, we read {}",
                mine.value
            ));
        }
        // The run-wide counts are bytes, documents, nodes, alias nodes, alias bytes.
        let nodes = meter.counts()[2];
        let counted = saphyr_counts(q);
        if (nodes, counted.1) != (mine.nodes as u64, mine.bytes) {
            return Err(format!(
                "strict={strict}: serde-saphyr counts {nodes} nodes and {} bytes, we count {} and {}",
                counted.1, mine.nodes, mine.bytes
            ));
        }
    }
    Ok(took)
}

/// serde-saphyr's budget report for `doc`: nodes, scalar bytes.
pub(super) fn saphyr_counts(doc: &str) -> (usize, usize) {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;
    let report = Rc::new(Cell::new((0, 0)));
    let sink = report.clone();
    let mut o = crate::yaml::read::options((
        serde_saphyr::DuplicateKeyPolicy::LastWins,
        serde_saphyr::MergeKeyPolicy::AsOrdinary,
    ));
    o.budget = Some(serde_saphyr::Budget::default());
    o.budget_report_cb = Some(Rc::new(RefCell::new(
        move |r: serde_saphyr::budget::BudgetReport| {
            sink.set((r.nodes, r.total_scalar_bytes));
        },
    )));
    let _ = serde_saphyr::from_str_with_options::<Option<crate::yaml::read::Raw>>(doc, o);
    report.get()
}
