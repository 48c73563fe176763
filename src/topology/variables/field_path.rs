//! apiextensions-apiserver v0.32.3's `cel.ValidFieldPath`: whether an
//! `x-kubernetes-validations[].fieldPath` (`.a.b`, `['a.b']`, `.m.key`) names a field of
//! the schema the rule sits on. The error is Go's text.

use super::schema::Schema;

/// The tokens of Go's `bufio.Scanner` split function: each `.`, `[`, `]` alone, a
/// single-quoted string (to its first unescaped `'`, or the end) and the text between.
fn tokens(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while start < b.len() {
        let data = &b[start..];
        let end = if data[0] == b'\'' {
            (1..data.len())
                .find(|&i| data[i] == b'\'' && data[i - 1] != b'\\')
                .map_or(data.len(), |i| i + 1)
        } else {
            match data.iter().position(|c| matches!(c, b'.' | b'[' | b']')) {
                Some(0) => 1,
                Some(i) => i,
                None => data.len(),
            }
        };
        out.push(&s[start..start + end]);
        start += end;
    }
    out
}

/// `unescapeSingleQuote`'s error: the last `\x` (regexp `\\.`) that is not a known escape.
fn unescape_error(s: &str) -> Option<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut err = None;
    let mut i = 0;
    while i + 1 < chars.len() {
        if chars[i] != '\\' || chars[i + 1] == '\n' {
            i += 1;
            continue;
        }
        if !"abfnrtv'\\".contains(chars[i + 1]) {
            err = Some(format!("invalid escape char \\{}", chars[i + 1]));
        }
        i += 2;
    }
    err
}

/// One step into `s`: a property when it has properties, else a key of its
/// additionalProperties.
fn step<'a>(s: &'a Schema, name: &str) -> Result<&'a Schema, String> {
    let invalid = || "does not refer to a valid field".to_string();
    if !s.properties.is_empty() {
        s.properties.get(name).ok_or_else(invalid)
    } else {
        s.additional_properties.as_deref().ok_or_else(invalid)
    }
}

/// `ValidFieldPath(path, schema)`'s error, if any.
pub fn valid_field_path(path: &str, schema: &Schema) -> Result<(), String> {
    let eof = || "unexpected end of JSON path".to_string();
    let toks = tokens(path);
    let mut it = toks.into_iter();
    let mut s = schema;
    while let Some(tok) = it.next() {
        match tok {
            "[" => {
                let q = it.next().ok_or_else(eof)?;
                if q.len() < 2 || !q.starts_with('\'') || !q.ends_with('\'') {
                    return Err(format!("expected single quoted string but got {q}"));
                }
                let inner = &q[1..q.len() - 1];
                if let Some(e) = unescape_error(inner) {
                    return Err(format!("invalid string literal: {e}"));
                }
                s = step(s, &unescape(inner))?;
                let close = it.next().ok_or_else(eof)?;
                if close != "]" {
                    return Err(format!("expected ] but got {close}"));
                }
            }
            "." => s = step(s, it.next().ok_or_else(eof)?)?,
            _ => return Err(format!("expected [ or . but got: {tok}")),
        }
    }
    Ok(())
}

/// `unescapeSingleQuote` without error (checked first by [`unescape_error`]).
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek().copied()) {
            ('\\', Some(n)) if n != '\n' => {
                chars.next();
                out.push(match n {
                    'a' => '\x07',
                    'b' => '\x08',
                    'f' => '\x0c',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    'v' => '\x0b',
                    other => other,
                });
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_valid_field_path() {
        let s = Schema::from_value(
            &json!({"type": "object", "properties": {
                "a": {"type": "object", "properties": {"b.c": {"type": "string"}}},
                "m": {"type": "object", "additionalProperties": {"type": "string"}}
            }}),
            "",
        )
        .unwrap();
        for ok in [
            ".a",
            ".a['b.c']",
            "['a']['b.c']",
            ".m.anything",
            ".m['x']",
            "",
        ] {
            assert_eq!(valid_field_path(ok, &s), Ok(()), "{ok}");
        }
        for (bad, e) in [
            (".x", "does not refer to a valid field"),
            (".a.b.c", "does not refer to a valid field"),
            (".a.", "unexpected end of JSON path"),
            ("a", "expected [ or . but got: a"),
            (" ", "expected [ or . but got:  "),
            ("[a]", "expected single quoted string but got a"),
            ("['a'", "unexpected end of JSON path"),
            ("['a'.", "expected ] but got ."),
            ("['\\q']", "invalid string literal: invalid escape char \\q"),
            (".m.k.z", "does not refer to a valid field"),
        ] {
            assert_eq!(valid_field_path(bad, &s), Err(e.to_string()), "{bad}");
        }
    }
}
