//! Evaluation of a parsed template (drone/envsubst's `Execute` and its
//! substitution functions).
//!
//! Everything works on bytes, like Go strings. A function receives the
//! variable's value (`""` when unset) and its evaluated arguments; nested
//! substitutions inside arguments are evaluated first. Functions are chosen by
//! operator and argument count, unknown operators (e.g. `,^`) fall back to the
//! default function, which with no arguments returns the value unchanged.

use super::glob;
use super::gostr::{self, atoi, map_first, map_runes, replace, reverse};
use super::parse::{FuncNode, Node};
use super::Lookup;

/// A Go runtime panic inside drone (only `${V:pos:len}` with a negative
/// length can cause one); the message is Go's, e.g.
/// `runtime error: slice bounds out of range [2:1]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoPanic(pub String);

/// Why an evaluation stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvalError {
    /// Where drone panics.
    Panic(GoPanic),
    /// A substitution (of the variable `var`) that would bring the bytes the
    /// substitutions of one text produce to `amount`, over `limit`
    /// (`--max-template-bytes`). Checked before the result is built.
    TooLarge {
        var: String,
        amount: u64,
        limit: u64,
    },
    /// A trim (`${V#p}`, `%`, `##`, `%%`) of the variable `var` whose pattern
    /// matching would take more than `limit` steps (`--max-template-steps`, one step
    /// per 64 bytes compared): drone tries every prefix, each from its start, so a
    /// `*` pattern on a large value is quadratic.
    TooMuchWork { var: String, limit: u64 },
}

impl EvalError {
    /// The message: Go's panic text, or the limit's error naming the variable.
    pub fn message(&self) -> String {
        match self {
            EvalError::Panic(p) => p.0.clone(),
            EvalError::TooLarge { .. } | EvalError::TooMuchWork { .. } => {
                self.to_error().message().to_string()
            }
        }
    }

    /// As the crate's error.
    pub fn to_error(&self) -> crate::Error {
        match self {
            EvalError::Panic(p) => crate::Error::new(p.0.clone()),
            EvalError::TooLarge { var, amount, limit } => crate::limits::over_limit(
                crate::limits::Limit::TemplateBytes,
                *limit,
                Some(*amount),
            )
            .wrap(format!("substitution of ${{{var}}}")),
            EvalError::TooMuchWork { var, limit } => {
                crate::limits::over_limit(crate::limits::Limit::TemplateSteps, *limit, None)
                    .wrap(format!("substitution of ${{{var}}}: matching its pattern"))
            }
        }
    }
}

impl From<GoPanic> for EvalError {
    fn from(p: GoPanic) -> Self {
        EvalError::Panic(p)
    }
}

/// The bytes the substitutions of one text may still produce (every function's
/// result counts, nested ones included): `--max-template-bytes` in all.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    limit: u64,
    left: u64,
    /// Steps one trim's pattern matching may take (`--max-template-steps`).
    steps: u64,
}

impl Budget {
    /// `limit` bytes, trims unbounded.
    pub fn new(limit: u64) -> Budget {
        Budget {
            limit,
            left: limit,
            steps: u64::MAX,
        }
    }

    /// The process-wide limits (`--max-template-bytes`, and `--max-template-steps`
    /// for each trim).
    pub fn current() -> Budget {
        let l = crate::limits::Limits::current();
        Budget {
            steps: l.template_steps,
            ..Budget::new(l.template_bytes)
        }
    }

    /// `Ok` when `size` more bytes fit; the error (naming `var`) otherwise.
    fn fits(&self, var: &str, size: u64) -> Result<(), EvalError> {
        if size <= self.left {
            return Ok(());
        }
        Err(EvalError::TooLarge {
            var: var.to_string(),
            amount: (self.limit - self.left).saturating_add(size),
            limit: self.limit,
        })
    }

    fn spend(&mut self, var: &str, size: usize) -> Result<(), EvalError> {
        self.fits(var, size as u64)?;
        self.left -= size as u64;
        Ok(())
    }
}

