//! Which Cluster units a run may skip, and the tree's outputs in path order: the
//! units the previous lock records ([`keepable`]), whether a kept unit is still in
//! place ([`still_in_place`]), which previous outputs are a kept unit's
//! ([`in_kept_dirs`]) and the outputs of kept and rendered units sorted by blocks
//! ([`sorted_by_blocks`]).

use std::path::Path;
use std::sync::Arc;

use super::lock;
use super::unit_dir_of;

/// The Cluster units the previous lock lets a run skip: by directory, the record and
/// the unit's files (path, sha256) as the lock lists them, next to each other.
pub(super) type Keepable<'a> =
    rustc_hash::FxHashMap<&'a str, (&'a lock::UnitRecord, &'a [lock::Owned<'a>])>;

/// `units`: the previous lock's; `outs`: its outputs ([`lock::Outputs::views`]).
pub(super) fn keepable<'a>(
    units: &'a [lock::UnitRecord],
    outs: &'a [lock::Owned<'a>],
) -> Keepable<'a> {
    let mut k: Keepable = units
        .iter()
        .map(|r| (r.dir.as_str(), (r, &[][..])))
        .collect();
    // A unit's files are next to each other in a lock the writer wrote (sorted by
    // path): one look-up per run of files in the same directory. A unit whose files
    // come in more than one run (a lock edited by hand) is not kept: it renders.
    let mut split = rustc_hash::FxHashSet::default();
    let mut i = 0;
    while i < outs.len() {
        let Some(dir) = unit_dir_of(outs[i].path) else {
            i += 1;
            continue;
        };
        let run = i
            + 1
            + outs[i + 1..]
                .iter()
                .position(|o| !in_dir(o.path, dir))
                .unwrap_or(outs.len() - i - 1);
        if let Some((_, files)) = k.get_mut(dir) {
            if files.is_empty() {
                *files = &outs[i..run];
            } else {
                split.insert(dir);
            }
        }
        i = run;
    }
    k.retain(|d, _| !split.contains(d));
    k
}

/// Whether `path` is in directory `dir` (at any depth).
fn in_dir(path: &str, dir: &str) -> bool {
    path.len() > dir.len() && path.as_bytes()[dir.len()] == b'/' && path.starts_with(dir)
}

/// Whether each of `prev`'s files is in a kept unit's directory, in order: one look-up
/// in `kept` per run of files in the same directory.
pub(super) fn in_kept_dirs<'p>(
    prev: &'p [lock::Owned<'p>],
    kept: &'p rustc_hash::FxHashSet<String>,
) -> impl Iterator<Item = (&'p lock::Owned<'p>, bool)> + 'p {
    let mut last: Option<(&str, bool)> = None;
    prev.iter().map(move |o| {
        // Most files are in the unit directory of the file before (its first three
        // segments, then `/`).
        if let Some((l, k)) = last {
            if in_dir(o.path, l) {
                return (o, k);
            }
        }
        let Some(d) = unit_dir_of(o.path) else {
            return (o, false);
        };
        match last {
            Some((l, k)) if l == d => (o, k),
            _ => {
                let k = kept.contains(d);
                last = Some((d, k));
                (o, k)
            }
        }
    })
}

/// Where kept units are looked for: OUT, and each unit's parent directory
/// (`clusters/<ns>`) listed once: its subdirectories that are real directories, or
/// `None` when it, or a directory above it, is not one (a link, a file, missing).
pub(super) struct Places<'o> {
    out: &'o Path,
    listed: std::sync::Mutex<rustc_hash::FxHashMap<String, Option<Arc<Listing>>>>,
}

/// A parent directory's subdirectories (not links to one), by name, and the
/// directory held open (looks below it are relative to it).
struct Listing {
    #[cfg(not(unix))]
    full: std::path::PathBuf,
    dirs: rustc_hash::FxHashSet<String>,
    #[cfg(unix)]
    open: std::fs::File,
}

