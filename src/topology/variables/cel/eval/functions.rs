//! The CEL library functions capi-render evaluates: the standard ones (size, contains,
//! startsWith, endsWith, matches, int, uint, double, string, bool, dyn) and the
//! Kubernetes string and list extensions real ClusterClasses use (lowerAscii,
//! upperAscii, trim, replace, split, join, indexOf, lastIndexOf, substring, format,
//! isSorted, sum, min, max). Anything else is `Unsupported`, never a silent pass.

use std::rc::Rc;

use super::{no_overload, runtime, EvalError, EvalResult};
use crate::topology::variables::cel::value::{compare, Val};
use crate::yaml::emit::format_go_float_g;

/// The length of the string (or the number of bytes split into a list) a library
/// function builds, computed before it is built: the evaluator charges a tenth of it
/// (cel-go's charge for strings, as for `+`), so a chain of `replace` calls that grows
/// a string tenfold at each step stops at `--max-cel-cost` instead of building it.
/// 0 for the functions that build nothing proportional to their input.
pub fn output_size(name: &str, recv: Option<&Val>, args: &[Val]) -> u64 {
    let all: Vec<&Val> = recv.into_iter().chain(args.iter()).collect();
    let len = |s: &str| s.len() as u64;
    match (name, all.as_slice()) {
        ("replace", [Val::Str(s), Val::Str(a), Val::Str(b), rest @ ..]) => {
            let matches = if a.is_empty() {
                s.chars().count() as u64 + 1
            } else {
                s.matches(&**a).count() as u64
            };
            let matches = match rest {
                [Val::Int(n)] if *n >= 0 => matches.min(*n as u64),
                _ => matches,
            };
            len(s)
                .saturating_sub(matches.saturating_mul(len(a)))
                .saturating_add(matches.saturating_mul(len(b)))
        }
        ("join", [Val::List(items), rest @ ..]) => {
            let sep = match rest {
                [Val::Str(sep)] => len(sep),
                _ => 0,
            };
            items.iter().fold(0u64, |n, i| match i {
                Val::Str(x) => n.saturating_add(len(x)).saturating_add(sep),
                _ => n,
            })
        }
        ("format", [Val::Str(f), Val::List(items)]) => items.iter().fold(len(f), |n, i| match i {
            Val::Str(x) => n.saturating_add(len(x)),
            _ => n,
        }),
        (
            "lowerAscii" | "upperAscii" | "trim" | "split" | "substring" | "string",
            [Val::Str(s), ..],
        ) => len(s),
        _ => 0,
    }
}

