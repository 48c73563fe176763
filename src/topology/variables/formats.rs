//! The string formats apiextensions validates (`supportedFormats`), checked like
//! kube-openapi's strfmt registry. Formats we do not implement return `None` so the
//! caller can warn instead of passing silently.

/// apiextensions' supported format names (dashes removed).
pub const SUPPORTED: &[&str] = &[
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
];

/// `Some(valid)` for the formats we check, `None` for the others.
pub fn check(format: &str, s: &str) -> Option<bool> {
    let f = format.replace('-', "");
    Some(match f.as_str() {
        "password" => true,
        "ipv4" => parse_ipv4(s).is_some(),
        "ipv6" => s.contains(':') && s.parse::<std::net::Ipv6Addr>().is_ok(),
        "cidr" => is_cidr(s),
        "mac" => is_mac(s),
        "uuid" => uuid_like(s, None),
        "uuid3" => uuid_like(s, Some(b'3')),
        "uuid4" => uuid_like(s, Some(b'4')),
        "uuid5" => uuid_like(s, Some(b'5')),
        "hostname" => is_hostname(s),
        "date" => is_date(s),
        "datetime" => is_datetime(s),
        "email" => return is_email(s),
        "byte" => is_base64(s),
        "hexcolor" => is_hexcolor(s),
        _ => return None,
    })
}

/// Go's `net.ParseIP` for dotted IPv4 (no leading zeros since Go 1.17).
fn parse_ipv4(s: &str) -> Option<[u8; 4]> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    let mut out = [0u8; 4];
    for (i, p) in parts.iter().enumerate() {
        if p.is_empty()
            || p.len() > 3
            || !p.bytes().all(|b| b.is_ascii_digit())
            || (p.len() > 1 && p.starts_with('0'))
        {
            return None;
        }
        out[i] = p.parse::<u16>().ok().filter(|v| *v <= 255)? as u8;
    }
    Some(out)
}

fn is_cidr(s: &str) -> bool {
    let Some((ip, bits)) = s.split_once('/') else {
        return false;
    };
    if bits.is_empty()
        || !bits.bytes().all(|b| b.is_ascii_digit())
        || (bits.len() > 1 && bits.starts_with('0'))
    {
        return false;
    }
    let Ok(n) = bits.parse::<u32>() else {
        return false;
    };
    if parse_ipv4(ip).is_some() {
        n <= 32
    } else {
        ip.contains(':') && ip.parse::<std::net::Ipv6Addr>().is_ok() && n <= 128
    }
}

fn is_mac(s: &str) -> bool {
    let hex2 = |p: &str| p.len() == 2 && p.bytes().all(|b| b.is_ascii_hexdigit());
    for sep in [':', '-'] {
        let parts: Vec<&str> = s.split(sep).collect();
        if [6, 8, 20].contains(&parts.len()) && parts.iter().all(|p| hex2(p)) {
            return true;
        }
    }
    let parts: Vec<&str> = s.split('.').collect();
    [3, 4, 10].contains(&parts.len())
        && parts
            .iter()
            .all(|p| p.len() == 4 && p.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// `(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?V[0-9a-f]{3}-?[89ab]?...$` in the strfmt variants.
fn uuid_like(s: &str, version: Option<u8>) -> bool {
    let hex: Vec<u8> = s.bytes().filter(|b| *b != b'-').collect();
    let groups: Vec<&str> = s.split('-').collect();
    let dashes_ok = groups.len() == 1
        || (groups.len() == 5
            && [8, 4, 4, 4, 12]
                .iter()
                .zip(&groups)
                .all(|(n, g)| g.len() == *n));
    if hex.len() != 32 || !hex.iter().all(u8::is_ascii_hexdigit) || !dashes_ok {
        return false;
    }
    match version {
        None => true,
        Some(v) => {
            hex[12] == v
                && (v == b'3' || matches!(hex[16].to_ascii_lowercase(), b'8' | b'9' | b'a' | b'b'))
        }
    }
}

/// strfmt's hostname rule: labels of letters, digits and inner hyphens, ≤ 63 bytes each, ≤ 255 total.
fn is_hostname(s: &str) -> bool {
    if s.is_empty() || s.len() > 255 {
        return false;
    }
    s.trim_end_matches('.').split('.').all(|l| {
        !l.is_empty()
            && l.len() <= 63
            && l.chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
            && !l.starts_with('-')
            && !l.ends_with('-')
    })
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    // Go's time.Parse("2006-01-02") takes digits only (Rust's parse would take a `+`).
    if !b
        .iter()
        .enumerate()
        .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
    {
        return false;
    }
    let num = |r: std::ops::Range<usize>| s.get(r).and_then(|t| t.parse::<u32>().ok());
    match (num(0..4), num(5..7), num(8..10)) {
        (Some(y), Some(m), Some(d)) if (1..=12).contains(&m) && d >= 1 => {
            let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
            let days = [
                31,
                if leap { 29 } else { 28 },
                31,
                30,
                31,
                30,
                31,
                31,
                30,
                31,
                30,
                31,
            ];
            d <= days[(m - 1) as usize]
        }
        _ => false,
    }
}

/// kube-openapi's `IsDateTime`: the text lowercased and split at every `t`; the first
/// part a date, the second (any later ones are ignored, as there) matching
/// `^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$` with
/// hours, minutes and seconds compared as text to "23", "59", "59".
fn is_datetime(s: &str) -> bool {
    static TIME: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$",
        )
        .expect("a valid expression")
    });
    if s.len() < 4 {
        return false;
    }
    let lower = s.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    TIME.captures(time).is_some_and(|m| {
        let g = |i: usize| m.get(i).map_or("", |x| x.as_str());
        g(1) <= "23" && g(2) <= "59" && g(3) <= "59"
    })
}

