//! What go-yaml's reader does to the JSON text `encoding/json` wrote, which
//! `sigs.k8s.io/yaml.Marshal` reads back before emitting ([`super::emit::try_to_yaml`]):
//! the characters it refuses, NEL line breaks (folded, counted as lines), document
//! markers after a NEL and keys too long to be simple keys.

use serde_json::Value;

use crate::error::{Error, Result};

/// Raw characters in the JSON text that go-yaml's reader refuses.
pub(super) fn rejected_by_go_reader(c: char) -> bool {
    matches!(c as u32, 0x7F..=0x84 | 0x86..=0x9F | 0xFFFE | 0xFFFF)
}

/// NEL (U+0085) is the only line break encoding/json leaves unescaped.
pub(super) const NEL: char = '\u{85}';

pub(super) fn any_string(v: &Value, f: &mut impl FnMut(&str) -> bool) -> bool {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().any(|x| any_string(x, f)),
        Value::Object(m) => m.iter().any(|(k, x)| f(k) || any_string(x, f)),
        _ => false,
    }
}

/// A double-quoted scalar folds each run of spaces and NELs that holds a NEL: one
/// NEL gives a space, n NELs give n-1 newlines (the spaces are dropped).
pub(super) fn fold_nel(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut run = String::new();
    let mut breaks = 0usize;
    let flush = |out: &mut String, run: &mut String, breaks: &mut usize| {
        match *breaks {
            0 => out.push_str(run),
            1 => out.push(' '),
            n => out.extend(std::iter::repeat_n('\n', n - 1)),
        }
        run.clear();
        *breaks = 0;
    };
    for c in s.chars() {
        if c == ' ' || c == NEL {
            run.push(c);
            breaks += usize::from(c == NEL);
        } else {
            flush(&mut out, &mut run, &mut breaks);
            out.push(c);
        }
    }
    flush(&mut out, &mut run, &mut breaks);
    out
}

pub(super) fn fold_raw_breaks(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(fold_nel(s)),
        Value::Array(a) => Value::Array(a.iter().map(fold_raw_breaks).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (fold_nel(k), fold_raw_breaks(x)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Walk the strings in JSON text order (object keys sorted bytewise, as Go's
/// encoding/json and serde_json's map both do), counting NELs as lines, and report
/// the first error go-yaml's scanner or parser would.
pub(super) fn reread_errors(v: &Value, lines: &mut usize) -> Result<()> {
    match v {
        Value::String(s) => scan_quoted(s, lines),
        Value::Array(a) => a.iter().try_for_each(|x| reread_errors(x, lines)),
        Value::Object(m) => m.iter().try_for_each(|(k, x)| {
            scan_quoted(k, lines)?;
            // A key of at most 170 bytes is at most 1,022 bytes of JSON text.
            if (k.as_bytes().contains(&0x85) && k.contains(NEL))
                || (k.len() > 170 && json_text_len(k) > 1022)
            {
                // The key is no simple key (multi-line or too long): the parser
                // then finds `:` where it expects `,` or `}`.
                return Err(Error::new(match *lines {
                    0 => "yaml: did not find expected ',' or '}'".to_string(),
                    n => format!("yaml: line {n}: did not find expected ',' or '}}'"),
                }));
            }
            reread_errors(x, lines)
        }),
        _ => Ok(()),
    }
}

/// Count the NELs of one quoted scalar; a `---` or `...` right after a NEL and
/// followed by a blank is a document marker, which go-yaml's scanner rejects.
fn scan_quoted(s: &str, lines: &mut usize) -> Result<()> {
    // NEL is `C2 85` in UTF-8: a string without the byte 0x85 has none (the common
    // case, checked without decoding).
    if !s.as_bytes().contains(&0x85) {
        return Ok(());
    }
    for (i, c) in s.char_indices() {
        if c != NEL {
            continue;
        }
        *lines += 1;
        let rest = &s[i + NEL.len_utf8()..];
        let marker = rest.starts_with("---") || rest.starts_with("...");
        if marker
            && rest[3..]
                .chars()
                .next()
                .is_some_and(|c| c == ' ' || c == NEL)
        {
            return Err(Error::new(format!(
                "yaml: line {}: found unexpected document indicator",
                *lines + 1
            )));
        }
    }
    Ok(())
}

/// The length of `s` as JSON text, escapes counted as Go's encoding/json writes them.
fn json_text_len(s: &str) -> usize {
    s.chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => 6,
            c if (c as u32) < 0x20 => 6,
            _ => 1,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nels_count_as_lines_and_a_marker_after_one_is_refused() {
        let mut lines = 0;
        assert!(scan_quoted("plain text, é and \u{2028}", &mut lines).is_ok());
        assert_eq!(lines, 0);
        assert!(scan_quoted("a\u{85}b\u{85}--x", &mut lines).is_ok());
        assert_eq!(lines, 2);
        let mut lines = 0;
        let e = scan_quoted("a\u{85}b\u{85}--- c", &mut lines).unwrap_err();
        assert_eq!(
            e.to_string(),
            "yaml: line 3: found unexpected document indicator"
        );
        let mut lines = 0;
        assert!(scan_quoted("\u{85}...\u{85}", &mut lines).is_err());
        // A key with a NEL, or too long for a simple key, is refused by the parser.
        let e = reread_errors(&json!({"k\u{85}": 1}), &mut 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "yaml: line 1: did not find expected ',' or '}'"
        );
        assert!(reread_errors(&json!({"k".repeat(1022): 1}), &mut 0).is_ok());
        assert!(reread_errors(&json!({"k".repeat(1023): 1}), &mut 0).is_err());
        assert!(reread_errors(&json!({"<".repeat(171): 1}), &mut 0).is_err());
        assert!(reread_errors(&json!({"<".repeat(170): 1}), &mut 0).is_ok());
    }
}
