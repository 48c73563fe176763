//! `capi-render render`: render provider CRs (and topology Clusters) to stdout, to a
//! GitOps tree (`-o OUT`), or compare with a tree (`--check`).
//!
//! Exit codes: 0 success (in `--check`: the tree is up to date); 1 failure (in
//! `--check`: the tree differs, the diff is on stdout); 2 in `--check` only: an error
//! (bad input, unreadable tree), so hooks can tell drift from failure.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use capi_render::gitops::{self, TreeOptions};
use capi_render::render::{RenderOptions, RenderSet};
use capi_render::Error;
use clap::Args;

use super::output::Format;
use super::print_error;

#[derive(Args, Debug)]
pub struct RenderArgs {
    /// Input files or directories (walked for *.yaml / *.yml): provider CRs, their
    /// Secrets and ConfigMaps, topology Clusters.
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// Write the GitOps tree to OUT.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "OUT",
        required_unless_present = "stdout"
    )]
    pub output: Option<PathBuf>,
    /// Print every rendered object as one YAML stream instead of writing a tree.
    #[arg(long, conflicts_with_all = ["output", "check", "flux"])]
    pub stdout: bool,
    /// Do not write: compare the tree OUT would get with OUT. Exit 0 when identical,
    /// 1 with a unified diff per file when not, 2 on errors.
    #[arg(long, requires = "output")]
    pub check: bool,
    /// Also write Flux Kustomizations (kustomize.toolkit.fluxcd.io/v1) under OUT/flux/.
    #[arg(long, requires = "output")]
    pub flux: bool,
    /// The Flux GitRepository (in flux-system) the Kustomizations read from.
    #[arg(
        long = "flux-source",
        value_name = "NAME",
        default_value = "flux-system"
    )]
    pub flux_source: String,
    /// OUT's path inside the Git repository, for the Kustomizations' `spec.path`
    /// (default: OUT as given, which must then be relative).
    #[arg(long = "flux-path", value_name = "PATH")]
    pub flux_path: Option<String>,
    /// Do not emit the providers' Namespace objects.
    #[arg(long = "no-namespaces")]
    pub no_namespaces: bool,
    /// An OCI image layout holding the artifacts that `fetchConfig.oci` names.
    #[arg(long = "oci-layout", value_name = "DIR")]
    pub oci_layout: Option<PathBuf>,
    /// Accept inputs that yield no provider and no topology Cluster (with -o: remove
    /// every unit of the tree). Without it that is an error.
    #[arg(long = "allow-empty")]
    pub allow_empty: bool,
    /// `json`: print the result as one JSON object on stdout instead of text — with
    /// --check a CheckResult (the files that differ), else a RenderResult (the files
    /// written, unchanged, removed). The exit codes stay as they are.
    #[arg(
        long = "output-format",
        value_name = "FORMAT",
        default_value = "text",
        conflicts_with = "stdout"
    )]
    pub output_format: super::output::Format,
}

/// The tree options the flags ask for.
pub fn tree_options(a: &RenderArgs) -> Result<TreeOptions, Error> {
    let flux_path = match (&a.flux_path, &a.output) {
        (Some(p), _) => p.clone(),
        (None, Some(out)) if a.flux => {
            if out.is_absolute() {
                return Err(Error::new(format!(
                    "--flux needs --flux-path: OUT ({}) is absolute, and Flux paths are relative to the Git repository",
                    out.display()
                )));
            }
            out.to_string_lossy().replace('\\', "/")
        }
        _ => String::new(),
    };
    Ok(TreeOptions {
        flux: a.flux,
        flux_source: Some(a.flux_source.clone()),
        flux_path,
    })
}

/// The absolute, symlink-resolved form of `p` (of its nearest existing ancestor, for a
/// path that does not exist yet).
fn resolved(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut tail = Vec::new();
    let mut cur = abs.as_path();
    loop {
        if let Ok(c) = cur.canonicalize() {
            return tail.iter().rev().fold(c, |acc, t| acc.join(t));
        }
        match (cur.parent(), cur.file_name()) {
            (Some(parent), Some(name)) => {
                tail.push(name.to_os_string());
                cur = parent;
            }
            _ => return abs,
        }
    }
}

/// OUT must not lie inside an input directory: the next run would read the tree's own
/// files as inputs.
pub fn check_out_outside_inputs(files: &[PathBuf], out: &Path) -> Result<(), Error> {
    let o = resolved(out);
    for f in files {
        if f.is_dir() && o.starts_with(resolved(f)) {
            return Err(Error::new(format!(
                "the output directory {} is inside the input directory {}: its files would be read as inputs by the next run; name the input files, or move the output",
                out.display(),
                f.display()
            )));
        }
    }
    Ok(())
}

