//! Parser for Go text/template (text/template/parse/parse.go semantics): the
//! node tree, Go's parse error texts and Go's `Node.String()` forms used in
//! execution error contexts.

use std::collections::BTreeMap;
use std::fmt;

use super::lex::{lex, Item, Tok};

/// Deepest nesting of control structures and parentheses accepted.
const MAX_DEPTH: usize = 100;

#[derive(Debug, Clone)]
pub struct Number {
    pub text: String,
    pub is_int: bool,
    pub int: i64,
    pub is_uint: bool,
    pub is_float: bool,
    pub float: f64,
}

#[derive(Debug, Clone)]
pub enum Arg {
    Field {
        pos: usize,
        idents: Vec<String>,
    },
    Variable {
        pos: usize,
        idents: Vec<String>,
    },
    Chain {
        pos: usize,
        node: Box<Arg>,
        fields: Vec<String>,
    },
    Ident {
        pos: usize,
        name: String,
    },
    Dot {
        pos: usize,
    },
    Nil {
        pos: usize,
    },
    Bool {
        pos: usize,
        value: bool,
    },
    Number {
        pos: usize,
        num: Number,
    },
    Str {
        pos: usize,
        quoted: String,
        text: String,
    },
    Pipe(Box<Pipe>),
}

impl Arg {
    pub fn pos(&self) -> usize {
        match self {
            Arg::Field { pos, .. }
            | Arg::Variable { pos, .. }
            | Arg::Chain { pos, .. }
            | Arg::Ident { pos, .. }
            | Arg::Dot { pos }
            | Arg::Nil { pos }
            | Arg::Bool { pos, .. }
            | Arg::Number { pos, .. }
            | Arg::Str { pos, .. } => *pos,
            Arg::Pipe(p) => p.pos,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Cmd {
    pub pos: usize,
    pub args: Vec<Arg>,
}

#[derive(Debug, Clone)]
pub struct Pipe {
    pub pos: usize,
    pub is_assign: bool,
    pub decl: Vec<String>,
    pub cmds: Vec<Cmd>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    If,
    Range,
    With,
}

impl Control {
    fn name(self) -> &'static str {
        match self {
            Control::If => "if",
            Control::Range => "range",
            Control::With => "with",
        }
    }
}

#[derive(Debug, Clone)]
#[allow(dead_code)] // break/continue positions kept as Go's nodes have them
pub enum Node {
    Text(String),
    Action {
        pos: usize,
        pipe: Pipe,
    },
    Control {
        kind: Control,
        pos: usize,
        pipe: Pipe,
        list: Vec<Node>,
        else_list: Option<Vec<Node>>,
    },
    Template {
        pos: usize,
        name: String,
        pipe: Option<Pipe>,
    },
    Break {
        pos: usize,
    },
    Continue {
        pos: usize,
    },
}

/// Parsed templates: the main one is `tpl`, plus `define`d / `block` ones.
#[derive(Debug, Default)]
pub struct Templates {
    pub trees: BTreeMap<String, Vec<Node>>,
}

// ---------------------------------------------------------------------------
// Go's String() forms.

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arg::Field { idents, .. } => {
                for i in idents {
                    write!(f, ".{i}")?;
                }
                Ok(())
            }
            Arg::Variable { idents, .. } => f.write_str(&idents.join(".")),
            Arg::Chain { node, fields, .. } => {
                if let Arg::Pipe(_) = **node {
                    write!(f, "({node})")?;
                } else {
                    write!(f, "{node}")?;
                }
                for x in fields {
                    write!(f, ".{x}")?;
                }
                Ok(())
            }
            Arg::Ident { name, .. } => f.write_str(name),
            Arg::Dot { .. } => f.write_str("."),
            Arg::Nil { .. } => f.write_str("nil"),
            Arg::Bool { value, .. } => write!(f, "{value}"),
            Arg::Number { num, .. } => f.write_str(&num.text),
            Arg::Str { quoted, .. } => f.write_str(quoted),
            Arg::Pipe(p) => write!(f, "{p}"),
        }
    }
}

