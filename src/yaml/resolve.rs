//! The YAML 1.1 resolution go-yaml v2's *writer* uses to decide whether a string may
//! be written as a plain scalar (`encode.go` `stringv`: the string must resolve back
//! to `!!str` with `resolve.go` `resolve("", s)` and must not be a base-60 float).
//!
//! Resolution by first byte: `+ - 0-9` try timestamp, int, float; `.` tries a float;
//! `yYnNtTfFoO~` and the rest of the fixed table (bools, nulls, `.inf`, `.nan`) are
//! looked up; anything else is a string. The empty string is null.

/// Whether go-yaml v2 may write `s` as a plain scalar, as far as resolution goes
/// (the emitter's own analysis may still require quotes).
pub fn plain_resolves_to_str(s: &str) -> bool {
    resolves_to_str(s) && !is_base60_float(s)
}

/// go-yaml v2 `resolve("", s)` returns the `!!str` tag.
pub fn resolves_to_str(s: &str) -> bool {
    let first = match s.as_bytes().first() {
        None => return false, // "" is null
        Some(b) => *b,
    };
    match first {
        b'+' | b'-' | b'0'..=b'9' => {
            !(in_fixed_table(s) || is_timestamp(s) || resolves_to_number(s))
        }
        b'.' => !(in_fixed_table(s) || dot_float(s)),
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => {
            !in_fixed_table(s)
        }
        _ => true,
    }
}

/// The fixed resolution table (bools, nulls, special floats; `<<` starts with a byte
/// that is never looked up, so it is left out).
fn in_fixed_table(s: &str) -> bool {
    matches!(
        s,
        "y" | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "true"
            | "True"
            | "TRUE"
            | "on"
            | "On"
            | "ON"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "false"
            | "False"
            | "FALSE"
            | "off"
            | "Off"
            | "OFF"
            | "~"
            | "null"
            | "Null"
            | "NULL"
            | ".nan"
            | ".NaN"
            | ".NAN"
            | ".inf"
            | ".Inf"
            | ".INF"
            | "+.inf"
            | "+.Inf"
            | "+.INF"
            | "-.inf"
            | "-.Inf"
            | "-.INF"
    )
}

/// `strconv.ParseFloat(s, 64)` succeeds for a string starting with `.`: only
/// `.digits[e[sign]digits]` is accepted, and it must not overflow.
fn dot_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 1;
    let d = count_digits(&b[i..]);
    if d == 0 {
        return false;
    }
    i += d;
    if i < b.len() {
        if !matches!(b[i], b'e' | b'E') {
            return false;
        }
        i += 1;
        if i < b.len() && matches!(b[i], b'+' | b'-') {
            i += 1;
        }
        let e = count_digits(&b[i..]);
        if e == 0 || i + e != b.len() {
            return false;
        }
    }
    parses_finite(s)
}

fn count_digits(b: &[u8]) -> usize {
    b.iter().take_while(|c| c.is_ascii_digit()).count()
}

/// A decimal float text (already validated) does not overflow `float64`.
fn parses_finite(s: &str) -> bool {
    s.parse::<f64>().map(|f| f.is_finite()).unwrap_or(false)
}

/// The int / uint / float steps of go-yaml's resolver for a string starting with a
/// sign or a digit (underscores are removed first).
fn resolves_to_number(s: &str) -> bool {
    let plain: std::borrow::Cow<str> = if s.contains('_') {
        s.chars().filter(|c| *c != '_').collect::<String>().into()
    } else {
        s.into()
    };
    let plain: &str = &plain;
    if go_parse_int(plain, 0) || go_parse_uint(plain, 0).is_some() {
        return true;
    }
    if yaml_style_float(plain) && parses_finite(plain) {
        return true;
    }
    if let Some(rest) = plain.strip_prefix("0b") {
        return go_parse_int(rest, 2) || go_parse_uint(rest, 2).is_some();
    }
    if let Some(rest) = plain.strip_prefix("-0b") {
        return go_parse_int(&format!("-{rest}"), 2);
    }
    false
}

/// `strconv.ParseInt(s, base, 64)` succeeds (base 0 or 2; `s` has no underscores).
fn go_parse_int(s: &str, base: u32) -> bool {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    match go_parse_uint(body, base) {
        None => false,
        Some(u) if neg => u <= 1u64 << 63,
        Some(u) => u < 1u64 << 63,
    }
}

