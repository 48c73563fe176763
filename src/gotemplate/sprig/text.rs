//! sprig string helpers with Go's byte-indexed slicing and `strings` /
//! goutils / `path` semantics.

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::gotemplate::value::{Elem, Value};

/// `s[a..b]` on bytes; a cut inside a UTF-8 sequence is replaced (Go would
/// keep the raw bytes).
fn byte_slice(s: &str, a: usize, b: usize) -> String {
    String::from_utf8_lossy(&s.as_bytes()[a..b]).into_owned()
}

fn bounds(a: i64, b: i64, len: usize) -> Result<(), String> {
    if b < 0 || b as u64 > len as u64 {
        return Err(format!(
            "runtime error: slice bounds out of range [:{b}] with length {len}"
        ));
    }
    if a < 0 || a > b {
        return Err(format!(
            "runtime error: slice bounds out of range [{a}:{b}]"
        ));
    }
    Ok(())
}

pub fn trunc(c: i64, s: &str) -> String {
    let n = s.len() as i64;
    if c < 0 && n + c > 0 {
        return byte_slice(s, (n + c) as usize, s.len());
    }
    if c >= 0 && n > c {
        return byte_slice(s, 0, c as usize);
    }
    s.to_string()
}

pub fn substr(start: i64, end: i64, s: &str) -> Result<String, String> {
    let n = s.len();
    if start < 0 {
        bounds(0, end, n)?;
        return Ok(byte_slice(s, 0, end as usize));
    }
    if end < 0 || end as u64 > n as u64 {
        if start as u64 > n as u64 {
            return Err(format!(
                "runtime error: slice bounds out of range [{start}:{n}]"
            ));
        }
        return Ok(byte_slice(s, start as usize, n));
    }
    bounds(start, end, n)?;
    Ok(byte_slice(s, start as usize, end as usize))
}

use crate::gotemplate::budget;

pub fn repeat(s: &str, count: i64) -> Result<String, String> {
    if count < 0 {
        return Err("strings: negative Repeat count".into());
    }
    budget::fits((s.len() as u128) * (count as u128))?;
    Ok(s.repeat(count as usize))
}

/// sprig's `indent` (`nindent`: `newline` first): `spaces` blanks before every line.
/// Its size (lines × width) is checked before it is built.
pub fn indent(spaces: i64, v: &str, newline: bool) -> Result<String, String> {
    let pad = repeat(" ", spaces)?;
    let lines = memchr::memchr_iter(b'\n', v.as_bytes()).count() as u128 + 1;
    budget::fits(v.len() as u128 + lines * pad.len() as u128 + u128::from(newline))?;
    let mut out = String::with_capacity(v.len() + lines as usize * pad.len() + 1);
    if newline {
        out.push('\n');
    }
    for (i, line) in v.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&pad);
        out.push_str(line);
    }
    Ok(out)
}

/// `strings.Replace(s, old, new, -1)` (sprig's `replace`), its size checked before
/// it is built: the matches counted, times the replacement's length.
pub fn replace_all(s: &str, old: &str, new: &str) -> Result<String, String> {
    let matches = if old.is_empty() {
        // An empty `old` matches at the start and after each character.
        s.chars().count() as u128 + 1
    } else {
        s.matches(old).count() as u128
    };
    let size = s.len() as u128 - matches * old.len() as u128 + matches * new.len() as u128;
    budget::fits(size)?;
    Ok(s.replace(old, new))
}

/// Go's unicode.ToUpper per rune (simple case mapping).
fn map_case(s: &str, upper: bool) -> String {
    s.chars()
        .map(|c| {
            let mut m: Vec<char> = if upper {
                c.to_uppercase().collect()
            } else {
                c.to_lowercase().collect()
            };
            if m.len() == 1 {
                m.pop().unwrap_or(c)
            } else {
                c
            }
        })
        .collect()
}

