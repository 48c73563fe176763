//! CEL's type checker as the ClusterClass webhook runs it before it accepts a variable
//! schema (cel-go v0.22 `checker`, in the environment apiextensions-apiserver v0.32.3
//! compiles new rules in): `self` and `oldSelf` typed by the schema's declaration
//! ([`super::decl`]), every function overload of that environment ([`functions`]), the
//! macros expanded node for node as cel-go's parser expands them, and the errors cel-go
//! prints, located and sorted the same way.
//!
//! Where it cannot follow cel-go (syntax our parser does not read, a qualified name it
//! cannot resolve, a field CEL names only in escaped form, a library type's fields), the
//! verdict is unknown and the rule is accepted, as before.
//!
//! Schema objects are message types named after their path (`selfType0.spec`); Go names
//! the root `selfType<nanoseconds>`, so messages naming an object type differ from
//! clusterctl's in that number only.

pub mod functions;
pub mod types;
mod validators;

use std::collections::HashMap;

use super::decl::{Decl, Kind};
use super::parser::{children, parse_located, Expr, Lit, Located};
use types::{assignable, assignable_list, format, most_general, substitute, Mapping, T};

/// The name of the type of `self` (Go: `selfType` and the nanoseconds of the clock).
pub const SELF_TYPE: &str = "selfType0";

/// The type checker's verdict on an expression over `self` of type `root`: its output
/// type, or cel-go's `issues.String()`; `None` where it cannot tell.
pub fn check(src: &str, root: &Decl) -> Option<Result<T, String>> {
    let (e, located) = parse_located(src).ok()?;
    let tree = LocTree::build(&e, &located)?;
    let mut c = Checker {
        root,
        objects: HashMap::new(),
        scope: Vec::new(),
        m: Mapping::new(),
        next_var: 0,
        errors: Vec::new(),
        aggregates: Vec::new(),
        in_format: 0,
        literal_args: Vec::new(),
    };
    let t = c.check(&e, &tree)?;
    if c.errors.is_empty() {
        // cel-go's AST validators run on what type-checks.
        c.validate()?;
    }
    if c.errors.is_empty() {
        return Some(Ok(substitute(&c.m, &t, true)));
    }
    c.errors.sort_by_key(|(at, _)| *at);
    Some(Err(display_errors(src, &c.errors)))
}

/// The compilation error of a rule, as apiextensions words it; `None` when it compiles
/// or the checker cannot tell.
pub fn rule_error(rule: &str, root: &Decl) -> Option<String> {
    match check(rule, root)? {
        Err(issues) => Some(format!("compilation failed: {issues}")),
        Ok(T::Bool) => None,
        Ok(_) => Some("cel expression must evaluate to a bool".into()),
    }
}

/// The compilation error of a `messageExpression`.
pub fn message_expression_error(expr: &str, root: &Decl) -> Option<String> {
    match check(expr, root)? {
        Err(issues) => Some(format!("messageExpression compilation failed: {issues}")),
        Ok(T::Str) => None,
        Ok(_) => Some("messageExpression must evaluate to a string".into()),
    }
}

/// Where each node is: the character its token starts at, the token's index.
struct LocTree {
    at: usize,
    tok: usize,
    kids: Vec<LocTree>,
}

impl LocTree {
    fn build(e: &Expr, l: &Located) -> Option<LocTree> {
        let mut it = l.nodes.iter();
        let t = LocTree::walk(e, &mut it, &l.token_starts)?;
        it.next().is_none().then_some(t)
    }

    fn walk<'i>(
        e: &Expr,
        it: &mut impl Iterator<Item = &'i usize>,
        starts: &[usize],
    ) -> Option<LocTree> {
        let kids = children(e)
            .into_iter()
            .map(|c| LocTree::walk(c, it, starts))
            .collect::<Option<Vec<_>>>()?;
        let tok = *it.next()?;
        Some(LocTree {
            at: *starts.get(tok)?,
            tok,
            kids,
        })
    }
}

