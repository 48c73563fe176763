//! The static cost estimate of a CEL rule, as the ClusterClass webhook computes it before
//! accepting a variable schema: cel-go v0.22's `checker.Cost` with the Kubernetes
//! library's call costs (k8s.io/apiserver v0.32.3 `library.CostEstimator`) and
//! apiextensions' size estimator, which reads string, list and map sizes from the
//! schema's declaration ([`super::decl`]) along the field path of an expression.
//!
//! The estimate walks our [`Expr`] with the types the schema gives `self`, following
//! cel-go's macro expansions (all, exists, exists_one, map, filter) node for node, and
//! costs the functions of the Kubernetes libraries (URLs, quantities, IPs and CIDRs,
//! sets, formats, optionals, durations and timestamps) as the estimators do. What it
//! cannot cost exactly (a function it does not know, a call on a `dyn` value that
//! several overloads could take, an expression cel-go's type checker might reject or
//! type differently) makes the whole estimate unknown (`None`): such rules are never
//! rejected for their cost.

pub mod budget;
mod calls;

use super::decl::{Decl, Kind};
use super::parser::{Expr, Lit};

/// A cost or size range (`checker.CostEstimate` / `checker.SizeEstimate`), saturating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Est {
    pub min: u64,
    pub max: u64,
}

impl Est {
    pub const fn of(v: u64) -> Est {
        Est { min: v, max: v }
    }
    pub const UNBOUNDED: Est = Est {
        min: 0,
        max: u64::MAX,
    };

