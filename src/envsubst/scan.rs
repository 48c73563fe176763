//! The lexer under drone/envsubst's parser.
//!
//! The parser drives the scanner by switching its *mode* (which token kinds it
//! may return) and its *acceptor* (which runes may continue an identifier-like
//! token) before each `scan`. Observable quirks of the Go scanner are kept on
//! purpose, because they decide what parses:
//!
//! - A rune 0 (NUL) in the text reads as end of input.
//! - Escapes (`$$`, and `\/` `\\` where backslash escapes are on) are removed
//!   from the buffer itself, so later tokens see the shortened text.
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

pub struct Scanner<'a> {
    /// The text, copied only when an escape is removed from it.
    buf: Cow<'a, [u8]>,
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
        self.pos.min(self.buf.len())
    }

    pub fn new(text: &'a str) -> Self {
        Scanner {
            buf: Cow::Borrowed(text.as_bytes()),
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
        let Some(rest) = self.buf.get(self.pos..).filter(|r| !r.is_empty()) else {
            self.width = 0;
            return EOF;
        };
        let (r, w) = decode_rune(rest);
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
        if self.pos >= 1 && self.pos <= self.buf.len() {
            self.buf.to_mut().remove(self.pos - 1);
        }
    }

    /// The text of the most recent token.
    pub fn text(&self) -> &[u8] {
        self.buf.get(self.start..self.pos).unwrap_or_default()
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
        let rest = self.buf.get(self.pos..).unwrap_or_default();
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
        assert_eq!(s.text(), b"ab");
        assert_eq!(s.scan(), Token::Lbrack);
    }

    #[test]
    fn dollar_escape_shrinks_the_buffer() {
        let mut s = top_level("$${A}");
        assert_eq!(s.scan(), Token::Ident);
        assert_eq!(s.text(), b"${A}");
        assert_eq!(s.scan(), Token::Eof);
    }

    #[test]
    fn nul_reads_as_eof() {
        let mut s = top_level("a\0b");
        assert_eq!(s.scan(), Token::Ident);
        assert_eq!(s.text(), b"a");
        assert_eq!(s.scan(), Token::Eof);
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
