//! Keeping Secret-derived text out of errors and warnings (SECURITY.md, "Secrets").
//!
//! A provider's config Secret values are substituted into its components; any error
//! raised after that may quote the substituted text. A [`Redactor`] built from the
//! values replaces every occurrence of a value (as is, Go-quoted as `%q` prints it
//! inside a quoted document, and each of its lines) with `<redacted>`, and
//! [`drop_quoted_documents`] removes the whole document clusterctl's
//! "failed to unmarshal the Nth yaml document: %q" quotes, so that even values too
//! short to redact by text never reach stderr.

use crate::error::Error;

/// What replaces a secret value.
pub const MARK: &str = "<redacted>";

/// Values shorter than this are not searched for (they would garble ordinary words);
/// the quoted documents that could hold them are dropped whole instead.
pub const MIN_LEN: usize = 4;

/// The texts to hide, longest first.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    needles: Vec<String>,
    /// Drop quoted documents from errors (set for every redactor made from values;
    /// the default one changes nothing).
    drop_documents: bool,
}

impl Redactor {
    /// A redactor for these secret values.
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Self {
        let mut needles = Vec::new();
        for v in values {
            let quoted = crate::go::quote::quote(v);
            let inner = &quoted[1..quoted.len() - 1];
            for form in [v, inner] {
                needles.push(form.to_string());
                needles.extend(form.lines().map(|l| l.trim().to_string()));
                needles.extend(form.split("\\n").map(|l| l.trim().to_string()));
            }
        }
        needles.retain(|n| n.chars().count() >= MIN_LEN);
        needles.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        needles.dedup();
        Redactor {
            needles,
            drop_documents: true,
        }
    }

    /// `s` with every secret value replaced by [`MARK`].
    pub fn text(&self, s: &str) -> String {
        let mut out = s.to_string();
        for n in &self.needles {
            if out.contains(n.as_str()) {
                out = out.replace(n.as_str(), MARK);
            }
        }
        out
    }

    /// The error with its message redacted and quoted documents dropped.
    pub fn error(&self, e: Error) -> Error {
        if !self.drop_documents {
            return e;
        }
        e.map_message(|m| self.text(&drop_quoted_documents(m)))
    }
}

const DOC_QUOTE: &str = "yaml document: \"";

/// Replace the Go-quoted document after every `yaml document: ` with a note.
pub fn drop_quoted_documents(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut rest = msg;
    while let Some(at) = rest.find(DOC_QUOTE) {
        let open = at + DOC_QUOTE.len() - 1;
        out.push_str(&rest[..open]);
        match quoted_len(&rest[open..]) {
            Some(n) => {
                out.push_str("(document not shown: it holds substituted variable values)");
                rest = &rest[open + n..];
            }
            None => {
                // Not a complete quoted string: nothing after it can be trusted.
                out.push_str("(document not shown)");
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The byte length of the Go-quoted string at the start of `s` (quotes included).
fn quoted_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.first() != Some(&b'"') {
        return None;
    }
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_in_every_form_are_hidden() {
        let r = Redactor::new(["[s3cr3t: x", "line one\n\"quoted\" two", "ab"]);
        assert_eq!(r.text("got [s3cr3t: x here"), "got <redacted> here");
        // Inside a %q-quoted document the newline and quotes are escaped.
        assert_eq!(
            r.text(r#"doc "a: line one\n\"quoted\" two""#),
            r#"doc "a: <redacted>""#
        );
        // One line of a multi-line value.
        assert_eq!(r.text("at: \"quoted\" two"), "at: <redacted>");
        // Too short to search for: left alone (documents are dropped instead).
        assert_eq!(r.text("about"), "about");
    }

    #[test]
    fn quoted_documents_are_dropped() {
        let m = r#"failed to parse yaml: failed to unmarshal the 11st yaml document: "kind: Secret\nstringData:\n  region: [ab\"c\n": error converting YAML to JSON: line 9"#;
        assert_eq!(
            drop_quoted_documents(m),
            "failed to parse yaml: failed to unmarshal the 11st yaml document: (document not shown: it holds substituted variable values): error converting YAML to JSON: line 9"
        );
        assert_eq!(drop_quoted_documents("no documents"), "no documents");
        assert_eq!(
            drop_quoted_documents(r#"the 1st yaml document: "unterminated"#),
            "the 1st yaml document: (document not shown)"
        );
    }

    #[test]
    fn redacted_errors_keep_their_file() {
        let e = Error::new("value [s3cr3t: x is bad").in_file("p.yaml");
        let r = Redactor::new(["[s3cr3t: x"]).error(e);
        assert_eq!(r.message(), "value <redacted> is bad");
        assert_eq!(r.source_file(), Some("p.yaml"));
    }
}
