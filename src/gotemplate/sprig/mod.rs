//! sprig v3.3.0's `HermeticTxtFuncMap()`: every sprig text function except the
//! non-hermetic ones (date/now, random, env, getHostByName). Go signatures are
//! kept so argument conversion errors match. Functions that cannot be
//! reproduced offline and deterministically (crypto key generation, shuffle,
//! time-dependent ones) fail with a capi-render message; see
//! `fixtures/gotmpl/differences.txt`.

mod encoding;
mod json;
mod lists;
mod maps;
mod numeric;
mod regex;
mod text;

use super::fmt::{sprint_value, sprintf};
use super::func::{f, fv, iface, Func, Param::*};
use super::value::Value;

pub use numeric::{to_float64, to_int64};

/// sprig's `strval`: strings as is, Stringers via String(), else `%v`.
pub fn strval(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        Value::Invalid | Value::Nil => "<nil>".into(),
        v => sprint_value(v),
    }
}

/// sprig's `empty`.
pub fn empty(v: &Value) -> bool {
    match v {
        Value::Invalid | Value::Nil => true,
        Value::Str(s) => s.is_empty(),
        Value::List(l, _) => l.is_empty(),
        Value::Map(m, _) => m.is_empty(),
        Value::Bool(b) => !b,
        Value::Int(i, _) => *i == 0,
        Value::Float(x) => *x == 0.0,
        Value::Semver(_) => false,
    }
}

fn s(a: &[Value], i: usize) -> &str {
    a.get(i).and_then(|v| v.as_str()).unwrap_or("")
}

fn int(a: &[Value], i: usize) -> i64 {
    match a.get(i) {
        Some(Value::Int(x, _)) => *x,
        _ => 0,
    }
}

fn str_ok(x: impl Into<std::rc::Rc<str>>) -> Result<Value, String> {
    Ok(Value::Str(x.into()))
}

fn not_offline(name: &str) -> Result<Value, String> {
    Err(format!(
        "capi-render: sprig function {name} is not supported (it is not deterministic or needs the clock)"
    ))
}

/// Go's panic text for `reflect.TypeOf(nil).Kind()`.
pub const NIL_DEREF: &str = "runtime error: invalid memory address or nil pointer dereference";