impl fmt::Display for Cmd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            if let Arg::Pipe(p) = a {
                write!(f, "({p})")?;
            } else {
                write!(f, "{a}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for Pipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.decl.is_empty() {
            f.write_str(&self.decl.join(", "))?;
            f.write_str(if self.is_assign { " = " } else { " := " })?;
        }
        for (i, c) in self.cmds.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

pub fn list_string(list: &[Node]) -> String {
    list.iter().map(|n| n.to_string()).collect()
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Node::Text(t) => f.write_str(t),
            Node::Action { pipe, .. } => write!(f, "{{{{{pipe}}}}}"),
            Node::Control {
                kind,
                pipe,
                list,
                else_list,
                ..
            } => {
                write!(f, "{{{{{} {pipe}}}}}{}", kind.name(), list_string(list))?;
                if let Some(e) = else_list {
                    write!(f, "{{{{else}}}}{}", list_string(e))?;
                }
                f.write_str("{{end}}")
            }
            Node::Template { name, pipe, .. } => match pipe {
                None => write!(f, "{{{{template {}}}}}", crate::go::quote::quote(name)),
                Some(p) => write!(f, "{{{{template {} {p}}}}}", crate::go::quote::quote(name)),
            },
            Node::Break { .. } => f.write_str("{{break}}"),
            Node::Continue { .. } => f.write_str("{{continue}}"),
        }
    }
}

// ---------------------------------------------------------------------------
// Parser.

/// What `itemList` stopped at.
#[allow(dead_code)]
enum Stop {
    End,
    Else { pos: usize },
}

struct Parser<'a> {
    name: &'a str,
    items: Vec<Item>,
    i: usize,
    seen: usize,
    vars: Vec<String>,
    range_depth: usize,
    depth: usize,
    action_line: usize,
    funcs: &'a dyn Fn(&str) -> bool,
    templates: Templates,
}

type PResult<T> = Result<T, String>;

/// Parse `text` as template `name`; `has_func` says whether a function exists.
pub fn parse(name: &str, text: &str, has_func: &dyn Fn(&str) -> bool) -> PResult<Templates> {
    let mut p = Parser {
        name,
        items: lex(text),
        i: 0,
        seen: 0,
        vars: vec!["$".into()],
        range_depth: 0,
        depth: 0,
        action_line: 0,
        funcs: has_func,
        templates: Templates::default(),
    };
    let root = p.parse_root()?;
    p.add_tree(name.to_string(), root)?;
    Ok(p.templates)
}

fn is_empty_tree(list: &[Node]) -> bool {
    list.iter().all(|n| match n {
        Node::Text(t) => t.trim_matches([' ', '\t', '\r', '\n']).is_empty(),
        _ => false,
    })
}

