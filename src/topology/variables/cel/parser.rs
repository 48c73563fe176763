//! CEL expressions to an AST (cel-spec grammar: ternary, `||`, `&&`, relations incl.
//! `in`, additive, multiplicative, unary, member/index/call, primaries).

use super::lexer::{lex_at, Tok};

#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Lit(Lit),
    Ident(String),
    Select(Box<Expr>, String),
    Index(Box<Expr>, Box<Expr>),
    /// A function call: `f(args)` (target `None`) or `target.f(args)`.
    Call(Option<Box<Expr>>, String, Vec<Expr>),
    List(Vec<Expr>),
    Map(Vec<(Expr, Expr)>),
    Unary(&'static str, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
}

/// Why an expression does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// A syntax error cel-go reports too (its `Syntax error: ...` text).
    Syntax(String),
    /// CEL this parser does not handle (or nests deeper than it goes): cel-go may
    /// accept it, so it is never reported as the rule's error.
    Unsupported(String),
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Syntax(m) | ParseError::Unsupported(m) => f.write_str(m),
        }
    }
}

type PResult<T> = Result<T, ParseError>;

/// Parses one expression.
pub fn parse(src: &str) -> PResult<Expr> {
    parse_located(src).map(|(e, _)| e)
}

/// Where the nodes of a parsed expression come from, for messages that point into the
/// source as cel-go's do.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    /// The character index each token starts at.
    pub token_starts: Vec<usize>,
    /// For every node in post-order (children in the order [`children`] gives them,
    /// then the node): the index of the token cel-go locates it at (an operator, the
    /// `(` of a call, the `.` of a selection, the first token of a literal or name).
    pub nodes: Vec<usize>,
}

/// The sub-expressions of a node, in source order.
pub fn children(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Lit(_) | Expr::Ident(_) => Vec::new(),
        Expr::Select(t, _) | Expr::Unary(_, t) => vec![t],
        Expr::Index(a, b) | Expr::Binary(_, a, b) => vec![a, b],
        Expr::Cond(a, b, c) => vec![a, b, c],
        Expr::Call(t, _, args) => t.as_deref().into_iter().chain(args).collect(),
        Expr::List(items) => items.iter().collect(),
        Expr::Map(entries) => entries.iter().flat_map(|(k, v)| [k, v]).collect(),
    }
}

/// Parses one expression and tells where each node is.
pub fn parse_located(src: &str) -> PResult<(Expr, Located)> {
    let (toks, token_starts) = lex_at(src).map_err(ParseError::Syntax)?;
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
        nodes: Vec::new(),
    };
    let e = p.expr()?;
    if p.pos != p.toks.len() {
        return Err(ParseError::Syntax(format!(
            "Syntax error: mismatched input at token {}",
            p.pos + 1
        )));
    }
    Ok((
        e,
        Located {
            token_starts,
            nodes: p.nodes,
        },
    ))
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    /// Nesting of `expr` calls, bounded like cel-go's parser recursion limit.
    depth: usize,
    /// The token of each completed node, in post-order.
    nodes: Vec<usize>,
}

/// Nesting bound (cel-go allows 250; ours is lower so that debug builds stay within a
/// 2 MiB thread stack while parsing and evaluating).
const MAX_DEPTH: usize = 100;

impl Parser {
    /// Records a completed node located at token `at`.
    fn node(&mut self, at: usize, e: Expr) -> Expr {
        self.nodes.push(at);
        e
    }

