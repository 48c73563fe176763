//! CEL runtime values and their construction from a variable value and its schema (as
//! apiserver's `UnstructuredToVal`: `integer` → int, `number` → double, objects and
//! maps → maps, arrays → lists).

use std::rc::Rc;

use serde_json::Value;

use crate::go::json::as_int64;
use crate::topology::variables::schema::Schema;

/// Strings, lists and maps are shared, never copied: a variable referenced in a loop,
/// or a value put in a list twice (`[x, x]`), costs one pointer, as in cel-go (else
/// `l.map(x, [x, x]).map(x, [x, x])...` would take time and memory exponential in
/// the rule's length).
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(Rc<str>),
    List(Rc<Vec<Val>>),
    Map(Rc<Vec<(Val, Val)>>),
    /// A type value (`type(x)`, `int`, `string`, …), by CEL type name.
    Type(&'static str),
    /// Data whose type is not its schema's (a number where the schema says string),
    /// with apiextensions' error: reading it fails the rule, as apiextensions'
    /// `UnstructuredToVal` converts lazily and fails at the access
    /// (`eval::read`); a rule that never reads it is unaffected.
    Invalid(Rc<str>),
}

/// The CEL type names usable as identifiers.
pub const TYPE_NAMES: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "int",
    "list",
    "map",
    "null_type",
    "string",
    "type",
    "uint",
];

impl Val {
    /// A list value.
    pub fn list(items: Vec<Val>) -> Val {
        Val::List(Rc::new(items))
    }

