//! `resource.Quantity` as apimachinery v0.32.3 parses and prints it.
//!
//! The typed round trip replaces every quantity by `Quantity.String()` of
//! `ParseQuantity(input)`. That string is either the input itself (ParseQuantity keeps the
//! text when its fast path finds it already canonical, including quirks such as `+1Mi`,
//! `05`, `1.500` or `1e3`) or the canonical form of the parsed value.
//!
//! The value model here is our own: a sign, an arbitrary-size decimal magnitude and a
//! power-of-ten exponent. The canonical form only depends on the value and the format
//! (DecimalSI, BinarySI, DecimalExponent), so we do not mirror Go's int64/inf.Dec split;
//! we reproduce the observable decisions: when the input text is kept, the rounding up to
//! nano units, the BinarySI cap at 2^63-1, and the choice of suffix.

use std::cmp::Ordering;

/// The three error texts of ParseQuantity.
pub const ERR_FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
pub const ERR_NUMERIC: &str = "unable to parse numeric part of quantity";
pub const ERR_SUFFIX: &str = "unable to parse quantity's suffix";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    DecimalExponent,
    BinarySI,
    DecimalSI,
}

/// A parsed quantity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quantity {
    negative: bool,
    /// Magnitude digits (most significant first, no leading zeros; empty for zero).
    mag: Digits,
    /// value = ±mag × 10^exp
    exp: i64,
    format: Format,
    /// The original text, when ParseQuantity keeps it.
    kept: Option<String>,
}

/// Parse like `resource.ParseQuantity`; the error is one of the three Go texts.
pub fn parse(s: &str) -> Result<Quantity, &'static str> {
    Quantity::parse(s)
}

/// `ParseQuantity(s).String()`.
pub fn canonicalize(s: &str) -> Result<String, &'static str> {
    Ok(Quantity::parse(s)?.to_string())
}

struct Split<'a> {
    positive: bool,
    value: &'a str,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// `parseQuantityString`: sign, integer digits (leading zeros dropped), fraction, suffix.
fn split(s: &str) -> Result<Split<'_>, &'static str> {
    let b = s.as_bytes();
    let end = b.len();
    let mut positive = true;
    let mut pos = 0;
    if pos < end {
        match b[0] {
            b'-' => {
                positive = false;
                pos += 1;
            }
            b'+' => pos += 1,
            _ => {}
        }
    }
    // Leading zeros.
    loop {
        if pos >= end {
            return Ok(Split {
                positive,
                value: "0",
                num: "0",
                denom: "",
                suffix: "",
            });
        }
        if b[pos] == b'0' {
            pos += 1;
        } else {
            break;
        }
    }
    // Integer digits.
    let start = pos;
    let mut i = pos;
    loop {
        if i >= end {
            return Ok(Split {
                positive,
                value: s,
                num: &s[start..],
                denom: "",
                suffix: "",
            });
        }
        if b[i].is_ascii_digit() {
            i += 1;
        } else {
            break;
        }
    }
    let mut num = &s[start..i];
    pos = i;
    if num.is_empty() {
        num = "0";
    }
    let mut denom = "";
    if pos < end && b[pos] == b'.' {
        pos += 1;
        let dstart = pos;
        let mut i = pos;
        loop {
            if i >= end {
                return Ok(Split {
                    positive,
                    value: s,
                    num,
                    denom: &s[dstart..],
                    suffix: "",
                });
            }
            if b[i].is_ascii_digit() {
                i += 1;
            } else {
                break;
            }
        }
        denom = &s[dstart..i];
        pos = i;
    }
    let value = &s[..pos];
    let suffix_start = pos;
    let mut i = pos;
    loop {
        if i >= end {
            return Ok(Split {
                positive,
                value,
                num,
                denom,
                suffix: &s[suffix_start..],
            });
        }
        if b"eEinumkKMGTP".contains(&b[i]) {
            i += 1;
        } else {
            break;
        }
    }
    pos = i;
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    let mut i = pos;
    loop {
        if i >= end {
            return Ok(Split {
                positive,
                value,
                num,
                denom,
                suffix: &s[suffix_start..],
            });
        }
        if b[i].is_ascii_digit() {
            i += 1;
        } else {
            return Err(ERR_FORMAT_WRONG);
        }
    }
}

