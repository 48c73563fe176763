//! `capi-render merge-locks OUT`: join the shards that `render -o OUT --shard I/N` wrote
//! below OUT into OUT's tree and lock (`gitops::shard`).

use std::path::PathBuf;
use std::process::ExitCode;

use capi_render::gitops;
use clap::Args;

use super::output::Format;
use super::print_error;

#[derive(Args, Debug)]
pub struct MergeLocksArgs {
    /// The tree the shards were rendered for (`render -o OUT --shard I/N`): the shards
    /// are read from OUT/.capi-render.shards/, joined into OUT and then removed.
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// `json`: print a RenderResult (the files written, unchanged, removed) on stdout.
    #[arg(long = "output-format", value_name = "FORMAT", default_value = "text")]
    pub output_format: Format,
}

pub fn run(a: &MergeLocksArgs) -> ExitCode {
    let res = gitops::shard::merge(&a.out, &mut |_| Ok(())).and_then(|(rep, n)| {
        if a.output_format == Format::Json {
            super::output::print_json(
                "RenderResult",
                serde_json::json!({
                    "output": a.out.to_string_lossy(),
                    "written": rep.written,
                    "unchanged": rep.unchanged,
                    "removed": rep.removed,
                }),
            )?;
        }
        super::ui::info(&format!(
            "{}: {n} shards merged: {} written, {} unchanged, {} removed",
            a.out.display(),
            rep.written.len(),
            rep.unchanged.len(),
            rep.removed.len()
        ));
        Ok(())
    });
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            print_error(&e);
            ExitCode::FAILURE
        }
    }
}
