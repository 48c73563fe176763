//! Go string semantics on raw bytes.
//!
//! Go strings are byte strings that are *usually* UTF-8. drone/envsubst slices
//! them at byte offsets (`${A:1}`, `${#A}`) and decodes runes the Go way, so the
//! engine works on `&[u8]` and these helpers reproduce the Go standard library
//! functions it calls: `utf8.DecodeRuneInString`, `unicode.IsLetter`/`IsDigit`,
//! `unicode.ToUpper`/`ToLower`, `strings.ToUpper`/`ToLower`/`Replace`,
//! `[]rune(s)` conversion and `strconv.Atoi`.

use super::unicode_tables::{DIGIT, LETTER, TO_LOWER, TO_UPPER};

/// `utf8.RuneError`, what Go decodes an invalid byte to.
pub const RUNE_ERROR: char = '\u{FFFD}';

/// `utf8.DecodeRune`: the first rune of `b` and its width in bytes.
/// Empty input gives `(RUNE_ERROR, 0)`; any invalid sequence gives
/// `(RUNE_ERROR, 1)` (Go never consumes more than one byte of a bad sequence).
pub fn decode_rune(b: &[u8]) -> (char, usize) {
    let Some(&b0) = b.first() else {
        return (RUNE_ERROR, 0);
    };
    if b0 < 0x80 {
        return (char::from(b0), 1);
    }
    let width = match b0 {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return (RUNE_ERROR, 1),
    };
    match b.get(..width).map(std::str::from_utf8) {
        Some(Ok(s)) => s.chars().next().map_or((RUNE_ERROR, 1), |c| (c, width)),
        _ => (RUNE_ERROR, 1),
    }
}

/// The runes of `b` as Go's `for range` / `[]rune(s)` sees them.
pub fn runes(b: &[u8]) -> Vec<char> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let (r, w) = decode_rune(&b[i..]);
        out.push(r);
        i += w.max(1);
    }
    out
}

/// Append the UTF-8 encoding of `r`.
pub fn push_rune(out: &mut Vec<u8>, r: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(r.encode_utf8(&mut buf).as_bytes());
}

/// `string(runes)`.
pub fn encode_runes(rs: &[char]) -> Vec<u8> {
    let mut out = Vec::with_capacity(rs.len());
    for &r in rs {
        push_rune(&mut out, r);
    }
    out
}

fn in_ranges(table: &[(u32, u32)], c: u32) -> bool {
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

fn mapped(table: &[(u32, u32)], r: char) -> char {
    match table.binary_search_by_key(&u32::from(r), |&(from, _)| from) {
        Ok(i) => table
            .get(i)
            .and_then(|&(_, to)| char::from_u32(to))
            .unwrap_or(r),
        Err(_) => r,
    }
}

/// `unicode.IsLetter`.
pub fn is_letter(r: char) -> bool {
    in_ranges(LETTER, u32::from(r))
}

/// `unicode.IsDigit`.
pub fn is_digit(r: char) -> bool {
    in_ranges(DIGIT, u32::from(r))
}

/// `unicode.ToUpper` (simple, one-rune case mapping).
pub fn to_upper(r: char) -> char {
    mapped(TO_UPPER, r)
}

/// `unicode.ToLower` (simple, one-rune case mapping).
pub fn to_lower(r: char) -> char {
    mapped(TO_LOWER, r)
}

/// `strings.Map(f, s)` for a rune-to-rune `f`: invalid bytes become U+FFFD.
pub fn map_runes(s: &[u8], f: fn(char) -> char) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for r in runes(s) {
        push_rune(&mut out, f(r));
    }
    out
}

/// Map only the first rune (drone's `toUpperFirst`/`toLowerFirst`); the rest
/// of the bytes are kept as they are.
pub fn map_first(s: &[u8], f: fn(char) -> char) -> Vec<u8> {
    if s.is_empty() {
        return Vec::new();
    }
    let (r, w) = decode_rune(s);
    let mut out = Vec::with_capacity(s.len() + 3);
    push_rune(&mut out, f(r));
    out.extend_from_slice(s.get(w..).unwrap_or_default());
    out
}

/// `[]rune` reversal, as drone's `reverse`: invalid bytes become U+FFFD.
pub fn reverse(s: &[u8]) -> Vec<u8> {
    let mut rs = runes(s);
    rs.reverse();
    encode_runes(&rs)
}

/// Byte offset of the first occurrence of `needle` in `hay` (`strings.Index`).
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    // A substring search, linear in the haystack (a window-by-window comparison is
    // quadratic for a long needle in a megabyte value).
    memchr::memmem::find(hay, needle)
}

/// The number of replacements `strings.Replace(s, old, new, n)` makes (the matches
/// `old` has in `s`, at most `n` when `n >= 0`), counted without building anything.
pub fn replace_count(s: &[u8], old: &[u8], new: &[u8], n: i64) -> u64 {
    if old == new || n == 0 {
        return 0;
    }
    let all = if old.is_empty() {
        // An empty `old` matches at the start and after each rune.
        let mut count = 1u64;
        let mut i = 0;
        while i < s.len() {
            i += decode_rune(&s[i..]).1.max(1);
            count += 1;
        }
        count
    } else {
        memchr::memmem::find_iter(s, old).count() as u64
    };
    if n < 0 {
        all
    } else {
        all.min(n as u64)
    }
}