/// The suffixer's `interpret`: (base, exponent, format).
fn interpret(suffix: &str) -> Option<(u32, i32, Format)> {
    let dec = |e| Some((10, e, Format::DecimalSI));
    let bin = |e| Some((2, e, Format::BinarySI));
    match suffix {
        "" => dec(0),
        "n" => dec(-9),
        "u" => dec(-6),
        "m" => dec(-3),
        "k" => dec(3),
        "M" => dec(6),
        "G" => dec(9),
        "T" => dec(12),
        "P" => dec(15),
        "E" => dec(18),
        "Ki" => bin(10),
        "Mi" => bin(20),
        "Gi" => bin(30),
        "Ti" => bin(40),
        "Pi" => bin(50),
        "Ei" => bin(60),
        _ => {
            let b = suffix.as_bytes();
            if b.len() > 1 && (b[0] == b'e' || b[0] == b'E') {
                // strconv.ParseInt(s, 10, 64), then int32(parsed) (wrapping).
                let parsed = parse_go_int64(&suffix[1..])?;
                Some((10, parsed as i32, Format::DecimalExponent))
            } else {
                None
            }
        }
    }
}

/// strconv.ParseInt(s, 10, 64).
fn parse_go_int64(s: &str) -> Option<i64> {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut v: i128 = 0;
    for c in digits.bytes() {
        v = v * 10 + i128::from(c - b'0');
        if v > i128::from(i64::MAX) + 1 {
            return None;
        }
    }
    let v = if neg { -v } else { v };
    i64::try_from(v).ok()
}

impl Quantity {
    pub fn parse(s: &str) -> Result<Quantity, &'static str> {
        if s.is_empty() {
            return Err(ERR_FORMAT_WRONG);
        }
        if s == "0" {
            return Ok(Quantity::zero(Format::DecimalSI, Some(s.to_string())));
        }
        let sp = split(s)?;
        let (base, exponent, mut format) = interpret(sp.suffix).ok_or(ERR_SUFFIX)?;

        // Fast path (int64Amount).
        let mut precision: i64 = -1;
        let mut scale: i32 = 0;
        let mut mantissa: i64 = 1;
        match format {
            Format::DecimalExponent | Format::DecimalSI => {
                scale = exponent;
                precision = 18 - (sp.num.len() + sp.denom.len()) as i64;
            }
            Format::BinarySI => {
                if exponent >= 0 && sp.denom.is_empty() {
                    mantissa = 1i64 << exponent.min(62);
                    precision = 15 - sp.num.len() as i64 - i64::from(exponent * 3 / 10) - 1;
                }
            }
        }
        if precision >= 0 {
            scale = scale.wrapping_sub(sp.denom.len() as i32);
            if scale >= -9 {
                let shifted = format!("{}{}", sp.num, sp.denom);
                let value: i64 = shifted.parse().map_err(|_| ERR_NUMERIC)?;
                if let Some(result) = value.checked_mul(mantissa) {
                    let keep = match format {
                        Format::BinarySI => exponent % 10 == 0 && value & 7 != 0,
                        _ => {
                            scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0')
                        }
                    };
                    let mut q = Quantity {
                        negative: !sp.positive && result != 0,
                        mag: Digits::from_u64(result.unsigned_abs()),
                        exp: i64::from(scale),
                        format,
                        kept: None,
                    };
                    if keep {
                        q.kept = Some(s.to_string());
                    }
                    return Ok(q.normalized());
                }
            }
        }

