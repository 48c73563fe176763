//! go-yaml v2 resolves a plain scalar to a boolean only in its listed spellings (`y`,
//! `Y`, `yes`, `Yes`, `YES`, `on`, `On`, `ON`, `true`, `True`, `TRUE` and the false
//! ones); serde-saphyr's YAML 1.1 booleans ignore case, so it reads `tRue` or `oFF` as
//! booleans where Go reads strings. Before serde-saphyr reads a document holding such a
//! plain scalar, this pass puts it in double quotes (a string for both readers).
//! Found by the `yaml_roundtrip` fuzz target; `conformance` has no input with one.

use std::borrow::Cow;

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle};

const GO_BOOLS: [&str; 22] = [
    "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE", "n", "N", "no", "No",
    "NO", "off", "Off", "OFF", "false", "False", "FALSE",
];

const WORDS: [&str; 8] = ["y", "yes", "on", "true", "n", "no", "off", "false"];

/// A boolean for serde-saphyr, a string for go-yaml.
fn misread(w: &str) -> bool {
    WORDS.iter().any(|b| w.eq_ignore_ascii_case(b)) && !GO_BOOLS.contains(&w)
}

/// Whether any run of ASCII letters in `doc` is [`misread`] (a linear byte scan that
/// lets almost every document skip the parser pass). Go reads every spelling that is
/// all lower case, capitalized or all upper case: only a run with a capital after its
/// first letter and a small letter, of 2 to 5 letters, can be misread. So the scan
/// looks for capitals that follow a letter, and looks at a run only from one of them
/// (at most 5 letters back, then on to the run's end, where the scan resumes).
fn has_candidate(doc: &str) -> bool {
    let b = doc.as_bytes();
    let letter = |i: usize| b[i].is_ascii_alphabetic();
    let mut i = 1;
    while i < b.len() {
        if !(b[i].is_ascii_uppercase() && letter(i - 1)) {
            i += 1;
            continue;
        }
        let mut start = i - 1;
        while start > 0 && i - start < 5 && letter(start - 1) {
            start -= 1;
        }
        let mut end = i + 1;
        while end < b.len() && letter(end) {
            end += 1;
        }
        let whole = start == 0 || !letter(start - 1);
        // A run of ASCII letters is whole UTF-8 characters: `doc[start..end]` is a str.
        if whole
            && end - start <= 5
            && b[start..end].iter().any(u8::is_ascii_lowercase)
            && misread(&doc[start..end])
        {
            return true;
        }
        i = end;
    }
    false
}

/// `doc` with every plain, untagged scalar that is [`misread`] double-quoted; `None`
/// when there is none (or the document does not parse: serde-saphyr reports that).
pub fn quote_misread_booleans(doc: &str) -> Option<Cow<'_, str>> {
    if !has_candidate(doc) {
        return None;
    }
    let mut at: Vec<std::ops::Range<usize>> = Vec::new();
    for item in Parser::new_from_str(doc) {
        let Ok((event, span)) = item else {
            return None;
        };
        if let Event::Scalar(v, ScalarStyle::Plain, _, None) = &event {
            if misread(v) {
                let r = span.byte_range()?;
                // Only where the span is exactly the scalar's text.
                if doc.get(r.clone()) != Some(v.as_ref()) {
                    return None;
                }
                at.push(r);
            }
        }
    }
    if at.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(doc.len() + 2 * at.len());
    let mut last = 0;
    for r in at {
        out.push_str(&doc[last..r.start]);
        out.push('"');
        out.push_str(&doc[r.clone()]);
        out.push('"');
        last = r.end;
    }
    out.push_str(&doc[last..]);
    Some(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_spellings_stay_and_others_are_quoted() {
        assert!(quote_misread_booleans("a: true\nb: Yes\nc: OFF\nd: y\n").is_none());
        assert_eq!(
            quote_misread_booleans("a: tRue\nb: [oN, x]\nyES: 1\n").unwrap(),
            "a: \"tRue\"\nb: [\"oN\", x]\n\"yES\": 1\n"
        );
        // Quoted, tagged and longer scalars are left alone.
        assert!(quote_misread_booleans("a: 'tRue'\nb: !!str nO\nc: tRue story\n").is_none());
        // Anchored: the span is still the scalar's own text.
        let q = quote_misread_booleans("a: &x oFF\nb: *x\n").unwrap();
        assert_eq!(q, "a: &x \"oFF\"\nb: *x\n");
    }

    proptest::proptest! {
        /// The byte scan finds what splitting at every non-letter character finds.
        #[test]
        fn candidates_are_the_letter_runs(doc in "([a-zA-Zé: \n\"-]|[a-zA-Z]{2,7}|[tT][rR][uU][eE]|[fF][aA][lL][sS][eE]|[oO][nN]|[oO][fF][fF]|[yY][eE][sS]){0,12}") {
            let by_chars = doc
                .split(|c: char| !c.is_ascii_alphabetic())
                .any(|w| (2..=5).contains(&w.len()) && misread(w));
            proptest::prop_assert_eq!(has_candidate(&doc), by_chars);
        }
    }

    #[test]
    fn documents_read_as_go_reads_them() {
        let v = crate::yaml::read::parse_value("a: tRue\nb: True\nc: [nO, No]\n").unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a": "tRue", "b": true, "c": ["nO", false]})
        );
    }
}
