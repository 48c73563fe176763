//! Where a scalar two keys deep (`spec.version`) sits in one YAML document's source
//! text, so that a tool can change exactly those bytes and keep every comment, quote
//! and indentation (`upgrade apply`).
//!
//! This is a line scanner, not a YAML parser, and it only answers for the layout it can
//! prove: the outer key at column 0 (a block mapping document), its value a block
//! mapping (nothing but a comment after `spec:`), the inner key at that mapping's
//! indentation, written plain, and its value a single-line plain, single-quoted or
//! double-quoted scalar. Anything else (flow style, anchors, tags, aliases, block
//! scalars, tabs, quoted keys, a multi-line value) is [`Locate::Unsupported`] with the
//! reason. The caller re-parses the edited text and compares values, so an edit this
//! scanner gets wrong can never be written.

use std::ops::Range;

/// How the found scalar is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `key: value` (also `key:` with nothing: the span is empty, after the colon).
    Plain,
    /// `key: 'value'`.
    Single,
    /// `key: "value"`.
    Double,
}

/// The answer for one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Locate {
    /// The scalar's bytes (quotes included) in the document.
    Found { span: Range<usize>, style: Style },
    /// The inner key is absent: insert `text` (whole lines, the document's own
    /// indentation and line ending) at byte `at`.
    Insert { at: usize, text: String },
    /// The layout is beyond this scanner; the reason says which construct.
    Unsupported(String),
}

/// One line of the document: its byte range without the terminator, and the terminator.
struct Line<'a> {
    start: usize,
    text: &'a str,
    /// `\n`, `\r\n` or `""` (the last line of a file without one).
    eol: &'a str,
}

fn lines(doc: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut at = 0;
    for raw in doc.split_inclusive('\n') {
        let (text, eol) = if let Some(t) = raw.strip_suffix("\r\n") {
            (t, "\r\n")
        } else if let Some(t) = raw.strip_suffix('\n') {
            (t, "\n")
        } else {
            (raw, "")
        };
        out.push(Line {
            start: at,
            text,
            eol,
        });
        at += raw.len();
    }
    out
}

/// Blank or comment-only: it belongs to no key.
fn is_filler(t: &str) -> bool {
    let s = t.trim_start_matches(' ');
    s.is_empty() || s.starts_with('#')
}

fn indent(t: &str) -> usize {
    t.len() - t.trim_start_matches(' ').len()
}

/// `key:` at the start of `t` (after indentation): what follows the colon.
fn after_key<'a>(t: &'a str, key: &str) -> Option<&'a str> {
    let rest = t.strip_prefix(key)?.strip_prefix(':')?;
    (rest.is_empty() || rest.starts_with(' ')).then_some(rest)
}

/// A key written quoted (`"spec":`) or as a complex key cannot be matched by name.
fn quoted_key(t: &str) -> bool {
    t.starts_with('"') || t.starts_with('\'') || t.starts_with('?')
}

/// The document's indentation step: the indentation of its first indented key line, else 2.
fn indent_step(ls: &[Line]) -> usize {
    ls.iter()
        .filter(|l| !is_filler(l.text))
        .map(|l| indent(l.text))
        .find(|&n| n > 0)
        .unwrap_or(2)
}

/// The value after `key:` on one line: a comment or nothing means a block follows.
fn opens_block(rest: &str) -> bool {
    let r = rest.trim_start_matches(' ');
    r.is_empty() || r.starts_with('#')
}

