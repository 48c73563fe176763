//! Function calls: `has`, the macros, and the costs of the functions the estimator
//! knows (cel-go's `functionCost` and the Kubernetes library's `EstimateCallCost`, which
//! is asked first). Calls are the target's cost plus the arguments' costs plus the
//! function's own.

use super::{Coster, Est, Node, Ty, REGEX_LENGTH, STRING_TRAVERSAL};
use crate::topology::variables::cel::decl::Kind;
use crate::topology::variables::cel::parser::{Expr, Lit};

impl<'a> Coster<'a> {
    pub(super) fn call(
        &mut self,
        target: Option<&Expr>,
        name: &str,
        args: &[Expr],
    ) -> Option<Node<'a>> {
        if target.is_none() && name == "has" {
            return self.has(args);
        }
        if let Some(t) = target {
            let is_macro = matches!(
                (name, args.len()),
                ("all" | "exists" | "exists_one" | "filter", 2) | ("map", 2 | 3)
            );
            if is_macro {
                return self.comprehension(name, t, args);
            }
        }
        let mut nodes = Vec::with_capacity(args.len());
        for a in args {
            nodes.push(self.cost(a)?);
        }
        let arg_costs = nodes.iter().fold(Est::default(), |s, n| s.plus(n.cost));
        let (ty, own, size) = match target {
            Some(t) => {
                let t = self.cost(t)?;
                let limit = args.get(1).and_then(int_literal);
                let (ty, own, size) = self.method(&t, name, &nodes, limit)?;
                (ty, own.plus(t.cost), size)
            }
            None => global(name, &nodes)?,
        };
        Some(Node {
            ty,
            cost: own.plus(arg_costs),
            path: Vec::new(),
            computed: size,
        })
    }

    /// `has(x.f)`: a presence test, free in Kubernetes (`PresenceTestHasCost(false)`).
    fn has(&mut self, args: &[Expr]) -> Option<Node<'a>> {
        let [Expr::Select(t, f)] = args else {
            return None;
        };
        let t = self.cost(t)?;
        match &t.ty {
            Ty::Obj(d) => match &d.kind {
                Kind::Object(fields) if fields.contains_key(f) => {}
                _ => return None,
            },
            Ty::Map(_) => {}
            _ => return None,
        }
        Some(Node::new(Ty::Bool, t.cost))
    }

    /// A member call on `t`: its type, its own cost (without the target's and the
    /// arguments' costs) and its result size; `limit` is the second argument when it is
    /// an int literal.
    fn method(
        &self,
        t: &Node<'a>,
        name: &str,
        args: &[Node<'a>],
        limit: Option<i64>,
    ) -> Option<(Ty<'a>, Est, Option<Est>)> {
        let tr = |e: Est| e.factor(STRING_TRAVERSAL);
        let one = Est::of(1);
        let tys: Vec<&Ty> = args.iter().map(|a| &a.ty).collect();
        Some(match (&t.ty, name, tys.as_slice()) {
            (Ty::Str | Ty::List(_) | Ty::Map(_), "size", []) => (Ty::Int, one, None),
            (Ty::Str, "contains", [Ty::Str]) => (
                Ty::Bool,
                tr(self.size(t)).times(tr(self.size(&args[0]))),
                None,
            ),
            (Ty::Str, "startsWith" | "endsWith", [Ty::Str]) => {
                (Ty::Bool, tr(self.size(&args[0])), None)
            }
            (Ty::Str, "matches", [Ty::Str]) => {
                let s = tr(self.size(t).plus(Est::of(1)));
                let re = self.size(&args[0]).factor(REGEX_LENGTH);
                (Ty::Bool, s.times(re), None)
            }
            (Ty::Str, "lowerAscii" | "upperAscii" | "trim", [])
            | (Ty::Str, "substring", [Ty::Int] | [Ty::Int, Ty::Int]) => {
                let sz = self.lib_size(t);
                (Ty::Str, tr(sz), Some(sz))
            }
            (Ty::Str, "replace", [Ty::Str, Ty::Str] | [Ty::Str, Ty::Str, Ty::Int]) => {
                let sz = self.lib_size(t);
                let size = replace_size(sz, self.lib_size(&args[0]), self.lib_size(&args[1]));
                (Ty::Str, sz.factor(2.0 * STRING_TRAVERSAL), Some(size))
            }
            (Ty::Str, "split", [Ty::Str] | [Ty::Str, Ty::Int]) => {
                let sz = self.lib_size(t);
                // A literal limit bounds the parts (a negative one, as Go converts it).
                let max = limit.map_or(sz.max, |n| n as u64);
                let size = Est { min: 0, max };
                (
                    Ty::List(Box::new(Ty::Str)),
                    sz.factor(2.0 * STRING_TRAVERSAL),
                    Some(size),
                )
            }
            (Ty::List(e), "join", [] | [Ty::Str]) if **e == Ty::Str => {
                let list = self.lib_size(t);
                let mut sz = list.times(self.lib_size(&self.element(t)));
                if let Some(sep) = args.first() {
                    let seps = Est {
                        min: list.min.saturating_sub(1),
                        max: list.max.saturating_sub(1),
                    };
                    sz = sz.plus(self.lib_size(sep).times(seps));
                }
                (Ty::Str, tr(sz), Some(sz))
            }
            (Ty::Str, "indexOf" | "lastIndexOf", [Ty::Str] | [Ty::Str, Ty::Int]) => {
                (Ty::Int, tr(self.lib_size(t)), None)
            }
            (Ty::List(e), "indexOf" | "lastIndexOf", [a]) if super::unify(e, a).is_some() => {
                (Ty::Int, self.list_traversal(t)?, None)
            }
            (Ty::List(e), "isSorted" | "min" | "max", [])
                if matches!(**e, Ty::Int | Ty::Uint | Ty::Double | Ty::Str) =>
            {
                let ty = if name == "isSorted" {
                    Ty::Bool
                } else {
                    (**e).clone()
                };
                (ty, self.list_traversal(t)?, None)
            }
            (Ty::List(e), "sum", []) if matches!(**e, Ty::Int | Ty::Uint | Ty::Double) => {
                ((**e).clone(), self.list_traversal(t)?, None)
            }
            (Ty::Str, "format", [Ty::List(_)]) => (Ty::Str, tr(self.size(t)), None),
            _ => return None,
        })
    }

    /// The list element node of the Kubernetes library (`listElementNode`): the
    /// element type, with the list's path and `@items` when the list has a path.
    fn element(&self, list: &Node<'a>) -> Node<'a> {
        let ty = match &list.ty {
            Ty::List(e) => (**e).clone(),
            _ => Ty::Any,
        };
        let mut n = Node::new(ty, Est::default());
        if !list.path.is_empty() {
            n.path = super::with_path(list.path.clone(), "@items");
        }
        n
    }

    /// `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf` on a list: one unit
    /// per element, plus its traversal for strings.
    fn list_traversal(&self, list: &Node<'a>) -> Option<Est> {
        let el = self.element(list);
        let mut per = Est::of(1);
        match el.ty {
            Ty::Str => per = per.plus(self.lib_size(&el).factor(STRING_TRAVERSAL)),
            Ty::Any => return None,
            _ => {}
        }
        Some(self.lib_size(list).times(per))
    }
}

/// Global functions: conversions, `size(x)` and `matches(s, re)` (cel-go v0.22 costs
/// only the member form by the string's length), all of constant cost.
fn global<'a>(name: &str, args: &[Node<'a>]) -> Option<(Ty<'a>, Est, Option<Est>)> {
    if let ("matches", [s, re]) = (name, args) {
        return (s.ty == Ty::Str && re.ty == Ty::Str).then_some((Ty::Bool, Est::of(1), None));
    }
    let [a] = args else {
        return None;
    };
    let ty = match (name, &a.ty) {
        ("size", Ty::Str | Ty::List(_) | Ty::Map(_)) => Ty::Int,
        ("int", Ty::Int | Ty::Uint | Ty::Double | Ty::Str) => Ty::Int,
        ("uint", Ty::Int | Ty::Uint | Ty::Double | Ty::Str) => Ty::Uint,
        ("double", Ty::Int | Ty::Uint | Ty::Double | Ty::Str) => Ty::Double,
        ("string", Ty::Int | Ty::Uint | Ty::Double | Ty::Str | Ty::Bool) => Ty::Str,
        ("bool", Ty::Bool | Ty::Str) => Ty::Bool,
        _ => return None,
    };
    Some((ty, Est::of(1), None))
}

/// The Kubernetes library's result size of `replace`.
fn replace_size(sz: Est, to_replace: Est, with: Est) -> Est {
    let mut count = Est::default();
    let mut retained = Est::default();
    if to_replace.min == 0 {
        count.max = sz.max.saturating_add(1);
        retained.max = sz.max;
    } else if with.max <= to_replace.min {
        retained.max = sz.max;
    } else {
        count.max = (sz.max as f64 / to_replace.min as f64).ceil() as u64;
    }
    if to_replace.max == 0 {
        count.min = sz.min.saturating_add(1);
        retained.min = sz.min;
    } else if to_replace.max <= with.min {
        retained.min = sz.min;
    } else {
        count.min = (sz.min as f64 / to_replace.max as f64).ceil() as u64;
    }
    count.times(with).plus(retained)
}

/// The value of an int literal argument (`split`'s limit).
fn int_literal(e: &Expr) -> Option<i64> {
    match e {
        Expr::Lit(Lit::Int(i)) => Some(*i),
        _ => None,
    }
}
