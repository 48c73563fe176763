//! Subcommands of the binary beyond the clusterctl-compatible ones in `main.rs`: each
//! file holds one command's clap arguments and a `run` that calls the library.

pub mod base;
pub mod bundle;
pub mod diff;
pub mod help;
pub mod krm;
pub mod limits;
pub mod lint;
pub mod merge;
pub mod output;
pub mod prune;
pub mod render;
pub mod repository;
pub mod runtime;
pub mod shown;
pub mod topology;
pub mod ui;
pub mod upgrade;
pub mod validate;

use capi_render::Error;

/// Print an error: the message, then the input file and the hint (what to do next)
/// on lines of their own, so the first line stays clusterctl's text.
pub fn print_error(e: &Error) {
    eprintln!("Error: {}", shown::shown(&e.to_string()));
    if let Some(f) = e.source_file() {
        eprintln!("  in {}", shown::shown(f));
    }
    if let Some(h) = e.hint() {
        eprintln!("  hint: {}", shown::shown(h));
    }
}

/// Load and prepare a render ([`capi_render::render::prepare`]: providers rendered,
/// Clusters indexed), telling with `-v` what was read and printing the providers'
/// warnings (not with `-q`). (An input that gives no unit is an error of the library:
/// `admit`.)
pub fn prepare_inputs(
    paths: &[std::path::PathBuf],
    opts: &capi_render::model::RenderOptions,
) -> Result<capi_render::render::Rendering, Error> {
    prepare_deferring(paths, opts, &Default::default())
}

/// [`prepare_inputs`], leaving unparsed the unchanged files of Clusters that
/// `deferral` (from OUT's lock) accepts.
pub fn prepare_deferring(
    paths: &[std::path::PathBuf],
    opts: &capi_render::model::RenderOptions,
    deferral: &capi_render::gitops::Deferral,
) -> Result<capi_render::render::Rendering, Error> {
    let meter = capi_render::limits::Meter::current();
    let (inputs, files, _) = deferral.load(paths, &meter)?;
    let r = capi_render::render::prepare(inputs, files, opts)?;
    if ui::is_verbose() {
        for f in &r.inputs {
            ui::verbose(&format!("read {} (sha256 {})", f.path, f.sha256));
        }
    }
    for w in &r.warnings {
        ui::warn(w);
    }
    Ok(r)
}

/// With `-v`, what one unit resolved to (a provider) or holds (a Cluster).
pub fn report_unit(u: &capi_render::model::RenderedUnit) {
    report(&u.kind, &u.namespace, &u.name, u.objects.len());
}

/// [`report_unit`] for a unit already laid out (`-o`, `--check`).
pub fn report_summary(u: &capi_render::gitops::flux::UnitSummary) {
    report(&u.kind, &u.namespace, &u.name, u.objects);
}

fn report(kind: &capi_render::model::UnitKind, namespace: &str, name: &str, objects: usize) {
    if !ui::is_verbose() {
        return;
    }
    match kind {
        capi_render::model::UnitKind::Provider(p) => ui::verbose(&format!(
            "{} {namespace}/{name}: version {}, contract {}, from {}",
            p.kind, p.version, p.contract, p.source
        )),
        capi_render::model::UnitKind::Cluster => {
            ui::verbose(&format!("Cluster {namespace}/{name}: {objects} objects"))
        }
        capi_render::model::UnitKind::Class => ui::verbose(&format!(
            "ClusterClass {namespace}/{name}: {objects} objects (the class and its templates)"
        )),
        capi_render::model::UnitKind::CertManager(p) => ui::verbose(&format!(
            "cert-manager {}: {objects} objects, from {}",
            p.version, p.source
        )),
        capi_render::model::UnitKind::Namespaces => {
            ui::verbose(&format!("namespaces: {objects} Namespace objects"))
        }
    }
}

/// `--clusters MODE` (`render`, `diff`).
#[derive(clap::Args, Debug, Clone)]
pub struct ClustersArg {
    /// What a topology Cluster's unit applies. `managed`: the Cluster as given, after
    /// its class unit (classes/<ns>/<class>/: the ClusterClass and its templates); the
    /// topology controller's desired objects are written for review in the Cluster's
    /// desired/ directory, applied by no kustomization. `flatten` (no topology
    /// controller): the desired objects, the Cluster without spec.topology, every
    /// template named by its content. `desired` (--stdout and diff only): the desired
    /// objects exactly as the controller computes them, for review.
    #[arg(
        long = "clusters",
        value_name = "MODE",
        default_value = "managed",
        value_parser = clap::builder::PossibleValuesParser::new(capi_render::model::ClusterMode::NAMES)
    )]
    pub clusters: String,
    /// The core provider (Cluster API) version the tree installs, when the inputs hold
    /// no CoreProvider CR with spec.version (a CR that disagrees is an error). v1.11 or
    /// later: v1beta1 Clusters render as that controller computes them (converted to
    /// v1beta2, written back as v1beta1); older or unset: clusterctl v1.10.10's semantics.
    #[arg(long = "capi-version", value_name = "VERSION")]
    pub capi_version: Option<String>,
    /// What admission does with a field a Cluster's or ClusterClass's apiVersion does not
    /// declare (a v1beta1 field in a v1beta2 object, a typo). `strict` (kubectl's
    /// default): an error naming the field and, where the other API version has it, the
    /// one to use. `warn`: pruned with a warning, as the API server does for a
    /// server-side apply that does not ask for strict validation (Flux).
    #[arg(
        long = "field-validation",
        value_name = "MODE",
        default_value = "strict",
        value_parser = clap::builder::PossibleValuesParser::new(capi_render::model::FieldValidation::NAMES)
    )]
    pub field_validation: String,
}

impl ClustersArg {
    /// The mode (clap accepts only the mode names).
    pub fn mode(&self) -> capi_render::model::ClusterMode {
        capi_render::model::ClusterMode::parse(&self.clusters).unwrap_or_default()
    }

    /// `--field-validation` (clap accepts only the mode names).
    pub fn field_validation(&self) -> capi_render::model::FieldValidation {
        capi_render::model::FieldValidation::parse(&self.field_validation).unwrap_or_default()
    }
}
