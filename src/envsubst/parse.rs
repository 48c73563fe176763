//! drone/envsubst's grammar: text with `${...}` substitutions, parsed into a
//! flat list of nodes.
//!
//! Go builds right-nested `ListNode`s; a flat list is equivalent for both
//! evaluation and clusterctl's traversal (same nodes, same order). Function
//! arguments are only ever text or nested functions.

use super::scan::{Accept, Scanner, Token, BACKSLASH, DOLLAR, ESCAPE, IDENT, LBRACK, RBRACK};
use crate::Error;

/// Nesting depth beyond which parsing fails instead of risking the stack.
/// Go has no limit; no real template comes anywhere near it.
pub const MAX_DEPTH: usize = 256;

/// The error of a nesting deeper than [`MAX_DEPTH`] (our own; Go has none).
pub const ERR_TOO_DEEP: &str = "substitutions nested too deeply";

pub const ERR_BAD_SUBSTITUTION: &str = "bad substitution";
pub const ERR_MISSING_CLOSING_BRACE: &str = "missing closing brace";
pub const ERR_PARSE_VARIABLE_NAME: &str = "unable to parse variable name";
pub const ERR_PARSE_FUNC_SUBSTITUTION: &str = "unable to parse substitution within function";
pub const ERR_PARSE_DEFAULT_FUNCTION: &str = "unable to parse default function";

/// A node of the parse tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Literal text (escapes already resolved). Raw bytes: always UTF-8 in
    /// practice, kept as bytes to mirror Go strings.
    Text(Vec<u8>),
    /// A `${...}` substitution.
    Func(FuncNode),
}

/// `${param}`, `${param<name><args>}` or `${#param}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuncNode {
    /// The variable name.
    pub param: String,
    /// The operator as written (`""` for a plain reference, `":="`, `":"`,
    /// `"##"`, `"//"`, `"#"` for length, ...).
    pub name: String,
    /// The operator's arguments.
    pub args: Vec<Node>,
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// Top-level nodes in source order.
    pub nodes: Vec<Node>,
}

/// Parse `text` as drone/envsubst's `Parse` does.
pub fn parse(text: &str) -> Result<Template, Error> {
    let mut p = Parser {
        s: Scanner::new(text),
        depth: 0,
    };
    let parsed = p.parse_any();
    parsed
        .map(|nodes| Template { nodes })
        .map_err(|e| Error::new(e).with_hint(where_parse_failed(text, p.s.offset())))
}

/// The `${` expression where parsing stopped and its line, for a parse error's hint.
fn where_parse_failed(text: &str, at: usize) -> String {
    let at = (0..=at.min(text.len()))
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    let line = text[..at].matches('\n').count() + 1;
    let expr = text[..at]
        .rfind("${")
        .map(|i| {
            let rest = &text[i..];
            let end = rest.find('}').map(|j| j + 1).unwrap_or(rest.len()).min(80);
            let end = (0..=end)
                .rev()
                .find(|j| rest.is_char_boundary(*j))
                .unwrap_or(0);
            rest[..end].to_string()
        })
        .unwrap_or_default();
    if expr.is_empty() {
        format!("the variable expression at line {line} is not valid envsubst syntax")
    } else {
        format!("the variable expression {expr} (line {line}) is not valid envsubst syntax: write ${{NAME}}, ${{NAME:-default}} or ${{NAME:=default}}")
    }
}

type PResult<T> = std::result::Result<T, &'static str>;

