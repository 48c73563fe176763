//! `strconv.Quote` and friends: printable runes (Go's `strconv.IsPrint`) as they are,
//! everything else escaped as Go escapes it.

use super::isprint::PRINT;

/// `strconv.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII
/// space (so not U+00A0, U+200B, U+FEFF, unassigned or private-use code points).
pub fn is_print(c: char) -> bool {
    let c = c as u32;
    // The first index of a pair whose upper bound is >= c.
    let pairs = PRINT.len() / 2;
    let (mut lo, mut hi) = (0usize, pairs);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if PRINT[2 * mid + 1] < c {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo < pairs && PRINT[2 * lo] <= c
}

/// `strconv.Quote` (Go's `%q` of a string).
pub fn quote(s: &str) -> String {
    quote_with(s, '"', false)
}

/// `strconv.Quote` (`q` = `"`), `QuoteToASCII` (`ascii`) and `QuoteRune` (`q` = `'`).
pub fn quote_with(s: &str, q: char, ascii: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        push_escaped(&mut out, c, q, ascii);
    }
    out.push(q);
    out
}

/// One character of a quoted string (quote `q`) as `strconv.Quote` writes it.
pub fn push_escaped(out: &mut String, c: char, q: char, ascii: bool) {
    if c == q || c == '\\' {
        out.push('\\');
        out.push(c);
        return;
    }
    if (!ascii || c.is_ascii()) && is_print(c) {
        out.push(c);
        return;
    }
    match c {
        '\x07' => out.push_str("\\a"),
        '\x08' => out.push_str("\\b"),
        '\x0c' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\x0b' => out.push_str("\\v"),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
        c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push_str(&format!("\\U{:08x}", c as u32)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_as_go_does() {
        // Each expected text is what Go's strconv.Quote prints (go1.26, Unicode 15).
        for (s, want) in [
            ("a\u{200b}b", r#""a\u200bb""#),
            ("nb\u{a0}sp", r#""nb\u00a0sp""#),
            ("soft\u{ad}hy", r#""soft\u00adhy""#),
            ("bom\u{feff}", r#""bom\ufeff""#),
            ("e\u{301}", "\"e\u{301}\""),
            ("tab\tq\"\\", r#""tab\tq\"\\""#),
            ("\u{85}\u{2028}", r#""\u0085\u2028""#),
            ("\u{1F600}", "\"\u{1F600}\""),
            ("\u{E0001}", r#""\U000e0001""#),
            ("\u{378}", r#""\u0378""#),
            ("\u{10FFFF}", r#""\U0010ffff""#),
            ("\0\x7f", r#""\x00\x7f""#),
        ] {
            assert_eq!(quote(s), want, "{s:?}");
        }
    }

    #[test]
    fn ascii_and_rune_forms() {
        assert_eq!(quote_with("é\u{1F600}", '"', true), r#""\u00e9\U0001f600""#);
        assert_eq!(quote_with("'", '\'', false), r"'\''");
    }

    #[test]
    fn print_table_edges() {
        assert!(is_print(' ') && is_print('~') && !is_print('\u{7f}'));
        assert!(!is_print('\u{a0}') && is_print('\u{a1}'));
        assert!(is_print('\u{E0100}') && is_print('\u{E01EF}') && !is_print('\u{E01F0}'));
        assert!(!is_print('\u{10FFFF}'));
    }
}