        // Slow path (inf.Dec): SetString(value).
        let (negative, mut mag, mut exp) = parse_decimal(sp.value).ok_or(ERR_NUMERIC)?;
        if base == 10 {
            exp += i64::from(exponent);
        } else {
            let mut left = exponent.max(0) as u32;
            while left > 0 {
                let step = left.min(20);
                mag = mag.mul_small(1u32 << step);
                left -= step;
            }
        }
        let mut q = Quantity {
            negative,
            mag,
            exp,
            format,
            kept: None,
        }
        .normalized();
        if !q.mag.is_zero() && q.exp < -9 {
            // Round up (away from zero) to nano units.
            let drop = (-9 - q.exp) as u64;
            q.mag = q.mag.drop_digits_round_up(drop);
            q.exp = -9;
            q = q.normalized();
        }
        if format == Format::BinarySI {
            let max = Quantity {
                negative: false,
                mag: Digits::from_u64(i64::MAX as u64),
                exp: 0,
                format,
                kept: None,
            };
            if q.cmp_abs(&max) == Ordering::Greater {
                q.mag = max.mag;
                q.exp = 0;
            }
            if !q.mag.is_zero() && q.cmp_abs(&Quantity::one()) == Ordering::Less {
                format = Format::DecimalSI;
            }
        }
        q.format = format;
        Ok(q)
    }

    fn zero(format: Format, kept: Option<String>) -> Quantity {
        Quantity {
            negative: false,
            mag: Digits::default(),
            exp: 0,
            format,
            kept,
        }
    }

    fn one() -> Quantity {
        Quantity {
            negative: false,
            mag: Digits::from_u64(1),
            exp: 0,
            format: Format::DecimalSI,
            kept: None,
        }
    }

    /// Strip trailing zeros of the magnitude into the exponent.
    fn normalized(mut self) -> Quantity {
        if self.mag.is_zero() {
            self.exp = 0;
            self.negative = false;
            return self;
        }
        let tz = self.mag.strip_trailing_zeros();
        self.exp += tz as i64;
        self
    }

    pub fn is_zero(&self) -> bool {
        self.mag.is_zero()
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// Compare absolute values.
    fn cmp_abs(&self, other: &Quantity) -> Ordering {
        match (self.mag.is_zero(), other.mag.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        let oa = self.mag.len() as i64 + self.exp;
        let ob = other.mag.len() as i64 + other.exp;
        if oa != ob {
            return oa.cmp(&ob);
        }
        self.mag.cmp_as_fraction(&other.mag)
    }

    /// The canonical text (`Quantity.String()` without a kept original).
    fn canonical(&self) -> String {
        if self.mag.is_zero() {
            return "0".to_string();
        }
        let sign = if self.negative { "-" } else { "" };
        let mut format = self.format;
        if format == Format::BinarySI {
            let k1024 = Quantity {
                negative: false,
                mag: Digits::from_u64(1024),
                exp: 0,
                format,
                kept: None,
            };
            // Integral values of at least 1024 in magnitude print in base 1024.
            if self.cmp_abs(&k1024) == Ordering::Less || self.exp < 0 {
                format = Format::DecimalSI;
            }
        }
        match format {
            Format::BinarySI => {
                // Integral, |v| >= 1024 and (BinarySI values are capped) below 2^63.
                let mut n = self.mag.clone();
                n = n.shift_left_decimal(self.exp.clamp(0, 64) as usize);
                let mut times = 0;
                while times < 6 {
                    let (q, r) = n.divrem_small(1024);
                    if r != 0 || q.is_zero() {
                        break;
                    }
                    n = q;
                    times += 1;
                }
                let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][times];
                format!("{sign}{}{suffix}", n)
            }
            _ => {
                let mut n = self.mag.clone();
                let mut e = self.exp;
                while e.rem_euclid(3) != 0 {
                    n = n.mul_small(10);
                    e -= 1;
                }
                let suffix = match format {
                    Format::DecimalExponent => {
                        if e == 0 {
                            String::new()
                        } else {
                            format!("e{e}")
                        }
                    }
                    _ => match e {
                        -9 => "n",
                        -6 => "u",
                        -3 => "m",
                        3 => "k",
                        6 => "M",
                        9 => "G",
                        12 => "T",
                        15 => "P",
                        18 => "E",
                        // Go finds no suffix (0, or beyond the table) and prints none.
                        _ => "",
                    }
                    .to_string(),
                };
                format!("{sign}{n}{suffix}")
            }
        }
    }
}

