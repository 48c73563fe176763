//! A reader of its own for the plain block style most YAML we read is written in:
//! provider components (controller-gen's CRDs, RBAC, Deployments), ClusterClasses and
//! their templates, and every file we write ourselves. It gives exactly what the
//! serde-saphyr read in [`super::parse`] gives — the same value, and the same node and
//! scalar-byte counts for the YAML limits — or [`Out`]: the document holds something
//! outside the subset below, and the caller reads it with serde-saphyr as before. So
//! serde-saphyr stays the reader of record (every error, every unusual construct); this
//! is a shortcut it is compared with (tests beside this file, the `yaml_block` fuzz
//! target): reading provider components with serde-saphyr was two thirds of
//! `generate provider`.
//!
//! The subset, line by line (anything else is [`Out`]):
//! - printable text: no tab, carriage return, other control character, byte-order mark
//!   or U+0080-U+009F / U+2028 / U+2029 / U+FFFE / U+FFFF, and no `...` line;
//! - block mappings of plain keys (`key:` then a space or the line's end) and quoted
//!   keys on one line, that resolve to strings; block sequences (`- `), a mapping's
//!   sequence at the key's own indentation, and a sequence entry's compact mapping;
//! - plain scalars over one or more lines (folded) with no `: `, ` #` or final `:` and
//!   no indicator at the start of a line; single- and double-quoted scalars over one or
//!   more lines (folded; double quotes with YAML's escapes); literal block scalars `|`
//!   and `|-` with no indentation indicator; flow sequences of plain and quoted
//!   scalars on one line (`["10.128.0.0/12"]`, `[kube-system]`) and the empty `{}`;
//! - comment lines, blank lines between nodes, and a comment after a node on its line;
//! - no anchor, alias, tag, directive, merge key, complex key, folded (`>`) scalar,
//!   other flow collection, or comment inside a scalar's lines.
//!
//! Plain scalars resolve as serde-saphyr's untyped read does: `~`/`null`/empty are null,
//! YAML 1.1 booleans in any case (Go's other spellings were quoted before, see
//! `plain.rs`), decimal integers of up to 18 digits are numbers, anything not starting
//! with a digit, sign or dot is a string, and the rest (floats, octal, hex, `+1`, `1Gi`)
//! is resolved by serde-saphyr itself, one scalar at a time ([`by_saphyr`]).

use serde_json::{Map, Number, Value};

use crate::limits::{Limit, Meter};

/// The document is outside the subset: read it with serde-saphyr.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Out;

type R<T> = std::result::Result<T, Out>;

/// A document read, with what serde-saphyr's budget would have counted: one node per
/// scalar (keys included), mapping and sequence; the bytes of every scalar's value.
#[derive(Debug)]
pub(super) struct Read {
    pub value: Value,
    pub nodes: usize,
    pub bytes: usize,
}

/// serde-saphyr's default depth limit is 64 nested collections; deeper documents are
/// left to it (and its error).
const MAX_DEPTH: usize = 60;

/// serde-saphyr's parser gives up on a simple key longer than 1024 characters; longer
/// keys are left to it.
const MAX_KEY: usize = 1000;

/// Read `doc` (one document, its Go-misread booleans already quoted) as a lenient or
/// `strict` Direct read of serde-saphyr would, or [`Out`]. A document over `node_cap`
/// nodes or `byte_cap` scalar bytes is [`Out`] too: serde-saphyr names the limit.
pub(super) fn read(doc: &str, strict: bool, node_cap: usize, byte_cap: usize) -> R<Read> {
    printable(doc.as_bytes())?;
    let mut r = Reader {
        s: doc,
        lines: lines(doc)?,
        at: 0,
        nodes: 0,
        bytes: 0,
        depth: 0,
        node_cap,
        byte_cap,
        strict,
    };
    r.skip_ignorable();
    if r.at == r.lines.len() {
        return Err(Out);
    }
    let value = r.block_node(-1, false)?;
    r.skip_ignorable();
    if r.at != r.lines.len() || !matches!(value, Value::Object(_) | Value::Array(_)) {
        return Err(Out);
    }
    Ok(Read {
        value,
        nodes: r.nodes,
        bytes: r.bytes,
    })
}

