//! The lock's text in pieces: written on all cores a window at a time
//! ([`assemble_pieces`]) and compared with OUT's lock as it comes ([`same_as_file`]),
//! so that a no-change run over 100,000 Clusters never holds its 250 MB.

use std::path::Path;

use serde_json::{json, Value};

use super::{output_entry, tool, unit_entry, UnitRecord};

/// [`assemble`]'s text piece by piece, in order, to `each` until it returns `false`.
/// The items are written on all cores a window of pieces at a time (a 100,000-Cluster
/// lock is 250 MB; a window is about 10 MB), so that the text can be compared with
/// OUT's lock without ever being whole ([`same_as_file`]).
pub fn assemble_pieces<P: AsRef<str> + Sync, S: AsRef<str> + Sync>(
    head: &Value,
    outputs: &[(P, S)],
    providers: &[Value],
    records: &[UnitRecord],
    each: &mut dyn FnMut(&str) -> bool,
) {
    // The document's keys in go-yaml's order are inputs, lockVersion, outputs,
    // providers, tool, units; each top-level entry is written on its own, and
    // `outputs` and `units` item by item (a 100,000-Cluster tree lists over a million
    // files), which gives the bytes of writing the whole document at once.
    let mut first = String::from(
        "# capi-render lock file: written by `capi-render render`, do not edit.\n# capi-render only ever replaces or removes the files listed under outputs.\n",
    );
    first.push_str(&crate::yaml::to_yaml(head));
    first.push_str(if outputs.is_empty() {
        "outputs: []\n"
    } else {
        "outputs:\n"
    });
    if !each(&first) {
        return;
    }
    let entry = |(p, sha): &(P, S), t: &mut String| output_entry(p.as_ref(), sha.as_ref(), t);
    if !items_in_windows(outputs, 160, entry, each) {
        return;
    }
    let mut tail = crate::yaml::to_yaml(&json!({"tool": tool(), "providers": providers}));
    if !records.is_empty() {
        tail.push_str("units:\n");
    }
    if !each(&tail) {
        return;
    }
    items_in_windows(records, 280, unit_entry, each);
}

/// `items` written by `entry` in pieces of [`ITEMS_PIECE`] on the pool, a window of
/// [`WINDOW`] pieces at a time, each piece handed to `each` in order (`size`: about the
/// bytes of one item); `false` when `each` stopped it.
fn items_in_windows<T: Sync>(
    items: &[T],
    size: usize,
    entry: impl Fn(&T, &mut String) + Sync,
    each: &mut dyn FnMut(&str) -> bool,
) -> bool {
    use rayon::prelude::*;
    for window in items.chunks(ITEMS_PIECE * WINDOW) {
        let pieces: Vec<String> = window
            .par_chunks(ITEMS_PIECE)
            .map(|c| {
                let mut t = String::with_capacity(c.len() * size);
                for i in c {
                    entry(i, &mut t);
                }
                t
            })
            .collect();
        if !pieces.iter().all(|p| each(p)) {
            return false;
        }
    }
    true
}

/// Whether the file at `path` is a regular file (not a link) whose bytes are exactly the
/// pieces `write` gives, in order: read alongside them, never more than they hold plus
/// one byte; `write` is stopped at the first difference.
pub fn same_as_file(path: &Path, write: impl FnOnce(&mut dyn FnMut(&str) -> bool)) -> bool {
    use std::io::Read;
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut f = std::io::BufReader::with_capacity(1 << 18, f);
    let mut same = true;
    let mut buf = Vec::new();
    write(&mut |piece| {
        buf.resize(piece.len(), 0);
        same = f.read_exact(&mut buf).is_ok() && buf == piece.as_bytes();
        same
    });
    // And nothing after.
    same && f.read(&mut [0u8; 1]).is_ok_and(|n| n == 0)
}

/// Pieces of a window written together (see [`assemble_pieces`]).
const WINDOW: usize = 8;

/// Items of `outputs` or `units` written per piece on the pool.
const ITEMS_PIECE: usize = 8192;

#[cfg(test)]
mod tests {
    use super::*;

    /// A lock of `n` outputs (more than one window from 70,000 on).
    fn lock_of(n: usize) -> (Value, Vec<(String, String)>, Vec<UnitRecord>) {
        let outputs: Vec<(String, String)> = (0..n)
            .map(|i| {
                let p = format!("clusters/ns{}/c{i:06}/cluster-c{i:06}.yaml", i % 10);
                let sum = crate::model::sha256_hex(p.as_bytes());
                (p, sum)
            })
            .collect();
        let records = (0..n / 10)
            .map(|i| UnitRecord {
                dir: format!("clusters/ns{}/c{i:06}", i % 10),
                inputs: crate::model::sha256_hex(&i.to_le_bytes()),
                bytes: i as u64,
                cluster: crate::model::sha256_hex(b"c"),
                source: "../in/a.yaml".into(),
            })
            .collect();
        (json!({"lockVersion": 1, "inputs": []}), outputs, records)
    }

    #[test]
    fn pieces_join_to_the_lock_and_stop_when_told() {
        let (head, outputs, records) = lock_of(70_000);
        let whole = super::super::assemble(&head, &outputs, &[], &records);
        let mut joined = String::new();
        let mut count = 0;
        assemble_pieces(&head, &outputs, &[], &records, &mut |p| {
            joined.push_str(p);
            count += 1;
            true
        });
        assert_eq!(joined, whole);
        // Every item piece and the head, the tail and one piece of units.
        assert_eq!(count, 70_000usize.div_ceil(ITEMS_PIECE) + 3);
        let mut seen = 0;
        assemble_pieces(&head, &outputs, &[], &records, &mut |_| {
            seen += 1;
            seen < 3
        });
        assert_eq!(seen, 3);
    }

    #[test]
    fn a_file_is_the_same_only_with_exactly_the_pieces_bytes() {
        let dir = std::env::temp_dir().join(format!("capi-render-pieces-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (head, outputs, records) = lock_of(70_000);
        let whole = super::super::assemble(&head, &outputs, &[], &records);
        let write = |each: &mut dyn FnMut(&str) -> bool| {
            assemble_pieces(&head, &outputs, &[], &records, each)
        };
        let f = dir.join("capi-render.lock");
        assert!(!same_as_file(&f, write), "no file");
        std::fs::write(&f, &whole).unwrap();
        assert!(same_as_file(&f, write));
        // One byte changed past the first window, one byte more, one byte less.
        let mut changed = whole.clone().into_bytes();
        changed[whole.len() - 1000] ^= 1;
        std::fs::write(&f, &changed).unwrap();
        assert!(!same_as_file(&f, write));
        std::fs::write(&f, format!("{whole}\n")).unwrap();
        assert!(!same_as_file(&f, write));
        std::fs::write(&f, &whole[..whole.len() - 1]).unwrap();
        assert!(!same_as_file(&f, write));
        // A link to a file with the right bytes is not the lock.
        std::fs::write(dir.join("real"), &whole).unwrap();
        std::fs::remove_file(&f).unwrap();
        std::os::unix::fs::symlink(dir.join("real"), &f).unwrap();
        assert!(!same_as_file(&f, write));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
