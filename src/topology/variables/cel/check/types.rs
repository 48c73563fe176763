//! CEL types as cel-go v0.22's checker sees them (`common/types.Type`), and its
//! unification: assignability under a substitution of type parameters, the most general
//! of two types, substitution, and the names its messages print (`FormatCELType`).

use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub enum T {
    Bool,
    Int,
    Uint,
    Double,
    Str,
    Bytes,
    Null,
    Dyn,
    Any,
    Duration,
    Timestamp,
    Error,
    List(Box<T>),
    Map(Box<T>, Box<T>),
    /// `type`, or `type(T)`.
    Type(Option<Box<T>>),
    /// An opaque type: `optional_type(T)`, `net.IP`, ...
    Opaque(String, Vec<T>),
    /// A message type: a schema object (named as apiextensions names it) or a library
    /// type such as `kubernetes.Quantity`.
    Struct(String),
    /// A type parameter (`A` in a declaration, `_varN` once instantiated).
    Param(String),
}

impl T {
    pub fn is_dyn(&self) -> bool {
        matches!(self, T::Dyn | T::Any)
    }
    pub fn is_dyn_or_error(&self) -> bool {
        self.is_dyn() || *self == T::Error
    }

    fn params(&self) -> Vec<&T> {
        match self {
            T::List(e) => vec![e],
            T::Map(k, v) => vec![k, v],
            T::Type(Some(t)) => vec![t],
            T::Opaque(_, ps) => ps.iter().collect(),
            _ => Vec::new(),
        }
    }

    /// Same kind and name (the parameters aside).
    fn same_head(&self, o: &T) -> bool {
        match (self, o) {
            (T::Opaque(a, _), T::Opaque(b, _)) | (T::Struct(a), T::Struct(b)) => a == b,
            (T::Param(a), T::Param(b)) => a == b,
            (T::Type(_), T::Type(_)) => true,
            _ => std::mem::discriminant(self) == std::mem::discriminant(o),
        }
    }

    /// `IsExactType`.
    pub fn exact(&self, o: &T) -> bool {
        self == o
    }

    /// Reads the declaration encoding of `functions.tsv`: `int`, `list(?A)`,
    /// `map(string,dyn)`, `@optional_type(?V)` (opaque), `%kubernetes.Quantity` (message).
    pub fn decode(s: &str) -> Option<T> {
        let (head, args) = match s.find('(') {
            Some(i) if s.ends_with(')') => (&s[..i], split_args(&s[i + 1..s.len() - 1])?),
            _ => (s, Vec::new()),
        };
        let ps: Vec<T> = args.iter().map(|a| T::decode(a)).collect::<Option<_>>()?;
        let mut it = ps.clone().into_iter();
        Some(match head {
            "bool" => T::Bool,
            "int" => T::Int,
            "uint" => T::Uint,
            "double" => T::Double,
            "string" => T::Str,
            "bytes" => T::Bytes,
            "null_type" => T::Null,
            "dyn" => T::Dyn,
            "any" => T::Any,
            "duration" => T::Duration,
            "timestamp" => T::Timestamp,
            "list" => T::List(Box::new(it.next()?)),
            "map" => T::Map(Box::new(it.next()?), Box::new(it.next()?)),
            "type" => T::Type(it.next().map(Box::new)),
            _ => match head.as_bytes().first()? {
                b'?' => T::Param(head[1..].to_string()),
                b'@' => T::Opaque(head[1..].to_string(), ps),
                b'%' => T::Struct(head[1..].to_string()),
                _ => return None,
            },
        })
    }
}

fn split_args(s: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    (depth == 0).then(|| {
        out.push(cur);
        out
    })
}

