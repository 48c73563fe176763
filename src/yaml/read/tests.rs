use super::*;
use crate::limits::Limits;
use crate::yaml::split::split_documents;
use serde_json::json;

#[test]
fn yaml11_scalars_resolve_as_go_does() {
    let v =
        parse_value("a: yes\nb: off\nc: 017\nd: 0x1F\ne: 1_000\nf: '017'\ng: 2001-12-14\nh: ~\n")
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
        e.message()
            .contains("line 5: key \"x\" already set in map (a duplicate key in spec.items[0]:"),
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
        "a: &x 1\nb: [a,\n  *x]\n",
        "a: &x 1\nb: {\"k\":*x}\n",
        "\u{feff}a: &x 1\n*x : v\n",
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
        "description: Use *string, or x *y.\n",
        "hosts: [\"*.example.com\"]\n",
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

/// A document defining `&x` and then using `*x` in places of every kind a node can
/// start (block values and entries, explicit keys and values, flow lists and maps,
/// JSON-like keys, keys, after a tag or anchor), with blanks or none around the
/// indicators, and text with stars that are not aliases.
fn alias_document() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let blank = prop::sample::select(vec![" ", "  ", "\t", " \t"]);
    let maybe = prop::sample::select(vec!["", " ", "\t"]);
    // One alias each where it can be the only one (the indicator before it named).
    let value = prop::sample::select(vec![
        ":{b}*x",
        ":\n-{b}*x",
        ":\n  -{b}-{b}*x",
        ":\n  ?{b}*x\n  :{b}v",
        ":{b}[{m}*x]",
        ":{b}[a,{m}*x]",
        ":{b}{{m}*x : v}",
        ":{b}{a: 1,{m}*x : v}",
        ":{b}{{m}a:{b}*x{m}}",
        ": {\"a\":{m}*x}",
        ": [a,\n  {m}*x]",
        ":\n  *x : v",
        ":\n  {m}*x{b}: v",
        ":{b}!!str{b}*x",
        ":{b}&y{b}*x",
        ":{b}*x{b}# c *x",
        ": Use *string, or x *y.",
        ": [\"*.example.com\"]",
        ": |\n  * item\n  * *x",
        ": a *x",
    ]);
    let entry = (value, blank, maybe).prop_map(|(v, b, m)| v.replace("{b}", b).replace("{m}", m));
    (prop::collection::vec(entry, 1..4), any::<bool>()).prop_map(|(entries, bom)| {
        let mut doc = String::new();
        if bom {
            doc.push('\u{feff}');
        }
        doc.push_str("a: &x {p: 1}\n");
        for (i, e) in entries.iter().enumerate() {
            doc.push_str(&format!("k{i}{e}\n"));
        }
        doc
    })
}

/// The alias filter as one pass over every byte, keeping the last non-blank byte of
/// the line: the reference for the search from star to star.
fn may_hold_alias_by_bytes(doc: &str) -> bool {
    let b = doc.as_bytes();
    let mut prev: Option<u8> = None;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'\n' | b'\r' => prev = None,
            b' ' | b'\t' | 0xEF | 0xBB | 0xBF => {}
            b'*' if matches!(prev, None | Some(b':' | b'-' | b'?' | b'[' | b'{' | b','))
                && b.get(i + 1).is_some_and(|n| {
                    !matches!(
                        n,
                        b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b']' | b'{' | b'}'
                    )
                }) =>
            {
                return true;
            }
            _ => prev = Some(c),
        }
    }
    false
}