/// Locate `outer.inner` in `doc` (one document's text, as [`super::split::document_spans`]
/// gives it); an insertion writes `value` as a plain scalar.
pub fn locate(doc: &str, outer: &str, inner: &str, value: &str) -> Locate {
    let ls = lines(doc);
    if ls.iter().any(|l| l.text.starts_with('\t')) {
        return Locate::Unsupported("a line is indented with a tab".into());
    }
    // The top-level lines: column 0, not filler, not a sequence entry or a directive.
    let mut outer_at = None;
    for (i, l) in ls.iter().enumerate() {
        if is_filler(l.text) || indent(l.text) > 0 {
            continue;
        }
        let t = l.text;
        if t.starts_with("...") || t.starts_with('%') {
            return Locate::Unsupported(format!("line {}: a document marker or directive", i + 1));
        }
        if quoted_key(t) {
            return Locate::Unsupported(format!("line {}: a quoted or complex key", i + 1));
        }
        if after_key(t, outer).is_some() {
            if outer_at.is_some() {
                return Locate::Unsupported(format!("`{outer}` appears twice"));
            }
            outer_at = Some(i);
        }
    }
    let step = indent_step(&ls);
    let eol = ls
        .iter()
        .find(|l| !l.eol.is_empty())
        .map_or("\n", |l| l.eol);
    let Some(oi) = outer_at else {
        // No `spec:`: append a block mapping at the end of the document.
        let end = doc.len();
        let mut text = String::new();
        if ls
            .last()
            .is_some_and(|l| l.eol.is_empty() && !l.text.is_empty())
        {
            text.push_str(eol);
        }
        text.push_str(&format!(
            "{outer}:{eol}{}{inner}: {value}{eol}",
            " ".repeat(step)
        ));
        return Locate::Insert { at: end, text };
    };
    let rest = after_key(ls[oi].text, outer).unwrap_or("");
    if !opens_block(rest) {
        return Locate::Unsupported(format!(
            "line {}: `{outer}:` has its value on the same line (flow style, an anchor, a tag or a scalar); only a block mapping is edited",
            oi + 1
        ));
    }
    // The block: the lines after `spec:` up to the next line at column 0.
    let block: Vec<(usize, &Line)> = ls
        .iter()
        .enumerate()
        .skip(oi + 1)
        .take_while(|(_, l)| is_filler(l.text) || indent(l.text) > 0)
        .filter(|(_, l)| !is_filler(l.text))
        .collect();
    // A sequence may sit at the key's own column (`spec:\n- a`).
    let next_top = ls[oi + 1..].iter().find(|l| !is_filler(l.text));
    if block.is_empty() && next_top.is_some_and(|l| l.text.starts_with('-')) {
        return Locate::Unsupported(format!("`{outer}` is a sequence, not a mapping"));
    }
    let Some(&(_, first)) = block.first() else {
        // `spec:` with nothing under it (null): add the key under it.
        let l = &ls[oi];
        let line_end = l.start + l.text.len();
        let (at, text) = if l.eol.is_empty() {
            (
                line_end,
                format!("{eol}{}{inner}: {value}", " ".repeat(step)),
            )
        } else {
            (
                line_end + l.eol.len(),
                format!("{}{inner}: {value}{}", " ".repeat(step), l.eol),
            )
        };
        return Locate::Insert { at, text };
    };
    let n = indent(first.text);
    if first.text[n..].starts_with('-') {
        return Locate::Unsupported(format!("`{outer}` is a sequence, not a mapping"));
    }
    let mut found = None;
    for &(i, l) in &block {
        let k = indent(l.text);
        if k < n {
            return Locate::Unsupported(format!("line {}: inconsistent indentation", i + 1));
        }
        if k > n {
            continue;
        }
        let t = &l.text[n..];
        if quoted_key(t) {
            return Locate::Unsupported(format!("line {}: a quoted or complex key", i + 1));
        }
        if let Some(r) = after_key(t, inner) {
            if found.is_some() {
                return Locate::Unsupported(format!("`{outer}.{inner}` appears twice"));
            }
            found = Some((i, l.start + n + inner.len() + 1, r));
        }
    }
    let Some((i, after_colon, r)) = found else {
        // Absent: the first key of the block, at its indentation.
        let l = &ls[oi];
        let text = format!("{}{inner}: {value}{}", " ".repeat(n), l.eol);
        return Locate::Insert {
            at: l.start + l.text.len() + l.eol.len(),
            text,
        };
    };
    // A value continued on a more-indented line is a multi-line scalar or a mapping.
    if let Some(next) = ls
        .get(i + 1..)
        .and_then(|rest| rest.iter().find(|l| !is_filler(l.text)))
    {
        if indent(next.text) > n {
            return Locate::Unsupported(format!(
                "line {}: `{outer}.{inner}` continues on the next line",
                i + 1
            ));
        }
    }
    scalar(r, after_colon, i)
}