impl Parser<'_> {
    fn item(&mut self, i: usize) -> Item {
        let i = i.min(self.items.len().saturating_sub(1));
        if i > self.seen {
            self.seen = i;
        }
        self.items.get(i).cloned().unwrap_or(Item {
            tok: Tok::Eof,
            pos: 0,
            line: 1,
        })
    }

    fn next(&mut self) -> Item {
        let it = self.item(self.i);
        self.i += 1;
        it
    }

    fn peek(&mut self) -> Item {
        self.item(self.i)
    }

    fn backup(&mut self) {
        self.i = self.i.saturating_sub(1);
    }

    fn next_non_space(&mut self) -> Item {
        loop {
            let it = self.next();
            if it.tok != Tok::Space {
                return it;
            }
        }
    }

    fn peek_non_space(&mut self) -> Item {
        let it = self.next_non_space();
        self.backup();
        it
    }

    fn err<T>(&mut self, msg: impl fmt::Display) -> PResult<T> {
        let line = self.item(self.seen).line;
        Err(format!("template: {}:{}: {}", self.name, line, msg))
    }

    fn unexpected<T>(&mut self, item: &Item, context: &str) -> PResult<T> {
        if let Tok::Error(m) = &item.tok {
            let mut extra = String::new();
            if self.action_line != 0 && self.action_line != item.line {
                extra = format!(" in action started at {}:{}", self.name, self.action_line);
                if m.ends_with(" action") {
                    extra = extra[" in action".len()..].to_string();
                }
            }
            return self.err(format!("{m}{extra}"));
        }
        self.err(format!("unexpected {} in {}", item.describe(), context))
    }

    fn expect(&mut self, want: Tok, context: &str) -> PResult<Item> {
        let it = self.next_non_space();
        if it.tok != want {
            return self.unexpected(&it, context);
        }
        Ok(it)
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err("max expression depth exceeded");
        }
        Ok(())
    }

    fn add_tree(&mut self, name: String, list: Vec<Node>) -> PResult<()> {
        match self.templates.trees.get(&name) {
            Some(old) if !is_empty_tree(old) && !is_empty_tree(&list) => self.err(format!(
                "template: multiple definition of template {}",
                crate::go::quote::quote(&name)
            )),
            Some(old) if !is_empty_tree(old) => Ok(()),
            _ => {
                self.templates.trees.insert(name, list);
                Ok(())
            }
        }
    }

    fn parse_root(&mut self) -> PResult<Vec<Node>> {
        let mut root = Vec::new();
        while self.peek().tok != Tok::Eof {
            if self.peek().tok == Tok::LeftDelim {
                let save = self.i;
                self.next();
                if self.next_non_space().tok == Tok::Keyword("define") {
                    self.parse_definition()?;
                    continue;
                }
                self.i = save;
            }
            let n = self.text_or_action()?;
            match n {
                Ok(node) => root.push(node),
                Err(Stop::End) => return self.err("unexpected {{end}}"),
                Err(Stop::Else { .. }) => return self.err("unexpected {{else}}"),
            }
        }
        Ok(root)
    }

    fn parse_definition(&mut self) -> PResult<()> {
        let context = "define clause";
        let tok = self.next_non_space();
        let name = match &tok.tok {
            Tok::Str(q) | Tok::RawStr(q) => match unquote(q) {
                Ok(s) => s,
                Err(e) => return self.err(e),
            },
            _ => return self.unexpected(&tok, context),
        };
        self.expect(Tok::RightDelim, context)?;
        let saved_vars = std::mem::replace(&mut self.vars, vec!["$".into()]);
        let (list, stop) = self.item_list()?;
        self.vars = saved_vars;
        if let Stop::Else { .. } = stop {
            return self.err(format!("unexpected {{{{else}}}} in {context}"));
        }
        self.add_tree(name, list)
    }

    /// Nodes up to `{{end}}` or `{{else}}`.
    fn item_list(&mut self) -> PResult<(Vec<Node>, Stop)> {
        let mut list = Vec::new();
        while self.peek_non_space().tok != Tok::Eof {
            match self.text_or_action()? {
                Ok(n) => list.push(n),
                Err(stop) => return Ok((list, stop)),
            }
        }
        self.err("unexpected EOF")
    }

    fn text_or_action(&mut self) -> PResult<Result<Node, Stop>> {
        let tok = self.next_non_space();
        match tok.tok {
            Tok::Text(t) => Ok(Ok(Node::Text(t))),
            Tok::LeftDelim => {
                let saved = self.action_line;
                self.action_line = tok.line;
                let r = self.action();
                self.action_line = saved;
                r
            }
            _ => {
                let tok = self.item(self.i.saturating_sub(1));
                self.unexpected(&tok, "input")
            }
        }
    }

    fn action(&mut self) -> PResult<Result<Node, Stop>> {
        let tok = self.next_non_space();
        match tok.tok {
            Tok::Keyword("block") => return self.block_control().map(Ok),
            Tok::Keyword("break") => return self.break_continue(true, tok.pos).map(Ok),
            Tok::Keyword("continue") => return self.break_continue(false, tok.pos).map(Ok),
            Tok::Keyword("else") => return self.else_control().map(Err),
            Tok::Keyword("end") => {
                self.expect(Tok::RightDelim, "end")?;
                return Ok(Err(Stop::End));
            }
            Tok::Keyword("if") => return self.control(Control::If).map(Ok),
            Tok::Keyword("range") => return self.control(Control::Range).map(Ok),
            Tok::Keyword("with") => return self.control(Control::With).map(Ok),
            Tok::Keyword("template") => return self.template_control().map(Ok),
            _ => {}
        }
        self.backup();
        let pos = self.peek().pos;
        let pipe = self.pipeline("command", Tok::RightDelim)?;
        Ok(Ok(Node::Action { pos, pipe }))
    }

    fn break_continue(&mut self, is_break: bool, pos: usize) -> PResult<Node> {
        let word = if is_break { "break" } else { "continue" };
        let tok = self.next_non_space();
        if tok.tok != Tok::RightDelim {
            return self.unexpected(&tok, &format!("{{{{{word}}}}}"));
        }
        if self.range_depth == 0 {
            return self.err(format!("{{{{{word}}}}} outside {{{{range}}}}"));
        }
        Ok(if is_break {
            Node::Break { pos }
        } else {
            Node::Continue { pos }
        })
    }

    fn else_control(&mut self) -> PResult<Stop> {
        let peek = self.peek_non_space();
        if matches!(peek.tok, Tok::Keyword("if") | Tok::Keyword("with")) {
            return Ok(Stop::Else { pos: peek.pos });
        }
        let tok = self.expect(Tok::RightDelim, "else")?;
        Ok(Stop::Else { pos: tok.pos })
    }

    fn control(&mut self, kind: Control) -> PResult<Node> {
        self.enter()?;
        let nvars = self.vars.len();
        let r = self.control_inner(kind);
        self.vars.truncate(nvars);
        self.depth -= 1;
        r
    }

    fn control_inner(&mut self, kind: Control) -> PResult<Node> {
        let pipe = self.pipeline(kind.name(), Tok::RightDelim)?;
        if kind == Control::Range {
            self.range_depth += 1;
        }
        let r = self.item_list();
        if kind == Control::Range {
            self.range_depth -= 1;
        }
        let (list, stop) = r?;
        let mut else_list = None;
        if let Stop::Else { .. } = stop {
            let peek = self.peek().tok;
            if kind == Control::If && peek == Tok::Keyword("if") {
                self.next();
                else_list = Some(vec![self.control(Control::If)?]);
            } else if kind == Control::With && peek == Tok::Keyword("with") {
                self.next();
                else_list = Some(vec![self.control(Control::With)?]);
            } else {
                let (l, stop) = self.item_list()?;
                if let Stop::Else { .. } = stop {
                    return self.err("expected end; found {{else}}");
                }
                else_list = Some(l);
            }
        }
        Ok(Node::Control {
            kind,
            pos: pipe.pos,
            pipe,
            list,
            else_list,
        })
    }

    fn template_name(&mut self, tok: &Item, context: &str) -> PResult<String> {
        match &tok.tok {
            Tok::Str(q) | Tok::RawStr(q) => match unquote(q) {
                Ok(s) => Ok(s),
                Err(e) => self.err(e),
            },
            _ => self.unexpected(tok, context),
        }
    }

    fn template_control(&mut self) -> PResult<Node> {
        let context = "template clause";
        let tok = self.next_non_space();
        let name = self.template_name(&tok, context)?;
        let mut pipe = None;
        if self.next_non_space().tok != Tok::RightDelim {
            self.backup();
            pipe = Some(self.pipeline(context, Tok::RightDelim)?);
        }
        Ok(Node::Template {
            pos: tok.pos,
            name,
            pipe,
        })
    }

    fn block_control(&mut self) -> PResult<Node> {
        let context = "block clause";
        let tok = self.next_non_space();
        let name = self.template_name(&tok, context)?;
        let pipe = self.pipeline(context, Tok::RightDelim)?;
        self.enter()?;
        let saved_vars = std::mem::replace(&mut self.vars, vec!["$".into()]);
        let saved_range = std::mem::replace(&mut self.range_depth, 0);
        let r = self.item_list();
        self.vars = saved_vars;
        self.range_depth = saved_range;
        self.depth -= 1;
        let (list, stop) = r?;
        if let Stop::Else { .. } = stop {
            return self.err(format!("unexpected {{{{else}}}} in {context}"));
        }
        self.add_tree(name.clone(), list)?;
        Ok(Node::Template {
            pos: tok.pos,
            name,
            pipe: Some(pipe),
        })
    }

    fn pipeline(&mut self, context: &str, end: Tok) -> PResult<Pipe> {
        let pos = self.peek_non_space().pos;
        let mut pipe = Pipe {
            pos,
            is_assign: false,
            decl: Vec::new(),
            cmds: Vec::new(),
        };
        'decls: loop {
            let v = self.peek_non_space();
            let Tok::Variable(name) = &v.tok else { break };
            let vi = self.i;
            // Position self.i at the variable (peek_non_space skipped spaces).
            while self.peek().tok == Tok::Space {
                self.i += 1;
            }
            let _ = vi;
            let var_at = self.i;
            self.next();
            let after = self.peek();
            let next = self.peek_non_space();
            match next.tok {
                Tok::Assign | Tok::Declare => {
                    pipe.is_assign = next.tok == Tok::Assign;
                    self.next_non_space();
                    pipe.decl.push(name.clone());
                    self.vars.push(name.clone());
                }
                Tok::Other(',') => {
                    self.next_non_space();
                    pipe.decl.push(name.clone());
                    self.vars.push(name.clone());
                    if context == "range" && pipe.decl.len() < 2 {
                        match self.peek_non_space().tok {
                            Tok::Variable(_) | Tok::RightDelim | Tok::RightParen => continue 'decls,
                            _ => return self.err("range can only initialize variables"),
                        }
                    }
                    return self.err(format!("too many declarations in {context}"));
                }
                _ => {
                    let _ = after;
                    self.i = var_at;
                }
            }
            break;
        }
        loop {
            let tok = self.next_non_space();
            if tok.tok == end {
                if pipe.cmds.is_empty() {
                    return self.err(format!("missing value for {context}"));
                }
                for (i, c) in pipe.cmds.iter().enumerate().skip(1) {
                    if matches!(
                        c.args[0],
                        Arg::Bool { .. }
                            | Arg::Dot { .. }
                            | Arg::Nil { .. }
                            | Arg::Number { .. }
                            | Arg::Str { .. }
                    ) {
                        return self.err(format!(
                            "non executable command in pipeline stage {}",
                            i + 1
                        ));
                    }
                }
                return Ok(pipe);
            }
            match tok.tok {
                Tok::Bool(_)
                | Tok::Char(_)
                | Tok::Dot
                | Tok::Field(_)
                | Tok::Ident(_)
                | Tok::Number(_)
                | Tok::Nil
                | Tok::RawStr(_)
                | Tok::Str(_)
                | Tok::Variable(_)
                | Tok::LeftParen => {
                    self.backup();
                    let c = self.command()?;
                    pipe.cmds.push(c);
                }
                _ => return self.unexpected(&tok, context),
            }
        }
    }

    fn command(&mut self) -> PResult<Cmd> {
        let pos = self.peek_non_space().pos;
        let mut cmd = Cmd {
            pos,
            args: Vec::new(),
        };
        loop {
            self.peek_non_space();
            while self.peek().tok == Tok::Space {
                self.i += 1;
            }
            if let Some(a) = self.operand()? {
                cmd.args.push(a);
            }
            let tok = self.next();
            match tok.tok {
                Tok::Space => continue,
                Tok::RightDelim | Tok::RightParen => self.backup(),
                Tok::Pipe => {}
                _ => return self.unexpected(&tok, "operand"),
            }
            break;
        }
        if cmd.args.is_empty() {
            return self.err("empty command");
        }
        Ok(cmd)
    }

    fn operand(&mut self) -> PResult<Option<Arg>> {
        let Some(node) = self.term()? else {
            return Ok(None);
        };
        if let Tok::Field(_) = self.peek().tok {
            let cpos = self.peek().pos;
            let mut fields = Vec::new();
            while let Tok::Field(f) = self.peek().tok {
                self.next();
                fields.push(f[1..].to_string());
            }
            return match node {
                Arg::Field { mut idents, .. } => {
                    idents.extend(fields);
                    Ok(Some(Arg::Field { pos: cpos, idents }))
                }
                Arg::Variable { mut idents, .. } => {
                    idents.extend(fields);
                    Ok(Some(Arg::Variable { pos: cpos, idents }))
                }
                Arg::Bool { .. }
                | Arg::Str { .. }
                | Arg::Number { .. }
                | Arg::Nil { .. }
                | Arg::Dot { .. } => self.err(format!(
                    "unexpected . after term {}",
                    crate::go::quote::quote(&node.to_string())
                )),
                node => Ok(Some(Arg::Chain {
                    pos: cpos,
                    node: Box::new(node),
                    fields,
                })),
            };
        }
        Ok(Some(node))
    }

    fn term(&mut self) -> PResult<Option<Arg>> {
        let tok = self.next_non_space();
        let pos = tok.pos;
        Ok(Some(match tok.tok {
            Tok::Ident(name) => {
                if !(self.funcs)(&name) {
                    return self.err(format!(
                        "function {} not defined",
                        crate::go::quote::quote(&name)
                    ));
                }
                Arg::Ident { pos, name }
            }
            Tok::Dot => Arg::Dot { pos },
            Tok::Nil => Arg::Nil { pos },
            Tok::Variable(name) => {
                if !self.vars.contains(&name) {
                    return self.err(format!(
                        "undefined variable {}",
                        crate::go::quote::quote(&name)
                    ));
                }
                Arg::Variable {
                    pos,
                    idents: vec![name],
                }
            }
            Tok::Field(f) => Arg::Field {
                pos,
                idents: vec![f[1..].to_string()],
            },
            Tok::Bool(value) => Arg::Bool { pos, value },
            Tok::Char(text) | Tok::Number(text) => match parse_number(&text) {
                Ok(num) => Arg::Number { pos, num },
                Err(e) => return self.err(e),
            },
            Tok::LeftParen => {
                self.enter()?;
                let p = self.pipeline("parenthesized pipeline", Tok::RightParen);
                self.depth -= 1;
                Arg::Pipe(Box::new(p?))
            }
            Tok::Str(q) | Tok::RawStr(q) => match unquote(&q) {
                Ok(text) => Arg::Str {
                    pos,
                    quoted: q,
                    text,
                },
                Err(e) => return self.err(e),
            },
            _ => {
                self.backup();
                return Ok(None);
            }
        }))
    }
}

