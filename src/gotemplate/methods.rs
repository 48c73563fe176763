//! The methods a template can call on a value (`{{ $v.Major }}`): those of
//! Masterminds' `*semver.Version`, each bound to its receiver as a [`Func`].

use std::cmp::Ordering;
use std::rc::Rc;

use super::func::{FnImpl, Func, Param};
use super::semver::Version;
use super::value::{IntTy, Value};

fn recv(a: &[Value]) -> Result<&Version, String> {
    match a.first() {
        Some(Value::Semver(v)) => Ok(v),
        _ => Err("runtime error: invalid memory address or nil pointer dereference".into()),
    }
}

fn other(a: &[Value]) -> Result<&Version, String> {
    match a.get(1) {
        Some(Value::Semver(v)) => Ok(v),
        _ => Err("runtime error: invalid memory address or nil pointer dereference".into()),
    }
}

/// The method `name` of a `*semver.Version`, bound to `v`.
pub fn method(v: &Rc<Version>, name: &str) -> Option<Func> {
    use Param::Semver as S;
    let u = |x: u64| Value::Int(x as i64, IntTy::Uint64);
    let _ = u;
    let (params, call): (&'static [Param], FnImpl) = match name {
        "Major" => (&[], |a| {
            Ok(Value::Int(recv(a)?.major as i64, IntTy::Uint64))
        }),
        "Minor" => (&[], |a| {
            Ok(Value::Int(recv(a)?.minor as i64, IntTy::Uint64))
        }),
        "Patch" => (&[], |a| {
            Ok(Value::Int(recv(a)?.patch as i64, IntTy::Uint64))
        }),
        "Prerelease" => (&[], |a| Ok(Value::str(recv(a)?.pre.as_str()))),
        "Metadata" => (&[], |a| Ok(Value::str(recv(a)?.metadata.as_str()))),
        "Original" => (&[], |a| Ok(Value::str(recv(a)?.original.as_str()))),
        "String" => (&[], |a| Ok(Value::str(recv(a)?.to_string()))),
        "IncMajor" => (&[], |a| {
            let v = recv(a)?;
            Ok(Value::Semver(Rc::new(v.bumped(v.major + 1, 0, 0))))
        }),
        "IncMinor" => (&[], |a| {
            let v = recv(a)?;
            Ok(Value::Semver(Rc::new(v.bumped(v.major, v.minor + 1, 0))))
        }),
        "IncPatch" => (&[], |a| {
            let v = recv(a)?;
            let p = if v.pre.is_empty() {
                v.patch + 1
            } else {
                v.patch
            };
            Ok(Value::Semver(Rc::new(v.bumped(v.major, v.minor, p))))
        }),
        "LessThan" => (&[S], |a| {
            Ok(Value::Bool(recv(a)?.compare(other(a)?) == Ordering::Less))
        }),
        "LessThanEqual" => (&[S], |a| {
            Ok(Value::Bool(
                recv(a)?.compare(other(a)?) != Ordering::Greater,
            ))
        }),
        "GreaterThan" => (&[S], |a| {
            Ok(Value::Bool(
                recv(a)?.compare(other(a)?) == Ordering::Greater,
            ))
        }),
        "GreaterThanEqual" => (&[S], |a| {
            Ok(Value::Bool(recv(a)?.compare(other(a)?) != Ordering::Less))
        }),
        "Equal" => (&[S], |a| {
            Ok(Value::Bool(recv(a)?.compare(other(a)?) == Ordering::Equal))
        }),
        "Compare" => (&[S], |a| {
            Ok(Value::int(match recv(a)?.compare(other(a)?) {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            }))
        }),
        _ => return None,
    };
    Some(Func {
        params,
        variadic: false,
        ret_iface: false,
        call,
        bound: Some(Value::Semver(v.clone())),
    })
}
