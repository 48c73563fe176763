//! `capi-render repository fetch`: the one command that uses the network. It downloads
//! the release assets of the providers named (flags as `clusterctl init`'s, or provider
//! CRs with -f) into the local repository `--repository DIR`, with a lock of their
//! sha256 sums ([`capi_render::repository::fetch`]); HTTP(S) through ureq.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use capi_render::config::Config;
use capi_render::provider::{Provider, ProviderType};
use capi_render::repository::fetch::{self, GetFailure, GitHub, Http, Wanted};
use capi_render::Error;
use clap::{Args, Subcommand};

#[derive(Subcommand)]
pub enum RepositoryCmd {
    /// Download provider releases into the local repository --repository DIR (the only
    /// command that uses the network), with a lock of their sha256 sums.
    #[command(after_help = super::help::REPOSITORY_FETCH)]
    Fetch(FetchArgs),
}

#[derive(Args)]
pub struct FetchArgs {
    /// Provider CRs (files, or folders of *.yaml): each one's provider at its spec.version.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub files: Vec<PathBuf>,
    /// Core provider NAME[:VERSION] (as clusterctl init); repeatable.
    #[arg(long = "core", value_name = "NAME[:VERSION]")]
    pub core: Vec<String>,
    /// Bootstrap provider NAME[:VERSION]; repeatable.
    #[arg(short = 'b', long = "bootstrap", value_name = "NAME[:VERSION]")]
    pub bootstrap: Vec<String>,
    /// Control plane provider NAME[:VERSION]; repeatable.
    #[arg(short = 'c', long = "control-plane", value_name = "NAME[:VERSION]")]
    pub control_plane: Vec<String>,
    /// Infrastructure provider NAME[:VERSION]; repeatable.
    #[arg(short = 'i', long = "infrastructure", value_name = "NAME[:VERSION]")]
    pub infrastructure: Vec<String>,
    /// IPAM provider NAME[:VERSION]; repeatable.
    #[arg(long = "ipam", value_name = "NAME[:VERSION]")]
    pub ipam: Vec<String>,
    /// Runtime extension provider NAME[:VERSION]; repeatable.
    #[arg(long = "runtime-extension", value_name = "NAME[:VERSION]")]
    pub runtime_extension: Vec<String>,
    /// Add-on provider NAME[:VERSION]; repeatable.
    #[arg(long = "addon", value_name = "NAME[:VERSION]")]
    pub addon: Vec<String>,
    /// Where GitHub release assets are downloaded from (a mirror, or a local server).
    #[arg(
        long = "github-url",
        env = "CAPI_RENDER_GITHUB_URL",
        value_name = "URL",
        default_value = "https://github.com"
    )]
    pub github_url: String,
    /// The GitHub API that lists releases and their assets (a mirror, or a local server).
    #[arg(
        long = "github-api-url",
        env = "CAPI_RENDER_GITHUB_API_URL",
        value_name = "URL",
        default_value = "https://api.github.com"
    )]
    pub github_api_url: String,
}

/// ureq, with `GITHUB_TOKEN` sent to the GitHub API's origin only
/// ([`fetch::token_goes_to`]), and never on a redirect.
struct Ureq {
    agent: ureq::Agent,
    token: Option<(String, String)>,
}

impl Http for Ureq {
    fn get_into(
        &self,
        url: &str,
        limit: u64,
        sink: &mut dyn std::io::Write,
    ) -> Result<u64, GetFailure> {
        let shown = capi_render::go::untrusted::quote_untrusted(url);
        let mut req = self.agent.get(url).header("User-Agent", "capi-render");
        if let Some((api, t)) = &self.token {
            if fetch::token_goes_to(url, api) {
                req = req.header("Authorization", &format!("Bearer {t}"));
            }
        }
        let fail = |e: String| GetFailure::Other(Error::new(format!("GET {shown}: {e}")));
        let mut resp = req.call().map_err(|e| fail(e.to_string()))?;
        let status = resp.status();
        if status != 200 {
            let mut body = Vec::new();
            let _ = resp
                .body_mut()
                .as_reader()
                .take(capi_render::limits::QUOTE_BYTES as u64)
                .read_to_end(&mut body);
            return Err(fail(format!(
                "{status}: {}",
                capi_render::go::untrusted::quote_untrusted(&String::from_utf8_lossy(&body))
            )));
        }
        // One byte past the limit tells a body that is too large; the sink never gets it.
        let mut reader = resp.body_mut().as_reader();
        let n = std::io::copy(&mut reader.by_ref().take(limit), sink)
            .map_err(|e| fail(e.to_string()))?;
        let mut more = [0u8; 1];
        if n == limit && reader.read(&mut more).map_err(|e| fail(e.to_string()))? > 0 {
            return Err(GetFailure::TooLarge);
        }
        Ok(n)
    }
}