proptest::proptest! {
    /// The search from star to star is the byte pass, on text dense in stars, blanks,
    /// byte-order marks, line ends and the indicators a node follows.
    #[test]
    fn the_alias_filter_is_the_byte_pass(doc in "([a*:?\\-\\[\\]{}, \t\n\r]|\u{feff}|\u{e9}|\\*\\*){0,40}") {
        proptest::prop_assert_eq!(may_hold_alias(&doc), may_hold_alias_by_bytes(&doc), "{:?}", doc);
    }

    /// Any text saphyr finds an alias in is one the filter lets through.
    #[test]
    fn the_alias_filter_is_a_superset(doc in "([a-z*&:?\\-\\[\\]{}, \t\n\r'\"!|#>.]|!!str |\u{feff}|\u{e9}){0,40}") {
        if saphyr_finds_alias(&doc) {
            proptest::prop_assert!(may_hold_alias(&doc), "{:?}", doc);
        }
    }

    /// The same on documents built to hold aliases in every place a node can start.
    #[test]
    fn the_alias_filter_lets_every_alias_document_through(doc in alias_document()) {
        if saphyr_finds_alias(&doc) {
            proptest::prop_assert!(may_hold_alias(&doc), "{:?}", doc);
        }
    }
}

/// The generated documents do hold aliases (the property above is not vacuous).
#[test]
fn most_alias_documents_hold_an_alias() {
    use proptest::strategy::{Strategy, ValueTree};
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = alias_document();
    let docs: Vec<String> = (0..500)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect();
    let with = docs.iter().filter(|d| saphyr_finds_alias(d)).count();
    assert!(with > 300, "{with} of 500");
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

/// `parse` (values built straight from the events) against `parse_through_raw` (the
/// `Raw` tree and `to_json`) read with serde-saphyr's full key bookkeeping (`LastWins`
/// or `PassThrough`, merge keys merged, whatever the document holds): same value or
/// same error, same charges to the meter. So the lighter policies `parse` takes for a
/// document without merge keys ([`key_policies`]) are checked against the full ones.
fn same_as_raw(doc: &str) -> std::result::Result<(), proptest::test_runner::TestCaseError> {
    for keys in [Keys::LastWins, Keys::Strict] {
        let limits = Limits::default();
        let (m1, m2) = (Meter::new(limits), Meter::new(limits));
        let direct = parse(doc, keys, 3, &m1).map_err(|e| e.to_string());
        // `parse` reads Go's boolean spellings quoted before either way.
        let quoted = crate::yaml::plain::quote_misread_booleans(doc);
        let full = match keys {
            Keys::LastWins => DuplicateKeyPolicy::LastWins,
            Keys::Strict => DuplicateKeyPolicy::PassThrough,
        };
        let raw = parse_through_raw_with(
            quoted.as_deref().unwrap_or(doc),
            keys,
            (full, MergeKeyPolicy::Merge),
            3,
            &m2,
        )
        .map_err(|e| e.to_string());
        proptest::prop_assert_eq!(&direct, &raw, "{:?}", doc);
        for l in [
            Limit::YamlNodes,
            Limit::YamlAliasNodes,
            Limit::YamlAliasBytes,
        ] {
            proptest::prop_assert_eq!(m1.remaining(l), m2.remaining(l));
        }
    }
    Ok(())
}

#[test]
fn direct_values_are_the_raw_conversion() {
    for doc in [
        "a: 1\nb: [x, {c: d}]\n",
        "1: one\n2.5: two\ntrue: t\nnull: n\n~: m\n",
        "[a]: 1\n",
        "{a: 1}: 2\n",
        "a: .inf\n",
        "a: [1, -.inf]\n",
        "a: 1\na: 2\n",
        "a:\n  b: 1\n  b: 2\n",
        "x: &x {p: 1}\ny:\n  <<: *x\n  q: 2\n",
        "n: 12345678901234567890\nm: 340282366920938463463374607431768211456\n",
        "o: 017\nh: 0x1F\nu: 1_000\n",
        "- a\n- b: [1, 2]\n",
        "a: [\n",
        "y: yes\nn: No\nt: tRue\n",
        "1: a\n0x1: b\n01: c\nx: d\n",
        "0x10: a\n'16': b\n16: c\n",
        "16: a\n'16': b\n0x10: c\n'16': d\n",
        "a: 1\n\"a\": 2\n'a': 3\n",
        "x: &x {p: 1}\ny:\n  !!merge <<: *x\n",
        "x: &x {p: 1}\ny:\n  !!merge \"\\x3c\\x3c\": *x\n",
        "x: &x {p: 1}\ny:\n  !<tag:yaml.org,2002:merge> \"\\x3c\\x3c\": *x\n",
        "x: &x {p: 1}\ny:\n  !!str <<: *x\n",
    ] {
        same_as_raw(doc).unwrap();
    }
}

#[test]
fn only_documents_without_merge_keys_read_with_merges_off() {
    use DuplicateKeyPolicy as D;
    use MergeKeyPolicy as M;
    // (document, whether it may hold a merge key)
    for (doc, merges) in [
        ("a: 1\nb: 2\n", false),
        (
            "rule: self.a != self.b && self.c < 3\nnote: 100% sure!\n",
            false,
        ),
        ("a: '<'\nb: \"! <\"\n", false),
        ("a:\n  <<: *b\n", true),
        ("a:\n  !!merge x: 1\n", true),
        ("a:\n  !<tag:yaml.org,2002:merge> x: 1\n", true),
        (
            "%TAG !m! tag:yaml.org,2002:\n---\na:\n  !m!merge x: 1\n",
            true,
        ),
    ] {
        assert_eq!(without_merge_keys(doc), !merges, "{doc:?}");
        let lenient = key_policies(Keys::LastWins, doc, true);
        let strict = key_policies(Keys::Strict, doc, true);
        // A read through `Raw` keeps serde-saphyr's `LastWins` (it may meet integer keys).
        let raw = key_policies(Keys::LastWins, doc, false);
        let ok = if merges {
            matches!(
                (lenient, strict, raw),
                (
                    (D::LastWins, M::Merge),
                    (D::PassThrough, M::Merge),
                    (D::LastWins, M::Merge)
                )
            )
        } else {
            matches!(
                (lenient, strict, raw),
                (
                    (D::PassThrough, M::AsOrdinary),
                    (D::PassThrough, M::AsOrdinary),
                    (D::LastWins, M::AsOrdinary)
                )
            )
        };
        assert!(ok, "{doc:?}");
    }
}

#[test]
fn lenient_reads_of_integer_keys_go_through_raw() {
    // serde-saphyr's `LastWins` picks the winner of keys holding one integer (`1`,
    // `0x1`, `01`); the direct read passes keys through, so it must not take those.
    let m = Meter::new(Limits::default());
    let r = read::<Direct<false>>(
        "1: a\n0x1: b\n",
        key_policies(Keys::LastWins, "1: a\n0x1: b\n", true),
        1,
        &m,
    )
    .unwrap();
    assert!(matches!(r, Read::Stopped));
    assert_eq!(
        parse_value_lenient("1: a\n0x1: b\nx: c\n").unwrap(),
        json!({"1": "b", "x": "c"})
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
    /// Random documents of keys of every kind (strings, numbers, booleans, nulls,
    /// flow lists and maps, merge keys, repeats) and values of every kind (infinite and
    /// huge numbers, anchors and aliases), nested by indentation.
    #[test]
    fn direct_values_are_the_raw_conversion_on_random_documents(
        lines in proptest::collection::vec(
            (0usize..3, proptest::sample::select(vec![
                "a", "b", "a", "1", "-2", "2.5", "1e3", "true", "null", "~", "[a, b]",
                "{k: v}", "<<", "? [x]\n", "- a", "-", "\"q\"", "'s'", "0x1", "01", "\"a\"",
                "!!merge <<", "!!str <<",
            ]), proptest::sample::select(vec![
                "", " 1", " x", " .inf", " -.Inf", " .nan", " 18446744073709551616",
                " 340282366920938463463374607431768211456", " [1, .inf]", " {a: 1, a: 2}",
                " &an {p: 1}", " *an", " yes", " 0o17", " 017", " |\n  text", " []", " {}",
                " [a, [b]]", " {[x]: 1}",
            ])),
            0..12,
        )
    ) {
        let mut doc = String::new();
        for (indent, key, value) in lines {
            doc.push_str(&"  ".repeat(indent));
            doc.push_str(key);
            if !key.starts_with('-') && !key.ends_with('\n') {
                doc.push(':');
            }
            doc.push_str(value);
            doc.push('\n');
        }
        same_as_raw(&doc)?;
    }
}
