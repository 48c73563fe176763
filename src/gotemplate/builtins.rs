//! text/template's builtin functions (text/template/funcs.go semantics):
//! comparisons, index, len, not, print*, html, js, urlquery.

use super::fmt::{sprint, sprint_value, sprintf, sprintln};
use super::func::{f, fv, iface, Func, Param::*};
use super::value::{Elem, IntTy, Value};

pub fn lookup(name: &str) -> Option<Func> {
    Some(match name {
        // and/or are evaluated lazily by the executor; these bodies only
        // serve the signature (arity checks).
        "and" | "or" => fv(&[Rv, Rv], |a| Ok(a[0].clone())),
        "call" => fv(&[Rv, Rv], call),
        "html" => fv(&[Any], |a| Ok(Value::str(html_escape(&eval_args(a))))),
        "index" => iface(fv(&[Rv, Rv], index)),
        "slice" => iface(fv(&[Rv, Rv], |_| Err("slice is provided by sprig".into()))),
        "js" => fv(&[Any], |a| Ok(Value::str(js_escape(&eval_args(a))))),
        "len" => f(&[Rv], len),
        "not" => f(&[Rv], |a| Ok(Value::Bool(!a[0].truth()))),
        "print" => fv(&[Any], |a| Ok(Value::str(sprint(a)))),
        "printf" => fv(&[Str, Any], |a| {
            Ok(Value::str(sprintf(a[0].as_str().unwrap_or(""), &a[1..])))
        }),
        "println" => fv(&[Any], |a| Ok(Value::str(sprintln(a)))),
        "urlquery" => fv(&[Any], |a| Ok(Value::str(query_escape(&eval_args(a))))),
        "eq" => fv(&[Rv, Rv], |a| eq(&a[0], &a[1..]).map(Value::Bool)),
        "ne" => f(&[Rv, Rv], |a| eq(&a[0], &a[1..2]).map(|b| Value::Bool(!b))),
        "lt" => f(&[Rv, Rv], |a| lt(&a[0], &a[1]).map(Value::Bool)),
        "le" => f(&[Rv, Rv], |a| le(&a[0], &a[1]).map(Value::Bool)),
        "gt" => f(&[Rv, Rv], |a| le(&a[0], &a[1]).map(|b| Value::Bool(!b))),
        "ge" => f(&[Rv, Rv], |a| lt(&a[0], &a[1]).map(|b| Value::Bool(!b))),
        _ => return None,
    })
}

fn call(a: &[Value]) -> Result<Value, String> {
    match &a[0] {
        Value::Invalid | Value::Nil => Err("call of nil".into()),
        v => Err(format!("non-function of type {}", v.type_name())),
    }
}

/// html/js/urlquery argument text: one string as is, else Sprint with
/// missing values shown as `<no value>`.
fn eval_args(a: &[Value]) -> String {
    if let [Value::Str(s)] = a {
        return s.to_string();
    }
    let shown: Vec<Value> = a
        .iter()
        .map(|v| match v {
            Value::Invalid | Value::Nil => Value::str("<no value>"),
            v => v.clone(),
        })
        .collect();
    sprint(&shown)
}

pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\0' => out.push('\u{FFFD}'),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

pub fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u00{:02X}", c as u32)),
            c if c.is_ascii() => out.push(c),
            c => {
                let printable = crate::go::quote::quote(&c.to_string()).chars().count() == 3;
                if printable {
                    out.push(c)
                } else {
                    out.push_str(&format!("\\u{:04X}", c as u32))
                }
            }
        }
    }
    out
}

/// net/url.QueryEscape.
pub fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn len(a: &[Value]) -> Result<Value, String> {
    match &a[0] {
        Value::Nil => Err("len of nil pointer".into()),
        Value::Invalid => Err("reflect: call of reflect.Value.Type on zero Value".into()),
        Value::Str(s) => Ok(Value::int(s.len() as i64)),
        Value::List(l, _) => Ok(Value::int(l.len() as i64)),
        Value::Map(m, _) => Ok(Value::int(m.len() as i64)),
        Value::Semver(_) => Err("len of type semver.Version".into()),
        v => Err(format!("len of type {}", v.type_name())),
    }
}