pub fn call_function(name: &str, recv: Option<&Val>, args: &[Val]) -> EvalResult {
    // Receiver-style and global forms of the same function share one implementation.
    let all: Vec<&Val> = recv.into_iter().chain(args.iter()).collect();
    let f = format!("{}{name}", if recv.is_some() { "." } else { "" });
    match (name, all.as_slice()) {
        ("size", [v]) => size(v),
        ("contains", [Val::Str(a), Val::Str(b)]) => Ok(Val::Bool(a.contains(&**b))),
        ("startsWith", [Val::Str(a), Val::Str(b)]) => Ok(Val::Bool(a.starts_with(&**b))),
        ("endsWith", [Val::Str(a), Val::Str(b)]) => Ok(Val::Bool(a.ends_with(&**b))),
        ("matches", [Val::Str(a), Val::Str(re)]) => crate::go::regex::compile(re)
            .map(|r| Val::Bool(r.is_match(a)))
            .map_err(|e| {
                runtime(format!(
                    "invalid regular expression: {}",
                    e.to_string().lines().last().unwrap_or("").trim()
                ))
            }),
        ("int", [v]) if recv.is_none() => to_int(v),
        ("uint", [v]) if recv.is_none() => to_uint(v),
        ("double", [v]) if recv.is_none() => to_double(v),
        ("string", [v]) if recv.is_none() => to_string(v).map(|s| Val::Str(s.into())),
        ("bool", [Val::Bool(b)]) if recv.is_none() => Ok(Val::Bool(*b)),
        ("bool", [Val::Str(s)]) if recv.is_none() => match &**s {
            "1" | "t" | "true" | "TRUE" | "True" => Ok(Val::Bool(true)),
            "0" | "f" | "false" | "FALSE" | "False" => Ok(Val::Bool(false)),
            _ => Err(runtime("type conversion error from 'string' to 'bool'")),
        },
        ("dyn", [v]) if recv.is_none() => Ok((*v).clone()),
        ("type", [v]) if recv.is_none() => Ok(Val::Type(v.type_name())),
        ("lowerAscii", [Val::Str(s)]) if recv.is_some() => {
            Ok(Val::Str(s.to_ascii_lowercase().into()))
        }
        ("upperAscii", [Val::Str(s)]) if recv.is_some() => {
            Ok(Val::Str(s.to_ascii_uppercase().into()))
        }
        ("trim", [Val::Str(s)]) if recv.is_some() => Ok(Val::Str(s.trim().into())),
        ("replace", [Val::Str(s), Val::Str(a), Val::Str(b)]) => {
            Ok(Val::Str(s.replace(&**a, b).into()))
        }
        ("replace", [Val::Str(s), Val::Str(a), Val::Str(b), Val::Int(n)]) => Ok(Val::Str(
            if *n < 0 {
                s.replace(&**a, b)
            } else {
                s.replacen(&**a, b, *n as usize)
            }
            .into(),
        )),
        ("split", [Val::Str(s), Val::Str(sep)]) => Ok(Val::List(Rc::new(
            split(s, sep)
                .into_iter()
                .map(|p| Val::Str(p.into()))
                .collect(),
        ))),
        ("join", [Val::List(items)]) => join(items, ""),
        ("join", [Val::List(items), Val::Str(sep)]) => join(items, sep),
        ("indexOf", [Val::List(items), item]) => Ok(Val::Int(
            items
                .iter()
                .position(|i| crate::topology::variables::cel::value::equal(i, item))
                .map_or(-1, |p| p as i64),
        )),
        ("lastIndexOf", [Val::List(items), item]) => Ok(Val::Int(
            items
                .iter()
                .rposition(|i| crate::topology::variables::cel::value::equal(i, item))
                .map_or(-1, |p| p as i64),
        )),
        ("indexOf", [Val::Str(s), Val::Str(sub)]) => Ok(Val::Int(char_index(s, s.find(&**sub)))),
        ("lastIndexOf", [Val::Str(s), Val::Str(sub)]) => {
            Ok(Val::Int(char_index(s, s.rfind(&**sub))))
        }
        ("substring", [Val::Str(s), Val::Int(a)]) => substring(s, *a, s.chars().count() as i64),
        ("substring", [Val::Str(s), Val::Int(a), Val::Int(b)]) => substring(s, *a, *b),
        ("format", [Val::Str(fmt), Val::List(fargs)]) => {
            format(fmt, fargs).map(|s| Val::Str(s.into()))
        }
        ("isSorted", [Val::List(items)]) => {
            for w in items.windows(2) {
                match compare(&w[0], &w[1]) {
                    Some(std::cmp::Ordering::Greater) => return Ok(Val::Bool(false)),
                    Some(_) => {}
                    None => return Err(no_overload("isSorted", &[&w[0], &w[1]])),
                }
            }
            Ok(Val::Bool(true))
        }
        ("sum", [Val::List(items)]) => sum(items),
        ("min" | "max", [Val::List(items)]) => extreme(name, items),
        (
            "size" | "contains" | "startsWith" | "endsWith" | "matches" | "int" | "uint" | "double"
            | "string" | "bool" | "dyn" | "type" | "lowerAscii" | "upperAscii" | "trim" | "replace"
            | "split" | "join" | "indexOf" | "lastIndexOf" | "substring" | "format" | "isSorted"
            | "sum" | "min" | "max",
            vals,
        ) => Err(no_overload(&f, vals)),
        _ => Err(EvalError::Unsupported(format!("function {f}"))),
    }
}

fn size(v: &Val) -> EvalResult {
    match v {
        Val::Str(s) => Ok(Val::Int(s.chars().count() as i64)),
        Val::List(l) => Ok(Val::Int(l.len() as i64)),
        Val::Map(m) => Ok(Val::Int(m.len() as i64)),
        other => Err(no_overload("size", &[other])),
    }
}

