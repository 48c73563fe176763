//! sprig's number functions: spf13/cast v1.7.1 conversions, integer math with
//! Go's wrapping and divide-by-zero panics, and shopspring/decimal float math.

use crate::gotemplate::fmt::format_float;
use crate::gotemplate::value::{Elem, Value};

/// Largest list `until`/`untilStep` build (Go has no limit).
const MAX_LIST: i64 = 1_000_000;

/// Go's float64 → int64 conversion on amd64 (out of range → MinInt64).
fn f2i(f: f64) -> i64 {
    if f.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

fn trim_zero_decimal(s: &str) -> &str {
    let b = s.as_bytes();
    let mut found_zero = false;
    for i in (1..=b.len()).rev() {
        match b[i - 1] {
            b'.' => {
                if found_zero {
                    return &s[..i - 1];
                }
            }
            b'0' => found_zero = true,
            _ => return s,
        }
    }
    s
}

/// strconv.ParseInt(s, 0, 64).
pub fn parse_int0(s: &str) -> Option<i64> {
    let n = crate::gotemplate::parse::parse_number(s).ok()?;
    if s.contains(['.', 'e', 'E', 'p', 'P', '\'']) || !n.is_int {
        return None;
    }
    Some(n.int)
}

/// cast.ToInt64.
pub fn to_int64(v: &Value) -> i64 {
    match v {
        Value::Int(i, _) => *i,
        Value::Float(f) => f2i(*f),
        Value::Str(s) => parse_int0(trim_zero_decimal(s)).unwrap_or(0),
        Value::Bool(b) => i64::from(*b),
        _ => 0,
    }
}

/// strconv.ParseFloat(s, 64) for the forms JSON data and templates use.
fn parse_float(s: &str) -> Option<f64> {
    let l = s.to_ascii_lowercase();
    let body = l.trim_start_matches(['+', '-']);
    let neg = l.starts_with('-');
    let inf = match body {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    };
    if let Some(x) = inf {
        return Some(if neg { -x } else { x });
    }
    if body.starts_with("0x") || body.contains('_') || body.is_empty() {
        return None;
    }
    if !body
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'+' | b'-'))
    {
        return None;
    }
    s.parse::<f64>().ok()
}

/// cast.ToFloat64.
pub fn to_float64(v: &Value) -> f64 {
    match v {
        Value::Int(i, _) => *i as f64,
        Value::Float(f) => *f,
        Value::Str(s) => parse_float(s).unwrap_or(0.0),
        Value::Bool(b) => f64::from(u8::from(*b)),
        _ => 0.0,
    }
}

/// strconv.Atoi, 0 on error.
pub fn atoi(s: &str) -> i64 {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.is_empty() || !body.bytes().all(|c| c.is_ascii_digit()) {
        return 0;
    }
    s.parse::<i64>().unwrap_or(0)
}

pub fn div(a: i64, b: i64) -> Result<i64, String> {
    if b == 0 {
        return Err("runtime error: integer divide by zero".into());
    }
    Ok(a.wrapping_div(b))
}

pub fn rem(a: i64, b: i64) -> Result<i64, String> {
    if b == 0 {
        return Err("runtime error: integer divide by zero".into());
    }
    Ok(a.wrapping_rem(b))
}

pub fn go_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    a.max(b)
}

pub fn go_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    a.min(b)
}

fn until_vec(start: i64, stop: i64, step: i64) -> Result<Vec<i64>, String> {
    let mut v = Vec::new();
    if stop < start {
        if step >= 0 {
            return Ok(v);
        }
        let mut i = start;
        while i > stop {
            v.push(i);
            if v.len() as i64 > MAX_LIST {
                return Err("capi-render: list too long".into());
            }
            i = i.saturating_add(step);
        }
        return Ok(v);
    }
    if step <= 0 {
        return Ok(v);
    }
    let mut i = start;
    while i < stop {
        v.push(i);
        if v.len() as i64 > MAX_LIST {
            return Err("capi-render: list too long".into());
        }
        i = i.saturating_add(step);
    }
    Ok(v)
}

pub fn until_step(start: i64, stop: i64, step: i64) -> Result<Value, String> {
    let v = until_vec(start, stop, step)?;
    Ok(Value::List(
        std::rc::Rc::new(v.into_iter().map(Value::int).collect()),
        Elem::Int,
    ))
}

pub fn seq(p: &[i64]) -> Result<String, String> {
    let v = match *p {
        [end] => {
            let inc = if end < 1 { -1 } else { 1 };
            until_vec(1, end + inc, inc)?
        }
        [start, end] => {
            let step = if end < start { -1 } else { 1 };
            until_vec(start, end + step, step)?
        }
        [start, step, end] => {
            let mut inc = 1;
            if end < start {
                inc = -1;
                if step > 0 {
                    return Ok(String::new());
                }
            }
            until_vec(start, end + inc, step)?
        }
        _ => return Ok(String::new()),
    };
    Ok(v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(" "))
}

/// sprig toDecimal: the value's text parsed as octal.
pub fn to_decimal(v: &Value) -> i64 {
    let s = crate::gotemplate::fmt::sprint(std::slice::from_ref(v));
    let body = s.strip_prefix(['+', '-']).unwrap_or(&s);
    if body.is_empty() || !body.bytes().all(|c| (b'0'..=b'7').contains(&c)) {
        return 0;
    }
    i64::from_str_radix(&s, 8).unwrap_or(0)
}

