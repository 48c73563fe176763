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
use serde_saphyr::{Budget, DuplicateKeyPolicy, MergeKeyPolicy, Options};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::split::split_documents_borrowed;
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

/// A document's value built straight from serde-saphyr's events, with no [`Raw`] tree
/// and no field path kept: `parse`'s way for a document whose keys all convert and whose
/// numbers are all finite (every document we meet). Anything that would need a path for
/// its error — a key that is a list or a mapping, an infinite number, a key repeated
/// under strict decoding — stops the parse ([`stop_direct`]) and `parse` reads the
/// document again through `Raw` and `to_json` for the error, so values and errors are
/// theirs (test `direct_values_are_the_raw_conversion`). A lenient read also stops at a
/// key that is not a string: it reads with serde-saphyr's `PassThrough` policy (see
/// [`key_policies`]), which equals `LastWins` only while every key is a string.
struct Direct<const STRICT: bool>(Value);

thread_local! {
    /// Set when [`Direct`] stopped a parse for want of a field path.
    static DIRECT_STOPPED: Cell<bool> = const { Cell::new(false) };
}

fn stop_direct<E: de::Error>() -> E {
    DIRECT_STOPPED.with(|s| s.set(true));
    E::custom("a value that needs its field path for an error")
}

fn direct_number<E: de::Error>(f: f64) -> std::result::Result<Value, E> {
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(stop_direct)
}

struct DirectVisitor<const STRICT: bool>;