/// The scalar in `r` (the line after `key:`), which starts at byte `at` of the document.
fn scalar(r: &str, at: usize, line: usize) -> Locate {
    let lead = r.len() - r.trim_start_matches(' ').len();
    let v = &r[lead..];
    let start = at + lead;
    let unsupported = |what: &str| {
        Locate::Unsupported(format!(
            "line {}: the value is {what}; only a plain or quoted scalar on one line is edited",
            line + 1
        ))
    };
    match v.as_bytes().first() {
        None | Some(b'#') => Locate::Found {
            span: at..at,
            style: Style::Plain,
        },
        Some(b'\'') => {
            let b = v.as_bytes();
            let mut j = 1;
            while j < b.len() {
                if b[j] == b'\'' {
                    if b.get(j + 1) == Some(&b'\'') {
                        j += 2;
                        continue;
                    }
                    return close(v, j + 1, start, Style::Single, line);
                }
                j += 1;
            }
            unsupported("a single-quoted scalar that does not end on its line")
        }
        Some(b'"') => {
            let b = v.as_bytes();
            let mut j = 1;
            while j < b.len() {
                match b[j] {
                    b'\\' => j += 2,
                    b'"' => return close(v, j + 1, start, Style::Double, line),
                    _ => j += 1,
                }
            }
            unsupported("a double-quoted scalar that does not end on its line")
        }
        Some(b'&') => unsupported("an anchor"),
        Some(b'*') => unsupported("an alias"),
        Some(b'!') => unsupported("tagged"),
        Some(b'|') | Some(b'>') => unsupported("a block scalar"),
        Some(b'{') | Some(b'[') => unsupported("a flow collection"),
        Some(_) => {
            // A plain scalar ends before ` #` (a comment) or at the end of the line.
            let end = v.find(" #").unwrap_or(v.len());
            let body = v[..end].trim_end_matches(' ');
            Locate::Found {
                span: start..start + body.len(),
                style: Style::Plain,
            }
        }
    }
}

/// A quoted scalar ending at byte `end` of `v`: only spaces or a comment may follow.
fn close(v: &str, end: usize, start: usize, style: Style, line: usize) -> Locate {
    let tail = v[end..].trim_start_matches(' ');
    if !(tail.is_empty() || (tail.starts_with('#') && v[end..].starts_with(' '))) {
        return Locate::Unsupported(format!("line {}: text follows the quoted value", line + 1));
    }
    Locate::Found {
        span: start..start + end,
        style,
    }
}

