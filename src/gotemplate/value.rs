//! Go values as text/template sees them: the dynamic types JSON data and sprig
//! functions produce, with Go's type names, kinds and truthiness.

use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::Value as Json;

use super::semver::Version;

/// Element type of a Go slice or map value (`[]interface {}` vs `[]string`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    Any,
    Str,
    Int,
}

impl Elem {
    pub fn name(self) -> &'static str {
        match self {
            Elem::Any => "interface {}",
            Elem::Str => "string",
            Elem::Int => "int",
        }
    }
}

/// Go integer types that reach templates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntTy {
    Int,
    Int64,
    Int32,
    Uint64,
    Uint8,
}

impl IntTy {
    pub fn name(self) -> &'static str {
        match self {
            IntTy::Int => "int",
            IntTy::Int64 => "int64",
            IntTy::Int32 => "int32",
            IntTy::Uint64 => "uint64",
            IntTy::Uint8 => "uint8",
        }
    }
}

/// A Go value. `Invalid` is reflect's zero Value (a missing map key); `Nil` is
/// a nil `interface {}` (JSON null).
#[derive(Debug, Clone)]
pub enum Value {
    Invalid,
    Nil,
    Bool(bool),
    Int(i64, IntTy),
    Float(f64),
    Str(Rc<str>),
    List(Rc<Vec<Value>>, Elem),
    Map(Rc<BTreeMap<String, Value>>, Elem),
    Semver(Rc<Version>),
}

impl Value {
    pub fn str(s: impl Into<Rc<str>>) -> Value {
        Value::Str(s.into())
    }
    pub fn int(i: i64) -> Value {
        Value::Int(i, IntTy::Int)
    }
    pub fn int64(i: i64) -> Value {
        Value::Int(i, IntTy::Int64)
    }
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(items), Elem::Any)
    }
    pub fn str_list(items: Vec<String>) -> Value {
        Value::List(
            Rc::new(items.into_iter().map(Value::str).collect()),
            Elem::Str,
        )
    }
    pub fn map(m: BTreeMap<String, Value>) -> Value {
        Value::Map(Rc::new(m), Elem::Any)
    }

    /// JSON decoded as Go's `json.Unmarshal` into `interface{}` does.
    pub fn from_json(j: &Json) -> Value {
        match j {
            Json::Null => Value::Nil,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
            Json::String(s) => Value::str(s.as_str()),
            Json::Array(a) => Value::list(a.iter().map(Value::from_json).collect()),
            Json::Object(o) => Value::map(
                o.iter()
                    .map(|(k, v)| (k.clone(), Value::from_json(v)))
                    .collect(),
            ),
        }
    }

    pub fn is_invalid(&self) -> bool {
        matches!(self, Value::Invalid)
    }

    /// Go's dynamic type name (`%T`, `typeOf`).
    pub fn type_name(&self) -> String {
        match self {
            Value::Invalid | Value::Nil => "<nil>".into(),
            Value::Bool(_) => "bool".into(),
            Value::Int(_, t) => t.name().into(),
            Value::Float(_) => "float64".into(),
            Value::Str(_) => "string".into(),
            Value::List(_, e) => format!("[]{}", e.name()),
            Value::Map(_, e) => format!("map[string]{}", e.name()),
            Value::Semver(_) => "*semver.Version".into(),
        }
    }

    /// Go's reflect kind name (`kindOf`).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Invalid | Value::Nil => "invalid",
            Value::Bool(_) => "bool",
            Value::Int(_, t) => t.name(),
            Value::Float(_) => "float64",
            Value::Str(_) => "string",
            Value::List(..) => "slice",
            Value::Map(..) => "map",
            Value::Semver(_) => "ptr",
        }
    }

    /// text/template's truth (`isTrue`).
    pub fn truth(&self) -> bool {
        match self {
            Value::Invalid | Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i, _) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l, _) => !l.is_empty(),
            Value::Map(m, _) => !m.is_empty(),
            Value::Semver(_) => true,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Deep equality as `reflect.DeepEqual` (types must match).
    pub fn deep_equal(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Invalid, Value::Invalid) | (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a, x), Value::Int(b, y)) => a == b && x == y,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::List(a, x), Value::List(b, y)) => {
                x == y && a.len() == b.len() && a.iter().zip(b.iter()).all(|(p, q)| p.deep_equal(q))
            }
            (Value::Map(a, x), Value::Map(b, y)) => {
                x == y
                    && a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|((k1, v1), (k2, v2))| k1 == k2 && v1.deep_equal(v2))
            }
            (Value::Semver(a), Value::Semver(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The value as JSON (for toJson); `None` for values encoding/json rejects.
    pub fn to_json(&self) -> Json {
        match self {
            Value::Invalid | Value::Nil => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i, _) => Json::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map(Json::Number)
                .unwrap_or(Json::Null),
            Value::Str(s) => Json::String(s.to_string()),
            Value::List(l, _) => Json::Array(l.iter().map(Value::to_json).collect()),
            Value::Map(m, _) => {
                Json::Object(m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
            }
            Value::Semver(v) => Json::String(v.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_numbers_are_float64() {
        let v = Value::from_json(&serde_json::json!({"a": 3, "b": [null, "x"]}));
        let Value::Map(m, Elem::Any) = &v else {
            panic!("not a map")
        };
        assert!(matches!(m["a"], Value::Float(f) if f == 3.0));
        assert_eq!(m["b"].type_name(), "[]interface {}");
        assert_eq!(v.type_name(), "map[string]interface {}");
    }

    #[test]
    fn truthiness_follows_go() {
        assert!(!Value::Float(0.0).truth());
        assert!(Value::Float(-0.5).truth());
        assert!(!Value::str("").truth());
        assert!(!Value::list(vec![]).truth());
        assert!(Value::list(vec![Value::Nil]).truth());
        assert!(!Value::Nil.truth());
        assert!(!Value::Invalid.truth());
    }

    #[test]
    fn deep_equal_needs_same_types() {
        assert!(!Value::int(1).deep_equal(&Value::int64(1)));
        assert!(!Value::int(1).deep_equal(&Value::Float(1.0)));
        assert!(Value::list(vec![Value::int(1)]).deep_equal(&Value::list(vec![Value::int(1)])));
    }
}
