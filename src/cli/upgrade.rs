//! `capi-render upgrade plan`: which versions the declarative providers can move to,
//! keeping every provider on the core provider's contract (`--exit-code`: 3 when a move
//! is available). `capi-render upgrade apply`: make the moves the plan allows by editing
//! `spec.version` in the provider CR files (a diff without `--write`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use capi_render::model::RenderOptions;
use capi_render::operator::apply::{self, Target};
use capi_render::provider::ProviderType;
use capi_render::Error;
use clap::{Args, Subcommand};

#[derive(Subcommand)]
pub enum UpgradeCmd {
    /// For each provider CR: current version and contract, the newest version in the
    /// same contract, the newest overall; then the moves possible now and the contract
    /// change all providers must make together.
    #[command(after_help = super::help::UPGRADE_PLAN)]
    Plan(PlanArgs),
    /// Move providers as the plan allows by editing `spec.version` in the provider CR
    /// files in place (only those bytes): prints a unified diff, or writes with --write.
    /// Without --contract or a provider flag: every provider to its newest release of
    /// the core provider's contract.
    #[command(after_help = super::help::UPGRADE_APPLY)]
    Apply(ApplyArgs),
}

#[derive(Args)]
pub struct PlanArgs {
    /// Provider CRs and the Secrets/ConfigMaps beside them (files or directories).
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true)]
    pub files: Vec<PathBuf>,
    /// An OCI image layout holding the artifacts `fetchConfig.oci` names.
    #[arg(long = "oci-layout", value_name = "DIR")]
    pub oci_layout: Option<PathBuf>,
    /// Output format: `table` (default; also `text`), or an UpgradePlan object
    /// (apiVersion capi-render.io/v1alpha1) as `yaml` or `json`. (`-o` and `--output`
    /// are accepted, hidden, for a release.)
    #[arg(
        long = "output-format",
        short_alias = 'o',
        alias = "output",
        value_name = "FORMAT",
        default_value = "table"
    )]
    pub output: String,
    /// Exit 3 when a move is available (within the contract, or a contract change no
    /// provider blocks), 0 when none: for CI that opens a pull request.
    #[arg(long = "exit-code")]
    pub exit_code: bool,
}

#[derive(Args)]
pub struct ApplyArgs {
    /// Provider CRs and the Secrets/ConfigMaps beside them (files or directories); the
    /// provider CRs' files are the ones edited.
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true)]
    pub files: Vec<PathBuf>,
    /// An OCI image layout holding the artifacts `fetchConfig.oci` names.
    #[arg(long = "oci-layout", value_name = "DIR")]
    pub oci_layout: Option<PathBuf>,
    /// Move every provider to its newest release of CONTRACT: the core provider's
    /// contract, or the next one (all providers together).
    #[arg(long, value_name = "CONTRACT", conflicts_with_all = ["to", "core", "bootstrap", "control_plane", "infrastructure", "ipam", "runtime_extension", "addon"])]
    pub contract: Option<String>,
    /// Move one provider of any type: [NAMESPACE/]NAME:VERSION (repeatable, or
    /// comma-separated). A name two providers share needs a typed flag below.
    #[arg(long, value_name = "[NS/]NAME:VERSION", value_delimiter = ',')]
    pub to: Vec<String>,
    /// The CoreProvider: [NAMESPACE/]NAME:VERSION.
    #[arg(long, value_name = "[NS/]NAME:VERSION", value_delimiter = ',')]
    pub core: Vec<String>,
    /// A BootstrapProvider: [NAMESPACE/]NAME:VERSION.
    #[arg(
        short = 'b',
        long,
        value_name = "[NS/]NAME:VERSION",
        value_delimiter = ','
    )]
    pub bootstrap: Vec<String>,
    /// A ControlPlaneProvider: [NAMESPACE/]NAME:VERSION.
    #[arg(
        short = 'c',
        long = "control-plane",
        value_name = "[NS/]NAME:VERSION",
        value_delimiter = ','
    )]
    pub control_plane: Vec<String>,
    /// An InfrastructureProvider: [NAMESPACE/]NAME:VERSION.
    #[arg(
        short = 'i',
        long,
        value_name = "[NS/]NAME:VERSION",
        value_delimiter = ','
    )]
    pub infrastructure: Vec<String>,
    /// An IPAMProvider: [NAMESPACE/]NAME:VERSION.
    #[arg(long, value_name = "[NS/]NAME:VERSION", value_delimiter = ',')]
    pub ipam: Vec<String>,
    /// A RuntimeExtensionProvider: [NAMESPACE/]NAME:VERSION.
    #[arg(
        long = "runtime-extension",
        value_name = "[NS/]NAME:VERSION",
        value_delimiter = ','
    )]
    pub runtime_extension: Vec<String>,
    /// An AddonProvider: [NAMESPACE/]NAME:VERSION.
    #[arg(long, value_name = "[NS/]NAME:VERSION", value_delimiter = ',')]
    pub addon: Vec<String>,
    /// Rewrite the files (each atomically, all staged before any is replaced). Without
    /// it, print a unified diff per file and change nothing.
    #[arg(long)]
    pub write: bool,
}