/// [`read`] of `doc` under `meter`'s caps and serde-saphyr's per-document ones, its
/// nodes charged to `meter`; `None` when `doc` is outside the subset or over a cap
/// (serde-saphyr then reads it and names the limit).
pub(super) fn read_counted(
    doc: &str,
    strict: bool,
    meter: &Meter,
) -> crate::error::Result<Option<Value>> {
    let budget = serde_saphyr::Budget::default();
    let node_cap = budget
        .max_nodes
        .min(super::clamp(meter.remaining(Limit::YamlNodes)));
    match read(doc, strict, node_cap, budget.max_total_scalar_bytes) {
        Ok(r) => {
            meter.charge(Limit::YamlNodes, r.nodes as u64)?;
            Ok(Some(r.value))
        }
        Err(Out) => Ok(None),
    }
}

/// Whether every byte is a line feed, printable ASCII, or part of a character YAML
/// prints that serde-saphyr reads as content (see the module's list).
fn printable(b: &[u8]) -> R<()> {
    let bad = |c: u8| (c < 0x20 && c != b'\n') || c == 0x7F;
    // Folded without an early exit, so the check runs on whole vectors.
    if b.chunks(64)
        .any(|chunk| chunk.iter().fold(false, |a, &c| a | bad(c)))
    {
        return Err(Out);
    }
    for i in memchr::memchr3_iter(0xC2, 0xE2, 0xEF, b) {
        let next = (b.get(i + 1).copied(), b.get(i + 2).copied());
        let out = match b[i] {
            0xC2 => matches!(next.0, Some(0x80..=0x9F)),
            0xE2 => next.0 == Some(0x80) && matches!(next.1, Some(0xA8 | 0xA9)),
            _ => matches!(
                next,
                (Some(0xBB), Some(0xBF)) | (Some(0xBF), Some(0xBE | 0xBF))
            ),
        };
        if out {
            return Err(Out);
        }
    }
    Ok(())
}

#[derive(Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    /// Leading spaces.
    indent: usize,
}

impl Line {
    fn blank(&self) -> bool {
        self.start + self.indent == self.end
    }
}

fn lines(doc: &str) -> R<Vec<Line>> {
    let b = doc.as_bytes();
    let mut out = Vec::with_capacity(b.len() / 32);
    let mut start = 0;
    while start < b.len() {
        let end = memchr::memchr(b'\n', &b[start..]).map_or(b.len(), |i| start + i);
        let line = &b[start..end];
        if line.starts_with(b"...") || line.starts_with(b"---") {
            return Err(Out);
        }
        let indent = line.iter().take_while(|&&c| c == b' ').count();
        out.push(Line { start, end, indent });
        start = end + 1;
    }
    Ok(out)
}

struct Reader<'a> {
    s: &'a str,
    lines: Vec<Line>,
    /// The next line not yet read.
    at: usize,
    nodes: usize,
    bytes: usize,
    depth: usize,
    node_cap: usize,
    byte_cap: usize,
    strict: bool,
}

