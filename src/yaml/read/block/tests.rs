use proptest::prelude::*;
use serde_json::json;

use super::*;

fn took(doc: &str) -> Option<Value> {
    read(doc, false, usize::MAX, usize::MAX)
        .ok()
        .map(|r| r.value)
}

/// Documents in the subset, with the value both readers give them.
#[test]
fn reads_the_block_subset() {
    let cases = [
        ("a: 1\nb: x\n", json!({"a": 1.0, "b": "x"})),
        (
            "a:\n  b:\n  - 1\n  - -2\n",
            json!({"a": {"b": [1.0, -2.0]}}),
        ),
        ("a:\n- x\n- y\nb: z\n", json!({"a": ["x", true], "b": "z"})),
        ("- a: 1\n  b: 2\n- c\n", json!([{"a": 1.0, "b": 2.0}, "c"])),
        (
            "a:\nb: ~\nc: null\nd: yes\ne: Off\n",
            json!({"a": null, "b": null, "c": null, "d": true, "e": false}),
        ),
        ("a: one\n  two\n\n  three\n", json!({"a": "one two\nthree"})),
        (
            "a: |\n  x\n\n   y\n\nb: |-\n  z\n",
            json!({"a": "x\n\n y\n", "b": "z"}),
        ),
        (
            "a: \"x\\ty \\u00e9\\\n  z\"\n",
            json!({"a": "x\ty \u{e9}z"}),
        ),
        ("a: \"x\n\n  y \"\n", json!({"a": "x\ny "})),
        ("a: 'x  \n  y'\n", json!({"a": "x y"})),
        (
            "a: 'it''s'\n\"k\": []\n'l': {}\n",
            json!({"a": "it's", "k": [], "l": {}}),
        ),
        (
            "a: 1.5\nb: 0x1F\nc: 017\nd: 1Gi\ne: 10.0.0.0/8\n",
            json!({"a": 1.5, "b": 31.0, "c": 15.0, "d": "1Gi", "e": "10.0.0.0/8"}),
        ),
        ("# c\na: --flag=x\n", json!({"a": "--flag=x"})),
        ("- --leader-elect\n- -x\n", json!(["--leader-elect", "-x"])),
        (
            "a: x # comment\nb: 'q' # c\nc: {} # c\n",
            json!({"a": "x", "b": "q", "c": {}}),
        ),
        (
            "a: [1, -2, x y, \"q\", 'r', ~, 1.5]\nb: [ ]\nc: [ a , b ] # c\n",
            json!({"a": [1.0, -2.0, "x y", "q", "r", null, 1.5], "b": [], "c": ["a", "b"]}),
        ),
        ("- [a]\n- { }\n", json!([["a"], {}])),
        ("a: x#y\n", json!({"a": "x#y"})),
    ];
    for (doc, want) in cases {
        let got = took(doc);
        if want.is_null() {
            assert_eq!(got, None, "{doc:?} is outside the subset");
        } else {
            assert_eq!(got.as_ref(), Some(&want), "{doc:?}");
        }
        assert_eq!(agrees(doc), Ok(!want.is_null()), "{doc:?}");
    }
}

