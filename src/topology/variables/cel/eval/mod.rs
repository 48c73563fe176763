//! Evaluation of a parsed CEL expression: operators with CEL's error and short-circuit
//! rules, the macros (`has`, `all`, `exists`, `exists_one`, `map`, `filter`), and the
//! scope of bound variables. Library functions live in `functions.rs`.

use std::cmp::Ordering;
use std::rc::Rc;

mod functions;

use super::parser::{Expr, Lit};
use super::value::{compare, equal, Val};
use functions::call_function;

/// Why an evaluation did not produce a value.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalError {
    /// A CEL runtime error (text as cel-go words it, e.g. `no such key: x`).
    Runtime(String),
    /// Something capi-render does not implement (a function, a macro form).
    Unsupported(String),
}

pub type EvalResult = Result<Val, EvalError>;

pub fn runtime(msg: impl Into<String>) -> EvalError {
    EvalError::Runtime(msg.into())
}

/// cel-go's runtime overload error. Its text names neither the function nor the
/// argument types; `op` and `args` are kept for debugging only.
pub fn no_overload(op: &str, args: &[&Val]) -> EvalError {
    let _ = (op, args);
    EvalError::Runtime("no such overload".to_string())
}

/// Bound variables, innermost last, and the evaluation's cost so far.
pub struct Scope<'a> {
    vars: Vec<(String, Val)>,
    parent: Option<&'a Scope<'a>>,
    cost: std::rc::Rc<Cost>,
}

/// The runtime cost of one evaluation: one unit per evaluated expression node (a
/// comprehension's body counts once per element), plus, for a concatenation (`+` of
/// strings or lists) and for the string a library function builds (`replace`, `join`,
/// `format`, ...: [`functions::output_size`], charged before it is built), cel-go's
/// charge for strings: a tenth of the result's length, so that no rule builds an
/// unbounded value; against `--max-cel-cost` (the API server's
/// per-call limit is 1,000,000 as well).
#[derive(Debug)]
pub struct Cost {
    used: std::cell::Cell<u64>,
    limit: u64,
}

impl<'a> Scope<'a> {
    pub fn root(vars: Vec<(String, Val)>) -> Scope<'static> {
        Scope::root_with_cost(vars, crate::limits::Limits::current().cel_cost)
    }

    /// A root scope with an explicit cost limit (deep equality may visit ten elements
    /// per unit).
    pub fn root_with_cost(vars: Vec<(String, Val)>, limit: u64) -> Scope<'static> {
        super::value::reset_equal_work(limit.saturating_mul(10));
        Scope {
            vars,
            parent: None,
            cost: std::rc::Rc::new(Cost {
                used: std::cell::Cell::new(0),
                limit,
            }),
        }
    }

    fn child(&'a self, name: &str, v: Val) -> Scope<'a> {
        Scope {
            vars: vec![(name.to_string(), v)],
            parent: Some(self),
            cost: self.cost.clone(),
        }
    }

    /// One more unit of cost; cel-go's error once over the limit.
    fn charge(&self) -> Result<(), EvalError> {
        self.charge_by(1)
    }

    /// `n` more units of cost.
    fn charge_by(&self, n: u64) -> Result<(), EvalError> {
        let used = self.cost.used.get().saturating_add(n);
        self.cost.used.set(used);
        if used > self.cost.limit || super::value::equal_work_exhausted() {
            return Err(runtime(format!(
                "operation cancelled: actual cost limit exceeded (capi-render: {})",
                crate::limits::over_limit(crate::limits::Limit::CelCost, self.cost.limit, None)
            )));
        }
        Ok(())
    }

    fn lookup(&self, name: &str) -> Option<&Val> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
            .or_else(|| self.parent.and_then(|p| p.lookup(name)))
    }
}

pub fn eval(e: &Expr, scope: &Scope) -> EvalResult {
    let r = eval_node(e, scope);
    // Deep equality that ran out of work returned a meaningless answer.
    if r.is_ok() {
        scope.charge_by(0)?;
    }
    r
}

