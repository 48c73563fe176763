//! Subcommands of the binary beyond the clusterctl-compatible ones in `main.rs`: each
//! file holds one command's clap arguments and a `run` that calls the library.

pub mod bundle;
pub mod diff;
pub mod krm;
pub mod limits;
pub mod render;
pub mod topology;
pub mod upgrade;

use capi_render::Error;

/// Print an error as `main.rs` does: the message, then the input file on a second line.
pub fn print_error(e: &Error) {
    eprintln!("Error: {e}");
    if let Some(f) = e.source_file() {
        eprintln!("  in {f}");
    }
}