fn index_arg(i: &Value, cap: usize) -> Result<usize, String> {
    let x = match i {
        Value::Int(x, _) => *x,
        Value::Invalid | Value::Nil => return Err("cannot index slice/array with nil".into()),
        v => {
            return Err(format!(
                "cannot index slice/array with type {}",
                v.type_name()
            ))
        }
    };
    if x < 0 || x as u64 > cap as u64 {
        return Err(format!("index out of range: {x}"));
    }
    Ok(x as usize)
}

fn index(a: &[Value]) -> Result<Value, String> {
    let mut item = match &a[0] {
        Value::Invalid | Value::Nil => return Err("index of untyped nil".into()),
        v => v.clone(),
    };
    let mut first = true;
    for i in &a[1..] {
        if !first && matches!(item, Value::Nil) {
            return Err("index of nil pointer".into());
        }
        first = false;
        item = match &item {
            Value::List(l, _) => {
                let x = index_arg(i, l.len())?;
                l.get(x)
                    .cloned()
                    .ok_or("reflect: slice index out of range")?
            }
            Value::Str(s) => {
                let x = index_arg(i, s.len())?;
                let b = *s
                    .as_bytes()
                    .get(x)
                    .ok_or("reflect: string index out of range")?;
                Value::Int(b as i64, IntTy::Uint8)
            }
            Value::Map(m, e) => {
                let key = match i {
                    Value::Str(k) => k,
                    Value::Invalid | Value::Nil => {
                        return Err("value is nil; should be of type string".into())
                    }
                    v => {
                        return Err(format!(
                            "value has type {}; should be string",
                            v.type_name()
                        ))
                    }
                };
                match m.get(&**key) {
                    Some(v) => v.clone(),
                    None if *e == Elem::Any => Value::Nil,
                    None => Value::str(""),
                }
            }
            v => return Err(format!("can't index item of type {}", v.type_name())),
        };
    }
    Ok(item)
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Kind {
    Invalid,
    Bool,
    Int,
    Uint,
    Float,
    Str,
}

fn basic_kind(v: &Value) -> Kind {
    match v {
        Value::Bool(_) => Kind::Bool,
        Value::Int(_, IntTy::Uint64 | IntTy::Uint8) => Kind::Uint,
        Value::Int(..) => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::Str(_) => Kind::Str,
        _ => Kind::Invalid,
    }
}

fn norm(v: &Value) -> Value {
    match v {
        Value::Nil => Value::Invalid,
        v => v.clone(),
    }
}

fn int_of(v: &Value) -> i64 {
    match v {
        Value::Int(i, _) => *i,
        _ => 0,
    }
}

fn reflect_kind(v: &Value) -> &'static str {
    match v {
        Value::List(..) => "slice",
        Value::Map(..) => "map",
        Value::Semver(_) => "ptr",
        Value::Invalid | Value::Nil => "invalid",
        _ => "basic",
    }
}

fn eq(a1: &Value, rest: &[Value]) -> Result<bool, String> {
    let a1 = norm(a1);
    if rest.is_empty() {
        return Err("missing argument for comparison".into());
    }
    let k1 = basic_kind(&a1);
    for a in rest {
        let a = norm(a);
        let k2 = basic_kind(&a);
        let truth = if k1 != k2 {
            match (k1, k2) {
                (Kind::Int, Kind::Uint) => int_of(&a1) >= 0 && int_of(&a1) == int_of(&a),
                (Kind::Uint, Kind::Int) => int_of(&a) >= 0 && int_of(&a1) == int_of(&a),
                _ => {
                    if !a1.is_invalid() && !a.is_invalid() {
                        return Err(format!(
                            "incompatible types for comparison: {} and {}",
                            a1.type_name(),
                            a.type_name()
                        ));
                    }
                    false
                }
            }
        } else {
            match (&a1, &a) {
                (Value::Bool(x), Value::Bool(y)) => x == y,
                (Value::Float(x), Value::Float(y)) => x == y,
                (Value::Int(x, _), Value::Int(y, _)) => x == y,
                (Value::Str(x), Value::Str(y)) => x == y,
                _ => {
                    let (r1, r2) = (reflect_kind(&a1), reflect_kind(&a));
                    if r1 != r2 && r1 != "invalid" && r2 != "invalid" {
                        return Err(format!(
                            "non-comparable types {}: {}, {}: {}",
                            sprintf("%s", std::slice::from_ref(&a1)),
                            a1.type_name(),
                            a.type_name(),
                            sprint_value(&a)
                        ));
                    }
                    if a1.is_invalid() || a.is_invalid() {
                        a1.is_invalid() == a.is_invalid()
                    } else {
                        match (&a1, &a) {
                            (Value::Semver(x), Value::Semver(y)) => std::rc::Rc::ptr_eq(x, y),
                            _ => {
                                return Err(format!(
                                    "non-comparable type {}: {}",
                                    sprintf("%s", std::slice::from_ref(&a)),
                                    a.type_name()
                                ))
                            }
                        }
                    }
                }
            }
        };
        if truth {
            return Ok(true);
        }
    }
    Ok(false)
}

