//! Version listing and `latest` selection (R3.4, R3.6).

use std::cmp::Ordering;

use super::{go_os_error, LocalRepository};
use crate::error::{Error, Result};
use crate::version::Version;

const NO_RELEASES: &str = "failed to find releases tagged with a valid semantic version number";

impl LocalRepository {
    /// R3.4: the semver-named directories directly under the provider folder,
    /// names verbatim, in byte order (as Go's `os.ReadDir` returns them).
    pub fn versions(&self) -> Result<Vec<String>> {
        let dir = self.provider_dir();
        let entries = std::fs::read_dir(&dir).map_err(|e| {
            Error::new(format!(
                "failed to list release directories: {}",
                go_os_error("open", &dir, &e)
            ))
            .with_hint(self.providers_hint())
        })?;
        let mut out = Vec::new();
        for e in entries.flatten() {
            let Ok(name) = e.file_name().into_string() else {
                continue;
            };
            if e.path().is_dir() && Version::parse(&name).is_ok() {
                out.push(name);
            }
        }
        out.sort();
        Ok(out)
    }

    /// R3.6 `latestPatchRelease`: GA before pre-release, each descending, top 5;
    /// the first candidate whose `v<canonical>` folder has a readable metadata.yaml.
    pub fn latest_patch_release(&self, major: Option<u64>, minor: Option<u64>) -> Result<String> {
        let mut cands: Vec<Version> = self
            .versions()?
            .iter()
            .filter_map(|v| Version::parse(v).ok())
            .filter(|v| major.is_none_or(|m| v.major == m) && minor.is_none_or(|m| v.minor == m))
            .collect();
        if cands.is_empty() {
            return Err(Error::new(NO_RELEASES));
        }
        cands.sort_by(|a, b| match (a.is_prerelease(), b.is_prerelease()) {
            (false, true) => Ordering::Less,
            (true, false) => Ordering::Greater,
            _ => b.compare(a),
        });
        // A local repository has no "not found" sentinel: the first candidate decides.
        if let Some(v) = cands.into_iter().take(5).next() {
            let vs = format!("v{v}");
            self.get_file(&vs, "metadata.yaml")?;
            return Ok(vs);
        }
        Err(Error::new(NO_RELEASES))
    }

    pub fn latest_release(&self) -> Result<String> {
        self.latest_patch_release(None, None)
    }

    /// R3.6 `latestContractRelease`.
    pub fn latest_contract_release(&self, contract: &str) -> Result<String> {
        let latest = self.latest_release()?;
        let Ok(meta) = self.metadata(&latest) else {
            return Ok(latest);
        };
        let Some(rs) = meta.series_for_contract(contract) else {
            return Ok(latest);
        };
        let v = Version::parse(&latest)?;
        if v.major as i64 != rs.major || v.minor as i64 != rs.minor {
            return self.latest_patch_release(Some(rs.major as u64), Some(rs.minor as u64));
        }
        Ok(latest)
    }
}