impl<'de, const STRICT: bool> Visitor<'de> for DirectVisitor<STRICT> {
    type Value = Direct<STRICT>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> std::result::Result<Self::Value, E> {
        Ok(Direct(Value::Bool(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
        direct_number(v as i128 as f64).map(Direct)
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> std::result::Result<Self::Value, E> {
        direct_number(v as f64).map(Direct)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
        direct_number(v as i128 as f64).map(Direct)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> std::result::Result<Self::Value, E> {
        direct_number(v as f64).map(Direct)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Self::Value, E> {
        direct_number(v).map(Direct)
    }
    fn visit_str<E>(self, v: &str) -> std::result::Result<Self::Value, E> {
        Ok(Direct(Value::String(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> std::result::Result<Self::Value, E> {
        Ok(Direct(Value::String(v)))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> std::result::Result<Self::Value, E> {
        Ok(Direct(Value::String(
            String::from_utf8_lossy(v).into_owned(),
        )))
    }
    fn visit_byte_buf<E>(self, v: Vec<u8>) -> std::result::Result<Self::Value, E> {
        Ok(Direct(Value::String(
            String::from_utf8_lossy(&v).into_owned(),
        )))
    }
    fn visit_none<E>(self) -> std::result::Result<Self::Value, E> {
        Ok(Direct(Value::Null))
    }
    fn visit_unit<E>(self) -> std::result::Result<Self::Value, E> {
        Ok(Direct(Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(Direct(x)) = seq.next_element::<Direct<STRICT>>()? {
            v.push(x);
        }
        Ok(Direct(Value::Array(v)))
    }
    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let mut m = Map::new();
        while let Some(k) = map.next_key::<Raw>()? {
            let k = match k {
                Raw::Str(s) => s,
                _ if !STRICT => return Err(stop_direct()),
                Raw::Bool(b) => b.to_string(),
                Raw::Int(i) => i.to_string(),
                Raw::Float(f) => go_float_key(f),
                Raw::Null => "null".to_string(),
                Raw::Seq(_) | Raw::Map(_) => return Err(stop_direct()),
            };
            if STRICT && m.contains_key(&k) {
                return Err(stop_direct());
            }
            let Direct(v) = map.next_value::<Direct<STRICT>>()?;
            m.insert(k, v);
        }
        Ok(Direct(Value::Object(m)))
    }
}

impl<'de, const STRICT: bool> Deserialize<'de> for Direct<STRICT> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(DirectVisitor::<STRICT>)
    }
}

fn options((duplicates, merges): (DuplicateKeyPolicy, MergeKeyPolicy)) -> Options {
    let mut o = Options::default();
    o.legacy_octal_numbers = true;
    o.duplicate_keys = duplicates;
    o.merge_keys = merges;
    o
}

/// serde-saphyr's duplicate-key and merge-key policies for a read of `doc` with `keys`,
/// `direct` for a [`Direct`] read. serde-saphyr remembers every key of every mapping
/// (hashed, in a set per mapping) unless duplicates pass through and merge keys are
/// ordinary keys; neither changes what a [`Direct`] read of a document with only string
/// keys and no merge key gives, so such a read takes those two policies:
/// - `PassThrough` for `LastWins`: with string keys serde-saphyr's `LastWins` passes
///   a repeated key on as well (the later value replaces the earlier one in the map);
///   it selects entries itself only for a key holding an integer, which stops a
///   lenient [`Direct`] read (the [`Raw`] read that follows keeps `LastWins`);
/// - `AsOrdinary` merge keys when `doc` has none ([`without_merge_keys`]).
fn key_policies(keys: Keys, doc: &str, direct: bool) -> (DuplicateKeyPolicy, MergeKeyPolicy) {
    let merges = if without_merge_keys(doc) {
        MergeKeyPolicy::AsOrdinary
    } else {
        MergeKeyPolicy::Merge
    };
    let duplicates = match keys {
        Keys::LastWins if direct && merges == MergeKeyPolicy::AsOrdinary => {
            DuplicateKeyPolicy::PassThrough
        }
        Keys::LastWins => DuplicateKeyPolicy::LastWins,
        // Repeated keys reach the visitor; `to_json` finds them with their path.
        Keys::Strict => DuplicateKeyPolicy::PassThrough,
    };
    (duplicates, merges)
}

/// Whether `doc` cannot hold a merge key. One is the scalar `<<`, plain or tagged
/// `tag:yaml.org,2002:merge`, and only the `!!` handle, a verbatim `!<...>` tag or a
/// `%TAG` directive names that tag: a document with none of `<<`, `!!`, `!<` and
/// `%TAG` has none.
fn without_merge_keys(doc: &str) -> bool {
    let b = doc.as_bytes();
    memchr::memchr3_iter(b'<', b'!', b'%', b).all(|i| match b[i] {
        b'<' => b.get(i + 1) != Some(&b'<'),
        b'!' => !matches!(b.get(i + 1), Some(b'!' | b'<')),
        _ => !b[i..].starts_with(b"%TAG"),
    })
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
    parse_as(doc, keys, first_line, meter, true)
}

/// [`parse`]; `block: false` reads with serde-saphyr alone (the reference in tests).
fn parse_as(doc: &str, keys: Keys, first_line: usize, meter: &Meter, block: bool) -> Result<Value> {
    if doc.trim().is_empty() {
        return Ok(Value::Null);
    }
    if block {
        // `block` takes no merge key (no merge check) and no `tRue` (left to the quoting).
        if let Some(v) = block::read_counted(doc, keys == Keys::Strict, meter)? {
            return Ok(v);
        }
    }
    // Go's boolean spellings (`tRue` is a string for go-yaml).
    let quoted = super::plain::quote_misread_booleans(doc);
    let doc: &str = quoted.as_deref().unwrap_or(doc);
    let direct = match keys {
        Keys::LastWins => {
            read::<Direct<false>>(doc, key_policies(keys, doc, true), first_line, meter)?
                .map(|d| d.0)
        }
        Keys::Strict => {
            read::<Direct<true>>(doc, key_policies(keys, doc, true), first_line, meter)?
                .map(|d| d.0)
        }
    };
    match direct {
        Read::Done(None) => Ok(Value::Null),
        Read::Done(Some(v)) => {
            merge_check(doc)?;
            Ok(v)
        }
        Read::Stopped => parse_through_raw(doc, keys, first_line, meter),
    }
}

/// [`parse`] through the [`Raw`] tree, keeping the field path for errors.
fn parse_through_raw(doc: &str, keys: Keys, first_line: usize, meter: &Meter) -> Result<Value> {
    parse_through_raw_with(doc, keys, key_policies(keys, doc, false), first_line, meter)
}

/// [`parse_through_raw`] with the given serde-saphyr policies.
fn parse_through_raw_with(
    doc: &str,
    keys: Keys,
    policies: (DuplicateKeyPolicy, MergeKeyPolicy),
    first_line: usize,
    meter: &Meter,
) -> Result<Value> {
    let Read::Done(raw) = read::<Raw>(doc, policies, first_line, meter)? else {
        return Err(Error::new(
            "error converting YAML to JSON: the document could not be read (please report this)",
        ));
    };
    let Some(r) = raw else {
        return Ok(Value::Null);
    };
    merge_check(doc)?;
    match to_json(r, keys, &mut Path::default()) {
        Ok(v) => Ok(v),
        Err(ConvertError::Plain(e)) => Err(e),
        Err(ConvertError::Duplicate(d)) => Err(duplicate_error(doc, &d, first_line)),
    }
}

fn merge_check(doc: &str) -> Result<()> {
    super::merge::check(doc).map_err(|m| {
        let go = if m == super::merge::WANT_MAP {
            "yaml: "
        } else {
            ""
        };
        Error::new(format!("error converting YAML to JSON: {go}{m}"))
    })
}

/// What [`read`] gives: the document's value, or `Stopped` when a [`Direct`] read met
/// something that needs its field path (nothing was charged to the meter then).
enum Read<T> {
    Done(T),
    Stopped,
}

impl<T> Read<Option<T>> {
    fn map<U>(self, f: impl FnOnce(T) -> U) -> Read<Option<U>> {
        match self {
            Read::Done(v) => Read::Done(v.map(f)),
            Read::Stopped => Read::Stopped,
        }
    }
}

/// One serde-saphyr parse of `doc` into `T` under this run's YAML limits: the nodes and
/// alias expansions read are charged to `meter`, a syntax error or breached limit is
/// the error.
fn read<T: de::DeserializeOwned>(
    doc: &str,
    policies: (DuplicateKeyPolicy, MergeKeyPolicy),
    first_line: usize,
    meter: &Meter,
) -> Result<Read<Option<T>>> {
    let mut o = options(policies);
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
    DIRECT_STOPPED.with(|s| s.set(false));
    let parsed: std::result::Result<Option<T>, _> = serde_saphyr::from_str_with_options(doc, o);
    if DIRECT_STOPPED.with(|s| s.replace(false)) {
        return Ok(Read::Stopped);
    }
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
    Ok(Read::Done(raw))
}

/// Whether `doc` may hold an alias: a `*` followed by a character that can start an
/// anchor name (YAML's `ns-anchor-char`: not white space, a line break or a flow
/// indicator), where a node can start: first on its line, or after an indicator that a
/// node follows (`:`, `-`, `?`, `[`, `{`, `,`) with only blanks between. A superset of
/// the documents with an alias token (property test `the_alias_filter_is_a_superset`):
/// it passes over the `* item` lists, lone `*`s and `*.example.com`-like globs inside the
/// text of CRD schemas, which would otherwise be parsed twice (most documents of a
/// provider's components did).
fn may_hold_alias(doc: &str) -> bool {
    let b = doc.as_bytes();
    // Each `*` in turn (a substring search, not a look at every byte), then the last
    // byte before it on its line that is not a blank. The bytes of a byte-order mark
    // count as blanks: that only lets more through.
    let mut from = 0;
    while let Some(at) = doc[from..].find('*').map(|off| from + off) {
        from = at + 1;
        let named = b.get(at + 1).is_some_and(|n| {
            !matches!(
                n,
                b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b']' | b'{' | b'}'
            )
        });
        if !named {
            continue;
        }
        let prev = b[..at]
            .iter()
            .rev()
            .find(|c| !matches!(c, b' ' | b'\t' | 0xEF | 0xBB | 0xBF));
        if matches!(
            prev,
            None | Some(b'\n' | b'\r' | b':' | b'-' | b'?' | b'[' | b'{' | b',')
        ) {
            return true;
        }
    }
    false
}

fn clamp(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// go-yaml's strict error (`line N: key "spec" already set in map`), with the field path.
fn duplicate_error(doc: &str, d: &Duplicate, first_line: usize) -> Error {
    // The line: serde-saphyr's own duplicate check reports where the repeated key is.
    let line = serde_saphyr::from_str_with_options::<Option<Raw>>(
        doc,
        options((DuplicateKeyPolicy::Error, MergeKeyPolicy::Merge)),
    )
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
    let docs = split_documents_borrowed(text).map_err(|e| e.wrap("failed to read yaml"))?;
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
fn parse_all_in_order<S: AsRef<str>>(
    docs: &[S],
    limits: crate::limits::Limits,
) -> Result<Vec<Value>> {
    let meter = Meter::new(limits);
    meter.charge(Limit::Documents, docs.len() as u64)?;
    collect_objects(
        docs,
        docs.iter()
            .map(|doc| parse_value_lenient_in(doc.as_ref(), &meter)),
    )
}

/// Below this many bytes a text is parsed on one thread (waking the pool costs more).
pub(crate) const PARALLEL_MIN_BYTES: usize = 64 * 1024;

/// Every document parsed on the thread pool against one meter, or `None` when any
/// document failed (a syntax error or a breached limit). When none failed, each value
/// is what the sequential parse gives: a parse depends on the meter only through its
/// caps, and the run's total stayed within every limit, so no document could have
/// met a cap in order either (what was left before it is at least what it used).
/// Longest first (`model::par`): a provider's biggest CRDs are most of its bytes.
fn parse_all_parallel<S: AsRef<str> + Sync>(
    docs: &[S],
    limits: crate::limits::Limits,
) -> Option<Vec<Value>> {
    let meter = Meter::new(limits);
    meter.charge(Limit::Documents, docs.len() as u64).ok()?;
    let parse = |doc: &S| parse_value_lenient_in(doc.as_ref(), &meter).ok();
    let values = crate::model::par::map_largest_first(docs, |d| d.as_ref().len(), parse);
    values.into_iter().collect()
}

/// The objects of parsed documents in order: nulls dropped, the first error or
/// non-mapping document (by position) reported.
fn collect_objects<S: AsRef<str>>(
    docs: &[S],
    values: impl Iterator<Item = Result<Value>>,
) -> Result<Vec<Value>> {
    let mut out = Vec::with_capacity(docs.len());
    for (doc, v) in docs.iter().zip(values) {
        let v = v.map_err(|e| {
            e.wrap(format!(
                "failed to unmarshal the {} yaml document: {}",
                ordinalize(out.len() + 1),
                crate::go::quote::quote(&crate::limits::excerpt(doc.as_ref()))
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
                    crate::go::quote::quote(&crate::limits::excerpt(doc.as_ref()))
                )));
            }
        }
    }
    Ok(out)
}

mod block;

#[doc(hidden)]
pub use block::agrees as block_reader_agrees;

#[cfg(test)]
mod tests;
