//! Progress of long runs, for a front end that shows it (the binary's progress bar on
//! a terminal). The library reports how many units a stage has and when each is done;
//! with no listener installed (the default, and in every library use) the calls do
//! nothing. Reporting never changes what is rendered.

use std::sync::OnceLock;

/// Receives progress reports; called from worker threads.
pub trait Listener: Send + Sync {
    /// A stage starts: `what` (e.g. "clusters") has `total` units.
    fn start(&self, what: &str, total: usize);
    /// One unit of the current stage is done.
    fn step(&self);
    /// The stage is over (also after an error).
    fn finish(&self);
}

static LISTENER: OnceLock<Box<dyn Listener>> = OnceLock::new();

/// Install the process's listener; only the first call has an effect (returns false
/// when a listener was already installed).
pub fn set_listener(l: Box<dyn Listener>) -> bool {
    LISTENER.set(l).is_ok()
}

pub(crate) fn start(what: &str, total: usize) {
    if let Some(l) = LISTENER.get() {
        l.start(what, total);
    }
}

pub(crate) fn step() {
    if let Some(l) = LISTENER.get() {
        l.step();
    }
}

pub(crate) fn finish() {
    if let Some(l) = LISTENER.get() {
        l.finish();
    }
}