impl std::fmt::Display for Quantity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kept {
            Some(s) => f.write_str(s),
            None => f.write_str(&self.canonical()),
        }
    }
}

/// inf.Dec SetString for the strings parseQuantityString hands over:
/// optional sign, digits, at most one '.'. Returns (negative, magnitude, exponent).
fn parse_decimal(s: &str) -> Option<(bool, Digits, i64)> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut digits = String::new();
    let mut frac: Option<usize> = None;
    for c in rest.chars() {
        match c {
            '0'..='9' => {
                digits.push(c);
                if let Some(f) = frac.as_mut() {
                    *f += 1;
                }
            }
            '.' if frac.is_none() => frac = Some(0),
            _ => return None,
        }
    }
    if digits.is_empty() {
        return None;
    }
    let mag = Digits::from_decimal(&digits);
    let zero = mag.is_zero();
    Some((neg && !zero, mag, -(frac.unwrap_or(0) as i64)))
}

/// An unsigned decimal big number: digits 0..=9, most significant first, no leading
/// zeros (empty means zero).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Digits(Vec<u8>);

impl Digits {
    fn from_decimal(s: &str) -> Digits {
        let v: Vec<u8> = s
            .bytes()
            .map(|c| c - b'0')
            .skip_while(|&d| d == 0)
            .collect();
        Digits(v)
    }

