//! The staging writer's own unit tests (kept apart: `writer.rs` stays under 800 lines).

use super::{same_bytes, Owned, PrevPaths, Stager};

/// The lock given in pieces is staged as their concatenation and replaces OUT's
/// (which a run has found different); it takes the place of a file planned once
/// only, and no other file is taken in pieces (a CAPI template's immutability is
/// checked on whole texts).
#[test]
fn a_streamed_lock_is_its_pieces() {
    let out = std::env::temp_dir().join(format!("capi-render-streamed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let lock = super::super::lock::FILE;
    std::fs::write(out.join(lock), "old lock\n").unwrap();
    std::fs::write(out.join("other.yaml"), "x: 1\n").unwrap();
    let big = "y".repeat(3 << 20);
    let pieces = ["lockVersion: 1\n", big.as_str(), "\nend\n", "never written"];
    let write = |each: &mut dyn FnMut(&str) -> bool| {
        for p in pieces {
            if p == "never written" || !each(p) {
                return;
            }
        }
    };
    let mut hook = |_: &super::Step| Ok(());
    let mut st = Stager::new(&out, &[], &mut hook);
    st.file_streamed(lock, &write).unwrap();
    assert!(st.file_streamed(lock, &write).is_err(), "planned twice");
    let e = st.file_streamed("other.yaml", &write).unwrap_err();
    assert!(e.message().contains("is not the lock"), "{e}");
    let changes = st.commit().unwrap();
    assert_eq!(changes.writes, vec![(lock.to_string(), true)]);
    let want = format!("lockVersion: 1\n{big}\nend\n");
    assert!(std::fs::read_to_string(out.join(lock)).unwrap() == want);
    assert_eq!(
        std::fs::read_to_string(out.join("other.yaml")).unwrap(),
        "x: 1\n"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn previous_paths_are_found_sorted_or_not() {
    let owned = |path| Owned { path, sha256: "" };
    let sorted: Vec<Owned<'_>> = ["a", "b/c", "b/d", "e"].map(owned).to_vec();
    let mut unsorted = sorted.clone();
    unsorted.swap(0, 3);
    for prev in [&sorted, &unsorted] {
        let index = PrevPaths::of(prev);
        assert_eq!(matches!(index, PrevPaths::Sorted), prev == &sorted);
        for p in ["a", "b/c", "b/d", "e"] {
            assert!(index.contains(prev, p), "{p}");
        }
        for p in ["", "b", "b/", "c", "f"] {
            assert!(!index.contains(prev, p), "{p}");
        }
    }
}

#[test]
fn same_bytes_compares_in_pieces_and_reads_at_most_one_byte_more() {
    // Over one piece (256 KiB), so that a difference in the second piece counts.
    let want: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
    assert!(same_bytes(&want[..], &want).unwrap());
    assert!(same_bytes(&b""[..], b"").unwrap());
    let mut other = want.clone();
    other[400_000] ^= 1;
    assert!(!same_bytes(&other[..], &want).unwrap());
    assert!(!same_bytes(&want[..want.len() - 1], &want).unwrap());
    // A longer reader differs, and is not read past want's size plus one byte.
    let endless = std::io::repeat(7u8);
    assert!(!same_bytes(endless, &[7u8; 1000]).unwrap());
}
