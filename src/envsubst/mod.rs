//! clusterctl's variable engine: drone/envsubst v2
//! (`v2.0.0-20210730161058-179042472c46`) plus clusterctl v1.10.10's
//! `SimpleProcessor` (spec section 6, R6.1–R6.6).
//!
//! # API
//!
//! - [`parse()`]`(text) -> Result<Template>`: drone's `Parse`. Errors carry drone's
//!   exact messages: `unable to parse variable name`, `missing closing brace`,
//!   `bad substitution`, `unable to parse substitution within function`,
//!   `unable to parse default function` (plus our own
//!   [`parse::ERR_TOO_DEEP`] past [`parse::MAX_DEPTH`] nested substitutions,
//!   where Go has no limit).
//! - Limit (ours): the bytes all substitutions of one text produce (every
//!   function's result, nested ones included) are at most `--max-template-bytes`;
//!   each result is sized before it is built (`${X//a/<1,000 b>}` counts the
//!   matches first), and a breach is [`EvalError::TooLarge`], naming the variable.
//! - [`Template::execute`]`(lookup) -> String`: drone's `Execute` with a mapping
//!   function; an unset variable (`None`) is `""`.
//!   [`Template::execute_bytes`] is the exact form (see *Bytes* below).
//! - [`processor`]: [`normalize_legacy`] (R6.1), [`get_variables`] (sorted names),
//!   [`get_variable_map`] (name → default, `None` when empty; first occurrence
//!   wins, top-level substitutions only), [`process`] / [`process_bytes`]
//!   (missing-variable check, then substitution).
//!
//! The lookup closure is called with the name as written; case-insensitivity
//! and the config/env precedence (R2.2) are the caller's business.
//!
//! # Bytes
//!
//! Go strings are bytes. drone's substring takes *byte* offsets and `${#V}` is
//! the *byte* length, so `${A:1:2}` of `日本` yields two bytes that are not
//! UTF-8. The engine works on bytes throughout and reproduces Go's handling of
//! such bytes (case functions and suffix trims turn each bad byte into U+FFFD,
//! other functions pass them through). `execute_bytes`/`process_bytes` return
//! the exact bytes; `execute`/`process` convert with `from_utf8_lossy` at the
//! very end.
//!
//! # Behaviours beyond the spec (all confirmed by the oracle)
//!
//! - A NUL character ends the text: everything after it is dropped.
//! - `$$` is an escape at top level and inside replace pattern/replacement
//!   (`${A/$$/_}` replaces `$`), but not inside default words (`${A:=$$}` → `$$`).
//!   `\/` and `\\` are escapes only in replace arguments.
//! - A multi-byte character right after `:` (`${A:é}`) is `bad substitution`
//!   (drone's scanner steps back by the wrong width).
//! - Mixed case operators (`${A,^}`, `${A^,}`) parse and return the value unchanged.
//! - `${A:1::2}` is `${A:1:2}` (any run of colons separates pos and len).
//! - Glob patterns are drone's fork of `path.Match`: `*` also matches `/`, only
//!   `[^...]` negates (`[!a]` is the set `!`,`a`), a malformed pattern leaves the
//!   value unchanged. `%`/`%%` reverse value *and pattern* rune by rune, so a
//!   class like `%[a-c]` becomes malformed and never matches.
//! - `/#` and `/%` need a replacement (`${A/#a/}` returns the value);
//!   `/` and `//` without one delete the match.
//! - Identifier characters are Go's `unicode.IsLetter`/`IsDigit` (Unicode 15):
//!   `Ⅷ` or a combining accent is not a name character.
//! - `unable to parse default function` is unreachable in practice: the
//!   default-operator tokens it guards are always present when it is tried.
//!
//! # Go panics
//!
//! drone panics on `${V:pos:len}` when `pos+len` falls before `pos` (a negative
//! len), e.g. `runtime error: slice bounds out of range [2:1]`; clusterctl
//! crashes. [`process`] returns that message as an error,
//! [`Template::execute_bytes`] as [`eval::GoPanic`], and [`Template::execute`]
//! renders such a substitution as `""` and carries on.

pub mod eval;
mod glob;
pub mod gostr;
pub mod parse;
pub mod processor;
mod scan;
mod unicode_tables;

pub use eval::{EvalError, GoPanic};
pub use parse::{parse, FuncNode, Node, Template};
pub use processor::{
    get_variable_map, get_variables, missing_variables_error, normalize_legacy, process,
    process_bytes,
};

/// A variable lookup: `Some(value)` when set (possibly empty), `None` when unset.
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