fn render(
    a: &RenderArgs,
    config: Option<&Path>,
    repository: Option<&Path>,
) -> Result<RenderSet, Error> {
    if let Some(out) = &a.output {
        check_out_outside_inputs(&a.files, out)?;
    }
    // `..default()`: RenderOptions gains fields on other branches.
    #[allow(clippy::needless_update)]
    let opts = RenderOptions {
        repository: repository.map(Path::to_path_buf),
        config: config.map(Path::to_path_buf),
        no_namespaces: a.no_namespaces,
        oci_layout: a.oci_layout.clone(),
        allow_empty: a.allow_empty,
        ..RenderOptions::default()
    };
    super::render_inputs(&a.files, &opts)
}

pub fn run(a: &RenderArgs, config: Option<&Path>, repository: Option<&Path>) -> ExitCode {
    if a.check {
        return run_check(a, config, repository);
    }
    match run_write(a, config, repository) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            print_error(&e);
            ExitCode::FAILURE
        }
    }
}

fn run_write(
    a: &RenderArgs,
    config: Option<&Path>,
    repository: Option<&Path>,
) -> Result<(), Error> {
    let topts = tree_options(a)?;
    let set = render(a, config, repository)?;
    if a.stdout {
        let text = set.to_yaml_stream();
        let mut out = std::io::stdout().lock();
        return out
            .write_all(text.as_bytes())
            .and_then(|_| out.flush())
            .map_err(|e| Error::new(format!("failed to write to stdout: {e}")));
    }
    let out = a
        .output
        .as_deref()
        .expect("clap requires -o without --stdout");
    let rep = gitops::write_tree(&set, out, &topts)?;
    if a.output_format == Format::Json {
        super::output::print_json(
            "RenderResult",
            serde_json::json!({
                "output": out.to_string_lossy(),
                "written": rep.written,
                "unchanged": rep.unchanged,
                "removed": rep.removed,
            }),
        )?;
    }
    super::ui::info(&format!(
        "{}: {} written, {} unchanged, {} removed",
        out.display(),
        rep.written.len(),
        rep.unchanged.len(),
        rep.removed.len()
    ));
    Ok(())
}

fn run_check(a: &RenderArgs, config: Option<&Path>, repository: Option<&Path>) -> ExitCode {
    let out = a.output.as_deref().expect("clap requires -o with --check");
    let res = tree_options(a).and_then(|topts| {
        let set = render(a, config, repository)?;
        gitops::check_tree(&set, out, &topts)
    });
    let res = res.and_then(|rep| {
        if a.output_format == Format::Json {
            super::output::print_json(
                "CheckResult",
                serde_json::json!({
                    "output": out.to_string_lossy(),
                    "upToDate": rep.changed.is_empty(),
                    "files": super::output::file_changes(&rep.files),
                }),
            )?;
        }
        Ok(rep)
    });
    match res {
        Ok(rep) if rep.changed.is_empty() => ExitCode::SUCCESS,
        Ok(rep) => {
            if a.output_format == Format::Text {
                let mut so = std::io::stdout().lock();
                let _ = so.write_all(rep.diff.as_bytes()).and_then(|_| so.flush());
            }
            super::ui::info(&format!(
                "{}: {} file(s) out of date; run `capi-render render -o {}` with the same inputs",
                out.display(),
                rep.changed.len(),
                out.display()
            ));
            ExitCode::from(1)
        }
        Err(e) => {
            print_error(&e);
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_inside_an_input_directory_is_refused() {
        let base = std::env::temp_dir().join(format!("capi-render-cli-{}", std::process::id()));
        let inputs = base.join("capi");
        std::fs::create_dir_all(&inputs).unwrap();
        let e = check_out_outside_inputs(std::slice::from_ref(&inputs), &inputs.join("rendered"))
            .unwrap_err();
        assert!(e.message().contains("inside the input directory"), "{e}");
        assert!(check_out_outside_inputs(std::slice::from_ref(&inputs), &inputs).is_err());
        assert!(
            check_out_outside_inputs(std::slice::from_ref(&inputs), &base.join("rendered")).is_ok()
        );
        // A file input next to OUT is fine.
        std::fs::write(inputs.join("p.yaml"), "").unwrap();
        assert!(
            check_out_outside_inputs(&[inputs.join("p.yaml")], &inputs.join("rendered")).is_ok()
        );
        let _ = std::fs::remove_dir_all(&base);
    }
}
