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
pub(super) fn misread(w: &str) -> bool {
    WORDS.iter().any(|b| w.eq_ignore_ascii_case(b)) && !GO_BOOLS.contains(&w)
}

/// Whether any run of ASCII letters in `doc` is [`misread`] (a linear byte scan that
/// lets almost every document skip the parser pass). Go reads every spelling that is
/// all lower case, capitalized or all upper case: only a run with a capital after its
/// first letter and a small letter, of 2 to 5 letters, can be misread. So the scan
/// looks for capitals that follow a letter, eight bytes at a time
/// ([`capitals_after_letters`]), and looks at the run around each (at most 4 letters
/// back and 5 on: a longer run cannot be misread).
fn has_candidate(doc: &str) -> bool {
    let b = doc.as_bytes();
    let letter = |i: usize| b[i].is_ascii_alphabetic();
    // The letter bit of the byte before the current word.
    let mut carry = 0u64;
    let words = b.chunks_exact(8);
    let tail = words.remainder();
    let mut last = [0u8; 8];
    last[..tail.len()].copy_from_slice(tail);
    let all = words.map(|w| w.try_into().unwrap_or([0; 8])).chain([last]);
    for (w, word) in all.enumerate() {
        let (mut candidates, letters) = capitals_after_letters(u64::from_le_bytes(word), carry);
        carry = letters >> 56;
        while candidates != 0 {
            let i = w * 8 + candidates.trailing_zeros() as usize / 8;
            candidates &= candidates - 1;
            // The run holding `i`, if it has at most 5 letters: it starts at most 4
            // letters before `i` (a capital later in a run looks at the same run again).
            let mut start = i - 1;
            while start > 0 && i - start < 5 && letter(start - 1) {
                start -= 1;
            }
            if start > 0 && letter(start - 1) {
                continue;
            }
            let mut end = i + 1;
            while end < b.len() && end - start <= 5 && letter(end) {
                end += 1;
            }
            if end - start > 5 {
                continue;
            }
            // A run of ASCII letters is whole UTF-8 characters: `doc[start..end]` is a str.
            if b[start..end].iter().any(u8::is_ascii_lowercase) && misread(&doc[start..end]) {
                return true;
            }
        }
    }
    false
}

const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// `b` in every byte of a word.
const fn splat(b: u8) -> u64 {
    b as u64 * 0x0101_0101_0101_0101
}

/// The high bit of each byte of `x` (little-endian) that is in `lo..=hi` (ASCII bounds):
/// on the low seven bits each sum stays within its byte.
fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    let low7 = x & !HIGH_BITS;
    let at_least_lo = low7.wrapping_add(splat(0x80 - lo));
    let above_hi = low7.wrapping_add(splat(0x7F - hi));
    at_least_lo & !above_hi & !x & HIGH_BITS
}

/// For the 8 bytes of `x`: the high bits of the capitals that follow a letter, and the
/// high bits of the letters. `carry` is the letter bit of the byte before `x`, at bit 7.
fn capitals_after_letters(x: u64, carry: u64) -> (u64, u64) {
    let capitals = in_range(x, b'A', b'Z');
    let letters = in_range(x | splat(0x20), b'a', b'z');
    (capitals & ((letters << 8) | carry), letters)
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

        /// The same at every offset from the 8-byte words the scan reads, with letters,
        /// non-ASCII characters and spellings across their edges.
        #[test]
        fn candidates_are_the_letter_runs_at_any_offset(
            pad in "[a-zA-Z é]{0,9}",
            doc in "([a-zA-Zé: \n\"-]|[a-zA-Z]{2,7}|[tT][rR][uU][eE]|[fF][aA][lL][sS][eE]|[oO][nN]|[oO][fF][fF]|[yY][eE][sS]|[nN][oO]){0,40}",
        ) {
            let doc = format!("{pad}{doc}");
            let by_chars = doc
                .split(|c: char| !c.is_ascii_alphabetic())
                .any(|w| (2..=5).contains(&w.len()) && misread(w));
            proptest::prop_assert_eq!(has_candidate(&doc), by_chars);
        }
    }

    #[test]
    fn capitals_after_letters_by_byte() {
        for x in [
            *b"aBcDeFgH",
            *b"A1b\xC3\xa9ZzQ",
            *b"@[`{AZaz",
            *b"\xc1\xdaZZ  Zz",
        ] {
            let (cand, letters) = capitals_after_letters(u64::from_le_bytes(x), 0x80);
            for j in 0..8 {
                let prev = if j == 0 {
                    true
                } else {
                    x[j - 1].is_ascii_alphabetic()
                };
                assert_eq!(
                    letters >> (8 * j + 7) & 1 == 1,
                    x[j].is_ascii_alphabetic(),
                    "{x:?} {j}"
                );
                assert_eq!(
                    cand >> (8 * j + 7) & 1 == 1,
                    x[j].is_ascii_uppercase() && prev,
                    "{x:?} {j}"
                );
            }
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
