//! Multi-document splitting as apimachinery's `YAMLReader` does it (R5.1–R5.3).
//!
//! Lines are read one by one with `\r\n` and `\n` both treated as line ends and
//! every line re-terminated with `\n`. A line that starts at column 0 with `---`
//! separates documents; the rest of that line, trimmed, must be empty or a comment.

use std::borrow::Cow;

use crate::error::{Error, Result};

/// Split `text` into document bodies. Separators are never part of a document.
/// Documents that are empty (nothing between two separators) are not returned;
/// documents that contain only whitespace or comments are returned and left to
/// the YAML reader, which turns them into nothing.
pub fn split_documents(text: &str) -> Result<Vec<String>> {
    Ok(split_documents_borrowed(text)?
        .into_iter()
        .map(Cow::into_owned)
        .collect())
}

/// [`split_documents`] without copying: a document is a slice of `text` unless its
/// lines must be re-terminated (it holds a `\r`, or it is the last and has no final
/// `\n`). A provider's components are a megabyte; copying them into fresh memory
/// cost more than reading them.
pub fn split_documents_borrowed(text: &str) -> Result<Vec<Cow<'_, str>>> {
    Ok(split_documents_at_borrowed(text)?
        .into_iter()
        .map(|(_, d)| d)
        .collect())
}

/// [`split_documents`] with the 1-based line of the file each document starts on, so a
/// reader's line numbers (counted from the document's start) can be given from the
/// file's start ([`super::read::parse_value_at`]).
pub fn split_documents_at(text: &str) -> Result<Vec<(usize, String)>> {
    Ok(split_documents_at_borrowed(text)?
        .into_iter()
        .map(|(n, d)| (n, d.into_owned()))
        .collect())
}

/// [`split_documents_at`] without copying (see [`split_documents_borrowed`]).
pub fn split_documents_at_borrowed(text: &str) -> Result<Vec<(usize, Cow<'_, str>)>> {
    Ok(ranges(text)?
        .into_iter()
        .map(|r| document(text, r))
        .collect())
}

/// Each document's first line (1-based) and byte range: from the start of its first
/// line to the end of its last line's terminator. Only the lines that start with `---`
/// are looked at (found by a substring search, not line by line); a document is what
/// lies between two of them, and its first line's number is counted from the line ends
/// before it.
fn ranges(text: &str) -> Result<Vec<(usize, std::ops::Range<usize>)>> {
    let b = text.as_bytes();
    let mut docs = Vec::new();
    let (mut start, mut line, mut counted) = (0, 1, 0);
    let first = b.starts_with(b"---").then_some(0);
    let others = memchr::memmem::find_iter(b, b"\n---").map(|i| i + 1);
    for sep in first.into_iter().chain(others) {
        let end = memchr::memchr(b'\n', &b[sep..]).map_or(b.len(), |i| sep + i + 1);
        let bare = &text[sep..end];
        let bare = bare.strip_suffix('\n').unwrap_or(bare);
        let bare = bare.strip_suffix('\r').unwrap_or(bare);
        let rest = bare[3..].trim();
        if !rest.is_empty() && !rest.starts_with('#') {
            return Err(Error::new(format!(
                "invalid Yaml document separator: {rest}"
            )));
        }
        if sep > start {
            line += memchr::memchr_iter(b'\n', &b[counted..start]).count();
            counted = start;
            docs.push((line, start..sep));
        }
        start = end;
    }
    if start < b.len() {
        line += memchr::memchr_iter(b'\n', &b[counted..start]).count();
        docs.push((line, start..b.len()));
    }
    Ok(docs)
}

/// The document of the lines in `range` (the first on line `first`), each ended by `\n`
/// alone: the slice itself when it is that already.
fn document(text: &str, (first, range): (usize, std::ops::Range<usize>)) -> (usize, Cow<'_, str>) {
    let body = &text[range];
    if !body.contains('\r') {
        if body.ends_with('\n') {
            return (first, Cow::Borrowed(body));
        }
        let mut d = String::with_capacity(body.len() + 1);
        d.push_str(body);
        d.push('\n');
        return (first, Cow::Owned(d));
    }
    let mut d = String::with_capacity(body.len() + 1);
    for line in lines(body) {
        d.push_str(line);
        d.push('\n');
    }
    (first, Cow::Owned(d))
}

/// The byte range in `text` of each document [`split_documents_at`] returns, in the same
/// order: from the start of the document's first line to the end of its last line's
/// terminator (`\n` or `\r\n`; none at the end of a file without one). Separator lines
/// are never inside a range. For editing a file in place (`upgrade apply`) without
/// moving any byte of the other documents.
pub fn document_spans(text: &str) -> Result<Vec<std::ops::Range<usize>>> {
    Ok(ranges(text)?.into_iter().map(|(_, r)| r).collect())
}