/// `strconv.ParseUint(s, base, 64)` (base 0 or 2; `s` has no underscores).
fn go_parse_uint(s: &str, base: u32) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let (radix, digits) = if base == 0 {
        base0_prefix(s)
    } else {
        (base, s)
    };
    let mut n: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(radix)?;
        n = n.checked_mul(radix as u64)?.checked_add(d as u64)?;
    }
    Some(n)
}

/// Go's base-0 prefix rules: `0b`/`0o`/`0x` (either case, with at least one more
/// byte), otherwise a leading `0` means octal.
fn base0_prefix(s: &str) -> (u32, &str) {
    let b = s.as_bytes();
    if b[0] != b'0' {
        return (10, s);
    }
    if b.len() >= 3 {
        match b[1].to_ascii_lowercase() {
            b'b' => return (2, &s[2..]),
            b'o' => return (8, &s[2..]),
            b'x' => return (16, &s[2..]),
            _ => {}
        }
    }
    (8, &s[1..])
}

/// go-yaml's `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    if b.get(i) == Some(&b'.') {
        let d = count_digits(&b[i + 1..]);
        if d == 0 {
            return false;
        }
        i += 1 + d;
    } else {
        let d = count_digits(&b[i..]);
        if d == 0 {
            return false;
        }
        i += d;
        if b.get(i) == Some(&b'.') {
            i += 1 + count_digits(&b[i + 1..]);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let d = count_digits(&b[i..]);
        if d == 0 {
            return false;
        }
        i += d;
    }
    i == b.len()
}

/// go-yaml's `isBase60Float`:
/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
pub fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    i += 1;
    while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        let two = b.get(i).is_some_and(|c| (b'0'..=b'5').contains(c))
            && b.get(i + 1).is_some_and(u8::is_ascii_digit);
        if two {
            i += 2;
        } else if b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        } else {
            return false;
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// go-yaml's `parseTimestamp`: the string starts with four digits and `-`, and Go's
/// `time.Parse` accepts it with one of `2006-1-2T15:4:5.999999999Z07:00`, the same
/// with a lower-case `t`, `2006-1-2 15:4:5.999999999`, or `2006-1-2`.
pub fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    [Layout::UpperT, Layout::LowerT, Layout::Space, Layout::Date]
        .into_iter()
        .any(|l| parse_layout(b, l))
}

#[derive(Clone, Copy, PartialEq)]
enum Layout {
    UpperT,
    LowerT,
    Space,
    Date,
}

/// Go's `getnum(s, false)`: one or two digits.
fn getnum(b: &[u8], i: &mut usize) -> Option<u32> {
    let d0 = b.get(*i).filter(|c| c.is_ascii_digit())?;
    *i += 1;
    match b.get(*i).filter(|c| c.is_ascii_digit()) {
        Some(d1) => {
            *i += 1;
            Some(u32::from(d0 - b'0') * 10 + u32::from(d1 - b'0'))
        }
        None => Some(u32::from(d0 - b'0')),
    }
}

fn expect(b: &[u8], i: &mut usize, c: u8) -> Option<()> {
    if b.get(*i) == Some(&c) {
        *i += 1;
        Some(())
    } else {
        None
    }
}

fn parse_layout(b: &[u8], layout: Layout) -> bool {
    parse_layout_opt(b, layout).is_some()
}

fn parse_layout_opt(b: &[u8], layout: Layout) -> Option<()> {
    let year: u32 = std::str::from_utf8(&b[..4]).ok()?.parse().ok()?;
    let mut i = 5;
    let month = getnum(b, &mut i)?;
    if !(1..=12).contains(&month) {
        return None;
    }
    expect(b, &mut i, b'-')?;
    let day = getnum(b, &mut i)?;
    if layout != Layout::Date {
        match layout {
            Layout::UpperT => expect(b, &mut i, b'T')?,
            Layout::LowerT => expect(b, &mut i, b't')?,
            _ => {
                // A layout space matches one or more spaces (none at the very end).
                if i < b.len() && b[i] != b' ' {
                    return None;
                }
                while b.get(i) == Some(&b' ') {
                    i += 1;
                }
            }
        }
        clock(b, &mut i)?;
        if layout != Layout::Space {
            zone(b, &mut i)?;
        }
    }
    if i != b.len() || day < 1 || day > days_in(month, year) {
        return None;
    }
    Some(())
}

