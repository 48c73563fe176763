//! go-yaml v2's scalar analysis and style choice for the emitter ([`super::emit`]):
//! what a scalar's text allows (plain, single-quoted, literal block), which style a
//! scalar is written in, and the double-quoted escapes.

/// What the emitter may do with a scalar's text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Analysis {
    pub(super) multiline: bool,
    pub(super) block_plain_allowed: bool,
    pub(super) single_quoted_allowed: bool,
    pub(super) block_allowed: bool,
}

/// Printable without escaping in go-yaml's double-quoted writer (`is_printable`).
pub(super) fn is_printable(c: char) -> bool {
    matches!(c as u32, 0x0A | 0x20..=0x7E | 0xA0..=0xD7FF | 0xE000..=0xFFFD) && c != '\u{FEFF}'
}

/// go-yaml's `is_break`: CR, LF, NEL, LS, PS.
pub(super) fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// go-yaml's `is_blankz`: space, tab, a break or NUL.
pub(super) fn is_blankz(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\0') || is_break(c)
}

/// Indicators and whitespace observed in a scalar.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Scan {
    pub(super) block_indicators: bool,
    pub(super) line_breaks: bool,
    pub(super) special: bool,
    pub(super) leading_space: bool,
    pub(super) leading_break: bool,
    pub(super) trailing_space: bool,
    pub(super) trailing_break: bool,
    pub(super) break_space: bool,
    pub(super) space_break: bool,
}

/// Whether every byte of `value` is an ASCII letter, digit or one of `_./:-`: the
/// scan of such a text (names, versions, image references) has only what
/// [`scan_word`] finds.
fn is_word(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b':' | b'-'))
}

/// A text that go-yaml writes plain and as it is, known in one pass: a non-empty
/// [`is_word`] text that starts with a letter and does not end with `:`. Its scan is
/// empty (no space, break, special character, and, by its first and last byte, no
/// indicator: see [`scan_word`]), so the style stays plain; whether it resolves to a
/// string (a word of the fixed table, like `true` or `No`, does not) is the caller's.
pub(super) fn is_letter_word(value: &str) -> bool {
    let b = value.as_bytes();
    b.first().is_some_and(u8::is_ascii_alphabetic) && b.last() != Some(&b':') && is_word(value)
}

/// [`scan`] of a non-empty [`is_word`] text: no space, break or special character; an
/// indicator only as a document marker, a lone `-`, or a final `:`.
fn scan_word(value: &str) -> Scan {
    Scan {
        block_indicators: value.starts_with("---")
            || value.starts_with("...")
            || value == "-"
            || value.ends_with(':'),
        ..Scan::default()
    }
}

pub(super) fn scan(value: &str) -> Scan {
    if !value.is_empty() && is_word(value) {
        return scan_word(value);
    }
    scan_chars(value)
}

/// Where the scan stands between two characters.
struct Walk {
    preceded_by_ws: bool,
    prev_space: bool,
    prev_break: bool,
}

impl Walk {
    fn new() -> Walk {
        Walk {
            preceded_by_ws: true,
            prev_space: false,
            prev_break: false,
        }
    }

    /// What character `c` adds to the scan (`first`/`last` in the text, and whether a
    /// space or tab follows it).
    fn step(&mut self, s: &mut Scan, c: char, first: bool, last: bool, followed_by_ws: bool) {
        s.block_indicators |= match c {
            '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%'
            | '@' | '`' => first,
            '?' => first && followed_by_ws,
            ':' => followed_by_ws,
            '-' => first && followed_by_ws,
            _ => false,
        } || (c == '#' && !first && self.preceded_by_ws);
        s.special |= !is_printable(c);
        if c == ' ' {
            s.leading_space |= first;
            s.trailing_space |= last;
            s.break_space |= self.prev_break;
            (self.prev_space, self.prev_break) = (true, false);
        } else if is_break(c) {
            s.line_breaks = true;
            s.leading_break |= first;
            s.trailing_break |= last;
            s.space_break |= self.prev_space;
            (self.prev_space, self.prev_break) = (false, true);
        } else {
            (self.prev_space, self.prev_break) = (false, false);
        }
        self.preceded_by_ws = is_blankz(c);
    }
}

fn scan_start(value: &str) -> Scan {
    Scan {
        block_indicators: value.starts_with("---") || value.starts_with("..."),
        ..Scan::default()
    }
}

/// ASCII bytes that change nothing in a scan but end the run of whitespace before them:
/// printable, not a space, and no indicator in any place.
const QUIET: [bool; 128] = {
    let mut t = [false; 128];
    let mut c = 0x21;
    while c < 0x7F {
        t[c] = true;
        c += 1;
    }
    let loud = b"#,[]{}&*!|>'\"%@`?:-";
    let mut k = 0;
    while k < loud.len() {
        t[loud[k] as usize] = false;
        k += 1;
    }
    t
};

fn is_quiet(b: u8) -> bool {
    QUIET.get(b as usize).copied().unwrap_or(false)
}

