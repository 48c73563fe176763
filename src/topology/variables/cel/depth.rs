//! cel-go's two nesting limits, which the API server's CEL compiler applies when the
//! ClusterClass webhook compiles a rule (cel-go v0.22 parser, `MaxRecursionDepth`
//! default 250). A rule over either limit fails to compile, so the ClusterClass is
//! rejected; our own evaluator has a lower nesting bound of its own and only warns.
//!
//! 1. While parsing, a listener counts, per grammar rule, how many invocations of that
//!    rule are active at once (ANTLR's left-recursion loops exit each context before
//!    pushing the next, so a chain `a + b + c` does not add up; parentheses, list,
//!    map and call arguments, indexes, the ternary's else branch, and the right operand
//!    of a relation or an arithmetic operator do). Over 250: `expression recursion
//!    limit exceeded: 250`.
//! 2. Building the AST, the visitor counts the compound nodes on the current path:
//!    ternaries, relations, arithmetic, field selections, method calls and indexes
//!    (`||`/`&&` are balanced, `!`/`-`, global calls, lists and maps are free, and
//!    parentheses are transparent). Over 250: `max recursion depth exceeded`.
//!
//! [`check`] walks the tokens along the grammar (cel-go's `CEL.g4`) without building
//! anything; it gives up (`None`) on what our lexer or grammar does not know, which the
//! syntax check reports.

use super::lexer::{lex, Tok};

/// cel-go's default `MaxRecursionDepth`.
pub const LIMIT: usize = 250;

/// Which limit a rule breaks, as cel-go words it (the location is `-1:0`: none).
pub fn check(rule: &str) -> Option<&'static str> {
    let toks = lex(rule).ok()?;
    let mut w = Walker {
        toks,
        pos: 0,
        expr: 0,
        relation: 0,
        calc: 0,
    };
    match w.expr() {
        Err(Stop::Listener) => Some("expression recursion limit exceeded: 250"),
        Err(Stop::Unknown) => None,
        Ok(_) if w.pos != w.toks.len() => None,
        Ok(visitor) if visitor > LIMIT => Some("max recursion depth exceeded"),
        Ok(_) => None,
    }
}

enum Stop {
    /// A grammar rule nested more than [`LIMIT`] times.
    Listener,
    /// Not something this walk knows (a syntax error, an unsupported form).
    Unknown,
}

/// The visitor depth of a subtree (compound nodes on its deepest path).
type Depth = Result<usize, Stop>;

struct Walker {
    toks: Vec<Tok>,
    pos: usize,
    /// Active invocations of the rules that can nest deepest: `expr` (every other rule
    /// but these two is entered at most once per `expr`), `relation` and `calc` (their
    /// right operands are nested invocations).
    expr: usize,
    relation: usize,
    calc: usize,
}

fn enter(counter: &mut usize) -> Result<(), Stop> {
    *counter += 1;
    if *counter > LIMIT {
        Err(Stop::Listener)
    } else {
        Ok(())
    }
}

impl Walker {
    fn peek(&self, op: &str) -> bool {
        matches!(self.toks.get(self.pos), Some(Tok::Op(o)) if *o == op)
    }

    fn eat(&mut self, op: &str) -> bool {
        let hit = self.peek(op);
        self.pos += usize::from(hit);
        hit
    }

    fn expect(&mut self, op: &str) -> Result<(), Stop> {
        if self.eat(op) {
            Ok(())
        } else {
            Err(Stop::Unknown)
        }
    }

    /// `expr : conditionalOr ('?' conditionalOr ':' expr)?`
    fn expr(&mut self) -> Depth {
        enter(&mut self.expr)?;
        let c = self.or()?;
        let d = if self.eat("?") {
            let a = self.or()?;
            self.expect(":")?;
            let b = self.expr()?;
            1 + c.max(a).max(b)
        } else {
            c
        };
        self.expr -= 1;
        Ok(d)
    }

    /// `conditionalOr` / `conditionalAnd`: operands in a loop, balanced in the AST.
    fn or(&mut self) -> Depth {
        let mut d = self.and()?;
        while self.eat("||") {
            d = d.max(self.and()?);
        }
        Ok(d)
    }

    fn and(&mut self) -> Depth {
        let mut d = self.relation()?;
        while self.eat("&&") {
            d = d.max(self.relation()?);
        }
        Ok(d)
    }

    /// `relation : calc | relation op relation` (one precedence level): the right
    /// operand is a nested `relation` invocation.
    fn relation(&mut self) -> Depth {
        enter(&mut self.relation)?;
        let mut d = self.calc_rule()?;
        loop {
            let is_op = match self.toks.get(self.pos) {
                Some(Tok::Op(o)) => ["==", "!=", "<", "<=", ">", ">="].contains(o),
                Some(Tok::Ident(i)) => i == "in",
                _ => false,
            };
            if !is_op {
                break;
            }
            self.pos += 1;
            enter(&mut self.relation)?;
            let r = self.calc_rule()?;
            self.relation -= 1;
            d = 1 + d.max(r);
        }
        self.relation -= 1;
        Ok(d)
    }

    /// One invocation of `calc` (from `relation`).
    fn calc_rule(&mut self) -> Depth {
        enter(&mut self.calc)?;
        let d = self.additive();
        self.calc -= 1;
        d
    }

    /// `calc` at precedence 1 (`+`, `-`); each right operand is a nested `calc(2)`.
    fn additive(&mut self) -> Depth {
        let mut d = self.multiplicative()?;
        loop {
            if !(self.eat("+") || self.eat("-")) {
                return Ok(d);
            }
            enter(&mut self.calc)?;
            let r = self.multiplicative()?;
            self.calc -= 1;
            d = 1 + d.max(r);
        }
    }