pub fn lookup(name: &str) -> Option<Func> {
    let func = match name {
        "hello" => f(&[], |_| str_ok("Hello!")),
        // --- strings
        "abbrev" => f(&[Int, Str], |a| str_ok(text::abbrev(int(a, 0), s(a, 1)))),
        "abbrevboth" => f(&[Int, Int, Str], |a| {
            str_ok(text::abbrevboth(int(a, 0), int(a, 1), s(a, 2)))
        }),
        "trunc" => f(&[Int, Str], |a| str_ok(text::trunc(int(a, 0), s(a, 1)))),
        "trim" => f(&[Str], |a| str_ok(s(a, 0).trim())),
        "upper" => f(&[Str], |a| str_ok(text::upper(s(a, 0)))),
        "lower" => f(&[Str], |a| str_ok(text::lower(s(a, 0)))),
        "title" => f(&[Str], |a| str_ok(text::title(s(a, 0)))),
        "untitle" => f(&[Str], |a| str_ok(text::untitle(s(a, 0)))),
        "substr" => f(&[Int, Int, Str], |a| {
            text::substr(int(a, 0), int(a, 1), s(a, 2)).map(Value::str)
        }),
        "repeat" => f(&[Int, Str], |a| {
            text::repeat(s(a, 1), int(a, 0)).map(Value::str)
        }),
        "trimall" | "trimAll" => f(&[Str, Str], |a| {
            str_ok(s(a, 1).trim_matches(|c| s(a, 0).contains(c)))
        }),
        "trimSuffix" => f(&[Str, Str], |a| {
            str_ok(s(a, 1).strip_suffix(s(a, 0)).unwrap_or(s(a, 1)))
        }),
        "trimPrefix" => f(&[Str, Str], |a| {
            str_ok(s(a, 1).strip_prefix(s(a, 0)).unwrap_or(s(a, 1)))
        }),
        "nospace" => f(&[Str], |a| {
            str_ok(
                s(a, 0)
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>(),
            )
        }),
        "initials" => f(&[Str], |a| str_ok(text::initials(s(a, 0)))),
        "swapcase" => f(&[Str], |a| str_ok(text::swapcase(s(a, 0)))),
        "snakecase" | "camelcase" | "kebabcase" | "wrap" | "wrapWith" | "shuffle" => {
            let fv1: Func = match name {
                "wrap" => f(&[Int, Str], |_| not_offline("wrap")),
                "wrapWith" => f(&[Int, Str, Str], |_| not_offline("wrapWith")),
                _ => f(&[Str], |_| {
                    not_offline("snakecase/camelcase/kebabcase/shuffle")
                }),
            };
            fv1
        }
        "contains" => f(&[Str, Str], |a| Ok(Value::Bool(s(a, 1).contains(s(a, 0))))),
        "hasPrefix" => f(&[Str, Str], |a| {
            Ok(Value::Bool(s(a, 1).starts_with(s(a, 0))))
        }),
        "hasSuffix" => f(&[Str, Str], |a| Ok(Value::Bool(s(a, 1).ends_with(s(a, 0))))),
        "quote" => fv(&[Any], |a| {
            let parts: Vec<String> = a
                .iter()
                .filter(|v| !matches!(v, Value::Nil | Value::Invalid))
                .map(|v| crate::go::quote::quote(&strval(v)))
                .collect();
            str_ok(parts.join(" "))
        }),
        "squote" => fv(&[Any], |a| {
            let parts: Vec<String> = a
                .iter()
                .filter(|v| !matches!(v, Value::Nil | Value::Invalid))
                .map(|v| format!("'{}'", sprint_value(v)))
                .collect();
            str_ok(parts.join(" "))
        }),
        "cat" => fv(&[Any], |a| {
            let v: Vec<Value> = a
                .iter()
                .filter(|v| !matches!(v, Value::Nil | Value::Invalid))
                .cloned()
                .collect();
            let fmt = "%v ".repeat(v.len());
            str_ok(sprintf(fmt.trim_matches([' ', '\t', '\n', '\r']), &v))
        }),
        "indent" => f(&[Int, Str], |a| {
            text::indent(int(a, 0), s(a, 1), false).map(Value::str)
        }),
        "nindent" => f(&[Int, Str], |a| {
            text::indent(int(a, 0), s(a, 1), true).map(Value::str)
        }),
        "replace" => f(&[Str, Str, Str], |a| {
            text::replace_all(s(a, 2), s(a, 0), s(a, 1)).map(Value::str)
        }),
        "plural" => f(&[Str, Str, Int], |a| {
            str_ok(if int(a, 2) == 1 { s(a, 0) } else { s(a, 1) })
        }),
        "sha1sum" => f(&[Str], |a| str_ok(encoding::sha1_hex(s(a, 0).as_bytes()))),
        "sha256sum" => f(&[Str], |a| {
            str_ok(crate::model::sha256_hex(s(a, 0).as_bytes()))
        }),
        "sha512sum" => f(&[Str], |a| str_ok(encoding::sha512_hex(s(a, 0).as_bytes()))),
        "adler32sum" => f(&[Str], |a| {
            str_ok(encoding::adler32(s(a, 0).as_bytes()).to_string())
        }),
        "toString" => f(&[Any], |a| str_ok(strval(&a[0]))),
        "atoi" => f(&[Str], |a| Ok(Value::int(numeric::atoi(s(a, 0))))),
        "int64" => f(&[Any], |a| Ok(Value::int64(to_int64(&a[0])))),
        "int" => f(&[Any], |a| Ok(Value::int(to_int64(&a[0])))),
        "float64" => f(&[Any], |a| Ok(Value::Float(to_float64(&a[0])))),
        "seq" => fv(&[Int], |a| {
            numeric::seq(
                &a.iter()
                    .map(|v| int(std::slice::from_ref(v), 0))
                    .collect::<Vec<_>>(),
            )
            .map(Value::str)
        }),
        "toDecimal" => f(&[Any], |a| Ok(Value::int64(numeric::to_decimal(&a[0])))),
        "split" => f(&[Str, Str], |a| Ok(text::split_map(s(a, 1), s(a, 0), -1))),
        "splitList" => f(&[Str, Str], |a| {
            Ok(Value::str_list(text::go_split(s(a, 1), s(a, 0), -1)))
        }),
        "splitn" => f(&[Str, Int, Str], |a| {
            Ok(text::split_map(s(a, 2), s(a, 0), int(a, 1)))
        }),
        "toStrings" => f(&[Any], |a| Ok(Value::str_list(lists::strslice(&a[0])))),
        "join" => f(&[Str, Any], |a| {
            // Sized first: a long separator between many elements multiplies.
            let parts = lists::strslice(&a[1]);
            let text: u128 = parts.iter().map(|p| p.len() as u128).sum();
            let seps = parts.len().saturating_sub(1) as u128 * s(a, 0).len() as u128;
            crate::gotemplate::budget::fits(text + seps)?;
            str_ok(parts.join(s(a, 0)))
        }),
        "sortAlpha" => f(&[Any], |a| Ok(Value::str_list(lists::sort_alpha(&a[0])))),
        // --- numbers
        "until" => f(&[Int], |a| {
            numeric::until_step(0, int(a, 0), if int(a, 0) < 0 { -1 } else { 1 })
        }),
        "untilStep" => f(&[Int, Int, Int], |a| {
            numeric::until_step(int(a, 0), int(a, 1), int(a, 2))
        }),
        "add1" => f(&[Any], |a| {
            Ok(Value::int64(to_int64(&a[0]).wrapping_add(1)))
        }),
        "add" => fv(&[Any], |a| {
            Ok(Value::int64(
                a.iter().fold(0i64, |x, v| x.wrapping_add(to_int64(v))),
            ))
        }),
        "sub" => f(&[Any, Any], |a| {
            Ok(Value::int64(to_int64(&a[0]).wrapping_sub(to_int64(&a[1]))))
        }),
        "div" => f(&[Any, Any], |a| {
            numeric::div(to_int64(&a[0]), to_int64(&a[1])).map(Value::int64)
        }),
        "mod" => f(&[Any, Any], |a| {
            numeric::rem(to_int64(&a[0]), to_int64(&a[1])).map(Value::int64)
        }),
        "mul" => fv(&[Any, Any], |a| {
            Ok(Value::int64(
                a.iter()
                    .skip(1)
                    .fold(to_int64(&a[0]), |x, v| x.wrapping_mul(to_int64(v))),
            ))
        }),
        "add1f" => f(&[Any], |a| {
            numeric::decimal_op(&a[0], &[Value::int(1)], '+').map(Value::Float)
        }),
        "addf" => fv(&[Any], |a| {
            numeric::decimal_op(&Value::Float(0.0), a, '+').map(Value::Float)
        }),
        "subf" => fv(&[Any, Any], |a| {
            numeric::decimal_op(&a[0], &a[1..], '-').map(Value::Float)
        }),
        "divf" => fv(&[Any, Any], |a| {
            numeric::decimal_op(&a[0], &a[1..], '/').map(Value::Float)
        }),
        "mulf" => fv(&[Any, Any], |a| {
            numeric::decimal_op(&a[0], &a[1..], '*').map(Value::Float)
        }),
        "biggest" | "max" => fv(&[Any, Any], |a| {
            Ok(Value::int64(
                a.iter()
                    .skip(1)
                    .fold(to_int64(&a[0]), |x, v| x.max(to_int64(v))),
            ))
        }),
        "min" => fv(&[Any, Any], |a| {
            Ok(Value::int64(
                a.iter()
                    .skip(1)
                    .fold(to_int64(&a[0]), |x, v| x.min(to_int64(v))),
            ))
        }),
        "maxf" => fv(&[Any, Any], |a| {
            Ok(Value::Float(
                a.iter()
                    .skip(1)
                    .fold(to_float64(&a[0]), |x, v| numeric::go_max(x, to_float64(v))),
            ))
        }),
        "minf" => fv(&[Any, Any], |a| {
            Ok(Value::Float(
                a.iter()
                    .skip(1)
                    .fold(to_float64(&a[0]), |x, v| numeric::go_min(x, to_float64(v))),
            ))
        }),
        "ceil" => f(&[Any], |a| Ok(Value::Float(to_float64(&a[0]).ceil()))),
        "floor" => f(&[Any], |a| Ok(Value::Float(to_float64(&a[0]).floor()))),
        "round" => fv(&[Any, Int, Float], |a| {
            Ok(Value::Float(numeric::round(&a[0], int(a, 1), a.get(2))))
        }),
        // --- defaults, flow, json
        "default" => iface(fv(&[Any, Any], |a| {
            let given = &a[1..];
            if given.is_empty() || empty(&given[0]) {
                Ok(a[0].clone())
            } else {
                Ok(given[0].clone())
            }
        })),
        "empty" => f(&[Any], |a| Ok(Value::Bool(empty(&a[0])))),
        "coalesce" => iface(fv(&[Any], |a| {
            Ok(a.iter().find(|v| !empty(v)).cloned().unwrap_or(Value::Nil))
        })),
        "all" => fv(&[Any], |a| Ok(Value::Bool(a.iter().all(|v| !empty(v))))),
        "any" => fv(&[Any], |a| Ok(Value::Bool(a.iter().any(|v| !empty(v))))),
        "compact" | "mustCompact" => f(&[Any], |a| lists::compact(&a[0])),
        "fromJson" => iface(f(&[Str], |a| {
            Ok(json::from_json(s(a, 0)).unwrap_or(Value::Nil))
        })),
        "mustFromJson" => iface(f(&[Str], |a| json::from_json(s(a, 0)))),
        "toJson" | "mustToJson" => f(&[Any], |a| {
            json::to_json(&a[0], true, false).map(Value::str)
        }),
        "toPrettyJson" | "mustToPrettyJson" => {
            f(&[Any], |a| json::to_json(&a[0], true, true).map(Value::str))
        }
        "toRawJson" | "mustToRawJson" => f(&[Any], |a| {
            json::to_json(&a[0], false, false).map(Value::str)
        }),
        "ternary" => iface(f(&[Any, Any, Bool], |a| {
            Ok(if matches!(a[2], Value::Bool(true)) {
                a[0].clone()
            } else {
                a[1].clone()
            })
        })),
        "deepCopy" | "mustDeepCopy" => iface(f(&[Any], |a| Ok(a[0].clone()))),
        "fail" => f(&[Str], |a| Err(s(a, 0).to_string())),
        // --- reflection
        "typeOf" => f(&[Any], |a| str_ok(a[0].type_name())),
        "typeIs" => f(&[Str, Any], |a| {
            Ok(Value::Bool(s(a, 0) == a[1].type_name()))
        }),
        "typeIsLike" => f(&[Str, Any], |a| {
            let t = a[1].type_name();
            Ok(Value::Bool(s(a, 0) == t || format!("*{}", s(a, 0)) == t))
        }),
        "kindOf" => f(&[Any], |a| str_ok(a[0].kind_name())),
        "kindIs" => f(&[Str, Any], |a| {
            Ok(Value::Bool(s(a, 0) == a[1].kind_name()))
        }),
        "deepEqual" => f(&[Any, Any], |a| Ok(Value::Bool(a[0].deep_equal(&a[1])))),
        // --- paths
        "base" | "osBase" => f(&[Str], |a| str_ok(text::path_base(s(a, 0)))),
        "dir" | "osDir" => f(&[Str], |a| str_ok(text::path_dir(s(a, 0)))),
        "clean" | "osClean" => f(&[Str], |a| str_ok(text::path_clean(s(a, 0)))),
        "ext" | "osExt" => f(&[Str], |a| str_ok(text::path_ext(s(a, 0)))),
        "isAbs" | "osIsAbs" => f(&[Str], |a| Ok(Value::Bool(s(a, 0).starts_with('/')))),
        // --- encoding
        "b64enc" => f(&[Str], |a| str_ok(encoding::b64enc(s(a, 0).as_bytes()))),
        "b64dec" => f(&[Str], |a| str_ok(encoding::b64dec(s(a, 0)))),
        "b32enc" => f(&[Str], |a| str_ok(encoding::b32enc(s(a, 0).as_bytes()))),
        "b32dec" => f(&[Str], |a| str_ok(encoding::b32dec(s(a, 0)))),
        // --- lists
        "tuple" | "list" => fv(&[Any], |a| Ok(Value::list(a.to_vec()))),
        "append" | "push" | "mustAppend" | "mustPush" => {
            f(&[Any, Any], |a| lists::push(&a[0], &a[1], false))
        }
        "prepend" | "mustPrepend" => f(&[Any, Any], |a| lists::push(&a[0], &a[1], true)),
        "first" | "mustFirst" => iface(f(&[Any], |a| lists::first_last(&a[0], true))),
        "last" | "mustLast" => iface(f(&[Any], |a| lists::first_last(&a[0], false))),
        "rest" | "mustRest" => f(&[Any], |a| lists::rest_initial(&a[0], true)),
        "initial" | "mustInitial" => f(&[Any], |a| lists::rest_initial(&a[0], false)),
        "reverse" | "mustReverse" => f(&[Any], |a| lists::reverse(&a[0])),
        "uniq" | "mustUniq" => f(&[Any], |a| lists::uniq(&a[0])),
        "without" | "mustWithout" => fv(&[Any, Any], |a| lists::without(&a[0], &a[1..])),
        "has" | "mustHas" => f(&[Any, Any], |a| lists::has(&a[0], &a[1])),
        "slice" | "mustSlice" => iface(fv(&[Any, Any], |a| lists::slice(&a[0], &a[1..]))),
        "concat" => iface(fv(&[Any], lists::concat)),
        "chunk" | "mustChunk" => f(&[Int, Any], |a| lists::chunk(int(a, 0), &a[1])),
        // --- dicts
        "dict" => fv(&[Any], maps::dict),
        "get" => iface(f(&[Map, Str], |a| Ok(maps::get(&a[0], s(a, 1))))),
        "set" => f(&[Map, Str, Any], |a| {
            Ok(maps::set(&a[0], s(a, 1), Some(&a[2])))
        }),
        "unset" => f(&[Map, Str], |a| Ok(maps::set(&a[0], s(a, 1), None))),
        "hasKey" => f(&[Map, Str], |a| {
            Ok(Value::Bool(maps::has_key(&a[0], s(a, 1))))
        }),
        "pluck" => fv(&[Str, Map], |a| Ok(maps::pluck(s(a, 0), &a[1..]))),
        "keys" => fv(&[Map], |a| Ok(maps::keys(a))),
        "pick" => fv(&[Map, Str], |a| Ok(maps::pick_omit(&a[0], &a[1..], true))),
        "omit" => fv(&[Map, Str], |a| Ok(maps::pick_omit(&a[0], &a[1..], false))),
        "merge" | "mustMerge" => iface(fv(&[Map, Map], |a| Ok(maps::merge(&a[0], &a[1..], false)))),
        "mergeOverwrite" | "mustMergeOverwrite" => {
            iface(fv(&[Map, Map], |a| Ok(maps::merge(&a[0], &a[1..], true))))
        }
        "values" => f(&[Map], |a| Ok(maps::values(&a[0]))),
        "dig" => iface(fv(&[Any], maps::dig)),
        // --- semver
        "semver" => f(&[Str], |a| {
            super::semver::parse(s(a, 0)).map(|v| Value::Semver(std::rc::Rc::new(v)))
        }),
        "semverCompare" => f(&[Str, Str], |a| {
            super::semver::semver_compare(s(a, 0), s(a, 1)).map(Value::Bool)
        }),
        // --- regex
        "regexMatch" => f(&[Str, Str], |a| {
            Ok(Value::Bool(
                regex::is_match(s(a, 0), s(a, 1)).unwrap_or(false),
            ))
        }),
        "mustRegexMatch" => f(&[Str, Str], |a| {
            regex::is_match(s(a, 0), s(a, 1)).map(Value::Bool)
        }),
        "regexFindAll" | "mustRegexFindAll" => f(&[Str, Str, Int], |a| {
            regex::find_all(s(a, 0), s(a, 1), int(a, 2)).map(Value::str_list)
        }),
        "regexFind" | "mustRegexFind" => f(&[Str, Str], |a| {
            regex::find(s(a, 0), s(a, 1)).map(Value::str)
        }),
        "regexReplaceAll" | "mustRegexReplaceAll" => f(&[Str, Str, Str], |a| {
            regex::replace_all(s(a, 0), s(a, 1), s(a, 2), false).map(Value::str)
        }),
        "regexReplaceAllLiteral" | "mustRegexReplaceAllLiteral" => f(&[Str, Str, Str], |a| {
            regex::replace_all(s(a, 0), s(a, 1), s(a, 2), true).map(Value::str)
        }),
        "regexSplit" | "mustRegexSplit" => f(&[Str, Str, Int], |a| {
            regex::split(s(a, 0), s(a, 1), int(a, 2)).map(Value::str_list)
        }),
        "regexQuoteMeta" => f(&[Str], |a| str_ok(regex::quote_meta(s(a, 0)))),
        // --- time
        "duration" => f(&[Any], |a| str_ok(text::duration(&a[0]))),
        "ago" | "toDate" | "mustToDate" | "unixEpoch" | "durationRound" | "must_date_modify"
        | "mustDateModify" => fv(&[Any], |_| not_offline("date/time")),
        // --- crypto, urls and random numbers: not reproducible offline
        "bcrypt"
        | "htpasswd"
        | "genPrivateKey"
        | "derivePassword"
        | "buildCustomCert"
        | "genCA"
        | "genCAWithKey"
        | "genSelfSignedCert"
        | "genSelfSignedCertWithKey"
        | "genSignedCert"
        | "genSignedCertWithKey"
        | "encryptAES"
        | "decryptAES"
        | "randInt"
        | "urlParse"
        | "urlJoin" => fv(&[Any], |_| not_offline("crypto/url/random")),
        _ => return None,
    };
    Some(func)
}
