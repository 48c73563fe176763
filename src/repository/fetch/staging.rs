//! Where downloads wait until every check has passed: a directory of the repository
//! being filled (`DIR/.capi-render-fetch-<pid>-<n>/`), created fresh, removed with
//! everything in it when the fetch ends, however it ends. Each asset is streamed to a
//! file there while its sha256 is computed, so a release's assets never sit in memory;
//! one asset may have at most `--max-file-bytes`, all of a run's together at most
//! `--max-total-bytes`, both counted as the bytes arrive.

use std::cell::Cell;
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{Asset, Http};
use crate::error::{Error, Result};
use crate::limits::Limit;

/// The staging area of one fetch, with its byte budgets.
#[derive(Debug)]
pub struct Staging {
    dir: PathBuf,
    /// Bytes one asset (or one API answer) may have.
    pub file_limit: u64,
    /// Bytes all assets of the run may have together.
    total_limit: u64,
    used: Cell<u64>,
    count: Cell<u64>,
}

impl Staging {
    /// A new, empty staging directory inside `repo` (which must exist), with the
    /// per-asset and total byte limits.
    pub fn new(repo: &Path, file_limit: u64, total_limit: u64) -> Result<Staging> {
        let dir = repo.join(format!(".capi-render-fetch-{}", std::process::id()));
        // `create_dir` (not `_all`): an entry already there, a link included, is
        // refused rather than written into.
        std::fs::create_dir(&dir).map_err(|e| {
            Error::new(format!("cannot create {}: {e}", dir.display())).with_hint(format!(
                "a fetch that was killed may have left it: remove {} and fetch again",
                dir.display()
            ))
        })?;
        Ok(Staging {
            dir,
            file_limit,
            total_limit,
            used: Cell::new(0),
            count: Cell::new(0),
        })
    }

    /// GET `url` into a staged file, counted against both limits; the asset that
    /// [`super::store`] moves to `path` in the repository.
    pub fn fetch(&self, http: &dyn Http, url: String, path: String) -> Result<Asset> {
        let n = self.count.get();
        self.count.set(n + 1);
        let staged = self.dir.join(format!("{n}.asset"));
        let file = std::fs::File::create_new(&staged)
            .map_err(|e| Error::new(format!("cannot write {}: {e}", staged.display())))?;
        let left = self.total_limit.saturating_sub(self.used.get());
        let mut sink = Sink {
            file: std::io::BufWriter::new(file),
            hash: Sha256::new(),
            written: 0,
            left,
        };
        let size = http
            .get_into(&url, self.file_limit.min(left), &mut sink)
            .map_err(|f| {
                if left < self.file_limit {
                    // The total was the bound that held.
                    f.into_error(&url, Limit::TotalBytes, self.total_limit)
                        .wrap("the assets of this fetch together")
                } else {
                    f.into_error(&url, Limit::FileBytes, self.file_limit)
                }
            })?;
        sink.file
            .flush()
            .map_err(|e| Error::new(format!("cannot write {}: {e}", staged.display())))?;
        self.used.set(self.used.get() + size);
        Ok(Asset {
            path,
            url,
            sha256: crate::model::hex(&sink.hash.finalize()),
            size,
            staged,
        })
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A staged file and the running sha256 of what was written to it.
struct Sink {
    file: std::io::BufWriter<std::fs::File>,
    hash: Sha256,
    written: u64,
    left: u64,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // The transport stops at the limit it was given; this holds whatever it does.
        if self.written.saturating_add(buf.len() as u64) > self.left {
            return Err(std::io::Error::other("over the total byte limit"));
        }
        let n = self.file.write(buf)?;
        self.hash.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}
