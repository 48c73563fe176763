//! Function calls: `has`, the macros, and the costs of the functions the estimator
//! knows (cel-go's `functionCost`, after the sets extension's overload estimators and
//! the Kubernetes library's `EstimateCallCost`, which are asked first; every other
//! overload costs 1). Calls are the target's cost plus the arguments' costs plus the
//! function's own.

use super::{Coster, Est, Lib, Node, Ty, REGEX_LENGTH, STRING_TRAVERSAL};
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
        // `ip.isCanonical(s)`, `sets.contains(a, b)`, ...: one function with a dotted
        // name, unless the prefix is a variable.
        if let Some(Expr::Ident(ns)) = target {
            let is_var = ns == "self" || ns == "oldSelf" || self.vars.iter().any(|v| &v.0 == ns);
            if !is_var {
                let name = format!("{ns}.{name}");
                return self.call(None, &name, args);
            }
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
            None => self.global(name, &nodes)?,
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
            (Ty::Str, "charAt", [Ty::Int]) => (Ty::Str, one, None),
            (Ty::Str, "find", [Ty::Str]) | (Ty::Str, "findAll", [Ty::Str] | [Ty::Str, Ty::Int]) => {
                let sz = self.lib_size(t);
                let s = tr(sz.plus(Est::of(1)));
                let re = self.lib_size(&args[0]).factor(REGEX_LENGTH);
                let ty = if name == "find" {
                    Ty::Str
                } else {
                    Ty::List(Box::new(Ty::Str))
                };
                (
                    ty,
                    s.times(re),
                    Some(Est {
                        min: 0,
                        max: sz.max,
                    }),
                )
            }
            (Ty::Lib(Lib::Bytes), "size", []) => (Ty::Int, one, None),
            (Ty::Lib(lib), _, _) => return self.library_method(*lib, name, args),
            (Ty::Opt(v), _, _) => {
                let ty = match (name, tys.as_slice()) {
                    ("hasValue", []) => Ty::Bool,
                    ("value", []) if **v != Ty::Any => (**v).clone(),
                    ("orValue", [x]) => super::unify(v, x)?,
                    ("or", [o @ Ty::Opt(_)]) => super::unify(&t.ty, o)?,
                    _ => return None,
                };
                (ty, one, None)
            }
            _ => return None,
        })
    }

    /// A member function of a library type: URL and quantity accessors, IPs and
    /// CIDRs, durations and timestamps, and a format's `validate`.
    fn library_method(
        &self,
        lib: Lib,
        name: &str,
        args: &[Node<'a>],
    ) -> Option<(Ty<'a>, Est, Option<Est>)> {
        let one = Est::of(1);
        let tys: Vec<&Ty> = args.iter().map(|a| &a.ty).collect();
        let q = Ty::Lib(Lib::Quantity);
        let ty = match (lib, name, tys.as_slice()) {
            (
                Lib::Url,
                "getScheme" | "getHost" | "getHostname" | "getPort" | "getEscapedPath",
                [],
            ) => Ty::Str,
            (Lib::Url, "getQuery", []) => Ty::Map(Box::new(Ty::List(Box::new(Ty::Str)))),
            (Lib::Quantity, "asInteger", []) => Ty::Int,
            (Lib::Quantity, "isInteger", []) => Ty::Bool,
            (Lib::Quantity, "asApproximateFloat", []) => Ty::Double,
            (Lib::Quantity, "isGreaterThan" | "isLessThan", [a]) if **a == q => Ty::Bool,
            (Lib::Quantity, "compareTo", [a]) if **a == q => Ty::Int,
            (Lib::Quantity, "add" | "sub", [a]) if **a == q || **a == Ty::Int => q.clone(),
            (Lib::Ip, "family", []) => Ty::Int,
            (
                Lib::Ip,
                "isUnspecified"
                | "isLoopback"
                | "isLinkLocalMulticast"
                | "isLinkLocalUnicast"
                | "isGlobalUnicast",
                [],
            ) => Ty::Bool,
            (Lib::Cidr, "ip", []) => Ty::Lib(Lib::Ip),
            (Lib::Cidr, "masked", []) => Ty::Lib(Lib::Cidr),
            (Lib::Cidr, "prefixLength", []) => Ty::Int,
            (Lib::Cidr, "containsIP" | "containsCIDR", [a]) => {
                return cidr_contains(name, a, self.lib_size(&args[0]))
                    .map(|c| (Ty::Bool, c, None));
            }
            (Lib::Duration, "getHours" | "getMinutes" | "getSeconds" | "getMilliseconds", []) => {
                Ty::Int
            }
            (
                Lib::Timestamp,
                "getFullYear" | "getMonth" | "getDate" | "getDayOfMonth" | "getDayOfWeek"
                | "getDayOfYear" | "getHours" | "getMinutes" | "getSeconds" | "getMilliseconds",
                [] | [Ty::Str],
            ) => Ty::Int,
            (Lib::Format, "validate", [Ty::Str]) => {
                // The string traversed once per character of the longest format regex.
                let c = self
                    .lib_size(&args[0])
                    .factor(STRING_TRAVERSAL)
                    .factor(MAX_NAME_FORMAT_REGEX as f64 * REGEX_LENGTH);
                let ty = Ty::Opt(Box::new(Ty::List(Box::new(Ty::Str))));
                return Some((ty, c, None));
            }
            _ => return None,
        };
        Some((ty, one, None))
    }

    /// Global functions: conversions, `size(x)`, `matches(s, re)` (cel-go v0.22 costs
    /// only the member form by the string's length), the library constructors and
    /// checks (`url`, `quantity`, `ip`, `cidr`, `is...`), `sets.*`, `strings.quote`,
    /// `optional.*` and `format.*`.
    fn global(&self, name: &str, args: &[Node<'a>]) -> Option<(Ty<'a>, Est, Option<Est>)> {
        let one = Est::of(1);
        let tr = |e: Est| e.factor(STRING_TRAVERSAL);
        match (name, args) {
            ("matches", [s, re]) => {
                return (s.ty == Ty::Str && re.ty == Ty::Str).then_some((Ty::Bool, one, None));
            }
            ("sets.contains" | "sets.intersects" | "sets.equivalent", [a, b]) => {
                let (Ty::List(x), Ty::List(y)) = (&a.ty, &b.ty) else {
                    return None;
                };
                if super::unify(x, y)? == Ty::Any {
                    return None;
                }
                let factor = if name == "sets.equivalent" { 2.0 } else { 1.0 };
                let c = self.lib_size(a).times(self.lib_size(b)).factor(factor);
                return Some((Ty::Bool, c.plus(one), None));
            }
            ("optional.none", []) => return Some((Ty::Opt(Box::new(Ty::Any)), one, None)),
            (f, []) if NAMED_FORMATS.contains(&f) => {
                return Some((Ty::Lib(Lib::Format), one, None))
            }
            _ => {}
        }
        let [a] = args else {
            return None;
        };
        let num = |t: &Ty| matches!(t, Ty::Int | Ty::Uint | Ty::Double | Ty::Str);
        let time = |t: &Ty| matches!(t, Ty::Lib(Lib::Duration | Lib::Timestamp));
        let lib = |l: Lib| Ty::Lib(l);
        let sz = self.lib_size(a);
        Some(match (name, &a.ty) {
            ("size", Ty::Str | Ty::List(_) | Ty::Map(_) | Ty::Lib(Lib::Bytes)) => {
                (Ty::Int, one, None)
            }
            ("int", t) if num(t) || time(t) => (Ty::Int, one, None),
            ("uint", t) if num(t) => (Ty::Uint, one, None),
            ("double", t) if num(t) => (Ty::Double, one, None),
            ("string", t) if num(t) || time(t) || *t == Ty::Bool => (Ty::Str, one, None),
            ("string", Ty::Lib(Lib::Ip | Lib::Cidr)) => (Ty::Str, one, None),
            ("sign", Ty::Lib(Lib::Quantity)) => (Ty::Int, one, None),
            ("string", Ty::Lib(Lib::Bytes)) => {
                let s = self.size(a);
                let size = Est {
                    min: s.min / 4,
                    max: s.max,
                };
                (Ty::Str, tr(s), Some(size))
            }
            ("bytes", Ty::Lib(Lib::Bytes)) => (lib(Lib::Bytes), one, None),
            ("bytes", Ty::Str) => {
                let s = self.size(a);
                let size = Est {
                    min: s.min,
                    max: s.max.saturating_mul(4),
                };
                (lib(Lib::Bytes), tr(s), Some(size))
            }
            ("bool", Ty::Bool | Ty::Str) => (Ty::Bool, one, None),
            ("duration", Ty::Str | Ty::Int | Ty::Lib(Lib::Duration)) => {
                (lib(Lib::Duration), one, None)
            }
            ("timestamp", Ty::Str | Ty::Int | Ty::Lib(Lib::Timestamp)) => {
                (lib(Lib::Timestamp), one, None)
            }
            ("dyn", t) if *t != Ty::Any => (Ty::Dyn, one, None),
            ("type", t) if *t != Ty::Any => (lib(Lib::Type), one, None),
            ("url", Ty::Str) => (lib(Lib::Url), tr(sz), Some(sz)),
            ("isURL", Ty::Str) => (Ty::Bool, one, None),
            ("quantity", Ty::Str) => (lib(Lib::Quantity), tr(sz), None),
            ("ip", Ty::Str) => (lib(Lib::Ip), tr(sz), None),
            ("cidr", Ty::Str) => (lib(Lib::Cidr), tr(sz), None),
            ("isQuantity" | "isIP" | "isCIDR", Ty::Str) => (Ty::Bool, tr(sz), None),
            ("ip.isCanonical", Ty::Str) => (Ty::Bool, sz.factor(2.0 * STRING_TRAVERSAL), None),
            ("strings.quote", Ty::Str) => {
                let s = self.size(a);
                let size = Est {
                    min: s.min.saturating_add(2),
                    max: s.max.saturating_mul(2).saturating_add(2),
                };
                (Ty::Str, tr(s), Some(size))
            }
            ("optional.of" | "optional.ofNonZeroValue", t) if *t != Ty::Any => {
                (Ty::Opt(Box::new(t.clone())), one, None)
            }
            ("format.named", Ty::Str) => (Ty::Opt(Box::new(lib(Lib::Format))), one, None),
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

/// `cel.MaxNameFormatRegexSize`.
const MAX_NAME_FORMAT_REGEX: u64 = 128;

/// The named formats of the Kubernetes format library (`format.dns1123Label()`, ...).
const NAMED_FORMATS: &[&str] = &[
    "format.byte",
    "format.date",
    "format.datetime",
    "format.dns1035Label",
    "format.dns1035LabelPrefix",
    "format.dns1123Label",
    "format.dns1123LabelPrefix",
    "format.dns1123Subdomain",
    "format.dns1123SubdomainPrefix",
    "format.labelValue",
    "format.qualifiedName",
    "format.uri",
    "format.uuid",
];

/// `containsIP`/`containsCIDR` of a CIDR: comparing two IPs' bytes (4 to 16 each),
/// for a CIDR once more and one more unit, and parsing a string argument of size `arg`.
fn cidr_contains(name: &str, arg: &Ty, arg_size: Est) -> Option<Est> {
    let ip = Est { min: 4, max: 16 };
    let mut c = ip.plus(ip).factor(STRING_TRAVERSAL);
    let parsed = match (name, arg) {
        ("containsIP", Ty::Lib(Lib::Ip)) | ("containsCIDR", Ty::Lib(Lib::Cidr)) => false,
        (_, Ty::Str) => true,
        _ => return None,
    };
    if name == "containsCIDR" {
        c = c.plus(ip.factor(STRING_TRAVERSAL)).plus(Est::of(1));
    }
    if parsed {
        c = c.plus(arg_size.factor(STRING_TRAVERSAL));
    }
    Some(c)
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
