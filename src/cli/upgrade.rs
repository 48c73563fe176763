//! `capi-render upgrade plan`: which versions the declarative providers can move to,
//! keeping every provider on the core provider's contract.

use std::path::{Path, PathBuf};

use capi_render::model::RenderOptions;
use capi_render::Error;
use clap::{Args, Subcommand};

#[derive(Subcommand)]
pub enum UpgradeCmd {
    /// For each provider CR: current version and contract, the newest version in the
    /// same contract, the newest overall; then the moves possible now and the contract
    /// change all providers must make together.
    #[command(after_help = super::help::UPGRADE_PLAN)]
    Plan(PlanArgs),
}

#[derive(Args)]
pub struct PlanArgs {
    /// Provider CRs and the Secrets/ConfigMaps beside them (files or directories).
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true)]
    pub files: Vec<PathBuf>,
    /// An OCI image layout holding the artifacts `fetchConfig.oci` names.
    #[arg(long = "oci-layout", value_name = "DIR")]
    pub oci_layout: Option<PathBuf>,
    /// Output format: `table` (default; also `text`), `yaml`, or `json` (an UpgradePlan
    /// object, apiVersion capi-render.io/v1alpha1). `--output-format` is the same flag.
    #[arg(
        short = 'o',
        long = "output",
        visible_alias = "output-format",
        value_name = "FORMAT",
        default_value = "table"
    )]
    pub output: String,
}

/// Run `upgrade <cmd>` with the global `--config` / `--repository`.
pub fn run(
    cmd: &UpgradeCmd,
    config: Option<&Path>,
    repository: Option<&Path>,
) -> Result<(), Error> {
    match cmd {
        UpgradeCmd::Plan(a) => {
            if !["table", "text", "yaml", "json"].contains(&a.output.as_str()) {
                return Err(Error::new(format!(
                    "invalid output format {:?}: use table, yaml or json",
                    a.output
                )));
            }
            let opts = RenderOptions {
                repository: repository.map(Path::to_path_buf),
                config: config.map(Path::to_path_buf),
                oci_layout: a.oci_layout.clone(),
                ..Default::default()
            };
            let loaded = capi_render::load::load_paths(&a.files)?;
            let plan = capi_render::operator::upgrade::plan(&loaded.objects, &opts)?;
            for w in &plan.warnings {
                super::ui::warn(w);
            }
            let text = if a.output == "yaml" {
                capi_render::yaml::to_yaml(&plan.to_value())
            } else if a.output == "json" {
                // The `-o yaml` fields, plus the warnings (also printed on stderr).
                let mut body = plan.to_value();
                body["warnings"] = serde_json::json!(plan.warnings);
                super::output::to_json("UpgradePlan", body)?
            } else {
                plan.to_table()
            };
            print!("{text}");
            Ok(())
        }
    }
}
