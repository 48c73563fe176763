//! One YAML document → `serde_json::Value`, as `sigs.k8s.io/yaml.Unmarshal` into a
//! `map[string]interface{}` gives it (R5.4).
//!
//! serde-saphyr resolves plain scalars with YAML 1.1 rules close to go-yaml v2's
//! (y/yes/on booleans, `1_000`, legacy octal with `legacy_octal_numbers`); merge keys
//! are merged, aliases are expanded within a budget.
//! On top of that we apply what Go's YAML→JSON→`interface{}` path does:
//! non-string keys are stringified and every number becomes an `f64`.
//!
//! Duplicate mapping keys: [`parse_value`] rejects them, as Kubernetes' strict decoding
//! does (`render`, `bundle`, `krm` inputs); [`parse_value_lenient`] keeps the last one, as
//! `sigs.k8s.io/yaml.Unmarshal` does for clusterctl (`generate`, `topology plan`, patch
//! and template output, through [`parse_documents`]).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::budget::{BudgetReport, EnforcingPolicy};
use serde_saphyr::{Budget, DuplicateKeyPolicy, Options};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::split::split_documents;
use crate::error::{Error, Result};
use crate::limits::{Limit, Meter};

/// A parsed value before Go's JSON step: keys may still be non-strings.
enum Raw {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Raw>),
    Map(Vec<(Raw, Raw)>),
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> std::result::Result<Raw, E> {
        Ok(Raw::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> std::result::Result<Raw, E> {
        Ok(Raw::Int(v as i128))
    }
    fn visit_i128<E>(self, v: i128) -> std::result::Result<Raw, E> {
        Ok(Raw::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> std::result::Result<Raw, E> {
        Ok(Raw::Int(v as i128))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> std::result::Result<Raw, E> {
        Ok(Raw::Float(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> std::result::Result<Raw, E> {
        Ok(Raw::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> std::result::Result<Raw, E> {
        Ok(Raw::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> std::result::Result<Raw, E> {
        Ok(Raw::Str(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> std::result::Result<Raw, E> {
        Ok(Raw::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_byte_buf<E>(self, v: Vec<u8>) -> std::result::Result<Raw, E> {
        Ok(Raw::Str(String::from_utf8_lossy(&v).into_owned()))
    }
    fn visit_none<E>(self) -> std::result::Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_unit<E>(self) -> std::result::Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Raw, D::Error> {
        d.deserialize_any(RawVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Raw, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = seq.next_element::<Raw>()? {
            v.push(x);
        }
        Ok(Raw::Seq(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Raw, A::Error> {
        let mut v = Vec::new();
        while let Some((k, x)) = map.next_entry::<Raw, Raw>()? {
            v.push((k, x));
        }
        Ok(Raw::Map(v))
    }
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Raw, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

fn options(duplicates: DuplicateKeyPolicy) -> Options {
    let mut o = Options::default();
    o.legacy_octal_numbers = true;
    o.duplicate_keys = duplicates;
    o
}

/// How a mapping's repeated keys are read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keys {
    /// The last one wins (`sigs.k8s.io/yaml.Unmarshal`).
    LastWins,
    /// An error naming the key's field path (Kubernetes' strict decoding).
    Strict,
}

fn number(f: f64) -> Result<Value> {
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(|| Error::new(format!("json: unsupported value: {}", go_special_float(f))))
}

fn go_special_float(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "+Inf"
    } else {
        "-Inf"
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)` for map keys that are floats.
fn go_float_key(f: f64) -> String {
    crate::go::float::format_g(f)
}

fn key_string(k: Raw, path: &Path) -> Result<String> {
    Ok(match k {
        Raw::Str(s) => s,
        Raw::Bool(b) => b.to_string(),
        Raw::Int(i) => i.to_string(),
        Raw::Float(f) => go_float_key(f),
        Raw::Null => "null".to_string(),
        Raw::Seq(_) | Raw::Map(_) => {
            let what = if matches!(k, Raw::Seq(_)) {
                "a list"
            } else {
                "a mapping"
            };
            return Err(Error::new(format!(
                "error converting YAML to JSON: unsupported map key type (a key of {} is {what}; keys must be strings)",
                path.shown()
            )));
        }
    })
}

/// The field path of the value being converted, for error messages (`spec.items[2]`).
#[derive(Default)]
struct Path(Vec<String>);

impl Path {
    fn shown(&self) -> String {
        if self.0.is_empty() {
            return "the document".to_string();
        }
        let mut s = String::new();
        for p in &self.0 {
            if !p.starts_with('[') && !s.is_empty() {
                s.push('.');
            }
            s.push_str(p);
        }
        s
    }
    fn key(k: &str) -> String {
        if !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_/".contains(c))
        {
            k.to_string()
        } else {
            format!("[{}]", crate::go::quote::quote(k))
        }
    }
}

/// A key repeated in one mapping (strict decoding).
struct Duplicate {
    path: String,
    key: String,
}

fn to_json(r: Raw, keys: Keys, path: &mut Path) -> std::result::Result<Value, ConvertError> {
    Ok(match r {
        Raw::Null => Value::Null,
        Raw::Bool(b) => Value::Bool(b),
        Raw::Int(i) => number(i as f64)?,
        Raw::Float(f) => number(f)?,
        Raw::Str(s) => Value::String(s),
        Raw::Seq(v) => {
            let mut out = Vec::with_capacity(v.len());
            for (i, x) in v.into_iter().enumerate() {
                path.0.push(format!("[{i}]"));
                out.push(to_json(x, keys, path)?);
                path.0.pop();
            }
            Value::Array(out)
        }
        Raw::Map(entries) => {
            let mut m = Map::new();
            for (k, v) in entries {
                let k = key_string(k, path)?;
                if keys == Keys::Strict && m.contains_key(&k) {
                    return Err(ConvertError::Duplicate(Duplicate {
                        path: path.shown(),
                        key: k,
                    }));
                }
                path.0.push(Path::key(&k));
                let v = to_json(v, keys, path)?;
                path.0.pop();
                m.insert(k, v);
            }
            Value::Object(m)
        }
    })
}

enum ConvertError {
    Plain(Error),
    Duplicate(Duplicate),
}

impl From<Error> for ConvertError {
    fn from(e: Error) -> Self {
        ConvertError::Plain(e)
    }
}

/// Parse one document to a value with Kubernetes' strict decoding: a mapping key
/// that appears twice is an error naming its field path and line. An empty or
/// comment-only document is `Null`. Each call is its own run for the YAML limits
/// (nodes, alias expansions); use [`parse_value_in`] to count several documents
/// against one run.
pub fn parse_value(doc: &str) -> Result<Value> {
    parse(doc, Keys::Strict, 1, &Meter::current())
}

/// [`parse_value`] of a document that starts on line `first_line` of its file (line
/// numbers of errors are counted from the file's start), counted against `meter`.
pub fn parse_value_at(doc: &str, first_line: usize, meter: &Meter) -> Result<Value> {
    parse(doc, Keys::Strict, first_line, meter)
}

/// [`parse_value`] counting the document's nodes and alias expansions against the
/// run-wide limits of `meter` (`--max-yaml-nodes`, `--max-yaml-alias-nodes`,
/// `--max-yaml-alias-bytes`). A breach is an error naming the limit and its flag; the
/// caller adds the file and document.
pub fn parse_value_in(doc: &str, meter: &Meter) -> Result<Value> {
    parse(doc, Keys::Strict, 1, meter)
}

/// Parse one document to a value as `sigs.k8s.io/yaml.Unmarshal` does: a repeated
/// mapping key keeps its last value. An empty or comment-only document is `Null`.
pub fn parse_value_lenient(doc: &str) -> Result<Value> {
    parse(doc, Keys::LastWins, 1, &Meter::current())
}

/// [`parse_value_lenient`] counted against `meter`.
pub fn parse_value_lenient_in(doc: &str, meter: &Meter) -> Result<Value> {
    parse(doc, Keys::LastWins, 1, meter)
}

fn parse(doc: &str, keys: Keys, first_line: usize, meter: &Meter) -> Result<Value> {
    if doc.trim().is_empty() {
        return Ok(Value::Null);
    }
    // Go's boolean spellings (`tRue` is a string for go-yaml).
    let quoted = super::plain::quote_misread_booleans(doc);
    let doc: &str = quoted.as_deref().unwrap_or(doc);
    let policy = match keys {
        Keys::LastWins => DuplicateKeyPolicy::LastWins,
        // Repeated keys reach the visitor; `to_json` finds them with their path.
        Keys::Strict => DuplicateKeyPolicy::PassThrough,
    };
    let mut o = options(policy);
    let mut budget = Budget::default();
    let per_doc_nodes = budget.max_nodes;
    let per_doc_bytes = budget.max_total_scalar_bytes;
    let run_nodes = clamp(meter.remaining(Limit::YamlNodes));
    // What the document holds before alias expansion: only a document with an alias
    // can expand, so only such a document is scanned first (a linear pass over
    // parser events, aliases not replayed).
    let source = if may_hold_alias(doc) {
        match serde_saphyr::budget::check_yaml_budget(
            doc,
            Budget::default(),
            EnforcingPolicy::AllContent,
        ) {
            Ok(r) if r.breached.is_none() && r.aliases > 0 => Some((r.nodes, r.total_scalar_bytes)),
            _ => None,
        }
    } else {
        None
    };
    // The caps of this document: the per-document defaults, what is left of the run,
    // and what is left of the run's alias expansions on top of the document's own.
    let mut node_cap = per_doc_nodes.min(run_nodes);
    let mut byte_cap = per_doc_bytes;
    if let Some((nodes, bytes)) = source {
        node_cap =
            node_cap.min(nodes.saturating_add(clamp(meter.remaining(Limit::YamlAliasNodes))));
        byte_cap =
            byte_cap.min(bytes.saturating_add(clamp(meter.remaining(Limit::YamlAliasBytes))));
    }
    budget.max_nodes = node_cap;
    budget.max_total_scalar_bytes = byte_cap;
    o.budget = Some(budget);
    let report: Rc<Cell<Option<(usize, usize)>>> = Rc::new(Cell::new(None));
    let sink = report.clone();
    o.budget_report_cb = Some(Rc::new(RefCell::new(move |r: BudgetReport| {
        sink.set(Some((r.nodes, r.total_scalar_bytes)));
    })));
    let parsed: std::result::Result<Option<Raw>, _> = serde_saphyr::from_str_with_options(doc, o);
    let (nodes, bytes) = report.take().unwrap_or((0, 0));
    // Charge what was read, then name the run-wide limit that stopped the parse.
    let (src_nodes, src_bytes) = source.unwrap_or((nodes, bytes));
    let alias_nodes = nodes.saturating_sub(src_nodes) as u64;
    let alias_bytes = bytes.saturating_sub(src_bytes) as u64;
    meter.charge(Limit::YamlNodes, nodes as u64)?;
    meter.charge(Limit::YamlAliasNodes, alias_nodes)?;
    meter.charge(Limit::YamlAliasBytes, alias_bytes)?;
    // A breach of a run-wide cap was charged above (the report counts one past the
    // cap), so what is left is the YAML error itself.
    let raw = parsed.map_err(|e| {
        Error::new(format!(
            "error converting YAML to JSON: {}",
            syntax_error(&e, first_line)
        ))
    })?;
    let Some(r) = raw else {
        return Ok(Value::Null);
    };
    super::merge::check(doc).map_err(|m| {
        let go = if m == super::merge::WANT_MAP {
            "yaml: "
        } else {
            ""
        };
        Error::new(format!("error converting YAML to JSON: {go}{m}"))
    })?;
    match to_json(r, keys, &mut Path::default()) {
        Ok(v) => Ok(v),
        Err(ConvertError::Plain(e)) => Err(e),
        Err(ConvertError::Duplicate(d)) => Err(duplicate_error(doc, &d, first_line)),
    }
}

/// Whether `doc` may hold an alias: a `*` followed by a character that can start an
/// anchor name (YAML's `ns-anchor-char`: not white space, a line break or a flow
/// indicator). A superset of the documents with an alias token; it passes over the
/// `* item` lists and lone `*`s of the descriptions in CRD schemas, which would
/// otherwise be parsed twice.
fn may_hold_alias(doc: &str) -> bool {
    doc.as_bytes().windows(2).any(|w| {
        w[0] == b'*'
            && !matches!(
                w[1],
                b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b']' | b'{' | b'}'
            )
    })
}

fn clamp(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// go-yaml's strict error (`line N: key "spec" already set in map`), with the field path.
fn duplicate_error(doc: &str, d: &Duplicate, first_line: usize) -> Error {
    // The line: serde-saphyr's own duplicate check reports where the repeated key is.
    let line =
        serde_saphyr::from_str_with_options::<Option<Raw>>(doc, options(DuplicateKeyPolicy::Error))
            .err()
            .and_then(|e| e.location())
            .map(|l| format!("line {}: ", l.line() as usize + first_line - 1))
            .unwrap_or_default();
    Error::new(format!(
        "error converting YAML to JSON: yaml: unmarshal errors: {line}key {} already set in map (a duplicate key in {}: remove one of the two)",
        crate::go::quote::quote(&d.key),
        d.path
    ))
}

/// serde-saphyr's message, first line, without its advice to the Rust programmer.
fn syntax_error(e: &serde_saphyr::Error, first_line: usize) -> String {
    let text = e.to_string();
    let mut first = text.lines().next().unwrap_or(&text).to_string();
    let line = e.location().map(|l| l.line() as usize);
    if let Some(l) = line.filter(|_| first_line > 1) {
        // Count from the file's start: `line 4 column 9` of a document on line 6 is line 9.
        first = first.replacen(
            &format!("line {l} "),
            &format!("line {} ", l + first_line - 1),
            1,
        );
    }
    if first.contains("from_str_multiple") {
        let at = line
            .map(|l| format!(" at line {}", l + first_line - 1))
            .unwrap_or_default();
        return format!(
            "more than one YAML document{at} where one is expected: split the documents with a `---` line at the start of a line, or remove the extra `...`/`---`"
        );
    }
    first
}

/// Go's `util.Ordinalize`: the suffix depends on the last digit only.
pub fn ordinalize(n: usize) -> String {
    let suffix = match n % 10 {
        1 => "st",
        2 => "nd",
        3 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// clusterctl's `utilyaml.ToUnstructured`: split, parse every document to an object
/// (repeated keys: the last wins), drop documents that are null, fail on documents that
/// are not mappings.
pub fn parse_documents(text: &str) -> Result<Vec<Value>> {
    parse_documents_within(text, crate::limits::Limits::current())
}

/// [`parse_documents`] under the given limits (one run: the documents share them).
fn parse_documents_within(text: &str, limits: crate::limits::Limits) -> Result<Vec<Value>> {
    let docs = split_documents(text).map_err(|e| e.wrap("failed to read yaml"))?;
    // A text of several documents is parsed on all cores first; the result is the
    // sequential one whenever every document parses (see `parse_all_parallel`), and
    // on any error the text is parsed again in order, so the error (and which limit
    // it names) is the sequential run's too.
    if docs.len() > 1 && text.len() >= PARALLEL_MIN_BYTES {
        if let Some(values) = parse_all_parallel(&docs, limits) {
            return collect_objects(&docs, values.into_iter().map(Ok));
        }
    }
    parse_all_in_order(&docs, limits)
}

/// The documents parsed one after the other against one meter, up to the first error.
fn parse_all_in_order(docs: &[String], limits: crate::limits::Limits) -> Result<Vec<Value>> {
    let meter = Meter::new(limits);
    meter.charge(Limit::Documents, docs.len() as u64)?;
    collect_objects(
        docs,
        docs.iter().map(|doc| parse_value_lenient_in(doc, &meter)),
    )
}

/// Below this many bytes a text is parsed on one thread (waking the pool costs more).
pub(crate) const PARALLEL_MIN_BYTES: usize = 64 * 1024;

/// Every document parsed on the thread pool against one meter, or `None` when any
/// document failed (a syntax error or a breached limit). When none failed, each value
/// is what the sequential parse gives: a parse depends on the meter only through its
/// caps, and the run's total stayed within every limit, so no document could have
/// met a cap in order either (what was left before it is at least what it used).
fn parse_all_parallel(docs: &[String], limits: crate::limits::Limits) -> Option<Vec<Value>> {
    use rayon::prelude::*;
    let meter = Meter::new(limits);
    meter.charge(Limit::Documents, docs.len() as u64).ok()?;
    docs.par_iter()
        .map(|doc| parse_value_lenient_in(doc, &meter).ok())
        .collect()
}

/// The objects of parsed documents in order: nulls dropped, the first error or
/// non-mapping document (by position) reported.
fn collect_objects(
    docs: &[String],
    values: impl Iterator<Item = Result<Value>>,
) -> Result<Vec<Value>> {
    let mut out = Vec::with_capacity(docs.len());
    for (doc, v) in docs.iter().zip(values) {
        let v = v.map_err(|e| {
            e.wrap(format!(
                "failed to unmarshal the {} yaml document: {}",
                ordinalize(out.len() + 1),
                crate::go::quote::quote(&crate::limits::excerpt(doc))
            ))
        })?;
        match v {
            Value::Null => continue,
            Value::Object(_) => out.push(v),
            other => {
                let what = match other {
                    Value::Array(_) => "array",
                    Value::Bool(_) => "bool",
                    Value::Number(_) => "number",
                    _ => "string",
                };
                return Err(Error::new(format!(
                    "failed to unmarshal the {} yaml document: {}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {what} into Go value of type map[string]interface {{}}",
                    ordinalize(out.len() + 1),
                    crate::go::quote::quote(&crate::limits::excerpt(doc))
                )));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limits;
    use serde_json::json;

    #[test]
    fn yaml11_scalars_resolve_as_go_does() {
        let v = parse_value(
            "a: yes\nb: off\nc: 017\nd: 0x1F\ne: 1_000\nf: '017'\ng: 2001-12-14\nh: ~\n",
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"a": true, "b": false, "c": 15.0, "d": 31.0, "e": 1000.0, "f": "017", "g": "2001-12-14", "h": null})
        );
    }

    #[test]
    fn numbers_become_float64() {
        let v = parse_value("num: 12345678901234567890\n").unwrap();
        assert_eq!(
            v["num"].as_f64(),
            Some(12345678901234567890u64 as f64),
            "{v:?}"
        );
    }

    #[test]
    fn non_string_keys_are_stringified() {
        let v = parse_value("1: a\ntrue: b\n").unwrap();
        assert_eq!(v, json!({"1": "a", "true": "b"}));
    }

    #[test]
    fn duplicate_keys_last_wins_and_merge_keys_merge() {
        assert_eq!(
            parse_value_lenient("a: 1\na: 2\n").unwrap(),
            json!({"a": 2.0})
        );
        let objs = parse_documents("a: 1\na: 2\n").unwrap();
        assert_eq!(objs, vec![json!({"a": 2.0})]);
        let v = parse_value("base: &b {x: 1}\nd:\n  <<: *b\n  z: 2\n").unwrap();
        assert_eq!(v["d"], json!({"x": 1.0, "z": 2.0}));
        // A key that overrides a merged one is not a duplicate.
        let v = parse_value("base: &b {x: 1}\nd:\n  <<: *b\n  x: 2\n").unwrap();
        assert_eq!(v["d"], json!({"x": 2.0}));
    }

    #[test]
    fn strict_decoding_rejects_duplicate_keys_with_path_and_line() {
        let e = parse_value("kind: Cluster\nspec:\n  a: 1\nspec:\n  b: 2\n").unwrap_err();
        assert_eq!(
            e.message(),
            "error converting YAML to JSON: yaml: unmarshal errors: line 4: key \"spec\" already set in map (a duplicate key in the document: remove one of the two)"
        );
        let e = parse_value("spec:\n  items:\n  - x: 1\n    y: 2\n    x: 3\n").unwrap_err();
        assert!(
            e.message().contains(
                "line 5: key \"x\" already set in map (a duplicate key in spec.items[0]:"
            ),
            "{e}"
        );
    }

    #[test]
    fn line_numbers_count_from_the_file_start() {
        let doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [b\n";
        let e = parse_value(doc).unwrap_err();
        assert!(e.message().contains("line 4 column 9"), "{e}");
        let e = parse_value_at(doc, 6, &Meter::current()).unwrap_err();
        assert!(e.message().contains("line 9 column 9"), "{e}");
        let e = parse_value_at("a: 1\na: 2\n", 10, &Meter::current()).unwrap_err();
        assert!(e.message().contains("line 11: key \"a\""), "{e}");
    }

    #[test]
    fn unsupported_key_names_its_field() {
        let e = parse_value("spec:\n  labels:\n    [a, b]: c\n").unwrap_err();
        assert!(
            e.message()
                .contains("unsupported map key type (a key of spec.labels is a list"),
            "{e}"
        );
    }

    #[test]
    fn library_advice_is_not_shown() {
        let e = parse_value("a: 1\n...\nb: 2\n").unwrap_err();
        assert!(!e.message().contains("from_str"), "{e}");
        assert!(e.message().contains("more than one YAML document"), "{e}");
    }

    #[test]
    fn documents_null_dropped_non_map_rejected() {
        let objs = parse_documents("# only a comment\n---\na: 1\n---\n{}\n").unwrap();
        assert_eq!(objs, vec![json!({"a": 1.0}), json!({})]);
        let e = parse_documents("a: 1\n---\n- x\n").unwrap_err();
        assert!(
            e.message()
                .starts_with("failed to unmarshal the 2nd yaml document: \"- x\\n\""),
            "{e}"
        );
    }

    /// Whether serde-saphyr's own count finds an alias in `doc`.
    fn saphyr_finds_alias(doc: &str) -> bool {
        serde_saphyr::budget::check_yaml_budget(doc, Budget::default(), EnforcingPolicy::AllContent)
            .is_ok_and(|r| r.aliases > 0)
    }

    #[test]
    fn every_document_with_an_alias_is_scanned_first() {
        let with = [
            "a: &x 1\nb: *x\n",
            "a: &x 1\nb: [*x, *x]\n",
            "a: &x 1\nb: {k: *x}\n",
            "a: &x 1\nb:\n- *x\n",
            "a: &x 1\n? *x\n: v\n",
            "a: &é 1\nb: *é\n",
        ];
        for doc in with {
            assert!(saphyr_finds_alias(doc), "{doc:?}");
            assert!(may_hold_alias(doc), "{doc:?}");
        }
        // CRD descriptions: bullets and lone stars are text, and skip the first scan.
        let without = [
            "description: |-\n  * one\n  * two\n",
            "b: \"x * y\"\nc: [a, b]\n",
            "glob: a/* b/*\n",
        ];
        for doc in without {
            assert!(!saphyr_finds_alias(doc), "{doc:?}");
            assert!(!may_hold_alias(doc), "{doc:?}");
        }
        // A value with the same alias as text or alias: identical results either way.
        assert_eq!(
            parse_value("a: &x {k: v}\nb: *x\n").unwrap(),
            json!({"a": {"k": "v"}, "b": {"k": "v"}})
        );
    }

    proptest::proptest! {
        /// Any text saphyr finds an alias in is one the filter lets through.
        #[test]
        fn the_alias_filter_is_a_superset(doc in "[a-z*&:\\-\\[\\]{}, \n'\"!|#]{0,40}") {
            if saphyr_finds_alias(&doc) {
                proptest::prop_assert!(may_hold_alias(&doc), "{:?}", doc);
            }
        }
    }

    #[test]
    fn ordinals_use_last_digit_only() {
        assert_eq!(ordinalize(1), "1st");
        assert_eq!(ordinalize(11), "11st");
        assert_eq!(ordinalize(12), "12nd");
        assert_eq!(ordinalize(4), "4th");
    }

    /// A text over the parallel threshold: `n` documents of varied shapes (anchors and
    /// aliases, nulls, comments, block scalars), `edit` changing some.
    fn many_documents(n: usize, edit: impl Fn(usize) -> Option<String>) -> String {
        let mut t = String::new();
        for i in 0..n {
            let doc = edit(i).unwrap_or_else(|| match i % 4 {
                0 => format!("kind: A\nmetadata: {{name: a{i}}}\nspec:\n  x: &x {{k: v{i}}}\n  w: *x\n  z: [1, yes, '0{i}']\n"),
                1 => "# nothing but a comment\n".to_string(),
                2 => format!("kind: B\ndata:\n  script: |\n    echo {i}\n    exit 0\n  n: {i}\n"),
                _ => format!("{{kind: C, list: [{i}, {}], m: {{a: ~}}}}\n", i + 1),
            });
            t.push_str(&doc);
            t.push_str("---\n");
        }
        assert!(
            t.len() >= PARALLEL_MIN_BYTES,
            "the text must take the parallel path"
        );
        t
    }

    fn in_order(text: &str, limits: Limits) -> Result<Vec<Value>> {
        parse_all_in_order(&split_documents(text).unwrap(), limits)
    }

    #[test]
    fn documents_parsed_in_parallel_equal_the_parse_in_order() {
        let ok = many_documents(1500, |_| None);
        let docs = split_documents(&ok).unwrap();
        assert!(parse_all_parallel(&docs, Limits::default()).is_some());
        let got = parse_documents_within(&ok, Limits::default()).unwrap();
        assert_eq!(got, in_order(&ok, Limits::default()).unwrap());
        assert_eq!(got.len(), 1125);
        assert_eq!(got[0]["spec"]["w"], json!({"k": "v0"}));
    }

    #[test]
    fn a_failing_document_gives_the_in_order_error() {
        let d = Limits::default();
        // A syntax error late, then a non-mapping document before it: the error is
        // the first failing document's, as in order.
        let late = many_documents(1500, |i| (i == 1300).then(|| "a: [\n".to_string()));
        let both = many_documents(1500, |i| match i {
            300 => Some("- a list\n".to_string()),
            1300 => Some("a: [\n".to_string()),
            _ => None,
        });
        for text in [&late, &both] {
            assert!(parse_all_parallel(&split_documents(text).unwrap(), d).is_none());
            let par = parse_documents_within(text, d).unwrap_err().to_string();
            assert_eq!(par, in_order(text, d).unwrap_err().to_string());
        }
        assert!(parse_documents_within(&both, d)
            .unwrap_err()
            .to_string()
            .contains("226th yaml document"));
        // The run's node limit met part way: the same document and total are named.
        let text = many_documents(1500, |_| None);
        let small = Limits {
            yaml_nodes: 8_000,
            ..d
        };
        assert!(parse_all_parallel(&split_documents(&text).unwrap(), small).is_none());
        let par = parse_documents_within(&text, small)
            .unwrap_err()
            .to_string();
        assert_eq!(par, in_order(&text, small).unwrap_err().to_string());
        assert!(par.contains("--max-yaml-nodes"), "{par}");
    }

    #[test]
    fn infinity_is_rejected() {
        assert!(parse_value("a: .inf\n").is_err());
    }
}
