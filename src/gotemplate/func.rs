//! A template function as the executor calls it: its Go parameter types (for Go's
//! argument conversion rules), whether it is variadic, and the Rust implementation.

use super::value::Value;

/// A Go parameter type as far as argument conversion cares (the types the function
/// table uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// `interface {}`
    Any,
    /// `reflect.Value` (text/template builtins)
    Rv,
    Str,
    Int,
    Float,
    Bool,
    /// `map[string]interface {}`
    Map,
    /// `*semver.Version`
    Semver,
}

impl Param {
    pub fn name(self) -> &'static str {
        match self {
            Param::Any => "interface {}",
            Param::Rv => "reflect.Value",
            Param::Str => "string",
            Param::Int => "int",
            Param::Float => "float64",
            Param::Bool => "bool",
            Param::Map => "map[string]interface {}",
            Param::Semver => "*semver.Version",
        }
    }

    pub fn can_be_nil(self) -> bool {
        matches!(self, Param::Any | Param::Rv | Param::Map | Param::Semver)
    }

    /// Is a value of `v`'s dynamic type assignable to this parameter?
    pub fn accepts(self, v: &Value) -> bool {
        use super::value::{Elem, IntTy};
        #[allow(clippy::match_like_matches_macro)]
        match (self, v) {
            (Param::Any | Param::Rv, _) => true,
            (Param::Str, Value::Str(_)) => true,
            (Param::Int, Value::Int(_, IntTy::Int)) => true,
            (Param::Float, Value::Float(_)) => true,
            (Param::Bool, Value::Bool(_)) => true,
            (Param::Map, Value::Map(_, Elem::Any)) => true,
            (Param::Semver, Value::Semver(_)) => true,
            _ => false,
        }
    }
}

pub type FnImpl = fn(&[Value]) -> Result<Value, String>;

#[derive(Clone)]
pub struct Func {
    pub params: &'static [Param],
    pub variadic: bool,
    /// The Go result type is `interface {}` (or a reflect.Value of a data element).
    pub ret_iface: bool,
    pub call: FnImpl,
    /// The receiver of a method value, passed as the first argument.
    pub bound: Option<Value>,
}

pub fn f(params: &'static [Param], call: FnImpl) -> Func {
    Func {
        params,
        variadic: false,
        ret_iface: false,
        call,
        bound: None,
    }
}

pub fn fv(params: &'static [Param], call: FnImpl) -> Func {
    Func {
        params,
        variadic: true,
        ret_iface: false,
        call,
        bound: None,
    }
}

pub fn iface(mut func: Func) -> Func {
    func.ret_iface = true;
    func
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignability() {
        assert!(Param::Str.accepts(&Value::str("a")));
        assert!(!Param::Str.accepts(&Value::Float(1.0)));
        assert!(!Param::Int.accepts(&Value::int64(1)));
        assert!(Param::Any.accepts(&Value::Nil));
    }
}