impl Listing {
    /// Whether `name/<rel>` is a directory, not a link (`name` is one of `dirs`):
    /// `fstatat` from the open directory, so two path components are looked up per
    /// unit instead of OUT's whole path from `/`.
    #[cfg(unix)]
    fn is_real_dir_below(&self, name: &str, rel: &str) -> bool {
        use std::os::fd::AsRawFd;
        let Ok(path) = std::ffi::CString::new(format!("{name}/{rel}")) else {
            return false;
        };
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: `path` is NUL-terminated and outlives the call, `st` is a buffer for
        // one `stat` that fstatat fills, and the descriptor stays open (`self.open`).
        let rc = unsafe {
            libc::fstatat(
                self.open.as_raw_fd(),
                path.as_ptr(),
                st.as_mut_ptr(),
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        if rc != 0 {
            return false;
        }
        // SAFETY: fstatat returned 0, so it wrote the whole `stat`.
        let st = unsafe { st.assume_init() };
        st.st_mode & libc::S_IFMT == libc::S_IFDIR
    }

    #[cfg(not(unix))]
    fn is_real_dir_below(&self, name: &str, rel: &str) -> bool {
        std::fs::symlink_metadata(self.full.join(name).join(rel)).is_ok_and(|m| m.is_dir())
    }
}

impl<'o> Places<'o> {
    pub(super) fn new(out: &'o Path) -> Self {
        Places {
            out,
            listed: Default::default(),
        }
    }

    /// `parent`'s listing: listed on first use (by one worker; the other waits).
    fn listing(&self, parent: &str) -> Option<Arc<Listing>> {
        let mut listed = self.listed.lock().ok()?;
        if let Some(l) = listed.get(parent) {
            return l.clone();
        }
        let l = self.list(parent).map(Arc::new);
        listed.insert(parent.to_string(), l.clone());
        l
    }

    fn list(&self, parent: &str) -> Option<Listing> {
        let mut full = self.out.to_path_buf();
        for seg in parent.split('/') {
            full.push(seg);
            // Every directory on the way is a real one, not a link.
            if !std::fs::symlink_metadata(&full).is_ok_and(|m| m.is_dir()) {
                return None;
            }
        }
        #[cfg(unix)]
        let open = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
                .open(&full)
                .ok()?
        };
        // An entry's type is the directory's own record of it (not followed): a link
        // to a directory is not a directory here.
        let dirs = std::fs::read_dir(&full)
            .ok()?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        Some(Listing {
            #[cfg(not(unix))]
            full,
            dirs,
            #[cfg(unix)]
            open,
        })
    }
}

/// A kept unit is still in place: its directory, and its review directory when the
/// lock lists files there, are directories in OUT with no symbolic link on the way,
/// and the lock lists only files directly in them. The unit's directory is found in
/// its parent's listing ([`Places`], one listing per namespace), the review directory
/// by one look: a no-change run over 100,000 Clusters must not look at 1.5 million
/// files. Deleting a unit's directory renders it again; a file edited or deleted
/// inside it is seen by `--full`, which compares every byte (README "Incremental").
/// The files themselves are never read or written here, so a link put in their place
/// is harmless until the unit renders again, when the writer refuses it.
pub(super) fn still_in_place(places: &Places, dir: &str, files: &[lock::Owned<'_>]) -> bool {
    if files.is_empty() {
        return false;
    }
    let mut review = false;
    for o in files {
        match o.path.strip_prefix(dir).and_then(|r| r.strip_prefix('/')) {
            Some(rest) => match rest
                .strip_prefix(crate::model::REVIEW_DIR)
                .and_then(|r| r.strip_prefix('/'))
            {
                Some(name) if !name.contains('/') => review = true,
                _ if !rest.contains('/') => {}
                _ => return false,
            },
            None => return false,
        }
    }
    let Some((parent, name)) = dir.rsplit_once('/') else {
        return false;
    };
    let Some(listing) = places.listing(parent) else {
        return false;
    };
    if !listing.dirs.contains(name) {
        return false;
    }
    !review || listing.is_real_dir_below(name, crate::model::REVIEW_DIR)
}

/// `items` sorted, given as blocks (ranges of `items` that cover it): each block is
/// sorted, the blocks are ordered by their first item, and the result is checked. A
/// unit's files all start with its directory and no other file does, so its block is
/// one run of the sorted whole: 100,000 blocks are ordered instead of 1.5 million
/// files. Anything else is sorted whole. Items are unique.
pub(super) fn sorted_by_blocks<T: Ord + Send + Sync + Default>(
    mut items: Vec<T>,
    mut blocks: Vec<std::ops::Range<usize>>,
) -> Vec<T> {
    use rayon::slice::ParallelSliceMut;
    // The blocks must tile `items` in order: each starts where the one before ended,
    // from 0 to the end.
    let mut end = 0;
    let tiled = blocks.iter().all(|b| {
        let next = b.start == end && b.end >= b.start;
        end = b.end;
        next
    }) && end == items.len();
    if !tiled {
        items.par_sort_unstable();
        return items;
    }
    blocks.retain(|b| !b.is_empty());
    for b in &blocks {
        items[b.clone()].sort_unstable();
    }
    blocks.par_sort_unstable_by(|a, b| items[a.start].cmp(&items[b.start]));
    let mut sorted: Vec<T> = Vec::with_capacity(items.len());
    for b in blocks {
        sorted.extend(items[b].iter_mut().map(std::mem::take));
    }
    if !sorted.windows(2).all(|w| w[0] < w[1]) {
        sorted.par_sort_unstable();
    }
    sorted
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUM: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn owned(path: &str) -> lock::Owned<'_> {
        lock::Owned { path, sha256: SUM }
    }

    fn record(dir: &str) -> lock::UnitRecord {
        lock::UnitRecord {
            dir: dir.to_string(),
            inputs: crate::model::sha256_hex(dir.as_bytes()),
            bytes: 1,
            cluster: String::new(),
            source: String::new(),
        }
    }

    proptest::proptest! {
        // A fixed seed: the same cases on every run and machine.
        #![proptest_config(proptest::test_runner::Config {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x6b65_6570),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]
        /// Any items in any blocks (runs of one directory or not, tiling the items or
        /// not): the result is the full sort.
        #[test]
        fn sorting_by_blocks_is_the_full_sort(
            items in proptest::collection::btree_set("[ab]{1,2}/[ab-]{0,3}", 0..40),
            cuts in proptest::collection::vec(0usize..40, 0..12),
            shuffle in proptest::collection::vec(proptest::num::usize::ANY, 0..40),
            shape in 0usize..3,
        ) {
            let mut items: Vec<String> = items.into_iter().collect();
            let n = items.len();
            for (i, s) in shuffle.iter().enumerate().take(n) {
                items.swap(i, s % n.max(1));
            }
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(n)).collect();
            cuts.extend([0, n]);
            cuts.sort_unstable();
            cuts.dedup();
            let mut blocks: Vec<std::ops::Range<usize>> = cuts.windows(2).map(|w| w[0]..w[1]).collect();
            match shape % 3 {
                // The last block left out.
                1 if !blocks.is_empty() => {
                    blocks.pop();
                }
                // The first two blocks overlapping and the last item in none: the
                // blocks' lengths add up to the items', but they do not tile them.
                2 if blocks.len() >= 2 && !blocks[1].is_empty() => {
                    blocks[0].end += 1;
                    let last = blocks.len() - 1;
                    blocks[last].end -= 1;
                }
                _ => {}
            }
            let mut want = items.clone();
            want.sort_unstable();
            proptest::prop_assert_eq!(sorted_by_blocks(items, blocks), want);
        }
    }

