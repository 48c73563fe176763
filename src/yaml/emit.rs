//! `serde_json::Value` → the exact bytes of `sigs.k8s.io/yaml.Marshal` (R9).
//!
//! Go's pipeline is `encoding/json.Marshal`, then go-yaml v2 reads that JSON text
//! back into generic values (numbers become int, uint64 or float64 depending on the
//! text) and its emitter writes them. This module reproduces, in its own code:
//!
//! * the number round trip ([`number_text`]): JSON's ES6 float text re-read by the
//!   YAML 1.1 resolver, printed with `strconv.FormatFloat(f, 'g', -1, 64)`;
//! * the emitter's block layout: 2-space indentation, sequences under a mapping key
//!   not indented, `? ` complex keys for keys over 128 bytes or with line breaks,
//!   `[]` / `{}` for empty collections;
//! * scalar analysis and style selection (plain, single-quoted, double-quoted,
//!   literal `|`), with folding of long plain and quoted scalars at column 80.

use serde_json::{Number, Value};

use super::keysort::sort_by_key_str;
use super::reread::{any_string, fold_raw_breaks, rejected_by_go_reader, reread_errors, NEL};
use super::resolve::plain_resolves_to_str;
use crate::error::{Error, Result};

/// go-yaml v2's `best_width`: plain and quoted scalars fold at a space past it.
use super::style::{analyze, escape, is_break, is_letter_word, is_printable, select_style, Style};

const BEST_WIDTH: usize = 80;
/// go-yaml v2's `best_indent`.
const BEST_INDENT: i64 = 2;
/// Longest key (in bytes) written as a simple `key: value`; longer ones use `? `.
const MAX_SIMPLE_KEY: usize = 128;

/// One document as `sigs.k8s.io/yaml.Marshal` writes it (ends with `\n`).
///
/// For the rare values Go's Marshal rejects (see [`try_to_yaml`]) this still returns
/// a best-effort document.
pub fn to_yaml(v: &Value) -> String {
    let mut e = Emitter::new();
    e.node(v, Ctx::default());
    if e.raw_break {
        // go-yaml re-read the JSON text, whose raw NELs folded: write the folded value.
        e = Emitter::new();
        e.node(&fold_raw_breaks(v), Ctx::default());
    }
    // Document end: finish the last line.
    e.write_indent();
    e.out
}

/// `sigs.k8s.io/yaml.Marshal`, including its failures: go-yaml re-reads the JSON
/// text, and that text can hold characters its reader rejects (DEL, C1 controls,
/// U+FFFE, U+FFFF), raw NEL line breaks in keys, a document marker after a NEL, or a
/// key longer than go-yaml's 1024-character simple-key limit.
pub fn try_to_yaml(v: &Value) -> Result<String> {
    if any_string(v, &mut |s| s.chars().any(rejected_by_go_reader)) {
        return Err(Error::new("yaml: control characters are not allowed"));
    }
    let mut lines = 0;
    reread_errors(v, &mut lines)?;
    Ok(to_yaml(v))
}

// ---------------------------------------------------------------------------
// Numbers

pub use crate::go::float::{format_g as format_go_float_g, json as go_json_float};

/// The text go-yaml writes for a JSON number.
pub fn number_text(n: &Number) -> String {
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    float_text(n.as_f64().unwrap_or(0.0))
}

/// A Go `float64` through `encoding/json` and go-yaml's re-read: JSON prints it
/// ES6-style; go-yaml reads an integer text as int (or uint64) and prints it as such,
/// anything else as a float printed with `strconv.FormatFloat(f, 'g', -1, 64)`.
pub fn float_text(f: f64) -> String {
    let json = go_json_float(f);
    if let Ok(i) = json.parse::<i64>() {
        return i.to_string();
    }
    if let Ok(u) = json.parse::<u64>() {
        return u.to_string();
    }
    format_go_float_g(f)
}

// ---------------------------------------------------------------------------
// Scalar analysis (go-yaml's `yaml_emitter_analyze_scalar`)

// ---------------------------------------------------------------------------
// The emitter

/// Where a node sits (go-yaml's `mapping_context` / `simple_key_context`).
#[derive(Debug, Clone, Copy, Default)]
struct Ctx {
    mapping: bool,
    simple_key: bool,
}