/// Evaluate `nodes`, appending to `out`, within `budget`.
pub fn eval_nodes(
    nodes: &[Node],
    lookup: Lookup,
    out: &mut Vec<u8>,
    budget: &mut Budget,
) -> Result<(), EvalError> {
    for node in nodes {
        match node {
            Node::Text(t) => out.extend_from_slice(t),
            Node::Func(f) => out.extend_from_slice(&eval_func(f, lookup, budget)?),
        }
    }
    Ok(())
}

fn eval_func(f: &FuncNode, lookup: Lookup, budget: &mut Budget) -> Result<Vec<u8>, EvalError> {
    let mut args = Vec::with_capacity(f.args.len());
    for a in &f.args {
        let mut buf = Vec::new();
        eval_nodes(std::slice::from_ref(a), lookup, &mut buf, budget)?;
        args.push(buf);
    }
    let value = lookup(&f.param).unwrap_or_default();
    let out = apply_within(&f.name, value.as_bytes(), &args, &f.param, budget)?;
    budget.spend(&f.param, out.len())?;
    Ok(out)
}

/// Apply the function for operator `name` to `v`, with no limit on its result.
pub fn apply(name: &str, v: &[u8], args: &[Vec<u8>]) -> Result<Vec<u8>, GoPanic> {
    match apply_within(name, v, args, "", &Budget::new(u64::MAX)) {
        Ok(out) => Ok(out),
        Err(EvalError::Panic(p)) => Err(p),
        // No limit is given: neither happens.
        Err(e) => Err(GoPanic(e.message())),
    }
}

/// Apply the function for operator `name` to `v` (the value of `var`). A result that
/// can grow past its input is sized first and refused, before it is built, when it
/// does not fit in `budget`; the others (case mappings, trims, substrings: at most a
/// few times their input, which the input limits bound) are checked once built.
fn apply_within(
    name: &str,
    v: &[u8],
    args: &[Vec<u8>],
    var: &str,
    budget: &Budget,
) -> Result<Vec<u8>, EvalError> {
    let arg = |i: usize| args.get(i).map(Vec::as_slice);
    let len = |b: &[u8]| b.len() as u64;
    // The sizes of the results that can grow, up front.
    let size = match name {
        // One rune changes at most from one byte to three (an invalid byte to U+FFFD).
        "," | "^" => Some(len(v).saturating_add(3)),
        ",," | "^^" => Some(len(v)),
        "/" => Some(replace_args_len(v, args, 1)),
        "//" => Some(replace_args_len(v, args, -1)),
        "/#" | "/%" => Some(match args {
            [old, new] => len(v).saturating_sub(len(old)).saturating_add(len(new)),
            _ => len(v),
        }),
        "#" | "##" | "%" | "%%" | ":" => None,
        _ if v.is_empty() => Some(args.iter().map(|a| len(a)).sum()),
        _ => Some(len(v)),
    };
    if let Some(size) = size {
        budget.fits(var, size)?;
    }
    let out = match name {
        "," => map_first(v, gostr::to_lower),
        ",," => map_runes(v, gostr::to_lower),
        "^" => map_first(v, gostr::to_upper),
        "^^" => map_runes(v, gostr::to_upper),
        "#" if args.is_empty() => v.len().to_string().into_bytes(),
        "#" | "##" | "%" | "%%" => {
            let which = if name.len() == 1 { Shortest } else { Longest };
            let cap = budget.steps.saturating_mul(64);
            let trimmed = if name.starts_with('#') {
                trim_prefix(v, arg(0), which, cap)
            } else {
                trim_suffix(v, arg(0), which, cap)
            };
            trimmed.ok_or_else(|| EvalError::TooMuchWork {
                var: var.to_string(),
                limit: budget.steps,
            })?
        }
        ":" => substr(v, args)?,
        "/" => replace_n(v, args, 1),
        "//" => replace_n(v, args, -1),
        "/#" => replace_prefix(v, args),
        "/%" => replace_suffix(v, args),
        _ => default(v, args),
    };
    budget.fits(var, len(&out))?;
    Ok(out)
}

