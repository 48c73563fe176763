//! Go's float64 texts with shortest round-trip digits: `strconv.FormatFloat(f, 'g',
//! -1, 64)` ([`format_g`]) and `encoding/json`'s number text ([`json`]).

/// Shortest round-trip decimal digits of |f| and the decimal point position
/// (`f = 0.d1d2… × 10^dp`). Zero gives no digits and `dp = 0`.
pub fn shortest_digits(f: f64) -> (String, i32) {
    if f == 0.0 || !f.is_finite() {
        return (String::new(), 0);
    }
    // Rust's `{:e}` is the shortest representation that round-trips, like Go's.
    let s = format!("{:e}", f.abs());
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0').to_string();
    let exp: i32 = exp.parse().unwrap_or(0);
    if digits.is_empty() {
        return (String::new(), 0);
    }
    (digits, exp + 1)
}

/// Go's `%f` with shortest digits.
fn fmt_f(neg: bool, digits: &str, dp: i32) -> String {
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    if digits.is_empty() {
        s.push('0');
        return s;
    }
    let n = digits.len() as i32;
    if dp <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-dp) as usize));
        s.push_str(digits);
    } else if dp >= n {
        s.push_str(digits);
        s.extend(std::iter::repeat_n('0', (dp - n) as usize));
    } else {
        s.push_str(&digits[..dp as usize]);
        s.push('.');
        s.push_str(&digits[dp as usize..]);
    }
    s
}

/// Go's `%e` with shortest digits (exponent with at least two digits).
fn fmt_e(neg: bool, digits: &str, dp: i32) -> String {
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    let digits = if digits.is_empty() { "0" } else { digits };
    s.push_str(&digits[..1]);
    if digits.len() > 1 {
        s.push('.');
        s.push_str(&digits[1..]);
    }
    let exp = if digits == "0" { 0 } else { dp - 1 };
    s.push('e');
    s.push(if exp < 0 { '-' } else { '+' });
    s.push_str(&format!("{:02}", exp.unsigned_abs()));
    s
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`.
pub fn format_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    let neg = f.is_sign_negative();
    let (digits, dp) = shortest_digits(f);
    let exp = dp - 1;
    if !digits.is_empty() && !(-4..6).contains(&exp) {
        fmt_e(neg, &digits, dp)
    } else {
        fmt_f(neg, &digits, dp)
    }
}

/// Go's `encoding/json` text for a float64: `%f`, or `%e` when |f| < 1e-6 or
/// |f| ≥ 1e21, with `e-07` shortened to `e-7`.
pub fn json(f: f64) -> String {
    let neg = f.is_sign_negative();
    let (digits, dp) = shortest_digits(f);
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let s = fmt_e(neg, &digits, dp);
        match s.split_once("e-0") {
            Some((m, d)) if d.len() == 1 => format!("{m}e-{d}"),
            _ => s,
        }
    } else {
        fmt_f(neg, &digits, dp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_texts_like_go() {
        assert_eq!(json(0.5), "0.5");
        assert_eq!(json(3.0), "3");
        assert_eq!(json(1e20), "100000000000000000000");
        assert_eq!(json(1e21), "1e+21");
        assert_eq!(json(1.5e-7), "1.5e-7");
        assert_eq!(json(0.000001), "0.000001");
        assert_eq!(json(-0.0), "-0");
    }

    #[test]
    fn g_texts_like_go() {
        assert_eq!(format_g(1e6), "1e+06");
        assert_eq!(format_g(123456.0), "123456");
        assert_eq!(format_g(0.0001), "0.0001");
        assert_eq!(format_g(0.00001), "1e-05");
        assert_eq!(format_g(f64::INFINITY), "+Inf");
    }
}
