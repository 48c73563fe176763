//! Quoted scalars of the block reader: single- and double-quoted text decoded one
//! line at a time (YAML's escapes, `''`, and the white space folding drops).

use super::{Out, R};

pub(super) enum Part<'a> {
    /// The closing quote was met; what follows it on the line.
    Closed(&'a str),
    /// The line ended first (after a `\` escaping the line break, for double quotes).
    Open { escaped_break: bool },
}

/// A quoted scalar that opens at `t`'s start and closes on the same line: its value
/// and its length with both quotes; `None` when it does not close on this line.
pub(super) fn quoted_on_line(t: &str) -> R<Option<(String, usize)>> {
    let double = t.as_bytes()[0] == b'"';
    let mut out = String::new();
    Ok(match quoted_part(&t[1..], double, &mut out)? {
        Part::Closed(after) => Some((out, t.len() - after.len())),
        Part::Open { .. } => None,
    })
}

/// One line of a quoted scalar's text (after the opening quote, or the leading spaces
/// of a continuation line) decoded onto `out`. At an open line's end the white space
/// before the break is dropped, as folding does.
pub(super) fn quoted_part<'a>(line: &'a str, double: bool, out: &mut String) -> R<Part<'a>> {
    let b = line.as_bytes();
    let quote = if double { b'"' } else { b'\'' };
    // The length of `out` without the white space at its end that folding drops.
    let mut keep = out.len();
    let mut i = 0;
    loop {
        let run = b[i..]
            .iter()
            .position(|&c| c == quote || (double && c == b'\\'))
            .map_or(b.len(), |p| i + p);
        out.push_str(&line[i..run]);
        if line[i..run].bytes().any(|c| c != b' ') {
            keep = out.len()
                - line[i..run]
                    .bytes()
                    .rev()
                    .take_while(|&c| c == b' ')
                    .count();
        }
        i = run;
        if i == b.len() {
            out.truncate(keep);
            return Ok(Part::Open {
                escaped_break: false,
            });
        }
        if b[i] == quote {
            if !double && b.get(i + 1) == Some(&b'\'') {
                out.push('\'');
                keep = out.len();
                i += 2;
                continue;
            }
            return Ok(Part::Closed(&line[i + 1..]));
        }
        // A backslash.
        let Some(&e) = b.get(i + 1) else {
            return Ok(Part::Open {
                escaped_break: true,
            });
        };
        let (c, len) = match e {
            b'0' => ('\0', 2),
            b'a' => ('\x07', 2),
            b'b' => ('\x08', 2),
            b't' => ('\t', 2),
            b'n' => ('\n', 2),
            b'v' => ('\x0B', 2),
            b'f' => ('\x0C', 2),
            b'r' => ('\r', 2),
            b'e' => ('\x1B', 2),
            b' ' => (' ', 2),
            b'"' => ('"', 2),
            b'/' => ('/', 2),
            b'\\' => ('\\', 2),
            b'N' => ('\u{85}', 2),
            b'_' => ('\u{A0}', 2),
            b'L' => ('\u{2028}', 2),
            b'P' => ('\u{2029}', 2),
            b'x' => (hex(b, i + 2, 2)?, 4),
            b'u' => (hex(b, i + 2, 4)?, 6),
            b'U' => (hex(b, i + 2, 8)?, 10),
            _ => return Err(Out),
        };
        out.push(c);
        keep = out.len();
        i += len;
    }
}

/// The character of the `digits` hex digits at `at`.
fn hex(b: &[u8], at: usize, digits: usize) -> R<char> {
    let h = b.get(at..at + digits).ok_or(Out)?;
    if !h.iter().all(u8::is_ascii_hexdigit) {
        return Err(Out);
    }
    let v = u32::from_str_radix(std::str::from_utf8(h).map_err(|_| Out)?, 16).map_err(|_| Out)?;
    char::from_u32(v).ok_or(Out)
}
