//! `metav1.Duration`: Go's `time.ParseDuration` and `Duration.String()`.

use crate::go::quote::quote;
const UNITS: [(&str, u64); 9] = [
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("μs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
    ("", 0),
];

/// `time.ParseDuration`: nanoseconds, or Go's error text.
pub fn parse(s: &str) -> Result<i64, String> {
    let orig = s;
    let invalid = || format!("time: invalid duration {}", quote(orig));
    let (neg, mut s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        let b = s.as_bytes();
        if !(b[0] == b'.' || b[0].is_ascii_digit()) {
            return Err(invalid());
        }
        let int_end = b
            .iter()
            .position(|c| !c.is_ascii_digit())
            .unwrap_or(b.len());
        let int_part = &s[..int_end];
        let mut rest = &s[int_end..];
        let mut frac_part = "";
        if rest.starts_with('.') {
            let r = &rest[1..];
            let e = r
                .bytes()
                .position(|c| !c.is_ascii_digit())
                .unwrap_or(r.len());
            frac_part = &r[..e];
            rest = &r[e..];
        }
        if int_part.is_empty() && frac_part.is_empty() {
            return Err(invalid());
        }
        let unit_end = rest
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_end];
        if unit.is_empty() {
            return Err(format!("time: missing unit in duration {}", quote(orig)));
        }
        let Some(&(_, mult)) = UNITS.iter().find(|(u, m)| *u == unit && *m > 0) else {
            return Err(format!(
                "time: unknown unit {} in duration {}",
                quote(unit),
                quote(orig)
            ));
        };
        let v: u64 = if int_part.is_empty() {
            0
        } else {
            int_part.parse().map_err(|_| invalid())?
        };
        let mut ns = v.checked_mul(mult).ok_or_else(invalid)?;
        if !frac_part.is_empty() {
            // The fraction contributes mult * 0.frac, truncated, as Go computes it.
            let mut scale = 1f64;
            let mut f: u64 = 0;
            for c in frac_part.bytes().take(18) {
                f = f * 10 + (c - b'0') as u64;
                scale *= 10.0;
            }
            ns = ns
                .checked_add((f as f64 * (mult as f64 / scale)) as u64)
                .ok_or_else(invalid)?;
        }
        total = total.checked_add(ns).ok_or_else(invalid)?;
        if total > i64::MAX as u64 + neg as u64 {
            return Err(invalid());
        }
        s = &rest[unit_end..];
    }
    Ok(if neg {
        -(total as i128) as i64
    } else {
        total as i64
    })
}

fn frac(v: u64, prec: u32) -> (String, u64) {
    // digits after the point, trailing zeros dropped; returns (".ddd" or "", v / 10^prec)
    let p = 10u64.pow(prec);
    let f = v % p;
    let mut s = String::new();
    if f != 0 {
        let digits = format!("{:0width$}", f, width = prec as usize);
        s = format!(".{}", digits.trim_end_matches('0'));
    }
    (s, v / p)
}

/// `time.Duration.String()`.
pub fn format(d: i64) -> String {
    if d == 0 {
        return "0s".into();
    }
    let neg = d < 0;
    let u = d.unsigned_abs();
    let sign = if neg { "-" } else { "" };
    if u < 1_000_000_000 {
        let (f, whole, unit) = if u < 1_000 {
            (String::new(), u, "ns")
        } else if u < 1_000_000 {
            let (f, w) = frac(u, 3);
            (f, w, "µs")
        } else {
            let (f, w) = frac(u, 6);
            (f, w, "ms")
        };
        return format!("{sign}{whole}{f}{unit}");
    }
    let (f, secs) = frac(u, 9);
    let s = secs % 60;
    let mins = secs / 60;
    let mut out = format!("{s}{f}s");
    if mins > 0 {
        out = format!("{}m{out}", mins % 60);
        if mins >= 60 {
            out = format!("{}h{out}", mins / 60);
        }
    }
    format!("{sign}{out}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_format_like_go() {
        for (i, o) in [
            ("10m", "10m0s"),
            ("1h30m", "1h30m0s"),
            ("1.5s", "1.5s"),
            ("300ms", "300ms"),
            ("0", "0s"),
            ("-2h", "-2h0m0s"),
            ("1us", "1µs"),
            ("90s", "1m30s"),
            ("1.000001s", "1.000001s"),
        ] {
            assert_eq!(format(parse(i).unwrap()), o, "{i}");
        }
    }

    #[test]
    fn errors_like_go() {
        assert_eq!(parse("abc").unwrap_err(), "time: invalid duration \"abc\"");
        assert_eq!(
            parse("1").unwrap_err(),
            "time: missing unit in duration \"1\""
        );
        assert_eq!(
            parse("1x").unwrap_err(),
            "time: unknown unit \"x\" in duration \"1x\""
        );
        assert!(parse("").is_err());
    }
}
