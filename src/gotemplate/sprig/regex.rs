//! sprig regex functions over Go RE2 syntax, run with the `regex` crate.
//! Go's `\d \w \s \b` (and their negations) are ASCII-only; they are rewritten
//! to ASCII classes before compiling. Compile errors carry the crate's text,
//! not Go's (see differences.txt).

use regex::Regex;

/// Translate Go RE2 syntax to the `regex` crate's.
fn translate(pat: &str) -> String {
    let mut out = String::with_capacity(pat.len() + 16);
    let mut chars = pat.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(n) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let rep = match (n, in_class) {
                    ('d', false) => Some("[0-9]"),
                    ('D', false) => Some("[^0-9]"),
                    ('w', false) => Some("[0-9A-Za-z_]"),
                    ('W', false) => Some("[^0-9A-Za-z_]"),
                    ('s', false) => Some("[\\t\\n\\f\\r ]"),
                    ('S', false) => Some("[^\\t\\n\\f\\r ]"),
                    ('b', false) => Some("(?-u:\\b)"),
                    ('B', false) => Some("(?-u:\\B)"),
                    ('d', true) => Some("0-9"),
                    ('w', true) => Some("0-9A-Za-z_"),
                    ('s', true) => Some("\\t\\n\\f\\r "),
                    _ => None,
                };
                match rep {
                    Some(r) => out.push_str(r),
                    None => {
                        out.push('\\');
                        out.push(n);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A leading ']' (or '^]') is literal.
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    out.push_str("\\]");
                    chars.next();
                }
            }
            '[' if in_class && chars.peek() == Some(&':') => {
                out.push('[');
                // POSIX class [:alpha:]: copy through the closing ":]".
                for d in chars.by_ref() {
                    out.push(d);
                    if d == ']' {
                        break;
                    }
                }
            }
            '[' => out.push_str("\\["),
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

fn compile(pat: &str) -> Result<Regex, String> {
    crate::topology::variables::go_regex::builder(&translate(pat))
        .build()
        .map_err(|e| {
            let m = e.to_string();
            let why = m.lines().last().unwrap_or("").trim_start_matches("error: ");
            // Go's texts for the common mistakes; the crate's otherwise.
            let go = match why {
                "unclosed group" => format!("missing closing ): `{pat}`"),
                "unopened group" => format!("unexpected ): `{pat}`"),
                "repetition operator missing expression" => {
                    "missing argument to repetition operator".to_string()
                }
                w => crate::topology::variables::go_regex::size_limit_note(w),
            };
            format!("error parsing regexp: {go}")
        })
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