fn eval_node(e: &Expr, scope: &Scope) -> EvalResult {
    scope.charge()?;
    match e {
        Expr::Lit(l) => Ok(match l {
            Lit::Null => Val::Null,
            Lit::Bool(b) => Val::Bool(*b),
            Lit::Int(i) => Val::Int(*i),
            Lit::Uint(u) => Val::Uint(*u),
            Lit::Double(d) => Val::Double(*d),
            Lit::Str(s) => Val::Str(s.as_str().into()),
        }),
        Expr::Ident(n) => match scope.lookup(n) {
            Some(v) => read(v.clone()),
            None => match super::value::TYPE_NAMES.iter().find(|t| **t == n.as_str()) {
                Some(t) => Ok(Val::Type(t)),
                None => Err(EvalError::Unsupported(format!(
                    "undeclared reference to '{n}'"
                ))),
            },
        },
        Expr::Select(target, field) => {
            let t = eval(target, scope)?;
            select(&t, field).and_then(read)
        }
        Expr::Index(target, idx) => {
            let t = eval(target, scope)?;
            let i = eval(idx, scope)?;
            index(&t, &i).and_then(read)
        }
        Expr::List(items) => Ok(Val::List(Rc::new(
            items
                .iter()
                .map(|i| eval(i, scope))
                .collect::<Result<_, _>>()?,
        ))),
        Expr::Map(entries) => {
            let mut out: Vec<(Val, Val)> = Vec::new();
            for (k, v) in entries {
                let k = eval(k, scope)?;
                let v = eval(v, scope)?;
                if out.iter().any(|(e, _)| equal(e, &k)) {
                    return Err(runtime("Failed with repeated key"));
                }
                out.push((k, v));
            }
            Ok(Val::Map(Rc::new(out)))
        }
        Expr::Unary(op, a) => {
            let v = eval(a, scope)?;
            match (*op, &v) {
                ("!", Val::Bool(b)) => Ok(Val::Bool(!b)),
                ("-", Val::Int(i)) => i
                    .checked_neg()
                    .map(Val::Int)
                    .ok_or_else(|| runtime("integer overflow")),
                ("-", Val::Double(d)) => Ok(Val::Double(-d)),
                _ => Err(no_overload(if *op == "!" { "_!_" } else { "-_" }, &[&v])),
            }
        }
        Expr::Binary("&&", a, b) => logic(a, b, scope, false),
        Expr::Binary("||", a, b) => logic(a, b, scope, true),
        Expr::Binary(op, a, b) => {
            let l = eval(a, scope)?;
            let r = eval(b, scope)?;
            if *op == "+" {
                scope.charge_by(concat_cost(&l, &r))?;
            }
            binary(op, &l, &r)
        }
        Expr::Cond(c, a, b) => match eval(c, scope)? {
            Val::Bool(true) => eval(a, scope),
            Val::Bool(false) => eval(b, scope),
            other => Err(no_overload("_?_:_", &[&other])),
        },
        Expr::Call(target, name, args) => call(target.as_deref(), name, args, scope),
    }
}

/// The size-based part of `+`: cel-go's `ceil(0.1 × (len(a) + len(b)))` for strings
/// (in characters), the same for lists (in elements; cel-go charges 1 there, its lists
/// being lazy views), 0 for anything else.
fn concat_cost(l: &Val, r: &Val) -> u64 {
    let n = match (l, r) {
        (Val::Str(a), Val::Str(b)) => a.chars().count() + b.chars().count(),
        (Val::List(a), Val::List(b)) => a.len() + b.len(),
        _ => return 0,
    };
    (n as f64 * 0.1).ceil() as u64
}

/// `&&` / `||` with CEL's commutative error absorption: a decisive operand wins over an
/// error on the other side.
fn logic(a: &Expr, b: &Expr, scope: &Scope, decisive: bool) -> EvalResult {
    let l = eval(a, scope);
    if l == Ok(Val::Bool(decisive)) {
        return Ok(Val::Bool(decisive));
    }
    let r = eval(b, scope);
    if r == Ok(Val::Bool(decisive)) {
        return Ok(Val::Bool(decisive));
    }
    let op = if decisive { "_||_" } else { "_&&_" };
    match (l, r) {
        (Err(e), _) | (_, Err(e)) => Err(e),
        (Ok(Val::Bool(_)), Ok(Val::Bool(_))) => Ok(Val::Bool(!decisive)),
        (Ok(x), Ok(y)) => Err(no_overload(op, &[&x, &y])),
    }
}