/// cel-go's `Errors.ToDisplayString`: each error with the source line and a caret.
fn display_errors(src: &str, errors: &[(usize, String)]) -> String {
    const MAX: usize = 100;
    let chars: Vec<char> = src.chars().collect();
    let mut out: Vec<String> = errors
        .iter()
        .take(MAX)
        .map(|(at, msg)| display_one(&chars, *at, msg))
        .collect();
    if errors.len() > MAX {
        out.push(format!("{} more errors were truncated", errors.len() - MAX));
    }
    out.join("\n")
}

fn display_one(chars: &[char], at: usize, msg: &str) -> String {
    let at = at.min(chars.len());
    let line_start = chars[..at]
        .iter()
        .rposition(|c| *c == '\n')
        .map_or(0, |i| i + 1);
    let line = 1 + chars[..at].iter().filter(|c| **c == '\n').count();
    let col = at - line_start;
    let line_end = chars[at..]
        .iter()
        .position(|c| *c == '\n')
        .map_or(chars.len(), |i| at + i);
    let snippet: String = chars[line_start..line_end]
        .iter()
        .map(|c| if *c == '\t' { ' ' } else { *c })
        .collect();
    let mut out = format!("ERROR: <input>:{line}:{}: {msg}", col + 1);
    if snippet.len() <= 16384 {
        let wide = |c: &char| c.len_utf8() > 1;
        let dots: String = snippet
            .chars()
            .take(col)
            .map(|c| if wide(&c) { '\u{ff0e}' } else { '.' })
            .collect();
        let caret = match snippet.chars().nth(col) {
            Some(c) if wide(&c) => '\u{ff3e}',
            _ => '^',
        };
        out.push_str(&format!("\n | {snippet}\n | {dots}{caret}"));
    }
    out
}

/// A list or map literal's element types and locations, for the homogeneous aggregate
/// literal validator.
struct Aggregate {
    /// List elements, or map keys and values alternating.
    elems: Vec<(T, usize)>,
    map: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Macro {
    All,
    Exists,
    ExistsOne,
    Map,
    Filter,
}

struct Checker<'a> {
    root: &'a Decl,
    /// The schema objects met so far, by type name.
    objects: HashMap<String, &'a Decl>,
    /// Comprehension variables, innermost last.
    scope: Vec<(String, T)>,
    m: Mapping,
    next_var: usize,
    errors: Vec<(usize, String)>,
    aggregates: Vec<Aggregate>,
    /// How many `format` calls the node being checked is inside (their literals are
    /// exempt from the homogeneous aggregate validator).
    in_format: usize,
    /// Calls the literal validators look at: the function, its first argument (a
    /// literal) and where that is.
    literal_args: Vec<(String, Lit, usize)>,
}

impl<'a> Checker<'a> {
    fn error(&mut self, at: usize, msg: String) {
        self.errors.push((at, msg));
    }

    fn new_var(&mut self) -> T {
        let v = T::Param(format!("_var{}", self.next_var));
        self.next_var += 1;
        v
    }

    /// The CEL type of a declaration named `name` (`MaybeAssignTypeName`).
    fn type_of(&mut self, d: &'a Decl, name: &str) -> T {
        match &d.kind {
            Kind::Bool => T::Bool,
            Kind::Int => T::Int,
            Kind::Double => T::Double,
            Kind::String => T::Str,
            Kind::Bytes => T::Bytes,
            Kind::Duration => T::Duration,
            Kind::Timestamp => T::Timestamp,
            Kind::Dyn => T::Dyn,
            Kind::List(e) => T::List(Box::new(self.type_of(e, &format!("{name}.@idx")))),
            Kind::Map(v) => T::Map(
                Box::new(T::Str),
                Box::new(self.type_of(v, &format!("{name}.@elem"))),
            ),
            Kind::Object(_) => {
                self.objects.insert(name.to_string(), d);
                T::Struct(name.to_string())
            }
        }
    }

