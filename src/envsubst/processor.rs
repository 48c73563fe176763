//! clusterctl's `SimpleProcessor` (yamlprocessor, v1.10.10) on top of the
//! envsubst engine: legacy whitespace normalisation (R6.1), variable discovery
//! (R6.3), the missing-variable check (R6.4) and substitution (R6.5).

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::parse::{parse, Node};
use super::Lookup;
use crate::{Error, Result};

/// R6.1: rewrite `${ NAME }`, `${ NAME}` and `${NAME }` to `${NAME}`, where
/// NAME is `[A-Za-z0-9_$]+` and whitespace is Go regexp `\s` (`[\t\n\f\r ]`).
/// Anything else inside the braces (`${ A:=x }`) is left alone.
/// The text itself when there is nothing to rewrite (nearly always): a provider's
/// components are a megabyte.
pub fn normalize_legacy(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    // Each `${` in turn (a substring search, not a look at every byte).
    while let Some(at) = memchr::memmem::find(&b[i..], b"${").map(|off| i + off) {
        match legacy_at(b, at + 2) {
            Some((name, end)) => {
                if out.capacity() == 0 {
                    out.reserve(text.len());
                }
                out.push_str(&text[copied..at]);
                out.push_str("${");
                out.push_str(name);
                out.push('}');
                copied = end;
                i = end;
            }
            None => i = at + 1,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

fn is_space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

fn is_legacy_name(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// Match `\s* NAME \s* }` (at least one whitespace) from `start`; the name
/// and the index after `}`. Everything matched is ASCII, so the name slice
/// is on character boundaries.
fn legacy_at(b: &[u8], start: usize) -> Option<(&str, usize)> {
    let count = |from: usize, f: fn(u8) -> bool| b[from..].iter().take_while(|&&c| f(c)).count();
    let lead = count(start, is_space);
    let name_start = start + lead;
    let name_len = count(name_start, is_legacy_name);
    let trail = count(name_start + name_len, is_space);
    let close = name_start + name_len + trail;
    if name_len == 0 || lead + trail == 0 || b.get(close) != Some(&b'}') {
        return None;
    }
    let name = std::str::from_utf8(&b[name_start..name_start + name_len]).ok()?;
    Some((name, close + 1))
}

/// A text normalised (R6.1) and parsed once, for everything clusterctl's processor
/// asks of it: its variables (R6.3), the missing-variable check (R6.4) and the
/// substitution (R6.5). clusterctl parses the text again for each; the parse is a pure
/// function of the text, so one parse gives the same variables, errors and bytes.
pub struct Prepared {
    template: super::parse::Template,
    vars: BTreeMap<String, String>,
}

impl Prepared {
    /// Normalise and parse `text`; the parse error is clusterctl's.
    pub fn new(text: &str) -> Result<Self> {
        let template = parse(&normalize_legacy(text))?;
        let vars = inspect(&template);
        Ok(Prepared { template, vars })
    }

    /// `GetVariableMap`: variable name → default, `None` when the default string
    /// is empty.
    pub fn variable_map(&self) -> BTreeMap<String, Option<String>> {
        self.vars
            .iter()
            .map(|(k, v)| (k.clone(), Some(v.clone()).filter(|v| !v.is_empty())))
            .collect()
    }

    /// `GetVariables`: the variable names, sorted by bytes.
    pub fn variables(&self) -> Vec<String> {
        self.vars.keys().cloned().collect()
    }

    /// `Process`, returning raw bytes (a substring can cut a multi-byte character, and
    /// clusterctl passes such bytes on unchanged).
    ///
    /// Errors: the missing-variables error; or, where drone panics (`${V:pos:len}`
    /// with a negative len reaching before pos), the Go runtime panic message.
    /// clusterctl would crash there.
    pub fn process_bytes(&self, lookup: Lookup) -> Result<Vec<u8>> {
        let missing: Vec<String> = self
            .vars
            .iter()
            .filter(|(name, default)| default.is_empty() && lookup(name).is_none())
            .map(|(name, _)| name.clone())
            .collect();
        if !missing.is_empty() {
            return Err(missing_variables_error(missing));
        }
        self.template
            .execute_bytes(lookup)
            .map_err(|e| e.to_error())
    }

    /// `Process` as text: [`Prepared::process_bytes`] with invalid UTF-8 (only
    /// possible from byte-offset substrings of multi-byte values) replaced by U+FFFD.
    pub fn process(&self, lookup: Lookup) -> Result<String> {
        self.process_bytes(lookup).map(|b| {
            // Valid UTF-8 (nearly always) is taken as it is, not copied.
            String::from_utf8(b)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        })
    }
}

/// Variables of the top-level substitutions, first occurrence wins, each
/// with its default string (text arguments verbatim, nested substitutions as
/// `${NAME}`; `""` when there are no arguments).
fn inspect(template: &super::parse::Template) -> BTreeMap<String, String> {
    let mut vars = BTreeMap::new();
    for node in &template.nodes {
        let Node::Func(f) = node else { continue };
        if vars.contains_key(&f.param) {
            continue;
        }
        let mut default = String::new();
        for a in &f.args {
            match a {
                Node::Func(inner) => {
                    default.push_str("${");
                    default.push_str(&inner.param);
                    default.push('}');
                }
                Node::Text(t) => default.push_str(&String::from_utf8_lossy(t)),
            }
        }
        vars.insert(f.param.clone(), default);
    }
    vars
}

/// `GetVariableMap` of `text` ([`Prepared::variable_map`]). Parse errors are
/// returned as they are.
pub fn get_variable_map(text: &str) -> Result<BTreeMap<String, Option<String>>> {
    Ok(Prepared::new(text)?.variable_map())
}

/// `GetVariables` of `text` ([`Prepared::variables`]).
pub fn get_variables(text: &str) -> Result<Vec<String>> {
    Ok(Prepared::new(text)?.variables())
}

/// The error for variables that are neither set nor defaulted.
pub fn missing_variables_error(mut names: Vec<String>) -> Error {
    names.sort();
    Error::new(format!(
        "value for variables [{}] is not set. Please set the value using os environment variables or the clusterctl config file",
        names.join(", ")
    ))
}

/// `Process` of `text` ([`Prepared::process_bytes`]); a parse error first.
pub fn process_bytes(text: &str, lookup: Lookup) -> Result<Vec<u8>> {
    Prepared::new(text)?.process_bytes(lookup)
}

/// `Process` of `text` as text ([`Prepared::process`]).
pub fn process(text: &str, lookup: Lookup) -> Result<String> {
    Prepared::new(text)?.process(lookup)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    fn map_of(text: &str) -> Vec<(String, Option<String>)> {
        get_variable_map(text)
            .map(|m| m.into_iter().collect())
            .unwrap_or_default()
    }

    fn some(s: &str) -> Option<String> {
        Some(s.to_string())
    }

    /// R6.1 at every byte in turn: the reference for the substring search.
    fn normalize_by_bytes(text: &str) -> String {
        let b = text.as_bytes();
        let (mut out, mut copied, mut i) = (String::new(), 0, 0);
        while i + 1 < b.len() {
            if b[i] == b'$' && b[i + 1] == b'{' {
                if let Some((name, end)) = legacy_at(b, i + 2) {
                    out.push_str(&text[copied..i]);
                    out.push_str(&format!("${{{name}}}"));
                    (copied, i) = (end, end);
                    continue;
                }
            }
            i += 1;
        }
        out.push_str(&text[copied..]);
        out
    }

    proptest::proptest! {
        #[test]
        fn legacy_spacing_found_by_search_as_by_bytes(t in "[$ {}A_é\t]{0,16}") {
            proptest::prop_assert_eq!(normalize_legacy(&t), normalize_by_bytes(&t));
        }
    }

    #[test]
    fn r6_1_legacy_spacing() {
        assert_eq!(normalize_legacy("${ A }"), "${A}");
        assert_eq!(normalize_legacy("${ A}${B }"), "${A}${B}");
        assert_eq!(normalize_legacy("${\tA\n}"), "${A}");
        assert_eq!(normalize_legacy("${ A:=x }"), "${ A:=x }");
        assert_eq!(normalize_legacy("${ A B }"), "${ A B }");
        assert_eq!(normalize_legacy("${A}"), "${A}");
        assert_eq!(normalize_legacy("${ $A }"), "${$A}");
        assert_eq!(normalize_legacy("é${ A }é"), "é${A}é");
        // \v is not \s in Go's RE2.
        assert_eq!(normalize_legacy("${\x0bA}"), "${\x0bA}");
    }

    #[test]
    fn r6_3_defaults_from_the_spec() {
        assert_eq!(map_of("${C:=default}"), vec![("C".into(), some("default"))]);
        assert_eq!(map_of("${D:=${A}}"), vec![("D".into(), some("${A}"))]);
        assert_eq!(map_of("${E=\"\"}"), vec![("E".into(), some("\"\""))]);
        assert_eq!(map_of("${A:=${B:=deep}}"), vec![("A".into(), some("${B}"))]);
        assert_eq!(map_of("${A:0:3}"), vec![("A".into(), some("03"))]);
        assert_eq!(map_of("${A/b/X}"), vec![("A".into(), some("bX"))]);
        assert_eq!(map_of("${A:=${B}}"), vec![("A".into(), some("${B}"))]);
        assert_eq!(map_of("${A} ${A:=x}"), vec![("A".into(), None)]);
        assert_eq!(map_of("${A:=x} ${A}"), vec![("A".into(), some("x"))]);
    }

    #[test]
    fn r6_3_names_sorted_and_errors_returned() {
        assert_eq!(
            get_variables("${b} ${B} ${a:=1} ${_}"),
            Ok(vec!["B".to_string(), "_".into(), "a".into(), "b".into()])
        );
        assert_eq!(
            get_variables("${A").map_err(|e| e.to_string()),
            Err("missing closing brace".into())
        );
    }

    #[test]
    fn r6_4_missing_variables() {
        let none = vars(&[]);
        let msg = |s: &str| process(s, &none).map_err(|e| e.to_string());
        assert_eq!(
            msg("${B} ${A}"),
            Err("value for variables [A, B] is not set. Please set the value using os environment variables or the clusterctl config file".into())
        );
        assert!(msg("${A} ${A:=def}").is_err());
        assert_eq!(msg("${A:=def} ${A}"), Ok("def ".into()));
        for required in ["${A:=}", "${A=}", "${A,,}", "${#A}"] {
            assert!(msg(required).is_err(), "{required}");
        }
        // Set but empty is set.
        assert_eq!(process("${A}", &vars(&[("A", "")])), Ok(String::new()));
    }

    #[test]
    fn r6_5_evaluation() {
        let v = vars(&[("A", "set"), ("R", "ba$r"), ("E", "")]);
        assert_eq!(process("${A:+alt}", &v), Ok("set".into()));
        assert_eq!(process("${U:?msg}", &v), Ok("msg".into()));
        assert_eq!(process("${E:=d}", &v), Ok("d".into()));
        assert_eq!(process("${R}", &v), Ok("ba$r".into()));
        assert_eq!(process("${U:=d}-${U:-x}", &v), Ok("d-x".into()));
        assert_eq!(process("${ A }", &v), Ok("set".into()));
    }

    #[test]
    fn go_panics_become_errors() {
        let v = vars(&[("A", "abcdef")]);
        assert_eq!(
            process("${A:2:-1}", &v).map_err(|e| e.to_string()),
            Err("runtime error: slice bounds out of range [2:1]".into())
        );
    }
}