struct Parser<'a> {
    s: Scanner<'a>,
    depth: usize,
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl Parser<'_> {
    fn set(&mut self, accept: Accept, mode: u8) {
        self.s.accept = accept;
        self.s.mode = mode;
    }

    /// Scan a token and return its text if it is an identifier-like token.
    fn ident(&mut self, accept: Accept, mode: u8) -> Option<String> {
        self.set(accept, mode);
        match self.s.scan() {
            Token::Ident => Some(lossy(&self.s.text())),
            _ => None,
        }
    }

    fn parse_any(&mut self) -> PResult<Vec<Node>> {
        let mut nodes = Vec::new();
        loop {
            self.set(Accept::Any, IDENT | LBRACK | ESCAPE);
            self.s.escapes = DOLLAR;
            match self.s.scan() {
                Token::Ident => nodes.push(Node::Text(self.s.text().into_owned())),
                Token::Lbrack => nodes.push(Node::Func(self.parse_func()?)),
                Token::Eof => return Ok(nodes),
                _ => return Err(ERR_BAD_SUBSTITUTION),
            }
        }
    }

    /// After `${`.
    fn parse_func(&mut self) -> PResult<FuncNode> {
        if self.depth >= MAX_DEPTH {
            return Err(ERR_TOO_DEEP);
        }
        self.depth += 1;
        let node = self.parse_func_body();
        self.depth -= 1;
        node
    }

    fn parse_func_body(&mut self) -> PResult<FuncNode> {
        self.s.escapes = DOLLAR | BACKSLASH;
        if self.s.peek() == '#' {
            return self.parse_len();
        }
        let param = self
            .ident(Accept::Ident, IDENT)
            .ok_or(ERR_PARSE_VARIABLE_NAME)?;
        match self.s.peek() {
            ':' => return self.default_or_substr(param),
            '=' => return self.parse_default(param),
            ',' | '^' => return self.parse_casing(param),
            '/' => return self.parse_replace(param),
            '#' => return self.parse_trim(param, Accept::HashFunc),
            '%' => return self.parse_trim(param, Accept::PercentFunc),
            _ => {}
        }
        self.set(Accept::Ident, RBRACK);
        match self.s.scan() {
            Token::Rbrack => Ok(FuncNode {
                param,
                name: String::new(),
                args: Vec::new(),
            }),
            _ => Err(ERR_MISSING_CLOSING_BRACE),
        }
    }

    /// One argument: a nested substitution or a run of accepted runes.
    fn parse_param(&mut self, accept: Accept, mode: u8) -> PResult<Node> {
        self.set(accept, mode | LBRACK);
        match self.s.scan() {
            Token::Lbrack => Ok(Node::Func(self.parse_func()?)),
            Token::Ident | Token::Rbrack => Ok(Node::Text(self.s.text().into_owned())),
            _ => Err(ERR_PARSE_FUNC_SUBSTITUTION),
        }
    }

    fn consume_rbrack(&mut self) -> PResult<()> {
        self.s.mode = RBRACK;
        match self.s.scan() {
            Token::Rbrack => Ok(()),
            _ => Err(ERR_BAD_SUBSTITUTION),
        }
    }

    /// At `:`: a default operator (`:=` `:-` `:?` `:+`) or a substring.
    fn default_or_substr(&mut self, param: String) -> PResult<FuncNode> {
        self.s.read();
        let next = self.s.peek();
        // Go steps back by the width of the rune *after* the colon here, so a
        // multi-byte rune after `:` lands the scanner inside the name and the
        // substring parse then fails with "bad substitution".
        self.s.unread();
        match next {
            '=' | '-' | '?' | '+' => self.parse_default(param),
            _ => self.parse_substr(param),
        }
    }

    /// `${param:offset}` and `${param:offset:length}`.
    fn parse_substr(&mut self, param: String) -> PResult<FuncNode> {
        let name = self
            .ident(Accept::OneColon, IDENT)
            .ok_or(ERR_BAD_SUBSTITUTION)?;
        let mut args = vec![self.parse_param(Accept::NotColonClose, IDENT)?];
        self.set(Accept::Colon, IDENT | RBRACK);
        match self.s.scan() {
            Token::Rbrack => return Ok(FuncNode { param, name, args }),
            Token::Ident => {}
            _ => return Err(ERR_BAD_SUBSTITUTION),
        }
        args.push(self.parse_param(Accept::NotClosing, IDENT)?);
        self.consume_rbrack()?;
        Ok(FuncNode { param, name, args })
    }

    /// `#`, `##`, `%`, `%%` followed by a pattern.
    fn parse_trim(&mut self, param: String, accept: Accept) -> PResult<FuncNode> {
        let name = self.ident(accept, IDENT).ok_or(ERR_BAD_SUBSTITUTION)?;
        let args = vec![self.parse_param(Accept::NotClosing, IDENT)?];
        self.consume_rbrack()?;
        Ok(FuncNode { param, name, args })
    }

    /// `/`, `//`, `/#`, `/%` followed by `pattern/replacement`.
    fn parse_replace(&mut self, param: String) -> PResult<FuncNode> {
        let name = self
            .ident(Accept::ReplaceFunc, IDENT)
            .ok_or(ERR_BAD_SUBSTITUTION)?;
        let mut args = vec![self.parse_param(Accept::NotSlash, IDENT | ESCAPE)?];
        self.ident(Accept::Slash, IDENT)
            .ok_or(ERR_BAD_SUBSTITUTION)?;
        if self.s.peek() != '}' {
            args.push(self.parse_param(Accept::NotClosing, IDENT | ESCAPE)?);
        }
        self.consume_rbrack()?;
        Ok(FuncNode { param, name, args })
    }

    /// `=`, `:=`, `:-`, `:?`, `:+` followed by any number of arguments.
    fn parse_default(&mut self, param: String) -> PResult<FuncNode> {
        let accept = if self.s.peek() == '=' {
            Accept::OneEqual
        } else {
            Accept::DefaultFunc
        };
        let name = self
            .ident(accept, IDENT)
            .ok_or(ERR_PARSE_DEFAULT_FUNCTION)?;
        let mut args = Vec::new();
        while self.s.peek() != '}' {
            args.push(self.parse_param(Accept::NotClosing, IDENT)?);
        }
        self.consume_rbrack()?;
        Ok(FuncNode { param, name, args })
    }

    /// `,`, `,,`, `^`, `^^` (and mixes such as `,^`).
    fn parse_casing(&mut self, param: String) -> PResult<FuncNode> {
        let name = self
            .ident(Accept::CasingFunc, IDENT)
            .ok_or(ERR_BAD_SUBSTITUTION)?;
        self.consume_rbrack()?;
        Ok(FuncNode {
            param,
            name,
            args: Vec::new(),
        })
    }

    /// `${#param}`.
    fn parse_len(&mut self) -> PResult<FuncNode> {
        let name = self
            .ident(Accept::OneHash, IDENT)
            .ok_or(ERR_BAD_SUBSTITUTION)?;
        let param = self
            .ident(Accept::Ident, IDENT)
            .ok_or(ERR_BAD_SUBSTITUTION)?;
        self.consume_rbrack()?;
        Ok(FuncNode {
            param,
            name,
            args: Vec::new(),
        })
    }
}

