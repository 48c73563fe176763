//! `capi-render validate --crds PATH... -f PATH...`: objects checked against
//! CustomResourceDefinitions as an apply with strict field validation checks them
//! ([`capi_render::validate::validate_paths`]); one line per problem on stdout.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// Files or folders holding the CustomResourceDefinitions, e.g. provider
    /// components files (their other objects are skipped).
    #[arg(long = "crds", value_name = "PATH", num_args = 1.., required = true)]
    pub crds: Vec<PathBuf>,
    /// The objects to check (files, or folders of *.yaml).
    #[arg(
        short = 'f',
        long = "filename",
        value_name = "PATH",
        num_args = 1..,
        required = true
    )]
    pub files: Vec<PathBuf>,
    /// Validate every object as written: without the round trip through its Go type
    /// that a Cluster API defaulting webhook does before the schema sees it.
    #[arg(long = "no-webhooks")]
    pub no_webhooks: bool,
}

pub fn run(a: &ValidateArgs) -> ExitCode {
    let (errors, warnings) =
        match capi_render::validate::validate_paths(&a.crds, &a.files, !a.no_webhooks) {
            Ok(r) => r,
            Err(e) => {
                super::print_error(&e);
                return ExitCode::from(2);
            }
        };
    for w in &warnings {
        super::ui::warn(w);
    }
    let mut out = std::io::stdout().lock();
    let text: String = errors.iter().map(|e| format!("{e}\n")).collect();
    if out
        .write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .is_err()
    {
        return ExitCode::from(2);
    }
    if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
