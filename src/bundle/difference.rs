//! What differs between a file `bundle verify` re-derived and the file the bundle
//! holds, as one bounded line: the documents added, removed or changed (by kind,
//! namespace and name), the lines added or removed (for `images.txt`), and the
//! first differing line. Everything quoted is cut short, and the whole line stays
//! under [`MAX_DETAIL`] bytes whatever the files hold.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::pointer::Pointer as _;

/// The longest description (bytes).
pub const MAX_DETAIL: usize = 4096;
/// The longest quotation of one line or one name (bytes).
const MAX_QUOTE: usize = 160;
/// How many documents or lines of each sort are named.
const MAX_NAMED: usize = 5;

/// `s` cut to at most `max` bytes on a character boundary, `…` marking a cut.
fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// A quoted, escaped, bounded line.
fn quote(s: &str) -> String {
    format!("{:?}", cut(s, MAX_QUOTE))
}

/// `<Kind> <ns>/<name>` of a document (empty parts left out).
fn identity(v: &Value) -> String {
    let s = |p: &str| v.ptr(p).and_then(Value::as_str).unwrap_or("").to_string();
    let (kind, ns, name) = (s("/kind"), s("/metadata/namespace"), s("/metadata/name"));
    let kind = if kind.is_empty() { "(no kind)" } else { &kind };
    let id = if ns.is_empty() {
        format!("{kind} {name}")
    } else {
        format!("{kind} {ns}/{name}")
    };
    cut(&id, MAX_QUOTE)
}

/// `what: a, b, c and N more`, or nothing for an empty list.
fn named(what: &str, items: &[String]) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let shown = items
        .iter()
        .take(MAX_NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    let more = items.len().saturating_sub(MAX_NAMED);
    Some(if more > 0 {
        format!("{what} {shown} and {more} more")
    } else {
        format!("{what} {shown}")
    })
}

/// Documents of `have` not in `want`, of `want` not in `have`, and changed (same
/// identity, other content), as `document N (<identity>)`.
fn document_changes(want: &str, have: &str) -> Vec<String> {
    let (Ok(w), Ok(h)) = (
        crate::yaml::parse_documents(want),
        crate::yaml::parse_documents(have),
    ) else {
        return Vec::new();
    };
    let mut by_id: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for d in &w {
        by_id.entry(identity(d)).or_default().push(d);
    }
    let (mut extra, mut changed) = (Vec::new(), Vec::new());
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, d) in h.iter().enumerate() {
        let id = identity(d);
        let n = seen.entry(id.clone()).or_default();
        match by_id.get(&id).and_then(|v| v.get(*n)) {
            None => extra.push(format!("document {} ({id})", i + 1)),
            Some(x) if *x != d => changed.push(format!("document {} ({id})", i + 1)),
            Some(_) => {}
        }
        *n += 1;
    }
    let missing: Vec<String> = by_id
        .iter()
        .flat_map(|(id, v)| {
            let have = seen.get(id).copied().unwrap_or(0);
            v.iter().skip(have).map(move |_| id.clone())
        })
        .collect();
    [
        named("extra:", &extra),
        named("missing:", &missing),
        named("changed:", &changed),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Lines of `have` that `want` lacks and the reverse (for line lists: `images.txt`).
fn line_changes(want: &str, have: &str) -> Vec<String> {
    let w: std::collections::BTreeSet<&str> = want.lines().collect();
    let h: std::collections::BTreeSet<&str> = have.lines().collect();
    let extra: Vec<String> = h.difference(&w).map(|l| quote(l)).collect();
    let missing: Vec<String> = w.difference(&h).map(|l| quote(l)).collect();
    [
        named("extra lines:", &extra),
        named("missing lines:", &missing),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The first line where the two texts differ, with both sides quoted.
fn first_line(want: &str, have: &str) -> String {
    let (mut w, mut h) = (want.split('\n'), have.split('\n'));
    let mut n = 1usize;
    loop {
        match (w.next(), h.next()) {
            (Some(a), Some(b)) if a == b => n += 1,
            (a, b) => {
                let side = |x: Option<&str>| x.map(quote).unwrap_or_else(|| "end of file".into());
                return format!(
                    "first difference at line {n}: expected {}, found {}",
                    side(a),
                    side(b)
                );
            }
        }
    }
}

/// How the bundle's `have` differs from the re-derived `want` (`lines`: a line list
/// such as `images.txt`, else YAML documents). Bounded by [`MAX_DETAIL`].
pub fn describe(want: &[u8], have: &[u8], lines: bool) -> String {
    let Ok(have) = std::str::from_utf8(have) else {
        return "not UTF-8".to_string();
    };
    let want = String::from_utf8_lossy(want);
    let mut parts = if lines {
        line_changes(&want, have)
    } else {
        document_changes(&want, have)
    };
    parts.push(first_line(&want, have));
    cut(&parts.join("; "), MAX_DETAIL)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "kind: Namespace\nmetadata:\n  name: a\n---\nkind: Deployment\nmetadata:\n  name: d\n  namespace: a\n";

    #[test]
    fn an_appended_document_is_named_with_the_first_line_that_differs() {
        let have = format!("{A}---\nkind: Pod\nmetadata:\n  name: evil\n  namespace: default\n");
        let d = describe(A.as_bytes(), have.as_bytes(), false);
        assert_eq!(
            d,
            "extra: document 3 (Pod default/evil); first difference at line 9: expected \"\", found \"---\""
        );
    }

    #[test]
    fn changed_and_missing_documents_are_named() {
        let have = "kind: Namespace\nmetadata:\n  name: b\n";
        let d = describe(A.as_bytes(), have.as_bytes(), false);
        assert!(d.starts_with("extra: document 1 (Namespace b); missing: Deployment a/d, Namespace a; first difference at line 3"), "{d}");
        let have = A.replace("name: d", "name: d\n  labels: {x: y}");
        let d = describe(A.as_bytes(), have.as_bytes(), false);
        assert!(
            d.starts_with("changed: document 2 (Deployment a/d); "),
            "{d}"
        );
    }

    #[test]
    fn list_lines_added_and_removed_are_named() {
        let d = describe(b"a:v1\nb:v1\n", b"a:v1\nc:v9\n", true);
        assert_eq!(
            d,
            "extra lines: \"c:v9\"; missing lines: \"b:v1\"; first difference at line 2: expected \"b:v1\", found \"c:v9\""
        );
    }

    #[test]
    fn descriptions_stay_bounded_on_hostile_text() {
        let long = "x".repeat(100_000);
        let many: String = (0..10_000).map(|i| format!("img{i}\n")).collect();
        for (w, h, l) in [
            ("", long.as_str(), true),
            ("", many.as_str(), true),
            (A, long.as_str(), false),
            ("a: [", "b: {", false),
        ] {
            let d = describe(w.as_bytes(), h.as_bytes(), l);
            assert!(d.len() <= MAX_DETAIL + 3, "{}", d.len());
            assert!(!d.contains('\n'), "{d}");
        }
        assert_eq!(describe(b"", &[0xff], false), "not UTF-8");
        assert_eq!(cut("ééé", 3), "é…");
    }
}
