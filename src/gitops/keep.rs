//! Which Cluster units a run may skip, and the tree's outputs in path order: the
//! units the previous lock records ([`keepable`]), whether a kept unit is still in
//! place ([`still_in_place`]), which previous outputs are a kept unit's
//! ([`in_kept_dirs`]) and the outputs of kept and rendered units in path order, a
//! block per unit ([`ordered_blocks`]).

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use super::lock;
use super::unit_dir_of;

/// The Cluster units the previous lock lets a run skip: by directory, the record, the
/// unit's files (path, sha256) as the lock lists them, next to each other, and where
/// the first of them is in the lock's outputs.
pub(super) type Keepable<'a> =
    rustc_hash::FxHashMap<&'a str, (&'a lock::UnitRecord, &'a [lock::Owned<'a>], usize)>;

/// `units`: the previous lock's; `outs`: its outputs ([`lock::Outputs::views`]).
pub(super) fn keepable<'a>(
    units: &'a [lock::UnitRecord],
    outs: &'a [lock::Owned<'a>],
) -> Keepable<'a> {
    let mut k: Keepable = units
        .iter()
        .map(|r| (r.dir.as_str(), (r, &[][..], 0)))
        .collect();
    // A unit's files are next to each other in a lock the writer wrote (sorted by
    // path): one look-up per run of files in the same directory. A unit whose files
    // come in more than one run (a lock edited by hand) is not kept: it renders.
    let mut split = rustc_hash::FxHashSet::default();
    for (dir, run) in runs_on_all_cores(outs, 1 << 16) {
        if let Some((_, files, at)) = k.get_mut(dir) {
            if files.is_empty() {
                *files = &outs[run.clone()];
                *at = run.start;
            } else {
                split.insert(dir);
            }
        }
    }
    k.retain(|d, _| !split.contains(d));
    k
}

/// The runs of `outs` (1.5 million files at 100,000 Clusters) as [`runs`] finds them,
/// found on all cores in chunks of about `chunk` files that start where a run does.
fn runs_on_all_cores<'a>(
    outs: &'a [lock::Owned<'a>],
    chunk: usize,
) -> Vec<(&'a str, Range<usize>)> {
    use rayon::prelude::*;
    // `b` starts a run unless the file before is in a unit directory and `b` is in it.
    let starts_run = |b: usize| {
        b == 0
            || b >= outs.len()
            || unit_dir_of(outs[b - 1].path).is_none_or(|d| !in_dir(outs[b].path, d))
    };
    let step = chunk.max(1);
    let mut cuts = vec![0];
    let mut b = step;
    while b < outs.len() {
        while !starts_run(b) {
            b += 1;
        }
        if b < outs.len() {
            cuts.push(b);
        }
        b += step;
    }
    cuts.push(outs.len());
    cuts.par_windows(2)
        .flat_map_iter(|w| runs(&outs[w[0]..w[1]], w[0]))
        .collect()
}

/// Each run of `outs` (files next to each other in the unit directory of the first):
/// the directory and the run's place, `at` added; a file in no unit directory is in
/// none.
fn runs<'a>(outs: &'a [lock::Owned<'a>], at: usize) -> Vec<(&'a str, Range<usize>)> {
    let mut found = Vec::new();
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
        found.push((dir, at + i..at + run));
        i = run;
    }
    found
}

/// Whether `path` is in directory `dir` (at any depth).
fn in_dir(path: &str, dir: &str) -> bool {
    path.len() > dir.len() && path.as_bytes()[dir.len()] == b'/' && path.starts_with(dir)
}

