//! Lexer for Go text/template (text/template/parse/lex.go semantics, delimiters
//! `{{`/`}}`, trim markers `{{- ` / ` -}}`, comments). The whole input is
//! tokenised up front; a lexical error ends the token list with `Tok::Error`.

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Text(String),
    LeftDelim,
    RightDelim,
    Space,
    Ident(String),
    Keyword(&'static str),
    Bool(bool),
    Nil,
    Field(String),
    Variable(String),
    Dot,
    Str(String),
    RawStr(String),
    Char(String),
    Number(String),
    Pipe,
    LeftParen,
    RightParen,
    Declare,
    Assign,
    Other(char),
    Error(String),
    Eof,
}

#[derive(Debug, Clone)]
pub struct Item {
    pub tok: Tok,
    pub pos: usize,
    pub line: usize,
}

impl Item {
    /// Go's `item.String()` used in parse errors.
    pub fn describe(&self) -> String {
        let val = match &self.tok {
            Tok::Eof => return "EOF".into(),
            Tok::Error(m) => return m.clone(),
            Tok::Keyword(k) => return format!("<{k}>"),
            t => token_text(t),
        };
        if val.chars().count() > 10 {
            let short: String = val.chars().take(10).collect();
            format!("{}...", crate::go::quote::quote(&short))
        } else {
            crate::go::quote::quote(&val)
        }
    }
}

fn token_text(t: &Tok) -> String {
    match t {
        Tok::Text(s)
        | Tok::Ident(s)
        | Tok::Field(s)
        | Tok::Variable(s)
        | Tok::Str(s)
        | Tok::RawStr(s)
        | Tok::Char(s)
        | Tok::Number(s)
        | Tok::Error(s) => s.clone(),
        Tok::LeftDelim => "{{".into(),
        Tok::RightDelim => "}}".into(),
        Tok::Space => " ".into(),
        Tok::Keyword(k) => (*k).into(),
        Tok::Bool(b) => b.to_string(),
        Tok::Nil => "nil".into(),
        Tok::Dot => ".".into(),
        Tok::Pipe => "|".into(),
        Tok::LeftParen => "(".into(),
        Tok::RightParen => ")".into(),
        Tok::Declare => ":=".into(),
        Tok::Assign => "=".into(),
        Tok::Other(c) => c.to_string(),
        Tok::Eof => String::new(),
    }
}

const KEYWORDS: [&str; 10] = [
    "block", "break", "continue", "define", "else", "end", "if", "range", "template", "with",
];

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn is_alnum(c: char) -> bool {
    c == '_' || c.is_alphabetic() || c.is_numeric()
}

fn has_left_trim(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && b[0] == b'-' && is_space(b[1] as char)
}

fn has_right_trim(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && is_space(b[0] as char) && b[1] == b'-'
}

struct Lexer<'a> {
    input: &'a str,
    pos: usize,
    start: usize,
    items: Vec<Item>,
    paren_depth: i32,
    /// (position, line) of the last line computation, so lines cost O(n) overall.
    line_cache: (usize, usize),
}

/// Tokenise `input`.
pub fn lex(input: &str) -> Vec<Item> {
    let mut l = Lexer {
        input,
        pos: 0,
        start: 0,
        items: Vec::new(),
        paren_depth: 0,
        line_cache: (0, 1),
    };
    l.run();
    l.items
}

impl<'a> Lexer<'a> {
    fn line_at(&mut self, pos: usize) -> usize {
        let pos = pos.min(self.input.len());
        let (from, base) = if pos >= self.line_cache.0 {
            self.line_cache
        } else {
            (0, 1)
        };
        let line = base
            + self.input.as_bytes()[from..pos]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
        self.line_cache = (pos, line);
        line
    }

    fn emit_at(&mut self, tok: Tok, pos: usize) {
        let line = self.line_at(pos);
        self.items.push(Item { tok, pos, line });
    }

    fn emit(&mut self, tok: Tok) {
        let p = self.start;
        self.emit_at(tok, p);
        self.start = self.pos;
    }