fn to_int(v: &Val) -> EvalResult {
    match v {
        Val::Int(i) => Ok(Val::Int(*i)),
        Val::Uint(u) => i64::try_from(*u)
            .map(Val::Int)
            .map_err(|_| runtime("integer overflow")),
        Val::Double(d)
            if d.is_finite() && *d > -9.223_372_036_854_776e18 && *d < 9.223_372_036_854_776e18 =>
        {
            Ok(Val::Int(*d as i64))
        }
        Val::Double(_) => Err(runtime("integer overflow")),
        Val::Str(s) => s
            .parse::<i64>()
            .map(Val::Int)
            .map_err(|_| runtime("type conversion error from 'string' to 'int'")),
        other => Err(no_overload("int", &[other])),
    }
}

fn to_uint(v: &Val) -> EvalResult {
    match v {
        Val::Uint(u) => Ok(Val::Uint(*u)),
        Val::Int(i) => u64::try_from(*i)
            .map(Val::Uint)
            .map_err(|_| runtime("unsigned integer overflow")),
        Val::Double(d) if d.is_finite() && *d >= 0.0 && *d < 1.844_674_407_370_955_2e19 => {
            Ok(Val::Uint(*d as u64))
        }
        Val::Double(_) => Err(runtime("unsigned integer overflow")),
        Val::Str(s) => s
            .parse::<u64>()
            .map(Val::Uint)
            .map_err(|_| runtime("type conversion error from 'string' to 'uint'")),
        other => Err(no_overload("uint", &[other])),
    }
}

fn to_double(v: &Val) -> EvalResult {
    match v {
        Val::Double(d) => Ok(Val::Double(*d)),
        Val::Int(i) => Ok(Val::Double(*i as f64)),
        Val::Uint(u) => Ok(Val::Double(*u as f64)),
        Val::Str(s) => s
            .parse::<f64>()
            .map(Val::Double)
            .map_err(|_| runtime("type conversion error from 'string' to 'double'")),
        other => Err(no_overload("double", &[other])),
    }
}

fn to_string(v: &Val) -> Result<String, EvalError> {
    match v {
        Val::Str(s) => Ok(s.to_string()),
        Val::Int(i) => Ok(i.to_string()),
        Val::Uint(u) => Ok(u.to_string()),
        Val::Double(d) => Ok(format_go_float_g(*d)),
        Val::Bool(b) => Ok(b.to_string()),
        other => Err(no_overload("string", &[other])),
    }
}

fn split(s: &str, sep: &str) -> Vec<String> {
    if sep.is_empty() {
        return s.chars().map(|c| c.to_string()).collect();
    }
    s.split(sep).map(str::to_string).collect()
}

fn join(items: &[Val], sep: &str) -> EvalResult {
    let mut parts = Vec::new();
    for i in items {
        match i {
            Val::Str(s) => parts.push(&**s),
            other => return Err(no_overload("join", &[other])),
        }
    }
    Ok(Val::Str(parts.join(sep).into()))
}

fn char_index(s: &str, byte: Option<usize>) -> i64 {
    match byte {
        Some(b) => s[..b].chars().count() as i64,
        None => -1,
    }
}

fn substring(s: &str, a: i64, b: i64) -> EvalResult {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len() as i64;
    if a < 0 || a > n {
        return Err(runtime(format!("index out of range: {a}")));
    }
    if b < a || b > n {
        return Err(runtime(format!("index out of range: {b}")));
    }
    Ok(Val::Str(
        chars[a as usize..b as usize]
            .iter()
            .collect::<String>()
            .into(),
    ))
}

fn sum(items: &[Val]) -> EvalResult {
    let mut acc = match items.first() {
        Some(Val::Double(_)) => Val::Double(0.0),
        Some(Val::Uint(_)) => Val::Uint(0),
        _ => Val::Int(0),
    };
    for i in items {
        acc = super::binary("+", &acc, i)?;
    }
    Ok(acc)
}

fn extreme(name: &str, items: &[Val]) -> EvalResult {
    let mut best: Option<&Val> = None;
    for i in items {
        best = Some(match best {
            None => i,
            Some(b) => {
                let o = compare(i, b).ok_or_else(|| no_overload(name, &[i, b]))?;
                let better = if name == "min" {
                    o == std::cmp::Ordering::Less
                } else {
                    o == std::cmp::Ordering::Greater
                };
                if better {
                    i
                } else {
                    b
                }
            }
        });
    }
    best.cloned()
        .ok_or_else(|| runtime(format!("{name} called on empty list")))
}