    fn check(&mut self, e: &Expr, l: &LocTree) -> Option<T> {
        Some(match e {
            Expr::Lit(lit) => match lit {
                Lit::Null => T::Null,
                Lit::Bool(_) => T::Bool,
                Lit::Int(_) => T::Int,
                Lit::Uint(_) => T::Uint,
                Lit::Double(_) => T::Double,
                Lit::Str(_) => T::Str,
            },
            Expr::Ident(n) => self.ident(n, l.at)?,
            Expr::Select(t, f) => {
                if self.unresolved_qualified(t) {
                    return None;
                }
                let tt = self.check(t, &l.kids[0])?;
                self.select(tt, f, l.at)?
            }
            Expr::Index(a, i) => {
                let a = self.check(a, &l.kids[0])?;
                let i = self.check(i, &l.kids[1])?;
                self.call("_[_]", l.at, None, vec![a, i], &[])?
            }
            Expr::Unary(op, _) => {
                // cel-go drops an even run of the same operator (`!!x` is `x`).
                let (mut n, mut node, mut loc) = (0, e, l);
                while let Expr::Unary(o, inner) = node {
                    if *o != *op || (n > 0 && loc.tok != l.tok + n) {
                        break;
                    }
                    n += 1;
                    node = inner;
                    loc = &loc.kids[0];
                }
                let t = self.check(node, loc)?;
                if n % 2 == 0 {
                    t
                } else {
                    let name = if *op == "!" { "!_" } else { "-_" };
                    self.call(name, l.at, None, vec![t], &[])?
                }
            }
            Expr::Binary(op, a, b) => {
                let ta = self.check(a, &l.kids[0])?;
                let tb = self.check(b, &l.kids[1])?;
                let name = match *op {
                    "in" => "@in".to_string(),
                    o => format!("_{o}_"),
                };
                self.call(
                    &name,
                    l.at,
                    None,
                    vec![ta, tb],
                    &[l.kids[0].at, l.kids[1].at],
                )?
            }
            Expr::Cond(c, a, b) => {
                let ts = vec![
                    self.check(c, &l.kids[0])?,
                    self.check(a, &l.kids[1])?,
                    self.check(b, &l.kids[2])?,
                ];
                self.call("_?_:_", l.at, None, ts, &[])?
            }
            Expr::List(items) => {
                let mut elem: Option<T> = None;
                let mut elems = Vec::new();
                for (it, loc) in items.iter().zip(&l.kids) {
                    let t = self.check(it, loc)?;
                    elems.push((t.clone(), loc.at));
                    elem = Some(self.join(elem, t));
                }
                self.aggregate(elems, false);
                let elem = match elem {
                    Some(t) => t,
                    None => self.new_var(),
                };
                T::List(Box::new(elem))
            }
            Expr::Map(entries) => {
                let (mut kt, mut vt): (Option<T>, Option<T>) = (None, None);
                let mut elems = Vec::new();
                for (i, (k, v)) in entries.iter().enumerate() {
                    let (kl, vl) = (&l.kids[2 * i], &l.kids[2 * i + 1]);
                    let t = self.check(k, kl)?;
                    elems.push((t.clone(), kl.at));
                    kt = Some(self.join(kt, t));
                    let t = self.check(v, vl)?;
                    elems.push((t.clone(), vl.at));
                    vt = Some(self.join(vt, t));
                }
                self.aggregate(elems, true);
                match (kt, vt) {
                    (Some(k), Some(v)) => T::Map(Box::new(k), Box::new(v)),
                    _ => T::Map(Box::new(self.new_var()), Box::new(self.new_var())),
                }
            }
            Expr::Call(None, name, args) if name == "has" && args.len() == 1 => {
                let Expr::Select(t, f) = &args[0] else {
                    return None;
                };
                if self.unresolved_qualified(t) {
                    return None;
                }
                let tt = self.check(t, &l.kids[0].kids[0])?;
                self.select(tt, f, l.at)?;
                T::Bool
            }
            Expr::Call(None, name, args) => {
                self.note_literal_arg(name, args, &l.kids);
                let ts = self.check_all(args, &l.kids)?;
                self.call(name, l.at, None, ts, &[])?
            }
            Expr::Call(Some(target), name, args) => {
                // Two-variable comprehensions and optional macros: not followed here.
                if matches!(
                    name.as_str(),
                    "transformList"
                        | "transformMap"
                        | "transformMapEntry"
                        | "optMap"
                        | "optFlatMap"
                ) || (matches!(name.as_str(), "all" | "exists" | "exists_one" | "existsOne")
                    && args.len() == 3)
                {
                    return None;
                }
                let mac = match (name.as_str(), args.len()) {
                    ("all", 2) => Some(Macro::All),
                    ("exists", 2) => Some(Macro::Exists),
                    ("exists_one", 2) => Some(Macro::ExistsOne),
                    ("map", 2 | 3) => Some(Macro::Map),
                    ("filter", 2) => Some(Macro::Filter),
                    _ => None,
                };
                if let Some(mac) = mac {
                    return self.comprehension(mac, target, args, l);
                }
                if let Some(q) = qualified_name(target) {
                    let full = format!("{q}.{name}");
                    if functions::lookup(&full).is_some() {
                        let ts = self.check_all(args, &l.kids[1..])?;
                        return self.call(&full, l.at, None, ts, &[]);
                    }
                    if self.unresolved_qualified(target) {
                        return None;
                    }
                }
                if name == "format" && matches!(**target, Expr::Lit(Lit::Str(_))) {
                    // ext.Strings validates literal format strings: not followed here.
                    return None;
                }
                self.note_literal_arg(name, args, &l.kids[1..]);
                self.in_format += usize::from(name == "format");
                let tt = self.check(target, &l.kids[0]);
                let ts = self.check_all(args, &l.kids[1..]);
                self.in_format -= usize::from(name == "format");
                self.call(name, l.at, Some(tt?), ts?, &[])?
            }
        })
    }