    fn rest(&self) -> &'a str {
        &self.input[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Emit an error and stop.
    fn error(&mut self, msg: String) -> bool {
        let p = self.start;
        self.emit_at(Tok::Error(msg), p);
        false
    }

    fn run(&mut self) {
        loop {
            // Text up to the next left delimiter.
            match self.rest().find("{{") {
                None => {
                    self.pos = self.input.len();
                    if self.pos > self.start {
                        self.emit(Tok::Text(self.input[self.start..self.pos].to_string()));
                    }
                    self.emit(Tok::Eof);
                    return;
                }
                Some(x) => {
                    self.pos += x;
                    let trim = has_left_trim(&self.input[self.pos + 2..]);
                    let mut text = &self.input[self.start..self.pos];
                    if trim {
                        text = text.trim_end_matches(is_space);
                    }
                    if !text.is_empty() {
                        self.emit(Tok::Text(text.to_string()));
                    }
                    self.start = self.pos;
                    if !self.left_delim(trim) {
                        return;
                    }
                }
            }
        }
    }

    fn skip_space_after(&mut self) {
        while let Some(c) = self.peek() {
            if !is_space(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        self.start = self.pos;
    }

    /// At `{{`: a comment or an action. Returns false after an error.
    fn left_delim(&mut self, trim: bool) -> bool {
        self.pos += 2;
        let after = if trim { 2 } else { 0 };
        if self.input[self.pos + after..].starts_with("/*") {
            self.pos += after;
            self.start = self.pos;
            return self.comment();
        }
        self.emit(Tok::LeftDelim);
        self.pos += after;
        self.start = self.pos;
        self.paren_depth = 0;
        self.inside_action()
    }

    fn at_right_delim(&self) -> (bool, bool) {
        let r = self.rest();
        if has_right_trim(r) && r[2..].starts_with("}}") {
            return (true, true);
        }
        (r.starts_with("}}"), false)
    }

    fn comment(&mut self) -> bool {
        self.pos += 2;
        let Some(x) = self.rest().find("*/") else {
            return self.error("unclosed comment".into());
        };
        self.pos += x + 2;
        let (delim, trim) = self.at_right_delim();
        if !delim {
            return self.error("comment ends before closing delimiter".into());
        }
        if trim {
            self.pos += 2;
        }
        self.pos += 2;
        self.start = self.pos;
        if trim {
            self.skip_space_after();
        }
        true
    }

    fn right_delim(&mut self, trim: bool) {
        if trim {
            self.pos += 2;
            self.start = self.pos;
        }
        self.pos += 2;
        self.emit(Tok::RightDelim);
        if trim {
            self.skip_space_after();
        }
    }

    fn at_terminator(&self) -> bool {
        match self.peek() {
            None => true,
            Some(c) if is_space(c) || ".,|:)(".contains(c) => true,
            _ => self.rest().starts_with("}}"),
        }
    }

    fn inside_action(&mut self) -> bool {
        loop {
            let (delim, trim) = self.at_right_delim();
            if delim {
                if self.paren_depth == 0 {
                    self.right_delim(trim);
                    return true;
                }
                return self.error("unclosed left paren".into());
            }
            let Some(c) = self.next() else {
                return self.error("unclosed action".into());
            };
            let ok = match c {
                c if is_space(c) => {
                    self.pos -= c.len_utf8();
                    self.space();
                    true
                }
                '=' => {
                    self.emit(Tok::Assign);
                    true
                }
                ':' => {
                    if self.next() != Some('=') {
                        return self.error("expected :=".into());
                    }
                    self.emit(Tok::Declare);
                    true
                }
                '|' => {
                    self.emit(Tok::Pipe);
                    true
                }
                '"' => self.quote('"', "unterminated quoted string"),
                '\'' => self.quote('\'', "unterminated character constant"),
                '`' => self.raw_quote(),
                '$' => self.field_or_variable(true),
                '.' if !matches!(self.peek(), Some('0'..='9')) => self.field_or_variable(false),
                '.' | '+' | '-' | '0'..='9' => {
                    self.pos -= 1;
                    self.number()
                }
                c if is_alnum(c) => {
                    self.pos -= c.len_utf8();
                    self.identifier()
                }
                '(' => {
                    self.emit(Tok::LeftParen);
                    self.paren_depth += 1;
                    true
                }
                ')' => {
                    self.emit(Tok::RightParen);
                    self.paren_depth -= 1;
                    if self.paren_depth < 0 {
                        return self.error("unexpected right paren".into());
                    }
                    true
                }
                c if c.is_ascii() && !c.is_ascii_control() => {
                    self.emit(Tok::Other(c));
                    true
                }
                c => self.error(format!(
                    "unrecognized character in action: {}",
                    super::fmt::unicode_u(c, true)
                )),
            };
            if !ok {
                return false;
            }
        }
    }

    fn space(&mut self) {
        let mut n = 0;
        while let Some(c) = self.peek() {
            if !is_space(c) {
                break;
            }
            self.pos += c.len_utf8();
            n += 1;
        }
        // A trim-marked right delimiter: the last space belongs to the marker.
        let before = &self.input[self.pos - 1..];
        if has_right_trim(before) && before[2..].starts_with("}}") {
            self.pos -= 1;
            if n == 1 {
                self.start = self.pos;
                return;
            }
        }
        self.emit(Tok::Space);
    }

    fn identifier(&mut self) -> bool {
        while let Some(c) = self.peek() {
            if !is_alnum(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        if !self.at_terminator() {
            let c = self.peek().unwrap_or('\0');
            return self.error(format!("bad character {}", super::fmt::unicode_u(c, true)));
        }
        let word = &self.input[self.start..self.pos];
        let tok = if let Some(k) = KEYWORDS.iter().find(|k| **k == word) {
            Tok::Keyword(k)
        } else if word == "nil" {
            Tok::Nil
        } else if word == "true" || word == "false" {
            Tok::Bool(word == "true")
        } else {
            Tok::Ident(word.to_string())
        };
        self.emit(tok);
        true
    }

    fn field_or_variable(&mut self, variable: bool) -> bool {
        if self.at_terminator() {
            self.emit(if variable {
                Tok::Variable("$".into())
            } else {
                Tok::Dot
            });
            return true;
        }
        while let Some(c) = self.peek() {
            if !is_alnum(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        if !self.at_terminator() {
            let c = self.peek().unwrap_or('\0');
            return self.error(format!("bad character {}", super::fmt::unicode_u(c, true)));
        }
        let word = self.input[self.start..self.pos].to_string();
        self.emit(if variable {
            Tok::Variable(word)
        } else {
            Tok::Field(word)
        });
        true
    }

    fn quote(&mut self, q: char, unterminated: &str) -> bool {
        loop {
            match self.next() {
                Some('\\') => match self.next() {
                    Some(c) if c != '\n' => continue,
                    _ => return self.error(unterminated.into()),
                },
                None | Some('\n') => return self.error(unterminated.into()),
                Some(c) if c == q => break,
                _ => {}
            }
        }
        let text = self.input[self.start..self.pos].to_string();
        self.emit(if q == '"' {
            Tok::Str(text)
        } else {
            Tok::Char(text)
        });
        true
    }

    fn raw_quote(&mut self) -> bool {
        let Some(x) = self.rest().find('`') else {
            return self.error("unterminated raw quoted string".into());
        };
        self.pos += x + 1;
        let text = self.input[self.start..self.pos].to_string();
        self.emit(Tok::RawStr(text));
        true
    }

    fn accept(&mut self, set: &str) -> bool {
        match self.peek() {
            Some(c) if set.contains(c) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    fn accept_run(&mut self, set: &str) {
        while self.accept(set) {}
    }

    fn scan_number(&mut self) -> bool {
        self.accept("+-");
        let mut digits = "0123456789_";
        if self.accept("0") {
            if self.accept("xX") {
                digits = "0123456789abcdefABCDEF_";
            } else if self.accept("oO") {
                digits = "01234567_";
            } else if self.accept("bB") {
                digits = "01_";
            }
        }
        self.accept_run(digits);
        if self.accept(".") {
            self.accept_run(digits);
        }
        if digits.len() == 11 && self.accept("eE") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        if digits.len() == 23 && self.accept("pP") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        self.accept("i");
        if matches!(self.peek(), Some(c) if is_alnum(c)) {
            self.next();
            return false;
        }
        true
    }

    fn number(&mut self) -> bool {
        if !self.scan_number() {
            let t = self.input[self.start..self.pos].to_string();
            return self.error(format!(
                "bad number syntax: {}",
                crate::go::quote::quote(&t)
            ));
        }
        if matches!(self.peek(), Some('+' | '-')) {
            // Complex constants (1+2i): not supported by capi-render.
            if !self.scan_number() || !self.input[..self.pos].ends_with('i') {
                let t = self.input[self.start..self.pos].to_string();
                return self.error(format!(
                    "bad number syntax: {}",
                    crate::go::quote::quote(&t)
                ));
            }
        }
        let t = self.input[self.start..self.pos].to_string();
        self.emit(Tok::Number(t));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).into_iter().map(|i| i.tok).collect()
    }

    #[test]
    fn text_and_action() {
        assert_eq!(
            toks("a{{ .x.y | f 1 }}b"),
            vec![
                Tok::Text("a".into()),
                Tok::LeftDelim,
                Tok::Space,
                Tok::Field(".x".into()),
                Tok::Field(".y".into()),
                Tok::Space,
                Tok::Pipe,
                Tok::Space,
                Tok::Ident("f".into()),
                Tok::Space,
                Tok::Number("1".into()),
                Tok::Space,
                Tok::RightDelim,
                Tok::Text("b".into()),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn trim_markers_remove_white_space() {
        assert_eq!(
            toks("a \n{{- 1 -}}\n b"),
            vec![
                Tok::Text("a".into()),
                Tok::LeftDelim,
                Tok::Number("1".into()),
                Tok::RightDelim,
                Tok::Text("b".into()),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn comments_vanish() {
        assert_eq!(
            toks("a {{- /* c */ -}} b"),
            vec![Tok::Text("a".into()), Tok::Text("b".into()), Tok::Eof]
        );
    }

    #[test]
    fn errors_end_the_stream() {
        let t = toks("{{ \"abc }}");
        assert_eq!(
            t.last(),
            Some(&Tok::Error("unterminated quoted string".into()))
        );
        assert_eq!(
            toks("{{ 1x }}").last(),
            Some(&Tok::Error("bad number syntax: \"1x\"".into()))
        );
        assert_eq!(
            toks("{{ .x").last(),
            Some(&Tok::Error("unclosed action".into()))
        );
    }

    #[test]
    fn keywords_and_variables() {
        assert_eq!(
            toks("{{$x := nil}}"),
            vec![
                Tok::LeftDelim,
                Tok::Variable("$x".into()),
                Tok::Space,
                Tok::Declare,
                Tok::Space,
                Tok::Nil,
                Tok::RightDelim,
                Tok::Eof
            ]
        );
        assert_eq!(toks("{{end}}")[1], Tok::Keyword("end"));
    }
}
