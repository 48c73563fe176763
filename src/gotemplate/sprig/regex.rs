//! sprig regex functions over Go RE2 syntax ([`crate::go::regex`]: compiled with the
//! `regex` crate after Go's ASCII Perl classes are rewritten; compile errors in Go's
//! words for the common mistakes, the crate's otherwise, see differences.txt).

use regex::Regex;

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

pub fn replace_all(pat: &str, s: &str, repl: &str, literal: bool) -> Result<String, String> {
    let re = compile(pat)?;
    Ok(if literal {
        re.replace_all(s, regex::NoExpand(repl)).into_owned()
    } else {
        re.replace_all(s, repl).into_owned()
    })
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