/// A value as a rule reads it: data of the wrong type fails the evaluation here
/// ([`Val::Invalid`]).
fn read(v: Val) -> EvalResult {
    match v {
        Val::Invalid(why) => Err(runtime(why.to_string())),
        v => Ok(v),
    }
}

fn select(t: &Val, field: &str) -> EvalResult {
    match t {
        Val::Map(_) => t
            .get(&Val::Str(field.into()))
            .cloned()
            .ok_or_else(|| runtime(format!("no such key: {field}"))),
        other => Err(runtime(format!(
            "type '{}' does not support field selection",
            other.type_name()
        ))),
    }
}

fn index(t: &Val, i: &Val) -> EvalResult {
    match (t, i) {
        (Val::List(items), _) => {
            let n = match i {
                Val::Int(n) => *n,
                Val::Uint(u) => i64::try_from(*u).unwrap_or(i64::MAX),
                Val::Double(d) if d.fract() == 0.0 => *d as i64,
                other => return Err(no_overload("_[_]", &[t, other])),
            };
            usize::try_from(n)
                .ok()
                .and_then(|n| items.get(n))
                .cloned()
                .ok_or_else(|| runtime(format!("index out of bounds: {n}")))
        }
        (Val::Map(_), key) => t
            .get(key)
            .cloned()
            .ok_or_else(|| runtime(format!("no such key: {}", key_text(key)))),
        (other, _) => Err(no_overload("_[_]", &[other, i])),
    }
}

