//! Executor for parsed templates (text/template/exec.go semantics): field
//! chains on maps, missing keys as reflect's invalid value, Go's argument
//! conversion rules for function calls, and Go's error texts with
//! `template: tpl:LINE:COL: executing "NAME" at <NODE>: ` contexts.

use super::func::{Func, Param};
use super::funcs;
use super::parse::{Arg, Cmd, Control, Node, Pipe, Templates};
use super::value::{Elem, IntTy, Value};

/// `{{template}}` nesting accepted (Go allows 100000; deeper recursion here
/// would exhaust the native stack).
mod eval;

const MAX_TEMPLATE_DEPTH: usize = 100;

/// A value plus whether reflect sees it through an `interface {}` (map and
/// slice elements of JSON data are; function results usually are not).
#[derive(Debug, Clone)]
pub struct Rv {
    pub v: Value,
    pub boxed: bool,
}

impl Rv {
    fn plain(v: Value) -> Rv {
        Rv { v, boxed: false }
    }
    fn invalid() -> Rv {
        Rv::plain(Value::Invalid)
    }
    /// The static type name reflect reports.
    fn static_type(&self) -> String {
        if self.boxed {
            "interface {}".into()
        } else {
            self.v.type_name()
        }
    }
    /// Drop the interface (evalPipeline's `value.Elem()`): a nil interface
    /// becomes the invalid value.
    fn unbox(self) -> Rv {
        match self.v {
            Value::Nil if self.boxed => Rv::invalid(),
            v => Rv::plain(v),
        }
    }
}