/// kube-openapi's `IsEmail` (Go's `net/mail.ParseAddress` succeeds) where the text is
/// a bare address of printable ASCII: valid exactly when it is `dot-atom@dot-atom`.
/// Texts with spaces, comments, quotes, display names, groups, domain literals or
/// non-ASCII go through more of ParseAddress's grammar (and RFC 2047 decoding) than
/// this implements: `None`, and the caller warns.
fn is_email(s: &str) -> Option<bool> {
    const SPECIALS: &[u8] = b"()<>[]:;\\,\"";
    let plain = s
        .bytes()
        .all(|b| (b'!'..=b'~').contains(&b) && !SPECIALS.contains(&b));
    if !plain {
        return None;
    }
    let dot_atom =
        |a: &str| !a.is_empty() && !a.starts_with('.') && !a.ends_with('.') && !a.contains("..");
    let mut it = s.split('@');
    Some(match (it.next(), it.next(), it.next()) {
        (Some(local), Some(domain), None) => dot_atom(local) && dot_atom(domain),
        _ => false,
    })
}

/// Standard base64 with padding (Go's `base64.StdEncoding.DecodeString`).
fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    if !b.len().is_multiple_of(4) {
        return false;
    }
    let pad = b.iter().rev().take_while(|c| **c == b'=').count();
    pad <= 2
        && b[..b.len() - pad]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/')
}

fn is_hexcolor(s: &str) -> bool {
    let h = s.strip_prefix('#').unwrap_or(s);
    (h.len() == 3 || h.len() == 6) && h.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_formats() {
        assert_eq!(check("ipv4", "10.0.0.1"), Some(true));
        assert_eq!(check("ipv4", "10.0.0.256"), Some(false));
        assert_eq!(check("ipv4", "010.0.0.1"), Some(false));
        assert_eq!(check("ipv6", "fd00::1"), Some(true));
        assert_eq!(check("ipv6", "10.0.0.1"), Some(false));
        assert_eq!(check("cidr", "10.0.0.0/8"), Some(true));
        assert_eq!(check("cidr", "10.0.0.0/33"), Some(false));
        assert_eq!(check("cidr", "fd00::/64"), Some(true));
    }

    #[test]
    fn other_formats() {
        assert_eq!(
            check("uuid", "123e4567-e89b-12d3-a456-426614174000"),
            Some(true)
        );
        assert_eq!(
            check("uuid4", "123e4567-e89b-12d3-a456-426614174000"),
            Some(false)
        );
        assert_eq!(check("date", "2024-02-29"), Some(true));
        assert_eq!(check("date", "2023-02-29"), Some(false));
        assert_eq!(check("byte", "aGk="), Some(true));
        assert_eq!(check("byte", "aGk"), Some(false));
        assert_eq!(check("mac", "00:11:22:33:44:55"), Some(true));
        assert_eq!(check("hostname", "a-b.example"), Some(true));
        assert_eq!(check("hostname", "-a"), Some(false));
        assert_eq!(check("email", "a@b"), Some(true));
        assert_eq!(check("email", "first.last+tag@sub.example.io"), Some(true));
        for bad in [
            "not-an-email",
            "a@b@c",
            ".a@b",
            "a.@b",
            "a..b@c",
            "a@",
            "@b",
            "a@b..c",
        ] {
            assert_eq!(check("email", bad), Some(false), "{bad}");
        }
        for unchecked in [
            "A <a@b>",
            "a@[10.0.0.1]",
            "\"q\"@b",
            " a@b",
            "é@b",
            "a@b (c)",
        ] {
            assert_eq!(check("email", unchecked), None, "{unchecked}");
        }
        assert_eq!(check("date", "+024-02-29"), Some(false));
        for good in [
            "2024-01-02T03:04:05Z",
            "2024-01-02t03:04:05.123+01:00",
            "2024-01-02T23:59:59z",
            "2024-02-29T00:00:00-07:30",
            "2024-01-02T03:04:05Zt",
        ] {
            assert_eq!(check("date-time", good), Some(true), "{good}");
        }
        for bad in [
            "yesterday",
            "2024-01-02",
            "2024-01-02T24:00:00Z",
            "2024-01-02T03:04:05",
            "2023-02-29T00:00:00Z",
            "2024-01-02 03:04:05Z",
            "2024-01-02T3:04:05Z",
        ] {
            assert_eq!(check("date-time", bad), Some(false), "{bad}");
        }
    }
}