fn options(
    oci_layout: &Option<PathBuf>,
    config: Option<&Path>,
    repository: Option<&Path>,
) -> RenderOptions {
    RenderOptions {
        repository: repository.map(Path::to_path_buf),
        config: config.map(Path::to_path_buf),
        oci_layout: oci_layout.clone(),
        ..Default::default()
    }
}

/// Run `upgrade <cmd>` with the global `--config` / `--repository`.
pub fn run(cmd: &UpgradeCmd, config: Option<&Path>, repository: Option<&Path>) -> ExitCode {
    let r = match cmd {
        UpgradeCmd::Plan(a) => plan(a, config, repository),
        UpgradeCmd::Apply(a) => apply_cmd(a, config, repository).map(|()| ExitCode::SUCCESS),
    };
    r.unwrap_or_else(|e| {
        super::print_error(&e);
        ExitCode::FAILURE
    })
}

fn plan(a: &PlanArgs, config: Option<&Path>, repository: Option<&Path>) -> Result<ExitCode, Error> {
    if !["table", "text", "yaml", "json"].contains(&a.output.as_str()) {
        return Err(Error::new(format!(
            "invalid output format {:?}: use table, yaml or json",
            a.output
        )));
    }
    let opts = options(&a.oci_layout, config, repository);
    let loaded = capi_render::load::load_paths(&a.files)?;
    let plan = capi_render::operator::upgrade::plan(&loaded.objects, &opts)?;
    for w in &plan.warnings {
        super::ui::warn(w);
    }
    let text = if a.output == "yaml" {
        // The JSON result's envelope and fields, but the warnings (on stderr).
        let mut v = plan.to_value();
        v["apiVersion"] = super::output::API_VERSION.into();
        v["kind"] = "UpgradePlan".into();
        capi_render::yaml::to_yaml(&v)
    } else if a.output == "json" {
        // The `yaml` fields, plus the warnings (also printed on stderr).
        let mut body = plan.to_value();
        body["warnings"] = serde_json::json!(plan.warnings);
        super::output::to_json("UpgradePlan", body)?
    } else {
        plan.to_table()
    };
    print!("{text}");
    Ok(if a.exit_code && plan.upgrades_available() {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

fn target(a: &ApplyArgs) -> Result<Target, Error> {
    if let Some(c) = &a.contract {
        return Ok(Target::Contract(c.clone()));
    }
    let typed: [(Option<ProviderType>, &Vec<String>); 8] = [
        (None, &a.to),
        (Some(ProviderType::Core), &a.core),
        (Some(ProviderType::Bootstrap), &a.bootstrap),
        (Some(ProviderType::ControlPlane), &a.control_plane),
        (Some(ProviderType::Infrastructure), &a.infrastructure),
        (Some(ProviderType::Ipam), &a.ipam),
        (Some(ProviderType::RuntimeExtension), &a.runtime_extension),
        (Some(ProviderType::Addon), &a.addon),
    ];
    let mut pins = Vec::new();
    for (t, vals) in typed {
        for v in vals {
            pins.push(apply::parse_pin(v, t)?);
        }
    }
    Ok(if pins.is_empty() {
        Target::WithinContract
    } else {
        Target::Pins(pins)
    })
}

fn apply_cmd(a: &ApplyArgs, config: Option<&Path>, repository: Option<&Path>) -> Result<(), Error> {
    let target = target(a)?;
    let opts = options(&a.oci_layout, config, repository);
    let loaded = capi_render::load::load_paths(&a.files)?;
    let plan = capi_render::operator::upgrade::plan(&loaded.objects, &opts)?;
    for w in &plan.warnings {
        super::ui::warn(w);
    }
    let edits = apply::decide(&plan, &target)?;
    let files = apply::files::edit_files(&edits, &loaded.files, &loaded.objects)?;
    if files.is_empty() {
        super::ui::info(
            "Nothing to change: every provider named is already at its target version.",
        );
        return Ok(());
    }
    let moves: String = files
        .iter()
        .flat_map(|f| &f.edits)
        .map(|e| {
            format!(
                "{} ({}): spec.version {} -> {}\n",
                e.provider, e.origin, e.from, e.to
            )
        })
        .collect();
    if a.write {
        apply::files::write(&files)?;
        let mut so = std::io::stdout().lock();
        so.write_all(moves.as_bytes())
            .and_then(|_| so.flush())
            .map_err(|e| Error::new(format!("failed to write to stdout: {e}")))?;
        super::ui::info(&format!("Wrote {} file(s).", files.len()));
    } else {
        let diff: String = files.iter().map(|f| f.diff()).collect();
        super::ui::print_stdout(&diff)
            .map_err(|e| Error::new(format!("failed to write to stdout: {e}")))?;
        super::ui::info(&format!(
            "{}Dry run: {} file(s) would change; run again with --write to write them.",
            moves,
            files.len()
        ));
    }
    Ok(())
}