/// The node the executor is "at", for error contexts.
#[derive(Clone, Copy)]
enum At<'a> {
    None,
    Arg(&'a Arg),
    Cmd(&'a Cmd),
    Pipe(&'a Pipe),
    Node(&'a Node),
}

enum Flow {
    Break,
    Continue,
    Err(String),
}

type R<T> = Result<T, Flow>;

pub struct Exec<'a> {
    text: &'a str,
    parse_name: &'a str,
    tmpls: &'a Templates,
    name: String,
    at: At<'a>,
    at_pos: usize,
    vars: Vec<(String, Rv)>,
    depth: usize,
    steps: u64,
    pub out: String,
    opts: ExecOptions,
}

/// Template options that change evaluation (Go's `Option("missingkey=error")`, and
/// whether sprig's function map was installed with `Funcs`).
#[derive(Debug, Clone, Copy)]
pub struct ExecOptions {
    pub sprig: bool,
    pub missing_key_error: bool,
    /// `--max-template-steps`.
    pub max_steps: u64,
    /// `--max-template-bytes`: the output, and any one string a function returns.
    pub max_bytes: u64,
}

/// Execute template `name` of `tmpls` (parsed from `text`) with `data`.
pub fn execute(
    text: &str,
    parse_name: &str,
    tmpls: &Templates,
    data: Value,
    opts: ExecOptions,
) -> Result<String, String> {
    let Some(root) = tmpls.trees.get(parse_name) else {
        return Err(format!(
            "template: {parse_name}: \"{parse_name}\" is an incomplete or empty template"
        ));
    };
    let mut e = Exec {
        text,
        parse_name,
        tmpls,
        name: parse_name.to_string(),
        at: At::None,
        at_pos: 0,
        vars: vec![("$".into(), Rv::plain(data.clone()))],
        depth: 0,
        steps: 0,
        out: String::new(),
        opts,
    };
    match e.walk_list(&Rv::plain(data), root) {
        Ok(()) => Ok(e.out),
        Err(Flow::Err(m)) => Err(m),
        Err(_) => Err("template: break or continue outside range".into()),
    }
}

impl<'a> Exec<'a> {
    // ---- error reporting --------------------------------------------------

    fn set_at(&mut self, at: At<'a>, pos: usize) {
        self.at = at;
        self.at_pos = pos;
    }
    fn at_arg(&mut self, a: &'a Arg) {
        self.set_at(At::Arg(a), a.pos());
    }

    fn context(&self) -> String {
        let s = match self.at {
            At::None => return format!("template: {}", self.parse_name),
            At::Arg(a) => a.to_string(),
            At::Cmd(c) => c.to_string(),
            At::Pipe(p) => p.to_string(),
            At::Node(n) => n.to_string(),
        };
        let before = &self.text.as_bytes()[..self.at_pos.min(self.text.len())];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let col = match before.iter().rposition(|&b| b == b'\n') {
            Some(i) => self.at_pos - i - 1,
            None => self.at_pos,
        };
        format!(
            "template: {}:{}:{}: executing {} at <{}>",
            self.parse_name,
            line,
            col,
            crate::go::quote::quote(&self.name),
            s
        )
    }

    fn err<T>(&self, msg: impl std::fmt::Display) -> R<T> {
        match self.at {
            At::None => Err(Flow::Err(format!("template: {}: {}", self.name, msg))),
            _ => Err(Flow::Err(format!("{}: {}", self.context(), msg))),
        }
    }

    fn step(&mut self) -> R<()> {
        self.charge(1)?;
        self.check_output()
    }

    /// Count `n` steps against `--max-template-steps`.
    fn charge(&mut self, n: u64) -> R<()> {
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.opts.max_steps {
            return self.err(format!(
                "capi-render: {}",
                crate::limits::over_limit(
                    crate::limits::Limit::TemplateSteps,
                    self.opts.max_steps,
                    None
                )
            ));
        }
        Ok(())
    }

    fn check_size(&self, n: usize) -> R<()> {
        if n as u64 > self.opts.max_bytes {
            return self.err(format!(
                "capi-render: {}",
                crate::limits::over_limit(
                    crate::limits::Limit::TemplateBytes,
                    self.opts.max_bytes,
                    Some(n as u64)
                )
            ));
        }
        Ok(())
    }

    fn check_output(&self) -> R<()> {
        self.check_size(self.out.len())
    }

    /// A function's result: one more step per 64 bytes of string (per 8 entries of a
    /// list or map) it built, and no string over the output limit, so a loop that
    /// doubles a string stops at the limit.
    fn charge_value(&mut self, v: &Value) -> R<()> {
        match v {
            Value::Str(s) => {
                self.check_size(s.len())?;
                self.charge(s.len() as u64 / 64)
            }
            Value::List(l, _) => self.charge(l.len() as u64 / 8),
            Value::Map(m, _) => self.charge(m.len() as u64 / 8),
            _ => Ok(()),
        }
    }

    // ---- variables ---------------------------------------------------------

    fn var_value(&self, name: &str) -> R<Rv> {
        match self.vars.iter().rev().find(|(n, _)| n == name) {
            Some((_, v)) => Ok(v.clone()),
            None => self.err(format!("undefined variable: {name}")),
        }
    }

    fn set_var(&mut self, name: &str, v: Rv) -> R<()> {
        match self.vars.iter_mut().rev().find(|(n, _)| n == name) {
            Some(slot) => {
                slot.1 = v;
                Ok(())
            }
            None => self.err(format!("undefined variable: {name}")),
        }
    }

    fn set_top_var(&mut self, n: usize, v: Rv) {
        let len = self.vars.len();
        if n <= len {
            self.vars[len - n].1 = v;
        }
    }

    // ---- walking -----------------------------------------------------------

    fn walk_list(&mut self, dot: &Rv, list: &'a [Node]) -> R<()> {
        for n in list {
            self.walk(dot, n)?;
        }
        Ok(())
    }

    fn walk(&mut self, dot: &Rv, node: &'a Node) -> R<()> {
        self.step()?;
        match node {
            Node::Text(t) => {
                self.out.push_str(t);
                Ok(())
            }
            Node::Action { pos, pipe } => {
                self.set_at(At::Node(node), *pos);
                let v = self.eval_pipeline(dot, pipe)?;
                if pipe.decl.is_empty() {
                    self.set_at(At::Node(node), *pos);
                    self.print_value(&v)?;
                }
                Ok(())
            }
            Node::Control {
                kind,
                pos,
                pipe,
                list,
                else_list,
            } => {
                self.set_at(At::Node(node), *pos);
                match kind {
                    Control::Range => {
                        self.walk_range(dot, node, *pos, pipe, list, else_list.as_deref())
                    }
                    _ => {
                        let mark = self.vars.len();
                        let r = self.walk_if_with(*kind, dot, pipe, list, else_list.as_deref());
                        self.vars.truncate(mark);
                        r
                    }
                }
            }
            Node::Template { pos, name, pipe } => {
                self.set_at(At::Node(node), *pos);
                self.walk_template(dot, name, pipe.as_ref())
            }
            Node::Break { .. } => Err(Flow::Break),
            Node::Continue { .. } => Err(Flow::Continue),
        }
    }

    fn print_value(&mut self, v: &Rv) -> R<()> {
        match &v.v {
            Value::Invalid => self.out.push_str("<no value>"),
            x => {
                let cap = self.opts.max_bytes as usize;
                let size = match args_size(std::slice::from_ref(x), cap) {
                    Ok(n) => n,
                    Err(depth) => return self.err(too_deep(depth)),
                };
                self.check_size(self.out.len().saturating_add(size))?;
                let s = super::fmt::sprint_value(x);
                self.out.push_str(&s);
            }
        }
        self.check_output()
    }

    fn walk_if_with(
        &mut self,
        kind: Control,
        dot: &Rv,
        pipe: &'a Pipe,
        list: &'a [Node],
        else_list: Option<&'a [Node]>,
    ) -> R<()> {
        let val = self.eval_pipeline(dot, pipe)?.unbox();
        if val.v.truth() {
            if kind == Control::With {
                self.walk_list(&val, list)
            } else {
                self.walk_list(dot, list)
            }
        } else if let Some(e) = else_list {
            self.walk_list(dot, e)
        } else {
            Ok(())
        }
    }

    fn walk_template(&mut self, dot: &Rv, name: &str, pipe: Option<&'a Pipe>) -> R<()> {
        let Some(tree) = self.tmpls.trees.get(name) else {
            return self.err(format!(
                "template {} not defined",
                crate::go::quote::quote(name)
            ));
        };
        if self.depth >= MAX_TEMPLATE_DEPTH {
            return self.err(format!(
                "exceeded maximum template depth ({MAX_TEMPLATE_DEPTH})"
            ));
        }
        let newdot = match pipe {
            Some(p) => self.eval_pipeline(dot, p)?,
            None => Rv::invalid(),
        };
        let saved_vars = std::mem::replace(&mut self.vars, vec![("$".into(), newdot.clone())]);
        let saved_name = std::mem::replace(&mut self.name, name.to_string());
        self.depth += 1;
        let r = self.walk_list(&newdot, tree);
        self.depth -= 1;
        self.name = saved_name;
        self.vars = saved_vars;
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn walk_range(
        &mut self,
        dot: &Rv,
        node: &'a Node,
        pos: usize,
        pipe: &'a Pipe,
        list: &'a [Node],
        else_list: Option<&'a [Node]>,
    ) -> R<()> {
        let mark0 = self.vars.len();
        let r = self.walk_range_inner(dot, node, pos, pipe, list, else_list);
        self.vars.truncate(mark0);
        match r {
            Err(Flow::Break) => Ok(()),
            r => r,
        }
    }

    fn range_iteration(&mut self, pipe: &'a Pipe, list: &'a [Node], index: Rv, elem: Rv) -> R<()> {
        self.step()?;
        let mark = self.vars.len();
        let nd = pipe.decl.len();
        if nd > 0 {
            if pipe.is_assign {
                let v = if nd > 1 { index.clone() } else { elem.clone() };
                self.set_var(&pipe.decl[0], v)?;
            } else {
                self.set_top_var(1, elem.clone());
            }
        }
        if nd > 1 {
            if pipe.is_assign {
                self.set_var(&pipe.decl[1], elem.clone())?;
            } else {
                self.set_top_var(2, index);
            }
        }
        let r = self.walk_list(&elem, list);
        self.vars.truncate(mark);
        match r {
            Err(Flow::Continue) => Ok(()),
            r => r,
        }
    }

    fn walk_range_inner(
        &mut self,
        dot: &Rv,
        node: &'a Node,
        pos: usize,
        pipe: &'a Pipe,
        list: &'a [Node],
        else_list: Option<&'a [Node]>,
    ) -> R<()> {
        let _ = (node, pos);
        let val = self.eval_pipeline(dot, pipe)?.unbox();
        let ran = match &val.v {
            Value::Int(n, t) => {
                if pipe.decl.len() > 1 {
                    return self.err(format!(
                        "can't use {} to iterate over more than one variable",
                        super::fmt::sprint_value(&val.v)
                    ));
                }
                let n = *n;
                for i in 0..n.max(0) {
                    self.range_iteration(pipe, list, Rv::invalid(), Rv::plain(Value::Int(i, *t)))?;
                }
                n > 0
            }
            Value::List(items, e) => {
                let boxed = *e == Elem::Any;
                for (i, it) in items.iter().enumerate() {
                    self.range_iteration(
                        pipe,
                        list,
                        Rv::plain(Value::int(i as i64)),
                        Rv {
                            v: it.clone(),
                            boxed,
                        },
                    )?;
                }
                !items.is_empty()
            }
            Value::Map(m, e) => {
                let boxed = *e == Elem::Any;
                for (k, it) in m.iter() {
                    self.range_iteration(
                        pipe,
                        list,
                        Rv::plain(Value::str(k.as_str())),
                        Rv {
                            v: it.clone(),
                            boxed,
                        },
                    )?;
                }
                !m.is_empty()
            }
            Value::Invalid => false,
            v => {
                return self.err(format!(
                    "range can't iterate over {}",
                    super::fmt::sprint_value(v)
                ))
            }
        };
        if !ran {
            if let Some(e) = else_list {
                return self.walk_list(dot, e);
            }
        }
        Ok(())
    }
}

/// The bytes of text in `vals` (strings, and the strings inside lists and maps,
/// counted once per reference), stopping as soon as it is over `cap`; `Err` with the
/// depth when a value nests lists and maps deeper than [`MAX_VALUE_DEPTH`] (the walk
/// stops there, so it never recurses deeper itself).
///
/// A list or map held in more than one place (`concat $l $l` doubles a list of one
/// shared element) is walked once per call: its size and height are kept by address
/// and added again where it recurs, when that cannot cross `cap` or the depth limit
/// (else it is walked, and the walk ends there). So the work is the distinct values'
/// nodes, not the references', and the result is the walk's.
fn args_size(vals: &[Value], cap: usize) -> Result<usize, usize> {
    type Memo = std::collections::HashMap<usize, (usize, usize)>;
    /// Adds `v`'s size to `total`; returns the height of its lists and maps (0 for a
    /// scalar), or `None` when the walk stopped early (over `cap`).
    fn walk(
        v: &Value,
        total: &mut usize,
        cap: usize,
        depth: usize,
        memo: &mut Memo,
    ) -> Result<Option<usize>, usize> {
        if *total > cap {
            return Ok(None);
        }
        if depth > MAX_VALUE_DEPTH && matches!(v, Value::List(..) | Value::Map(..)) {
            return Err(depth);
        }
        let shared = match v {
            Value::List(l, _) if std::rc::Rc::strong_count(l) > 1 => {
                Some(std::rc::Rc::as_ptr(l) as usize)
            }
            Value::Map(m, _) if std::rc::Rc::strong_count(m) > 1 => {
                Some(std::rc::Rc::as_ptr(m) as usize)
            }
            _ => None,
        };
        if let Some(&(size, height)) = shared.and_then(|k| memo.get(&k)) {
            if depth + height - 1 <= MAX_VALUE_DEPTH && total.saturating_add(size) <= cap {
                *total += size;
                return Ok(Some(height));
            }
        }
        let before = *total;
        let mut height = 0;
        match v {
            Value::Str(s) => *total = total.saturating_add(s.len()),
            Value::List(l, _) => {
                *total = total.saturating_add(l.len());
                for x in l.iter() {
                    match walk(x, total, cap, depth + 1, memo)? {
                        Some(h) => height = height.max(h),
                        None => return Ok(None),
                    }
                }
                height += 1;
            }
            Value::Map(m, _) => {
                for (k, x) in m.iter() {
                    *total = total.saturating_add(k.len());
                    match walk(x, total, cap, depth + 1, memo)? {
                        Some(h) => height = height.max(h),
                        None => return Ok(None),
                    }
                }
                height += 1;
            }
            _ => *total = total.saturating_add(1),
        }
        if *total > cap {
            return Ok(None);
        }
        if let Some(k) = shared {
            memo.insert(k, (*total - before, height));
        }
        Ok(Some(height))
    }
    let mut total = 0;
    let mut memo = Memo::new();
    for v in vals {
        if walk(v, &mut total, cap, 1, &mut memo)?.is_none() {
            break;
        }
    }
    Ok(total)
}

/// How deep lists and maps may nest in a value a template function is given or
/// prints: printing, comparing and converting values recurse once per level, and a
/// list nested 8,000 deep (built by a loop) would overflow a thread's stack. Every
/// function's arguments and every printed value are checked, so a value one level
/// deeper can be built but never used.
pub const MAX_VALUE_DEPTH: usize = 1000;

/// The error text of a value nested deeper than [`MAX_VALUE_DEPTH`].
fn too_deep(depth: usize) -> String {
    format!(
        "capi-render: a value nested {depth} or more levels deep is over the template value nesting limit of {MAX_VALUE_DEPTH} levels (no flag raises it)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk without sharing: every reference visited.
    fn naive(v: &Value, cap: usize) -> Result<usize, usize> {
        fn walk(v: &Value, t: &mut usize, cap: usize, d: usize) -> Result<(), usize> {
            if *t > cap {
                return Ok(());
            }
            if d > MAX_VALUE_DEPTH && matches!(v, Value::List(..) | Value::Map(..)) {
                return Err(d);
            }
            match v {
                Value::Str(s) => *t += s.len(),
                Value::List(l, _) => {
                    *t += l.len();
                    for x in l.iter() {
                        walk(x, t, cap, d + 1)?;
                    }
                }
                Value::Map(m, _) => {
                    for (k, x) in m.iter() {
                        *t += k.len();
                        walk(x, t, cap, d + 1)?;
                    }
                }
                _ => *t += 1,
            }
            Ok(())
        }
        let mut t = 0;
        walk(v, &mut t, cap, 1)?;
        Ok(t)
    }

    #[test]
    fn shared_values_are_sized_once_with_the_result_of_a_full_walk() {
        // An element nested `depth` lists deep, shared `n` times, as concat doubling
        // makes it; at, under and over the cap and the depth limit.
        for depth in [1, 10, 999, 1000, 1001] {
            let mut e = Value::str("abc");
            for _ in 0..depth {
                e = Value::list(vec![e]);
            }
            let shared = Value::list(vec![e.clone(); 1000]);
            let outer = Value::list(vec![shared.clone(), Value::str("x"), shared]);
            for cap in [0, 10, 1000, 4000 * depth, usize::MAX] {
                assert_eq!(
                    args_size(std::slice::from_ref(&outer), cap),
                    naive(&outer, cap),
                    "depth {depth}, cap {cap}"
                );
            }
        }
    }
}