    #[test]
    fn blocks_of_unit_directories_are_ordered_as_wholes() {
        // `a-b/` sorts before `a/` ('-' < '/'): blocks are ordered by their first
        // item, not by directory name; a root file between them stays in place.
        let items: Vec<String> = ["c/a/x", "c/a/y", "c/a-b/x", "c/kustomization.yaml", "c/a/z"]
            .map(String::from)
            .to_vec();
        let blocks = vec![0..2, 2..3, 3..4, 4..5];
        let got = sorted_by_blocks(items.clone(), blocks);
        let mut want = items;
        want.sort_unstable();
        assert_eq!(got, want);
    }

    #[test]
    fn a_unit_is_keepable_with_its_files_only_when_they_are_one_run() {
        let outputs = [
            "clusters/ns/a/cluster-a.yaml",
            "clusters/ns/a/desired/x.yaml",
            "clusters/ns/a/kustomization.yaml",
            "clusters/ns/b/cluster-b.yaml",
            "clusters/ns/c/cluster-c.yaml",
            "clusters/ns/kustomization.yaml",
            "clusters/ns/c/desired/x.yaml",
            "kustomization.yaml",
        ];
        let prev = lock::Lock {
            outputs: outputs.iter().map(|p| (p, SUM)).collect(),
            units: [
                "clusters/ns/a",
                "clusters/ns/b",
                "clusters/ns/c",
                "clusters/ns/d",
            ]
            .map(record)
            .to_vec(),
            inputs: Vec::new(),
        };
        let views = prev.outputs.views();
        let k = keepable(&prev.units, &views);
        let paths = |d: &str| -> Vec<&str> { k[d].1.iter().map(|o| o.path).collect() };
        assert_eq!(paths("clusters/ns/a"), outputs[..3].to_vec());
        assert_eq!(paths("clusters/ns/b"), outputs[3..4].to_vec());
        // c's files come in two runs (not the writer's order): c renders.
        assert!(!k.contains_key("clusters/ns/c"));
        // d has no files: kept with none, which `still_in_place` refuses.
        assert!(k["clusters/ns/d"].1.is_empty());
        // Which previous outputs are a kept unit's.
        let kept: rustc_hash::FxHashSet<String> =
            ["clusters/ns/a".to_string(), "clusters/ns/c".to_string()]
                .into_iter()
                .collect();
        let flags: Vec<bool> = in_kept_dirs(&views, &kept).map(|(_, k)| k).collect();
        assert_eq!(flags, [true, true, true, false, true, false, true, false]);
    }