/// The full scan, over bytes: an ASCII byte is its own character, and only a
/// multi-byte character is decoded. A run of [`QUIET`] bytes (most of a description's
/// prose) is passed over at once: each would only clear the walk's whitespace state.
fn scan_chars(value: &str) -> Scan {
    let mut s = scan_start(value);
    let mut w = Walk::new();
    let b = value.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if is_quiet(b[i]) {
            while i < b.len() && is_quiet(b[i]) {
                i += 1;
            }
            (w.preceded_by_ws, w.prev_space, w.prev_break) = (false, false, false);
            continue;
        }
        if b[i] == b' ' {
            // What `step` does with a space (prose has one every few bytes).
            s.leading_space |= i == 0;
            i += 1;
            s.trailing_space |= i == b.len();
            s.break_space |= w.prev_break;
            (w.preceded_by_ws, w.prev_space, w.prev_break) = (true, true, false);
            continue;
        }
        let (c, len) = if b[i].is_ascii() {
            (b[i] as char, 1)
        } else {
            let c = value[i..].chars().next().unwrap_or('\u{FFFD}');
            (c, c.len_utf8())
        };
        let first = i == 0;
        i += len;
        let last = i == b.len();
        // Only ASCII space and tab count, so the next byte tells.
        let followed_by_ws = last || matches!(b[i], b' ' | b'\t');
        w.step(&mut s, c, first, last, followed_by_ws);
    }
    s
}

pub(super) fn analyze(value: &str) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let s = scan(value);
    let edge_ws = s.leading_space || s.leading_break || s.trailing_space || s.trailing_break;
    Analysis {
        multiline: s.line_breaks,
        block_plain_allowed: !(edge_ws
            || s.break_space
            || s.space_break
            || s.special
            || s.line_breaks
            || s.block_indicators),
        single_quoted_allowed: !(s.break_space || s.space_break || s.special),
        block_allowed: !(s.trailing_space || s.space_break || s.special),
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

/// go-yaml's `yaml_emitter_select_scalar_style` (block context, no tags).
pub(super) fn select_style(requested: Style, a: &Analysis, value: &str, simple_key: bool) -> Style {
    let mut style = requested;
    if simple_key && a.multiline {
        style = Style::Double;
    }
    if style == Style::Plain && (!a.block_plain_allowed || (value.is_empty() && simple_key)) {
        style = Style::Single;
    }
    if style == Style::Single && !a.single_quoted_allowed {
        style = Style::Double;
    }
    if style == Style::Literal && (!a.block_allowed || simple_key) {
        style = Style::Double;
    }
    style
}

/// The escape after `\` in a double-quoted scalar.
pub(super) fn escape(c: char) -> String {
    match c {
        '\0' => "0".into(),
        '\u{7}' => "a".into(),
        '\u{8}' => "b".into(),
        '\t' => "t".into(),
        '\n' => "n".into(),
        '\u{b}' => "v".into(),
        '\u{c}' => "f".into(),
        '\r' => "r".into(),
        '\u{1b}' => "e".into(),
        '"' => "\"".into(),
        '\\' => "\\".into(),
        '\u{85}' => "N".into(),
        '\u{a0}' => "_".into(),
        '\u{2028}' => "L".into(),
        '\u{2029}' => "P".into(),
        c if (c as u32) <= 0xFF => format!("x{:02X}", c as u32),
        c if (c as u32) <= 0xFFFF => format!("u{:04X}", c as u32),
        c => format!("U{:08X}", c as u32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan character by character with a peek at the next one, as go-yaml's
    /// analyzer walks it: the reference for the byte walk.
    fn scan_by_char(value: &str) -> Scan {
        let mut s = scan_start(value);
        let mut w = Walk::new();
        let mut chars = value.chars().peekable();
        let mut first = true;
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            let followed_by_ws = next.is_none_or(|n| matches!(n, ' ' | '\t'));
            w.step(&mut s, c, first, next.is_none(), followed_by_ws);
            first = false;
        }
        s
    }

    proptest::proptest! {
        /// The word fast path finds what the full scan finds.
        #[test]
        fn word_scan_is_the_full_scan(v in "[a-z0-9_./:#? -]{0,6}") {
            proptest::prop_assert_eq!(scan(&v), scan_chars(&v));
        }

        /// The byte scan is the character scan, on text with multi-byte characters,
        /// NEL, line and paragraph separators and controls.
        #[test]
        fn byte_scan_is_the_char_scan(v in "[a#:?\\- \t\n\r\u{85}\u{2028}é日\u{1}\u{FEFF}\u{7f}'&]{0,8}") {
            proptest::prop_assert_eq!(scan_chars(&v), scan_by_char(&v));
        }

        /// Runs of quiet bytes between every kind of loud one.
        #[test]
        fn quiet_runs_are_the_char_scan(v in "([aZ0.(/=~;$+]{1,4}|[#,\\[\\]{}&*!|>'\"%@`?:\\- \t\n\r\u{85}é\u{1}\u{7f}]){0,10}") {
            proptest::prop_assert_eq!(scan_chars(&v), scan_by_char(&v));
        }
    }

    #[test]
    fn letter_words_analyse_as_plain_one_liners() {
        for v in [
            "a",
            "apiVersion",
            "v1beta1",
            "x-k8s.io/v1",
            "a:b",
            "a_b/c.d-e",
            "Z",
            "a--",
        ] {
            assert!(is_letter_word(v), "{v}");
            let a = analyze(v);
            assert!(a.block_plain_allowed && !a.multiline, "{v}");
            assert_eq!(select_style(Style::Plain, &a, v, true), Style::Plain, "{v}");
            assert_eq!(
                select_style(Style::Plain, &a, v, false),
                Style::Plain,
                "{v}"
            );
        }
        for v in [
            "", "a:", "1a", "-a", ".a", "a b", "a\n", "é", "a#", "_a", "/a", ":a",
        ] {
            assert!(!is_letter_word(v), "{v}");
        }
    }

    #[test]
    fn words_with_indicators() {
        for v in [
            "-",
            "---x",
            "...",
            "a:",
            "a:b",
            "-a",
            "v1.2.3",
            "k8s.io/x:v1",
        ] {
            assert!(is_word(v));
            assert_eq!(scan(v), scan_chars(v), "{v}");
        }
        assert!(scan("a:").block_indicators && !scan("a:b").block_indicators);
    }
}
