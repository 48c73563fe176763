//! Values from the inputs made inert for the review outputs of `capi-render diff`: a
//! Cluster's or class's name, a variable's value in a reason, a field path, a version in
//! a warning may hold anything a YAML string holds. Every value passes through one of
//! these functions on its way into the text report, the Markdown comment or the HTML
//! page, so that it shows as what it is and cannot move the cursor, erase a line,
//! reorder the text around it, end a table or a section, or render as a link, an image,
//! emphasis or HTML.
//!
//! * [`text`]: characters a reader cannot see, or that act on the terminal or on the
//!   layout ([`hidden`]), written as visible escapes: `\r`, `\n`, `\t`, `\x1b`, `\u202e`.
//! * [`markdown`]: [`text`], then what GitHub-flavoured Markdown would read as syntax
//!   escaped (`\*`, `\[`, `&lt;`, …) and a word a GFM renderer would turn into a link or
//!   a mention (`https://…`, `www.…`, `a@b.c`, `@team`) put in a code span.
//! * [`code_span`]: a code span no backtick in the value can close.
//! * [`html`]: [`text`], then HTML's specials escaped.

use std::borrow::Cow;

/// Whether `c` is kept from a reader raw: the C0 controls (line breaks and tabs too),
/// DEL and the C1 controls, which a terminal acts on (`ESC[2K` erases a line, `\r`
/// returns to its start) and a Markdown parser reads as line ends; the bidirectional
/// formatting characters, which reorder the text around them; the line and paragraph
/// separators; the zero-width no-break space.
pub fn hidden(c: char) -> bool {
    matches!(c,
        '\0'..='\x1f'
        | '\x7f'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}'
        | '\u{feff}')
}

fn escape_into(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
        c => out.push_str(&format!("\\u{:04x}", c as u32)),
    }
}

fn escaped(s: &str, keep_newlines: bool) -> Cow<'_, str> {
    let bad = |c: char| hidden(c) && !(keep_newlines && c == '\n');
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if bad(c) {
            escape_into(c, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A value for the text report: every [`hidden`] character as a visible escape (Go's
/// `%q` spelling: `\r`, `\n`, `\t`, `\x1b`, `\u202e`); other text unchanged.
pub fn text(s: &str) -> Cow<'_, str> {
    escaped(s, false)
}

/// Text whose line breaks are ours (the object diffs): [`text`] on each line.
pub fn lines(s: &str) -> Cow<'_, str> {
    escaped(s, true)
}

/// A value for an HTML element or attribute (and for HTML inside Markdown, such as a
/// `<summary>`): [`text`], then `&`, `<`, `>`, `"` and `'` as entities.
pub fn html(s: &str) -> String {
    escape_html(&text(s))
}

/// Whether a GFM renderer (or GitHub after it) may turn `word` into a link or a
/// mention: a URL (`scheme://`), `www.`, an e-mail address or `@user`.
fn links(word: &str) -> bool {
    word.contains('@') || word.contains("://") || word.to_ascii_lowercase().contains("www.")
}

/// `s` in a code span: a fence one backtick longer than the longest run of backticks in
/// `s`, padded with a space where `s` starts or ends with one; in a table cell, `|` as
/// `\|` (GFM splits cells before it reads code spans). `s` holds no line break.
pub fn code_span(s: &str, in_table: bool) -> String {
    let (mut longest, mut run) = (0, 0);
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    let body = if in_table {
        s.replace('|', "\\|")
    } else {
        s.to_string()
    };
    format!("{fence}{pad}{body}{pad}{fence}")
}

/// A value as Markdown inline text (a table cell when `in_table`, a line of a quote):
/// [`text`]; then a word that would link ([`links`]) as a code span, and in other
/// words the characters GFM reads as syntax escaped: `\`, `` ` ``, `*`, `~`, `[`, `]`,
/// `$` (GitHub's math), `|` with a backslash, `_` where it could start or end emphasis,
/// `&`, `<`, `>`, `"`, `'` as entities, and at the start a `#`, `+`, `-`, `=` or a
/// list number's `.` or `)`. Ordinary names, versions and paths stay as they are.
pub fn markdown(s: &str, in_table: bool) -> String {
    let s = text(s);
    let mut out = String::with_capacity(s.len() + 8);
    for (i, word) in s.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if links(word) {
            out.push_str(&code_span(word, in_table));
        } else {
            escape_word(word, i == 0, &mut out);
        }
    }
    out
}

