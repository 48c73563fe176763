//! `capi-render lint`: a provider release (`--provider DIR`) or ClusterClasses and
//! templates (`-f PATH`) checked against the provider contracts; findings as text,
//! JSON or SARIF on stdout.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use capi_render::lint;
use clap::{Args, ValueEnum};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    Text,
    Json,
    Sarif,
}

#[derive(Args, Debug)]
pub struct LintArgs {
    /// A provider release folder (<label>/<version>/), a provider folder of releases
    /// or a whole local repository.
    #[arg(long, value_name = "DIR", required_unless_present = "files")]
    pub provider: Vec<PathBuf>,
    /// ClusterClasses, cluster templates and the CRDs whose schemas their patches
    /// target (files, or folders of *.yaml).
    #[arg(short = 'f', long = "filename", value_name = "PATH", num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// Output format: human text, JSON (a LintResult) or SARIF 2.1.0. (`-o` and
    /// `--output` are accepted, hidden, for a release.)
    #[arg(
        long = "output-format",
        short_alias = 'o',
        alias = "output",
        value_name = "FORMAT",
        default_value = "text"
    )]
    pub output: LintFormat,
}

pub fn run(a: &LintArgs) -> ExitCode {
    let mut all: Vec<(String, Vec<lint::Finding>)> = Vec::new();
    for dir in &a.provider {
        match lint::lint_provider(dir) {
            Ok(f) => all.push((dir.display().to_string(), f)),
            Err(e) => {
                super::print_error(&e);
                return ExitCode::from(2);
            }
        }
    }
    if !a.files.is_empty() {
        match lint::lint_files(&a.files) {
            Ok(f) => all.push((String::new(), f)),
            Err(e) => {
                super::print_error(&e);
                return ExitCode::from(2);
            }
        }
    }
    // One list, files shown under the folder each was found in.
    let findings: Vec<lint::Finding> = all
        .into_iter()
        .flat_map(|(prefix, fs)| {
            fs.into_iter().map(move |mut f| {
                f.file = lint::report::shown(&prefix, &f.file);
                f
            })
        })
        .collect();
    // SARIF locations are relative URIs: an absolute input is shown from the
    // working directory.
    let findings = if a.output == LintFormat::Sarif {
        let cwd = std::env::current_dir().unwrap_or_default();
        findings
            .into_iter()
            .map(|mut f| {
                if std::path::Path::new(&f.file).is_absolute() {
                    f.file = capi_render::paths::relative_to(&f.file, &cwd);
                }
                f
            })
            .collect()
    } else {
        findings
    };
    let text = match a.output {
        LintFormat::Text => lint::report::text(&findings, ""),
        LintFormat::Json => pretty(&lint::report::json(&findings, "")),
        LintFormat::Sarif => pretty(&lint::report::sarif(
            &findings,
            "",
            env!("CARGO_PKG_VERSION"),
        )),
    };
    let mut out = std::io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .is_err()
    {
        return ExitCode::from(2);
    }
    if lint::has_errors(&findings) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn pretty(v: &serde_json::Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}