/// The strings extension's `format`: `%s`, `%d`, `%f` (precision 6 or `%.Nf`), `%%`.
fn format(fmt: &str, args: &[Val]) -> Result<String, EvalError> {
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    let mut next = 0usize;
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut precision: Option<usize> = None;
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut digits = String::new();
            while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                digits.push(*d);
                chars.next();
            }
            precision = digits.parse().ok();
        }
        let verb = chars
            .next()
            .ok_or_else(|| runtime("unexpected end of format string"))?;
        if verb == '%' {
            out.push('%');
            continue;
        }
        let arg = args
            .get(next)
            .ok_or_else(|| runtime(format!("index {next} out of range")))?;
        next += 1;
        match (verb, arg) {
            ('s', Val::List(items)) => {
                let parts: Result<Vec<String>, EvalError> = items.iter().map(to_string).collect();
                out.push_str(&format!("[{}]", parts?.join(", ")));
            }
            ('s', Val::Null) => out.push_str("null"),
            ('s', v) => out.push_str(&to_string(v)?),
            ('d', Val::Int(i)) => out.push_str(&i.to_string()),
            ('d', Val::Uint(u)) => out.push_str(&u.to_string()),
            ('f', Val::Double(d)) => out.push_str(&format!("{:.*}", precision.unwrap_or(6), d)),
            ('f', Val::Int(i)) => {
                out.push_str(&format!("{:.*}", precision.unwrap_or(6), *i as f64))
            }
            ('f', Val::Uint(u)) => {
                out.push_str(&format!("{:.*}", precision.unwrap_or(6), *u as f64))
            }
            (v, _) => return Err(EvalError::Unsupported(format!("format verb %{v}"))),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Val {
        Val::Str(x.into())
    }

    #[test]
    fn strings() {
        assert_eq!(call_function("size", None, &[s("héllo")]), Ok(Val::Int(5)));
        assert_eq!(
            call_function("startsWith", Some(&s("abc")), &[s("ab")]),
            Ok(Val::Bool(true))
        );
        assert_eq!(
            call_function("matches", Some(&s("v1.2")), &[s("^v[0-9]+")]),
            Ok(Val::Bool(true))
        );
        assert_eq!(
            call_function("split", Some(&s("a,b")), &[s(",")]),
            Ok(Val::list(vec![s("a"), s("b")]))
        );
        assert_eq!(
            call_function("substring", Some(&s("hello")), &[Val::Int(1), Val::Int(3)]),
            Ok(s("el"))
        );
        assert_eq!(
            call_function(
                "format",
                Some(&s("%s has %d items (%.1f)")),
                &[Val::list(vec![s("x"), Val::Int(3), Val::Double(0.25)])]
            ),
            Ok(s("x has 3 items (0.2)"))
        );
    }

    #[test]
    fn conversions_and_lists() {
        assert_eq!(call_function("int", None, &[s("42")]), Ok(Val::Int(42)));
        assert_eq!(
            call_function("int", None, &[Val::Double(2.9)]),
            Ok(Val::Int(2))
        );
        assert_eq!(
            call_function("string", None, &[Val::Double(1.5)]),
            Ok(s("1.5"))
        );
        assert_eq!(
            call_function(
                "isSorted",
                Some(&Val::list(vec![Val::Int(1), Val::Int(2)])),
                &[]
            ),
            Ok(Val::Bool(true))
        );
        assert_eq!(
            call_function("sum", Some(&Val::list(vec![Val::Int(1), Val::Int(2)])), &[]),
            Ok(Val::Int(3))
        );
        assert_eq!(
            call_function("max", Some(&Val::list(vec![Val::Int(1), Val::Int(5)])), &[]),
            Ok(Val::Int(5))
        );
    }

    #[test]
    fn unknown_functions_are_unsupported() {
        assert!(matches!(
            call_function("quantity", None, &[s("1Gi")]),
            Err(EvalError::Unsupported(_))
        ));
        assert!(matches!(
            call_function("size", None, &[Val::Int(1)]),
            Err(EvalError::Runtime(_))
        ));
    }
}