fn key_text(k: &Val) -> String {
    match k {
        Val::Str(s) => s.to_string(),
        Val::Int(i) => i.to_string(),
        Val::Uint(u) => u.to_string(),
        Val::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}

pub fn binary(op: &str, l: &Val, r: &Val) -> EvalResult {
    match op {
        "==" => Ok(Val::Bool(equal(l, r))),
        "!=" => Ok(Val::Bool(!equal(l, r))),
        "<" | "<=" | ">" | ">=" => {
            let o = compare(l, r).ok_or_else(|| no_overload(&format!("_{op}_"), &[l, r]))?;
            Ok(Val::Bool(match op {
                "<" => o == Ordering::Less,
                "<=" => o != Ordering::Greater,
                ">" => o == Ordering::Greater,
                _ => o != Ordering::Less,
            }))
        }
        "in" => match r {
            Val::List(items) => Ok(Val::Bool(items.iter().any(|i| equal(i, l)))),
            Val::Map(_) => Ok(Val::Bool(r.get(l).is_some())),
            _ => Err(no_overload("@in", &[l, r])),
        },
        _ => arithmetic(op, l, r),
    }
}

fn arithmetic(op: &str, l: &Val, r: &Val) -> EvalResult {
    let overflow = || runtime("integer overflow");
    match (l, r) {
        (Val::Int(a), Val::Int(b)) => match op {
            "+" => a.checked_add(*b).map(Val::Int).ok_or_else(overflow),
            "-" => a.checked_sub(*b).map(Val::Int).ok_or_else(overflow),
            "*" => a.checked_mul(*b).map(Val::Int).ok_or_else(overflow),
            "/" if *b == 0 => Err(runtime("division by zero")),
            "/" => a.checked_div(*b).map(Val::Int).ok_or_else(overflow),
            "%" if *b == 0 => Err(runtime("modulus by zero")),
            _ => a.checked_rem(*b).map(Val::Int).ok_or_else(overflow),
        },
        (Val::Uint(a), Val::Uint(b)) => match op {
            "+" => a
                .checked_add(*b)
                .map(Val::Uint)
                .ok_or_else(|| runtime("unsigned integer overflow")),
            "-" => a
                .checked_sub(*b)
                .map(Val::Uint)
                .ok_or_else(|| runtime("unsigned integer overflow")),
            "*" => a
                .checked_mul(*b)
                .map(Val::Uint)
                .ok_or_else(|| runtime("unsigned integer overflow")),
            "/" if *b == 0 => Err(runtime("division by zero")),
            "/" => Ok(Val::Uint(a / b)),
            "%" if *b == 0 => Err(runtime("modulus by zero")),
            _ => Ok(Val::Uint(a % b)),
        },
        (Val::Double(a), Val::Double(b)) => match op {
            "+" => Ok(Val::Double(a + b)),
            "-" => Ok(Val::Double(a - b)),
            "*" => Ok(Val::Double(a * b)),
            "/" => Ok(Val::Double(a / b)),
            _ => Err(no_overload("_%_", &[l, r])),
        },
        (Val::Str(a), Val::Str(b)) if op == "+" => Ok(Val::Str(format!("{a}{b}").into())),
        (Val::List(a), Val::List(b)) if op == "+" => Ok(Val::List(Rc::new(
            a.iter().chain(b.iter()).cloned().collect(),
        ))),
        _ => {
            let name = match op {
                "+" => "_+_",
                "-" => "_-_",
                "*" => "_*_",
                "/" => "_/_",
                _ => "_%_",
            };
            Err(no_overload(name, &[l, r]))
        }
    }
}

/// The elements a comprehension ranges over: list items, or map keys.
fn range_of(v: &Val) -> Result<Vec<Val>, EvalError> {
    match v {
        Val::List(items) => Ok(items.to_vec()),
        Val::Map(entries) => Ok(entries.iter().map(|(k, _)| k.clone()).collect()),
        other => Err(runtime(format!(
            "expression of type '{}' cannot be range of a comprehension",
            other.type_name()
        ))),
    }
}

fn ident_of(e: &Expr) -> Result<&str, EvalError> {
    match e {
        Expr::Ident(n) => Ok(n),
        _ => Err(runtime("argument must be a simple name")),
    }
}

fn call(target: Option<&Expr>, name: &str, args: &[Expr], scope: &Scope) -> EvalResult {
    // Macros.
    if target.is_none() && name == "has" && args.len() == 1 {
        return match &args[0] {
            Expr::Select(t, field) => match eval(t, scope)? {
                m @ Val::Map(_) => Ok(Val::Bool(m.get(&Val::Str(field.as_str().into())).is_some())),
                other => Err(no_overload("has", &[&other])),
            },
            _ => Err(runtime("invalid argument to has() macro")),
        };
    }
    if let Some(t) = target {
        let is_macro = matches!(
            (name, args.len()),
            ("all" | "exists" | "exists_one" | "filter", 2) | ("map", 2 | 3)
        );
        if is_macro {
            let var = ident_of(&args[0])?;
            let items = range_of(&eval(t, scope)?)?;
            return comprehension(name, var, &args[1..], items, scope);
        }
    }
    let recv = target.map(|t| eval(t, scope)).transpose()?;
    let vals: Vec<Val> = args
        .iter()
        .map(|a| eval(a, scope))
        .collect::<Result<_, _>>()?;
    // What a string function builds is charged before it is built.
    scope.charge_by(functions::output_size(name, recv.as_ref(), &vals) / 10)?;
    call_function(name, recv.as_ref(), &vals)
}

fn comprehension(
    name: &str,
    var: &str,
    rest: &[Expr],
    items: Vec<Val>,
    scope: &Scope,
) -> EvalResult {
    let pred = |item: &Val| -> EvalResult { eval(&rest[0], &scope.child(var, item.clone())) };
    match name {
        "all" | "exists" => {
            // Like && / ||: a decisive element wins over errors in others.
            let decisive = name == "exists";
            let mut err = None;
            for item in &items {
                match pred(item) {
                    Ok(Val::Bool(b)) if b == decisive => return Ok(Val::Bool(decisive)),
                    Ok(Val::Bool(_)) => {}
                    Ok(other) => {
                        err = err.or(Some(no_overload(
                            if decisive { "_||_" } else { "_&&_" },
                            &[&other],
                        )))
                    }
                    Err(e) => err = err.or(Some(e)),
                }
            }
            match err {
                Some(e) => Err(e),
                None => Ok(Val::Bool(!decisive)),
            }
        }
        "exists_one" => {
            let mut n = 0;
            for item in &items {
                match pred(item)? {
                    Val::Bool(true) => n += 1,
                    Val::Bool(false) => {}
                    other => return Err(no_overload("exists_one", &[&other])),
                }
            }
            Ok(Val::Bool(n == 1))
        }
        "filter" => {
            let mut out = Vec::new();
            for item in items {
                match pred(&item)? {
                    Val::Bool(true) => out.push(item),
                    Val::Bool(false) => {}
                    other => return Err(no_overload("filter", &[&other])),
                }
            }
            Ok(Val::List(Rc::new(out)))
        }
        _ => {
            // map(x, t) or map(x, p, t)
            let mut out = Vec::new();
            for item in items {
                let s = scope.child(var, item.clone());
                if rest.len() == 2 {
                    match eval(&rest[0], &s)? {
                        Val::Bool(true) => {}
                        Val::Bool(false) => continue,
                        other => return Err(no_overload("map", &[&other])),
                    }
                }
                out.push(eval(rest.last().unwrap_or(&rest[0]), &s)?);
            }
            Ok(Val::List(Rc::new(out)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parser::parse;
    use super::*;

    fn run(src: &str, self_val: Val) -> EvalResult {
        eval(
            &parse(src).unwrap(),
            &Scope::root(vec![("self".into(), self_val)]),
        )
    }

    fn obj(entries: &[(&str, Val)]) -> Val {
        Val::Map(Rc::new(
            entries
                .iter()
                .map(|(k, v)| (Val::Str((*k).into()), v.clone()))
                .collect(),
        ))
    }

    #[test]
    fn selection_has_and_errors() {
        let s = obj(&[("a", Val::Int(2)), ("b", Val::Str("x".into()))]);
        assert_eq!(
            run("self.a > 1 && self.b == 'x'", s.clone()),
            Ok(Val::Bool(true))
        );
        assert_eq!(run("has(self.c)", s.clone()), Ok(Val::Bool(false)));
        assert_eq!(
            run("self.c == 1", s.clone()),
            Err(runtime("no such key: c"))
        );
        // A decisive operand absorbs the error on the other side.
        assert_eq!(run("self.c == 1 || true", s.clone()), Ok(Val::Bool(true)));
        assert_eq!(run("false && self.c == 1", s), Ok(Val::Bool(false)));
    }

    #[test]
    fn arithmetic_and_ternary() {
        assert_eq!(
            run("self / 0", Val::Int(1)),
            Err(runtime("division by zero"))
        );
        assert_eq!(
            run("9223372036854775807 + self", Val::Int(1)),
            Err(runtime("integer overflow"))
        );
        assert_eq!(
            run("self > 1 ? 'big' : 'small'", Val::Int(3)),
            Ok(Val::Str("big".into()))
        );
        assert_eq!(
            run("self + 1.5", Val::Int(1)),
            Err(no_overload("_+_", &[&Val::Int(1), &Val::Double(1.5)]))
        );
        assert_eq!(run("self == 1.0", Val::Int(1)), Ok(Val::Bool(true)));
        assert_eq!(
            run("'a' in ['a', 'b'] && !('c' in {'a': 1})", Val::Null),
            Ok(Val::Bool(true))
        );
    }

    #[test]
    fn macros() {
        let l = Val::list(vec![Val::Int(1), Val::Int(2), Val::Int(3)]);
        assert_eq!(run("self.all(x, x > 0)", l.clone()), Ok(Val::Bool(true)));
        assert_eq!(run("self.exists(x, x > 2)", l.clone()), Ok(Val::Bool(true)));
        assert_eq!(
            run("self.exists_one(x, x > 1)", l.clone()),
            Ok(Val::Bool(false))
        );
        assert_eq!(
            run("self.map(x, x * 2)", l.clone()),
            Ok(Val::list(vec![Val::Int(2), Val::Int(4), Val::Int(6)]))
        );
        assert_eq!(
            run("self.map(x, x > 1, x)", l.clone()),
            Ok(Val::list(vec![Val::Int(2), Val::Int(3)]))
        );
        assert_eq!(run("self.filter(x, x % 2 == 1).size()", l), Ok(Val::Int(2)));
        assert_eq!(
            run(
                "[has(self.a), has(self.b)].exists_one(c, c)",
                obj(&[("a", Val::Int(1))])
            ),
            Ok(Val::Bool(true))
        );
    }

    #[test]
    fn unknown_names_are_unsupported() {
        assert!(matches!(
            run("foo == 1", Val::Null),
            Err(EvalError::Unsupported(_))
        ));
    }
}

#[cfg(test)]
mod cost_tests {
    use super::*;

    #[test]
    fn evaluation_stops_at_the_cost_limit() {
        let e = super::super::parser::parse(
            "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, a + b + c > 0)))",
        )
        .unwrap();
        assert_eq!(eval(&e, &Scope::root(vec![])), Ok(Val::Bool(true)));
        let r = eval(&e, &Scope::root_with_cost(vec![], 1000));
        match r {
            Err(EvalError::Runtime(m)) => {
                assert!(
                    m.starts_with("operation cancelled: actual cost limit exceeded"),
                    "{m}"
                );
                assert!(m.contains("--max-cel-cost"), "{m}");
            }
            other => panic!("{other:?}"),
        }
    }

    fn over_limit(r: EvalResult) -> bool {
        matches!(r, Err(EvalError::Runtime(m)) if m.starts_with("operation cancelled: actual cost limit exceeded"))
    }

    fn run(rule: &str) -> EvalResult {
        let e = super::super::parser::parse(rule).unwrap();
        let list = Val::list(vec![Val::Str("x".into()), Val::Str("y".into())]);
        eval(&e, &Scope::root(vec![("self".into(), list)]))
    }

    /// 60 doublings: 2^60 leaves if values were copied; shared, it is 120 pointers.
    #[test]
    fn a_value_used_twice_is_shared_not_copied() {
        let rule = format!("self{}.size() == 2", ".map(x, [x, x])".repeat(60));
        assert_eq!(run(&rule), Ok(Val::Bool(true)));
        // A list doubled by concatenation grows in elements: charged by size.
        let rule = format!(
            "self.map(x, [x]){}.size() == 2",
            ".map(x, x + x)".repeat(60)
        );
        assert!(
            over_limit(run(&rule)),
            "list concatenation is charged by size"
        );
    }

    /// String doubling is charged by length, as in cel-go, so it stops at the limit
    /// instead of building a gigabyte.
    #[test]
    fn concatenation_is_charged_by_size() {
        let rule = format!("self{}.size() > 0", ".map(x, x + x)".repeat(40));
        assert!(over_limit(run(&rule)));
        // Short concatenations stay well inside it.
        assert_eq!(
            run("self.map(x, x + x + x).size() == 2"),
            Ok(Val::Bool(true))
        );
    }

    /// `replace` charged by the size of what it builds, before it is built: each step
    /// of the chain makes the string ten times longer (10^12 bytes after 12 steps).
    #[test]
    fn replace_chains_are_charged_by_output_size() {
        let rule = format!(
            "self.map(x, x{}).size() > 0",
            ".replace('x', 'xxxxxxxxxx')".repeat(12)
        );
        assert!(over_limit(run(&rule)), "replace is charged by size");
        let rule = format!(
            "self.map(x, [x{}].join('xxxxxxxxxx')).size() > 0",
            ", x".repeat(100)
        );
        assert_eq!(run(&rule), Ok(Val::Bool(true)));
        assert_eq!(
            run("self.map(x, x.replace('x', 'ab').replace('', '-')).size() == 2"),
            Ok(Val::Bool(true))
        );
        assert_eq!(
            functions::output_size(
                "replace",
                Some(&Val::Str("aaa".into())),
                &[Val::Str("a".into()), Val::Str("bb".into()), Val::Int(2)]
            ),
            5
        );
    }

    /// Comparing two values of 2^60 shared leaves would never end: deep equality has
    /// its own bound and the rule stops at the cost limit.
    #[test]
    fn deep_equality_of_shared_values_is_bounded() {
        let deep = ".map(x, [x, x])".repeat(60);
        assert!(over_limit(run(&format!("self{deep}.all(x, x == x)"))));
        assert!(over_limit(run(&format!("self{deep}.exists(x, x in [x])"))));
        // Ordinary equality of lists is unaffected, and so is the next rule's.
        assert_eq!(run("[self, self] == [self, self]"), Ok(Val::Bool(true)));
    }
}
