//! `capi-render diff`: the change impact of a pull request. Renders the inputs before
//! (`-f`) and after (`--against`) and prints a unified diff per changed object of every
//! Cluster or provider whose rendered objects differ.
//!
//! The text output starts with the rollout impact (headline, warnings, one section per
//! changed Cluster) when a Cluster changed or a warning applies.
//!
//! Exit codes (as diff(1)): 0 no difference, 1 differences printed, 2 error; with
//! `--exit-code` (as `terraform plan -detailed-exitcode`): 0, 2 changes, 1 error.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use capi_render::model::RenderOptions;
use capi_render::Error;
use clap::Args;

use super::print_error;

/// `diff --output-format`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// Text for people: the impact report, then the unified diffs.
    #[default]
    Text,
    /// A DiffResult (`apiVersion: capi-render.io/v1alpha1`).
    Json,
    /// A pull-request comment (GitHub-flavoured Markdown).
    Markdown,
    /// One self-contained HTML page.
    Html,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The inputs before the change (files or directories); with --base, the inputs
    /// after the change, whose base side is read from Git.
    #[arg(short = 'f', long = "filename", value_name = "PATH", required_unless_present = "from_lock", num_args = 1..)]
    pub before: Vec<PathBuf>,
    /// With --base: the -f paths, --config, --repository, --oci-layout, --clusters and
    /// --capi-version of the `render` command OUT's lock records (resolved as
    /// `render --from-lock` resolves them, inside the repository that holds OUT).
    #[arg(
        long = "from-lock",
        value_name = "OUT",
        requires = "base",
        conflicts_with_all = ["before", "oci_layout"]
    )]
    pub from_lock: Option<PathBuf>,
    /// The inputs after the change (files or directories).
    #[arg(long = "against", value_name = "PATH", required_unless_present = "base", num_args = 1..)]
    pub after: Vec<PathBuf>,
    /// Read the base side of the -f paths from Git at REV (a commit, branch or
    /// `origin/main`; `git archive`, no second checkout) and compare the -f paths
    /// against it.
    #[arg(long = "base", value_name = "REV", conflicts_with = "after")]
    pub base: Option<String>,
    /// Print only the changed units (`clusters/<ns>/<name>`, `providers/...`), one a line.
    #[arg(long = "name-only")]
    pub name_only: bool,
    /// `json`: a DiffResult (every changed unit with its status and changed objects,
    /// `impact.clusters[]`, `warnings[]`); `markdown`: a pull-request comment (a hidden
    /// marker, the headline, warnings, a `<details>` section per Cluster, the diffs;
    /// within --comment-budget characters); `html`: one self-contained page with the
    /// same content. --name-only has no effect on them; the exit codes stay as they are.
    #[arg(long = "output-format", value_name = "FORMAT", default_value = "text")]
    pub output_format: DiffFormat,
    /// The most characters a `markdown` comment may have (GitHub's limit by default);
    /// what does not fit is counted in a last line naming --full-report.
    #[arg(long = "comment-budget", value_name = "CHARS", default_value_t = capi_render::impact::markdown::GITHUB_BUDGET)]
    pub comment_budget: usize,
    /// Where the whole report is (a CI artefact's URL), named by a `markdown` comment
    /// that had to be cut.
    #[arg(
        long = "full-report",
        value_name = "URL",
        default_value = "`capi-render diff --output-format html` of this change"
    )]
    pub full_report: String,
    /// Exit 0 when nothing changes, 2 when something changes and 1 on an error (as
    /// `terraform plan -detailed-exitcode`), instead of diff(1)'s 0 / 1 / 2.
    #[arg(long = "exit-code")]
    pub exit_code: bool,
    /// An OCI image layout holding the artifacts that `fetchConfig.oci` names.
    #[arg(long = "oci-layout", value_name = "DIR")]
    pub oci_layout: Option<PathBuf>,
    #[command(flatten)]
    pub clusters: super::ClustersArg,
    #[command(flatten)]
    pub extensions: super::runtime::ExtensionArgs,
}

