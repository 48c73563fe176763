//! The lock's text in pieces: written on all cores a window at a time
//! ([`assemble_pieces`]) and compared with OUT's lock as it comes ([`same_as_file`]),
//! so that a no-change run over 100,000 Clusters never holds its 250 MB.

use std::path::Path;

use serde_json::{json, Value};

use super::{output_entry, tool, unit_entry, Owned, UnitRecord};

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
    let entry = |(p, sha): &(P, S), t: &mut String| output_entry(p.as_ref(), sha.as_ref(), t);
    let items = |each: &mut Each| items_in_windows(outputs, 160, entry, each);
    pieces(head, outputs.is_empty(), items, providers, records, each);
}

/// Part of a lock's `outputs` items, in path order: files this run made, a kept unit's
/// files as the previous lock lists them, or text that already is what the writer
/// writes for such files (the previous lock's own, [`super::Outputs::written_items`]).
pub enum Run<'a> {
    Made(&'a [(String, String)]),
    Prev(&'a [Owned<'a>]),
    Text(&'a str),
}

/// [`assemble_pieces`] of outputs given as [`Run`]s: a [`Run::Text`] is handed on as it
/// is, so that a lock of mostly kept units is mostly the previous lock's own text
/// ([`same_as_text`] then does not compare it).
pub fn assemble_runs(
    head: &Value,
    runs: &[Run<'_>],
    providers: &[Value],
    records: &[UnitRecord],
    each: &mut dyn FnMut(&str) -> bool,
) {
    let empty = runs.iter().all(|r| match r {
        Run::Made(m) => m.is_empty(),
        Run::Prev(p) => p.is_empty(),
        Run::Text(t) => t.is_empty(),
    });
    let items = |each: &mut Each| {
        runs.iter().all(|r| match r {
            Run::Made(m) => {
                let entry = |(p, sha): &(String, String), t: &mut String| output_entry(p, sha, t);
                items_in_windows(m, 160, entry, each)
            }
            Run::Prev(v) => {
                let entry = |o: &Owned<'_>, t: &mut String| output_entry(o.path, o.sha256, t);
                items_in_windows(v, 160, entry, each)
            }
            Run::Text(t) => each(t),
        })
    };
    pieces(head, empty, items, providers, records, each);
}

/// Where the lock's text goes, piece by piece, until it returns `false`.
type Each<'e> = dyn FnMut(&str) -> bool + 'e;

/// The lock's text around its `outputs` items (`items` hands them to `each`).
fn pieces(
    head: &Value,
    no_outputs: bool,
    items: impl FnOnce(&mut Each) -> bool,
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
    first.push_str(if no_outputs {
        "outputs: []\n"
    } else {
        "outputs:\n"
    });
    if !each(&first) || !items(each) {
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
    // A run of a few files (a unit that changed among kept ones) is written here.
    if items.len() <= ITEMS_PIECE {
        let mut t = String::with_capacity(items.len() * size);
        for i in items {
            entry(i, &mut t);
        }
        return each(&t);
    }
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

/// Whether `text` (OUT's lock as it was read) is exactly the pieces `write` gives, in
/// order; `write` is stopped at the first difference. A piece that is `text`'s own
/// bytes at its own place (a [`Run::Text`] of kept units that did not move) is equal
/// without being compared.
pub fn same_as_text(text: &str, write: impl FnOnce(&mut dyn FnMut(&str) -> bool)) -> bool {
    let mut at = 0usize;
    let mut same = true;
    write(&mut |piece| {
        let end = at.saturating_add(piece.len());
        same = text
            .as_bytes()
            .get(at..end)
            .is_some_and(|b| std::ptr::eq(b.as_ptr(), piece.as_ptr()) || b == piece.as_bytes());
        at = end;
        same
    });
    same && at == text.len()
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

    /// A lock of `n` outputs, one path of 80 bytes among them, written and read back
    /// (in the writer's shape: its outputs keep the lock's text).
    fn read_back(
        n: usize,
    ) -> (
        Value,
        Vec<(String, String)>,
        Vec<UnitRecord>,
        super::super::Outputs,
    ) {
        let (head, mut outputs, records) = lock_of(n);
        let long = format!("clusters/ns5/c015005/{}", "x".repeat(59));
        assert_eq!(long.len(), 80);
        outputs.push((long, crate::model::sha256_hex(b"long")));
        outputs.sort();
        let text = super::super::assemble(&head, &outputs, &[], &records);
        let read = super::super::read_lock(text, "capi-render.lock").unwrap();
        assert!(
            read.outputs.lock_text().is_some(),
            "read in the writer's shape"
        );
        (head, outputs, records, read.outputs)
    }

    #[test]
    fn a_previous_locks_own_text_is_the_items_it_lists() {
        let (head, outputs, records, prev) = read_back(30_000);
        let text = prev.lock_text().unwrap();
        let views = prev.views();
        let long = outputs.iter().position(|(p, _)| p.len() == 80).unwrap();
        // Any stretch without the long path (written through the YAML writer, not
        // plain) is its own lines of the lock, byte for byte.
        for r in [0..1, 5..17, long + 1..outputs.len(), 0..long] {
            let bytes = prev.written_items(r.clone()).unwrap();
            let mut want = String::new();
            for (p, s) in &outputs[r] {
                super::super::output_entry(p, s, &mut want);
            }
            assert_eq!(&text[bytes], want);
        }
        assert_eq!(prev.written_items(0..outputs.len()), None);
        assert_eq!(prev.written_items(long..long + 1), None);
        assert_eq!(prev.written_items(3..3), None, "empty");
        assert_eq!(
            prev.written_items(0..outputs.len() + 1),
            None,
            "out of range"
        );
        // Built item by item: no lock text.
        let built: super::super::Outputs = outputs.iter().map(|(p, s)| (p, s)).collect();
        assert!(built.lock_text().is_none() && built.written_items(0..1).is_none());

        // Runs of made files, of the previous text and of previous items give the
        // bytes of writing every item; equal to the text without comparing its own
        // stretch, and not equal when a stretch is not at its place.
        let mid = prev.written_items(100..long).unwrap();
        let runs = [
            Run::Made(&outputs[..100]),
            Run::Text(&text[mid.clone()]),
            Run::Prev(&views[long..]),
        ];
        let mut joined = String::new();
        let write =
            |each: &mut dyn FnMut(&str) -> bool| assemble_runs(&head, &runs, &[], &records, each);
        write(&mut |p| {
            joined.push_str(p);
            true
        });
        assert_eq!(joined, text);
        assert!(same_as_text(text, write));
        let copy = text.to_string();
        assert!(same_as_text(&copy, write), "compared byte for byte");
        let mut changed = copy.clone().into_bytes();
        changed[mid.start + 10] ^= 1;
        let changed = String::from_utf8(changed).unwrap();
        assert!(!same_as_text(&changed, write));
        assert!(!same_as_text(&copy[..copy.len() - 1], write));
        assert!(!same_as_text(&format!("{copy}\n"), write));
        // The previous text's stretch out of its place: compared, and different.
        let moved = [
            Run::Text(&text[mid]),
            Run::Made(&outputs[..100]),
            Run::Prev(&views[long..]),
        ];
        assert!(!same_as_text(text, |each: &mut dyn FnMut(&str) -> bool| {
            assemble_runs(&head, &moved, &[], &records, each)
        }));
    }
}
