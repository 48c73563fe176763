//! `metav1.Time`: `time.Parse(time.RFC3339, s)` on the way in, and on the way out
//! `nil` for the zero instant (0001-01-01T00:00:00Z) or the UTC RFC3339 text (whole
//! seconds). Error texts follow Go's `time.ParseError` for the usual failures.

use crate::go::quote::quote as go_quote;

const LAYOUT: &str = "2006-01-02T15:04:05Z07:00";

/// An instant: seconds since 0001-01-01T00:00:00Z plus nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instant {
    secs: i64,
    nanos: u32,
}

/// Seconds from 0001-01-01T00:00:00Z to the Unix epoch.
const UNIX_EPOCH: i64 = 62_135_596_800;

impl Instant {
    /// The instant `secs` seconds after 1970-01-01T00:00:00Z.
    pub fn from_unix(secs: i64) -> Instant {
        Instant {
            secs: secs + UNIX_EPOCH,
            nanos: 0,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.secs == 0 && self.nanos == 0
    }

    /// `t.UTC().Format(time.RFC3339)`.
    pub fn format_rfc3339_utc(&self) -> String {
        let days = self.secs.div_euclid(86400);
        let rem = self.secs.rem_euclid(86400);
        let (y, m, d) = civil_from_days(days);
        let year = if (0..=9999).contains(&y) {
            format!("{y:04}")
        } else {
            y.to_string()
        };
        format!(
            "{year}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            rem / 3600,
            rem % 3600 / 60,
            rem % 60
        )
    }
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in(m: i64, y: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 0001-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    // Shift to a March-based year (Howard Hinnant's algorithm), epoch 0000-03-01.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    // 0000-03-01 is day 60 before... compute relative to 0001-01-01.
    era * 146097 + doe - 306
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 306;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn bad(value: &str, rest: &str, elem: &str) -> String {
    format!(
        "parsing time {} as {}: cannot parse {} as {}",
        go_quote(value),
        go_quote(LAYOUT),
        go_quote(rest),
        go_quote(elem)
    )
}

fn range_err(value: &str, what: &str) -> String {
    format!("parsing time {}: {what} out of range", go_quote(value))
}

/// Take exactly `n` ASCII digits.
fn digits(s: &str, n: usize) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    if b.len() < n || !b[..n].iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some((s[..n].parse().ok()?, &s[n..]))
}

/// Go's getnum(s, fixed=false): one or two digits.
fn one_or_two(s: &str) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    if b.first().is_some_and(u8::is_ascii_digit) {
        if b.get(1).is_some_and(u8::is_ascii_digit) {
            digits(s, 2)
        } else {
            digits(s, 1)
        }
    } else {
        None
    }
}

fn lit<'a>(s: &'a str, l: &str) -> Option<&'a str> {
    s.strip_prefix(l)
}

/// `time.Parse(time.RFC3339, value)`.
pub fn parse_rfc3339(value: &str) -> Result<Instant, String> {
    let s = value;
    let (year, s) = digits(s, 4).ok_or_else(|| bad(value, s, "2006"))?;
    let s = lit(s, "-").ok_or_else(|| bad(value, s, "-"))?;
    let (month, s) = digits(s, 2).ok_or_else(|| bad(value, s, "01"))?;
    if !(1..=12).contains(&month) {
        return Err(range_err(value, "month"));
    }
    let s = lit(s, "-").ok_or_else(|| bad(value, s, "-"))?;
    let (day, s) = digits(s, 2).ok_or_else(|| bad(value, s, "02"))?;
    let s = lit(s, "T").ok_or_else(|| bad(value, s, "T"))?;
    let (hour, s) = one_or_two(s).ok_or_else(|| bad(value, s, "15"))?;
    if hour >= 24 {
        return Err(range_err(value, "hour"));
    }
    let s = lit(s, ":").ok_or_else(|| bad(value, s, ":"))?;
    let (min, s) = digits(s, 2).ok_or_else(|| bad(value, s, "04"))?;
    if min >= 60 {
        return Err(range_err(value, "minute"));
    }
    let s = lit(s, ":").ok_or_else(|| bad(value, s, ":"))?;
    let (sec, mut s) = digits(s, 2).ok_or_else(|| bad(value, s, "05"))?;
    if sec >= 60 {
        return Err(range_err(value, "second"));
    }
    // Fractional seconds: a '.' or ',' followed by digits.
    let mut nanos: u32 = 0;
    let b = s.as_bytes();
    if b.len() >= 2 && (b[0] == b'.' || b[0] == b',') && b[1].is_ascii_digit() {
        let n = 1 + b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        let frac = &s[1..n];
        let mut v: u64 = 0;
        for (i, c) in frac.bytes().enumerate() {
            if i < 9 {
                v = v * 10 + u64::from(c - b'0');
            }
        }
        for _ in frac.len()..9 {
            v *= 10;
        }
        nanos = v as u32;
        s = &s[n..];
    }
    // Zone: "Z" or ±hh:mm.
    let offset_secs: i64;
    if let Some(rest) = s.strip_prefix('Z') {
        offset_secs = 0;
        s = rest;
    } else {
        let b = s.as_bytes();
        if b.len() < 6 || (b[0] != b'+' && b[0] != b'-') || b[3] != b':' {
            return Err(bad(value, s, "Z07:00"));
        }
        let field = |r: std::ops::Range<usize>| s.get(r).and_then(|t| digits(t, 2));
        let (Some((hh, _)), Some((mm, _)), Some(rest)) = (field(1..3), field(4..6), s.get(6..))
        else {
            return Err(bad(value, s, "Z07:00"));
        };
        let sign = if b[0] == b'-' { -1 } else { 1 };
        offset_secs = sign * (hh * 3600 + mm * 60);
        s = rest;
    }
    if !s.is_empty() {
        return Err(format!(
            "parsing time {}: extra text: {}",
            go_quote(value),
            go_quote(s)
        ));
    }
    if day < 1 || day > days_in(month, year) {
        return Err(range_err(value, "day"));
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86400 + hour * 3600 + min * 60 + sec - offset_secs;
    Ok(Instant { secs, nanos })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_to_utc() {
        let t = parse_rfc3339("2020-02-29T23:30:00+02:00").unwrap();
        assert_eq!(t.format_rfc3339_utc(), "2020-02-29T21:30:00Z");
        let t = parse_rfc3339("2021-01-01T00:30:00.123456789-01:00").unwrap();
        assert_eq!(t.format_rfc3339_utc(), "2021-01-01T01:30:00Z");
        assert!(parse_rfc3339("0001-01-01T00:00:00Z").unwrap().is_zero());
        // Multi-byte text where the zone offset is expected must not panic.
        assert!(parse_rfc3339("2020-01-01T00:00:00+00:0\u{e9}").is_err());
        assert!(parse_rfc3339("2020-01-01T00:00:00+\u{e9}:00").is_err());
        assert_eq!(
            parse_rfc3339("1970-01-01T00:00:00Z")
                .unwrap()
                .format_rfc3339_utc(),
            "1970-01-01T00:00:00Z"
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse_rfc3339("2020-13-01T00:00:00Z").unwrap_err(),
            "parsing time \"2020-13-01T00:00:00Z\": month out of range"
        );
        assert_eq!(
            parse_rfc3339("yesterday").unwrap_err(),
            "parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"yesterday\" as \"2006\""
        );
    }
}