/// Bytes that cannot start a plain scalar here (YAML's indicators; `-`, `?` and `:`
/// start one when a non-space follows, which is left to serde-saphyr too).
fn indicator(c: u8) -> bool {
    matches!(
        c,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

impl<'a> Reader<'a> {
    /// Line `i` from column `col` to its end.
    fn rest(&self, i: usize, col: usize) -> &'a str {
        let l = self.lines[i];
        &self.s[(l.start + col).min(l.end)..l.end]
    }

    fn comment(&self, l: &Line) -> bool {
        self.s.as_bytes()[l.start + l.indent] == b'#'
    }

    /// Past blank and comment lines.
    fn skip_ignorable(&mut self) {
        while let Some(l) = self.lines.get(self.at) {
            if !(l.blank() || self.comment(l)) {
                break;
            }
            self.at += 1;
        }
    }

    /// Whether line `i` holds a sequence entry's `-` at `col`.
    fn dash_at(&self, i: usize, col: usize) -> bool {
        let t = self.rest(i, col).as_bytes();
        t.first() == Some(&b'-') && matches!(t.get(1), None | Some(b' '))
    }

    fn scalar(&mut self, len: usize) -> R<()> {
        self.nodes += 1;
        self.bytes += len;
        if self.nodes > self.node_cap || self.bytes > self.byte_cap {
            return Err(Out);
        }
        Ok(())
    }

    fn enter(&mut self) -> R<()> {
        self.nodes += 1;
        self.depth += 1;
        if self.nodes > self.node_cap || self.depth > MAX_DEPTH {
            return Err(Out);
        }
        Ok(())
    }

    fn empty(&mut self) -> R<Value> {
        self.scalar(1)?;
        Ok(Value::Null)
    }

    /// The node on the lines from [`Self::at`], below a collection indented `n` (-1 for
    /// the document): empty when the next line is not indented more, except for the
    /// sequence a mapping's value may start at the key's indentation (`seq_here`).
    fn block_node(&mut self, n: isize, seq_here: bool) -> R<Value> {
        self.skip_ignorable();
        let Some(l) = self.lines.get(self.at).copied() else {
            return self.empty();
        };
        let col = l.indent;
        let i = self.at;
        let dash = self.dash_at(i, col);
        if (col as isize) < n || (col as isize == n && !(seq_here && dash)) {
            return self.empty();
        }
        self.at += 1;
        if dash {
            return self.sequence(i, col);
        }
        if self.key_at(i, col)?.is_some() {
            return self.mapping(i, col);
        }
        if n < 0 {
            return Err(Out);
        }
        match self.rest(i, col).as_bytes()[0] {
            b'"' | b'\'' => self.quoted(i, col, n, true),
            c if indicator(c) => Err(Out),
            _ => self.plain(i, col, n),
        }
    }

    /// The node after a mapping's `key:` or a sequence's `-` on line `i` from `col`,
    /// in a collection indented `n` (the line is read).
    fn inline_node(&mut self, i: usize, col: usize, n: isize, in_map: bool) -> R<Value> {
        let rest = self.rest(i, col);
        let t = rest.trim_start_matches(' ');
        let col = col + (rest.len() - t.len());
        let b = t.as_bytes();
        let Some(&c) = b.first() else {
            return self.block_node(n, in_map);
        };
        let then_space = matches!(b.get(1), None | Some(b' '));
        match c {
            b'#' => self.block_node(n, in_map),
            b'|' => self.literal(t, n),
            b'"' | b'\'' => self.quoted(i, col, n, in_map),
            b'[' => self.flow_sequence(t),
            b'{' => {
                let inside = t[1..].trim_start_matches(' ');
                let after = inside.strip_prefix('}').ok_or(Out)?;
                end_of_node(after)?;
                self.enter()?;
                self.depth -= 1;
                Ok(Value::Object(Map::new()))
            }
            b'-' | b'?' | b':' if then_space => Err(Out),
            _ if indicator(c) && c != b'-' => Err(Out),
            _ => {
                if self.key_at(i, col)?.is_some() {
                    if in_map {
                        return Err(Out);
                    }
                    return self.mapping(i, col);
                }
                self.plain(i, col, n)
            }
        }
    }

    /// The sequence whose first `-` is on line `i` at `s` (the line is read).
    fn sequence(&mut self, i: usize, s: usize) -> R<Value> {
        self.enter()?;
        let mut items = Vec::new();
        let mut i = i;
        loop {
            items.push(self.inline_node(i, s + 1, s as isize, false)?);
            match self.next_entry(s, true)? {
                Some(next) => i = next,
                None => break,
            }
        }
        self.depth -= 1;
        Ok(Value::Array(items))
    }

    /// The mapping whose first key is on line `i` at `m` (the line is read).
    fn mapping(&mut self, i: usize, m: usize) -> R<Value> {
        self.enter()?;
        let mut map = Map::new();
        let mut i = i;
        loop {
            let (key, after) = self.key_at(i, m)?.ok_or(Out)?;
            self.scalar(key.len())?;
            let value = self.inline_node(i, after, m as isize, true)?;
            if self.strict && map.contains_key(&key) {
                return Err(Out);
            }
            map.insert(key, value);
            match self.next_entry(m, false)? {
                Some(next) => i = next,
                None => break,
            }
        }
        self.depth -= 1;
        Ok(Value::Object(map))
    }

    /// The line of the next entry of a collection indented `col` (a sequence's holds a
    /// `-` there), read; `None` where the collection ends. A line indented deeper is
    /// an error for serde-saphyr (or a construct outside the subset).
    fn next_entry(&mut self, col: usize, seq: bool) -> R<Option<usize>> {
        self.skip_ignorable();
        match self.lines.get(self.at) {
            Some(l) if l.indent == col && (!seq || self.dash_at(self.at, col)) => {
                self.at += 1;
                Ok(Some(self.at - 1))
            }
            Some(l) if l.indent > col => Err(Out),
            _ => Ok(None),
        }
    }

    /// The key of a mapping entry on line `i` at `col` and the column after its `:`;
    /// `None` when the line holds no key there.
    fn key_at(&self, i: usize, col: usize) -> R<Option<(String, usize)>> {
        let t = self.rest(i, col);
        let b = t.as_bytes();
        let Some(&c) = b.first() else {
            return Ok(None);
        };
        if c == b'"' || c == b'\'' {
            let Some((key, len)) = quoted_on_line(t)? else {
                return Ok(None);
            };
            return Ok(
                (b.get(len) == Some(&b':') && matches!(b.get(len + 1), None | Some(b' ')))
                    .then_some((key, col + len + 1)),
            );
        }
        // Up to a comment: a `: ` after it is the comment's.
        let body = &b[..comment_at(b).unwrap_or(b.len())];
        let Some(colon) =
            memchr::memchr_iter(b':', body).find(|&j| matches!(b.get(j + 1), None | Some(b' ')))
        else {
            return Ok(None);
        };
        let key = &t[..colon];
        if indicator(c)
            || key.len() > MAX_KEY
            || key.ends_with(' ')
            || key == "<<"
            || resolve(key) != Plain::Str
        {
            return Err(Out);
        }
        Ok(Some((key.to_string(), col + colon + 1)))
    }

    /// A plain scalar from line `i` at `col`, with the lines after it indented more
    /// than `n` folded in.
    fn plain(&mut self, i: usize, col: usize, n: isize) -> R<Value> {
        let line = self.rest(i, col);
        // A comment ends the scalar: no line may continue it (the caller finds any
        // such line indented too deep, and leaves the document to serde-saphyr).
        let comment = comment_at(line.as_bytes());
        let first = line[..comment.unwrap_or(line.len())].trim_end_matches(' ');
        plain_line(first)?;
        let mut text = std::borrow::Cow::Borrowed(first);
        let mut blanks = 0;
        let mut probe = self.at;
        while let Some(l) = self.lines.get(probe).copied().filter(|_| comment.is_none()) {
            if l.blank() {
                blanks += 1;
                probe += 1;
                continue;
            }
            if (l.indent as isize) <= n || self.comment(&l) {
                break;
            }
            let more = self.rest(probe, l.indent).trim_end_matches(' ');
            let mb = more.as_bytes();
            if matches!(mb[0], b'-' | b'?' | b':') && matches!(mb.get(1), None | Some(b' ')) {
                return Err(Out);
            }
            plain_line(more)?;
            let t = text.to_mut();
            if blanks == 0 {
                t.push(' ');
            }
            for _ in 0..blanks {
                t.push('\n');
            }
            t.push_str(more);
            blanks = 0;
            probe += 1;
            self.at = probe;
        }
        self.plain_value(text)
    }

    /// A plain scalar's value, counted.
    fn plain_value(&mut self, text: std::borrow::Cow<'_, str>) -> R<Value> {
        self.scalar(text.len())?;
        Ok(match resolve(&text) {
            Plain::Null => Value::Null,
            Plain::Bool(b) => Value::Bool(b),
            Plain::Num(f) => Number::from_f64(f).map_or(Value::Null, Value::Number),
            Plain::Str => Value::String(text.into_owned()),
            Plain::Unsure => by_saphyr(&text)?,
            Plain::Misread => return Err(Out),
        })
    }

    /// A flow sequence `t` of plain and quoted scalars that closes on its line (`[]`,
    /// `[a, "b"]`), then nothing or a comment.
    fn flow_sequence(&mut self, t: &str) -> R<Value> {
        self.enter()?;
        let mut items = Vec::new();
        let mut rest = t[1..].trim_start_matches(' ');
        if let Some(after) = rest.strip_prefix(']') {
            rest = after;
        } else {
            loop {
                let b = rest.as_bytes();
                let c = *b.first().ok_or(Out)?;
                if c == b'"' || c == b'\'' {
                    let (s, len) = quoted_on_line(rest)?.ok_or(Out)?;
                    self.scalar(s.len())?;
                    items.push(Value::String(s));
                    rest = &rest[len..];
                } else {
                    let end = memchr::memchr2(b',', b']', b).ok_or(Out)?;
                    let item = rest[..end].trim_end_matches(' ');
                    let second = item.as_bytes().get(1).copied();
                    if item.is_empty()
                        || (indicator(c) && !(c == b'-' && second.is_some_and(|d| d != b' ')))
                        || item.contains(['[', '{', '}', ':', '#', '\'', '"'])
                    {
                        return Err(Out);
                    }
                    items.push(self.plain_value(std::borrow::Cow::Borrowed(item))?);
                    rest = &rest[end..];
                }
                rest = rest.trim_start_matches(' ');
                if let Some(after) = rest.strip_prefix(']') {
                    rest = after;
                    break;
                }
                rest = rest.strip_prefix(',').ok_or(Out)?.trim_start_matches(' ');
                if rest.starts_with(']') {
                    return Err(Out);
                }
            }
        }
        end_of_node(rest)?;
        self.depth -= 1;
        Ok(Value::Array(items))
    }

    /// A quoted scalar from line `i` at `col`: on one line, or folded over the lines
    /// after it (each indented more than `n`). A quoted key there starts a sequence
    /// entry's compact mapping (`in_map`: not allowed).
    fn quoted(&mut self, i: usize, col: usize, n: isize, in_map: bool) -> R<Value> {
        let t = self.rest(i, col);
        if let Some((s, len)) = quoted_on_line(t)? {
            let after = &t[len..];
            if after.starts_with(':') && matches!(after.as_bytes().get(1), None | Some(b' ')) {
                if in_map {
                    return Err(Out);
                }
                return self.mapping(i, col);
            }
            end_of_node(after)?;
            self.scalar(s.len())?;
            return Ok(Value::String(s));
        }
        let double = t.as_bytes()[0] == b'"';
        let mut out = String::new();
        let mut line = &t[1..];
        loop {
            match quoted_part(line, double, &mut out)? {
                Part::Closed(after) => {
                    end_of_node(after)?;
                    self.scalar(out.len())?;
                    return Ok(Value::String(out));
                }
                Part::Open { escaped_break } => {
                    let mut blanks = 0;
                    let l = loop {
                        let l = *self.lines.get(self.at).ok_or(Out)?;
                        if !l.blank() {
                            break l;
                        }
                        blanks += 1;
                        self.at += 1;
                    };
                    if (l.indent as isize) <= n || (escaped_break && blanks > 0) {
                        return Err(Out);
                    }
                    if !escaped_break {
                        if blanks == 0 {
                            out.push(' ');
                        }
                        for _ in 0..blanks {
                            out.push('\n');
                        }
                    }
                    line = self.rest(self.at, l.indent);
                    self.at += 1;
                }
            }
        }
    }

    /// A literal block scalar whose header `t` (`|` or `|-`) ends a line, its lines
    /// indented more than `n`.
    fn literal(&mut self, t: &str, n: isize) -> R<Value> {
        let header = &t[1..];
        let (strip, header) = match header.strip_prefix('-') {
            Some(h) => (true, h),
            None => (false, header),
        };
        if !header.trim_start_matches(' ').is_empty() {
            return Err(Out);
        }
        let first = *self.lines.get(self.at).ok_or(Out)?;
        if first.blank() || (first.indent as isize) <= n {
            return Err(Out);
        }
        let m = first.indent;
        let mut out = String::new();
        let mut blanks = 0;
        while let Some(l) = self.lines.get(self.at).copied() {
            if l.blank() {
                if l.end - l.start > m {
                    return Err(Out);
                }
                blanks += 1;
            } else if l.indent < m {
                break;
            } else {
                for _ in 0..blanks {
                    out.push('\n');
                }
                blanks = 0;
                out.push_str(&self.s[l.start + m..l.end]);
                out.push('\n');
            }
            self.at += 1;
        }
        if strip {
            out.pop();
        }
        self.scalar(out.len())?;
        Ok(Value::String(out))
    }
}

/// Where ` #` (a comment after something) is in `b`.
fn comment_at(b: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'#', b)
        .find(|&i| i > 0 && b[i - 1] == b' ')
        .map(|i| i - 1)
}

