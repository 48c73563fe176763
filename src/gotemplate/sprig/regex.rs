//! sprig regex functions over Go RE2 syntax ([`crate::go::regex`]: compiled with the
//! `regex` crate after Go's ASCII Perl classes are rewritten; compile errors in Go's
//! words for the common mistakes, the crate's otherwise, see differences.txt).

use regex::Regex;

use crate::gotemplate::budget;

fn compile(pat: &str) -> Result<Regex, String> {
    crate::go::regex::compile(pat).map_err(|e| crate::go::regex::go_error(pat, &e))
}

pub fn is_match(pat: &str, s: &str) -> Result<bool, String> {
    Ok(compile(pat)?.is_match(s))
}

pub fn find(pat: &str, s: &str) -> Result<String, String> {
    Ok(compile(pat)?
        .find(s)
        .map(|m| m.as_str().to_string())
        .unwrap_or_default())
}

pub fn find_all(pat: &str, s: &str, n: i64) -> Result<Vec<String>, String> {
    let re = compile(pat)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let it = re.find_iter(s).map(|m| m.as_str().to_string());
    Ok(if n < 0 {
        it.collect()
    } else {
        it.take(n as usize).collect()
    })
}

/// `ReplaceAllString` (`$name` / `${name}` expanded) or `ReplaceAllLiteralString`.
/// The text is built match by match, each replacement sized before it is written (an
/// empty pattern matches at every position, `$0` repeats the match), within
/// `--max-template-bytes`.
pub fn replace_all(pat: &str, s: &str, repl: &str, literal: bool) -> Result<String, String> {
    let re = compile(pat)?;
    let refs = if literal {
        Vec::new()
    } else {
        group_refs(&re, repl)
    };
    let limit = u128::from(budget::limit());
    let mut out = String::new();
    let mut last = 0;
    for caps in re.captures_iter(s) {
        let Some(m) = caps.get(0) else { continue };
        // An upper bound of this replacement: all of `repl`, plus each group
        // reference's text.
        let groups: u128 = refs
            .iter()
            .map(|&(i, n)| caps.get(i).map_or(0, |g| g.len() as u128) * n)
            .sum();
        let size = out.len() as u128 + (m.start() - last) as u128 + repl.len() as u128 + groups;
        if size > limit {
            return Err(budget::too_large(size));
        }
        out.push_str(&s[last..m.start()]);
        if literal {
            out.push_str(repl);
        } else {
            caps.expand(repl, &mut out);
        }
        last = m.end();
    }
    budget::fits(out.len() as u128 + (s.len() - last) as u128)?;
    out.push_str(&s[last..]);
    Ok(out)
}

/// The capture groups `repl` refers to (`$1`, `${name}`, as the regex crate expands
/// them) and how many times each, for sizing a replacement before it is written.
fn group_refs(re: &Regex, repl: &str) -> Vec<(usize, u128)> {
    let mut counts = vec![0u128; re.captures_len()];
    let b = repl.as_bytes();
    let mut i = 0;
    while let Some(at) = memchr::memchr(b'$', &b[i..]).map(|o| i + o) {
        i = at + 1;
        if b.get(i) == Some(&b'$') {
            i += 1;
            continue;
        }
        let name = if b.get(i) == Some(&b'{') {
            match memchr::memchr(b'}', &b[i..]) {
                Some(end) => {
                    let n = &repl[i + 1..i + end];
                    i += end + 1;
                    n
                }
                None => continue,
            }
        } else {
            let len = b[i..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count();
            let n = &repl[i..i + len];
            i += len;
            n
        };
        let index = match name.parse::<usize>() {
            Ok(n) => Some(n),
            Err(_) => re.capture_names().position(|c| c == Some(name)),
        };
        if let Some(c) = index.and_then(|n| counts.get_mut(n)) {
            *c += 1;
        }
    }
    counts
        .into_iter()
        .enumerate()
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// regexp.Split.
pub fn split(pat: &str, s: &str, n: i64) -> Result<Vec<String>, String> {
    let re = compile(pat)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    if !pat.is_empty() && s.is_empty() {
        return Ok(vec![String::new()]);
    }
    let matches: Vec<(usize, usize)> = re.find_iter(s).map(|m| (m.start(), m.end())).collect();
    let mut out = Vec::new();
    let (mut beg, mut end) = (0, 0);
    for (a, b) in matches {
        if n > 0 && out.len() as i64 == n - 1 {
            break;
        }
        end = a;
        if b != 0 {
            out.push(s[beg..end].to_string());
        }
        beg = b;
    }
    if end != s.len() {
        out.push(s[beg..].to_string());
    }
    Ok(out)
}

/// regexp.QuoteMeta.
pub fn quote_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_classes_are_ascii() {
        assert!(!is_match("^\\w+$", "ünï").unwrap());
        assert!(is_match("^\\p{L}+$", "ünï").unwrap());
        assert!(is_match("^[\\d.]+$", "1.25").unwrap());
    }

    #[test]
    fn replacements_are_sized_as_they_grow() {
        let big = "a".repeat(1 << 20);
        // An empty pattern matches at each of a megabyte's positions; `$0` repeats
        // each match a thousand times.
        for (pat, repl) in [
            ("", "0123456789abcdefghij"),
            ("a", "$0".repeat(1000).as_str()),
        ] {
            let e = replace_all(pat, &big, repl, false).unwrap_err();
            assert!(e.contains("template output limit"), "{pat}: {e}");
            assert!(e.contains("--max-template-bytes"), "{pat}: {e}");
        }
        assert!(replace_all("", &big, "0123456789abcdefghij", true).is_err());
        // Group references by number and name are counted; `$$` is not one.
        let re = compile("(?P<x>a)(b)").unwrap();
        assert_eq!(
            group_refs(&re, "$1${x}$$2 ${2}$0$9 $"),
            vec![(0, 1), (1, 2), (2, 1)]
        );
        assert_eq!(
            replace_all("(a)(b)", "abab", "<$2$1$$>", false).unwrap(),
            "<ba$><ba$>"
        );
    }

    #[test]
    fn replacement_templates() {
        assert_eq!(
            replace_all(
                "kube-vip:(v[0-9.]+)",
                "image: kube-vip:v0.6",
                "kube-vip:$1-patched",
                false
            )
            .unwrap(),
            "image: kube-vip:v0.6-patched"
        );
        assert_eq!(
            replace_all("o(.)", "Hello World", "0${1}$1", false).unwrap(),
            "Hell0  W0rrld"
        );
        assert_eq!(replace_all("o", "foo", "$1", true).unwrap(), "f$1$1");
    }

    #[test]
    fn splitting_like_go() {
        assert_eq!(
            split("o", "Hello World", -1).unwrap(),
            vec!["Hell", " W", "rld"]
        );
        assert_eq!(split("a", "", -1).unwrap(), vec![""]);
        assert_eq!(quote_meta("a.b*c"), "a\\.b\\*c");
    }
}