/// `value` written in `style`, for a value that needs no escaping in any of them (the
/// caller passes a semantic version).
pub fn write_scalar(value: &str, style: Style) -> String {
    match style {
        Style::Plain => value.to_string(),
        Style::Single => format!("'{value}'"),
        Style::Double => format!("\"{value}\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(doc: &str) -> (String, Style) {
        match locate(doc, "spec", "version", "v9") {
            Locate::Found { span, style } => (doc[span].to_string(), style),
            other => panic!("{doc:?}: {other:?}"),
        }
    }

    fn insert(doc: &str) -> String {
        match locate(doc, "spec", "version", "v9") {
            Locate::Insert { at, text } => format!("{}{text}{}", &doc[..at], &doc[at..]),
            other => panic!("{doc:?}: {other:?}"),
        }
    }

    fn unsupported(doc: &str) -> String {
        match locate(doc, "spec", "version", "v9") {
            Locate::Unsupported(why) => why,
            other => panic!("{doc:?}: {other:?}"),
        }
    }

    #[test]
    fn finds_plain_and_quoted_values_with_comments_around() {
        let d = "kind: CoreProvider\nmetadata:\n  name: x\n  version: no\nspec:\n  # pinned\n  version: v1.9.11   # keep\n  manager: {}\n";
        assert_eq!(found(d), ("v1.9.11".into(), Style::Plain));
        assert_eq!(
            found("spec:\n    version: 'v1.9.11' # c\n"),
            ("'v1.9.11'".into(), Style::Single)
        );
        assert_eq!(
            found("spec:\r\n  version: \"v1\\\"x\"\r\n"),
            ("\"v1\\\"x\"".into(), Style::Double)
        );
        assert_eq!(
            found("spec:\n  version: 'it''s'\n"),
            ("'it''s'".into(), Style::Single)
        );
        // Nested keys of the same name and top-level `version` are not it.
        let d = "version: a\nspec:\n  fetchConfig:\n    version: b\n  version: c\n";
        assert_eq!(found(d), ("c".into(), Style::Plain));
        // A key that only starts with the name is another key.
        assert_eq!(found("spec:\n  versions: a\n  version: b\n").0, "b");
        assert_eq!(found("specs:\n  version: a\nspec:\n  version: b\n").0, "b");
        // Empty value: an empty span right after the colon.
        let d = "spec:\n  version:\n  x: 1\n";
        match locate(d, "spec", "version", "v9") {
            Locate::Found { span, style } => {
                assert_eq!((span.start, span.end, style), (16, 16, Style::Plain))
            }
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn inserts_where_the_key_is_missing() {
        assert_eq!(
            insert("kind: K\nspec:\n    manager: {}\n"),
            "kind: K\nspec:\n    version: v9\n    manager: {}\n"
        );
        assert_eq!(
            insert("kind: K\r\nspec:\r\n  a: 1\r\n"),
            "kind: K\r\nspec:\r\n  version: v9\r\n  a: 1\r\n"
        );
        // No spec at all: appended, with the document's step and line ending.
        assert_eq!(
            insert("kind: K\nmetadata:\n   name: x\n"),
            "kind: K\nmetadata:\n   name: x\nspec:\n   version: v9\n"
        );
        assert_eq!(insert("kind: K"), "kind: K\nspec:\n  version: v9\n");
        // `spec:` with nothing under it.
        assert_eq!(
            insert("kind: K\nspec:\n"),
            "kind: K\nspec:\n  version: v9\n"
        );
        assert_eq!(insert("kind: K\nspec:"), "kind: K\nspec:\n  version: v9");
        assert_eq!(
            insert("spec: # set below\n# c\nkind: K\n"),
            "spec: # set below\n  version: v9\n# c\nkind: K\n"
        );
    }

    #[test]
    fn refuses_what_it_cannot_prove() {
        for (doc, why) in [
            ("spec: {version: v1}\n", "same line"),
            ("spec: &a\n  version: v1\n", "same line"),
            ("spec:\n  version: &v v1\n", "an anchor"),
            ("spec:\n  version: *v\n", "an alias"),
            ("spec:\n  version: !!str v1\n", "tagged"),
            ("spec:\n  version: |\n    v1\n", "continues"),
            ("spec:\n  version: >-\n", "a block scalar"),
            ("spec:\n  version: [v1]\n", "a flow collection"),
            ("spec:\n  version: v1\n    more\n", "continues"),
            ("spec:\n  version: 'v1\n", "does not end"),
            ("spec:\n- a\nkind: K\n", "sequence"),
            ("spec:\n  version: \"v1\" x\n", "text follows"),
            ("spec:\n  \"version\": v1\n", "quoted"),
            ("\"spec\":\n  version: v1\n", "quoted"),
            ("spec:\n\tversion: v1\n", "tab"),
            ("spec:\n- version: v1\n", "sequence"),
            ("spec:\n    a: 1\n  version: v1\n", "inconsistent"),
            ("spec:\n  version: a\n  version: b\n", "twice"),
            ("spec:\n  a: 1\nspec:\n  b: 2\n", "twice"),
            ("%YAML 1.1\nspec:\n  a: 1\n", "directive"),
        ] {
            let got = unsupported(doc);
            assert!(got.contains(why), "{doc:?}: {got}");
        }
    }

    #[test]
    fn writes_in_the_found_style() {
        assert_eq!(write_scalar("v1", Style::Plain), "v1");
        assert_eq!(write_scalar("v1", Style::Single), "'v1'");
        assert_eq!(write_scalar("v1", Style::Double), "\"v1\"");
    }

    #[test]
    fn every_prefix_and_one_byte_change_answers_inside_the_text() {
        let base = "kind: K\r\nmetadata:\n  name: x # n\nspec:\n  # c\n  version: 'v1''x' # y\n  a: \"q\\\"\"\n";
        let mut texts: Vec<String> = (0..=base.len()).map(|i| base[..i].to_string()).collect();
        for i in 0..base.len() {
            for c in [' ', '\t', '\n', '#', '\'', '"', ':', '-', '{', '\\', 'é'] {
                let mut t = base.to_string();
                t.replace_range(i..i + 1, &c.to_string());
                texts.push(t);
            }
        }
        for t in &texts {
            match locate(t, "spec", "version", "v9") {
                Locate::Found { span, .. } => {
                    assert!(span.start <= span.end && span.end <= t.len(), "{t:?}");
                    assert!(t.is_char_boundary(span.start) && t.is_char_boundary(span.end));
                }
                Locate::Insert { at, .. } => assert!(at <= t.len() && t.is_char_boundary(at)),
                Locate::Unsupported(_) => {}
            }
        }
    }
}
