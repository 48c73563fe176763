//! Provider resolution, the one place that decides where a provider CR's components
//! come from and which version they are (R4.1–R4.5, R9.3): used by `render` (and the
//! bundle, through [`resolve`]) and by `upgrade plan` (through [`resolve_one`], which
//! also lists the source's other versions).

use std::path::PathBuf;

use super::api::ProviderCr;
use super::preflight;
use super::source::{self, Release, Source, SourceContext};
use crate::config::Config;
use crate::error::Result;
use crate::model::{InputObject, RenderOptions};
use crate::provider::ProviderType;

/// One provider's source and the version to render: `spec.version`, or R4.1.4's
/// offline default (a note in `warnings` when it is "the highest local version").
pub fn resolve_one<'a>(
    p: &ProviderCr,
    ctx: &SourceContext<'a>,
    single_configmap: bool,
    warnings: &mut Vec<String>,
) -> Result<(Source<'a>, String)> {
    let src = source::source_with(p, ctx, single_configmap)?;
    if !p.version().is_empty() {
        return Ok((src, p.version().to_string()));
    }
    let (v, note) = src.default_version().map_err(|e| p.error(e))?;
    if let Some(n) = note {
        warnings.push(format!("{}: {n}", p.describe()));
    }
    Ok((src, v))
}

/// Where a repository source keeps the release (the bundle copies that folder's files).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepositoryFolder {
    /// The components file name in the version folder.
    pub components_file: String,
    /// `<repository>/<provider>/<version>`.
    pub version_dir: PathBuf,
}

/// One provider CR resolved and its release read.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub cr: ProviderCr,
    pub release: Release,
    /// The release's contract (R9.3).
    pub contract: String,
    /// `Some` when the source is a local clusterctl repository.
    pub repository: Option<RepositoryFolder>,
}

/// Every provider CR of the inputs, resolved.
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    /// The clusterctl config the operator side uses ([`super::operator_config`]).
    pub config: Config,
    /// Core first, then by type, namespace and name.
    pub providers: Vec<Resolved>,
    /// Non-fatal notes (a default version chosen offline).
    pub warnings: Vec<String>,
}

/// Resolve every provider CR among `objects`: preflight checks, source, version,
/// release and contract, each provider in order (the first failure in that order is
/// the one reported), then the proposal's golden rule (every provider abides by the
/// core provider's contract). No provider CR: an empty resolution.
pub fn resolve(objects: &[InputObject], opts: &RenderOptions) -> Result<Resolution> {
    let provs = super::providers(objects)?;
    if provs.is_empty() {
        return Ok(Resolution::default());
    }
    let config = super::operator_config(opts)?;
    preflight::check_all(&provs, objects, &config)?;
    let ctx = SourceContext::new(objects, &config, opts);
    let mut warnings = Vec::new();
    let mut providers = Vec::new();
    for p in provs {
        let (src, version) = resolve_one(&p, &ctx, true, &mut warnings)?;
        let release = src.read(&p, &version, &ctx).map_err(|e| p.wrap_error(e))?;
        let contract = super::contract_of(&p, &release.metadata, &release.version)?;
        let repository = match &src {
            Source::Repository { repo, .. } => Some(RepositoryFolder {
                components_file: repo.components_file.clone(),
                version_dir: repo.provider_dir().join(&release.version),
            }),
            _ => None,
        };
        providers.push(Resolved {
            cr: p,
            release,
            contract,
            repository,
        });
    }
    if let Some(core) = providers.iter().find(|r| r.cr.ptype == ProviderType::Core) {
        for r in &providers {
            if r.contract != core.contract {
                return Err(r.cr.error(format!(
                    "preflight check failed (contract): version {} abides by contract {}, but the core provider {} abides by {}; all providers must follow the core provider's contract",
                    r.release.version,
                    r.contract,
                    core.cr.describe(),
                    core.contract
                )));
            }
        }
    }
    Ok(Resolution {
        config,
        providers,
        warnings,
    })
}