    fn from_u64(n: u64) -> Digits {
        Digits::from_decimal(&n.to_string())
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn strip_trailing_zeros(&mut self) -> usize {
        let mut n = 0;
        while self.0.last() == Some(&0) {
            self.0.pop();
            n += 1;
        }
        n
    }

    fn shift_left_decimal(mut self, n: usize) -> Digits {
        if !self.is_zero() {
            self.0.extend(std::iter::repeat_n(0, n));
        }
        self
    }

    fn mul_small(&self, m: u32) -> Digits {
        let mut out = Vec::with_capacity(self.0.len() + 10);
        let mut carry: u64 = 0;
        for &d in self.0.iter().rev() {
            let v = u64::from(d) * u64::from(m) + carry;
            out.push((v % 10) as u8);
            carry = v / 10;
        }
        while carry > 0 {
            out.push((carry % 10) as u8);
            carry /= 10;
        }
        out.reverse();
        let mut d = Digits(out);
        d.trim_leading();
        d
    }

    fn divrem_small(&self, m: u32) -> (Digits, u32) {
        let mut out = Vec::with_capacity(self.0.len());
        let mut rem: u64 = 0;
        for &d in &self.0 {
            let v = rem * 10 + u64::from(d);
            out.push((v / u64::from(m)) as u8);
            rem = v % u64::from(m);
        }
        let mut q = Digits(out);
        q.trim_leading();
        (q, rem as u32)
    }

    fn trim_leading(&mut self) {
        let lead = self.0.iter().take_while(|&&d| d == 0).count();
        self.0.drain(..lead);
    }

    /// Drop the `n` least significant digits; add one if any dropped digit was non-zero.
    fn drop_digits_round_up(&self, n: u64) -> Digits {
        let len = self.0.len() as u64;
        let keep = len.saturating_sub(n) as usize;
        let dropped_nonzero = self.0[keep..].iter().any(|&d| d != 0);
        let mut kept = Digits(self.0[..keep].to_vec());
        if dropped_nonzero {
            kept = kept.add_one();
        }
        kept
    }

    fn add_one(&self) -> Digits {
        let mut v = self.0.clone();
        let mut i = v.len();
        loop {
            if i == 0 {
                v.insert(0, 1);
                break;
            }
            i -= 1;
            if v[i] == 9 {
                v[i] = 0;
            } else {
                v[i] += 1;
                break;
            }
        }
        Digits(v)
    }

    /// Compare two digit strings as 0.d1d2d3… fractions.
    fn cmp_as_fraction(&self, other: &Digits) -> Ordering {
        let n = self.0.len().max(other.0.len());
        for i in 0..n {
            let a = self.0.get(i).copied().unwrap_or(0);
            let b = other.0.get(i).copied().unwrap_or(0);
            match a.cmp(&b) {
                Ordering::Equal => continue,
                o => return o,
            }
        }
        Ordering::Equal
    }
}

impl std::fmt::Display for Digits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("0");
        }
        let s: String = self.0.iter().map(|d| char::from(b'0' + d)).collect();
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> String {
        match canonicalize(s) {
            Ok(v) => v,
            Err(e) => format!("ERR {e}"),
        }
    }

    #[test]
    fn common_shapes() {
        assert_eq!(c("0.5"), "500m");
        assert_eq!(c("1024Mi"), "1Gi");
        assert_eq!(c("1000m"), "1");
        assert_eq!(c("100m"), "100m");
        assert_eq!(c("100M"), "100M");
        assert_eq!(c("1.5"), "1500m");
        assert_eq!(c("1.5Gi"), "1536Mi");
        assert_eq!(c("0.5Gi"), "512Mi");
        assert_eq!(c("128974848"), "128974848");
        assert_eq!(c("129e6"), "129e6");
        assert_eq!(c("123Mi"), "123Mi");
        assert_eq!(c("0"), "0");
        assert_eq!(c("-1.5"), "-1500m");
    }

    #[test]
    fn kept_texts() {
        assert_eq!(c("+1Mi"), "+1Mi");
        assert_eq!(c("05"), "05");
        assert_eq!(c("1.500"), "1.500");
        assert_eq!(c("1e3"), "1e3");
        assert_eq!(c("1."), "1.");
    }

    #[test]
    fn rounding_and_caps() {
        assert_eq!(c("0.1n"), "1n");
        assert_eq!(c("1.5n"), "2n");
        assert_eq!(c("-1.5n"), "-2n");
        assert_eq!(c("16Ei"), "9223372036854775807");
        assert_eq!(c("7Ei"), "7Ei");
        assert_eq!(c("0.0001Ki"), "102400u");
        assert_eq!(c("1000E"), "1");
    }

    #[test]
    fn errors() {
        assert_eq!(c(""), format!("ERR {ERR_FORMAT_WRONG}"));
        assert_eq!(c("abc"), format!("ERR {ERR_FORMAT_WRONG}"));
        assert_eq!(c("1K"), format!("ERR {ERR_SUFFIX}"));
        assert_eq!(c("1e"), format!("ERR {ERR_SUFFIX}"));
        assert_eq!(c(".Ei"), format!("ERR {ERR_NUMERIC}"));
    }
}

#[cfg(test)]
mod oracle_tests {
    /// Every case of golden/typed/quantities.json (produced by
    /// `typedref quantity` from apimachinery v0.32.3).
    #[test]
    fn matches_go_parse_quantity() {
        let golden: serde_json::Value =
            serde_json::from_str(include_str!("../../golden/typed/quantities.json"))
                .expect("golden parses");
        let cases = golden.as_array().expect("array");
        assert!(cases.len() > 200);
        let mut failures = Vec::new();
        for case in cases {
            let input = case["in"].as_str().expect("in");
            let got = super::canonicalize(input);
            let want = match (case.get("out"), case.get("error")) {
                (Some(o), _) => Ok(o.as_str().expect("out").to_string()),
                (_, Some(e)) => Err(e.as_str().expect("error").to_string()),
                _ => panic!("bad case"),
            };
            let got = got.map_err(|e| e.to_string());
            if got != want {
                failures.push(format!("{input:?}: got {got:?}, want {want:?}"));
            }
        }
        assert!(
            failures.is_empty(),
            "{} mismatches:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}
