//! `strconv.Atoi` on a 64-bit platform, with Go's error text.

use crate::go::quote::quote;

/// `strconv.Atoi(s)`: an optional sign and decimal digits, as an `int64`. The error is
/// Go's `strconv.Atoi: parsing "s": invalid syntax` / `value out of range`; like Go, a
/// run of digits that overflows is out of range even if a bad character follows it.
pub fn atoi(s: &str) -> Result<i64, String> {
    parse_int(s).map_err(|why| format!("strconv.Atoi: parsing {}: {why}", quote(s)))
}

/// [`atoi`] without its message, for callers that only ask whether a text is an int
/// (the ClusterClass webhook asks it of every JSON patch path segment).
pub fn parse_int(s: &str) -> Result<i64, &'static str> {
    const SYNTAX: &str = "invalid syntax";
    const RANGE: &str = "value out of range";
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return Err(SYNTAX);
    }
    let mut n: u64 = 0;
    for c in digits.bytes() {
        if !c.is_ascii_digit() {
            return Err(SYNTAX);
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(c - b'0')))
            .ok_or(RANGE)?;
    }
    let limit = 1u64 << 63;
    match (neg, n) {
        (false, n) if n >= limit => Err(RANGE),
        (true, n) if n > limit => Err(RANGE),
        (true, n) => Ok((n as i64).wrapping_neg()),
        (false, n) => Ok(n as i64),
    }
}

#[cfg(test)]
mod tests {
    use super::atoi;

    #[test]
    fn go_atoi() {
        assert_eq!(atoi("42"), Ok(42));
        assert_eq!(atoi("+7"), Ok(7));
        assert_eq!(atoi("-0"), Ok(0));
        assert_eq!(atoi("-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(atoi("9223372036854775807"), Ok(i64::MAX));
        for bad in ["", "+", "-", "1.5", " 1", "0x10", "1_000", "abc"] {
            assert_eq!(
                atoi(bad),
                Err(format!("strconv.Atoi: parsing {bad:?}: invalid syntax"))
            );
        }
        for big in [
            "9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999",
            "99999999999999999999x",
        ] {
            assert_eq!(
                atoi(big),
                Err(format!("strconv.Atoi: parsing {big:?}: value out of range"))
            );
        }
    }
}