pub fn upper(s: &str) -> String {
    map_case(s, true)
}

pub fn lower(s: &str) -> String {
    map_case(s, false)
}

fn is_separator(c: char) -> bool {
    if c.is_ascii() {
        return !(c.is_ascii_alphanumeric() || c == '_');
    }
    if c.is_alphabetic() || c.is_numeric() {
        return false;
    }
    c.is_whitespace()
}

/// strings.Title (deprecated, but what sprig calls).
pub fn title(s: &str) -> String {
    let mut prev = ' ';
    s.chars()
        .map(|c| {
            let out = if is_separator(prev) {
                map_case(&c.to_string(), true)
            } else {
                c.to_string()
            };
            prev = c;
            out
        })
        .collect()
}

/// goutils.Uncapitalize.
pub fn untitle(s: &str) -> String {
    let mut prev_space = true;
    s.chars()
        .map(|c| {
            let out = if prev_space {
                map_case(&c.to_string(), false)
            } else {
                c.to_string()
            };
            prev_space = c.is_whitespace();
            out
        })
        .collect()
}

/// goutils.SwapCase.
pub fn swapcase(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_uppercase() {
                map_case(&c.to_string(), false)
            } else if c.is_lowercase() {
                map_case(&c.to_string(), true)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// goutils.Initials.
pub fn initials(s: &str) -> String {
    s.split(char::is_whitespace)
        .filter_map(|w| w.chars().next())
        .collect()
}

/// goutils.AbbreviateFull.
fn abbreviate_full(s: &str, mut offset: i64, max: i64) -> String {
    let n = s.len() as i64;
    if s.is_empty() || max < 4 {
        return String::new();
    }
    if n <= max {
        return s.to_string();
    }
    if offset > n {
        offset = n;
    }
    if n - offset < max - 3 {
        offset = n - (max - 3);
    }
    if offset <= 4 {
        return format!("{}...", byte_slice(s, 0, (max - 3) as usize));
    }
    if max < 7 {
        return String::new();
    }
    if offset + max - 3 < n {
        let rest = byte_slice(s, (offset + max - 3) as usize, s.len());
        return format!("...{}", abbreviate_full(&rest, 0, max - 3));
    }
    format!("...{}", byte_slice(s, (n - (max - 3)) as usize, s.len()))
}

pub fn abbrev(width: i64, s: &str) -> String {
    if width < 4 {
        return s.to_string();
    }
    abbreviate_full(s, 0, width)
}

pub fn abbrevboth(left: i64, right: i64, s: &str) -> String {
    if right < 4 || left > 0 && right < 7 {
        return s.to_string();
    }
    abbreviate_full(s, left, right)
}

/// strings.SplitN(s, sep, n).
pub fn go_split(s: &str, sep: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    if sep.is_empty() {
        let chars: Vec<String> = s.chars().map(|c| c.to_string()).collect();
        if n > 0 && (n as usize) < chars.len() {
            let mut out: Vec<String> = chars[..n as usize - 1].to_vec();
            let used: usize = out.iter().map(|c| c.len()).sum();
            out.push(s[used..].to_string());
            return out;
        }
        return chars;
    }
    if n < 0 {
        s.split(sep).map(str::to_string).collect()
    } else {
        s.splitn(n as usize, sep).map(str::to_string).collect()
    }
}

/// sprig `split`/`splitn`: `map[string]string` with keys `_0`, `_1`, ...
pub fn split_map(s: &str, sep: &str, n: i64) -> Value {
    let m: BTreeMap<String, Value> = go_split(s, sep, n)
        .into_iter()
        .enumerate()
        .map(|(i, p)| (format!("_{i}"), Value::str(p)))
        .collect();
    Value::Map(Rc::new(m), Elem::Str)
}

/// path.Clean.
pub fn path_clean(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let body = parts.join("/");
    match (rooted, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".into(),
        (false, false) => body,
    }
}

/// path.Base.
pub fn path_base(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return "/".into();
    }
    t.rsplit('/').next().unwrap_or(t).to_string()
}

/// path.Dir.
pub fn path_dir(p: &str) -> String {
    let dir = match p.rfind('/') {
        Some(i) => &p[..=i],
        None => "",
    };
    path_clean(dir)
}

/// path.Ext.
pub fn path_ext(p: &str) -> String {
    for (i, c) in p.char_indices().rev() {
        if c == '/' {
            break;
        }
        if c == '.' {
            return p[i..].to_string();
        }
    }
    String::new()
}

/// sprig `duration`: seconds (a string or an int64) as time.Duration.String().
pub fn duration(v: &Value) -> String {
    let secs: i64 = match v {
        Value::Str(s) => s.parse().unwrap_or(0),
        Value::Int(i, crate::gotemplate::value::IntTy::Int64) => *i,
        _ => 0,
    };
    let Some(ns) = secs.checked_mul(1_000_000_000) else {
        return "capi-render: duration overflow".into();
    };
    go_duration(ns)
}

fn go_duration(ns: i64) -> String {
    if ns == 0 {
        return "0s".into();
    }
    let neg = ns < 0;
    let u = ns.unsigned_abs();
    let mut out = String::new();
    if u < 1_000_000_000 {
        // Sub-second values never arise from whole seconds.
        out.push_str(&format!("{u}ns"));
    } else {
        let secs = u / 1_000_000_000;
        let frac = u % 1_000_000_000;
        let (h, m, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
        if h > 0 {
            out.push_str(&format!("{h}h"));
        }
        if h > 0 || m > 0 {
            out.push_str(&format!("{m}m"));
        }
        out.push_str(&s.to_string());
        if frac > 0 {
            let f = format!("{frac:09}");
            out.push('.');
            out.push_str(f.trim_end_matches('0'));
        }
        out.push('s');
    }
    if neg {
        out.insert(0, '-');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slicing_follows_go() {
        assert_eq!(trunc(5, "Hello World"), "Hello");
        assert_eq!(trunc(-3, "Hello World"), "rld");
        assert_eq!(substr(0, 5, "Hello World").unwrap(), "Hello");
        assert_eq!(substr(6, -1, "Hello World").unwrap(), "World");
        assert_eq!(
            substr(3, 1, "Hello").unwrap_err(),
            "runtime error: slice bounds out of range [3:1]"
        );
    }

    #[test]
    fn case_and_title() {
        assert_eq!(title("hello wORLD foo-bar"), "Hello WORLD Foo-Bar");
        assert_eq!(upper("straße"), "STRAßE");
        assert_eq!(untitle("Hello World"), "hello world");
    }

    #[test]
    fn paths() {
        assert_eq!(path_clean("a//b/../c"), "a/c");
        assert_eq!(path_dir("/a/b/c.txt"), "/a/b");
        assert_eq!(path_base("/a/b/c.txt"), "c.txt");
        assert_eq!(path_ext("x.tar.gz"), ".gz");
        assert_eq!(path_base(""), ".");
    }

    #[test]
    fn splitting() {
        assert_eq!(go_split("a,b,,c", ",", -1), vec!["a", "b", "", "c"]);
        assert_eq!(go_split("a,b,,c", ",", 2), vec!["a", "b,,c"]);
        assert_eq!(go_split("abc", "", -1), vec!["a", "b", "c"]);
    }

    #[test]
    fn durations() {
        assert_eq!(duration(&Value::str("3600")), "1h0m0s");
        assert_eq!(duration(&Value::int64(95)), "1m35s");
        assert_eq!(duration(&Value::Float(95.0)), "0s");
    }

    #[test]
    fn abbreviations() {
        assert_eq!(abbrev(8, "Hello World"), "Hello...");
        assert_eq!(abbrevboth(3, 8, "1234567890abc"), "12345...");
    }
}