/// The length of `${V/old/new}` (`n` = 1) or `${V//old/new}` (`n` = -1).
fn replace_args_len(s: &[u8], args: &[Vec<u8>], n: i64) -> u64 {
    match args {
        [] => s.len() as u64,
        [old] => gostr::replace_len(s, old, b"", n),
        [old, new, ..] => gostr::replace_len(s, old, new, n),
    }
}

/// `:=` `:-` `:?` `:+` `=` and any unknown operator: the value if it is not
/// empty, else the arguments joined.
fn default(v: &[u8], args: &[Vec<u8>]) -> Vec<u8> {
    if v.is_empty() && !args.is_empty() {
        args.concat()
    } else {
        v.to_vec()
    }
}

/// `${V:pos}` / `${V:pos:len}` on byte offsets. A non-numeric pos or len
/// returns the value. A negative len that reaches before pos is a Go panic.
fn substr(s: &[u8], args: &[Vec<u8>]) -> Result<Vec<u8>, GoPanic> {
    let Some(pos_arg) = args.first() else {
        return Ok(s.to_vec());
    };
    let Some(mut pos) = atoi(pos_arg) else {
        return Ok(s.to_vec());
    };
    // Lengths fit in i64 (Go's int), so these casts are lossless.
    let n = s.len() as i64;
    if pos < 0 {
        pos = (n + pos).max(0);
    }
    let tail = |pos: i64| {
        if pos < n {
            s[pos as usize..].to_vec()
        } else {
            Vec::new()
        }
    };
    let Some(len_arg) = args.get(1) else {
        return Ok(tail(pos));
    };
    let Some(length) = atoi(len_arg) else {
        return Ok(s.to_vec());
    };
    let end = pos.wrapping_add(length); // Go's int arithmetic wraps.
    if end >= n {
        return Ok(tail(pos));
    }
    if end < 0 {
        return Err(GoPanic(format!(
            "runtime error: slice bounds out of range [:{end}]"
        )));
    }
    if end < pos {
        return Err(GoPanic(format!(
            "runtime error: slice bounds out of range [{pos}:{end}]"
        )));
    }
    Ok(s[pos as usize..end as usize].to_vec())
}

fn replace_n(s: &[u8], args: &[Vec<u8>], n: i64) -> Vec<u8> {
    match args {
        [] => s.to_vec(),
        [old] => replace(s, old, b"", n),
        [old, new, ..] => replace(s, old, new, n),
    }
}

/// `/#`: needs both pattern and replacement, else returns the value.
fn replace_prefix(s: &[u8], args: &[Vec<u8>]) -> Vec<u8> {
    match args {
        [old, new] if s.starts_with(old) => replace(s, old, new, 1),
        _ => s.to_vec(),
    }
}

/// `/%`: needs both pattern and replacement, else returns the value.
fn replace_suffix(s: &[u8], args: &[Vec<u8>]) -> Vec<u8> {
    match args {
        [old, new] if s.ends_with(old) => {
            let mut out = s[..s.len() - old.len()].to_vec();
            out.extend_from_slice(new);
            out
        }
        _ => s.to_vec(),
    }
}

#[derive(Clone, Copy)]
enum Which {
    Shortest,
    Longest,
}
use Which::{Longest, Shortest};

/// Remove the shortest or longest prefix matching the glob `pattern`.
/// Prefixes are cut at any byte; the empty prefix is never tried. A bad
/// pattern leaves the value unchanged.
fn trim_prefix(s: &[u8], pattern: Option<&[u8]>, which: Which, cap: u64) -> Option<Vec<u8>> {
    let Some(pattern) = pattern else {
        return Some(s.to_vec());
    };
    let mut cut = 0;
    let mut work = 0u64;
    // Longest first, as Go iterates.
    for end in (1..=s.len()).rev() {
        let m = glob::matches_counting(pattern, &s[..end], &mut work);
        if work > cap {
            return None;
        }
        match m {
            Err(_) => return Some(s.to_vec()),
            Ok(true) => {
                cut = end;
                if let Longest = which {
                    break;
                }
            }
            Ok(false) => {}
        }
    }
    Some(s[cut..].to_vec())
}