    #[test]
    fn a_unit_is_in_place_while_its_directories_are() {
        let out = std::env::temp_dir().join(format!("capi-render-keep-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let unit = out.join("clusters/ns/a");
        std::fs::create_dir_all(unit.join("desired")).unwrap();
        let files: Vec<lock::Owned<'_>> = [
            "clusters/ns/a/cluster-a.yaml",
            "clusters/ns/a/desired/x.yaml",
        ]
        .map(owned)
        .to_vec();
        // A fresh look each time (the listing is per run).
        let at =
            |files: &[lock::Owned<'_>]| still_in_place(&Places::new(&out), "clusters/ns/a", files);
        // The files themselves are not looked at.
        assert!(at(&files));
        assert!(at(&files[..1]));
        assert!(!at(&[]));
        // A file deeper than the review directory, or outside the unit: not the
        // writer's layout.
        assert!(!at(&[owned("clusters/ns/a/desired/deeper/x.yaml")]));
        assert!(!at(&[owned("clusters/ns/b/x.yaml")]));
        // The review directory gone: not in place when the lock lists files there.
        std::fs::remove_dir(unit.join("desired")).unwrap();
        assert!(!at(&files));
        assert!(at(&files[..1]));
        // The review directory a link to a directory: not in place.
        std::fs::create_dir_all(out.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(out.join("elsewhere"), unit.join("desired")).unwrap();
        assert!(!at(&files));
        // The unit's directory gone.
        std::fs::remove_dir_all(&unit).unwrap();
        assert!(!at(&files[..1]));
        // The unit's directory a link to a real unit directory: not in place.
        let real = out.join("elsewhere/a");
        std::fs::create_dir_all(real.join("desired")).unwrap();
        std::os::unix::fs::symlink(&real, &unit).unwrap();
        assert!(!at(&files[..1]));
        assert!(!at(&files));
        std::fs::remove_file(&unit).unwrap();
        // The namespace directory a link to one that holds the unit: not in place.
        std::fs::rename(out.join("elsewhere"), out.join("ns2")).unwrap();
        std::fs::remove_dir(out.join("clusters/ns")).unwrap();
        std::os::unix::fs::symlink(out.join("ns2"), out.join("clusters/ns")).unwrap();
        assert!(!at(&files[..1]));
        // Back to a real directory: in place again.
        std::fs::remove_file(out.join("clusters/ns")).unwrap();
        std::fs::rename(out.join("ns2"), out.join("clusters/ns")).unwrap();
        assert!(at(&files));
        let _ = std::fs::remove_dir_all(&out);
    }
}