/// `15:4:5.999999999`: hour, minute, second and optional fraction (`.` or `,`).
fn clock(b: &[u8], i: &mut usize) -> Option<()> {
    let h = getnum(b, i)?;
    if h >= 24 {
        return None;
    }
    expect(b, i, b':')?;
    if getnum(b, i)? >= 60 {
        return None;
    }
    expect(b, i, b':')?;
    if getnum(b, i)? >= 60 {
        return None;
    }
    if matches!(b.get(*i), Some(b'.' | b',')) && b.get(*i + 1).is_some_and(u8::is_ascii_digit) {
        *i += 1;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
    }
    Some(())
}

/// `Z07:00`: `Z` or `±hh:mm` (hour ≤ 24, minute ≤ 60).
fn zone(b: &[u8], i: &mut usize) -> Option<()> {
    if b.get(*i) == Some(&b'Z') {
        *i += 1;
        return Some(());
    }
    let v = b.get(*i..*i + 6)?;
    if v[3] != b':' || !v[1..3].iter().chain(&v[4..6]).all(u8::is_ascii_digit) {
        return None;
    }
    let hh = u32::from(v[1] - b'0') * 10 + u32::from(v[2] - b'0');
    let mm = u32::from(v[4] - b'0') * 10 + u32::from(v[5] - b'0');
    if hh > 24 || mm > 60 || !matches!(v[0], b'+' | b'-') {
        return None;
    }
    *i += 6;
    Some(())
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml11_forms_do_not_resolve_to_str() {
        for s in [
            "",
            "~",
            "null",
            "y",
            "Y",
            "n",
            "N",
            "yes",
            "NO",
            "on",
            "Off",
            "true",
            "True",
            "123",
            "-1",
            "+1",
            "0",
            "00",
            "017",
            "0o17",
            "0x1F",
            "0b101",
            "1_000",
            "1.5",
            "1e3",
            ".5",
            ".inf",
            "-.Inf",
            ".NaN",
            "2021-01-01",
            "2021-01-01T10:00:00Z",
            "08",
            "0b-101",
            "-0b101",
            "18446744073709551615",
            "99999999999999999999",
        ] {
            assert!(!resolves_to_str(s), "{s:?} should not resolve to a string");
        }
    }

    #[test]
    fn look_alikes_that_stay_strings() {
        for s in [
            "<<",
            "yES",
            "nULL",
            "0x",
            "0b",
            "0xg",
            "1e",
            "1e400",
            ".1e400",
            "1.2.3",
            "a",
            "-",
            "+",
            ".",
            "...",
            "0b102",
            "2001-13-01",
            "2001-02-29",
            "2001-12-14 21:59:43.10 -5",
            "12:30",
            "1,000",
            "Infinity",
            ".5_0",
            "1:20",
        ] {
            assert!(resolves_to_str(s), "{s:?} should resolve to a string");
        }
    }

    #[test]
    fn base60_floats_are_not_plain() {
        for s in ["1:20", "-1:20", "190:20:30", "1:20.5", "1_0:20", "1:20."] {
            assert!(is_base60_float(s), "{s:?}");
            assert!(!plain_resolves_to_str(s), "{s:?}");
        }
        for s in ["1:60", "1:200", ":20", "1::20", "a:20", "1:20:", "12"] {
            assert!(!is_base60_float(s), "{s:?}");
        }
    }

    #[test]
    fn timestamps_follow_go_time_parse() {
        for s in [
            "2001-12-14",
            "2001-1-2",
            "2000-02-29",
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14T21:59:43Z",
            "2001-12-14T21:59:43,5Z",
            "2001-12-14 21:59:43.10",
            "2001-12-14  1:2:3",
            "2001-12-14T21:59:43+24:00",
        ] {
            assert!(is_timestamp(s), "{s:?}");
        }
        for s in [
            "2001-02-29",
            "2001-13-01",
            "2001-12-32",
            "2001-12-14T24:00:00Z",
            "2001-12-14T21:59:43+25:00",
            "2001-12-14T21:59:43+0500",
            "2001-12-14T21:59:43.Z",
            "2001-12-14 21:59",
            "20011-12-14",
            "2001-012-14",
        ] {
            assert!(!is_timestamp(s), "{s:?}");
        }
    }
}
