//! Subcommands of the binary beyond the clusterctl-compatible ones in `main.rs`: each
//! file holds one command's clap arguments and a `run` that calls the library.

pub mod bundle;
pub mod diff;
pub mod krm;
pub mod render;
pub mod topology;
pub mod upgrade;

use capi_render::Error;

/// Print an error: the message, then the input file and the hint (what to do next)
/// on lines of their own, so the first line stays clusterctl's text.
pub fn print_error(e: &Error) {
    eprintln!("Error: {e}");
    if let Some(f) = e.source_file() {
        eprintln!("  in {f}");
    }
    if let Some(h) = e.hint() {
        eprintln!("  hint: {h}");
    }
}