/// Whether each of `prev`'s files is in a kept unit's directory, in order: one look-up
/// in `kept` per run of files in the same directory.
pub(super) fn in_kept_dirs<'p, 'k>(
    prev: &'p [lock::Owned<'p>],
    kept: &'k rustc_hash::FxHashSet<String>,
) -> impl Iterator<Item = (&'p lock::Owned<'p>, bool)> + 'k
where
    'p: 'k,
{
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

/// `prev`'s files that are in no kept unit's directory and not `planned`, in order:
/// [`in_kept_dirs`] on all cores, a chunk of files each (the commit and the check look
/// at what is left, which a no-change run of 100,000 Clusters makes empty out of 1.5
/// million files).
pub(super) fn outside_kept_dirs<'p>(
    prev: &'p [lock::Owned<'p>],
    kept: &rustc_hash::FxHashSet<String>,
    planned: &(dyn Fn(&str) -> bool + Sync),
) -> Vec<&'p lock::Owned<'p>> {
    use rayon::prelude::*;
    prev.par_chunks(1 << 14)
        .flat_map_iter(|chunk| {
            in_kept_dirs(chunk, kept)
                .filter(|(o, kept)| !kept && !planned(o.path))
                .map(|(o, _)| o)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Where kept units are looked for: OUT, and each unit's parent directory
/// (`clusters/<ns>`) listed once: its subdirectories that are real directories, or
/// `None` when it, or a directory above it, is not one (a link, a file, missing).
pub(super) struct Places<'o> {
    out: &'o Path,
    listed: std::sync::Mutex<rustc_hash::FxHashMap<String, Arc<Listed>>>,
}

/// A parent directory's listing, made once by the first worker that needs it (the
/// others wait for that one, not for the listings of other parents).
type Listed = std::sync::OnceLock<Option<Listing>>;

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
        // `name/rel` and its NUL on the stack (no allocation per unit), on the heap when
        // longer; a NUL inside is no such directory.
        let mut buf = [0u8; 256];
        let len = name.len() + 1 + rel.len();
        let heap;
        let path: &std::ffi::CStr = if len < buf.len() {
            buf[..name.len()].copy_from_slice(name.as_bytes());
            buf[name.len()] = b'/';
            buf[name.len() + 1..len].copy_from_slice(rel.as_bytes());
            match std::ffi::CStr::from_bytes_with_nul(&buf[..=len]) {
                Ok(p) => p,
                Err(_) => return false,
            }
        } else {
            match std::ffi::CString::new(format!("{name}/{rel}")) {
                Ok(p) => {
                    heap = p;
                    &heap
                }
                Err(_) => return false,
            }
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

    /// Lists `parents` on all cores now (each once): a run's keep decisions start with
    /// every namespace's Clusters at once, so that listing them on first use left one
    /// worker listing while the others waited for the same namespace.
    pub(super) fn list_now<'p>(&self, parents: impl Iterator<Item = &'p str>) {
        use rayon::prelude::*;
        let mut seen = rustc_hash::FxHashSet::default();
        let todo: Vec<&str> = parents.filter(|p| seen.insert(*p)).collect();
        todo.par_iter().for_each(|p| {
            self.listing(p);
        });
    }

    /// `parent`'s listing: listed on first use, by one worker; a worker that needs
    /// the same parent meanwhile waits for it, one that needs another lists that one.
    fn listing(&self, parent: &str) -> Option<Arc<Listed>> {
        let cell = {
            let mut listed = self.listed.lock().ok()?;
            match listed.get(parent) {
                Some(c) => c.clone(),
                None => listed.entry(parent.to_string()).or_default().clone(),
            }
        };
        cell.get_or_init(|| self.list(parent));
        Some(cell)
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
    let (d, review_dir) = (dir.as_bytes(), crate::model::REVIEW_DIR.as_bytes());
    // One scan to a file's first `/` after the unit's directory, then the review
    // directory's name compared only there: this runs for each of the 1.5 million
    // files of a 100,000-Cluster lock.
    for o in files {
        let p = o.path.as_bytes();
        let Some(rest) = p.strip_prefix(d).and_then(|r| r.strip_prefix(b"/")) else {
            return false;
        };
        match rest.iter().position(|&b| b == b'/') {
            None => {}
            Some(i) if &rest[..i] == review_dir && !rest[i + 1..].contains(&b'/') => review = true,
            Some(_) => return false,
        }
    }
    let Some((parent, name)) = dir.rsplit_once('/') else {
        return false;
    };
    let Some(cell) = places.listing(parent) else {
        return false;
    };
    let Some(listing) = cell.get().and_then(Option::as_ref) else {
        return false;
    };
    if !listing.dirs.contains(name) {
        return false;
    }
    !review || listing.is_real_dir_below(name, crate::model::REVIEW_DIR)
}

/// A run of the tree's outputs: a kept unit's files as the previous lock lists them
/// (a range of its outputs), or files this run made (a range of the made files).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Block {
    Prev(Range<usize>),
    Made(Range<usize>),
}

/// `blocks` in path order, each `Made` block sorted within (in `made`): `Ok` when
/// every file then comes after the one before. A unit's files all start with its
/// directory and no other file does, so its block is one run of the sorted whole:
/// 100,000 blocks are ordered, not 1.5 million files, and a kept unit's files stay
/// where the previous lock has them. `Err` with the blocks (the caller sorts every
/// file) when they do not interleave that way, a `Prev` block is not in order (a lock
/// edited by hand), or a block is out of range. Empty blocks are dropped.
pub(super) fn ordered_blocks(
    prev: &[lock::Owned<'_>],
    made: &mut [(String, String)],
    mut blocks: Vec<Block>,
) -> Result<Vec<Block>, Vec<Block>> {
    use rayon::prelude::*;
    blocks.retain(|b| !matches!(b, Block::Prev(r) | Block::Made(r) if r.is_empty()));
    let in_range = blocks.iter().all(|b| match b {
        Block::Prev(r) => r.start < r.end && r.end <= prev.len(),
        Block::Made(r) => r.start < r.end && r.end <= made.len(),
    });
    if !in_range {
        return Err(blocks);
    }
    for b in &blocks {
        if let Block::Made(r) = b {
            made[r.clone()].sort_unstable();
        }
    }
    let made: &[(String, String)] = made;
    let path = |b: &Block, i: usize| -> &str {
        match b {
            Block::Prev(_) => prev[i].path,
            Block::Made(_) => made[i].0.as_str(),
        }
    };
    let first = |b: &Block| match b {
        Block::Prev(r) | Block::Made(r) => path(b, r.start),
    };
    let last = |b: &Block| match b {
        Block::Prev(r) | Block::Made(r) => path(b, r.end - 1),
    };
    blocks.par_sort_unstable_by(|a, b| first(a).cmp(first(b)));
    // Each block in order within (a kept unit's files as the previous lock has them),
    // and after the block before it.
    let in_order = blocks.par_iter().enumerate().all(|(k, b)| {
        let within = match b {
            Block::Prev(r) => prev[r.clone()].windows(2).all(|w| w[0].path < w[1].path),
            Block::Made(r) => made[r.clone()].windows(2).all(|w| w[0].0 < w[1].0),
        };
        within && (k == 0 || last(&blocks[k - 1]) < first(b))
    });
    if in_order {
        Ok(blocks)
    } else {
        Err(blocks)
    }
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

    /// The paths of `blocks` in their order.
    fn flat(blocks: &[Block], prev: &[lock::Owned<'_>], made: &[(String, String)]) -> Vec<String> {
        let mut v = Vec::new();
        for b in blocks {
            match b {
                Block::Prev(r) => v.extend(prev[r.clone()].iter().map(|o| o.path.to_string())),
                Block::Made(r) => v.extend(made[r.clone()].iter().map(|m| m.0.clone())),
            }
        }
        v
    }

    proptest::proptest! {
        // A fixed seed: the same cases on every run and machine.
        #![proptest_config(proptest::test_runner::Config {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x6b65_6570),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]
        /// Files cut into blocks, each a kept unit's (in the previous outputs) or made
        /// (in any order within), the blocks in any order: ordered, they are the full
        /// sort, and they always are when each block is a run of the sorted files. When
        /// refused, every file is still in the blocks handed back.
        #[test]
        fn ordering_by_blocks_is_the_full_sort(
            items in proptest::collection::btree_set("[ab]{1,2}/[ab-]{0,3}", 0..40),
            cuts in proptest::collection::vec(0usize..40, 0..12),
            kept in proptest::collection::vec(proptest::bool::ANY, 13),
            shuffle in proptest::collection::vec(proptest::num::usize::ANY, 40),
            scramble in proptest::bool::ANY,
        ) {
            let sorted: Vec<String> = items.into_iter().collect();
            let n = sorted.len();
            let mut files = sorted.clone();
            if scramble {
                for (i, s) in shuffle.iter().enumerate().take(n) {
                    files.swap(i, s % n);
                }
            }
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(n)).collect();
            cuts.extend([0, n]);
            cuts.sort_unstable();
            cuts.dedup();
            let (mut prev_paths, mut made, mut blocks) = (Vec::new(), Vec::new(), Vec::new());
            for (k, w) in cuts.windows(2).enumerate() {
                let part = &files[w[0]..w[1]];
                if kept[k % kept.len()] {
                    let at = prev_paths.len();
                    prev_paths.extend(part.iter().cloned());
                    blocks.push(Block::Prev(at..prev_paths.len()));
                } else {
                    let at = made.len();
                    // In reverse: a made block is sorted within.
                    made.extend(part.iter().rev().map(|p| (p.clone(), SUM.to_string())));
                    blocks.push(Block::Made(at..made.len()));
                }
            }
            let m = blocks.len();
            for (i, s) in shuffle.iter().enumerate().take(m) {
                blocks.swap(i, s % m);
            }
            let prev: Vec<lock::Owned> = prev_paths.iter().map(|p| owned(p)).collect();
            match ordered_blocks(&prev, &mut made, blocks) {
                Ok(b) => proptest::prop_assert_eq!(flat(&b, &prev, &made), sorted),
                Err(b) => {
                    proptest::prop_assert!(scramble, "runs of the sorted files are refused");
                    let mut all = flat(&b, &prev, &made);
                    all.sort_unstable();
                    proptest::prop_assert_eq!(all, sorted);
                }
            }
        }
    }

    #[test]
    fn blocks_of_unit_directories_are_ordered_as_wholes() {
        // `a-b/` sorts before `a/` ('-' < '/'): blocks are ordered by their first
        // file, not by directory name; a root file between them stays in place.
        let prev = [owned("c/a/x"), owned("c/a/y"), owned("c/a-b/x")];
        let mut made = vec![
            ("c/kustomization.yaml".to_string(), SUM.to_string()),
            ("c/a/xx".to_string(), SUM.to_string()),
        ];
        let blocks = vec![
            Block::Prev(0..2),
            Block::Prev(2..3),
            Block::Made(0..1),
            Block::Made(1..2),
        ];
        // `c/a/xx` comes between `c/a/x` and `c/a/y`, inside a block: refused.
        let e = ordered_blocks(&prev, &mut made, blocks).unwrap_err();
        assert_eq!(e.len(), 4);
        let blocks = vec![Block::Made(0..1), Block::Prev(0..2), Block::Prev(2..3)];
        let got = ordered_blocks(&prev, &mut made, blocks).unwrap();
        assert_eq!(
            flat(&got, &prev, &made),
            ["c/a-b/x", "c/a/x", "c/a/y", "c/kustomization.yaml"]
        );
        // A kept unit's files out of order in the previous lock (edited by hand).
        let prev = [owned("c/a/y"), owned("c/a/x")];
        assert!(ordered_blocks(&prev, &mut made, vec![Block::Prev(0..2)]).is_err());
        // Out of range.
        assert!(ordered_blocks(&prev, &mut made, vec![Block::Prev(1..3)]).is_err());
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
            command: None,
            sealed: Vec::new(),
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
    fn runs_found_on_all_cores_are_the_in_order_runs() {
        // Units of 1 to 4 files, a unit whose files come in two runs, files of no unit
        // and directories that are a prefix of the next one's name.
        let mut paths = Vec::new();
        for u in 0..400 {
            for f in 0..(u % 4 + 1) {
                paths.push(format!("clusters/ns/c{}/f{f}", u / 2));
            }
            if u % 7 == 0 {
                paths.push(format!("top{u}.yaml"));
                paths.push(format!("clusters/ns/c{}0/x", u / 2));
            }
            if u % 50 == 0 {
                paths.push(format!("clusters/ns/c{}/again", u / 3));
            }
        }
        let files: Vec<lock::Owned<'_>> = paths.iter().map(|p| owned(p)).collect();
        let want = runs(&files, 0);
        let split = |d: &str| want.iter().filter(|(w, _)| *w == d).count() > 1;
        assert!(want.len() > 250 && split("clusters/ns/c50") && !split("clusters/ns/c51"));
        for chunk in [0, 1, 2, 3, 5, 64, 1000, 5000] {
            assert_eq!(runs_on_all_cores(&files, chunk), want, "{chunk}");
        }
        assert!(runs_on_all_cores(&[], 4).is_empty());
    }

    #[test]
    fn files_outside_kept_dirs_on_all_cores_are_the_in_order_ones() {
        // Units of 1 to 7 files, over several chunks of the pool, and files of no unit.
        let mut paths = Vec::new();
        for u in 0..9000 {
            for f in 0..(u % 7 + 1) {
                paths.push(format!("clusters/ns{}/c{u:05}/desired/f{f}.yaml", u % 3));
            }
            if u % 1000 == 0 {
                paths.push(format!("providers/p{u}.yaml"));
            }
        }
        let files: Vec<lock::Owned<'_>> = paths.iter().map(|p| owned(p)).collect();
        let kept: rustc_hash::FxHashSet<String> = (0..9000)
            .filter(|u| u % 5 != 2)
            .map(|u| format!("clusters/ns{}/c{u:05}", u % 3))
            .collect();
        let planned = |p: &str| p.ends_with("f1.yaml") || p.starts_with("providers/p3");
        let want: Vec<&str> = in_kept_dirs(&files, &kept)
            .filter(|(o, k)| !k && !planned(o.path))
            .map(|(o, _)| o.path)
            .collect();
        let got: Vec<&str> = outside_kept_dirs(&files, &kept, &planned)
            .into_iter()
            .map(|o| o.path)
            .collect();
        assert!(
            want.len() > 3000 && want.len() < files.len() / 2,
            "{}",
            want.len()
        );
        assert_eq!(got, want);
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