    fn check_all(&mut self, args: &[Expr], locs: &[LocTree]) -> Option<Vec<T>> {
        args.iter()
            .zip(locs)
            .map(|(a, l)| self.check(a, l))
            .collect()
    }

    /// Whether `e` is a chain of names whose first is not a variable: a qualified name
    /// (a type, a namespaced function) this checker does not resolve.
    fn unresolved_qualified(&self, e: &Expr) -> bool {
        let mut e = e;
        while let Expr::Select(t, _) = e {
            e = t;
        }
        matches!(e, Expr::Ident(n) if !self.is_variable(n))
    }

    fn is_variable(&self, n: &str) -> bool {
        n == "self" || n == "oldSelf" || self.scope.iter().any(|(v, _)| v == n)
    }

    fn ident(&mut self, n: &str, at: usize) -> Option<T> {
        if let Some((_, t)) = self.scope.iter().rev().find(|(v, _)| v == n) {
            return Some(t.clone());
        }
        if n == "self" || n == "oldSelf" {
            return Some(self.type_of(self.root, SELF_TYPE));
        }
        let ty = |t: T| Some(T::Type(Some(Box::new(t))));
        match n {
            "bool" => ty(T::Bool),
            "int" => ty(T::Int),
            "uint" => ty(T::Uint),
            "double" => ty(T::Double),
            "string" => ty(T::Str),
            "bytes" => ty(T::Bytes),
            "null_type" => ty(T::Null),
            // Other type names and namespaces: not followed here.
            "list" | "map" | "type" | "dyn" | "optional_type" | "google" | "cel" | "optional"
            | "sets" | "strings" | "format" | "math" | "base64" => None,
            _ => {
                self.error(
                    at,
                    format!("undeclared reference to '{n}' (in container '')"),
                );
                Some(T::Error)
            }
        }
    }

    /// `checkSelectField`.
    fn select(&mut self, target: T, field: &str, at: usize) -> Option<T> {
        let target = substitute(&self.m, &target, false);
        let (target, optional) = match target {
            T::Opaque(n, mut ps) if n == "optional_type" && ps.len() == 1 => (ps.remove(0), true),
            t => (t, false),
        };
        let result = match &target {
            T::Map(_, v) => (**v).clone(),
            T::Struct(name) => {
                let d = *self.objects.get(name)?;
                let Kind::Object(fields) = &d.kind else {
                    return None;
                };
                match fields.get(field) {
                    Some(f) => self.type_of(f, &format!("{name}.{field}")),
                    None if d.escaped_fields => return None,
                    None => {
                        self.error(at, format!("undefined field '{field}'"));
                        T::Error
                    }
                }
            }
            T::Param(_) => {
                if let Some(m) = assignable(&self.m, &T::Dyn, &target) {
                    self.m = m;
                }
                T::Dyn
            }
            t if t.is_dyn_or_error() => T::Dyn,
            t => {
                let msg = format!("type '{}' does not support field selection", format(t));
                self.error(at, msg);
                T::Dyn
            }
        };
        Some(if optional {
            T::Opaque("optional_type".into(), vec![result])
        } else {
            result
        })
    }

