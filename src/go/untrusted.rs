//! Untrusted text (an input's value, an extension's answer) as errors quote it:
//! Go-`%q`-escaped, so that no control character reaches a terminal, and at most
//! [`QUOTE_BYTES`] of it.

use crate::limits::QUOTE_BYTES;

/// Untrusted text (an extension's answer, an input value) as an error quotes it:
/// Go-`%q`-quoted, so control characters and other unprintable ones are escaped, and cut
/// so the quoted text is at most [`QUOTE_BYTES`], with a note of how many bytes of the
/// text were left out.
pub fn quote_untrusted(text: &str) -> String {
    quote_untrusted_bytes(text.as_bytes())
}

/// [`quote_untrusted`] of bytes: a byte that is not UTF-8 is escaped as `\xNN`, as Go's
/// `%q` does. Only the bytes shown are read.
pub fn quote_untrusted_bytes(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    let mut esc = String::new();
    let mut shown = 0;
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid().chars().map(|c| (c, c.len_utf8(), None));
        let invalid = chunk.invalid().iter().map(|b| (' ', 1, Some(*b)));
        for (c, len, raw) in valid.chain(invalid) {
            esc.clear();
            match raw {
                Some(b) => esc.push_str(&format!("\\x{b:02x}")),
                None => super::quote::push_escaped(&mut esc, c, '"', false),
            }
            if out.len() + esc.len() + 1 > QUOTE_BYTES {
                return format!("{out}\"… ({} more bytes not shown)", bytes.len() - shown);
            }
            out.push_str(&esc);
            shown += len;
        }
    }
    out.push('"');
    out
}

/// Untrusted text shown as it is when that is harmless (at most [`QUOTE_BYTES`], every
/// character printable), else [`quote_untrusted`]: a message keeps the words it would
/// have in Cluster API's own, and never carries control characters or megabytes.
pub fn plain_or_quoted(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= QUOTE_BYTES && text.chars().all(super::quote::is_print) {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(quote_untrusted(text))
    }
}

/// A message that carries untrusted text (an extension's answer checked as a class's
/// own definitions would be): every unprintable character escaped as Go's `%q` escapes
/// it, and cut to [`QUOTE_BYTES`] with a note of how much was left out.
pub fn escaped_excerpt(text: &str) -> String {
    let mut out = String::new();
    for (at, c) in text.char_indices() {
        if out.len() >= QUOTE_BYTES {
            out.push_str(&format!("… ({} more bytes not shown)", text.len() - at));
            return out;
        }
        if super::quote::is_print(c) {
            out.push(c);
        } else {
            super::quote::push_escaped(&mut out, c, '"', false);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_text_is_quoted_escaped_and_cut() {
        assert_eq!(quote_untrusted("a\tb\"\u{1b}[31m"), r#""a\tb\"\x1b[31m""#);
        assert_eq!(quote_untrusted_bytes(b"ok\xff\x01"), r#""ok\xff\x01""#);
        // 8 MiB of control characters: 4 KiB quoted, none of them raw.
        let big = vec![1u8; 8 << 20];
        let q = quote_untrusted_bytes(&big);
        assert!(q.len() <= QUOTE_BYTES + 64, "{}", q.len());
        assert!(!q.contains('\x01'));
        let shown = (QUOTE_BYTES - 2) / 4;
        assert!(
            q.ends_with(&format!("\"… ({} more bytes not shown)", (8 << 20) - shown)),
            "{}",
            &q[q.len() - 60..]
        );
        // Multi-byte characters are never split; text within the bound is whole.
        let q = quote_untrusted(&"é".repeat(10_000));
        assert!(q.len() <= QUOTE_BYTES + 64 && q.is_char_boundary(q.len()));
        let short = "x".repeat(QUOTE_BYTES - 2);
        assert_eq!(quote_untrusted(&short), format!("\"{short}\""));
        assert!(quote_untrusted(&format!("{short}y")).ends_with("(1 more bytes not shown)"));
        assert_eq!(plain_or_quoted("3 replicas, over 2"), "3 replicas, over 2");
        assert_eq!(plain_or_quoted("a\nb"), r#""a\nb""#);
        assert!(plain_or_quoted(&"x".repeat(QUOTE_BYTES + 1)).ends_with("not shown)"));
        assert_eq!(escaped_excerpt("a \"b\"\u{1}\n"), "a \"b\"\\x01\\n");
        let e = escaped_excerpt(&"\u{1}".repeat(1 << 20));
        assert!(
            e.len() < QUOTE_BYTES + 64 && !e.contains('\u{1}'),
            "{}",
            e.len()
        );
        assert!(e.ends_with(&format!(
            "({} more bytes not shown)",
            (1 << 20) - QUOTE_BYTES / 4
        )));
    }
}