pub fn run(cmd: &RepositoryCmd, cfg: Config, repository: Option<&Path>) -> Result<(), Error> {
    let RepositoryCmd::Fetch(a) = cmd;
    let dir = repository.ok_or_else(|| {
        Error::new("repository fetch: --repository DIR names the local repository to fill")
            .with_hint(
                "capi-render --repository capi/repository repository fetch -f capi/providers.yaml",
            )
    })?;
    let wanted = wanted(a, &cfg)?;
    if wanted.is_empty() {
        return Err(Error::new(
            "repository fetch: no provider named: give provider CRs with -f, or --core, -b, -c, -i NAME[:VERSION]",
        ));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::new(format!("cannot create {}: {e}", dir.display())))?;
    let gh = GitHub {
        web: a.github_url.clone(),
        api: a.github_api_url.clone(),
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        // GitHub's downloads redirect to its object store: followed, without the token.
        .redirect_auth_headers(ureq::config::RedirectAuthHeaders::Never)
        .timeout_global(Some(std::time::Duration::from_secs(120)))
        .build()
        .into();
    let http = Ureq {
        agent,
        token: std::env::var("GITHUB_TOKEN")
            .ok()
            .filter(|t| !t.is_empty())
            .map(|t| (gh.api.clone(), t)),
    };
    let limits = capi_render::limits::Limits::current();
    let stage = fetch::Staging::new(dir, limits.file_bytes, limits.total_bytes)?;
    let mut assets = Vec::new();
    for w in &wanted {
        super::ui::verbose(&format!(
            "fetching {} {} from {}",
            w.provider.ptype, w.provider.name, w.provider.url
        ));
        assets.extend(fetch::download(w, &gh, &http, &stage)?);
    }
    let out = fetch::store(dir, &assets)?;
    super::ui::info(&format!(
        "{}: {} asset(s) of {} provider(s): {} written, {} unchanged; sums in {}",
        dir.display(),
        assets.len(),
        wanted.len(),
        out.written.len(),
        out.unchanged.len(),
        fetch::LOCK_FILE
    ));
    Ok(())
}

/// The providers named by the flags and the CRs, with their configured URLs (the
/// config file's entries over the built-in list; never the local repository's).
fn wanted(a: &FetchArgs, cfg: &Config) -> Result<Vec<Wanted>, Error> {
    let mut cfg = cfg.clone();
    cfg.repository = None;
    let mut out: Vec<Wanted> = Vec::new();
    let flags = [
        (ProviderType::Core, &a.core),
        (ProviderType::Bootstrap, &a.bootstrap),
        (ProviderType::ControlPlane, &a.control_plane),
        (ProviderType::Infrastructure, &a.infrastructure),
        (ProviderType::Ipam, &a.ipam),
        (ProviderType::RuntimeExtension, &a.runtime_extension),
        (ProviderType::Addon, &a.addon),
    ];
    for (t, list) in flags {
        for s in list {
            let (name, version) = match s.split_once(':') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (s.as_str(), None),
            };
            out.push(Wanted {
                provider: cfg.provider(name, t)?,
                version,
            });
        }
    }
    if !a.files.is_empty() {
        let loaded = capi_render::load::load_paths(&a.files)?;
        for p in capi_render::operator::providers(&loaded.objects)? {
            let url = p
                .fetch_config()
                .and_then(|f| f.get("url"))
                .and_then(|u| u.as_str())
                .map(str::to_string);
            let provider = match url {
                Some(url) => Provider {
                    name: p.name.clone(),
                    ptype: p.ptype,
                    url,
                },
                None => cfg
                    .provider(&p.name, p.ptype)
                    .map_err(|e| p.wrap_error(e))?,
            };
            let version = Some(p.version().to_string()).filter(|v| !v.is_empty());
            out.push(Wanted { provider, version });
        }
    }
    Ok(out)
}