// ---------------------------------------------------------------------------
// Literals.

/// strconv.Unquote for "..", `..` and '..' literals.
pub fn unquote(q: &str) -> Result<String, String> {
    let bad = || "invalid syntax".to_string();
    let b = q.as_bytes();
    if b.len() < 2 || b[0] != b[b.len() - 1] {
        return Err(bad());
    }
    let inner = &q[1..q.len() - 1];
    match b[0] {
        b'`' => {
            if inner.contains('`') {
                return Err(bad());
            }
            Ok(inner.replace('\r', ""))
        }
        b'"' | b'\'' => {
            let quote = b[0] as char;
            let mut out = String::new();
            let mut chars = inner.chars().peekable();
            while let Some(c) = chars.next() {
                if c == quote || c == '\n' {
                    return Err(bad());
                }
                if c != '\\' {
                    out.push(c);
                    continue;
                }
                let e = chars.next().ok_or_else(bad)?;
                match e {
                    'a' => out.push('\x07'),
                    'b' => out.push('\x08'),
                    'f' => out.push('\x0c'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'v' => out.push('\x0b'),
                    '\\' => out.push('\\'),
                    '\'' | '"' if e == quote => out.push(e),
                    'x' | 'u' | 'U' => {
                        let n = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let hex: String = (0..n).filter_map(|_| chars.next()).collect();
                        if hex.len() != n {
                            return Err(bad());
                        }
                        let v = u32::from_str_radix(&hex, 16).map_err(|_| bad())?;
                        if e == 'x' {
                            if v >= 0x80 {
                                // A raw byte; only valid UTF-8 is kept as text.
                                out.push(char::from_u32(v).ok_or_else(bad)?);
                            } else {
                                out.push(v as u8 as char);
                            }
                        } else {
                            out.push(char::from_u32(v).ok_or_else(bad)?);
                        }
                    }
                    '0'..='7' => {
                        let mut v = e as u32 - 48;
                        for _ in 0..2 {
                            let d = chars.next().ok_or_else(bad)?;
                            v = v * 8 + d.to_digit(8).ok_or_else(bad)?;
                        }
                        if v > 255 {
                            return Err(bad());
                        }
                        out.push(char::from_u32(v).ok_or_else(bad)?);
                    }
                    _ => return Err(bad()),
                }
            }
            if quote == '\'' && out.chars().count() != 1 {
                return Err(bad());
            }
            Ok(out)
        }
        _ => Err(bad()),
    }
}

/// strconv.ParseInt(text, 0, 64) (also returns the u64 for IsUint).
fn parse_go_int(text: &str) -> (Option<i64>, Option<u64>) {
    let (neg, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits, prefixed) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d.to_string(), true)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d.to_string(), true)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d.to_string(), true)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, lower[1..].to_string(), true)
    } else {
        (10, lower.clone(), false)
    };
    // Underscores only between digits (or after a base prefix).
    if digits.contains('_') {
        let ok = !digits.ends_with('_')
            && !digits.contains("__")
            && (prefixed || !digits.starts_with('_'));
        if !ok {
            return (None, None);
        }
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() {
        return (None, None);
    }
    let Ok(u) = u64::from_str_radix(&clean, radix) else {
        return (None, None);
    };
    let i = if neg {
        if u <= i64::MAX as u64 + 1 {
            Some((u as i128).wrapping_neg() as i64)
        } else {
            None
        }
    } else if u <= i64::MAX as u64 {
        Some(u as i64)
    } else {
        None
    };
    (i, if neg && u != 0 { None } else { Some(u) })
}

