//! The function declarations of the CEL environment new rules compile in, read from
//! `functions.tsv` (printed by cel-go itself, see its header).

use std::collections::HashMap;
use std::sync::OnceLock;

use super::types::{params_of, T};

const TABLE: &str = include_str!("functions.tsv");

/// One overload: call style, argument types (the receiver first) and result.
#[derive(Debug, Clone)]
pub struct Overload {
    pub member: bool,
    pub args: Vec<T>,
    pub result: T,
    /// Its type parameters, in order of first appearance.
    pub params: Vec<String>,
}

fn parse(table: &str) -> HashMap<String, Vec<Overload>> {
    let mut out: HashMap<String, Vec<Overload>> = HashMap::new();
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        let [name, style, _id, args, result] = f[..] else {
            panic!("functions.tsv: bad line {line:?}");
        };
        let decode = |s: &str| T::decode(s).unwrap_or_else(|| panic!("functions.tsv: type {s:?}"));
        let args: Vec<T> = args
            .split(' ')
            .filter(|a| !a.is_empty())
            .map(decode)
            .collect();
        let result = decode(result);
        let mut params = Vec::new();
        params_of(&result, &mut params);
        args.iter().for_each(|a| params_of(a, &mut params));
        out.entry(name.to_string()).or_default().push(Overload {
            member: style == "member",
            args,
            result,
            params,
        });
    }
    out
}

/// The overloads of a function, in declaration order; `None` for a name the
/// environment does not declare.
pub fn lookup(name: &str) -> Option<&'static [Overload]> {
    static FUNCTIONS: OnceLock<HashMap<String, Vec<Overload>>> = OnceLock::new();
    FUNCTIONS
        .get_or_init(|| parse(TABLE))
        .get(name)
        .map(Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_whole() {
        let adds = lookup("_+_").unwrap();
        assert!(adds
            .iter()
            .any(|o| o.args == vec![T::Str, T::Str] && o.result == T::Str));
        let size = lookup("size").unwrap();
        assert!(size.iter().any(|o| o.member && o.args == vec![T::Str]));
        assert!(lookup("format.dns1123Label").is_some());
        assert!(lookup("all").is_none(), "macros are not functions");
        let idx = &lookup("_[_]").unwrap()[0];
        assert_eq!(idx.params, vec!["A".to_string()]);
    }
}