/// The length of `strings.Replace(s, old, new, n)`, computed before it is built.
pub fn replace_len(s: &[u8], old: &[u8], new: &[u8], n: i64) -> u64 {
    let m = replace_count(s, old, new, n);
    (s.len() as u64)
        .saturating_sub(m.saturating_mul(old.len() as u64))
        .saturating_add(m.saturating_mul(new.len() as u64))
}

/// `strings.Replace(s, old, new, n)`; `n < 0` means all.
pub fn replace(s: &[u8], old: &[u8], new: &[u8], n: i64) -> Vec<u8> {
    if old == new || n == 0 {
        return s.to_vec();
    }
    let mut out = Vec::with_capacity(s.len());
    let mut rest = s;
    let mut done = 0i64;
    let mut first = true;
    while n < 0 || done < n {
        let at = if old.is_empty() {
            // An empty `old` matches at the start and after each rune.
            if first {
                Some(0)
            } else if rest.is_empty() {
                None
            } else {
                Some(decode_rune(rest).1.max(1))
            }
        } else {
            find(rest, old)
        };
        let Some(at) = at else { break };
        let (head, tail) = rest.split_at(at.min(rest.len()));
        out.extend_from_slice(head);
        out.extend_from_slice(new);
        rest = tail.get(old.len()..).unwrap_or_default();
        done += 1;
        first = false;
    }
    out.extend_from_slice(rest);
    out
}

/// `strconv.Atoi`: optional sign, ASCII decimal digits, must fit in `i64`.
pub fn atoi(s: &[u8]) -> Option<i64> {
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        let d = i64::from(d - b'0');
        v = v.checked_mul(10)?;
        v = if neg {
            v.checked_sub(d)?
        } else {
            v.checked_add(d)?
        };
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_rune_is_go_like() {
        assert_eq!(decode_rune(b""), (RUNE_ERROR, 0));
        assert_eq!(decode_rune(b"a"), ('a', 1));
        assert_eq!(decode_rune("é".as_bytes()), ('é', 2));
        assert_eq!(decode_rune("😀".as_bytes()), ('😀', 4));
        // Truncated multi-byte sequences and stray continuation bytes: width 1.
        assert_eq!(decode_rune(&[0xE6, 0x97]), (RUNE_ERROR, 1));
        assert_eq!(decode_rune(&[0x97, b'a']), (RUNE_ERROR, 1));
        // Surrogates and overlong encodings are invalid.
        assert_eq!(decode_rune(&[0xED, 0xA0, 0x80]), (RUNE_ERROR, 1));
        assert_eq!(decode_rune(&[0xC0, 0x80]), (RUNE_ERROR, 1));
    }

    #[test]
    fn runes_replace_each_bad_byte() {
        assert_eq!(
            runes(&[b'a', 0xE6, 0x97, b'b']),
            vec!['a', RUNE_ERROR, RUNE_ERROR, 'b']
        );
    }

    #[test]
    fn go_simple_case_mapping() {
        assert_eq!(to_upper('a'), 'A');
        assert_eq!(to_upper('ß'), 'ß'); // no single-rune upper case
        assert_eq!(to_lower('İ'), 'i'); // simple mapping, no combining dot
        assert_eq!(to_upper('ǆ'), 'Ǆ');
        assert_eq!(to_lower('ǅ'), 'ǆ');
        assert_eq!(map_runes(&[b'a', 0xFF], to_upper), "A\u{FFFD}".as_bytes());
    }

    #[test]
    fn letters_and_digits_follow_go() {
        assert!(is_letter('é') && is_letter('名') && is_letter('ǅ'));
        assert!(!is_letter('Ⅷ')); // Nl is not a letter for Go
        assert!(!is_letter('\u{301}'));
        assert!(is_digit('٣') && !is_digit('Ⅷ') && !is_digit('²'));
    }

    #[test]
    fn replace_matches_strings_replace() {
        assert_eq!(replace(b"aXbXc", b"X", b"-", -1), b"a-b-c");
        assert_eq!(replace(b"aXbXc", b"X", b"-", 1), b"a-bXc");
        assert_eq!(replace(b"ab", b"", b"-", -1), b"-a-b-");
        assert_eq!(replace(b"ab", b"", b"-", 1), b"-ab");
        assert_eq!(replace("é".as_bytes(), b"", b"-", -1), "-é-".as_bytes());
        assert_eq!(replace(b"", b"", b"-", -1), b"-");
        assert_eq!(replace(b"abc", b"z", b"-", -1), b"abc");
    }

    #[test]
    fn atoi_matches_strconv() {
        assert_eq!(atoi(b"12"), Some(12));
        assert_eq!(atoi(b"-3"), Some(-3));
        assert_eq!(atoi(b"+1"), Some(1));
        assert_eq!(atoi(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(atoi(b"9223372036854775808"), None);
        for bad in [&b""[..], b"-", b" 1", b"1 ", b"0x1", b"1_0"] {
            assert_eq!(atoi(bad), None);
        }
    }
}