/// Output plus the emitter state that decides spacing and line breaks.
struct Emitter {
    out: String,
    /// Column in characters.
    column: usize,
    /// The last thing written was whitespace (or nothing).
    whitespace: bool,
    /// Only indentation (and indicators like `- `) on the current line so far.
    indention: bool,
    /// Current indentation; -1 before the root node.
    indent: i64,
    /// A scalar written holds a raw NEL (see [`to_yaml`]).
    raw_break: bool,
}

impl Emitter {
    fn new() -> Self {
        Emitter {
            out: String::new(),
            column: 0,
            whitespace: true,
            indention: true,
            indent: -1,
            raw_break: false,
        }
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// Copy a line break from a scalar: LF becomes a newline; other breaks are
    /// copied as they are and also start a new line.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(&mut self, ind: &str, need_ws: bool, is_ws: bool, is_indention: bool) {
        if need_ws && !self.whitespace {
            self.put(' ');
        }
        for c in ind.chars() {
            self.put(c);
        }
        self.whitespace = is_ws;
        self.indention = self.indention && is_indention;
    }

    fn node(&mut self, v: &Value, ctx: Ctx) {
        match v {
            // Plain one-liners of ASCII without space or indicator: `-` or `+` only
            // inside a number's text, never before a space.
            Value::Null => self.write_word("null"),
            Value::Bool(b) => self.write_word(if *b { "true" } else { "false" }),
            Value::Number(n) => self.write_word(&number_text(n)),
            Value::String(s) => self.string(s, ctx),
            Value::Array(items) if items.is_empty() => self.empty_flow("[", "]"),
            Value::Array(items) => self.sequence(items, ctx),
            Value::Object(m) if m.is_empty() => self.empty_flow("{", "}"),
            Value::Object(m) => {
                let mut entries: Vec<(&String, &Value)> = m.iter().collect();
                sort_by_key_str(&mut entries, |(k, _)| k.as_str());
                self.mapping(&entries);
            }
        }
    }

    /// go-yaml's `stringv`: literal if it has a newline, plain if it reads back as
    /// a string, double-quoted otherwise (the emitter may still change the style).
    fn string(&mut self, s: &str, ctx: Ctx) {
        // Most keys and many values (`apiVersion`, `string`, `cluster.x-k8s.io`): the
        // scalar path below would find plain style and write them as they are.
        if is_letter_word(s) && plain_resolves_to_str(s) {
            self.write_word(s);
            return;
        }
        let style = if s.contains('\n') {
            Style::Literal
        } else if plain_resolves_to_str(s) {
            Style::Plain
        } else {
            Style::Double
        };
        self.scalar(s, style, ctx);
    }

