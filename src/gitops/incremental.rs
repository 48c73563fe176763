//! What lets a run skip work the lock says is done: OUT opened before the inputs are
//! read ([`Opened`]) and the input files a run may leave unparsed ([`Deferral`]).

use std::collections::HashMap;
use std::path::Path;

use super::{lock, open_check, open_out, TreeOptions};
use crate::error::Result;

/// OUT opened before its inputs are read (so that an unchanged file of Clusters need
/// not be parsed: [`Opened::deferral`]): its advisory lock held and an interrupted run
/// recovered when OUT exists (a missing OUT is created only when the tree is written),
/// and the outputs and records of its lock.
pub struct Opened {
    pub(super) held: Option<std::fs::File>,
    pub(super) prev: lock::Lock,
    /// Whether the report of a write lists the files of kept units (the default) or
    /// only counts them ([`Opened::listing_unchanged`]).
    pub(super) list_unchanged: bool,
}

impl Opened {
    /// What the previous lock says of the files `--secrets sops` sealed.
    pub fn sealed_previous(&self) -> super::sealed::Previous {
        super::sealed::Previous::of(&self.prev)
    }

    /// For `render -o`.
    pub fn for_write(out: &Path) -> Result<Opened> {
        if std::fs::symlink_metadata(out).is_err() {
            return Ok(Opened {
                held: None,
                prev: lock::Lock::default(),
                list_unchanged: true,
            });
        }
        let (held, prev) = open_out(out)?;
        Ok(Opened {
            held: Some(held),
            prev,
            list_unchanged: true,
        })
    }

    /// For `render --check`.
    pub fn for_check(out: &Path) -> Result<Opened> {
        let (held, prev) = open_check(out)?;
        Ok(Opened {
            held,
            prev,
            list_unchanged: true,
        })
    }

    /// `false`: the write's report counts the unchanged files of kept units
    /// ([`super::WriteReport::unchanged_unlisted`]) instead of listing them, which
    /// keeps a 100,000-Cluster no-change run from holding 1.5 million paths that only
    /// a JSON report prints.
    pub fn listing_unchanged(mut self, yes: bool) -> Opened {
        self.list_unchanged = yes;
        self
    }

    /// `Err` when a run recording `now` would remove a unit family OUT's lock
    /// records, unless `allow_prune` ([`super::families`]).
    pub fn refuse_losses(
        &self,
        out: &Path,
        now: &lock::RenderCommand,
        allow_prune: bool,
    ) -> Result<()> {
        super::families::refuse_losses(
            &out.display().to_string(),
            &self.prev.outputs.views(),
            self.prev.command.as_ref(),
            now,
            allow_prune,
        )
    }

    /// The input files the run may leave unparsed (none unless [`incremental`]).
    pub fn deferral(&self, out: &Path, opts: &TreeOptions, full: bool) -> Deferral {
        if !incremental(opts, full) {
            return Deferral::default();
        }
        Deferral::new(&self.prev, out)
    }
}

/// Whether a run may skip what the lock says is unchanged: not with `full`, nor with
/// Flux or Argo CD files, which depend on every unit.
pub(super) fn incremental(opts: &TreeOptions, full: bool) -> bool {
    !full && !opts.flux && opts.argocd.is_none()
}

/// The input files of the previous run that held only topology Clusters, as its lock
/// records them: path (relative to OUT), sha256 and the Clusters it rendered from
/// each (every one with its recorded sum). A file whose bytes still have that sha256
/// holds exactly those Clusters, so it need not be parsed: its Clusters are kept
/// when their fingerprints match, and the file is parsed only when one has to render
/// (`render::Inputs::defer`). Like the fingerprints, this trusts the lock; `--full`
/// parses every file.
#[derive(Default)]
pub struct Deferral {
    out: std::path::PathBuf,
    files: HashMap<String, (String, Vec<crate::render::RecordedCluster>)>,
}

impl Deferral {
    fn new(prev: &lock::Lock, out: &Path) -> Deferral {
        let mut by_source: HashMap<&str, Vec<crate::render::RecordedCluster>> = HashMap::new();
        for u in &prev.units {
            if u.source.is_empty() || u.cluster.is_empty() {
                continue;
            }
            let mut segs = u.dir.splitn(3, '/').skip(1);
            let (Some(ns), Some(name)) = (segs.next(), segs.next()) else {
                continue;
            };
            by_source
                .entry(u.source.as_str())
                .or_default()
                .push(crate::render::RecordedCluster {
                    namespace: ns.to_string(),
                    name: name.to_string(),
                    hash: u.cluster.clone(),
                });
        }
        let files = prev
            .inputs
            .iter()
            .filter_map(|i| {
                let n = i.clusters?;
                let recorded = by_source.remove(i.path.as_str())?;
                (recorded.len() == n).then(|| (i.path.clone(), (i.sha256.clone(), recorded)))
            })
            .collect();
        Deferral {
            out: out.to_path_buf(),
            files,
        }
    }

    /// Whether the input file at `path` (as loaded) with these bytes' `sha256` may be
    /// left unparsed.
    pub fn accepts(&self, path: &str, sha256: &str) -> bool {
        !self.files.is_empty()
            && self
                .files
                .get(&crate::paths::relative_to(path, &self.out))
                .is_some_and(|(s, _)| s == sha256)
    }

    /// The Clusters recorded for a file [`Deferral::accepts`], in file order.
    pub fn clusters(&self, path: &str) -> Vec<crate::render::RecordedCluster> {
        self.files
            .get(&crate::paths::relative_to(path, &self.out))
            .map(|(_, c)| c.clone())
            .unwrap_or_default()
    }

    /// Load `paths` into [`crate::render::Inputs`], leaving the files this accepts
    /// unparsed ([`crate::render::Inputs::defer`]): the inputs, the files read (with
    /// their sums) and how many were left unparsed.
    pub fn load(
        &self,
        paths: &[std::path::PathBuf],
        meter: &crate::limits::Meter,
    ) -> Result<(crate::render::Inputs, Vec<crate::model::InputFile>, usize)> {
        use crate::load::Item;
        let mut inputs = crate::render::Inputs::default();
        let mut deferred = 0;
        let files = crate::load::load_paths_mapped(
            paths,
            meter,
            &|p, sum| self.accepts(p, sum),
            &crate::render::Inputs::admit,
            &mut |item| {
                match item {
                    Item::Object(a) => inputs.push_admitted(a),
                    Item::Deferred(f) => {
                        deferred += 1;
                        let recorded = self.clusters(&f.path);
                        inputs.defer(f, recorded)
                    }
                }
                Ok(())
            },
        )?;
        Ok((inputs, files, deferred))
    }
}
