//! YAML as Go's `sigs.k8s.io/yaml` reads and writes it.
//!
//! * [`split`]: the apimachinery YAMLReader's document splitting (R5.1–R5.3), and
//!   each document's byte range in the file ([`split::document_spans`]).
//! * [`locate`]: where `spec.version` sits in a document's text (an in-place edit).
//! * [`read`]: one document → `serde_json::Value` with Go's scalar rules (R5.4);
//!   every number becomes an `f64`, as Go's `encoding/json` gives `float64`.
//! * [`emit`]: `serde_json::Value` → the exact bytes of `sigs.k8s.io/yaml.Marshal`
//!   (go-yaml v2 emitter), with [`keysort`] (go-yaml v2 key order) and
//!   [`resolve`] (the YAML 1.1 resolution table the writer uses to choose quoting).

pub mod emit;
pub mod field_line;
pub mod keysort;
pub mod locate;
mod merge;
mod plain;
pub mod read;
mod reread;
pub mod resolve;
pub mod split;
mod style;

use serde_json::Value;

pub use emit::to_yaml;
pub use read::{parse_documents, parse_value};

/// clusterctl's `JoinYaml`: every document gets a leading and trailing newline if it
/// lacks one, documents are joined with `---`, then one leading and one trailing
/// newline of the whole are removed (R9.1).
pub fn join_documents<S: AsRef<str>>(docs: &[S]) -> String {
    // Built at its final size, without the leading newline that would be removed (a
    // provider's components are a megabyte: no regrowth, no copy at the end).
    let size = docs.iter().map(|d| d.as_ref().len() + 5).sum();
    let mut out = String::with_capacity(size);
    for (i, d) in docs.iter().enumerate() {
        let d = d.as_ref();
        if i > 0 {
            out.push_str("---");
            if !d.starts_with('\n') {
                out.push('\n');
            }
            out.push_str(d);
        } else {
            out.push_str(d.strip_prefix('\n').unwrap_or(d));
        }
        if !d.ends_with('\n') {
            out.push('\n');
        }
    }
    if out.ends_with('\n') {
        out.pop();
    }
    out
}

/// clusterctl's `FromUnstructured`: marshal every object and join them (R9.1).
/// Several objects are written on the thread pool (the order of the result is theirs).
pub fn from_objects(objs: &[Value]) -> String {
    use rayon::prelude::*;
    let docs: Vec<String> = if objs.len() >= 4 {
        objs.par_iter().map(to_yaml).collect()
    } else {
        objs.iter().map(to_yaml).collect()
    };
    join_documents(&docs)
}

/// [`join_documents`] over a stream, as `render --stdout` prints it: the same bytes
/// as joining every document at once and then ending a non-empty text with a newline
/// (one that already ends with one keeps it), written document by document. The
/// joined text's last newline is held back until [`StreamJoin::finish`].
#[derive(Debug, Default)]
pub struct StreamJoin {
    started: bool,
    /// A newline is held back (the last byte of everything pushed).
    held: bool,
    /// What was written so far is non-empty / ends with a newline.
    written: bool,
    ends_newline: bool,
}

impl StreamJoin {
    /// Append the bytes to write for the next document to `out`.
    pub fn push(&mut self, doc: &str, out: &mut String) {
        let mut piece = String::with_capacity(doc.len() + 5);
        if self.started {
            piece.push_str("---");
        }
        if !doc.starts_with('\n') {
            piece.push('\n');
        }
        piece.push_str(doc);
        if !doc.ends_with('\n') {
            piece.push('\n');
        }
        if !self.started {
            // The joined text's first byte, always a newline, is removed.
            piece.remove(0);
            self.started = true;
        }
        if self.held {
            out.push('\n');
            (self.written, self.ends_newline) = (true, true);
        }
        // Every piece ends with a newline: hold it back.
        self.held = piece.pop().is_some();
        if !piece.is_empty() {
            out.push_str(&piece);
            (self.written, self.ends_newline) = (true, piece.ends_with('\n'));
        }
    }

    /// Append the bytes that end the stream: the held newline is the joined text's
    /// last one, which is removed; a text not ending with a newline then gets one.
    pub fn finish(&self, out: &mut String) {
        if self.written && !self.ends_newline {
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn streamed(docs: &[&str]) -> String {
        let mut j = StreamJoin::default();
        let mut out = String::new();
        for d in docs {
            j.push(d, &mut out);
        }
        j.finish(&mut out);
        out
    }

    fn whole(docs: &[&str]) -> String {
        let mut s = join_documents(docs);
        if !s.is_empty() && !s.ends_with('\n') {
            s.push('\n');
        }
        s
    }

    #[test]
    fn streaming_joins_as_join_documents_then_one_final_newline() {
        let cases: &[&[&str]] = &[
            &[],
            &["a: 1\n"],
            &["a: 1\n", "b: 2\n"],
            &["a: |+\n  x\n\n"],
            &["a: 1\n", "b: |+\n  x\n\n"],
            &["a: |+\n  x\n\n", "b: 1\n"],
            &["\na: 1\n", "\nb: 2"],
            &["a: 1", "b: 2"],
            &["\n", "\n"],
            &["\n\n", "x"],
            &["x", "\n"],
        ];
        for docs in cases {
            assert_eq!(streamed(docs), whole(docs), "{docs:?}");
        }
    }

    /// The join as clusterctl's `JoinYaml` spells it: newlines added, then one leading
    /// and one trailing newline of the whole removed.
    fn join_reference(docs: &[String]) -> String {
        let mut out = String::new();
        for (i, d) in docs.iter().enumerate() {
            if i > 0 {
                out.push_str("---");
            }
            if !d.starts_with('\n') {
                out.push('\n');
            }
            out.push_str(d);
            if !d.ends_with('\n') {
                out.push('\n');
            }
        }
        let s = out.strip_prefix('\n').unwrap_or(&out);
        s.strip_suffix('\n').unwrap_or(s).to_string()
    }

    proptest::proptest! {
        #[test]
        fn join_is_the_reference(docs in proptest::collection::vec("[a\n]{0,4}", 0..5)) {
            proptest::prop_assert_eq!(join_documents(&docs), join_reference(&docs));
        }
    }

    #[test]
    fn join_puts_separators_between_documents_only() {
        assert_eq!(join_documents(&["a: 1\n", "b: 2\n"]), "a: 1\n---\nb: 2");
        assert_eq!(join_documents(&["a: 1\n"]), "a: 1");
        assert_eq!(join_documents::<&str>(&[]), "");
    }
}