    fn empty_flow(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    fn sequence(&mut self, items: &[Value], ctx: Ctx) {
        let saved = self.indent;
        let indentless = ctx.mapping && !self.indention;
        self.indent = if self.indent < 0 {
            0
        } else if indentless {
            self.indent
        } else {
            self.indent + BEST_INDENT
        };
        for item in items {
            self.write_indent();
            self.write_indicator("-", true, false, true);
            self.node(item, Ctx::default());
        }
        self.indent = saved;
    }

    fn mapping(&mut self, entries: &[(&String, &Value)]) {
        let saved = self.indent;
        self.indent = if self.indent < 0 {
            0
        } else {
            self.indent + BEST_INDENT
        };
        for (k, v) in entries {
            self.write_indent();
            let simple = k.len() <= MAX_SIMPLE_KEY && !k.chars().any(is_break);
            if simple {
                self.string(
                    k,
                    Ctx {
                        mapping: true,
                        simple_key: true,
                    },
                );
                self.write_indicator(":", false, false, false);
            } else {
                self.write_indicator("?", true, false, true);
                self.string(
                    k,
                    Ctx {
                        mapping: true,
                        simple_key: false,
                    },
                );
                self.write_indent();
                self.write_indicator(":", true, false, true);
            }
            self.node(
                v,
                Ctx {
                    mapping: true,
                    simple_key: false,
                },
            );
        }
        self.indent = saved;
    }

    fn scalar(&mut self, value: &str, requested: Style, ctx: Ctx) {
        let a = analyze(value);
        // A NEL is a line break: only a multi-line scalar can hold one.
        self.raw_break |= a.multiline && value.contains(NEL);
        let style = select_style(requested, &a, value, ctx.simple_key);
        let saved = self.indent;
        self.indent = if self.indent < 0 {
            BEST_INDENT
        } else {
            self.indent + BEST_INDENT
        };
        let allow_breaks = !ctx.simple_key;
        match style {
            Style::Plain => self.write_plain(value, allow_breaks),
            Style::Single => self.write_single(value, allow_breaks),
            Style::Double => self.write_double(value, allow_breaks),
            Style::Literal => self.write_literal(value),
        }
        self.indent = saved;
    }

    /// A plain scalar of ASCII without space or line break, as [`Self::write_plain`]
    /// writes it.
    fn write_word(&mut self, value: &str) {
        if !self.whitespace {
            self.put(' ');
        }
        self.out.push_str(value);
        self.column += value.len();
        self.whitespace = false;
        self.indention = false;
    }

    fn write_plain(&mut self, value: &str, allow_breaks: bool) {
        if value.is_ascii() && !value.bytes().any(|b| matches!(b, b' ' | b'\n' | b'\r')) {
            // One line without spaces: written as it is (the loop below would put
            // each character in turn).
            self.write_word(value);
            return;
        }
        if !self.whitespace {
            self.put(' ');
        }
        let (mut spaces, mut breaks) = (false, false);
        let b = value.as_bytes();
        let mut i = 0;
        while i < b.len() {
            // A word of prose, at once.
            let run = self.put_run(value, i, b' ', breaks);
            if run > 0 {
                (spaces, breaks) = (false, false);
                i += run;
                continue;
            }
            let c = value[i..].chars().next().unwrap_or(' ');
            i += c.len_utf8();
            if c == ' ' {
                let next_space = b.get(i) == Some(&b' ');
                if allow_breaks && !spaces && self.column > BEST_WIDTH && !next_space {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                self.line_break_in_scalar(c, breaks);
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                (spaces, breaks) = (false, false);
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    /// Writes the [`ordinary_run`] of `value` at byte `at` (up to `stop`) as the
    /// scalar writers put each of its characters in turn (an indentation first after
    /// a break), and returns its length.
    fn put_run(&mut self, value: &str, at: usize, stop: u8, after_break: bool) -> usize {
        let run = ordinary_run(&value.as_bytes()[at..], stop);
        if run > 0 {
            if after_break {
                self.write_indent();
            }
            self.out.push_str(&value[at..at + run]);
            self.column += run;
            self.indention = false;
        }
        run
    }

    /// A break inside a plain or single-quoted scalar: the first LF of a run is
    /// doubled (an LF alone would fold into a space when read back).
    fn line_break_in_scalar(&mut self, c: char, in_breaks: bool) {
        if !in_breaks && c == '\n' {
            self.put_break();
        }
        self.write_break(c);
        self.indention = true;
    }

    fn write_single(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        let (mut spaces, mut breaks) = (false, false);
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let inner = i > 0 && i + 1 < chars.len();
                let next_space = chars.get(i + 1) == Some(&' ');
                if allow_breaks && !spaces && self.column > BEST_WIDTH && inner && !next_space {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                self.line_break_in_scalar(c, breaks);
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                (spaces, breaks) = (false, false);
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        // go-yaml checks for a BOM at the start of the value for every character,
        // so a value starting with U+FEFF has all its characters escaped.
        let bom = value.starts_with('\u{FEFF}');
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if bom || !is_printable(c) || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                for e in escape(c).chars() {
                    self.put(e);
                }
                spaces = false;
            } else if c == ' ' {
                let inner = i > 0 && i + 1 < chars.len();
                if allow_breaks && !spaces && self.column > BEST_WIDTH && inner {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        self.write_block_hints(value);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        let b = value.as_bytes();
        let mut i = 0;
        while i < b.len() {
            // The characters of a line, at once.
            let run = self.put_run(value, i, b'\n', breaks);
            if run > 0 {
                breaks = false;
                i += run;
                continue;
            }
            let c = value[i..].chars().next().unwrap_or('\n');
            i += c.len_utf8();
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }

    /// Indentation indicator (when the text starts with a space or a break) and
    /// chomping indicator: `-` without a final break, `+` with two or more (or when
    /// the text is a single break), none with exactly one.
    fn write_block_hints(&mut self, value: &str) {
        let mut rev = value.chars().rev();
        let first = value.chars().next();
        if first.is_some_and(|c| c == ' ' || is_break(c)) {
            self.write_indicator(&BEST_INDENT.to_string(), false, false, false);
        }
        let chomp = match (rev.next(), rev.next()) {
            (None, _) => Some("-"),
            (Some(last), _) if !is_break(last) => Some("-"),
            (Some(_), None) => Some("+"),
            (Some(_), Some(prev)) if is_break(prev) => Some("+"),
            _ => None,
        };
        if let Some(ch) = chomp {
            self.write_indicator(ch, false, false, false);
        }
    }
}

/// The length of the run of ASCII bytes at the start of `b` that are neither `stop`
/// nor a line break: characters a scalar writer puts one by one, each a column.
fn ordinary_run(b: &[u8], stop: u8) -> usize {
    b.iter()
        .position(|&c| !c.is_ascii() || c == stop || c == b'\n' || c == b'\r')
        .unwrap_or(b.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn y(v: Value) -> String {
        to_yaml(&v)
    }

    #[test]
    fn go_float_g_format() {
        assert_eq!(format_go_float_g(2.75), "2.75");
        assert_eq!(format_go_float_g(1e-6), "1e-06");
        assert_eq!(format_go_float_g(1e21), "1e+21");
        assert_eq!(format_go_float_g(1.5e300), "1.5e+300");
        assert_eq!(format_go_float_g(0.0001), "0.0001");
        assert_eq!(format_go_float_g(1234567.5), "1.2345675e+06");
        assert_eq!(format_go_float_g(123456.5), "123456.5");
        assert_eq!(format_go_float_g(0.0), "0");
        assert_eq!(format_go_float_g(-0.0), "-0");
        assert_eq!(format_go_float_g(5e-324), "5e-324");
    }

    #[test]
    fn json_float_text_is_es6_style() {
        assert_eq!(go_json_float(1e21), "1e+21");
        assert_eq!(go_json_float(1e20), "100000000000000000000");
        assert_eq!(go_json_float(1e-7), "1e-7");
        assert_eq!(go_json_float(1.5e-10), "1.5e-10");
        assert_eq!(go_json_float(0.000001), "0.000001");
        assert_eq!(go_json_float(-0.0), "-0");
        // Shortest digits padded with zeros: 2^60 is not printed exactly.
        assert_eq!(go_json_float(1152921504606846976.0), "1152921504606847000");
    }

    #[test]
    fn floats_through_the_yaml_reread() {
        assert_eq!(float_text(2.0), "2");
        assert_eq!(float_text(-0.0), "0");
        assert_eq!(float_text(1e20), "1e+20");
        assert_eq!(float_text(1e-7), "1e-07");
        assert_eq!(float_text(1234567.5), "1.2345675e+06");
        assert_eq!(float_text(1234567.0), "1234567");
        assert_eq!(float_text(18446744073709551615.0), "1.8446744073709552e+19");
        assert_eq!(float_text(9223372036854775808.0), "9223372036854776000");
        assert_eq!(float_text(-9223372036854775808.0), "-9.223372036854776e+18");
    }

    #[test]
    fn layout_block_style() {
        assert_eq!(y(json!({})), "{}\n");
        assert_eq!(y(json!([])), "[]\n");
        assert_eq!(y(json!(null)), "null\n");
        assert_eq!(
            y(json!({"a": [1, {"b": 2, "c": [[3]]}], "d": {}, "e": []})),
            "a:\n- 1\n- b: 2\n  c:\n  - - 3\nd: {}\ne: []\n"
        );
        assert_eq!(y(json!({"m": {"x": {"o": "p"}}})), "m:\n  x:\n    o: p\n");
    }

    #[test]
    fn quoting_styles() {
        let v = json!({"l": ["y", "on", "123", "1:20", "", "@at", "a: b", "x #y", " lead", "it's", "?x", "x#y", "a\tb", "é"]});
        assert_eq!(
            y(v),
            "l:\n- \"y\"\n- \"on\"\n- \"123\"\n- \"1:20\"\n- \"\"\n- '@at'\n- 'a: b'\n- 'x #y'\n- ' lead'\n- it's\n- ?x\n- x#y\n- \"a\\tb\"\n- é\n"
        );
        assert_eq!(y(json!({"y": 1, "n": 2})), "\"n\": 2\n\"y\": 1\n");
        assert_eq!(y(json!("emoji \u{1F600}")), "\"emoji \\U0001F600\"\n");
    }

    #[test]
    fn literal_blocks_and_chomping() {
        assert_eq!(y(json!({"a": "x\ny\n"})), "a: |\n  x\n  y\n");
        assert_eq!(y(json!({"a": "x\ny"})), "a: |-\n  x\n  y\n");
        assert_eq!(y(json!({"a": "x\n\n"})), "a: |+\n  x\n\n");
        assert_eq!(y(json!({"a": " x\ny"})), "a: |2-\n   x\n  y\n");
        assert_eq!(y(json!({"a": "trail \nline"})), "a: \"trail \\nline\"\n");
        assert_eq!(y(json!(["a\nb"])), "- |-\n  a\n  b\n");
    }

    #[test]
    fn folding_at_80_columns() {
        let long = "word ".repeat(20) + "end";
        let out = y(json!({ "k": long }));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert!(
            lines[0].len() > 80 && lines[1].starts_with("  word"),
            "{out}"
        );
        let nospace = "x".repeat(200);
        assert_eq!(
            y(json!({ "k": nospace.clone() })),
            format!("k: {nospace}\n")
        );
    }

    #[test]
    fn complex_keys() {
        let k = "k".repeat(129);
        assert_eq!(y(json!({ k.clone(): 1 })), format!("? {k}\n: 1\n"));
        assert_eq!(y(json!({"a\nb": [1]})), "? |-\n  a\n  b\n: - 1\n");
    }

    #[test]
    fn nel_is_folded_like_a_double_quoted_line_break() {
        use crate::yaml::reread::fold_nel;
        assert_eq!(fold_nel("a\u{85}b"), "a b");
        assert_eq!(fold_nel("a \u{85} b"), "a b");
        assert_eq!(fold_nel("a\u{85}\u{85}\u{85}b"), "a\n\nb");
        assert_eq!(fold_nel("a  b"), "a  b");
        assert_eq!(y(json!({"v": "a\u{85}\u{85}b"})), "v: |-\n  a\n  b\n");
        // In a key, and deep in a list: the whole document is the folded one.
        assert_eq!(y(json!({"a\u{85}b": "c"})), y(json!({"a b": "c"})));
        assert_eq!(
            y(json!({"l": [{"x": 1}, {"v": "p\u{85}q"}]})),
            "l:\n- x: 1\n- v: p q\n"
        );
    }

    #[test]
    fn go_marshal_errors_are_reported() {
        let e = |v: Value| try_to_yaml(&v).map_err(|e| e.to_string());
        assert_eq!(
            e(json!({"a": "\u{7f}"})),
            Err("yaml: control characters are not allowed".into())
        );
        assert_eq!(
            e(json!({"a": "\u{85}x", "ka\u{85}b": 1})),
            Err("yaml: line 2: did not find expected ',' or '}'".into())
        );
        assert_eq!(
            e(json!({"v": "a\u{85}--- b"})),
            Err("yaml: line 2: found unexpected document indicator".into())
        );
        let long = "<".repeat(170) + "kkk";
        assert_eq!(
            e(json!({ long: 1 })),
            Err("yaml: did not find expected ',' or '}'".into())
        );
        assert_eq!(e(json!({"a": "a\u{85}---"})), Ok("a: a ---\n".into()));
    }

    proptest::proptest! {
        /// `node` writes numbers as words: the scalar analysis would choose plain
        /// style for every number text and write it as it is.
        #[test]
        fn number_texts_are_plain_words(i in proptest::num::i64::ANY, u in proptest::num::u64::ANY,
                                        f in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO) {
            let mut nums = vec![Number::from(i), Number::from(u)];
            nums.extend(Number::from_f64(f));
            for n in nums {
                let t = number_text(&n);
                let a = analyze(&t);
                proptest::prop_assert!(a.block_plain_allowed && !a.multiline, "{}", t);
                proptest::prop_assert!(t.is_ascii() && !t.contains(' '), "{}", t);
                for simple_key in [false, true] {
                    proptest::prop_assert_eq!(select_style(Style::Plain, &a, &t, simple_key), Style::Plain);
                }
            }
        }
    }
}