    pub fn plus(self, o: Est) -> Est {
        Est {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }
    pub fn times(self, o: Est) -> Est {
        Est {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }
    /// `MultiplyByCostFactor`: each bound times `f`, rounded up.
    pub fn factor(self, f: f64) -> Est {
        Est {
            min: by_factor(self.min, f),
            max: by_factor(self.max, f),
        }
    }
    pub fn union(self, o: Est) -> Est {
        Est {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
}

fn by_factor(x: u64, y: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && y > 0.0 && xf > u64::MAX as f64 / y {
        return u64::MAX;
    }
    let c = (xf * y).ceil();
    if c >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        c as u64
    }
}

/// `common.StringTraversalCostFactor`.
pub const STRING_TRAVERSAL: f64 = 0.1;
/// `common.RegexStringLengthCostFactor`.
pub const REGEX_LENGTH: f64 = 0.25;

/// The static type of an expression, as far as the estimator follows cel-go's checker.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty<'a> {
    Bool,
    Int,
    Uint,
    Double,
    Str,
    Null,
    List(Box<Ty<'a>>),
    /// A map with string keys.
    Map(Box<Ty<'a>>),
    /// An object of the schema (its declaration).
    Obj(&'a Decl),
    /// The element of an empty list or map literal: unifies with anything.
    Any,
    /// `dyn` (`dyn(x)`, an int-or-string field).
    Dyn,
    /// `optional_type(T)`.
    Opt(Box<Ty<'a>>),
    /// A type of a library.
    Lib(Lib),
}

/// The library types the estimator follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lib {
    Bytes,
    Duration,
    Timestamp,
    Quantity,
    Url,
    Ip,
    Cidr,
    /// `kubernetes.NamedFormat`.
    Format,
    /// A type value (`type(x)`, `string`).
    Type,
}

impl<'a> Ty<'a> {
    fn of(d: &'a Decl) -> Option<Ty<'a>> {
        Some(match &d.kind {
            Kind::Bool => Ty::Bool,
            Kind::Int => Ty::Int,
            Kind::Double => Ty::Double,
            Kind::String => Ty::Str,
            Kind::List(e) => Ty::List(Box::new(Ty::of(e)?)),
            Kind::Map(v) => Ty::Map(Box::new(Ty::of(v)?)),
            Kind::Object(_) => Ty::Obj(d),
            Kind::Dyn => Ty::Dyn,
            Kind::Bytes => Ty::Lib(Lib::Bytes),
            Kind::Duration => Ty::Lib(Lib::Duration),
            Kind::Timestamp => Ty::Lib(Lib::Timestamp),
        })
    }

    /// `isScalar`: a type of constant size.
    fn is_scalar(&self) -> bool {
        matches!(
            self,
            Ty::Bool | Ty::Int | Ty::Uint | Ty::Double | Ty::Lib(Lib::Duration | Lib::Timestamp)
        )
    }

    /// Whether values of the type contain schema objects (each has its own CEL type
    /// name, so equality between them is not followed here).
    fn has_object(&self) -> bool {
        match self {
            Ty::Obj(_) => true,
            Ty::List(e) | Ty::Map(e) => e.has_object(),
            _ => false,
        }
    }
}

/// The common type of two expressions (list elements, ternary branches, `==` operands).
fn unify<'a>(a: &Ty<'a>, b: &Ty<'a>) -> Option<Ty<'a>> {
    match (a, b) {
        (Ty::Any, t) | (t, Ty::Any) => Some(t.clone()),
        (Ty::Dyn, _) | (_, Ty::Dyn) => Some(Ty::Dyn),
        (Ty::List(x), Ty::List(y)) => Some(Ty::List(Box::new(unify(x, y)?))),
        (Ty::Map(x), Ty::Map(y)) => Some(Ty::Map(Box::new(unify(x, y)?))),
        (Ty::Opt(x), Ty::Opt(y)) => Some(Ty::Opt(Box::new(unify(x, y)?))),
        (Ty::Obj(x), Ty::Obj(y)) if std::ptr::eq(*x, *y) => Some(a.clone()),
        (Ty::Obj(_), _) | (_, Ty::Obj(_)) => None,
        _ if a == b => Some(a.clone()),
        _ => None,
    }
}

/// What the estimator knows of one AST node (cel-go's `AstNode` plus its cost).
#[derive(Debug, Clone)]
pub struct Node<'a> {
    ty: Ty<'a>,
    cost: Est,
    /// The field path through the declarations (`self`, field names, `@items`,
    /// `@keys`, `@values`); empty where cel-go has none.
    path: Vec<String>,
    /// `ComputedSize`: literal sizes and call results' sizes.
    computed: Option<Est>,
}

impl<'a> Node<'a> {
    fn new(ty: Ty<'a>, cost: Est) -> Node<'a> {
        Node {
            ty,
            cost,
            path: Vec::new(),
            computed: None,
        }
    }
}

struct Coster<'a> {
    root: &'a Decl,
    /// Comprehension variables in scope: name, element type, path.
    vars: Vec<(String, Ty<'a>, Vec<String>)>,
}

/// The estimated maximum cost of a rule (a bool expression) on a value of `root`.
pub fn rule_cost(e: &Expr, root: &Decl) -> Option<u64> {
    cost_as(e, root, Ty::Bool)
}

/// The estimated maximum cost of a `messageExpression` (a string expression).
pub fn message_cost(e: &Expr, root: &Decl) -> Option<u64> {
    cost_as(e, root, Ty::Str)
}

/// The estimated maximum cost of `e` when it has type `ty` (else unknown).
fn cost_as(e: &Expr, root: &Decl, ty: Ty) -> Option<u64> {
    let n = Coster {
        root,
        vars: Vec::new(),
    }
    .cost(e)?;
    (n.ty == ty).then_some(n.cost.max)
}

fn with_path(mut p: Vec<String>, s: &str) -> Vec<String> {
    p.push(s.to_string());
    p
}

impl<'a> Coster<'a> {
    /// apiextensions' `EstimateSize`: the declaration along the path below the rule's
    /// node (the first element, a variable, is skipped), `{0, MaxElements}`.
    fn estimate_size(&self, path: &[String]) -> Option<Est> {
        if path.is_empty() {
            return None;
        }
        let mut cur = self.root;
        let key = Decl::key_string();
        let mut at_key = false;
        for name in &path[1..] {
            if at_key {
                // The key type is a string: no fields, no elements.
                return None;
            }
            match (name.as_str(), &cur.kind) {
                ("@items", Kind::List(e)) | ("@values", Kind::Map(e)) => cur = e,
                ("@items" | "@values", _) => return None,
                ("@keys", Kind::Map(_)) => at_key = true,
                ("@keys", _) => return None,
                (f, Kind::Object(fields)) => cur = fields.get(f)?,
                _ => return None,
            }
        }
        let max = if at_key {
            key.max_elements
        } else {
            cur.max_elements
        };
        Some(Est {
            min: 0,
            max: max as u64,
        })
    }

    /// The checker's `sizeEstimate`: computed, else the schema's, else 1 for scalars.
    fn size(&self, n: &Node) -> Est {
        if let Some(c) = n.computed {
            return c;
        }
        if let Some(s) = self.estimate_size(&n.path) {
            return s;
        }
        if n.ty.is_scalar() {
            return Est::of(1);
        }
        Est::UNBOUNDED
    }

    /// The Kubernetes library's `sizeEstimate` (no scalar rule).
    fn lib_size(&self, n: &Node) -> Est {
        n.computed
            .or_else(|| self.estimate_size(&n.path))
            .unwrap_or(Est::UNBOUNDED)
    }

    fn cost(&mut self, e: &Expr) -> Option<Node<'a>> {
        match e {
            Expr::Lit(l) => Some(literal(l)),
            Expr::Ident(name) => self.ident(name),
            Expr::Select(t, f) => {
                let t = self.cost(t)?;
                // A field of an optional is an optional; selecting it costs nothing
                // (cel-go charges maps and structs only).
                let (inner, optional) = match &t.ty {
                    Ty::Opt(v) => (&**v, true),
                    ty => (ty, false),
                };
                let ty = match inner {
                    Ty::Obj(d) => match &d.kind {
                        Kind::Object(fields) => Ty::of(fields.get(f)?)?,
                        _ => return None,
                    },
                    Ty::Map(v) => (**v).clone(),
                    _ => return None,
                };
                let (ty, step) = if optional {
                    (Ty::Opt(Box::new(ty)), 0)
                } else {
                    (ty, 1)
                };
                Some(Node {
                    ty,
                    cost: t.cost.plus(Est::of(step)),
                    path: with_path(t.path, f),
                    computed: None,
                })
            }
            Expr::Index(a, i) => {
                let a = self.cost(a)?;
                let i = self.cost(i)?;
                let (ty, step) = match (&a.ty, &i.ty) {
                    (Ty::List(e), Ty::Int) => ((**e).clone(), "@items"),
                    (Ty::Map(v), Ty::Str) => ((**v).clone(), "@values"),
                    _ => return None,
                };
                if ty == Ty::Any {
                    return None;
                }
                Some(Node {
                    ty,
                    cost: Est::of(1).plus(a.cost).plus(i.cost),
                    path: with_path(a.path, step),
                    computed: None,
                })
            }
            Expr::List(items) => {
                let mut ty = Ty::Any;
                let mut cost = Est::default();
                for it in items {
                    let n = self.cost(it)?;
                    // Mixed elements make a list of dyn (valid as `format`'s argument).
                    ty = unify(&ty, &n.ty).unwrap_or(Ty::Dyn);
                    cost = cost.plus(n.cost);
                }
                Some(Node {
                    ty: Ty::List(Box::new(ty)),
                    cost: cost.plus(Est::of(10)),
                    path: Vec::new(),
                    computed: Some(Est::of(items.len() as u64)),
                })
            }
            Expr::Map(entries) => {
                let mut ty = Ty::Any;
                let mut cost = Est::default();
                for (k, v) in entries {
                    let k = self.cost(k)?;
                    let v = self.cost(v)?;
                    if k.ty != Ty::Str {
                        return None;
                    }
                    ty = unify(&ty, &v.ty)?;
                    cost = cost.plus(k.cost).plus(v.cost);
                }
                Some(Node {
                    ty: Ty::Map(Box::new(ty)),
                    cost: cost.plus(Est::of(30)),
                    path: Vec::new(),
                    computed: Some(Est::of(entries.len() as u64)),
                })
            }
            // cel-go drops an even run of `!` or `-` (`!!x` is `x`) but not when
            // parenthesized (`!(!x)`), which our AST does not tell apart.
            Expr::Unary(_, a) if matches!(**a, Expr::Unary(..)) => None,
            Expr::Unary(op, a) => {
                let a = self.cost(a)?;
                let ok = match *op {
                    "!" => a.ty == Ty::Bool,
                    _ => matches!(a.ty, Ty::Int | Ty::Double),
                };
                ok.then(|| Node::new(a.ty.clone(), a.cost.plus(Est::of(1))))
            }
            Expr::Binary(op, a, b) => {
                let a = self.cost(a)?;
                let b = self.cost(b)?;
                self.binary(op, a, b)
            }
            Expr::Cond(c, t, f) => {
                let c = self.cost(c)?;
                let t = self.cost(t)?;
                let f = self.cost(f)?;
                if c.ty != Ty::Bool {
                    return None;
                }
                let ty = unify(&t.ty, &f.ty)?;
                let size = self.size(&t).union(self.size(&f));
                Some(Node {
                    ty,
                    cost: c.cost.plus(t.cost.union(f.cost)),
                    path: Vec::new(),
                    computed: Some(size),
                })
            }
            Expr::Call(target, name, args) => self.call(target.as_deref(), name, args),
        }
    }

    fn ident(&self, name: &str) -> Option<Node<'a>> {
        if let Some((_, ty, path)) = self.vars.iter().rev().find(|(n, _, _)| n == name) {
            return Some(Node {
                ty: ty.clone(),
                cost: Est::of(1),
                path: path.clone(),
                computed: None,
            });
        }
        if super::value::TYPE_NAMES.contains(&name) {
            // A type is an identifier like any other: cost 1, its name as its path.
            return Some(Node {
                ty: Ty::Lib(Lib::Type),
                cost: Est::of(1),
                path: vec![name.to_string()],
                computed: None,
            });
        }
        if name != "self" && name != "oldSelf" {
            return None;
        }
        Some(Node {
            ty: Ty::of(self.root)?,
            cost: Est::of(1),
            path: vec![name.to_string()],
            computed: None,
        })
    }

    fn binary(&self, op: &str, a: Node<'a>, b: Node<'a>) -> Option<Node<'a>> {
        let args = a.cost.plus(b.cost);
        let one = Est::of(1).plus(args);
        let numeric = |t: &Ty| matches!(t, Ty::Int | Ty::Uint | Ty::Double);
        match op {
            "&&" | "||" => (a.ty == Ty::Bool && b.ty == Ty::Bool).then(|| {
                let cost = Est {
                    min: a.cost.min,
                    max: args.max,
                };
                Node::new(Ty::Bool, cost)
            }),
            "==" | "!=" => {
                let t = unify(&a.ty, &b.ty)?;
                if t.has_object() || t == Ty::Null || t == Ty::Any || t == Ty::Lib(Lib::Format) {
                    return None;
                }
                // The Kubernetes library's `_==_` (not `_!=_`) of two values of one of
                // its types.
                let own = match (op, &a.ty, &b.ty) {
                    ("==", Ty::Lib(x), Ty::Lib(y)) if x == y => match x {
                        Lib::Quantity | Lib::Ip | Lib::Cidr => Some(Est::of(1)),
                        // Its size is the right operand's computed one, else 1.
                        Lib::Url => {
                            let max = b.computed.map_or(1, |s| s.max);
                            Some(Est { min: 1, max }.factor(STRING_TRAVERSAL))
                        }
                        _ => None,
                    },
                    _ => None,
                };
                let own = own.unwrap_or_else(|| self.compare(&a, &b));
                Some(Node::new(Ty::Bool, own.plus(args)))
            }
            "<" | "<=" | ">" | ">=" => match (&a.ty, &b.ty) {
                (Ty::Str, Ty::Str) | (Ty::Lib(Lib::Bytes), Ty::Lib(Lib::Bytes)) => {
                    Some(Node::new(Ty::Bool, self.compare(&a, &b).plus(args)))
                }
                (Ty::Bool, Ty::Bool) => Some(Node::new(Ty::Bool, one)),
                (Ty::Lib(x @ (Lib::Duration | Lib::Timestamp)), Ty::Lib(y)) if x == y => {
                    Some(Node::new(Ty::Bool, one))
                }
                (x, y) if numeric(x) && numeric(y) => Some(Node::new(Ty::Bool, one)),
                _ => None,
            },
            "in" => match &b.ty {
                Ty::List(e) => {
                    unify(&a.ty, e)?;
                    if a.ty.has_object() || a.ty == Ty::Any {
                        return None;
                    }
                    Some(Node::new(Ty::Bool, self.size(&b).factor(1.0).plus(args)))
                }
                Ty::Map(_) if a.ty == Ty::Str => Some(Node::new(Ty::Bool, one)),
                _ => None,
            },
            "+" => match (&a.ty, &b.ty) {
                (Ty::Str, Ty::Str) | (Ty::Lib(Lib::Bytes), Ty::Lib(Lib::Bytes)) => {
                    let size = self.size(&a).plus(self.size(&b));
                    Some(Node {
                        ty: a.ty.clone(),
                        cost: size.factor(STRING_TRAVERSAL).plus(args),
                        path: Vec::new(),
                        computed: Some(size),
                    })
                }
                (Ty::List(_), Ty::List(_)) => {
                    let ty = unify(&a.ty, &b.ty)?;
                    let size = self.size(&a).plus(self.size(&b));
                    Some(Node {
                        ty,
                        cost: one,
                        path: Vec::new(),
                        computed: Some(size),
                    })
                }
                (x, y) if numeric(x) && x == y => Some(Node::new(x.clone(), one)),
                (Ty::Lib(x), Ty::Lib(y)) => {
                    let ty = match (x, y) {
                        (Lib::Duration, Lib::Duration) => Lib::Duration,
                        (Lib::Duration, Lib::Timestamp) | (Lib::Timestamp, Lib::Duration) => {
                            Lib::Timestamp
                        }
                        _ => return None,
                    };
                    Some(Node::new(Ty::Lib(ty), one))
                }
                _ => None,
            },
            "-" => match (&a.ty, &b.ty) {
                (x, y) if numeric(x) && x == y => Some(Node::new(x.clone(), one)),
                (Ty::Lib(x), Ty::Lib(y)) => {
                    let ty = match (x, y) {
                        (Lib::Duration, Lib::Duration) | (Lib::Timestamp, Lib::Timestamp) => {
                            Lib::Duration
                        }
                        (Lib::Timestamp, Lib::Duration) => Lib::Timestamp,
                        _ => return None,
                    };
                    Some(Node::new(Ty::Lib(ty), one))
                }
                _ => None,
            },
            "*" | "/" => (numeric(&a.ty) && a.ty == b.ty).then(|| Node::new(a.ty.clone(), one)),
            "%" => (matches!(a.ty, Ty::Int | Ty::Uint) && a.ty == b.ty)
                .then(|| Node::new(a.ty.clone(), one)),
            _ => None,
        }
    }

    /// The cost of `==`, `!=` and string ordering: the shorter operand traversed.
    fn compare(&self, a: &Node, b: &Node) -> Est {
        let smallest = self.size(a).max.min(self.size(b).max);
        Est {
            min: u64::from(smallest > 0),
            max: smallest,
        }
        .factor(STRING_TRAVERSAL)
    }

    /// A macro, expanded as cel-go's parser does into a comprehension.
    fn comprehension(&mut self, name: &str, range: &Expr, args: &[Expr]) -> Option<Node<'a>> {
        let Expr::Ident(var) = &args[0] else {
            return None;
        };
        let r = self.cost(range)?;
        let (elem, step_name) = match &r.ty {
            Ty::List(e) => ((**e).clone(), "@items"),
            Ty::Map(_) => (Ty::Str, "@keys"),
            _ => return None,
        };
        if elem == Ty::Any {
            return None;
        }
        self.vars.push((
            var.clone(),
            elem.clone(),
            with_path(r.path.clone(), step_name),
        ));
        let inner: Option<Vec<Node>> = args[1..].iter().map(|a| self.cost(a)).collect();
        self.vars.pop();
        let inner = inner?;
        let p = &inner[0];
        let bool_pred = p.ty == Ty::Bool;
        // (init, result, loop condition + step, type)
        let (init, result, per_item, ty) = match (name, inner.len()) {
            ("all", 1) if bool_pred => (0, 1, Est::of(2).plus(bool_step(p.cost)), Ty::Bool),
            ("exists", 1) if bool_pred => (0, 1, Est::of(3).plus(bool_step(p.cost)), Ty::Bool),
            ("exists_one", 1) if bool_pred => {
                let step = Est {
                    min: p.cost.min.saturating_add(1),
                    max: p.cost.max.saturating_add(2),
                };
                (0, 2, step, Ty::Bool)
            }
            ("filter", 1) if bool_pred => {
                let step = Est {
                    min: p.cost.min.saturating_add(1),
                    max: p.cost.max.saturating_add(13),
                };
                (10, 1, step, Ty::List(Box::new(elem)))
            }
            ("map", 1) => (
                10,
                1,
                p.cost.plus(Est::of(12)),
                Ty::List(Box::new(p.ty.clone())),
            ),
            ("map", 2) if bool_pred => {
                let f = &inner[1];
                let step = Est {
                    min: p.cost.min.saturating_add(1),
                    max: p.cost.max.saturating_add(f.cost.max).saturating_add(12),
                };
                (10, 1, step, Ty::List(Box::new(f.ty.clone())))
            }
            _ => return None,
        };
        let count = self.size(&r);
        let cost = r
            .cost
            .plus(Est::of(init))
            .plus(Est::of(result))
            .plus(count.times(per_item));
        Some(Node {
            ty,
            cost,
            path: Vec::new(),
            computed: Some(count),
        })
    }
}

/// The step of `all`/`exists`: `accu && p` / `accu || p` (the accumulator costs 1).
fn bool_step(p: Est) -> Est {
    Est {
        min: 1,
        max: p.max.saturating_add(1),
    }
}

fn literal<'a>(l: &Lit) -> Node<'a> {
    let (ty, size) = match l {
        Lit::Null => (Ty::Null, 1),
        Lit::Bool(_) => (Ty::Bool, 1),
        Lit::Int(_) => (Ty::Int, 1),
        Lit::Uint(_) => (Ty::Uint, 1),
        Lit::Double(_) => (Ty::Double, 1),
        Lit::Str(s) => (Ty::Str, s.chars().count() as u64),
    };
    Node {
        ty,
        cost: Est::default(),
        path: Vec::new(),
        computed: Some(Est::of(size)),
    }
}

#[cfg(test)]
mod tests;