    /// CEL's type name, used in error texts.
    pub fn type_name(&self) -> &'static str {
        match self {
            Val::Null => "null_type",
            Val::Bool(_) => "bool",
            Val::Int(_) => "int",
            Val::Uint(_) => "uint",
            Val::Double(_) => "double",
            Val::Str(_) => "string",
            Val::List(_) => "list",
            Val::Map(_) => "map",
            Val::Type(_) => "type",
            Val::Invalid(_) => "invalid",
        }
    }

    /// A map entry by key.
    pub fn get(&self, key: &Val) -> Option<&Val> {
        match self {
            Val::Map(entries) => entries.iter().find(|(k, _)| equal(k, key)).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Converts a decoded JSON value; `schema` decides int vs double.
pub fn from_json(v: &Value, schema: Option<&Schema>) -> Val {
    if let Some(why) = schema.and_then(|s| mismatch(v, s)) {
        return Val::Invalid(why.into());
    }
    match v {
        Value::Null => Val::Null,
        Value::Bool(b) => Val::Bool(*b),
        Value::String(s) => Val::Str(s.as_str().into()),
        Value::Number(n) => {
            let declared = schema.map(|s| s.type_.as_str()).unwrap_or("");
            match (declared, as_int64(n)) {
                ("number", _) => Val::Double(n.as_f64().unwrap_or(0.0)),
                (_, Some(i)) => Val::Int(i),
                (_, None) => match n.as_u64() {
                    Some(u) => Val::Uint(u),
                    None => Val::Double(n.as_f64().unwrap_or(0.0)),
                },
            }
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            Val::List(Rc::new(
                items.iter().map(|i| from_json(i, item_schema)).collect(),
            ))
        }
        Value::Object(map) => Val::Map(Rc::new(
            map.iter()
                .map(|(k, v)| {
                    let s = schema
                        .and_then(|s| s.properties.get(k).or(s.additional_properties.as_deref()));
                    (Val::Str(k.as_str().into()), from_json(v, s))
                })
                .collect(),
        )),
    }
}

/// apiextensions' error when `v` is not of its schema's type (`None` when it is, or
/// when the schema takes any type).
fn mismatch(v: &Value, s: &Schema) -> Option<String> {
    if s.int_or_string || s.type_.is_empty() {
        return None;
    }
    let (got, ok) = match v {
        Value::Null => return None,
        Value::String(_) => ("string", s.type_ == "string"),
        Value::Bool(_) => ("bool", s.type_ == "boolean"),
        Value::Number(n) if as_int64(n).is_some() => {
            ("int64", matches!(s.type_.as_str(), "integer" | "number"))
        }
        Value::Number(_) => ("float64", s.type_ == "number"),
        Value::Array(_) => ("[]interface {}", s.type_ == "array"),
        Value::Object(_) => ("map[string]interface {}", s.type_ == "object"),
    };
    (!ok).then(|| format!("invalid data, expected {}, got {got}", s.type_))
}

/// Numeric value as f64 for cross-type comparisons.
fn num(v: &Val) -> Option<f64> {
    match v {
        Val::Int(i) => Some(*i as f64),
        Val::Uint(u) => Some(*u as f64),
        Val::Double(d) => Some(*d),
        _ => None,
    }
}

thread_local! {
    /// Elements deep equality may still visit in this evaluation (see [`reset_equal_work`]).
    static EQUAL_WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(u64::MAX) };
}

/// Bounds the elements deep equality visits from now on (one evaluation): shared values
/// make a list of 2^n leaves from a rule of length n (`l.map(x, [x, x])...`), and
/// comparing two of them is exponential, in cel-go too.
pub fn reset_equal_work(elements: u64) {
    EQUAL_WORK.with(|w| w.set(elements));
}

/// Whether deep equality ran out of its elements since the last reset (its results are
/// then meaningless and the evaluation must stop).
pub fn equal_work_exhausted() -> bool {
    EQUAL_WORK.with(|w| w.get() == 0)
}

/// Takes `n` elements of work; false (and exhausted) when there are not that many.
fn take_equal_work(n: usize) -> bool {
    EQUAL_WORK.with(|w| {
        let left = w.get();
        w.set(left.saturating_sub(n as u64));
        left > n as u64
    })
}

/// CEL heterogeneous equality: numbers compare by value across int/uint/double, other
/// kinds must match; values of different kinds are unequal.
pub fn equal(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => x == y,
        (Val::Uint(x), Val::Uint(y)) => x == y,
        (Val::Int(x), Val::Uint(y)) | (Val::Uint(y), Val::Int(x)) => *x >= 0 && *x as u64 == *y,
        (Val::List(x), Val::List(y)) => {
            x.len() == y.len()
                && take_equal_work(x.len())
                && x.iter().zip(y.iter()).all(|(p, q)| equal(p, q))
        }
        (Val::Map(x), Val::Map(y)) => {
            x.len() == y.len()
                && take_equal_work(x.len().saturating_mul(x.len()))
                && x.iter().all(|(k, v)| b.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        },
    }
}

/// Ordering for `<` etc.: numbers across kinds, strings by bytes, bools; `None` means no overload.
pub fn compare(a: &Val, b: &Val) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => Some(x.cmp(y)),
        (Val::Uint(x), Val::Uint(y)) => Some(x.cmp(y)),
        (Val::Int(x), Val::Uint(y)) => Some(if *x < 0 {
            std::cmp::Ordering::Less
        } else {
            (*x as u64).cmp(y)
        }),
        (Val::Uint(x), Val::Int(y)) => Some(if *y < 0 {
            std::cmp::Ordering::Greater
        } else {
            x.cmp(&(*y as u64))
        }),
        (Val::Str(x), Val::Str(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Val::Bool(x), Val::Bool(y)) => Some(x.cmp(y)),
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schema_decides_numbers() {
        let s = Schema::from_value(&json!({"type": "object", "properties": {"d": {"type": "number"}, "i": {"type": "integer"}}}), "s").unwrap();
        let v = from_json(&json!({"d": 2.0, "i": 3.0}), Some(&s));
        assert_eq!(v.get(&Val::Str("d".into())), Some(&Val::Double(2.0)));
        assert_eq!(v.get(&Val::Str("i".into())), Some(&Val::Int(3)));
    }

    #[test]
    fn heterogeneous_equality_and_order() {
        assert!(equal(&Val::Int(1), &Val::Double(1.0)));
        assert!(equal(&Val::Uint(1), &Val::Int(1)));
        assert!(!equal(&Val::Int(1), &Val::Str("1".into())));
        assert_eq!(
            compare(&Val::Int(-1), &Val::Uint(0)),
            Some(std::cmp::Ordering::Less)
        );
        assert_eq!(compare(&Val::Str("a".into()), &Val::Int(1)), None);
    }
}