/// Lines without their terminator (`\n` or `\r\n`), as Go's `bufio.Reader.ReadLine`.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let empty = text.is_empty();
    body.split('\n')
        .filter(move |_| !empty)
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_column_zero_separators_only() {
        let docs = split_documents("a: 1\n---\nb: 2\n  ---\n--- # c\nc: 3").unwrap();
        assert_eq!(docs, vec!["a: 1\n", "b: 2\n  ---\n", "c: 3\n"]);
    }

    #[test]
    fn documents_know_their_first_line() {
        let text = "a: 1\n---\nb: 2\n  ---\n--- # c\nc: 3";
        let at = split_documents_at(text).unwrap();
        assert_eq!(
            at,
            vec![
                (1, "a: 1\n".to_string()),
                (3, "b: 2\n  ---\n".to_string()),
                (6, "c: 3\n".to_string())
            ]
        );
        let plain: Vec<String> = at.into_iter().map(|(_, d)| d).collect();
        assert_eq!(plain, split_documents(text).unwrap());
    }

    /// apimachinery's YAMLReader as the splitter first spelled it, line by line.
    fn split_reference(text: &str) -> Result<Vec<(usize, String)>> {
        let mut docs = Vec::new();
        let mut cur = String::new();
        let mut start = 1;
        for (n, line) in lines(text).enumerate() {
            if let Some(rest) = line.strip_prefix("---") {
                let rest = rest.trim();
                if !rest.is_empty() && !rest.starts_with('#') {
                    return Err(Error::new(format!(
                        "invalid Yaml document separator: {rest}"
                    )));
                }
                if !cur.is_empty() {
                    docs.push((start, std::mem::take(&mut cur)));
                }
                start = n + 2;
                continue;
            }
            cur.push_str(line);
            cur.push('\n');
        }
        if !cur.is_empty() {
            docs.push((start, cur));
        }
        Ok(docs)
    }

    /// The spans as `upgrade apply` first computed them, line by line.
    fn spans_reference(text: &str) -> Result<Vec<std::ops::Range<usize>>> {
        let mut spans = Vec::new();
        let mut cur: Option<std::ops::Range<usize>> = None;
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            let start = at;
            at += line.len();
            let bare = line.strip_suffix('\n').unwrap_or(line);
            let bare = bare.strip_suffix('\r').unwrap_or(bare);
            if let Some(rest) = bare.strip_prefix("---") {
                let rest = rest.trim();
                if !rest.is_empty() && !rest.starts_with('#') {
                    return Err(Error::new(format!(
                        "invalid Yaml document separator: {rest}"
                    )));
                }
                spans.extend(cur.take());
                continue;
            }
            match &mut cur {
                Some(r) => r.end = at,
                None => cur = Some(start..at),
            }
        }
        spans.extend(cur);
        Ok(spans)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        #[test]
        fn split_is_the_line_by_line_reference(text in "(a|-|---|\r|\n|\r\n| |#|x){0,24}") {
            let got = split_documents_at(&text).map_err(|e| e.to_string());
            let want = split_reference(&text).map_err(|e| e.to_string());
            proptest::prop_assert_eq!(got, want);
        }

        #[test]
        fn spans_are_the_line_by_line_reference(text in "(a|-|---|\r|\n|\r\n| |#|x){0,24}") {
            let got = document_spans(&text).map_err(|e| e.to_string());
            let want = spans_reference(&text).map_err(|e| e.to_string());
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn crlf_becomes_lf() {
        assert_eq!(
            split_documents("a: 1\r\nb: 2\r\n").unwrap(),
            vec!["a: 1\nb: 2\n"]
        );
    }

    #[test]
    fn empty_documents_are_skipped() {
        assert_eq!(
            split_documents("---\n---\na: 1\n---\n").unwrap(),
            vec!["a: 1\n"]
        );
        assert!(split_documents("").unwrap().is_empty());
    }

    #[test]
    fn separator_with_trailing_text_is_an_error() {
        let e = split_documents("a: 1\n--- !tag\nb: 2\n").unwrap_err();
        assert_eq!(e.message(), "invalid Yaml document separator: !tag");
        assert!(split_documents("---foo\n").is_err());
    }

    #[test]
    fn spans_cover_the_documents_split_returns() {
        for text in [
            "a: 1\n---\nb: 2\n  ---\n--- # c\nc: 3",
            "a: 1\r\nb: 2\r\n---\r\nc: 3\r\n",
            "---\n---\na: 1\n---\n",
            "# only a comment\n---\nx: y\n\n",
            "",
            "\n",
            "a: 1\n---",
        ] {
            let docs = split_documents(text).unwrap();
            let spans = document_spans(text).unwrap();
            let from_spans: Vec<String> = spans
                .iter()
                .map(|r| {
                    let t = text[r.clone()].replace("\r\n", "\n");
                    if t.ends_with('\n') {
                        t
                    } else {
                        t + "\n"
                    }
                })
                .collect();
            assert_eq!(from_spans, docs, "{text:?}");
        }
        assert_eq!(
            document_spans("a: 1\n---\nb: 2").unwrap(),
            vec![0..5, 9..13]
        );
        assert!(document_spans("a: 1\n--- !tag\n").is_err());
    }
}
