//! Multi-document splitting as apimachinery's `YAMLReader` does it (R5.1–R5.3).
//!
//! Lines are read one by one with `\r\n` and `\n` both treated as line ends and
//! every line re-terminated with `\n`. A line that starts at column 0 with `---`
//! separates documents; the rest of that line, trimmed, must be empty or a comment.

use crate::error::{Error, Result};

/// Split `text` into document bodies. Separators are never part of a document.
/// Documents that are empty (nothing between two separators) are not returned;
/// documents that contain only whitespace or comments are returned and left to
/// the YAML reader, which turns them into nothing.
pub fn split_documents(text: &str) -> Result<Vec<String>> {
    let mut docs = Vec::new();
    let mut cur = String::new();
    for line in lines(text) {
        if let Some(rest) = line.strip_prefix("---") {
            let rest = rest.trim();
            if !rest.is_empty() && !rest.starts_with('#') {
                return Err(Error::new(format!(
                    "invalid Yaml document separator: {rest}"
                )));
            }
            if !cur.is_empty() {
                docs.push(std::mem::take(&mut cur));
            }
            continue;
        }
        cur.push_str(line);
        cur.push('\n');
    }
    if !cur.is_empty() {
        docs.push(cur);
    }
    Ok(docs)
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
}