/// What may follow a node on its line: nothing, or blanks and a comment.
fn end_of_node(after: &str) -> R<()> {
    let t = after.trim_start_matches(' ');
    if t.is_empty() || (t.starts_with('#') && t.len() < after.len()) {
        Ok(())
    } else {
        Err(Out)
    }
}

/// A line of a plain scalar: no comment, no `: ` and no final `:` (those make it
/// something else, or an error, for serde-saphyr).
fn plain_line(t: &str) -> R<()> {
    let b = t.as_bytes();
    if b.is_empty()
        || b.last() == Some(&b':')
        || memchr::memchr_iter(b':', b).any(|i| b.get(i + 1) == Some(&b' '))
        || comment_at(b).is_some()
    {
        return Err(Out);
    }
    Ok(())
}

#[derive(Debug, PartialEq)]
enum Plain {
    Null,
    Bool(bool),
    Num(f64),
    Str,
    /// A number or a string by rules left to serde-saphyr.
    Unsure,
    /// A boolean in a spelling Go reads as a string (`tRue`): `parse` quotes it before
    /// serde-saphyr reads the document (`yaml::plain`), so the document is left to that.
    Misread,
}

/// What serde-saphyr's untyped read makes of a plain scalar (see the module's notes).
fn resolve(s: &str) -> Plain {
    if matches!(s, "" | "~" | "null" | "Null" | "NULL") {
        return Plain::Null;
    }
    if s.len() <= 5 {
        let bools = [
            ("true", true),
            ("yes", true),
            ("y", true),
            ("on", true),
            ("false", false),
            ("no", false),
            ("n", false),
            ("off", false),
        ];
        if let Some((_, b)) = bools.iter().find(|(w, _)| s.eq_ignore_ascii_case(w)) {
            return if crate::yaml::plain::misread(s) {
                Plain::Misread
            } else {
                Plain::Bool(*b)
            };
        }
    }
    if !matches!(s.as_bytes()[0], b'0'..=b'9' | b'+' | b'-' | b'.') {
        return Plain::Str;
    }
    let (negative, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let decimal = !digits.is_empty()
        && digits.len() <= 18
        && digits.bytes().all(|c| c.is_ascii_digit())
        && (!digits.starts_with('0') || (digits == "0" && !negative));
    match digits.parse::<u64>() {
        Ok(v) if decimal => Plain::Num(if negative { -(v as f64) } else { v as f64 }),
        _ => Plain::Unsure,
    }
}

/// A plain scalar of one line read by serde-saphyr on its own: a number, or a string.
fn by_saphyr(s: &str) -> R<Value> {
    if s.contains('\n') || s.starts_with("---") || s.starts_with("...") {
        return Err(Out);
    }
    let read = serde_saphyr::from_str_with_options::<Option<super::Direct<false>>>(
        s,
        super::options((
            serde_saphyr::DuplicateKeyPolicy::LastWins,
            serde_saphyr::MergeKeyPolicy::AsOrdinary,
        )),
    );
    super::DIRECT_STOPPED.with(|d| d.set(false));
    match read {
        Ok(Some(super::Direct(v @ (Value::Number(_) | Value::String(_))))) => Ok(v),
        _ => Err(Out),
    }
}

mod oracle;
mod quoted;

pub use oracle::agrees;
#[cfg(test)]
use oracle::saphyr_counts;
use quoted::{quoted_on_line, quoted_part, Part};

#[cfg(test)]
mod tests;
