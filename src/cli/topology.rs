//! `capi-render topology plan`: clusterctl's `alpha topology plan` offline.

use std::path::Path;

use capi_render::topology::plan;
use capi_render::Error;
use clap::{Args, Subcommand};

#[derive(Subcommand)]
pub enum TopologyCmd {
    /// The objects a Cluster with a managed topology gets, as `clusterctl alpha topology plan`.
    #[command(after_help = super::help::TOPOLOGY_PLAN)]
    Plan(PlanArgs),
}

#[derive(Args)]
pub struct PlanArgs {
    /// Input files or directories (Cluster, ClusterClass, templates); repeatable. A
    /// directory is walked for `*.yaml`/`*.yml` files.
    #[arg(short = 'f', long = "file", required = true)]
    files: Vec<String>,
    /// Output directory (must exist): `created/` and `modified/` are written into it.
    #[arg(short = 'o', long = "output-directory", required = true)]
    out_dir: String,
    /// Namespace for objects without one.
    #[arg(short = 'n', long, default_value = "", hide_default_value = true)]
    namespace: String,
    /// The target Cluster's name.
    #[arg(short = 'c', long, default_value = "", hide_default_value = true)]
    cluster: String,
    /// `json`: print a TopologyPlan (the summary table's rows and the files written)
    /// on stdout instead of the table. The exit codes stay as they are.
    #[arg(long = "output-format", value_name = "FORMAT", default_value = "text")]
    output_format: super::output::Format,
}

/// The files `-f` names: a file as given (clusterctl's own errors for it), a directory
/// walked for `*.yaml`/`*.yml` as every other command walks it, sorted by path.
fn plan_files(files: &[String]) -> Result<Vec<String>, Error> {
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        if Path::new(f).is_dir() {
            let found = capi_render::load::list_files(&[f.into()])?;
            out.extend(found.iter().map(|p| p.display().to_string()));
        } else {
            out.push(f.clone());
        }
    }
    Ok(out)
}

pub fn run(cmd: &TopologyCmd) -> Result<(), Error> {
    match cmd {
        TopologyCmd::Plan(a) => run_plan(a),
    }
}

fn run_plan(a: &PlanArgs) -> Result<(), Error> {
    // Checked before any work (clusterctl finds out only after printing the summary).
    if !Path::new(&a.out_dir).is_dir() {
        return Err(Error::new(format!(
            "failed to write output files of target cluster changes: output directory {:?} does not exist; create it first (mkdir -p {})",
            a.out_dir, a.out_dir
        )));
    }
    let mut objs = Vec::new();
    for f in &plan_files(&a.files)? {
        let text = capi_render::limits::read_text(Path::new(f), f, |e| {
            Error::new(format!("failed to read input file {f:?}: {e}"))
        })?;
        let docs = capi_render::yaml::parse_documents(&text)
            .map_err(|e| e.wrap(format!("failed to convert file {f:?} to list of objects")))?;
        objs.extend(docs);
    }
    let out = plan::plan(objs, &a.namespace, &a.cluster, &a.out_dir)?;
    // Each directory is created once (the plan's files are in two).
    let mut made: Vec<std::path::PathBuf> = Vec::new();
    for f in &out.files {
        let p =
            capi_render::paths::safe_join(Path::new(&a.out_dir), &f.path, "topology plan output")?;
        if let Some(d) = p.parent().filter(|d| !made.iter().any(|m| m == d)) {
            std::fs::create_dir_all(d)
                .map_err(|e| Error::new(format!("failed to create {:?} directory: {e}", d)))?;
            made.push(d.to_path_buf());
        }
        std::fs::write(&p, &f.content)
            .map_err(|e| Error::new(format!("failed to write {}: {e}", p.display())))?;
    }
    if a.output_format == super::output::Format::Json {
        let s = &out.summary;
        let changes: Vec<serde_json::Value> = s
            .changes
            .iter()
            .map(|c| {
                serde_json::json!({"namespace": c.namespace, "kind": c.kind, "name": c.name, "action": c.action})
            })
            .collect();
        let files: Vec<&str> = out.files.iter().map(|f| f.path.as_str()).collect();
        return super::output::print_json(
            "TopologyPlan",
            serde_json::json!({
                "outputDirectory": a.out_dir,
                "clusterClasses": s.cluster_classes,
                "clusters": s.clusters,
                "cluster": s.target,
                "changes": changes,
                "files": files,
            }),
        );
    }
    if super::ui::get().quiet {
        return Ok(());
    }
    // The summary table is coloured as clusterctl colours it; the colour policy
    // (--color, NO_COLOR, a terminal) decides whether the escape codes stay.
    super::ui::print_stdout(&out.stdout)
        .map_err(|e| Error::new(format!("failed to write to stdout: {e}")))
}
