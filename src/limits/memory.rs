//! The memory ceiling of a whole run (`--max-memory`, [`Limit::Memory`]).
//!
//! Two parts, both derived from the one limit:
//!
//! * **Planning**: each render thread may hold one Cluster's work in flight, budgeted
//!   at [`thread_budget`] (four times `--max-template-bytes`: a template's output, the
//!   values parsed from it and the object it patches). Half of the ceiling is kept for
//!   the inputs held for the whole run, so the pool gets at most
//!   `ceiling / 2 / budget` threads ([`plan_threads`]), at least one.
//! * **Accounting**: the memory the process has in use is checked ([`check`]) after
//!   each input file is parsed, before and after each Cluster and provider renders;
//!   over the ceiling, the run stops with an error naming the input, the amount and
//!   the flag. What "in use" means is the probe's: the CLI installs its allocator's
//!   committed bytes ([`install_probe`]); a library user that installs none gets the
//!   planning only.

use std::sync::OnceLock;

use super::{over_limit, Limit, Limits};
use crate::error::Result;

static PROBE: OnceLock<fn() -> u64> = OnceLock::new();

/// Install the function that says how many bytes the process has in use (the CLI
/// does this once, from its allocator). A second call is ignored.
pub fn install_probe(probe: fn() -> u64) {
    let _ = PROBE.set(probe);
}

/// The bytes in use, when a probe is installed.
pub fn in_use() -> Option<u64> {
    PROBE.get().map(|p| p())
}

/// The memory one render thread is planned to hold at once: four times the template
/// output limit (at least 16 MiB).
pub fn thread_budget(l: &Limits) -> u64 {
    l.template_bytes.saturating_mul(4).max(16 << 20)
}

/// How many render threads fit the ceiling: half of `--max-memory` over
/// [`thread_budget`], at most `available` (the cores), at least one.
pub fn plan_threads(l: &Limits, available: usize) -> usize {
    let fit = l.memory / 2 / thread_budget(l);
    usize::try_from(fit)
        .unwrap_or(usize::MAX)
        .clamp(1, available.max(1))
}

/// The render threads for this process: [`plan_threads`] over the cores (or
/// `RAYON_NUM_THREADS`, as rayon reads it) under the installed limits.
pub fn pool_threads() -> usize {
    let available = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    plan_threads(&Limits::current(), available)
}

/// An error when the process has more than `--max-memory` in use, naming the input
/// being worked on: its `file` and `what` in it (a Cluster; empty for the whole file).
/// No probe: always `Ok`.
pub fn check(file: &str, what: impl FnOnce() -> String) -> Result<()> {
    let Some(used) = in_use() else {
        return Ok(());
    };
    over(used, &Limits::current(), file, what)
}

fn over(used: u64, l: &Limits, file: &str, what: impl FnOnce() -> String) -> Result<()> {
    if used <= l.memory {
        return Ok(());
    }
    let what = what();
    let at = if what.is_empty() {
        file.to_string()
    } else {
        format!("{file}, {what}")
    };
    Err(over_limit(Limit::Memory, l.memory, Some(used))
        .wrap(format!("{at}: the run's memory"))
        .in_file(file)
        .with_hint(format!(
            "the run holds its inputs and one Cluster per render thread ({} here); raise the ceiling with --max-memory, or split the run (render --shard)",
            rayon::current_num_threads()
        )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_fit_half_the_ceiling() {
        let mut l = Limits::default();
        // 2 GiB ceiling, 16 MiB templates: 64 MiB a thread, 16 threads fit.
        assert_eq!(thread_budget(&l), 64 << 20);
        assert_eq!(plan_threads(&l, 2), 2);
        assert_eq!(plan_threads(&l, 64), 16);
        l.memory = 256 << 20;
        assert_eq!(plan_threads(&l, 64), 2);
        // Below one thread's budget: still one thread (the checks stop the run).
        l.memory = 1 << 20;
        assert_eq!(plan_threads(&l, 64), 1);
        l.template_bytes = 1 << 10;
        assert_eq!(thread_budget(&l), 16 << 20);
    }

    #[test]
    fn over_the_ceiling_names_the_input_the_amount_and_the_flag() {
        let l = Limits {
            memory: 1000,
            ..Limits::default()
        };
        assert!(over(1000, &l, "fleet.yaml", || unreachable!()).is_ok());
        let e = over(5000, &l, "fleet.yaml", || "Cluster ns/c1".into()).unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("fleet.yaml, Cluster ns/c1: the run's memory: 5000 bytes is over the memory limit of 1000 bytes (raise it with --max-memory)"), "{text}");
    }
}