/// `FormatCELType`.
pub fn format(t: &T) -> String {
    let name = match t {
        T::Any => return "any".into(),
        T::Duration => return "duration".into(),
        T::Error => return "!error!".into(),
        T::Null => return "null".into(),
        T::Timestamp => return "timestamp".into(),
        T::Param(n) | T::Struct(n) => return n.clone(),
        T::Bool => "bool",
        T::Int => "int",
        T::Uint => "uint",
        T::Double => "double",
        T::Str => "string",
        T::Bytes => "bytes",
        T::Dyn => "dyn",
        T::List(_) => "list",
        T::Map(..) => "map",
        T::Type(_) => "type",
        T::Opaque(n, _) => n,
    };
    let ps = t.params();
    if ps.is_empty() {
        return name.to_string();
    }
    let ps: Vec<String> = ps.into_iter().map(format).collect();
    format!("{name}({})", ps.join(", "))
}

/// Substitutions of type parameters (`checker.mapping`).
pub type Mapping = BTreeMap<String, T>;

fn find<'m>(m: &'m Mapping, t: &T) -> Option<&'m T> {
    match t {
        T::Param(n) => m.get(n),
        _ => None,
    }
}

/// `isEqualOrLessSpecific`.
fn less_specific(a: &T, b: &T) -> bool {
    if a.is_dyn() || matches!(a, T::Param(_)) {
        return true;
    }
    if b.is_dyn() || matches!(b, T::Param(_)) {
        return false;
    }
    if !a.same_head(b) && !matches!((a, b), (T::Opaque(..), T::Opaque(..))) {
        return false;
    }
    match (a, b) {
        (T::Opaque(x, xs), T::Opaque(y, ys)) => {
            x == y && xs.len() == ys.len() && xs.iter().zip(ys).all(|(p, q)| less_specific(p, q))
        }
        (T::List(x), T::List(y)) => less_specific(x, y),
        (T::Map(k1, v1), T::Map(k2, v2)) => less_specific(k1, k2) && less_specific(v1, v2),
        (T::Type(_), T::Type(_)) => true,
        _ => a.exact(b),
    }
}

/// `mostGeneral`.
pub fn most_general(a: &T, b: &T) -> T {
    if less_specific(a, b) {
        a.clone()
    } else {
        b.clone()
    }
}

fn not_referenced_in(m: &Mapping, t: &T, within: &T) -> bool {
    if t.exact(within) {
        return false;
    }
    match within {
        T::Param(_) => match find(m, within) {
            None => true,
            Some(s) => not_referenced_in(m, t, s),
        },
        T::Opaque(..) | T::List(_) | T::Map(..) | T::Type(_) => within
            .params()
            .into_iter()
            .all(|p| not_referenced_in(m, t, p)),
        _ => true,
    }
}

fn valid_substitution(m: &mut Mapping, t1: &T, t2: &T) -> (bool, bool) {
    if t1.exact(t2) {
        return (true, true);
    }
    if let Some(sub) = find(m, t2).cloned() {
        if t1.exact(&sub) {
            return (true, true);
        }
        if assignable_in(m, t1, &sub) {
            let new = most_general(t1, &sub);
            if not_referenced_in(m, t2, &new) {
                if let T::Param(n) = t2 {
                    m.insert(n.clone(), new);
                }
            }
            return (true, true);
        }
        return (false, true);
    }
    if not_referenced_in(m, t2, t1) {
        if let T::Param(n) = t2 {
            m.insert(n.clone(), t1.clone());
        }
        return (true, false);
    }
    (false, false)
}

fn nullable(t: &T) -> bool {
    matches!(
        t,
        T::Opaque(..) | T::Struct(_) | T::Any | T::Duration | T::Timestamp | T::Null
    )
}