    /// `calc` at precedence 2 (`*`, `/`, `%`); each right operand is a nested `calc(3)`.
    fn multiplicative(&mut self) -> Depth {
        let mut d = self.unary()?;
        loop {
            if !(self.eat("*") || self.eat("/") || self.eat("%")) {
                return Ok(d);
            }
            enter(&mut self.calc)?;
            let r = self.unary()?;
            self.calc -= 1;
            d = 1 + d.max(r);
        }
    }

    /// `unary : member | '!'+ member | '-'+ member` (flat).
    fn unary(&mut self) -> Depth {
        while self.eat("!") || self.eat("-") {}
        self.member()
    }

    /// `member : primary | member '.' id | member '.' id '(' args ')' | member '[' expr ']'`
    /// (a left-recursion loop; each step is one compound node).
    fn member(&mut self) -> Depth {
        let mut d = self.primary()?;
        loop {
            if self.eat(".") {
                if !matches!(self.toks.get(self.pos), Some(Tok::Ident(_))) {
                    return Err(Stop::Unknown);
                }
                self.pos += 1;
                d = if self.eat("(") {
                    1 + d.max(self.list(")")?)
                } else {
                    1 + d
                };
            } else if self.eat("[") {
                let i = self.expr()?;
                self.expect("]")?;
                d = 1 + d.max(i);
            } else {
                return Ok(d);
            }
        }
    }

    /// Comma-separated `expr`s up to `close` (a trailing comma allowed), their deepest.
    fn list(&mut self, close: &str) -> Depth {
        let mut d = 0;
        if self.eat(close) {
            return Ok(d);
        }
        loop {
            d = d.max(self.expr()?);
            if self.eat(close) {
                return Ok(d);
            }
            self.expect(",")?;
            if self.eat(close) {
                return Ok(d);
            }
        }
    }

    fn primary(&mut self) -> Depth {
        let t = self.toks.get(self.pos).cloned().ok_or(Stop::Unknown)?;
        self.pos += 1;
        match t {
            Tok::Int(_) | Tok::Uint(_) | Tok::Double(_) | Tok::Str(_) => Ok(0),
            Tok::Ident(_) if self.eat("(") => self.list(")"),
            Tok::Ident(_) => Ok(0),
            Tok::Op("(") => {
                let d = self.expr()?;
                self.expect(")")?;
                Ok(d)
            }
            Tok::Op("[") => self.list("]"),
            Tok::Op("{") => {
                let mut d = 0;
                if self.eat("}") {
                    return Ok(d);
                }
                loop {
                    d = d.max(self.expr()?);
                    self.expect(":")?;
                    d = d.max(self.expr()?);
                    if self.eat("}") {
                        return Ok(d);
                    }
                    self.expect(",")?;
                    if self.eat("}") {
                        return Ok(d);
                    }
                }
            }
            Tok::Op(_) => Err(Stop::Unknown),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTENER: Option<&str> = Some("expression recursion limit exceeded: 250");
    const VISITOR: Option<&str> = Some("max recursion depth exceeded");

    fn nested(open: &str, inner: &str, close: &str, n: usize) -> String {
        format!("{}{inner}{}", open.repeat(n), close.repeat(n))
    }

    // The boundaries below are the ones clusterctl v1.10.10 shows (cel-go v0.22.0).
    #[test]
    fn parentheses_lists_and_calls_nest_expr() {
        assert_eq!(check(&(nested("(", "1", ")", 249) + " > 0")), None);
        assert_eq!(check(&(nested("(", "1", ")", 250) + " > 0")), LISTENER);
        assert_eq!(check(&(nested("[", "1", "]", 249) + " == []")), None);
        assert_eq!(check(&(nested("[", "1", "]", 250) + " == []")), LISTENER);
        assert_eq!(check(&nested("size(", "self", ")", 250)), LISTENER);
        assert_eq!(check(&nested("size(", "self", ")", 249)), None);
    }

    #[test]
    fn chains_count_in_the_visitor() {
        let plus = |k: usize| vec!["1"; k + 1].join(" + ") + " > 0";
        assert_eq!(check(&plus(249)), None);
        assert_eq!(check(&plus(250)), VISITOR);
        let select = |k: usize| format!("self{} == 1", ".a".repeat(k));
        assert_eq!(check(&select(249)), None);
        assert_eq!(check(&select(250)), VISITOR);
        // `&&` and `||` chains are balanced: no limit but the expression size.
        assert_eq!(check(&vec!["true"; 1000].join(" && ")), None);
        assert_eq!(check(&("!".repeat(1000) + "true")), None);
    }

    #[test]
    fn right_operands_nest_their_rule() {
        // `1 == (1 == (...))`: relation twice per level, expr once.
        let rel = |n: usize| format!("{}1{}", "1 == (".repeat(n), ")".repeat(n));
        assert_eq!(check(&rel(124)), None);
        assert_eq!(check(&rel(125)), LISTENER);
        // `1 + 1 * (1 + 1 * (...))`: calc three times per level (the rule, and the
        // right operands of `+` and of `*`).
        let calc = |n: usize| format!("{}1{} > 0", "1 + 1 * (".repeat(n), ")".repeat(n));
        assert_eq!(check(&calc(83)), None);
        assert_eq!(check(&calc(84)), LISTENER);
    }

    #[test]
    fn what_it_does_not_know_is_left_to_the_syntax_check() {
        assert_eq!(check("self.size() >"), None);
        assert_eq!(check("a b"), None);
        assert_eq!(check(""), None);
    }
}
