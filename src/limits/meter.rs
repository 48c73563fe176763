//! Run-wide counters of one load ([`Meter`]): the limits that hold for a whole run
//! rather than one file (bytes, documents, YAML nodes, alias expansions).

use std::sync::atomic::{AtomicU64, Ordering};

use super::{over_limit_in, Limit, Limits};
use crate::error::Result;

/// Run-wide counters for one load: bytes, documents, YAML nodes and alias
/// expansions. Shared by reference (the counters are atomic), created per run.
#[derive(Debug)]
pub struct Meter {
    limits: Limits,
    bytes: AtomicU64,
    documents: AtomicU64,
    nodes: AtomicU64,
    alias_nodes: AtomicU64,
    alias_bytes: AtomicU64,
}

impl Meter {
    pub fn new(limits: Limits) -> Meter {
        Meter {
            limits,
            bytes: AtomicU64::new(0),
            documents: AtomicU64::new(0),
            nodes: AtomicU64::new(0),
            alias_nodes: AtomicU64::new(0),
            alias_bytes: AtomicU64::new(0),
        }
    }

    /// A meter with the process-wide limits.
    pub fn current() -> Meter {
        Meter::new(Limits::current())
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    fn counter(&self, l: Limit) -> &AtomicU64 {
        match l {
            Limit::TotalBytes => &self.bytes,
            Limit::Documents => &self.documents,
            Limit::YamlNodes => &self.nodes,
            Limit::YamlAliasNodes => &self.alias_nodes,
            Limit::YamlAliasBytes => &self.alias_bytes,
            _ => unreachable!("{l:?} is not a run-wide counter"),
        }
    }

    /// What is left of a run-wide limit.
    pub fn remaining(&self, l: Limit) -> u64 {
        self.limits
            .get(l)
            .saturating_sub(self.counter(l).load(Ordering::Relaxed))
    }

    /// The run-wide counts so far (bytes, documents, nodes, alias nodes, alias bytes).
    pub fn counts(&self) -> [u64; 5] {
        self.counters().map(|c| c.load(Ordering::Relaxed))
    }

    /// A meter with the same limits whose counts start at `counts` (one file of a
    /// parallel load: [`crate::load::load_paths_with`]).
    pub fn starting_at(&self, counts: [u64; 5]) -> Meter {
        let m = Meter::new(self.limits);
        for (c, n) in m.counters().into_iter().zip(counts) {
            c.store(n, Ordering::Relaxed);
        }
        m
    }

    /// Set the run-wide counts (to what [`Meter::counts`] gave, plus what was added).
    pub fn restore(&self, counts: [u64; 5]) {
        for (c, n) in self.counters().into_iter().zip(counts) {
            c.store(n, Ordering::Relaxed);
        }
    }

    /// Whether `counts` are within every run-wide limit.
    pub fn within(&self, counts: [u64; 5]) -> bool {
        [
            Limit::TotalBytes,
            Limit::Documents,
            Limit::YamlNodes,
            Limit::YamlAliasNodes,
            Limit::YamlAliasBytes,
        ]
        .into_iter()
        .zip(counts)
        .all(|(l, n)| n <= self.limits.get(l))
    }

    fn counters(&self) -> [&AtomicU64; 5] {
        [
            &self.bytes,
            &self.documents,
            &self.nodes,
            &self.alias_nodes,
            &self.alias_bytes,
        ]
    }

    /// Count `n` more of a run-wide limit; the error (without file) when the run is
    /// now over it.
    pub fn charge(&self, l: Limit, n: u64) -> Result<()> {
        let total = self
            .counter(l)
            .fetch_add(n, Ordering::Relaxed)
            .saturating_add(n);
        if total > self.limits.get(l) {
            return Err(over_limit_in(
                l,
                self.limits.get(l),
                Some(total),
                " for the whole run",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meter_counts_across_calls() {
        let m = Meter::new(Limits {
            documents: 3,
            ..Limits::default()
        });
        m.charge(Limit::Documents, 2).unwrap();
        assert_eq!(m.remaining(Limit::Documents), 1);
        let e = m.charge(Limit::Documents, 2).unwrap_err();
        assert!(e.message().contains("--max-documents"), "{e}");
    }
}
