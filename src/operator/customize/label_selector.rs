//! Kubernetes label selectors as apimachinery v0.34 `labels.Parse` reads them, and
//! `Selector.Matches` (used by `patches[].target.labelSelector`, R7.1.1).
//!
//! Grammar: comma-separated requirements `key`, `!key`, `key=v`, `key==v`, `key!=v`,
//! `key in (a,b)`, `key notin (a,b)`, `key>n`, `key<n`; keys are qualified names, values
//! label values. Error texts are the parser's and `field.Error`'s.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::go::quote::quote as go_quote;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Error,
    End,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

fn token_of(s: &str) -> Option<Tok> {
    Some(match s {
        ")" => Tok::ClosedPar,
        "," => Tok::Comma,
        "!" => Tok::DoesNotExist,
        "==" => Tok::DoubleEquals,
        "=" => Tok::Equals,
        ">" => Tok::GreaterThan,
        "in" => Tok::In,
        "<" => Tok::LessThan,
        "!=" => Tok::NotEquals,
        "notin" => Tok::NotIn,
        "(" => Tok::OpenPar,
        _ => return None,
    })
}

fn is_whitespace(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special(c: u8) -> bool {
    matches!(c, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// The lexer: the whole token list, ending with `End`.
fn lex(s: &str) -> Vec<(Tok, String)> {
    let b = s.as_bytes();
    let mut pos = 0;
    let mut out = Vec::new();
    loop {
        while pos < b.len() && is_whitespace(b[pos]) {
            pos += 1;
        }
        // Go reads a 0 byte as end of input.
        if pos >= b.len() || b[pos] == 0 {
            out.push((Tok::End, String::new()));
            return out;
        }
        if is_special(b[pos]) {
            let start = pos;
            let mut last: Option<(Tok, usize)> = None;
            while pos < b.len() && is_special(b[pos]) {
                let cand = &s[start..pos + 1];
                if let Some(t) = token_of(cand) {
                    last = Some((t, pos + 1));
                } else if last.is_some() {
                    break;
                }
                pos += 1;
            }
            match last {
                Some((t, end)) => {
                    pos = end;
                    out.push((t, s[start..end].to_string()));
                }
                None => out.push((
                    Tok::Error,
                    format!("error expected: keyword found '{}'", &s[start..pos]),
                )),
            }
        } else {
            let start = pos;
            while pos < b.len() && b[pos] != 0 && !is_special(b[pos]) && !is_whitespace(b[pos]) {
                pos += 1;
            }
            let lit = &s[start..pos];
            let t = match token_of(lit) {
                Some(t) => t,
                None => Tok::Identifier,
            };
            out.push((t, lit.to_string()));
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    DoesNotExist,
    Equals,
    DoubleEquals,
    In,
    NotEquals,
    NotIn,
    Exists,
    GreaterThan,
    LessThan,
}

/// One requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    key: String,
    op: Op,
    values: Vec<String>,
}

/// A parsed selector (requirements ANDed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector(Vec<Requirement>);

struct Parser {
    items: Vec<(Tok, String)>,
    pos: usize,
}

#[derive(PartialEq)]
enum Ctx {
    KeyAndOperator,
    Values,
}

impl Parser {
    fn adjust(t: Tok, ctx: &Ctx) -> Tok {
        if *ctx == Ctx::Values && matches!(t, Tok::In | Tok::NotIn) {
            Tok::Identifier
        } else {
            t
        }
    }
    fn lookahead(&self, ctx: Ctx) -> (Tok, String) {
        let (t, l) = &self.items[self.pos];
        (Self::adjust(*t, &ctx), l.clone())
    }
    fn consume(&mut self, ctx: Ctx) -> (Tok, String) {
        let (t, l) = self.items[self.pos].clone();
        self.pos = (self.pos + 1).min(self.items.len() - 1);
        (Self::adjust(t, &ctx), l)
    }

    fn parse(&mut self) -> Result<Vec<Requirement>, String> {
        let mut reqs = Vec::new();
        loop {
            let (t, lit) = self.lookahead(Ctx::Values);
            match t {
                Tok::Identifier | Tok::DoesNotExist => {
                    let r = self
                        .parse_requirement()
                        .map_err(|e| format!("unable to parse requirement: {e}"))?;
                    reqs.push(r);
                    let (t, l) = self.consume(Ctx::Values);
                    match t {
                        Tok::End => return Ok(reqs),
                        Tok::Comma => {
                            let (t2, l2) = self.lookahead(Ctx::Values);
                            if t2 != Tok::Identifier && t2 != Tok::DoesNotExist {
                                return Err(format!(
                                    "found '{l2}', expected: identifier after ','"
                                ));
                            }
                        }
                        _ => return Err(format!("found '{l}', expected: ',' or 'end of string'")),
                    }
                }
                Tok::End => return Ok(reqs),
                _ => {
                    return Err(format!(
                        "found '{lit}', expected: !, identifier, or 'end of string'"
                    ))
                }
            }
        }
    }

    fn parse_requirement(&mut self) -> Result<Requirement, String> {
        let (key, op) = self.parse_key_and_infer_operator()?;
        if let Some(op @ (Op::Exists | Op::DoesNotExist)) = op {
            return new_requirement(key, op, Vec::new());
        }
        let op = self.parse_operator()?;
        let values = match op {
            Op::In | Op::NotIn => self.parse_values()?,
            _ => self.parse_exact_value()?,
        };
        new_requirement(key, op, values.into_iter().collect())
    }

    fn parse_key_and_infer_operator(&mut self) -> Result<(String, Option<Op>), String> {
        let mut op = None;
        let (mut t, mut lit) = self.consume(Ctx::Values);
        if t == Tok::DoesNotExist {
            op = Some(Op::DoesNotExist);
            (t, lit) = self.consume(Ctx::Values);
        }
        if t != Tok::Identifier {
            return Err(format!("found '{lit}', expected: identifier"));
        }
        let errs = qualified_name_errors(&lit);
        if !errs.is_empty() {
            return Err(invalid("<nil>", &lit, &errs.join("; ")));
        }
        let (t, _) = self.lookahead(Ctx::Values);
        if (t == Tok::End || t == Tok::Comma) && op != Some(Op::DoesNotExist) {
            op = Some(Op::Exists);
        }
        Ok((lit, op))
    }

    fn parse_operator(&mut self) -> Result<Op, String> {
        let (t, lit) = self.consume(Ctx::KeyAndOperator);
        Ok(match t {
            Tok::In => Op::In,
            Tok::Equals => Op::Equals,
            Tok::DoubleEquals => Op::DoubleEquals,
            Tok::GreaterThan => Op::GreaterThan,
            Tok::LessThan => Op::LessThan,
            Tok::NotIn => Op::NotIn,
            Tok::NotEquals => Op::NotEquals,
            _ => {
                return Err(format!(
                    "found '{lit}', expected: in, notin, =, ==, !=, gt, lt"
                ))
            }
        })
    }

    fn parse_values(&mut self) -> Result<BTreeSet<String>, String> {
        let (t, lit) = self.consume(Ctx::Values);
        if t != Tok::OpenPar {
            return Err(format!("found '{lit}' expected: '('"));
        }
        let (t, lit) = self.lookahead(Ctx::Values);
        match t {
            Tok::Identifier | Tok::Comma => {
                let s = self.parse_identifiers_list()?;
                let (t, _) = self.consume(Ctx::Values);
                if t != Tok::ClosedPar {
                    return Err(format!("found '{lit}', expected: ')'"));
                }
                Ok(s)
            }
            Tok::ClosedPar => {
                self.consume(Ctx::Values);
                Ok(BTreeSet::from([String::new()]))
            }
            _ => Err(format!("found '{lit}', expected: ',', ')' or identifier")),
        }
    }

    fn parse_identifiers_list(&mut self) -> Result<BTreeSet<String>, String> {
        let mut s = BTreeSet::new();
        loop {
            let (t, lit) = self.consume(Ctx::Values);
            match t {
                Tok::Identifier => {
                    s.insert(lit);
                    let (t2, lit2) = self.lookahead(Ctx::Values);
                    match t2 {
                        Tok::Comma => continue,
                        Tok::ClosedPar => return Ok(s),
                        _ => return Err(format!("found '{lit2}', expected: ',' or ')'")),
                    }
                }
                Tok::Comma => {
                    if s.is_empty() {
                        s.insert(String::new());
                    }
                    let (t2, _) = self.lookahead(Ctx::Values);
                    if t2 == Tok::ClosedPar {
                        s.insert(String::new());
                        return Ok(s);
                    }
                    if t2 == Tok::Comma {
                        self.consume(Ctx::Values);
                        s.insert(String::new());
                    }
                }
                _ => return Err(format!("found '{lit}', expected: ',', or identifier")),
            }
        }
    }

    fn parse_exact_value(&mut self) -> Result<BTreeSet<String>, String> {
        let (t, _) = self.lookahead(Ctx::Values);
        if t == Tok::End || t == Tok::Comma {
            return Ok(BTreeSet::from([String::new()]));
        }
        let (t, lit) = self.consume(Ctx::Values);
        if t == Tok::Identifier {
            return Ok(BTreeSet::from([lit]));
        }
        Err(format!("found '{lit}', expected: identifier"))
    }
}

/// `field.Invalid(path, value, detail).Error()` for a string value.
fn invalid(path: &str, value: &str, detail: &str) -> String {
    format!("{path}: Invalid value: {}: {detail}", go_quote(value))
}

fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut m = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            m.push_str(" or ");
        }
        m.push_str(&format!("'{e}', "));
    }
    m.push_str(&format!("regex used for validation is '{fmt}')"));
    m
}

const QNAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QNAME_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

fn qname_ok(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

fn dns1123_subdomain_ok(s: &str) -> bool {
    s.split('.').all(|l| {
        let b = l.as_bytes();
        !b.is_empty()
            && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
            && (b[b.len() - 1].is_ascii_lowercase() || b[b.len() - 1].is_ascii_digit())
            && b.iter()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
    })
}

/// `validation.IsQualifiedName`.
fn qualified_name_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.len() {
        1 => parts[0],
        2 => {
            let prefix = parts[0];
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                if prefix.len() > 253 {
                    errs.push("prefix part must be no more than 253 characters".to_string());
                }
                if !dns1123_subdomain_ok(prefix) {
                    errs.push(format!(
                        "prefix part {}",
                        regex_error(
                            DNS1123_SUBDOMAIN_MSG,
                            DNS1123_SUBDOMAIN_FMT,
                            &["example.com"]
                        )
                    ));
                }
            }
            parts[1]
        }
        _ => {
            errs.push(format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(QNAME_MSG, QNAME_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 characters".to_string());
    }
    if !qname_ok(name) {
        errs.push(format!(
            "name part {}",
            regex_error(QNAME_MSG, QNAME_FMT, &["MyName", "my.name", "123-abc"])
        ));
    }
    errs
}

/// `validation.IsValidLabelValue`.
fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !value.is_empty() && !qname_ok(value) {
        errs.push(regex_error(
            LABEL_VALUE_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// `NewRequirement` for what the parser produces (the key is already valid).
fn new_requirement(key: String, op: Op, values: Vec<String>) -> Result<Requirement, String> {
    let mut errs: Vec<String> = Vec::new();
    if matches!(op, Op::GreaterThan | Op::LessThan) {
        for (i, v) in values.iter().enumerate() {
            if v.parse::<i64>().is_err() {
                errs.push(invalid(
                    &format!("values[{i}]"),
                    v,
                    "for 'Gt', 'Lt' operators, the value must be an integer",
                ));
            }
        }
    }
    for (i, v) in values.iter().enumerate() {
        let e = label_value_errors(v);
        if !e.is_empty() {
            errs.push(invalid(&format!("values[{i}][{key}]"), v, &e.join("; ")));
        }
    }
    if errs.is_empty() {
        return Ok(Requirement { key, op, values });
    }
    Err(crate::go::errors::aggregate(errs))
}

impl Selector {
    /// `labels.Parse`.
    pub fn parse(s: &str) -> Result<Selector, String> {
        let mut p = Parser {
            items: lex(s),
            pos: 0,
        };
        let mut reqs = p.parse()?;
        reqs.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Selector(reqs))
    }

    /// `Selector.Matches(labels.Set(obj.GetLabels()))`.
    pub fn matches(&self, labels: &Map<String, Value>) -> bool {
        self.0.iter().all(|r| r.matches(labels))
    }
}

impl Requirement {
    fn matches(&self, labels: &Map<String, Value>) -> bool {
        let val = labels.get(&self.key).and_then(Value::as_str);
        let has = |v: &str| self.values.iter().any(|x| x == v);
        match self.op {
            Op::In | Op::Equals | Op::DoubleEquals => val.is_some_and(has),
            Op::NotIn | Op::NotEquals => !val.is_some_and(has),
            Op::Exists => val.is_some(),
            Op::DoesNotExist => val.is_none(),
            Op::GreaterThan | Op::LessThan => {
                let Some(l) = val.and_then(|v| v.parse::<i64>().ok()) else {
                    return false;
                };
                if self.values.len() != 1 {
                    return false;
                }
                let Ok(r) = self.values[0].parse::<i64>() else {
                    return false;
                };
                if self.op == Op::GreaterThan {
                    l > r
                } else {
                    l < r
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn m(sel: &str, l: Value) -> bool {
        Selector::parse(sel).unwrap().matches(&labels(l))
    }

    #[test]
    fn equality_set_and_existence() {
        let l = json!({"app": "capi", "tier": "cp", "n": "5"});
        assert!(m("app=capi", l.clone()));
        assert!(m("app==capi,tier", l.clone()));
        assert!(!m("app!=capi", l.clone()));
        assert!(m("app in (capi, other)", l.clone()));
        assert!(!m("app notin (capi)", l.clone()));
        assert!(m("missing notin (x)", l.clone()));
        assert!(m("!missing", l.clone()));
        assert!(!m("!app", l.clone()));
        assert!(m("n>4,n<6", l.clone()));
        assert!(!m("n>5", l.clone()));
        assert!(m("", l.clone()));
        assert!(m("x in (in, notin),app", json!({"x": "in", "app": "a"})));
    }

    #[test]
    fn syntax_errors() {
        assert_eq!(
            Selector::parse("app=").unwrap(),
            Selector(vec![Requirement {
                key: "app".into(),
                op: Op::Equals,
                values: vec!["".into()]
            }])
        );
        assert_eq!(
            Selector::parse("app in capi").unwrap_err(),
            "unable to parse requirement: found 'capi' expected: '('"
        );
        assert_eq!(
            Selector::parse("a b").unwrap_err(),
            "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"
        );
        assert_eq!(
            Selector::parse("a,").unwrap_err(),
            "found '', expected: identifier after ','"
        );
        assert_eq!(
            Selector::parse("=a").unwrap_err(),
            "found '=', expected: !, identifier, or 'end of string'"
        );
        assert_eq!(
            Selector::parse("a=b c").unwrap_err(),
            "found 'c', expected: ',' or 'end of string'"
        );
    }

    #[test]
    fn validation_errors() {
        assert_eq!(
            Selector::parse("-a=b").unwrap_err(),
            "unable to parse requirement: <nil>: Invalid value: \"-a\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        );
        assert_eq!(
            Selector::parse("a>x").unwrap_err(),
            "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer"
        );
        assert!(Selector::parse("a=-x").unwrap_err().starts_with(
            "unable to parse requirement: values[0][a]: Invalid value: \"-x\": a valid label must be"
        ));
    }
}