#[cfg(test)]
mod hint_tests {
    use super::*;

    #[test]
    fn parse_errors_name_the_expression_and_line() {
        let e = parse("a: 1\nb: ${A:é}\n").unwrap_err();
        assert_eq!(e.message(), ERR_BAD_SUBSTITUTION);
        let h = e.hint().unwrap();
        assert!(
            h.starts_with("the variable expression ${A:é} (line 2)"),
            "{h}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn func(param: &str, name: &str, args: Vec<Node>) -> Node {
        Node::Func(FuncNode {
            param: param.into(),
            name: name.into(),
            args,
        })
    }

    fn text(s: &str) -> Node {
        Node::Text(s.as_bytes().to_vec())
    }

    fn nodes(s: &str) -> Vec<Node> {
        parse(s)
            .map(|t| t.nodes)
            .unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn err(s: &str) -> String {
        match parse(s) {
            Ok(t) => panic!("{s} parsed: {t:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn plain_text_and_references() {
        assert_eq!(
            nodes("a ${B} c"),
            vec![text("a "), func("B", "", vec![]), text(" c")]
        );
        assert_eq!(nodes("$A"), vec![text("$A")]);
        assert_eq!(nodes(""), vec![]);
    }

    #[test]
    fn dollar_escapes_only_outside_functions() {
        assert_eq!(nodes("$${A}"), vec![text("${A}")]);
        assert_eq!(nodes("$$$"), vec![text("$$")]);
        assert_eq!(nodes("\\\\"), vec![text("\\\\")]);
    }

    #[test]
    fn defaults_take_several_arguments() {
        assert_eq!(
            nodes("${A:=x${B:=y}z}"),
            vec![func(
                "A",
                ":=",
                vec![text("x"), func("B", ":=", vec![text("y")]), text("z")]
            )]
        );
        assert_eq!(nodes("${E=\"\"}"), vec![func("E", "=", vec![text("\"\"")])]);
        assert_eq!(nodes("${A:=}"), vec![func("A", ":=", vec![])]);
    }

    #[test]
    fn substring_and_length() {
        assert_eq!(
            nodes("${A:0:3}"),
            vec![func("A", ":", vec![text("0"), text("3")])]
        );
        assert_eq!(
            nodes("${A:1::2}"),
            vec![func("A", ":", vec![text("1"), text("2")])]
        );
        assert_eq!(nodes("${#A}"), vec![func("A", "#", vec![])]);
    }

    #[test]
    fn replace_with_escapes() {
        assert_eq!(
            nodes("${A/\\//_}"),
            vec![func("A", "/", vec![text("/"), text("_")])]
        );
        assert_eq!(nodes("${A/x/}"), vec![func("A", "/", vec![text("x")])]);
    }

    #[test]
    fn casing_accepts_mixed_operators() {
        assert_eq!(nodes("${A,^}"), vec![func("A", ",^", vec![])]);
        assert_eq!(err("${A,,,}"), ERR_BAD_SUBSTITUTION);
    }

    #[test]
    fn spec_error_examples() {
        assert_eq!(err("${}"), ERR_PARSE_VARIABLE_NAME);
        assert_eq!(err("${A"), ERR_MISSING_CLOSING_BRACE);
        assert_eq!(err("${BA$R}"), ERR_MISSING_CLOSING_BRACE);
        assert_eq!(err("${A-b}"), ERR_MISSING_CLOSING_BRACE);
        assert_eq!(err("${A+b}"), ERR_MISSING_CLOSING_BRACE);
        assert_eq!(err("${A:=x"), ERR_PARSE_FUNC_SUBSTITUTION);
        assert_eq!(err("${A:}"), ERR_PARSE_FUNC_SUBSTITUTION);
        assert_eq!(err("${A/x}"), ERR_BAD_SUBSTITUTION);
        assert_eq!(err("${A#}"), ERR_PARSE_FUNC_SUBSTITUTION);
        assert_eq!(err("${##A}"), ERR_BAD_SUBSTITUTION);
    }

    #[test]
    fn multibyte_rune_after_colon_is_a_bad_substitution() {
        assert_eq!(err("${A:é}"), ERR_BAD_SUBSTITUTION);
        assert_eq!(err("${AB:😀}"), ERR_BAD_SUBSTITUTION);
    }

    #[test]
    fn nul_ends_the_text() {
        assert_eq!(nodes("a\0${A}"), vec![text("a")]);
    }

    #[test]
    fn deep_nesting_fails_instead_of_overflowing() {
        let deep = "${A:=".repeat(MAX_DEPTH + 1) + &"}".repeat(MAX_DEPTH + 1);
        assert_eq!(err(&deep), ERR_TOO_DEEP);
        let ok = "${A:=".repeat(MAX_DEPTH) + &"}".repeat(MAX_DEPTH);
        assert_eq!(parse(&ok).map(|t| t.nodes.len()), Ok(1));
    }
}