    /// `joinTypes`: the checker types mixed literals as `dyn` (the validator below
    /// rejects them when all else checks).
    fn join(&mut self, prev: Option<T>, cur: T) -> T {
        let Some(prev) = prev else {
            return cur;
        };
        if let Some(m) = assignable(&self.m, &prev, &cur) {
            self.m = m;
            return most_general(&prev, &cur);
        }
        T::Dyn
    }

    fn aggregate(&mut self, elems: Vec<(T, usize)>, map: bool) {
        if self.in_format == 0 {
            self.aggregates.push(Aggregate { elems, map });
        }
    }

    /// Calls whose first argument the literal validators check.
    fn note_literal_arg(&mut self, name: &str, args: &[Expr], locs: &[LocTree]) {
        if let (Some(Expr::Lit(lit)), Some(l)) = (args.first(), locs.first()) {
            if matches!(name, "duration" | "timestamp" | "matches") {
                self.literal_args
                    .push((name.to_string(), lit.clone(), l.at));
            }
        }
    }

    /// `resolveOverload`; `arg_at` locates the operands of `&&` and `||`.
    fn call(
        &mut self,
        name: &str,
        at: usize,
        target: Option<T>,
        args: Vec<T>,
        arg_at: &[usize],
    ) -> Option<T> {
        let Some(overloads) = functions::lookup(name) else {
            self.error(
                at,
                format!("undeclared reference to '{name}' (in container '')"),
            );
            return Some(T::Error);
        };
        let member = target.is_some();
        let mut all: Vec<T> = target.into_iter().collect();
        all.extend(args);
        if name == "_&&_" || name == "_||_" {
            let mut ok = true;
            for (i, t) in all.iter().enumerate() {
                match assignable(&self.m, t, &T::Bool) {
                    Some(m) => self.m = m,
                    None => {
                        let msg = format!("expected type 'bool' but found '{}'", format(t));
                        self.error(*arg_at.get(i)?, msg);
                        ok = false;
                    }
                }
            }
            return Some(if ok { T::Bool } else { T::Error });
        }
        let mut result: Option<T> = None;
        for o in overloads.iter().filter(|o| o.member == member) {
            let mut inst = Mapping::new();
            for p in &o.params {
                let v = self.new_var();
                inst.insert(p.clone(), v);
            }
            let cand: Vec<T> = o.args.iter().map(|a| substitute(&inst, a, false)).collect();
            if let Some(m) = assignable_list(&self.m, &all, &cand) {
                self.m = m;
                let r = substitute(&self.m, &substitute(&inst, &o.result, false), false);
                result = Some(match result {
                    None => r,
                    Some(prev) if !prev.is_dyn() && !r.exact(&prev) => T::Dyn,
                    Some(prev) => prev,
                });
            }
        }
        if let Some(r) = result {
            return Some(r);
        }
        let shown: Vec<String> = all
            .iter()
            .map(|t| format(&substitute(&self.m, t, true)))
            .collect();
        let sig = if member {
            format!("{}.({})", shown[0], shown[1..].join(", "))
        } else {
            format!("({})", shown.join(", "))
        };
        self.error(
            at,
            format!("found no matching overload for '{name}' applied to '{sig}'"),
        );
        Some(T::Error)
    }