pub fn run(a: &DiffArgs, config: Option<&Path>, repository: Option<&Path>) -> ExitCode {
    if let Some(out) = &a.from_lock {
        return match recorded(a, out, config, repository) {
            Ok((args, config, repository)) => run(&args, config.as_deref(), repository.as_deref()),
            Err(e) => {
                print_error(&e);
                ExitCode::from(if a.exit_code { 1 } else { 2 })
            }
        };
    }
    let opts = RenderOptions {
        repository: repository.map(Path::to_path_buf),
        config: config.map(Path::to_path_buf),
        oci_layout: a.oci_layout.clone(),
        // One side of a change may hold nothing yet (the first Cluster is added).
        allow_empty: true,
        clusters: a.clusters.mode(),
        capi_version: a.clusters.capi_version.clone(),
        field_validation: a.clusters.field_validation(),
        // Config Secret values show as their `${VAR}`: a diff is printed.
        secrets: capi_render::model::SecretsMode::Placeholders,
        ..RenderOptions::default()
    };
    let res = (|| -> Result<_, Error> {
        let base_label = a
            .base
            .as_ref()
            .map(|r| format!("rendering the base side of the -f inputs at {r} (--base)"));
        let labels = match &base_label {
            Some(l) => [l.as_str(), "rendering the -f inputs"],
            None => [
                "rendering the -f inputs (before)",
                "rendering the --against inputs (after)",
            ],
        };
        // The base side's scratch directory lives until the comparison ends.
        let (_scratch, before_paths, after_paths) = match &a.base {
            Some(rev) => {
                let (s, p) = super::base::base_side(rev, &a.before)?;
                (Some(s), p, a.before.clone())
            }
            None => (None, a.before.clone(), a.after.clone()),
        };
        let mut before =
            super::prepare_inputs(&before_paths, &opts).map_err(|e| e.wrap(labels[0]))?;
        let mut after =
            super::prepare_inputs(&after_paths, &opts).map_err(|e| e.wrap(labels[1]))?;
        if a.extensions.runtime_extension.is_empty() {
            // A class that needs a runtime extension: its rollouts are decided at run time.
            before.defer_external_patches();
            after.defer_external_patches();
        } else {
            super::runtime::call_extensions(&mut before, &a.extensions)
                .map_err(|e| e.wrap(labels[0]))?;
            super::runtime::call_extensions(&mut after, &a.extensions)
                .map_err(|e| e.wrap(labels[1]))?;
        }
        // Both sides stream in directory order; only the changed units' diffs stay.
        capi_render::diff::impact_streaming(before, after, labels)
    })();
    let res = res.and_then(|i| {
        let page = match a.output_format {
            DiffFormat::Markdown => Some(capi_render::impact::markdown::comment(
                &i.clusters,
                &i.warnings,
                &i.diff,
                a.comment_budget,
                &a.full_report,
            )),
            DiffFormat::Html => Some(capi_render::impact::html::page(
                &i.clusters,
                &i.warnings,
                &i.diff,
            )),
            _ => None,
        };
        if let Some(p) = page {
            // Printed with or without changes: CI updates its comment either way.
            let mut so = std::io::stdout().lock();
            so.write_all(p.as_bytes())
                .and_then(|_| so.flush())
                .map_err(|e| Error::new(format!("failed to write to stdout: {e}")))?;
        }
        if a.output_format == DiffFormat::Json {
            let units: Vec<serde_json::Value> = i
                .units
                .iter()
                .map(|u| {
                    let mut objects = super::output::file_changes(&u.objects);
                    for (o, (verb, by)) in objects.iter_mut().zip(&u.verbs) {
                        o["verb"] = serde_json::Value::from(*verb);
                        o["appliedBy"] = serde_json::Value::from(*by);
                    }
                    serde_json::json!({
                        "unit": u.unit,
                        "status": u.change.as_str(),
                        "objects": objects,
                    })
                })
                .collect();
            let clusters: Vec<serde_json::Value> = i.clusters.iter().map(cluster_json).collect();
            super::output::print_json(
                "DiffResult",
                serde_json::json!({
                    "differs": !i.is_empty(),
                    "units": units,
                    "impact": {"clusters": clusters},
                    "warnings": i.warnings,
                }),
            )?;
        }
        Ok(i)
    });
    let (changes, error) = if a.exit_code { (2, 1) } else { (1, 2) };
    match res {
        Ok(i) if i.is_empty() => ExitCode::SUCCESS,
        Ok(_) if a.output_format != DiffFormat::Text => ExitCode::from(changes),
        Ok(i) => {
            // Values from the inputs show their control and bidi characters escaped,
            // whatever --color says: the only line breaks are ours.
            let shown = capi_render::impact::inert::text;
            let text = if a.name_only {
                i.changed_units
                    .iter()
                    .map(|u| format!("{}\n", shown(u)))
                    .collect()
            } else {
                i.report() + &capi_render::impact::inert::lines(&i.diff)
            };
            let mut so = std::io::stdout().lock();
            let _ = so.write_all(text.as_bytes()).and_then(|_| so.flush());
            ExitCode::from(changes)
        }
        Err(e) => {
            print_error(&e);
            ExitCode::from(error)
        }
    }
}

/// `diff --from-lock OUT`: these arguments with the inputs and options of the `render`
/// command OUT's lock records, and its --config and --repository.
fn recorded(
    a: &DiffArgs,
    out: &Path,
    config: Option<&Path>,
    repository: Option<&Path>,
) -> Result<(DiffArgs, Option<PathBuf>, Option<PathBuf>), Error> {
    if config.is_some() || repository.is_some() || a.clusters.capi_version.is_some() {
        return Err(Error::new(
            "--from-lock takes --config, --repository and --capi-version from the lock; drop them",
        ));
    }
    let c = capi_render::gitops::recorded_command(out)?;
    let args = DiffArgs {
        before: c.files.iter().map(PathBuf::from).collect(),
        after: Vec::new(),
        from_lock: None,
        base: a.base.clone(),
        name_only: a.name_only,
        output_format: a.output_format,
        comment_budget: a.comment_budget,
        full_report: a.full_report.clone(),
        exit_code: a.exit_code,
        oci_layout: c.oci_layout.map(PathBuf::from),
        clusters: super::ClustersArg {
            clusters: c.clusters.as_str().to_string(),
            capi_version: c.capi_version.clone(),
            field_validation: c.field_validation.as_str().to_string(),
        },
        extensions: a.extensions.clone(),
    };
    Ok((
        args,
        c.config.map(PathBuf::from),
        c.repository.map(PathBuf::from),
    ))
}

/// One Cluster of `impact.clusters[]`.
fn cluster_json(c: &capi_render::impact::ClusterImpact) -> serde_json::Value {
    let part = |p: &capi_render::impact::Part| {
        serde_json::json!({
            "name": p.name,
            "action": p.action.as_str(),
            "machines": p.machines,
            "reasons": p.reasons,
        })
    };
    serde_json::json!({
        "namespace": c.namespace,
        "name": c.name,
        "action": c.action.as_str(),
        "controlPlane": c.control_plane.as_ref().map(part),
        "machineDeployments": c.machine_deployments.iter().map(part).collect::<Vec<_>>(),
        "machinePools": c.machine_pools.iter().map(part).collect::<Vec<_>>(),
        "upgradePlan": c.upgrade_plan.as_ref().map(|p| serde_json::json!({
            "controlPlane": p.control_plane,
            "workers": p.workers,
        })),
    })
}
