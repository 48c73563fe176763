//! Subcommands of the binary beyond the clusterctl-compatible ones in `main.rs`: each
//! file holds one command's clap arguments and a `run` that calls the library.
pub mod topology;