/// What the subset leaves to serde-saphyr: each of these is read by it alone.
#[test]
fn leaves_the_rest_to_serde_saphyr() {
    for doc in [
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "<<: {a: 1}\n",
        "a: x\t\n",
        "- \t\n",
        "a: 'x\t\n  y'\n",
        "a:\n\tb: c\n",
        "a: |\n  x\n   \n  y\n",
        "a: [1, [2]]\n",
        "a: {b: 1}\n",
        "a: [a,]\n",
        "a: [a, b\n  ]\n",
        "a: one\n  two # c\n",
        "a: x # c\n  y\n",
        "a: \"q\"#c\n",
        "a: >\n  folded\n",
        "a: |+\n  kept\n\n",
        "a: |2\n   x\n",
        "? a\n: b\n",
        "a: b: c\n",
        "a:\tb\n",
        "\u{feff}a: b\n",
        "a: b\r\n",
        "1: a\n",
        "true: a\n",
        "a: \"unterminated\n",
        "plain scalar\n",
        "...\n",
        "a:\n  - b\n c: d\n",
        "a: 1\na: 2\n",
        // Booleans Go reads as strings: `parse` quotes them before serde-saphyr reads.
        "a: tRue\n",
        "- oFF\n",
        "a: [x, yES]\n",
        "nO: 1\n",
    ] {
        let strict = read(doc, true, usize::MAX, usize::MAX);
        let lenient = read(doc, false, usize::MAX, usize::MAX);
        if doc == "a: 1\na: 2\n" {
            // A repeated key: the last wins when lenient, strict reads name it.
            assert_eq!(lenient.unwrap().value, json!({"a": 2.0}));
            assert!(strict.is_err());
        } else {
            assert!(lenient.is_err() && strict.is_err(), "{doc:?}");
        }
        assert!(agrees(doc).is_ok(), "{doc:?}");
    }
}

/// The node and byte counts are serde-saphyr's (an empty value is its `~`).
#[test]
fn counts_nodes_and_scalar_bytes_as_serde_saphyr() {
    let r = read("a:\n  b: []\nc:\n- xy\n-\n", false, usize::MAX, usize::MAX).unwrap();
    assert_eq!(
        (r.nodes, r.bytes),
        saphyr_counts("a:\n  b: []\nc:\n- xy\n-\n")
    );
    assert_eq!((r.nodes, r.bytes), (9, 6));
    // Over a cap, serde-saphyr reads it (and names the limit).
    assert!(read("a: 1\nb: 2\n", false, 4, usize::MAX).is_err());
    assert!(read("a: 1\nb: 2\n", false, 5, usize::MAX).is_ok());
    assert!(read("a: 1\nb: 2\n", false, 5, 3).is_err());
}

#[test]
fn resolves_plain_scalars_as_serde_saphyr() {
    for (s, want) in [
        ("", Plain::Null),
        ("NULL", Plain::Null),
        ("nUll", Plain::Str),
        ("Y", Plain::Bool(true)),
        ("Off", Plain::Bool(false)),
        ("NO", Plain::Bool(false)),
        // serde-saphyr's boolean, go-yaml's string: left to the quoting.
        ("oFf", Plain::Misread),
        ("tRUE", Plain::Misread),
        ("0", Plain::Num(0.0)),
        ("-0", Plain::Unsure),
        ("00", Plain::Unsure),
        ("123456789012345678", Plain::Num(123456789012345678.0)),
        ("1234567890123456789", Plain::Unsure),
        ("-12", Plain::Num(-12.0)),
        ("+12", Plain::Unsure),
        (".5", Plain::Unsure),
        ("inf", Plain::Str),
        ("x1", Plain::Str),
    ] {
        assert_eq!(resolve(s), want, "{s:?}");
    }
}

