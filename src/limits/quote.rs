//! Untrusted text quoted in errors: never more than [`QUOTE_BYTES`], never a control
//! character that a terminal would act on.

/// At most this many bytes of untrusted text are quoted in one error message.
pub const QUOTE_BYTES: usize = 4096;

/// `text` cut to [`QUOTE_BYTES`] (at a character boundary) with a note of how much
/// was left out, for quoting in errors: an error never repeats megabytes of input or
/// template output.
pub fn excerpt(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= QUOTE_BYTES {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = QUOTE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!(
        "{}… ({} more bytes not shown)",
        &text[..end],
        text.len() - end
    ))
}

/// Untrusted text (an HTTP answer, a URL, a value) as one inert line for an error: its
/// control characters (C0 and C1, DEL, and the bidirectional overrides that reorder
/// what a terminal shows) written as escapes (`\r`, `\x1b`, `\u{202e}`), and the
/// whole cut to [`QUOTE_BYTES`] with a note of what was left out. Never reads more of
/// `text` than it can show.
pub fn quote_untrusted(text: &str) -> String {
    let mut out = String::new();
    let mut shown = 0;
    for (i, c) in text.char_indices() {
        let start = out.len();
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if ('\u{80}'..='\u{9f}').contains(&c)
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c)
                || c == '\u{200e}'
                || c == '\u{200f}'
                || c == '\u{61c}' =>
            {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
        if out.len() > QUOTE_BYTES {
            out.truncate(start);
            shown = i;
            break;
        }
        shown = i + c.len_utf8();
    }
    if shown < text.len() {
        out.push_str(&format!("… ({} more bytes not shown)", text.len() - shown));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_text_is_quoted_inert_and_capped() {
        assert_eq!(quote_untrusted("plain é"), "plain é");
        assert_eq!(
            quote_untrusted("a\r\x1b[1A\x1b[2K\u{202e}b\u{85}\n\x7f"),
            "a\\r\\x1b[1A\\x1b[2K\\u{202e}b\\u{85}\\n\\x7f"
        );
        let big = "\u{1}".repeat(8 << 20);
        let q = quote_untrusted(&big);
        assert!(q.len() <= QUOTE_BYTES + 64, "{}", q.len());
        assert!(!q.contains('\u{1}'));
        assert!(q.ends_with("more bytes not shown)"), "{q}");
        let long = "é".repeat(5000);
        let q = quote_untrusted(&long);
        assert!(q.len() <= QUOTE_BYTES + 64 && q.starts_with("éé"));
        assert!(
            q.ends_with(&format!("({} more bytes not shown)", 10000 - 4096)),
            "{q}"
        );
    }

    #[test]
    fn excerpts_are_capped() {
        assert_eq!(excerpt("short"), "short");
        let long = "é".repeat(10_000);
        let x = excerpt(&long);
        assert!(x.len() < QUOTE_BYTES + 64, "{}", x.len());
        assert!(x.ends_with("more bytes not shown)"));
    }
}
