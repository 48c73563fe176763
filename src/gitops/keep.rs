//! Which Cluster units a run may skip, and the tree's outputs in path order: the
//! units the previous lock records ([`keepable`]), whether a kept unit is still in
//! place ([`still_in_place`]), which previous outputs are a kept unit's
//! ([`in_kept_dirs`]) and the outputs of kept and rendered units sorted by blocks
//! ([`sorted_by_blocks`]).

use std::path::Path;

use super::lock;
use super::unit_dir_of;

/// The Cluster units the previous lock lets a run skip: by directory, the record and
/// the unit's files (path, sha256) as the lock lists them, next to each other.
pub(super) type Keepable<'a> =
    rustc_hash::FxHashMap<&'a str, (&'a lock::UnitRecord, &'a [lock::Owned])>;

pub(super) fn keepable(prev: &lock::Lock) -> Keepable<'_> {
    let mut k: Keepable = prev
        .units
        .iter()
        .map(|r| (r.dir.as_str(), (r, &[][..])))
        .collect();
    // A unit's files are next to each other in a lock the writer wrote (sorted by
    // path): one look-up per run of files in the same directory. A unit whose files
    // come in more than one run (a lock edited by hand) is not kept: it renders.
    let outs = &prev.outputs;
    let mut split = rustc_hash::FxHashSet::default();
    let mut i = 0;
    while i < outs.len() {
        let Some(dir) = unit_dir_of(&outs[i].path) else {
            i += 1;
            continue;
        };
        let run = i
            + 1
            + outs[i + 1..]
                .iter()
                .position(|o| !in_dir(&o.path, dir))
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
    prev: &'p [lock::Owned],
    kept: &'p rustc_hash::FxHashSet<String>,
) -> impl Iterator<Item = (&'p lock::Owned, bool)> + 'p {
    let mut last: Option<(&str, bool)> = None;
    prev.iter().map(move |o| {
        let Some(d) = unit_dir_of(&o.path) else {
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

/// A kept unit is still in place: its directory, and its review directory when the
/// lock lists files there, are directories in OUT with no symbolic link on the way,
/// and the lock lists only files directly in them. One look at each directory (and at
/// each directory above, once per run: `clusters`, `clusters/<ns>`, held in
/// `parents`): a no-change run over 100,000 Clusters must not look at 1.5 million
/// files. Deleting a unit's directory renders it again; a file edited or deleted
/// inside it is seen by `--full`, which compares every byte (README "Incremental").
/// The files themselves are never read or written here, so a link put in their place
/// is harmless until the unit renders again, when the writer refuses it.
pub(super) fn still_in_place(
    out: &Path,
    dir: &str,
    files: &[lock::Owned],
    parents: &std::sync::Mutex<rustc_hash::FxHashSet<String>>,
) -> bool {
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
    let is_real_dir = |rel: &str| {
        let full = rel.split('/').fold(out.to_path_buf(), |p, s| p.join(s));
        std::fs::symlink_metadata(&full).is_ok_and(|m| m.is_dir())
    };
    // The directories above the unit's: no links (once per run each).
    let mut at = 0;
    while let Some(i) = dir[at..].find('/') {
        let parent = &dir[..at + i];
        at += i + 1;
        let known = parents.lock().is_ok_and(|p| p.contains(parent));
        if !known {
            if !is_real_dir(parent) {
                return false;
            }
            if let Ok(mut p) = parents.lock() {
                p.insert(parent.to_string());
            }
        }
    }
    is_real_dir(dir) && (!review || is_real_dir(&format!("{dir}/{}", crate::model::REVIEW_DIR)))
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

    fn owned(path: &str) -> lock::Owned {
        lock::Owned {
            path: path.to_string(),
            sha256: crate::model::sha256_hex(path.as_bytes()),
        }
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
            outputs: outputs.iter().map(|p| owned(p)).collect(),
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
        let k = keepable(&prev);
        let paths = |d: &str| -> Vec<&str> { k[d].1.iter().map(|o| o.path.as_str()).collect() };
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
        let flags: Vec<bool> = in_kept_dirs(&prev.outputs, &kept).map(|(_, k)| k).collect();
        assert_eq!(flags, [true, true, true, false, true, false, true, false]);
    }

    #[test]
    fn a_unit_is_in_place_while_its_directories_are() {
        let out = std::env::temp_dir().join(format!("capi-render-keep-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let unit = out.join("clusters/ns/a");
        std::fs::create_dir_all(unit.join("desired")).unwrap();
        let files: Vec<lock::Owned> = [
            "clusters/ns/a/cluster-a.yaml",
            "clusters/ns/a/desired/x.yaml",
        ]
        .map(owned)
        .to_vec();
        let parents = std::sync::Mutex::default();
        let at = |files: &[lock::Owned]| still_in_place(&out, "clusters/ns/a", files, &parents);
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
        let _ = std::fs::remove_dir_all(&out);
    }
}
