//! The lexer under drone/envsubst's parser.
//!
//! The parser drives the scanner by switching its *mode* (which token kinds it
//! may return) and its *acceptor* (which runes may continue an identifier-like
//! token) before each `scan`. Observable quirks of the Go scanner are kept on
//! purpose, because they decide what parses:
//!
//! - A rune 0 (NUL) in the text reads as end of input.
//! - Escapes (`$$`, and `\/` `\\` where backslash escapes are on) are removed
//!   from the buffer itself, so later tokens see the shortened text. (Go shifts the
//!   rest of the buffer down each time; here the text is a gap buffer ([`Scanner`]),
//!   so a text of a million escapes is not a million moves of the text after each.)
//! - `unread` steps back by the width of the *last rune read*, which is not
//!   always the rune being pushed back (see `Parser::default_or_substr`).

use std::borrow::Cow;

use super::gostr::decode_rune;

/// Token kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    Illegal,
    Eof,
    Ident,
    Lbrack,
    Rbrack,
}

/// Mode bits: which tokens `scan` may produce.
pub const IDENT: u8 = 1;
pub const LBRACK: u8 = 2;
pub const RBRACK: u8 = 4;
pub const ESCAPE: u8 = 8;

/// Escape bits: which escapes are active when `ESCAPE` mode is on.
pub const DOLLAR: u8 = 1;
pub const BACKSLASH: u8 = 2;

/// Which runes an identifier-like token accepts. `i` is the byte length of
/// the token including the rune under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accept {
    /// Anything.
    Any,
    /// Unicode letters, digits and `_`.
    Ident,
    /// Any number of `:`.
    Colon,
    /// Exactly one `#`.
    OneHash,
    /// Anything but `}`.
    NotClosing,
    /// `#` or `##`.
    HashFunc,
    /// `%` or `%%`.
    PercentFunc,
    /// `:=`, `:-`, `:?`, `:+`.
    DefaultFunc,
    /// `/`, `//`, `/#`, `/%`.
    ReplaceFunc,
    /// Exactly one `=`.
    OneEqual,
    /// Exactly one `:`.
    OneColon,
    /// Anything but `:` and `}`.
    NotColonClose,
    /// Any number of `/`.
    Slash,
    /// Anything but `/`.
    NotSlash,
    /// Up to two of `,` and `^`, mixed.
    CasingFunc,
}

impl Accept {
    fn accepts(self, r: char, i: usize) -> bool {
        use super::gostr::{is_digit, is_letter};
        match self {
            Accept::Any => true,
            Accept::Ident => is_letter(r) || is_digit(r) || r == '_',
            Accept::Colon => r == ':',
            Accept::OneHash => r == '#' && i == 1,
            Accept::NotClosing => r != '}',
            Accept::HashFunc => r == '#' && i < 3,
            Accept::PercentFunc => r == '%' && i < 3,
            Accept::DefaultFunc => {
                (i == 1 && r == ':') || (i == 2 && matches!(r, '=' | '-' | '?' | '+'))
            }
            Accept::ReplaceFunc => (i == 1 && r == '/') || (i == 2 && matches!(r, '/' | '#' | '%')),
            Accept::OneEqual => i == 1 && r == '=',
            Accept::OneColon => i == 1 && r == ':',
            Accept::NotColonClose => r != ':' && r != '}',
            Accept::Slash => r == '/',
            Accept::NotSlash => r != '/',
            Accept::CasingFunc => (r == ',' || r == '^') && i < 3,
        }
    }
}

/// Rune value that stands for end of input (and for a literal NUL).
const EOF: char = '\0';

/// The scanner over a text with the escapes removed so far: `head`, then
/// `orig[tail..]`. A removal copies the bytes between the previous removal and this one
/// into `head` (each byte of the text at most once), instead of moving the rest of the
/// text down.
pub struct Scanner<'a> {
    orig: &'a [u8],
    head: Vec<u8>,
    tail: usize,
    pos: usize,
    start: usize,
    width: usize,
    pub mode: u8,
    pub escapes: u8,
    pub accept: Accept,
}

impl<'a> Scanner<'a> {
    /// The byte offset the scanner has reached.
    pub fn offset(&self) -> usize {
        self.pos.min(self.len())
    }

    pub fn new(text: &'a str) -> Self {
        Scanner {
            orig: text.as_bytes(),
            head: Vec::new(),
            tail: 0,
            pos: 0,
            start: 0,
            width: 0,
            mode: 0,
            escapes: 0,
            accept: Accept::Any,
        }
    }