/// Suffix trimming, done as drone does: reverse value and pattern rune-wise
/// (invalid bytes become U+FFFD), trim the prefix, reverse back.
fn trim_suffix(s: &[u8], pattern: Option<&[u8]>, which: Which, cap: u64) -> Option<Vec<u8>> {
    let Some(pattern) = pattern else {
        return Some(s.to_vec());
    };
    Some(reverse(&trim_prefix(
        &reverse(s),
        Some(&reverse(pattern)),
        which,
        cap,
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ap(name: &str, v: &str, args: &[&str]) -> String {
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        match apply(name, v.as_bytes(), &args) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(GoPanic(m)) => format!("panic: {m}"),
        }
    }

    #[test]
    fn a_trim_that_would_compare_too_many_bytes_is_refused_naming_the_variable() {
        // `${X%b*}` on a value without `b`: every suffix is tried, each scanned whole.
        let v = vec![b'a'; 20_000];
        let args = [b"b*".to_vec()];
        let small = Budget {
            steps: 1000,
            ..Budget::new(u64::MAX)
        };
        let e = apply_within("%", &v, &args, "X", &small).unwrap_err();
        assert_eq!(
            e.message(),
            "substitution of ${X}: matching its pattern: more than 1000 steps is over the template execution limit of 1000 steps (raise it with --max-template-steps)"
        );
        // Within the limit (or with none), drone's result: nothing trimmed.
        assert_eq!(apply("%", &v, &args).unwrap(), v);
        let enough = Budget {
            steps: 10_000_000,
            ..Budget::new(u64::MAX)
        };
        assert_eq!(apply_within("%", &v, &args, "X", &enough).unwrap(), v);
        assert_eq!(ap("%", "abcabc", &["b*"]), "abca");
        assert_eq!(ap("%%", "abcabc", &["b*"]), "a");
    }

    #[test]
    fn all_default_operators_behave_alike() {
        for op in [":=", ":-", ":?", ":+", "=", ""] {
            assert_eq!(ap(op, "set", &["alt"]), "set");
            assert_eq!(ap(op, "", &["a", "b"]), "ab");
        }
        assert_eq!(ap(",^", "Abc", &[]), "Abc");
    }

    #[test]
    fn case_functions_use_go_simple_mapping() {
        assert_eq!(ap("^", "élan", &[]), "Élan");
        assert_eq!(ap("^^", "straße", &[]), "STRAßE");
        assert_eq!(ap(",", "ABC", &[]), "aBC");
        assert_eq!(ap(",,", "İSTANBUL", &[]), "istanbul");
    }

    #[test]
    fn length_is_in_bytes() {
        assert_eq!(ap("#", "日本", &[]), "6");
        assert_eq!(ap("#", "", &[]), "0");
    }

    #[test]
    fn substring_on_byte_offsets() {
        assert_eq!(ap(":", "abcdef", &["2"]), "cdef");
        assert_eq!(ap(":", "abcdef", &["-2"]), "ef");
        assert_eq!(ap(":", "abcdef", &["-10"]), "abcdef");
        assert_eq!(ap(":", "abcdef", &["1", "2"]), "bc");
        assert_eq!(ap(":", "abcdef", &["4", "10"]), "ef");
        assert_eq!(ap(":", "abcdef", &["9", "1"]), "");
        assert_eq!(ap(":", "abcdef", &["x"]), "abcdef");
        assert_eq!(ap(":", "abcdef", &["1", "x"]), "abcdef");
        assert_eq!(ap(":", "abcdef", &["1", "0"]), "");
        let cut = apply(":", "日本".as_bytes(), &[b"1".to_vec(), b"2".to_vec()]);
        assert_eq!(cut, Ok(vec![0x97, 0xA5]));
    }

    #[test]
    fn negative_lengths_reproduce_go_panics() {
        assert_eq!(
            ap(":", "abcdef", &["2", "-1"]),
            "panic: runtime error: slice bounds out of range [2:1]"
        );
        assert_eq!(
            ap(":", "abcdef", &["0", "-3"]),
            "panic: runtime error: slice bounds out of range [:-3]"
        );
        assert_eq!(
            ap(":", "abc", &["1", "9223372036854775807"]),
            "panic: runtime error: slice bounds out of range [:-9223372036854775808]"
        );
    }

    #[test]
    fn trims_with_globs() {
        assert_eq!(ap("#", "a/b/c", &["*/"]), "b/c");
        assert_eq!(ap("##", "a/b/c", &["*/"]), "c");
        assert_eq!(ap("%", "f.tar.gz", &[".*"]), "f.tar");
        assert_eq!(ap("%%", "f.tar.gz", &[".*"]), "f");
        assert_eq!(ap("#", "abc", &["["]), "abc"); // bad pattern
        assert_eq!(ap("##", "abc", &["*"]), "");
        assert_eq!(ap("#", "abc", &["*"]), "bc");
    }

    fn within(text: &str, value: &str, limit: u64) -> Result<Vec<u8>, EvalError> {
        let t = crate::envsubst::parse(text).unwrap();
        t.execute_bytes_within(&|_| Some(value.to_string()), Budget::new(limit))
    }

    #[test]
    fn replace_all_is_sized_before_it_is_built() {
        // 1 MiB of `a`, each replaced by 1,000 bytes: 1 GB, refused before any of it
        // is allocated (Go builds it; we stop at the limit).
        let value = "a".repeat(1 << 20);
        let text = format!("${{X//a/{}}}", "b".repeat(1000));
        let e = within(&text, &value, 16 << 20).unwrap_err();
        assert_eq!(
            e,
            EvalError::TooLarge {
                var: "X".into(),
                amount: 1000 << 20,
                limit: 16 << 20
            }
        );
        let m = e.message();
        assert!(
            m.starts_with("substitution of ${X}: 1048576000 bytes"),
            "{m}"
        );
        assert!(m.contains("--max-template-bytes"), "{m}");
        // An empty pattern matches before every rune and at the end.
        assert_eq!(gostr::replace_len("é1".as_bytes(), b"", b"--", -1), 9);
        assert_eq!(gostr::replace_len(b"aaa", b"aa", b"x", -1), 2);
        assert_eq!(gostr::replace_len(b"aaa", b"a", b"xy", 2), 5);
    }

    #[test]
    fn every_substitution_counts_against_one_budget() {
        // Each `${X}` is 10 bytes: nine fit in 95, the tenth does not.
        let ok = "${X}".repeat(9);
        assert_eq!(within(&ok, "0123456789", 95).map(|b| b.len()), Ok(90));
        let e = within(&"${X}".repeat(10), "0123456789", 95).unwrap_err();
        assert!(
            matches!(e, EvalError::TooLarge { amount: 100, .. }),
            "{e:?}"
        );
        // Nested results count too, and each operator's result is checked.
        for text in [
            "${A:=${X}${X}}",
            "${X^^}${X^^}",
            "${X/#0/0123456789}",
            "${X/%9/0123456789}",
            "${X:0}${X:0}",
            "${X#0}${X%9}",
        ] {
            assert!(within(text, "0123456789", 15).is_err(), "{text}");
            assert!(within(text, "0123456789", 40).is_ok(), "{text}");
        }
        // The process-wide limit applies to `process`, naming the variable.
        let value = "a".repeat(1 << 20);
        let text = format!("k: ${{SECRET//a/{}}}", "b".repeat(1000));
        let e = crate::envsubst::process(&text, &|_| Some(value.clone())).unwrap_err();
        assert!(e.message().contains("substitution of ${SECRET}"), "{e}");
        assert!(e.message().contains("template output limit"), "{e}");
    }

    #[test]
    fn replacements() {
        assert_eq!(ap("/", "aXbXc", &["X", "-"]), "a-bXc");
        assert_eq!(ap("//", "aXbXc", &["X", "-"]), "a-b-c");
        assert_eq!(ap("//", "aXbXc", &["X"]), "abc");
        assert_eq!(ap("/#", "abc", &["a", "Z"]), "Zbc");
        assert_eq!(ap("/#", "abc", &["a"]), "abc");
        assert_eq!(ap("/%", "abc", &["c", "Z"]), "abZ");
        assert_eq!(ap("/%", "abc", &["b", "Z"]), "abc");
        assert_eq!(ap("/", "ba$r", &["$", "${A}"]), "ba${A}r");
    }
}
