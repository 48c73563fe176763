//! `repository fetch`: the release assets of the providers a clusterctl config or
//! provider CRs name, downloaded into a clusterctl local repository
//! (`DIR/<manifest-label>/<version>/<asset>`) with a lock of their sha256 sums
//! (`DIR/fetch-lock.yaml`). The one place capi-render uses the network, and only
//! through the [`Http`] the caller gives: everything here is planning and checking.
//!
//! A provider URL is read as clusterctl reads it:
//! - `https://github.com/OWNER/REPO/releases/VERSION|latest/PATH`: a GitHub release.
//!   `latest` is the newest release that is neither a draft nor a pre-release (GitHub's
//!   release list); the assets a repository needs ([`wanted_assets`]) are downloaded
//!   from `releases/download/VERSION/`.
//! - any other `http(s)://…/VERSION/FILE`: that file and `metadata.yaml` beside it.
//!
//! A later fetch refuses an asset whose bytes differ from the sum the lock records (a
//! release re-tagged or tampered with), and a file already in the repository that the
//! lock does not know and that differs from the download: nothing is written then.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::limits::Limit;
use crate::provider::Provider;

/// The lock file, at the repository's root.
pub const LOCK_FILE: &str = "fetch-lock.yaml";

/// GET over HTTP(S): the body of a 200 response streamed into `sink`, at most `limit`
/// bytes (the count written is returned); any other status, or a larger body, is an
/// error naming the URL. Nothing is held in memory but what the sink keeps.
pub trait Http {
    fn get_into(
        &self,
        url: &str,
        limit: u64,
        sink: &mut dyn Write,
    ) -> std::result::Result<u64, GetFailure>;
}

/// Why a GET failed: the body has more than the limit, or anything else (the error).
#[derive(Debug)]
pub enum GetFailure {
    TooLarge,
    Other(Error),
}

impl GetFailure {
    /// The error, a body too large said as over `limit` (`--max-file-bytes`).
    pub fn into_error(self, url: &str, limit: Limit, amount: u64) -> Error {
        match self {
            GetFailure::TooLarge => crate::limits::over_limit(limit, amount, None).wrap(format!(
                "GET {}",
                crate::go::untrusted::quote_untrusted(url)
            )),
            GetFailure::Other(e) => e,
        }
    }
}

/// [`Http::get_into`] a vector: the API's small JSON answers.
pub fn get(http: &dyn Http, url: &str, limit: u64) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    http.get_into(url, limit, &mut out)
        .map_err(|f| f.into_error(url, Limit::FileBytes, limit))?;
    Ok(out)
}

/// Where the GitHub releases live: `https://github.com` and `https://api.github.com`,
/// or a mirror (and a test server).
#[derive(Debug, Clone)]
pub struct GitHub {
    pub web: String,
    pub api: String,
}

impl Default for GitHub {
    fn default() -> Self {
        GitHub {
            web: "https://github.com".into(),
            api: "https://api.github.com".into(),
        }
    }
}

/// One provider to fetch: its configuration (name, type, URL) and the version asked
/// for (`None`: the URL's own, which may be `latest`).
#[derive(Debug, Clone)]
pub struct Wanted {
    pub provider: Provider,
    pub version: Option<String>,
}

/// Where a provider's assets come from, read off its URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    GitHub {
        owner: String,
        repo: String,
        version: String,
        file: String,
    },
    Url {
        dir: String,
        version: String,
        file: String,
    },
}

/// One asset fetched: its path in the repository, its URL, and the sha256 and size of
/// its bytes, which wait in the [`Staging`] area until [`store`] moves them in place.
#[derive(Debug, Clone)]
pub struct Asset {
    pub path: String,
    pub url: String,
    pub sha256: String,
    pub size: u64,
    staged: PathBuf,
}

/// What one fetch did, per asset path: new, unchanged or refreshed (no lock entry, no file).
#[derive(Debug, Default)]
pub struct Outcome {
    pub written: Vec<String>,
    pub unchanged: Vec<String>,
}

fn segment_ok(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains(['/', '\\', '\0'])
}

/// The origin of a provider URL, with `version` (when given) in place of the URL's.
pub fn origin(url: &str, version: Option<&str>) -> Result<Origin> {
    let bad = |why: &str| {
        Error::new(format!("provider URL {url:?}: {why}"))
            .with_hint("repository fetch reads https://github.com/OWNER/REPO/releases/VERSION/FILE, or an http(s) URL ending in VERSION/FILE")
    };
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| bad("not an http(s) URL (a local path needs no fetch)"))?;
    let parts: Vec<&str> = rest.split('/').collect();
    if parts.iter().skip(1).any(|p| !segment_ok(p)) {
        return Err(bad("an empty, `.` or `..` path segment"));
    }
    if parts[0] == "github.com" {
        if parts.len() < 6 || parts[3] != "releases" {
            return Err(bad("a GitHub URL needs OWNER/REPO/releases/VERSION/FILE"));
        }
        return Ok(Origin::GitHub {
            owner: parts[1].into(),
            repo: parts[2].into(),
            version: version.unwrap_or(parts[4]).into(),
            file: parts[parts.len() - 1].into(),
        });
    }
    if parts.len() < 3 {
        return Err(bad("no VERSION/FILE at its end"));
    }
    let n = parts.len();
    let url_version = parts[n - 2];
    let version = version.unwrap_or(url_version);
    if version == "latest" || crate::version::Version::parse(version).is_err() {
        return Err(bad(&format!(
            "{version:?} is not a release version; give the provider a version (NAME:VERSION or spec.version)"
        )));
    }
    let dir = format!("{}/{}", url.rsplitn(3, '/').nth(2).unwrap_or(""), version);
    Ok(Origin::Url {
        dir,
        version: version.into(),
        file: parts[n - 1].into(),
    })
}

