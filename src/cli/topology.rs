//! `capi-render topology plan`: clusterctl's `alpha topology plan` offline.

use std::io::Write;
use std::path::Path;

use capi_render::topology::plan;
use capi_render::Error;
use clap::{Args, Subcommand};

#[derive(Subcommand)]
pub enum TopologyCmd {
    /// The objects a Cluster with a managed topology gets, as `clusterctl alpha topology plan`.
    Plan(PlanArgs),
}

#[derive(Args)]
pub struct PlanArgs {
    /// Input files (Cluster, ClusterClass, templates); repeatable.
    #[arg(short = 'f', long = "file", required = true)]
    files: Vec<String>,
    /// Output directory (must exist): `created/` and `modified/` are written into it.
    #[arg(short = 'o', long = "output-directory", required = true)]
    out_dir: String,
    /// Namespace for objects without one.
    #[arg(short = 'n', long, default_value = "")]
    namespace: String,
    /// The target Cluster's name.
    #[arg(short = 'c', long, default_value = "")]
    cluster: String,
}

pub fn run(cmd: &TopologyCmd) -> Result<(), Error> {
    match cmd {
        TopologyCmd::Plan(a) => run_plan(a),
    }
}

fn run_plan(a: &PlanArgs) -> Result<(), Error> {
    let mut objs = Vec::new();
    for f in &a.files {
        let text = capi_render::limits::read_text(Path::new(f), f, |e| {
            Error::new(format!("failed to read input file {f:?}: {e}"))
        })?;
        let docs = capi_render::yaml::parse_documents(&text)
            .map_err(|e| e.wrap(format!("failed to convert file {f:?} to list of objects")))?;
        objs.extend(docs);
    }
    let out = plan::plan(objs, &a.namespace, &a.cluster, &a.out_dir)?;
    if !out.files.is_empty() && !Path::new(&a.out_dir).is_dir() {
        // clusterctl has printed the summary when it finds the directory missing.
        let end = [
            "Created objects are written",
            "Modified objects are written",
        ]
        .iter()
        .filter_map(|m| out.stdout.find(m))
        .min()
        .unwrap_or(out.stdout.len());
        print(&out.stdout[..end])?;
        return Err(Error::new(format!(
            "failed to write output files of target cluster changes: output directory {:?} does not exist",
            a.out_dir
        )));
    }
    for f in &out.files {
        let p = Path::new(&a.out_dir).join(&f.path);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d)
                .map_err(|e| Error::new(format!("failed to create {:?} directory: {e}", d)))?;
        }
        std::fs::write(&p, &f.content)
            .map_err(|e| Error::new(format!("failed to write {}: {e}", p.display())))?;
    }
    print(&out.stdout)
}

fn print(text: &str) -> Result<(), Error> {
    let mut so = std::io::stdout().lock();
    so.write_all(text.as_bytes())
        .and_then(|_| so.flush())
        .map_err(|e| Error::new(format!("failed to write to stdout: {e}")))
}