fn parse_go_float(text: &str) -> Option<f64> {
    let t: String = text.chars().filter(|&c| c != '_').collect();
    let lower = t.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if body.starts_with("0x") || body == "inf" || body == "infinity" || body == "nan" {
        return None;
    }
    if !body
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-'))
    {
        return None;
    }
    t.parse::<f64>().ok()
}

/// text/template's NumberNode construction.
pub fn parse_number(text: &str) -> Result<Number, String> {
    let mut n = Number {
        text: text.to_string(),
        is_int: false,
        int: 0,
        is_uint: false,
        is_float: false,
        float: 0.0,
    };
    if text.starts_with('\'') {
        let s = unquote(text)?;
        let c = s.chars().next().unwrap_or('\0') as i64;
        n.is_int = true;
        n.int = c;
        n.is_uint = true;
        n.is_float = true;
        n.float = c as f64;
        return Ok(n);
    }
    if text.ends_with('i') {
        return Err(format!(
            "illegal number syntax: {} (complex constants are not supported)",
            crate::go::quote::quote(text)
        ));
    }
    let (i, u) = parse_go_int(text);
    if let Some(u) = u {
        n.is_uint = true;
        n.float = u as f64;
    }
    if let Some(i) = i {
        n.is_int = true;
        n.int = i;
    }
    if n.is_int {
        n.is_float = true;
        n.float = n.int as f64;
    } else if n.is_uint {
        n.is_float = true;
    } else if let Some(f) = parse_go_float(text) {
        if !text.contains(['.', 'e', 'E', 'p', 'P']) {
            return Err(format!(
                "integer overflow: {}",
                crate::go::quote::quote(text)
            ));
        }
        n.is_float = true;
        n.float = f;
        if f.fract() == 0.0 && f.abs() < 9.2e18 {
            n.is_int = true;
            n.int = f as i64;
        }
        if f.fract() == 0.0 && (0.0..1.8e19).contains(&f) {
            n.is_uint = true;
        }
    }
    if !n.is_int && !n.is_uint && !n.is_float {
        return Err(format!(
            "illegal number syntax: {}",
            crate::go::quote::quote(text)
        ));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> PResult<Templates> {
        parse("tpl", s, &|f| f == "printf" || f == "upper")
    }

    #[test]
    fn node_strings_match_go() {
        let t = p("{{ $x := .a.b | printf \"%s\" (upper .c) }}").unwrap();
        assert_eq!(
            list_string(&t.trees["tpl"]),
            "{{$x := .a.b | printf \"%s\" (upper .c)}}"
        );
        let t = p("{{if .a}}x{{else if .b}}y{{end}}").unwrap();
        assert_eq!(
            list_string(&t.trees["tpl"]),
            "{{if .a}}x{{else}}{{if .b}}y{{end}}{{end}}"
        );
    }

    #[test]
    fn field_chain_position_is_the_second_field() {
        let t = p("{{ .z.a }}").unwrap();
        let Node::Action { pipe, .. } = &t.trees["tpl"][0] else {
            panic!()
        };
        assert_eq!(pipe.cmds[0].args[0].pos(), 5);
    }

    #[test]
    fn parse_errors_match_go() {
        assert_eq!(
            p("{{ end }}").unwrap_err(),
            "template: tpl:1: unexpected {{end}}"
        );
        assert_eq!(
            p("{{ if .b }}x").unwrap_err(),
            "template: tpl:1: unexpected EOF"
        );
        assert_eq!(
            p("{{ nosuch 1 }}").unwrap_err(),
            "template: tpl:1: function \"nosuch\" not defined"
        );
        assert_eq!(
            p("{{ $nope }}").unwrap_err(),
            "template: tpl:1: undefined variable \"$nope\""
        );
        assert_eq!(
            p("{{ .s # }}").unwrap_err(),
            "template: tpl:1: unexpected \"#\" in operand"
        );
        assert_eq!(
            p("{{ }}").unwrap_err(),
            "template: tpl:1: missing value for command"
        );
        assert_eq!(
            p("a\nb {{ if }}").unwrap_err(),
            "template: tpl:2: missing value for if"
        );
        assert_eq!(
            p("{{ break }}").unwrap_err(),
            "template: tpl:1: {{break}} outside {{range}}"
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let s = "{{ if 1 }}".repeat(5000);
        assert!(p(&s).unwrap_err().contains("max expression depth exceeded"));
        let s = format!("{{{{ {}1{} }}}}", "(".repeat(5000), ")".repeat(5000));
        assert!(p(&s).is_err());
    }

    #[test]
    fn numbers() {
        let n = parse_number("0x1F").unwrap();
        assert!(n.is_int && n.int == 31);
        let n = parse_number("3.0").unwrap();
        assert!(n.is_int && n.is_float && n.int == 3);
        let n = parse_number("'a'").unwrap();
        assert_eq!(n.int, 97);
        assert!(parse_number("1_000").unwrap().int == 1000);
        assert!(parse_number("99999999999999999999").is_err());
    }

    #[test]
    fn unquoting() {
        assert_eq!(unquote("\"a\\tb\\u00e9\"").unwrap(), "a\tbé");
        assert_eq!(unquote("`raw\\n`").unwrap(), "raw\\n");
        assert!(unquote("\"\\q\"").is_err());
    }
}
