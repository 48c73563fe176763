//! `capi-render bundle`: write an air-gapped bundle for the provider CRs in the
//! inputs; `capi-render bundle verify BUNDLE`: re-check it.

use std::path::{Path, PathBuf};

use capi_render::bundle::{self, BundleOptions};
use capi_render::Error;
use clap::{Args, Subcommand};

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BundleArgs {
    #[command(subcommand)]
    pub what: Option<BundleCmd>,
    /// Input files or directories with provider CRs (and their Secrets/ConfigMaps).
    #[arg(short = 'f', long = "filename", value_name = "PATH", num_args = 1..)]
    pub paths: Vec<PathBuf>,
    /// The bundle directory to create (must not exist).
    #[arg(short = 'o', long = "output", value_name = "BUNDLE")]
    pub output: Option<PathBuf>,
    /// Mirror registry (HOST[:PORT][/PATH]): the provider CRs get it as their image
    /// override, `rendered/` is rendered with it, and images.txt lists `source -> mirror`.
    #[arg(long = "image-registry", value_name = "REG")]
    pub image_registry: Option<String>,
    /// Also write an OCI image layout per provider (for `fetchConfig.oci`).
    #[arg(long)]
    pub oci: bool,
    /// OCI image layout that inputs with `fetchConfig.oci` are read from.
    #[arg(long = "oci-layout", value_name = "DIR")]
    pub oci_layout: Option<PathBuf>,
}

#[derive(Subcommand)]
pub enum BundleCmd {
    /// Re-check every checksum, that the ConfigMaps decode to the repository files, and
    /// that rendered/ and images.txt are what the bundle's own content renders.
    #[command(after_help = super::help::BUNDLE_VERIFY)]
    Verify {
        /// The bundle directory.
        bundle: PathBuf,
        /// `json`: print a BundleVerifyResult (counts and problems) on stdout instead of
        /// text. The exit codes stay as they are.
        #[arg(long = "output-format", value_name = "FORMAT", default_value = "text")]
        output_format: super::output::Format,
    },
}

/// Run the command; `config`/`repository` are the global `--config`/`--repository`.
pub fn run(a: &BundleArgs, config: Option<&Path>, repository: Option<&Path>) -> Result<(), Error> {
    if let Some(BundleCmd::Verify {
        bundle: dir,
        output_format,
    }) = &a.what
    {
        let r = bundle::verify(dir)?;
        let json = *output_format == super::output::Format::Json;
        if json {
            super::output::print_json(
                "BundleVerifyResult",
                serde_json::json!({
                    "bundle": dir.to_string_lossy(),
                    "ok": r.problems.is_empty(),
                    "files": r.files,
                    "configMaps": r.configmaps,
                    "ociLayouts": r.oci_layouts,
                    "problems": r.problems,
                }),
            )?;
        } else {
            for p in &r.problems {
                println!("{p}");
            }
        }
        if !r.problems.is_empty() {
            return Err(Error::new(format!(
                "bundle {} failed verification: {} problem(s)",
                dir.display(),
                r.problems.len()
            ))
            .with_hint(
                "a bundle is checked against what its own content renders, whatever SHA256SUMS says: do not edit it; build a new one with `capi-render bundle -f PATH... -o BUNDLE`",
            ));
        }
        if !json && !super::ui::get().quiet {
            println!(
                "OK: {} files, {} ConfigMaps, {} OCI layouts",
                r.files, r.configmaps, r.oci_layouts
            );
        }
        return Ok(());
    }
    if a.paths.is_empty() {
        return Err(Error::new("bundle: at least one -f PATH is required"));
    }
    let out = a
        .output
        .as_ref()
        .ok_or_else(|| Error::new("bundle: -o BUNDLE is required"))?;
    let opts = BundleOptions {
        repository: repository.map(Path::to_path_buf),
        config: config.map(Path::to_path_buf),
        image_registry: a.image_registry.clone(),
        oci: a.oci,
        oci_layout: a.oci_layout.clone(),
    };
    let s = bundle::write(&a.paths, &opts, out)?;
    for w in &s.warnings {
        super::ui::warn(w);
    }
    if super::ui::get().quiet {
        return Ok(());
    }
    let cert_manager = match &s.cert_manager {
        Some(v) => format!(", cert-manager {v}"),
        None => String::new(),
    };
    println!(
        "wrote {}: {} provider(s) ({}){cert_manager}, {} image(s), {} files",
        out.display(),
        s.providers.len(),
        s.providers.join(", "),
        s.images,
        s.files
    );
    Ok(())
}