fn lt(a1: &Value, a2: &Value) -> Result<bool, String> {
    let (a1, a2) = (norm(a1), norm(a2));
    let bad = || "invalid type for comparison".to_string();
    let k1 = basic_kind(&a1);
    if k1 == Kind::Invalid {
        return Err(bad());
    }
    let k2 = basic_kind(&a2);
    if k2 == Kind::Invalid {
        return Err(bad());
    }
    if k1 != k2 {
        return match (k1, k2) {
            (Kind::Int, Kind::Uint) => Ok(int_of(&a1) < 0 || int_of(&a1) < int_of(&a2)),
            (Kind::Uint, Kind::Int) => Ok(int_of(&a2) >= 0 && int_of(&a1) < int_of(&a2)),
            _ => Err(format!(
                "incompatible types for comparison: {} and {}",
                a1.type_name(),
                a2.type_name()
            )),
        };
    }
    Ok(match (&a1, &a2) {
        (Value::Float(x), Value::Float(y)) => x < y,
        (Value::Int(x, _), Value::Int(y, _)) => x < y,
        (Value::Str(x), Value::Str(y)) => x < y,
        _ => return Err(bad()),
    })
}

fn le(a1: &Value, a2: &Value) -> Result<bool, String> {
    if lt(a1, a2)? {
        return Ok(true);
    }
    eq(a1, std::slice::from_ref(a2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_follow_go_kinds() {
        assert_eq!(eq(&Value::Float(3.0), &[Value::Float(3.0)]), Ok(true));
        assert_eq!(
            eq(&Value::Float(3.0), &[Value::int(3)]),
            Err("incompatible types for comparison: float64 and int".into())
        );
        assert_eq!(eq(&Value::Nil, &[Value::Invalid]), Ok(true));
        assert_eq!(eq(&Value::str("a"), &[Value::Nil]), Ok(false));
        assert_eq!(
            lt(&Value::Bool(true), &Value::Bool(true)),
            Err("invalid type for comparison".into())
        );
        assert_eq!(le(&Value::int(2), &Value::int(2)), Ok(true));
        assert_eq!(
            eq(&Value::int(1), &[Value::Int(1, IntTy::Uint64)]),
            Ok(true)
        );
    }

    #[test]
    fn index_and_len() {
        let l = Value::from_json(&serde_json::json!([1, {"a": "x"}]));
        assert!(matches!(index(&[l.clone(), Value::int(0)]), Ok(Value::Float(f)) if f == 1.0));
        assert_eq!(
            index(&[l.clone(), Value::int(5)]).unwrap_err(),
            "index out of range: 5"
        );
        assert_eq!(
            index(&[l.clone(), Value::int(2)]).unwrap_err(),
            "reflect: slice index out of range"
        );
        assert_eq!(
            index(&[l.clone(), Value::Float(0.0)]).unwrap_err(),
            "cannot index slice/array with type float64"
        );
        assert!(matches!(
            index(&[l.clone(), Value::int(1), Value::str("zz")]),
            Ok(Value::Nil)
        ));
        assert!(matches!(len(&[l]), Ok(Value::Int(2, _))));
        assert_eq!(len(&[Value::Nil]).unwrap_err(), "len of nil pointer");
    }

    #[test]
    fn escapers() {
        assert_eq!(
            html_escape("<a href=\"x\">&'"),
            "&lt;a href=&#34;x&#34;&gt;&amp;&#39;"
        );
        assert_eq!(js_escape("it's <x>\n"), "it\\'s \\u003Cx\\u003E\\u000A");
        assert_eq!(query_escape("a b&c=d/é"), "a+b%26c%3Dd%2F%C3%A9");
        assert_eq!(eval_args(&[Value::Invalid]), "<no value>");
    }
}