fn lines_doc(lines: &[(usize, &str, &str)]) -> String {
    let mut doc = String::new();
    for (indent, head, tail) in lines {
        doc.push_str(&" ".repeat(*indent));
        doc.push_str(head);
        doc.push_str(tail);
        doc.push('\n');
    }
    doc
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    /// Random lines at random indentation, from pieces in and just outside the subset
    /// (most such documents are errors for serde-saphyr: then this reader must leave
    /// them to it).
    #[test]
    fn agrees_on_random_lines(
        lines in proptest::collection::vec(
            (proptest::sample::select(vec![0usize, 0, 1, 2, 2, 3, 4, 6]),
             proptest::sample::select(vec![
                "a:", "b:", "a:", "- ", "-", "- a:", "- b:", "\"q\":", "'s':", "k k:", "a:b:",
                "x", "-x", "--y", "\"open", "'open", "close\"", "close'", "# c", "", "<<:",
                "1:", "yes:", "? a", "a :", "[a]:", "&x a:", "- - a", "\"a\\\"b\":", "`t`",
                "*s", "[x", "{y", "%p", "@q", "!t", "|", ">", ",", "\"", "'", "  ", "\ta:",
                "a:\t", "-\t", "\t",
             ]),
             proptest::sample::select(vec![
                "", " v", " v w", " 1", " -2", " 0", " -0", " 007", " 0x1F", " 1.5", " 1e3",
                " .inf", " yes", " No", " tRue", " null", " ~", " |", " |-", " |+", " |2",
                " >", " []", " {}", " [a]", " {a: 1}", " \"a b\"", " \"a\\tb\"",
                " \"a\\u00e9\"", " \"\\x41\"", " \"\\N\\_\\L\\P\\e\\0\"", " \"\\ \"", " \"a\\",
                " 'it''s'", " 'a", " \"a", " \"a\" # c", " v # c", " v#c", " a: b", " - a",
                " &a v", " *a", " !!str v", " `x`", " @x", " %x", " ,x", " 1Gi",
                " 10.0.0.0/8", " 12:30", " 2001-12-14", " \u{e9}", " \u{2028}", " x:", " a  ",
                "\t", " \u{85}", " \"\\ud800\"", " +1", " 1_000", " 0o17", " -.5",
                " [a, b]", " [ a , \"b\" ]", " [-1, 1.5]", " [a,]", " [a b]", " [a, [b]]",
                " [a] # c", " []#c", " {} # c", " \"q\" # c", " 'q'#c", " v #c", " [- a]",
                " [a, 'b''c', \"\\t\"]", " [yes, ~, 0x1]", " [a:b]", " [#]", " { }",
             ])),
            0..14,
        )
    ) {
        let doc = lines_doc(&lines);
        prop_assert!(agrees(&doc).is_ok(), "{:?}: {:?}", doc, agrees(&doc));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    /// Random lines again, mostly well formed: keys, entries and continuations with
    /// values of every kind, each line indented relative to the one before.
    #[test]
    fn agrees_on_random_nearly_block_lines(
        lines in proptest::collection::vec(
            (proptest::sample::select(vec![-4isize, -2, -1, 0, 0, 0, 1, 2, 2, 3]),
             proptest::sample::select(vec![
                "a:", "b:", "c:", "a:", "- ", "- ", "-", "- a:", "- b:", "\"q\":", "'s':",
                "x", "cont", "more words", "\"", "end\"", "'", "end'", "# c", "", "  ",
                "-x", "\u{e9}:",
             ]),
             proptest::sample::select(vec![
                "", "", " v", " v w", " 1", " -2", " yes", " ~", " |", " |-", " []", " {}",
                " \"a b\"", " \"a\\tb\"", " \"open", " 'open", " 'it''s'", " 1.5", " 1Gi",
                " \u{e9}", " a  ", " --f", " -", " x:", " \"a\\", " [a]", " &a v",
                " [a, \"b\"]", " [1, -2] # c", " v # c", " 'q' # c", " {} #c", "\tv",
                " a\tb",
             ])),
            0..16,
        )
    ) {
        let mut at = 0isize;
        let mut doc = String::new();
        for (delta, head, tail) in lines {
            at = (at + delta).max(0);
            doc.push_str(&" ".repeat(at as usize));
            doc.push_str(head);
            doc.push_str(tail);
            doc.push('\n');
        }
        prop_assert!(agrees(&doc).is_ok(), "{:?}: {:?}", doc, agrees(&doc));
    }
}

/// A random tree of mappings, sequences and scalars.
#[derive(Debug, Clone)]
enum Tree {
    Map(Vec<(&'static str, Tree)>),
    Seq(Vec<Tree>),
    Scalar(Scalar),
}

#[derive(Debug, Clone)]
enum Scalar {
    /// Words folded over lines (one per line).
    Plain(Vec<&'static str>),
    /// Double-quoted pieces, one per line (escapes included).
    Double(Vec<&'static str>),
    Single(Vec<&'static str>),
    /// Literal lines (empty ones included), stripped or not.
    Literal(Vec<&'static str>, bool),
    /// A one-line flow sequence of these items (written as they are).
    Flow(Vec<&'static str>),
    /// A one-line plain scalar and a comment after it.
    Commented(&'static str),
    EmptySeq,
    EmptyMap,
    Empty,
}

fn scalar() -> impl Strategy<Value = Scalar> {
    let first = proptest::sample::select(vec![
        "x", "a b", "1", "-3", "0.25", "1Gi", "yes", "True", "null", "~", "v1.2.3", "a,b", "a[0]",
        "\u{e9}", "a:b", "--f", "a#b",
    ]);
    let more = proptest::sample::select(vec![
        "x", "a b", "1", "-3", "0.25", "yes", "~", "{x}", "[y]", "\"q\"", "'s'", "*not", "&not",
        "!not", "%p", "@a", "`b`", "|", ">", "a#b", "--f",
    ]);
    let words = (first, proptest::collection::vec(more, 0..3)).prop_map(|(f, mut m)| {
        m.insert(0, f);
        m
    });
    let quoted = proptest::sample::select(vec![
        "x", "a b", " lead", "trail ", "\\t", "\\\"", "\\\\", "\\u00e9", "\\x41", "\\/", "it''s",
        "#", ": ", "- a", "",
    ]);
    let literal = proptest::sample::select(vec![
        "line",
        "  deeper",
        "",
        "# hash",
        "- dash",
        "key: value",
        "\"q\"",
        "tail  ",
    ]);
    prop_oneof![
        words.prop_map(Scalar::Plain),
        proptest::collection::vec(quoted.clone(), 1..4).prop_map(Scalar::Double),
        proptest::collection::vec(quoted, 1..4).prop_map(Scalar::Single),
        (proptest::collection::vec(literal, 1..5), any::<bool>())
            .prop_map(|(l, s)| Scalar::Literal(l, s)),
        proptest::collection::vec(
            proptest::sample::select(vec![
                "a", "b c", "1", "-2", "1.5", "~", "yes", "\"q\"", "'s'", "\"a,b]\"", "'#'",
                "x.y/z",
            ]),
            1..4
        )
        .prop_map(Scalar::Flow),
        proptest::sample::select(vec!["x", "1", "a b", "yes", "--f", "a#b"])
            .prop_map(Scalar::Commented),
        Just(Scalar::EmptySeq),
        Just(Scalar::EmptyMap),
        Just(Scalar::Empty),
    ]
}

fn tree() -> impl Strategy<Value = Tree> {
    let key = proptest::sample::select(vec!["a", "b", "c", "kind", "spec", "x-y", "a.b/c"]);
    scalar()
        .prop_map(Tree::Scalar)
        .prop_recursive(5, 40, 5, move |inner| {
            prop_oneof![
                proptest::collection::vec((key.clone(), inner.clone()), 1..5).prop_map(Tree::Map),
                proptest::collection::vec(inner, 1..4).prop_map(Tree::Seq),
            ]
        })
}

/// Writes a [`Tree`] as block YAML: `step` spaces per level, a mapping's sequence at the
/// key's own indentation (`seq_here`) or not, a sequence entry's mapping compact (on the
/// dash's line) or not.
struct Writer {
    out: String,
    step: usize,
    seq_here: bool,
    compact: bool,
}

impl Writer {
    fn map(&mut self, entries: &[(&str, Tree)], ind: usize, first_inline: bool) {
        for (i, (k, v)) in entries.iter().enumerate() {
            if !(i == 0 && first_inline) {
                self.out.push_str(&" ".repeat(ind));
            }
            self.out.push_str(k);
            self.out.push(':');
            self.value(v, ind, true);
        }
    }

    fn seq(&mut self, items: &[Tree], ind: usize) {
        for v in items {
            self.out.push_str(&" ".repeat(ind));
            self.out.push('-');
            self.value(v, ind, false);
        }
    }

    /// The node after `key:` or `-` of a collection indented `ind`.
    fn value(&mut self, v: &Tree, ind: usize, in_map: bool) {
        match v {
            Tree::Scalar(s) => self.scalar(s, ind),
            Tree::Map(e) if !in_map && self.compact => {
                self.out.push(' ');
                self.map(e, ind + 2, true);
            }
            Tree::Map(e) => {
                self.out.push('\n');
                self.map(e, ind + self.step, false);
            }
            Tree::Seq(items) => {
                self.out.push('\n');
                let at = if in_map && self.seq_here {
                    ind
                } else {
                    ind + self.step
                };
                self.seq(items, at);
            }
        }
    }

    fn scalar(&mut self, s: &Scalar, ind: usize) {
        let cont = " ".repeat(ind + self.step);
        let out = &mut self.out;
        match s {
            Scalar::Plain(words) => {
                out.push(' ');
                out.push_str(words[0]);
                for w in &words[1..] {
                    out.push('\n');
                    out.push_str(&cont);
                    out.push_str(w);
                }
            }
            Scalar::Double(parts) | Scalar::Single(parts) => {
                let q = if matches!(s, Scalar::Double(_)) {
                    '"'
                } else {
                    '\''
                };
                out.push(' ');
                out.push(q);
                out.push_str(parts[0]);
                for (i, p) in parts.iter().enumerate().skip(1) {
                    out.push('\n');
                    // The closing quote's line is indented too.
                    if !p.is_empty() || i + 1 == parts.len() {
                        out.push_str(&cont);
                        out.push_str(p);
                    }
                }
                out.push(q);
            }
            Scalar::Literal(lines, strip) => {
                out.push_str(if *strip { " |-\n" } else { " |\n" });
                out.push_str(&cont);
                out.push_str("line");
                for l in lines {
                    out.push('\n');
                    if !l.is_empty() {
                        out.push_str(&cont);
                        out.push_str(l);
                    }
                }
            }
            Scalar::Flow(items) => {
                out.push_str(" [");
                out.push_str(&items.join(", "));
                out.push(']');
            }
            Scalar::Commented(w) => {
                out.push(' ');
                out.push_str(w);
                out.push_str(" # note: x");
            }
            Scalar::EmptySeq => out.push_str(" []"),
            Scalar::EmptyMap => out.push_str(" {}"),
            Scalar::Empty => {}
        }
        out.push('\n');
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    /// Random trees written in the subset's styles: this reader takes every one of them,
    /// and serde-saphyr reads each the same way.
    #[test]
    fn takes_and_agrees_on_random_block_documents(
        t in tree(),
        step in 1usize..5,
        seq_here in any::<bool>(),
        compact in any::<bool>(),
    ) {
        let mut w = Writer { out: String::new(), step, seq_here, compact };
        match &t {
            Tree::Map(e) => w.map(e, 0, false),
            Tree::Seq(items) => w.seq(items, 0),
            Tree::Scalar(_) => w.map(&[("root", t.clone())], 0, false),
        }
        prop_assert_eq!(agrees(&w.out), Ok(true), "{:?}", w.out);
    }
}

/// Lines past serde-saphyr's 1024-character simple-key window: long values are read
/// the same way, long keys are left to it.
#[test]
fn long_lines_agree() {
    for len in [1000, 1023, 1024, 1025, 5000] {
        let x = "x".repeat(len);
        for doc in [
            format!("a: {x}\n"),
            format!("- {x}\n"),
            format!("a: \"{x}\"\n"),
            format!("- a: '{x}'\n  b: [{x}]\n"),
        ] {
            assert_eq!(agrees(&doc), Ok(true), "{len}: {}", &doc[..8]);
        }
        assert!(agrees(&format!("{x}: b\n")).is_ok(), "{len}");
    }
}
