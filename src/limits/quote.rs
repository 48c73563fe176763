//! Untrusted text as errors quote it: at most [`QUOTE_BYTES`] of it (escaping its
//! control characters is `go::untrusted`'s, on Go's `%q` rules).

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_capped() {
        assert_eq!(excerpt("short"), "short");
        let long = "é".repeat(10_000);
        let x = excerpt(&long);
        assert!(x.len() < QUOTE_BYTES + 64, "{}", x.len());
        assert!(x.ends_with("more bytes not shown)"));
    }
}
