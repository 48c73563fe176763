//! Go `regexp` (RE2) semantics on top of the regex crate, for every caller (variable
//! `pattern`s, CEL `matches`, sprig's `regex*`): the Perl classes `\d`, `\w`, `\s` and
//! the word boundary `\b` are ASCII-only in Go but Unicode-aware in the regex crate, so
//! they are rewritten to their ASCII forms before compiling; a `[` inside a bracket is
//! a literal in Go (unless it opens `[:name:]`) but a nested class in the regex crate,
//! so it is escaped; compile errors get Go's text for the common mistakes.

use regex::Regex;

/// Compiles a Go regular expression.
/// The compiled program may take at most `--max-regex-bytes`.
pub fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    builder(&translate(pattern)).build()
}

/// A `RegexBuilder` whose compiled size is capped by `--max-regex-bytes` (patterns
/// come from untrusted ClusterClasses and templates; matching is linear-time anyway).
pub fn builder(pattern: &str) -> regex::RegexBuilder {
    let limit = crate::limits::Limits::current().regex_bytes;
    let mut b = regex::RegexBuilder::new(pattern);
    b.size_limit(usize::try_from(limit).unwrap_or(usize::MAX));
    b
}

/// The flag to name when the regex crate's size limit stopped a pattern.
pub fn size_limit_note(reason: &str) -> String {
    if reason.contains("size limit") {
        format!(
            "{reason} (raise it with {})",
            crate::limits::Limit::RegexBytes.flag()
        )
    } else {
        reason.to_string()
    }
}

/// Go's `regexp.Compile` error text for a pattern the regex crate rejects, for the
/// common mistakes (`missing closing ]`, `missing closing )`, `unexpected )`,
/// `missing argument to repetition operator`, look-around); other errors keep the regex
/// crate's reason after Go's `error parsing regexp: ` prefix.
pub fn go_error(pattern: &str, err: &regex::Error) -> String {
    let text = err.to_string();
    let reason = text
        .lines()
        .last()
        .unwrap_or("")
        .trim()
        .trim_start_matches("error: ")
        .to_string();
    let go = match reason.as_str() {
        "unclosed character class" => {
            let from = pattern.rfind('[').unwrap_or(0);
            format!("missing closing ]: `{}`", &pattern[from..])
        }
        "unclosed group" => format!("missing closing ): `{pattern}`"),
        "unopened group" => format!("unexpected ): `{pattern}`"),
        "repetition operator missing expression" => {
            let op = pattern
                .chars()
                .find(|c| matches!(c, '*' | '+' | '?' | '{'))
                .unwrap_or('*');
            format!("missing argument to repetition operator: `{op}`")
        }
        r if r.starts_with("look-around") => {
            let at = pattern.find("(?").unwrap_or(0);
            format!(
                "invalid or unsupported Perl syntax: `{}`",
                pattern.get(at..at + 3).unwrap_or("")
            )
        }
        r => size_limit_note(r),
    };
    format!("error parsing regexp: {go}")
}

/// Rewrites Go's ASCII-only Perl classes; everything else is passed through.
pub fn translate(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let (bare, negated) = match e {
                    'd' => ("0-9", false),
                    'D' => ("0-9", true),
                    'w' => ("0-9A-Za-z_", false),
                    'W' => ("0-9A-Za-z_", true),
                    's' => ("\\t\\n\\f\\r ", false),
                    'S' => ("\\t\\n\\f\\r ", true),
                    'b' if !in_class => {
                        out.push_str("(?-u:\\b)");
                        continue;
                    }
                    'B' if !in_class => {
                        out.push_str("(?-u:\\B)");
                        continue;
                    }
                    _ => {
                        out.push('\\');
                        out.push(e);
                        continue;
                    }
                };
                if in_class && !negated {
                    out.push_str(bare);
                } else if negated {
                    // Also inside a bracket: the regex crate unites nested classes.
                    out.push_str(&format!("[^{bare}]"));
                } else {
                    out.push_str(&format!("[{bare}]"));
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                // A leading `^` and a leading `]` belong to the class.
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
                // `[:alpha:]` style classes pass through.
                out.push('[');
                for n in chars.by_ref() {
                    out.push(n);
                    if n == ']' {
                        break;
                    }
                }
            }
            // Any other `[` inside a bracket is a literal in Go.
            '[' => out.push_str("\\["),
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_are_ascii() {
        let d = compile(r"^\d+$").unwrap();
        assert!(d.is_match("123"));
        assert!(!d.is_match("١٢٣"));
        assert!(!compile(r"^\w+$").unwrap().is_match("é"));
        assert!(!compile(r"^\s$").unwrap().is_match("\u{a0}"));
        assert!(compile(r"^[\d.]+$").unwrap().is_match("1.2"));
        assert!(!compile(r"^[\d.]+$").unwrap().is_match("١"));
        assert!(compile(r"^\D$").unwrap().is_match("a"));
        assert!(compile(r"^[\Da]$").unwrap().is_match("١"));
        assert!(!compile(r"^[\Da]$").unwrap().is_match("1"));
    }

    #[test]
    fn go_error_texts() {
        let e = |p: &str| go_error(p, &compile(p).unwrap_err());
        assert_eq!(e("[a"), "error parsing regexp: missing closing ]: `[a`");
        assert_eq!(e("(a"), "error parsing regexp: missing closing ): `(a`");
        assert_eq!(e("a)"), "error parsing regexp: unexpected ): `a)`");
        assert_eq!(
            e("*a"),
            "error parsing regexp: missing argument to repetition operator: `*`"
        );
        assert_eq!(
            e("(?=a)"),
            "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"
        );
    }

    #[test]
    fn other_syntax_passes_through() {
        assert_eq!(translate(r"^v[0-9]+\.[a-z]$"), r"^v[0-9]+\.[a-z]$");
        assert_eq!(translate(r"[]a]"), r"[\]a]");
        assert_eq!(translate(r"[[:alpha:]]"), r"[[:alpha:]]");
        // A `[` inside a bracket is a literal, as in Go.
        assert_eq!(translate(r"[a[]"), r"[a\[]");
        assert!(compile(r"^[a[]+$").unwrap().is_match("a[a"));
        assert!(compile(r"\bword\b").unwrap().is_match("a word here"));
        assert!(compile(r"(?i)^ABC\pL$").unwrap().is_match("abcé"));
    }
}