/// `internalIsAssignable`: whether a value of `t2` may be used where `t1` is expected,
/// recording the substitutions that makes it so.
fn assignable_in(m: &mut Mapping, t1: &T, t2: &T) -> bool {
    if matches!(t2, T::Param(_)) {
        let (valid, has_sub) = valid_substitution(m, t1, t2);
        if valid {
            return true;
        }
        if has_sub {
            return false;
        }
    }
    if matches!(t1, T::Param(_)) {
        return valid_substitution(m, t2, t1).0;
    }
    if t1.is_dyn_or_error() || t2.is_dyn_or_error() {
        return true;
    }
    if *t1 == T::Null {
        return nullable(t2);
    }
    if *t2 == T::Null {
        return nullable(t1);
    }
    match t1 {
        T::Type(_) => matches!(t2, T::Type(_)),
        T::Opaque(..) | T::List(_) | T::Map(..) => {
            t1.same_head(t2) && {
                let (a, b) = (t1.params(), t2.params());
                a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| assignable_in(m, x, y))
            }
        }
        _ => t1.exact(t2),
    }
}

/// `isAssignable`: the mapping extended, or `None`.
pub fn assignable(m: &Mapping, t1: &T, t2: &T) -> Option<Mapping> {
    let mut c = m.clone();
    assignable_in(&mut c, t1, t2).then_some(c)
}

/// `isAssignableList`.
pub fn assignable_list(m: &Mapping, l1: &[T], l2: &[T]) -> Option<Mapping> {
    let mut c = m.clone();
    (l1.len() == l2.len() && l1.iter().zip(l2).all(|(a, b)| assignable_in(&mut c, a, b)))
        .then_some(c)
}

/// `substitute`.
pub fn substitute(m: &Mapping, t: &T, params_to_dyn: bool) -> T {
    if let Some(s) = find(m, t) {
        return substitute(m, s, params_to_dyn);
    }
    let sub = |x: &T| Box::new(substitute(m, x, params_to_dyn));
    match t {
        T::Param(_) if params_to_dyn => T::Dyn,
        T::Opaque(n, ps) => T::Opaque(
            n.clone(),
            ps.iter().map(|p| substitute(m, p, params_to_dyn)).collect(),
        ),
        T::List(e) => T::List(sub(e)),
        T::Map(k, v) => T::Map(sub(k), sub(v)),
        T::Type(Some(p)) => T::Type(Some(sub(p))),
        _ => t.clone(),
    }
}

/// The type parameters of a declaration, in order of first appearance (result, then
/// arguments).
pub fn params_of(t: &T, out: &mut Vec<String>) {
    if let T::Param(n) = t {
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    for p in t.params() {
        params_of(p, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> T {
        T::decode(s).unwrap()
    }

    #[test]
    fn decodes_and_formats() {
        assert_eq!(format(&d("map(string,list(?A))")), "map(string, list(A))");
        assert_eq!(format(&d("@optional_type(int)")), "optional_type(int)");
        assert_eq!(format(&d("%kubernetes.Quantity")), "kubernetes.Quantity");
        assert_eq!(format(&d("type(dyn)")), "type(dyn)");
        assert_eq!(format(&T::Null), "null");
        assert!(T::decode("wat").is_none());
    }

    #[test]
    fn unification_binds_parameters() {
        let m = Mapping::new();
        let m = assignable_list(
            &m,
            &[d("list(?A)"), d("list(?A)")],
            &[d("list(int)"), d("list(int)")],
        );
        assert!(m.is_some());
        let m = Mapping::new();
        let m = assignable_list(
            &m,
            &[d("list(int)"), d("list(string)")],
            &[d("list(?A)"), d("list(?A)")],
        );
        assert!(m.is_none());
        let m = assignable(&Mapping::new(), &d("?A"), &T::Int).unwrap();
        assert_eq!(substitute(&m, &d("list(?A)"), false), d("list(int)"));
        assert_eq!(
            substitute(&Mapping::new(), &d("list(?B)"), true),
            d("list(dyn)")
        );
        assert!(assignable(&Mapping::new(), &T::Int, &T::Dyn).is_some());
        assert!(assignable(&Mapping::new(), &T::Int, &T::Str).is_none());
        assert!(assignable(&Mapping::new(), &T::Struct("x".into()), &T::Null).is_some());
    }
}