    /// Next rune, or `EOF` at the end.
    pub fn read(&mut self) -> char {
        if self.pos >= self.len() {
            self.width = 0;
            return EOF;
        }
        let (r, w) = if self.pos >= self.head.len() {
            decode_rune(&self.orig[self.tail + self.pos - self.head.len()..])
        } else {
            // In `head`: a rune is at most 4 bytes, which may reach past the gap.
            let mut b = [0u8; 4];
            let n = (self.len() - self.pos).min(4);
            for (i, c) in b.iter_mut().enumerate().take(n) {
                *c = self.byte(self.pos + i);
            }
            decode_rune(&b[..n])
        };
        self.width = w;
        self.pos += w;
        r
    }

    /// Step back by the width of the last rune read.
    pub fn unread(&mut self) {
        self.pos = self.pos.saturating_sub(self.width);
    }

    pub fn peek(&mut self) -> char {
        let r = self.read();
        self.unread();
        r
    }

    /// Drop the rune just read (an escape character) from the buffer, so
    /// that the escaped rune after it becomes part of the current token.
    fn skip(&mut self) {
        if self.pos >= 1 && self.pos <= self.len() {
            let q = self.pos - 1;
            let hl = self.head.len();
            if q >= hl {
                // Move the gap to `q`: the bytes before it join `head`, it is dropped.
                let at = self.tail + (q - hl);
                self.head.extend_from_slice(&self.orig[self.tail..at]);
                self.tail = at + 1;
            } else {
                self.head.remove(q);
            }
        }
    }

    /// The length of the text (escapes removed so far).
    fn len(&self) -> usize {
        self.head.len() + self.orig.len() - self.tail
    }

    /// The byte at `p < len()`.
    fn byte(&self, p: usize) -> u8 {
        match self.head.get(p) {
            Some(b) => *b,
            None => self.orig[self.tail + p - self.head.len()],
        }
    }