/// sprig round(a, places, roundOn=.5).
pub fn round(a: &Value, places: i64, round_on: Option<&Value>) -> f64 {
    let on = match round_on {
        Some(Value::Float(f)) => *f,
        _ => 0.5,
    };
    let pow = 10f64.powf(places as f64);
    let digit = pow * to_float64(a);
    let frac = digit.fract();
    let r = if frac >= on {
        digit.ceil()
    } else {
        digit.floor()
    };
    r / pow
}

/// An exact decimal: `mant × 10^exp`.
#[derive(Clone, Copy)]
struct Dec {
    mant: i128,
    exp: i32,
}

impl Dec {
    /// decimal.NewFromFloat: the shortest decimal that round-trips.
    fn from_f64(f: f64) -> Option<Dec> {
        if !f.is_finite() {
            return None;
        }
        let s = format!("{:e}", f);
        let (m, e) = s.split_once('e')?;
        let e: i32 = e.parse().ok()?;
        let neg = m.starts_with('-');
        let m = m.trim_start_matches('-');
        let (int, frac) = m.split_once('.').unwrap_or((m, ""));
        let digits = format!("{int}{frac}");
        let mut mant: i128 = digits.parse().ok()?;
        if neg {
            mant = -mant;
        }
        Some(Dec {
            mant,
            exp: e - frac.len() as i32,
        })
    }

    fn align(a: Dec, b: Dec) -> Option<(i128, i128, i32)> {
        let exp = a.exp.min(b.exp);
        let sa = a
            .mant
            .checked_mul(10i128.checked_pow((a.exp - exp) as u32)?)?;
        let sb = b
            .mant
            .checked_mul(10i128.checked_pow((b.exp - exp) as u32)?)?;
        Some((sa, sb, exp))
    }

    fn to_f64(self) -> f64 {
        format!("{}e{}", self.mant, self.exp)
            .parse()
            .unwrap_or(f64::NAN)
    }
}

fn dec_op(a: Dec, b: Dec, op: char) -> Result<Option<Dec>, String> {
    Ok(match op {
        '+' | '-' => Dec::align(a, b).and_then(|(x, y, exp)| {
            let m = if op == '+' {
                x.checked_add(y)
            } else {
                x.checked_sub(y)
            }?;
            Some(Dec { mant: m, exp })
        }),
        '*' => a.mant.checked_mul(b.mant).map(|m| Dec {
            mant: m,
            exp: a.exp + b.exp,
        }),
        _ => {
            if b.mant == 0 {
                return Err("decimal division by 0".into());
            }
            // DivRound(b, 16): quotient rounded half away from zero to 16 places.
            let shift = 17 + a.exp - b.exp;
            let num = if shift >= 0 {
                10i128
                    .checked_pow(shift as u32)
                    .and_then(|p| a.mant.checked_mul(p))
            } else {
                None
            };
            num.map(|n| {
                let q = n / b.mant;
                let r = if q % 10 >= 5 || q % 10 <= -5 {
                    q / 10 + q.signum()
                } else {
                    q / 10
                };
                Dec { mant: r, exp: -16 }
            })
        }
    })
}

/// sprig's `execDecimalOp`.
pub fn decimal_op(first: &Value, rest: &[Value], op: char) -> Result<f64, String> {
    let mut acc_f = to_float64(first);
    let mut acc = Dec::from_f64(acc_f);
    for v in rest {
        let x = to_float64(v);
        let d = Dec::from_f64(x);
        match (acc, d) {
            (Some(a), Some(b)) => {
                acc = dec_op(a, b, op)?;
                acc_f = match acc {
                    Some(d) => d.to_f64(),
                    None => match op {
                        '+' => acc_f + x,
                        '-' => acc_f - x,
                        '*' => acc_f * x,
                        _ => acc_f / x,
                    },
                };
            }
            _ => {
                acc = None;
                acc_f = f64::NAN;
            }
        }
        if acc.is_none() {
            acc = Dec::from_f64(acc_f);
        }
    }
    let _ = format_float;
    Ok(acc.map(|d| d.to_f64()).unwrap_or(acc_f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_conversions() {
        assert_eq!(to_int64(&Value::Float(2.75)), 2);
        assert_eq!(to_int64(&Value::str("12")), 12);
        assert_eq!(to_int64(&Value::str("0x1F")), 31);
        assert_eq!(to_int64(&Value::str("3.0")), 3);
        assert_eq!(to_int64(&Value::str("3.7")), 0);
        assert_eq!(to_int64(&Value::Nil), 0);
        assert_eq!(to_float64(&Value::str("2.5")), 2.5);
        assert_eq!(atoi("4.2"), 0);
        assert_eq!(atoi("-7"), -7);
    }

    #[test]
    fn decimal_math_is_exact() {
        assert_eq!(
            decimal_op(
                &Value::Float(0.0),
                &[Value::Float(0.1), Value::Float(0.2)],
                '+'
            ),
            Ok(0.3)
        );
        assert_eq!(decimal_op(&Value::int(10), &[Value::int(4)], '/'), Ok(2.5));
        assert_eq!(
            decimal_op(&Value::int(1), &[Value::int(0)], '/'),
            Err("decimal division by 0".into())
        );
    }

    #[test]
    fn sequences() {
        assert_eq!(seq(&[3]).unwrap(), "1 2 3");
        assert_eq!(seq(&[2, 5]).unwrap(), "2 3 4 5");
        assert_eq!(seq(&[0, 2, 6]).unwrap(), "0 2 4 6");
        assert_eq!(seq(&[5, 2]).unwrap(), "5 4 3 2");
        assert!(until_step(0, i64::MAX, 1).is_err());
    }
}
