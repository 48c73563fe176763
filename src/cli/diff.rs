//! `capi-render diff`: the change impact of a pull request. Renders the inputs before
//! (`-f`) and after (`--against`) and prints a unified diff per changed object of every
//! Cluster or provider whose rendered objects differ.
//!
//! Exit codes (as diff(1)): 0 no difference, 1 differences printed, 2 error.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use capi_render::model::RenderOptions;
use capi_render::Error;
use clap::Args;

use super::print_error;

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The inputs before the change (files or directories).
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true, num_args = 1..)]
    pub before: Vec<PathBuf>,
    /// The inputs after the change (files or directories).
    #[arg(long = "against", value_name = "PATH", required = true, num_args = 1..)]
    pub after: Vec<PathBuf>,
    /// Print only the changed units (`clusters/<ns>/<name>`, `providers/...`), one a line.
    #[arg(long = "name-only")]
    pub name_only: bool,
    /// `json`: print a DiffResult (every changed unit with its status and the paths and
    /// status of its changed objects) on stdout instead of diffs (--name-only then has
    /// no effect). The exit codes stay as they are.
    #[arg(long = "output-format", value_name = "FORMAT", default_value = "text")]
    pub output_format: super::output::Format,
    /// An OCI image layout holding the artifacts that `fetchConfig.oci` names.
    #[arg(long = "oci-layout", value_name = "DIR")]
    pub oci_layout: Option<PathBuf>,
    #[command(flatten)]
    pub clusters: super::ClustersArg,
}

pub fn run(a: &DiffArgs, config: Option<&Path>, repository: Option<&Path>) -> ExitCode {
    let opts = RenderOptions {
        repository: repository.map(Path::to_path_buf),
        config: config.map(Path::to_path_buf),
        oci_layout: a.oci_layout.clone(),
        // One side of a change may hold nothing yet (the first Cluster is added).
        allow_empty: true,
        clusters: a.clusters.mode(),
        capi_version: a.clusters.capi_version.clone(),
        ..RenderOptions::default()
    };
    let res = (|| -> Result<_, Error> {
        let labels = [
            "rendering the -f inputs (before)",
            "rendering the --against inputs (after)",
        ];
        let before = super::prepare_inputs(&a.before, &opts).map_err(|e| e.wrap(labels[0]))?;
        let after = super::prepare_inputs(&a.after, &opts).map_err(|e| e.wrap(labels[1]))?;
        // Both sides stream in directory order; only the changed units' diffs stay.
        capi_render::diff::impact_streaming(before, after, labels)
    })();
    let res = res.and_then(|i| {
        if a.output_format == super::output::Format::Json {
            let units: Vec<serde_json::Value> = i
                .units
                .iter()
                .map(|u| {
                    serde_json::json!({
                        "unit": u.unit,
                        "status": u.change.as_str(),
                        "objects": super::output::file_changes(&u.objects),
                    })
                })
                .collect();
            super::output::print_json(
                "DiffResult",
                serde_json::json!({"differs": !i.is_empty(), "units": units}),
            )?;
        }
        Ok(i)
    });
    match res {
        Ok(i) if i.is_empty() => ExitCode::SUCCESS,
        Ok(_) if a.output_format == super::output::Format::Json => ExitCode::from(1),
        Ok(i) => {
            let text = if a.name_only {
                i.changed_units.iter().map(|u| format!("{u}\n")).collect()
            } else {
                i.diff
            };
            let mut so = std::io::stdout().lock();
            let _ = so.write_all(text.as_bytes()).and_then(|_| so.flush());
            ExitCode::from(1)
        }
        Err(e) => {
            print_error(&e);
            ExitCode::from(2)
        }
    }
}