impl Template {
    /// drone's `Execute`, exact bytes; `Err` where Go panics, or where the
    /// substitutions would produce more than `--max-template-bytes` in all (checked
    /// before each result is built; Go has no limit).
    pub fn execute_bytes(&self, lookup: Lookup) -> Result<Vec<u8>, EvalError> {
        self.execute_bytes_within(lookup, eval::Budget::current())
    }

    /// [`Template::execute_bytes`] with the substitutions' bytes limited to `budget`.
    pub fn execute_bytes_within(
        &self,
        lookup: Lookup,
        mut budget: eval::Budget,
    ) -> Result<Vec<u8>, EvalError> {
        // At least the text between substitutions: a provider's components (a
        // megabyte) are not regrown and copied on the way.
        let text: usize = self
            .nodes
            .iter()
            .map(|n| match n {
                Node::Text(t) => t.len(),
                Node::Func(_) => 0,
            })
            .sum();
        let mut out = Vec::with_capacity(text);
        eval::eval_nodes(&self.nodes, lookup, &mut out, &mut budget)?;
        Ok(out)
    }

    /// drone's `Execute` as text: invalid UTF-8 becomes U+FFFD, and a
    /// substitution on which Go would panic, or past the output limit, renders as `""`.
    pub fn execute(&self, lookup: Lookup) -> String {
        let mut out = Vec::new();
        let mut budget = eval::Budget::current();
        for node in &self.nodes {
            // Evaluate node by node so one panicking substitution does not
            // take the rest of the output with it.
            let mut part = Vec::new();
            if eval::eval_nodes(std::slice::from_ref(node), lookup, &mut part, &mut budget).is_ok()
            {
                out.extend_from_slice(&part);
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, vars: &[(&str, &str)]) -> String {
        let lookup = |k: &str| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        };
        match parse(text) {
            Ok(t) => t.execute(&lookup),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn r6_2_grammar_examples() {
        assert_eq!(run("$A ${A}", &[("A", "x")]), "$A x");
        assert_eq!(run("$${A}", &[("A", "x")]), "${A}");
        assert_eq!(run("$$$", &[]), "$$");
        assert_eq!(run("\\\\", &[]), "\\\\");
        assert_eq!(run("${1a}", &[("1a", "d")]), "d");
        assert_eq!(run("${名前}", &[("名前", "n")]), "n");
        assert_eq!(run("${A-word}", &[]), "error: missing closing brace");
        assert_eq!(run("${A+word}", &[]), "error: missing closing brace");
        assert_eq!(run("${}", &[]), "error: unable to parse variable name");
    }

    #[test]
    fn r6_5_defaults_do_not_assign() {
        assert_eq!(run("${A:=d} ${A}", &[]), "d ");
        assert_eq!(run("${A:=${B:=deep}}", &[]), "deep");
        assert_eq!(run("${A:+alt}", &[("A", "set")]), "set");
        assert_eq!(run("${A:?msg}", &[]), "msg");
    }

    #[test]
    fn r6_5_byte_semantics() {
        assert_eq!(run("${#A}", &[("A", "日本")]), "6");
        assert_eq!(run("${A:3}", &[("A", "日本")]), "本");
        assert_eq!(run("${A:1:2}", &[("A", "日本")]), "\u{FFFD}\u{FFFD}");
        let t = parse("${A:1:2}").map(|t| t.execute_bytes(&|_| Some("日本".into())));
        assert_eq!(t, Ok(Ok(vec![0x97, 0xA5])));
    }

    #[test]
    fn execute_survives_go_panics() {
        assert_eq!(run("a${A:2:-1}b", &[("A", "abcdef")]), "ab");
    }

    #[test]
    fn deepest_nesting_evaluates() {
        let depth = parse::MAX_DEPTH;
        let text = "${A:=".repeat(depth) + "x" + &"}".repeat(depth);
        assert_eq!(run(&text, &[]), "x");
        assert_eq!(get_variables(&text), Ok(vec!["A".to_string()]));
    }

    proptest::proptest! {
        // A fixed seed: the same cases on every run and machine.
        #![proptest_config(proptest::test_runner::Config {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_ca71),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]
        #[test]
        fn never_panics(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "$", "{", "}", "${", ":", "=", "-", "?", "+", ",", "^", "#", "%", "/", "\\",
                "*", "?", "[", "]", "!", "A", "B", "1", "-1", "é", "😀", " ", "\0",
            ]), 0..24),
            value in "[a-zé😀$/*]{0,6}",
        ) {
            let text: String = parts.concat();
            let lookup = |k: &str| (k != "B").then(|| value.clone());
            if let Ok(t) = parse(&text) {
                let _ = t.execute(&lookup);
                let _ = t.execute_bytes(&lookup);
            }
            let _ = get_variable_map(&text);
            let _ = process(&text, &lookup);
            let _ = normalize_legacy(&text);
        }
    }
}