    fn peek_op(&self, op: &str) -> bool {
        matches!(self.toks.get(self.pos), Some(Tok::Op(o)) if *o == op)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        if self.peek_op(op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, op: &str) -> PResult<()> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(ParseError::Syntax(format!("Syntax error: missing '{op}'")))
        }
    }

    fn expr(&mut self) -> PResult<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::Unsupported(format!(
                "expression recursion limit exceeded: {MAX_DEPTH}"
            )));
        }
        let e = self.expr_inner();
        self.depth -= 1;
        e
    }

    fn expr_inner(&mut self) -> PResult<Expr> {
        let c = self.or()?;
        let at = self.pos;
        if self.eat_op("?") {
            let a = self.or()?;
            self.expect(":")?;
            let b = self.expr()?;
            return Ok(self.node(at, Expr::Cond(Box::new(c), Box::new(a), Box::new(b))));
        }
        Ok(c)
    }

    /// Counts one more operator of a left-associative chain; the evaluator recurses once
    /// per operator, so chains are bounded like nesting.
    fn chain(&self, n: &mut usize) -> PResult<()> {
        *n += 1;
        if self.depth + *n > MAX_DEPTH {
            return Err(ParseError::Unsupported(format!(
                "expression recursion limit exceeded: {MAX_DEPTH}"
            )));
        }
        Ok(())
    }

    fn or(&mut self) -> PResult<Expr> {
        let mut n = 0;
        let mut l = self.and()?;
        let mut at = self.pos;
        while self.eat_op("||") {
            self.chain(&mut n)?;
            let r = self.and()?;
            l = self.node(at, Expr::Binary("||", Box::new(l), Box::new(r)));
            at = self.pos;
        }
        Ok(l)
    }

    fn and(&mut self) -> PResult<Expr> {
        let mut n = 0;
        let mut l = self.rel()?;
        let mut at = self.pos;
        while self.eat_op("&&") {
            self.chain(&mut n)?;
            let r = self.rel()?;
            l = self.node(at, Expr::Binary("&&", Box::new(l), Box::new(r)));
            at = self.pos;
        }
        Ok(l)
    }

    fn rel(&mut self) -> PResult<Expr> {
        let mut n = 0;
        let mut l = self.add()?;
        loop {
            let op = match self.toks.get(self.pos) {
                Some(Tok::Op(o)) if ["==", "!=", "<", "<=", ">", ">="].contains(o) => *o,
                Some(Tok::Ident(i)) if i == "in" => "in",
                _ => return Ok(l),
            };
            let at = self.pos;
            self.pos += 1;
            self.chain(&mut n)?;
            let r = self.add()?;
            l = self.node(at, Expr::Binary(op, Box::new(l), Box::new(r)));
        }
    }

    fn add(&mut self) -> PResult<Expr> {
        let mut n = 0;
        let mut l = self.mul()?;
        loop {
            let at = self.pos;
            let op = if self.eat_op("+") {
                "+"
            } else if self.eat_op("-") {
                "-"
            } else {
                return Ok(l);
            };
            self.chain(&mut n)?;
            let r = self.mul()?;
            l = self.node(at, Expr::Binary(op, Box::new(l), Box::new(r)));
        }
    }

    fn mul(&mut self) -> PResult<Expr> {
        let mut n = 0;
        let mut l = self.unary()?;
        loop {
            let at = self.pos;
            let op = if self.eat_op("*") {
                "*"
            } else if self.eat_op("/") {
                "/"
            } else if self.eat_op("%") {
                "%"
            } else {
                return Ok(l);
            };
            self.chain(&mut n)?;
            let r = self.unary()?;
            l = self.node(at, Expr::Binary(op, Box::new(l), Box::new(r)));
        }
    }

    fn unary(&mut self) -> PResult<Expr> {
        let at = self.pos;
        if self.eat_op("!") {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(ParseError::Unsupported(format!(
                    "expression recursion limit exceeded: {MAX_DEPTH}"
                )));
            }
            let inner = self.unary();
            self.depth -= 1;
            let inner = inner?;
            return Ok(self.node(at, Expr::Unary("!", Box::new(inner))));
        }
        if self.eat_op("-") {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(ParseError::Unsupported(format!(
                    "expression recursion limit exceeded: {MAX_DEPTH}"
                )));
            }
            let inner = self.unary();
            self.depth -= 1;
            let inner = inner?;
            // Negative literals fold into the literal (located at the sign).
            let folded = match inner {
                Expr::Lit(Lit::Int(i)) => Expr::Lit(Lit::Int(-i)),
                Expr::Lit(Lit::Double(d)) => Expr::Lit(Lit::Double(-d)),
                e => return Ok(self.node(at, Expr::Unary("-", Box::new(e)))),
            };
            self.nodes.pop();
            return Ok(self.node(at, folded));
        }
        self.member()
    }

    fn member(&mut self) -> PResult<Expr> {
        let mut n = 0;
        let mut e = self.primary()?;
        loop {
            if self.peek_op(".") || self.peek_op("[") {
                self.chain(&mut n)?;
            }
            let at = self.pos;
            if self.eat_op(".") {
                let name = match self.toks.get(self.pos) {
                    Some(Tok::Ident(n)) => n.clone(),
                    _ => {
                        return Err(ParseError::Syntax(
                            "Syntax error: expected a field name after '.'".into(),
                        ))
                    }
                };
                self.pos += 1;
                let open = self.pos;
                if self.eat_op("(") {
                    let args = self.args(")")?;
                    e = self.node(open, Expr::Call(Some(Box::new(e)), name, args));
                } else {
                    e = self.node(at, Expr::Select(Box::new(e), name));
                }
            } else if self.eat_op("[") {
                let i = self.expr()?;
                self.expect("]")?;
                e = self.node(at, Expr::Index(Box::new(e), Box::new(i)));
            } else {
                return Ok(e);
            }
        }
    }

    fn args(&mut self, close: &str) -> PResult<Vec<Expr>> {
        let mut out = Vec::new();
        if self.eat_op(close) {
            return Ok(out);
        }
        loop {
            out.push(self.expr()?);
            if self.eat_op(close) {
                return Ok(out);
            }
            self.expect(",")?;
            if self.eat_op(close) {
                return Ok(out);
            }
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let t = self.toks.get(self.pos).cloned().ok_or_else(|| {
            ParseError::Syntax("Syntax error: unexpected end of expression".into())
        })?;
        let at = self.pos;
        self.pos += 1;
        let e = match t {
            Tok::Int(i) => Expr::Lit(Lit::Int(i)),
            Tok::Uint(u) => Expr::Lit(Lit::Uint(u)),
            Tok::Double(d) => Expr::Lit(Lit::Double(d)),
            Tok::Str(s) => Expr::Lit(Lit::Str(s)),
            Tok::Ident(n) => match n.as_str() {
                "true" => Expr::Lit(Lit::Bool(true)),
                "false" => Expr::Lit(Lit::Bool(false)),
                "null" => Expr::Lit(Lit::Null),
                _ if self.peek_op("(") => {
                    let open = self.pos;
                    self.pos += 1;
                    let args = self.args(")")?;
                    return Ok(self.node(open, Expr::Call(None, n, args)));
                }
                _ => Expr::Ident(n),
            },
            Tok::Op("(") => {
                let e = self.expr()?;
                self.expect(")")?;
                return Ok(e);
            }
            Tok::Op("[") => Expr::List(self.args("]")?),
            Tok::Op("{") => {
                let mut entries = Vec::new();
                if !self.eat_op("}") {
                    loop {
                        let k = self.expr()?;
                        self.expect(":")?;
                        let v = self.expr()?;
                        entries.push((k, v));
                        if self.eat_op("}") {
                            break;
                        }
                        self.expect(",")?;
                        if self.eat_op("}") {
                            break;
                        }
                    }
                }
                Expr::Map(entries)
            }
            Tok::Op(".") => {
                return Err(ParseError::Unsupported(
                    "Syntax error: leading '.' names are not supported".into(),
                ))
            }
            Tok::Op(o) => {
                return Err(ParseError::Syntax(format!(
                    "Syntax error: unexpected '{o}'"
                )))
            }
        };
        Ok(self.node(at, e))
    }
}

