//! Glob matching for the trim functions (`#`, `##`, `%`, `%%`).
//!
//! drone/envsubst ships its own variant of Go's `path.Match` (package
//! `envsubst/v2/path`): `*` matches any bytes *including* `/`, a trailing `*`
//! matches the whole rest, `?` and `[...]` consume one rune, literal characters
//! compare single bytes, `\c` escapes `c`, `[^...]` negates. Malformed patterns
//! are only reported when the matcher reaches the malformed part, which is
//! observable, so the same lazy order is kept here.

use super::gostr::{decode_rune, RUNE_ERROR};

/// A malformed pattern (`path.ErrBadPattern`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadPattern;

/// Whether `pattern` matches all of `name`.
#[cfg(test)]
pub fn matches(pattern: &[u8], name: &[u8]) -> Result<bool, BadPattern> {
    matches_counting(pattern, name, &mut 0)
}

/// [`matches`], adding to `work` at least the bytes it compares (each chunk tried
/// counts its length plus one).
pub fn matches_counting(
    mut pattern: &[u8],
    mut name: &[u8],
    work: &mut u64,
) -> Result<bool, BadPattern> {
    *work += 1;
    'pattern: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        *work += chunk.len() as u64 + 1;
        if star && chunk.is_empty() {
            return Ok(true);
        }
        let first = match_chunk(chunk, name);
        if let Ok(Some(t)) = first {
            if t.is_empty() || !pattern.is_empty() {
                name = t;
                continue;
            }
        }
        first?;
        if star {
            for i in 0..name.len() {
                *work += chunk.len() as u64 + 1;
                match match_chunk(chunk, &name[i + 1..]) {
                    Ok(Some(t)) => {
                        if pattern.is_empty() && !t.is_empty() {
                            continue;
                        }
                        name = t;
                        continue 'pattern;
                    }
                    Ok(None) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

/// Split off the next chunk: leading stars, then everything up to the next
/// star outside a `[...]` class.
fn scan_chunk(pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let stars = pattern.iter().take_while(|&&c| c == b'*').count();
    let pattern = &pattern[stars..];
    let mut in_range = false;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            // An escape skips the next byte (a trailing backslash is caught later).
            b'\\' if i + 1 < pattern.len() => i += 1,
            b'[' => in_range = true,
            b']' => in_range = false,
            b'*' if !in_range => break,
            _ => {}
        }
        i += 1;
    }
    (stars > 0, &pattern[..i], &pattern[i..])
}

/// Match `chunk` (no stars) against the start of `s`; the unmatched rest of
/// `s` on success, `None` on mismatch.
fn match_chunk<'a>(mut chunk: &[u8], mut s: &'a [u8]) -> Result<Option<&'a [u8]>, BadPattern> {
    while let Some(&c) = chunk.first() {
        if s.is_empty() {
            return Ok(None);
        }
        match c {
            b'[' => {
                let (r, n) = decode_rune(s);
                s = &s[n.max(1).min(s.len())..];
                let (matched, rest) = match_class(&chunk[1..], r)?;
                if !matched {
                    return Ok(None);
                }
                chunk = rest;
            }
            b'?' => {
                let (_, n) = decode_rune(s);
                s = &s[n.max(1).min(s.len())..];
                chunk = &chunk[1..];
            }
            _ => {
                let lit = if c == b'\\' {
                    chunk = &chunk[1..];
                    *chunk.first().ok_or(BadPattern)?
                } else {
                    c
                };
                if s[0] != lit {
                    return Ok(None);
                }
                s = &s[1..];
                chunk = &chunk[1..];
            }
        }
    }
    Ok(Some(s))
}

/// Evaluate a character class (after its `[`) for rune `r`; whether it
/// matched and the chunk after the closing `]`.
fn match_class(mut chunk: &[u8], r: char) -> Result<(bool, &[u8]), BadPattern> {
    let negated = chunk.first() == Some(&b'^');
    if negated {
        chunk = &chunk[1..];
    }
    let mut matched = false;
    let mut ranges = 0;
    loop {
        if chunk.first() == Some(&b']') && ranges > 0 {
            chunk = &chunk[1..];
            break;
        }
        let (lo, rest) = class_char(chunk)?;
        chunk = rest;
        let mut hi = lo;
        if chunk.first() == Some(&b'-') {
            let (h, rest) = class_char(&chunk[1..])?;
            hi = h;
            chunk = rest;
        }
        if lo <= r && r <= hi {
            matched = true;
        }
        ranges += 1;
    }
    Ok((matched != negated, chunk))
}

/// A possibly escaped character inside a class (`getEsc`). It is an error for
/// the class to end right after it.
fn class_char(chunk: &[u8]) -> Result<(char, &[u8]), BadPattern> {
    let mut chunk = match chunk.first() {
        None | Some(b'-') | Some(b']') => return Err(BadPattern),
        Some(b'\\') => &chunk[1..],
        Some(_) => chunk,
    };
    if chunk.is_empty() {
        return Err(BadPattern);
    }
    let (r, n) = decode_rune(chunk);
    if r == RUNE_ERROR && n == 1 {
        return Err(BadPattern);
    }
    chunk = &chunk[n..];
    if chunk.is_empty() {
        return Err(BadPattern);
    }
    Ok((r, chunk))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, n: &str) -> Result<bool, BadPattern> {
        matches(p.as_bytes(), n.as_bytes())
    }

    #[test]
    fn star_matches_slashes_too() {
        assert_eq!(m("*", "a/b"), Ok(true));
        assert_eq!(m("*/", "a/b/"), Ok(true));
        assert_eq!(m("a*c", "abbc"), Ok(true));
        assert_eq!(m("a*c", "abbd"), Ok(false));
        assert_eq!(m("*.gz", "f.tar.gz"), Ok(true));
    }

    #[test]
    fn question_and_classes_consume_runes() {
        assert_eq!(m("?", "é"), Ok(true));
        assert_eq!(m("[a-c]", "b"), Ok(true));
        assert_eq!(m("[^a-c]", "b"), Ok(false));
        assert_eq!(m("[日-本]", "本"), Ok(true));
        assert_eq!(m("[\\]]", "]"), Ok(true));
        // `!` is not a negation in Go's class syntax.
        assert_eq!(m("[!a]", "!"), Ok(true));
    }

    #[test]
    fn bad_patterns_are_reported_lazily() {
        assert_eq!(m("[", "a"), Err(BadPattern));
        assert_eq!(m("[]", "a"), Err(BadPattern));
        assert_eq!(m("\\", "a"), Err(BadPattern));
        assert_eq!(m("a[", "b"), Ok(false)); // mismatch before reaching `[`
        assert_eq!(m("[a-", "a"), Err(BadPattern));
        assert_eq!(m("[a", ""), Ok(false)); // nothing to match: never parsed
    }

    #[test]
    fn escapes() {
        assert_eq!(m("\\*", "*"), Ok(true));
        assert_eq!(m("\\*", "a"), Ok(false));
    }
}