    /// A macro expanded into a comprehension (cel-go `parser/macro.go`), checked as
    /// `checkComprehension` checks it; the nodes it adds are located at the call.
    fn comprehension(&mut self, mac: Macro, range: &Expr, args: &[Expr], l: &LocTree) -> Option<T> {
        let Expr::Ident(var) = &args[0] else {
            return None;
        };
        let at = l.at;
        let range_ty = self.check(range, &l.kids[0])?;
        let accu = match mac {
            Macro::All | Macro::Exists => T::Bool,
            Macro::ExistsOne => T::Int,
            Macro::Map | Macro::Filter => T::List(Box::new(self.new_var())),
        };
        let range_ty = substitute(&self.m, &range_ty, false);
        let var_ty = match &range_ty {
            T::List(e) => (**e).clone(),
            T::Map(k, _) => (**k).clone(),
            t if t.is_dyn_or_error() || matches!(t, T::Param(_)) => {
                if let Some(m) = assignable(&self.m, &T::Dyn, t) {
                    self.m = m;
                }
                T::Dyn
            }
            t => {
                let msg = format!("expression of type '{}' cannot be range of a comprehension (must be list, map, or dynamic)", format(t));
                self.error(l.kids[0].at, msg);
                T::Error
            }
        };
        self.scope.push(("@result".into(), accu.clone()));
        self.scope.push((var.clone(), var_ty.clone()));
        let body = self.comprehension_body(mac, &accu, &var_ty, args, l);
        self.scope.pop();
        let result = body.and_then(|_| match mac {
            Macro::ExistsOne => self.call("_==_", at, None, vec![accu.clone(), T::Int], &[]),
            _ => Some(accu.clone()),
        });
        self.scope.pop();
        Some(substitute(&self.m, &result?, false))
    }

    /// The loop condition and step of a comprehension, in cel-go's order.
    fn comprehension_body(
        &mut self,
        mac: Macro,
        accu: &T,
        var_ty: &T,
        args: &[Expr],
        l: &LocTree,
    ) -> Option<()> {
        let at = l.at;
        match mac {
            Macro::All => {
                self.call("@not_strictly_false", at, None, vec![accu.clone()], &[])?;
            }
            Macro::Exists => {
                let not = self.call("!_", at, None, vec![accu.clone()], &[])?;
                self.call("@not_strictly_false", at, None, vec![not], &[])?;
            }
            _ => {}
        }
        let arg = |i: usize| (&args[i], &l.kids[i + 1]);
        let step = match mac {
            Macro::All | Macro::Exists => {
                let (p, pl) = arg(1);
                let pt = self.check(p, pl)?;
                let op = if mac == Macro::All { "_&&_" } else { "_||_" };
                self.call(op, at, None, vec![accu.clone(), pt], &[at, pl.at])?
            }
            Macro::ExistsOne => {
                let (p, pl) = arg(1);
                let pt = self.check(p, pl)?;
                let add = self.call("_+_", at, None, vec![accu.clone(), T::Int], &[])?;
                self.call("_?_:_", at, None, vec![pt, add, accu.clone()], &[])?
            }
            Macro::Filter => {
                let (p, pl) = arg(1);
                let pt = self.check(p, pl)?;
                let item = T::List(Box::new(var_ty.clone()));
                let add = self.call("_+_", at, None, vec![accu.clone(), item], &[])?;
                self.call("_?_:_", at, None, vec![pt, add, accu.clone()], &[])?
            }
            Macro::Map => {
                let pred = if args.len() == 3 {
                    let (p, pl) = arg(1);
                    Some(self.check(p, pl)?)
                } else {
                    None
                };
                let (f, fl) = arg(args.len() - 1);
                let ft = self.check(f, fl)?;
                let item = T::List(Box::new(ft));
                let add = self.call("_+_", at, None, vec![accu.clone(), item], &[])?;
                match pred {
                    Some(pt) => self.call("_?_:_", at, None, vec![pt, add, accu.clone()], &[])?,
                    None => add,
                }
            }
        };
        match assignable(&self.m, accu, &step) {
            Some(m) => self.m = m,
            None => {
                let msg = format!(
                    "expected type '{}' but found '{}'",
                    format(accu),
                    format(&step)
                );
                self.error(at, msg);
            }
        }
        Some(())
    }
}

/// `a.b.c` as a name, when `e` is only names and selections.
fn qualified_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Ident(n) => Some(n.clone()),
        Expr::Select(t, f) => Some(format!("{}.{f}", qualified_name(t)?)),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