fn escape_word(word: &str, first: bool, out: &mut String) {
    let chars: Vec<char> = word.chars().collect();
    let number = chars.iter().take_while(|c| c.is_ascii_digit()).count();
    for (i, &c) in chars.iter().enumerate() {
        let alnum = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(|c| c.is_alphanumeric())
        };
        match c {
            '\\' | '`' | '*' | '~' | '[' | ']' | '$' | '|' => {
                out.push('\\');
                out.push(c);
            }
            '_' if !(alnum(i.checked_sub(1)) && alnum(Some(i + 1))) => out.push_str("\\_"),
            '#' | '+' | '-' | '=' if first && i == 0 => {
                out.push('\\');
                out.push(c);
            }
            '.' | ')' if first && number > 0 && i == number => {
                out.push('\\');
                out.push(c);
            }
            c => match entity(c) {
                Some(e) => out.push_str(e),
                None => out.push(c),
            },
        }
    }
}

/// The HTML entity a character is written as in element content and attribute values.
fn entity(c: char) -> Option<&'static str> {
    Some(match c {
        '&' => "&amp;",
        '<' => "&lt;",
        '>' => "&gt;",
        '"' => "&quot;",
        '\'' => "&#39;",
        _ => return None,
    })
}

/// Text escaped for HTML element content and attribute values.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match entity(c) {
            Some(e) => out.push_str(e),
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_shows_what_acts_on_a_terminal_or_reorders_text() {
        assert_eq!(
            text("a\r\x1b[1A\x1b[2Kb\tc\nd\x7f\u{9b}e"),
            "a\\r\\x1b[1A\\x1b[2Kb\\tc\\nd\\x7f\\u009be"
        );
        assert_eq!(
            text("x\u{202e}y\u{2066}z\u{2028}\u{feff}"),
            "x\\u202ey\\u2066z\\u2028\\ufeff"
        );
        // Ordinary text, non-ASCII letters and emoji are left as they are, unallocated.
        assert!(matches!(text("v1.33.0 → v1.34.0 é 😀"), Cow::Borrowed(_)));
        assert_eq!(lines("+a\r\n-b\n"), "+a\\r\n-b\n");
    }

    #[test]
    fn html_escapes_specials_and_hidden_characters() {
        assert_eq!(
            html("<b a='1'>&\"\r"),
            "&lt;b a=&#39;1&#39;&gt;&amp;&quot;\\r"
        );
    }

    #[test]
    fn markdown_leaves_ordinary_values_and_escapes_syntax() {
        for plain in [
            "spec.version: v1.33.0 → v1.34.0",
            "from variable machine of md-0",
            "spec.topology.workers.machineDeployments",
            "snake_case_name",
            "kindest/node:v1.31.2 (unset)",
        ] {
            assert_eq!(markdown(plain, true), plain);
        }
        assert_eq!(markdown("a | <x>", true), "a \\| &lt;x&gt;");
        assert_eq!(
            markdown("**no** [l](u) ![i](x) _e_ ~s~ $m$ `c` \\", true),
            "\\*\\*no\\*\\* \\[l\\](u) !\\[i\\](x) \\_e\\_ \\~s\\~ \\$m\\$ \\`c\\` \\\\"
        );
        assert_eq!(markdown("x[0]", false), "x\\[0\\]");
        assert_eq!(markdown("# h", false), "\\# h");
        assert_eq!(markdown("- a - b", false), "\\- a - b");
        assert_eq!(markdown("12. a", false), "12\\. a");
        assert_eq!(markdown("a\r\nb", true), "a\\\\r\\\\nb");
    }

    #[test]
    fn markdown_puts_words_that_would_link_in_code_spans() {
        assert_eq!(
            markdown("see https://evil.example/a|b and www.x.example", true),
            "see `https://evil.example/a\\|b` and `www.x.example`"
        );
        assert_eq!(
            markdown("mail a@b.example @team", false),
            "mail `a@b.example` `@team`"
        );
        assert_eq!(markdown("`x`@y", false), "`` `x`@y ``");
    }

    #[test]
    fn a_code_span_outlasts_backticks_in_its_value() {
        assert_eq!(code_span("md-1", true), "`md-1`");
        assert_eq!(code_span("a``b", false), "```a``b```");
        assert_eq!(code_span("`a", false), "`` `a ``");
        assert_eq!(code_span("a|b", true), "`a\\|b`");
    }
}