/// Whether the expression references `name` as an identifier.
pub fn references(e: &Expr, name: &str) -> bool {
    match e {
        Expr::Lit(_) => false,
        Expr::Ident(n) => n == name,
        Expr::Select(t, _) => references(t, name),
        Expr::Index(a, b) => references(a, name) || references(b, name),
        Expr::Call(t, _, args) => {
            t.as_deref().is_some_and(|t| references(t, name))
                || args.iter().any(|a| references(a, name))
        }
        Expr::List(items) => items.iter().any(|a| references(a, name)),
        Expr::Map(entries) => entries
            .iter()
            .any(|(k, v)| references(k, name) || references(v, name)),
        Expr::Unary(_, a) => references(a, name),
        Expr::Binary(_, a, b) => references(a, name) || references(b, name),
        Expr::Cond(a, b, c) => references(a, name) || references(b, name) || references(c, name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence() {
        let e = parse("a || b && !c").unwrap();
        assert_eq!(
            e,
            Expr::Binary(
                "||",
                Box::new(Expr::Ident("a".into())),
                Box::new(Expr::Binary(
                    "&&",
                    Box::new(Expr::Ident("b".into())),
                    Box::new(Expr::Unary("!", Box::new(Expr::Ident("c".into()))))
                ))
            )
        );
        let e = parse("1 + 2 * 3 == 7 ? 'y' : 'n'").unwrap();
        assert!(matches!(e, Expr::Cond(..)));
    }

    #[test]
    fn deep_input_is_an_error_not_a_crash() {
        assert!(parse(&format!("{}1{}", "(".repeat(1000), ")".repeat(1000))).is_err());
        assert!(parse(&"!".repeat(1000)).is_err());
        assert!(parse(&vec!["1"; 1000].join(" + ")).is_err());
        assert!(parse(&format!("a{}", ".b".repeat(1000))).is_err());
        assert!(parse(&vec!["1"; 100].join(" + ")).is_ok());
    }

    proptest::proptest! {
        // A fixed seed: the same cases on every run and machine.
        #![proptest_config(proptest::test_runner::Config {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_ca71),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]
        #[test]
        fn parsing_and_evaluating_never_panic(src in "[a-z0-9 .()\\[\\]{}:,!?&|=<>+*/%'\"-]{0,60}") {
            if let Ok(e) = parse(&src) {
                let _ = super::super::eval::eval(&e, &super::super::eval::Scope::root(vec![("self".into(), super::super::value::Val::Int(1))]));
            }
        }
    }

    #[test]
    fn members_calls_and_literals() {
        let e = parse("self.items.all(i, i.name.startsWith('a')) && {'k': [1, 2,]}['k'][0] == -1")
            .unwrap();
        assert!(references(&e, "self"));
        assert!(!references(&e, "oldSelf"));
        assert!(parse("a.").is_err());
        assert!(parse("(a").is_err());
        assert!(parse("a b").is_err());
    }
}
