//! The function table: text/template's builtins plus sprig's hermetic map
//! (sprig wins on a name clash, as `Funcs` does: sprig's `slice`). Each entry
//! carries its Go parameter types so the executor applies Go's argument rules.

use super::builtins;
use super::sprig;
use super::value::Value;

/// A Go parameter type as far as argument conversion cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// `interface {}`
    Any,
    /// `reflect.Value` (text/template builtins)
    Rv,
    Str,
    Int,
    Int64,
    Float,
    Bool,
    /// `[]interface {}`
    List,
    /// `[]string`
    StrList,
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
            Param::Int64 => "int64",
            Param::Float => "float64",
            Param::Bool => "bool",
            Param::List => "[]interface {}",
            Param::StrList => "[]string",
            Param::Map => "map[string]interface {}",
            Param::Semver => "*semver.Version",
        }
    }

    pub fn can_be_nil(self) -> bool {
        matches!(
            self,
            Param::Any | Param::Rv | Param::List | Param::StrList | Param::Map | Param::Semver
        )
    }

    /// Is a value of `v`'s dynamic type assignable to this parameter?
    pub fn accepts(self, v: &Value) -> bool {
        use super::value::{Elem, IntTy};
        #[allow(clippy::match_like_matches_macro)]
        match (self, v) {
            (Param::Any | Param::Rv, _) => true,
            (Param::Str, Value::Str(_)) => true,
            (Param::Int, Value::Int(_, IntTy::Int)) => true,
            (Param::Int64, Value::Int(_, IntTy::Int64)) => true,
            (Param::Float, Value::Float(_)) => true,
            (Param::Bool, Value::Bool(_)) => true,
            (Param::List, Value::List(_, Elem::Any)) => true,
            (Param::StrList, Value::List(_, Elem::Str)) => true,
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

/// The function called `name` (sprig first, then the builtins).
pub fn lookup(name: &str) -> Option<Func> {
    sprig::lookup(name).or_else(|| builtins::lookup(name))
}

/// text/template's own function `name` (a template without sprig's map).
pub fn lookup_builtin(name: &str) -> Option<Func> {
    builtins::lookup(name)
}

/// Is `name` one of text/template's builtins (and not overridden by sprig)?
pub fn is_builtin(name: &str) -> bool {
    sprig::lookup(name).is_none() && builtins::lookup(name).is_some()
}

/// Does the function exist (parse-time check)?
pub fn exists(name: &str) -> bool {
    lookup(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sprig_overrides_builtin_slice() {
        assert!(!is_builtin("slice"));
        assert!(is_builtin("index"));
        assert!(exists("semverCompare"));
        assert!(!exists("toYaml"));
        assert!(!exists("now"));
        assert!(!exists("env"));
    }

    #[test]
    fn assignability() {
        assert!(Param::Str.accepts(&Value::str("a")));
        assert!(!Param::Str.accepts(&Value::Float(1.0)));
        assert!(!Param::Int.accepts(&Value::int64(1)));
        assert!(Param::Any.accepts(&Value::Nil));
    }
}
