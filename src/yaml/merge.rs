//! go-yaml v2's rule for the value of a merge key (`<<`), checked on parser events.
//!
//! serde-saphyr merges like go-yaml, with two exceptions this pass closes:
//! - a null value (`<<:`, `<<: ~`, `<<: null`, or an alias of one) merges nothing in
//!   serde-saphyr; go-yaml fails with `map merge requires map or sequence of maps as the
//!   value`, as for any scalar, and so do we;
//! - a merge key with the non-specific tag `!` (`! <<`) is a merge key in go-yaml (libyaml
//!   reads a `!`-tagged scalar as plain) but an ordinary string key in serde-saphyr; rather
//!   than read such a document differently from Go, we reject it and say what to change.
//!
//! A merge value is valid when it is a mapping, an alias of a mapping, or a sequence whose
//! items are each one of those. The pass runs only on documents containing `<<`, after
//! serde-saphyr read the document, so syntax errors keep serde-saphyr's wording.

use std::collections::HashMap;

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, Tag};

/// go-yaml's message, word for word.
pub const WANT_MAP: &str = "map merge requires map or sequence of maps as the value";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Map,
    Other,
}

enum Frame {
    /// A mapping: `key_next` is true where the next node is a key; `merge` is true where
    /// the next node is the value of a merge key.
    Map { key_next: bool, merge: bool },
    /// A sequence: `merge` is true for the sequence that is a merge value.
    Seq { merge: bool },
}

/// What a merge key of go-yaml is, as serde-saphyr sees it.
enum MergeKey {
    No,
    /// serde-saphyr merges it too (plain `<<`, or tagged `!!merge`).
    Both,
    /// Only go-yaml merges it (`! <<`).
    GoOnly,
}

fn merge_key(value: &str, style: ScalarStyle, tag: Option<&Tag>) -> MergeKey {
    if value != "<<" {
        return MergeKey::No;
    }
    match tag {
        None if style == ScalarStyle::Plain => MergeKey::Both,
        None => MergeKey::No,
        Some(t) if t.handle() == "tag:yaml.org,2002:" && t.suffix() == "merge" => MergeKey::Both,
        Some(t) if t.original_handle().is_empty() && t.suffix() == "!" => MergeKey::GoOnly,
        Some(_) => MergeKey::No,
    }
}

/// Check every merge value of one YAML document. `Err` carries the message.
pub fn check(doc: &str) -> Result<(), String> {
    if !doc.contains("<<") {
        return Ok(());
    }
    let mut anchors: HashMap<usize, Kind> = HashMap::new();
    let mut stack: Vec<Frame> = Vec::new();
    for item in Parser::new_from_str(doc) {
        // Syntax errors are serde-saphyr's to report (it read this document already).
        let Ok((event, _)) = item else {
            return Ok(());
        };
        let node = match &event {
            Event::Scalar(..)
            | Event::Alias(_)
            | Event::MappingStart(..)
            | Event::SequenceStart(..) => true,
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
                finish_node(&mut stack);
                continue;
            }
            _ => false,
        };
        if !node {
            continue;
        }
        let kind = match &event {
            Event::MappingStart(..) => Kind::Map,
            Event::Alias(id) => anchors.get(id).copied().unwrap_or(Kind::Other),
            _ => Kind::Other,
        };
        // Is this node a merge value (or an item of a merge sequence)?
        let (in_merge_value, in_merge_seq) = match stack.last() {
            Some(Frame::Map {
                key_next: false,
                merge: true,
            }) => (true, false),
            Some(Frame::Seq { merge: true }) => (false, true),
            _ => (false, false),
        };
        let seq_value = in_merge_value && matches!(event, Event::SequenceStart(..));
        if (in_merge_value || in_merge_seq) && kind != Kind::Map && !seq_value {
            return Err(WANT_MAP.to_string());
        }
        // Is this node a merge key?
        if let (Some(Frame::Map { key_next: true, .. }), Event::Scalar(v, style, _, tag)) =
            (stack.last(), &event)
        {
            match merge_key(v, *style, tag.as_deref()) {
                MergeKey::No => {}
                MergeKey::Both => {
                    if let Some(Frame::Map { merge, .. }) = stack.last_mut() {
                        *merge = true;
                    }
                }
                MergeKey::GoOnly => {
                    return Err("a merge key tagged `!` (`! <<`) is a merge key for go-yaml but not for this reader: write `<<` without the tag".to_string());
                }
            }
        }
        match event {
            Event::MappingStart(_, anchor, _) => {
                if anchor > 0 {
                    anchors.insert(anchor, Kind::Map);
                }
                stack.push(Frame::Map {
                    key_next: true,
                    merge: false,
                });
            }
            Event::SequenceStart(_, anchor, _) => {
                if anchor > 0 {
                    anchors.insert(anchor, Kind::Other);
                }
                stack.push(Frame::Seq { merge: seq_value });
            }
            Event::Scalar(_, _, anchor, _) => {
                if anchor > 0 {
                    anchors.insert(anchor, Kind::Other);
                }
                finish_node(&mut stack);
            }
            _ => finish_node(&mut stack),
        }
    }
    Ok(())
}

/// A whole node ended: in a mapping, a key is followed by its value and a value by a key.
fn finish_node(stack: &mut [Frame]) {
    if let Some(Frame::Map { key_next, merge }) = stack.last_mut() {
        if !*key_next {
            *merge = false;
        }
        *key_next = !*key_next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(doc: &str) -> bool {
        check(doc).is_err()
    }

    #[test]
    fn null_and_scalar_merge_values_fail_as_in_go() {
        for doc in [
            "a: 1\n<<: null\n",
            "<<:\nb: 2\n",
            "<<: ~\n",
            "x: &n null\ny:\n  <<: *n\n",
            "<<: [null]\n",
            "x: &s [1]\ny:\n  <<: [*s]\n",
            "<<: 3\n",
            "<<: [{a: 1}, 2]\n",
        ] {
            assert!(rejected(doc), "{doc:?}");
        }
        assert_eq!(check("<<: null\n").unwrap_err(), WANT_MAP);
    }

    #[test]
    fn maps_aliases_of_maps_and_sequences_of_them_pass() {
        for doc in [
            "a: &a {x: 1}\nb:\n  <<: *a\n  y: 2\n",
            "<<: {x: 1}\n",
            "a: &a {x: 1}\nb:\n  <<: [*a, {y: 2}]\n",
            "'<<': null\n",
            "!!str <<: null\n",
            "k: <<\nv: null\n",
            "{a: b}: null\n<<: {c: d}\n",
            "<<: {x: 1}\nnext: null\n",
            "no merge here: null\n",
        ] {
            assert!(!rejected(doc), "{doc:?}");
        }
    }

    #[test]
    fn a_value_named_like_the_merge_key_is_not_one() {
        // `<<` as a value, and a null value after a merge key's value has ended.
        assert!(!rejected("a: <<\nb: null\n"));
        assert!(!rejected("- <<\n- null\n"));
        assert!(!rejected("m:\n  <<: {a: 1}\n  n: null\n"));
    }

    #[test]
    fn the_non_specific_tag_is_refused_with_what_to_do() {
        let e = check("! <<: {a: 1}\n").unwrap_err();
        assert!(e.contains("without the tag"), "{e}");
        assert!(!rejected("!!merge <<: {a: 1}\n"));
        assert!(rejected("!!merge <<: null\n"));
    }
}