    /// The text of the most recent token.
    pub fn text(&self) -> Cow<'_, [u8]> {
        let (s, e, hl) = (self.start, self.pos, self.head.len());
        if s > e || e > self.len() {
            return Cow::Borrowed(&[]);
        }
        let tail = |from: usize, to: usize| &self.orig[self.tail + from - hl..self.tail + to - hl];
        if e <= hl {
            Cow::Borrowed(&self.head[s..e])
        } else if s >= hl {
            Cow::Borrowed(tail(s, e))
        } else {
            Cow::Owned([&self.head[s..], tail(hl, e)].concat())
        }
    }

    pub fn scan(&mut self) -> Token {
        self.start = self.pos;
        let r = self.read();
        if r == EOF {
            Token::Eof
        } else if self.scan_lbrack(r) {
            Token::Lbrack
        } else if self.scan_rbrack(r) {
            Token::Rbrack
        } else if self.scan_ident(r) {
            Token::Ident
        } else {
            Token::Illegal
        }
    }

    fn accepts(&self, r: char) -> bool {
        self.accept.accepts(r, self.pos.saturating_sub(self.start))
    }

    fn scan_ident(&mut self, r: char) -> bool {
        if self.mode & IDENT == 0 {
            return false;
        }
        if self.scan_escaped(r) {
            self.skip();
        } else if !self.accepts(r) {
            return false;
        }
        loop {
            if self.accept == Accept::Any {
                self.skip_plain();
            }
            let r = self.read();
            if r == EOF {
                self.unread();
                break;
            }
            if self.scan_lbrack(r) {
                // Leave `${` for the next token.
                self.unread();
                self.unread();
                break;
            }
            if self.scan_escaped(r) {
                self.skip();
                continue;
            }
            if !self.accepts(r) {
                self.unread();
                break;
            }
        }
        true
    }

    /// With `Accept::Any`, every rune continues the token except what `$`, `\\` and NUL
    /// may start (`${`, an escape, the end): move past the bytes before the next of
    /// them at once. None of the three bytes occurs inside a multi-byte UTF-8
    /// sequence, and an invalid byte is accepted as `Any` accepts it rune by rune, so
    /// the token is the same; `width` is set again by the next `read`.
    fn skip_plain(&mut self) {
        let hl = self.head.len();
        if self.pos < hl {
            match memchr::memchr3(b'$', b'\\', 0, &self.head[self.pos..]) {
                Some(i) => {
                    self.pos += i;
                    return;
                }
                None => self.pos = hl,
            }
        }
        let rest = self
            .orig
            .get(self.tail + self.pos - hl..)
            .unwrap_or_default();
        self.pos += memchr::memchr3(b'$', b'\\', 0, rest).unwrap_or(rest.len());
    }

    fn scan_lbrack(&mut self, r: char) -> bool {
        if self.mode & LBRACK == 0 || r != '$' {
            return false;
        }
        if self.read() == '{' {
            return true;
        }
        self.unread();
        false
    }

    fn scan_rbrack(&self, r: char) -> bool {
        self.mode & RBRACK != 0 && r == '}'
    }

    fn scan_escaped(&mut self, r: char) -> bool {
        if self.mode & ESCAPE == 0 {
            return false;
        }
        if r == '$' && self.escapes & DOLLAR != 0 && self.peek() == '$' {
            return true;
        }
        r == '\\' && self.escapes & BACKSLASH != 0 && matches!(self.peek(), '/' | '\\')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top_level(text: &str) -> Scanner<'_> {
        let mut s = Scanner::new(text);
        s.mode = IDENT | LBRACK | ESCAPE;
        s.escapes = DOLLAR;
        s
    }

    #[test]
    fn text_runs_stop_before_lbrack() {
        let mut s = top_level("ab${C}");
        assert_eq!(s.scan(), Token::Ident);
        assert_eq!(s.text().as_ref(), b"ab");
        assert_eq!(s.scan(), Token::Lbrack);
    }

    #[test]
    fn dollar_escape_shrinks_the_buffer() {
        let mut s = top_level("$${A}");
        assert_eq!(s.scan(), Token::Ident);
        assert_eq!(s.text().as_ref(), b"${A}");
        assert_eq!(s.scan(), Token::Eof);
    }

    #[test]
    fn nul_reads_as_eof() {
        let mut s = top_level("a\0b");
        assert_eq!(s.scan(), Token::Ident);
        assert_eq!(s.text().as_ref(), b"a");
        assert_eq!(s.scan(), Token::Eof);
    }

    #[test]
    fn a_million_escapes_are_each_removed_once() {
        // Each removal used to move the rest of the text (10^12 byte moves here); the gap
        // buffer copies each byte once (README "Performance"; no timing is asserted).
        let text = "$$".repeat(1_000_000);
        let mut s = top_level(&text);
        assert_eq!(s.scan(), Token::Ident);
        assert_eq!(s.text().len(), 1_000_000);
        assert_eq!(s.scan(), Token::Eof);
    }

    /// The text as Go keeps it: one buffer, a removal moves the rest down.
    struct Moved {
        buf: Vec<u8>,
        pos: usize,
        width: usize,
    }

    impl Moved {
        fn read(&mut self) -> char {
            let Some(rest) = self.buf.get(self.pos..).filter(|r| !r.is_empty()) else {
                self.width = 0;
                return EOF;
            };
            let (r, w) = decode_rune(rest);
            (self.width, self.pos) = (w, self.pos + w);
            r
        }
    }

    proptest::proptest! {
        /// Reads, unreads, removals, skips of plain text and token texts, in any order,
        /// see the same text in the gap buffer as in one buffer with removals moved.
        #[test]
        fn the_gap_buffer_is_the_moved_buffer(
            text in "([a$\\/é\u{0}{}]|\u{10348}){0,24}",
            ops in proptest::collection::vec((0u8..5, 0usize..4), 0..60),
        ) {
            let mut s = top_level(&text);
            let mut m = Moved { buf: text.as_bytes().to_vec(), pos: 0, width: 0 };
            let mut start = 0;
            for (op, n) in ops {
                match op {
                    0 => proptest::prop_assert_eq!(s.read(), m.read()),
                    1 => {
                        s.unread();
                        m.pos = m.pos.saturating_sub(m.width);
                    }
                    2 => {
                        s.skip();
                        if m.pos >= 1 && m.pos <= m.buf.len() {
                            m.buf.remove(m.pos - 1);
                        }
                    }
                    3 => {
                        s.skip_plain();
                        let rest = m.buf.get(m.pos..).unwrap_or_default();
                        m.pos += memchr::memchr3(b'$', b'\\', 0, rest).unwrap_or(rest.len());
                    }
                    _ => {
                        start = m.pos.saturating_sub(n);
                        s.start = start;
                    }
                }
                proptest::prop_assert_eq!(s.pos, m.pos);
                proptest::prop_assert_eq!(s.offset(), m.pos.min(m.buf.len()));
                let want = m.buf.get(start..m.pos).unwrap_or_default().to_vec();
                proptest::prop_assert_eq!(s.text().into_owned(), want);
            }
        }
    }

    #[test]
    fn acceptor_positions_count_bytes() {
        assert!(Accept::HashFunc.accepts('#', 2));
        assert!(!Accept::HashFunc.accepts('#', 3));
        assert!(Accept::DefaultFunc.accepts('-', 2));
        assert!(!Accept::DefaultFunc.accepts('-', 1));
        assert!(Accept::CasingFunc.accepts('^', 2));
    }
}