/// The newest release of a GitHub release list (`GET /repos/O/R/releases`) that is
/// neither a draft nor a pre-release, by version order.
pub fn newest_release(list: &Value) -> Option<String> {
    list.as_array()?
        .iter()
        .filter(|r| r["draft"] != true && r["prerelease"] != true)
        .filter_map(|r| r["tag_name"].as_str())
        .filter_map(|t| Some((crate::version::Version::parse(t).ok()?, t)))
        .filter(|(v, _)| v.pre.is_empty())
        .max_by_key(|(v, _)| (v.major, v.minor, v.patch))
        .map(|(_, t)| t.to_string())
}

/// The `*.yaml`/`*.yml` asset names of a GitHub release (`GET /repos/O/R/releases/tags/V`).
pub fn yaml_assets(release: &Value) -> Vec<String> {
    let mut names: Vec<String> = release["assets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["name"].as_str())
        .filter(|n| (n.ends_with(".yaml") || n.ends_with(".yml")) && segment_ok(n))
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

fn json_of(http: &dyn Http, url: &str, limit: u64) -> Result<Value> {
    let body = get(http, url, limit)?;
    serde_json::from_slice(&body).map_err(|e| Error::new(format!("GET {url}: not JSON: {e}")))
}

/// Download one provider's assets into the staging area (nothing written in the
/// repository itself); `limit` bounds one JSON answer of the API.
pub fn download(w: &Wanted, gh: &GitHub, http: &dyn Http, stage: &Staging) -> Result<Vec<Asset>> {
    let limit = stage.file_limit;
    let p = &w.provider;
    let at = |e: Error| e.wrap(format!("{} {}", p.ptype, p.name));
    match origin(&p.url, w.version.as_deref()).map_err(at)? {
        Origin::GitHub {
            owner,
            repo,
            version,
            file,
        } => {
            let api = format!(
                "{}/repos/{owner}/{repo}/releases",
                gh.api.trim_end_matches('/')
            );
            let version = if version == "latest" {
                let list = json_of(http, &format!("{api}?per_page=100"), limit).map_err(at)?;
                newest_release(&list).ok_or_else(|| {
                    at(Error::new(format!(
                        "{owner}/{repo} has no release that is neither a draft nor a pre-release"
                    )))
                })?
            } else {
                version
            };
            if !segment_ok(&version) {
                return Err(at(Error::new(format!(
                    "version {version:?} is not a path segment"
                ))));
            }
            let release = json_of(http, &format!("{api}/tags/{version}"), limit).map_err(at)?;
            let names = yaml_assets(&release);
            for need in ["metadata.yaml", file.as_str()] {
                if !names.iter().any(|n| n == need) {
                    return Err(at(Error::new(format!(
                        "release {version} of {owner}/{repo} has no asset {need}; its YAML assets: {}",
                        names.join(", ")
                    ))));
                }
            }
            let web = gh.web.trim_end_matches('/');
            let base = format!("{web}/{owner}/{repo}/releases/download/{version}");
            fetch_all(p, &file, &names, &base, &version, http, stage).map_err(at)
        }
        Origin::Url { dir, version, file } => {
            let names = ["metadata.yaml".to_string(), file.clone()];
            fetch_all(p, &file, &names, &dir, &version, http, stage).map_err(at)
        }
    }
}

/// GET each asset of [`wanted_assets`] from `base`.
fn fetch_all(
    p: &Provider,
    components: &str,
    names: &[String],
    base: &str,
    version: &str,
    http: &dyn Http,
    stage: &Staging,
) -> Result<Vec<Asset>> {
    let label = p.manifest_label();
    wanted_assets(p, components, names)
        .into_iter()
        .map(|(n, saved)| {
            let url = format!("{base}/{n}");
            stage.fetch(http, url, format!("{label}/{version}/{saved}"))
        })
        .collect()
}

/// The assets a local repository needs of a release, as (asset, name saved under):
/// `metadata.yaml`, the components file the URL names, saved under the name a
/// repository reads (`<type>-components.yaml`: the docker provider's
/// `infrastructure-components-development.yaml` becomes `infrastructure-components.yaml`,
/// as Cluster API's e2e configuration serves it), and for an infrastructure provider its
/// cluster templates and ClusterClasses (`cluster-template*.yaml`, `clusterclass*.yaml`)
/// that `generate cluster` reads.
fn wanted_assets(p: &Provider, components: &str, names: &[String]) -> Vec<(String, String)> {
    let templates = p.ptype == crate::provider::ProviderType::Infrastructure;
    let template = |n: &str| n.starts_with("cluster-template") || n.starts_with("clusterclass");
    names
        .iter()
        .filter_map(|n| {
            if n == components {
                Some((n.clone(), p.ptype.default_components_file().to_string()))
            } else if n == "metadata.yaml" || (templates && template(n)) {
                Some((n.clone(), n.clone()))
            } else {
                None
            }
        })
        .collect()
}

/// The lock: asset path → (URL, sha256).
pub type Lock = BTreeMap<String, (String, String)>;

/// Read `DIR/fetch-lock.yaml` (empty when there is none).
pub fn read_lock(dir: &Path) -> Result<Lock> {
    let path = dir.join(LOCK_FILE);
    if !path.exists() {
        return Ok(Lock::new());
    }
    let shown = path.display().to_string();
    let text = crate::limits::read_text(&path, &shown, |e| {
        Error::new(format!("cannot read {shown}: {e}"))
    })?;
    let v = crate::yaml::parse_value(&text).map_err(|e| e.wrap(&shown))?;
    let mut lock = Lock::new();
    for (i, a) in v["assets"].as_array().into_iter().flatten().enumerate() {
        let s = |k: &str| a[k].as_str().map(str::to_string);
        match (s("path"), s("url"), s("sha256")) {
            (Some(p), Some(u), Some(h)) => {
                lock.insert(p, (u, h));
            }
            _ => {
                return Err(Error::new(format!(
                    "{shown}: assets[{i}]: path, url and sha256 are required"
                )))
            }
        }
    }
    Ok(lock)
}

/// The lock's text.
pub fn lock_text(lock: &Lock) -> String {
    let assets: Vec<Value> = lock
        .iter()
        .map(|(p, (u, h))| json!({"path": p, "url": u, "sha256": h}))
        .collect();
    format!(
        "# capi-render repository fetch: the sha256 of every asset downloaded into this\n# repository. A later fetch refuses an asset whose bytes changed.\n{}",
        crate::yaml::to_yaml(&json!({ "assets": assets }))
    )
}

/// Check the downloads against the lock and the files already there, then move the
/// new or changed files in place and write the lock. All checks come before the first
/// write.
pub fn store(dir: &Path, assets: &[Asset]) -> Result<Outcome> {
    let mut lock = read_lock(dir)?;
    let mut plan: Vec<(PathBuf, &Asset)> = Vec::new();
    let mut out = Outcome::default();
    for a in assets {
        let target = crate::paths::safe_join(dir, &a.path, "repository fetch")?;
        let sum = &a.sha256;
        if let Some((url, recorded)) = lock.get(&a.path) {
            if recorded != sum {
                return Err(Error::new(format!(
                    "{}: {} changed since it was fetched: the lock records sha256 {recorded} (from {url}), the download is {sum}",
                    a.path, a.url
                ))
                .with_hint(format!("a release asset should never change; check the release, and only if the change is expected delete the asset's entry from {} and fetch again", dir.join(LOCK_FILE).display())));
            }
        }
        match file_sha256(&target) {
            Ok(old) if old == *sum => out.unchanged.push(a.path.clone()),
            Ok(_) if !lock.contains_key(&a.path) => {
                return Err(Error::new(format!(
                    "{}: the file is already there, differs from {} and is not in {LOCK_FILE}",
                    target.display(),
                    a.url
                ))
                .with_hint(
                    "move the file away (it was not written by repository fetch), then fetch again",
                ));
            }
            _ => {
                out.written.push(a.path.clone());
                plan.push((target, a));
            }
        }
        lock.insert(a.path.clone(), (a.url.clone(), sum.clone()));
    }
    for (target, a) in plan {
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::new(format!("cannot create {}: {e}", parent.display())))?;
        }
        std::fs::rename(&a.staged, &target)
            .map_err(|e| Error::new(format!("cannot write {}: {e}", target.display())))?;
    }
    write_atomic(&dir.join(LOCK_FILE), lock_text(&lock).as_bytes())?;
    Ok(out)
}

/// The sha256 of a file's bytes, read in pieces.
fn file_sha256(path: &Path) -> std::io::Result<String> {
    use std::io::Read as _;
    let mut f = std::fs::File::open(path)?;
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(crate::model::hex(&h.finalize()))
}

fn write_atomic(target: &Path, bytes: &[u8]) -> Result<()> {
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("asset");
    let tmp = target.with_file_name(format!(".{name}.fetch-tmp"));
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, target))
        .map_err(|e| Error::new(format!("cannot write {}: {e}", target.display())))
}

mod origin_rule;
mod staging;
pub use origin_rule::token_goes_to;
use sha2::Digest as _;
pub use staging::Staging;

#[cfg(test)]
mod tests;
