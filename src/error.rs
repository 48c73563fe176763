//! One error type for the whole library.
//!
//! Messages follow clusterctl's wrapping convention (`context: inner`), so that a
//! message can be compared with the one clusterctl prints for the same condition.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    msg: String,
    /// The input the error is about (a file path), when the message itself does
    /// not name it. Kept apart so the message stays clusterctl's exact text.
    source_file: Option<String>,
    /// What to do next (a "did you mean", the choices there are), printed after the
    /// message so the message itself stays clusterctl's exact text.
    hint: Option<String>,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(msg: impl Into<String>) -> Self {
        Error {
            msg: msg.into(),
            source_file: None,
            hint: None,
        }
    }

    /// Record the input file the error is about (the first one recorded wins).
    pub fn in_file(mut self, path: impl fmt::Display) -> Self {
        if self.source_file.is_none() {
            self.source_file = Some(path.to_string());
        }
        self
    }

    /// The input file the error is about, if known.
    pub fn source_file(&self) -> Option<&str> {
        self.source_file.as_deref()
    }

    /// Attach a hint (the first one attached wins: it is the most specific).
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        if self.hint.is_none() {
            self.hint = Some(hint.into());
        }
        self
    }

    /// The hint attached to the error, if any.
    pub fn hint(&self) -> Option<&str> {
        self.hint.as_deref()
    }

    /// Prefix the message with `ctx: `, as Go's `errors.Wrap` does.
    pub fn wrap(self, ctx: impl fmt::Display) -> Self {
        Error {
            msg: format!("{ctx}: {}", self.msg),
            source_file: self.source_file,
            hint: self.hint,
        }
    }

    pub fn message(&self) -> &str {
        &self.msg
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for Error {}

/// Extension to wrap a `Result`'s error with context.
pub trait Context<T> {
    fn context(self, ctx: impl fmt::Display) -> Result<T>;
    fn with_context<C: fmt::Display, F: FnOnce() -> C>(self, f: F) -> Result<T>;
}

impl<T> Context<T> for Result<T> {
    fn context(self, ctx: impl fmt::Display) -> Result<T> {
        self.map_err(|e| e.wrap(ctx))
    }
    fn with_context<C: fmt::Display, F: FnOnce() -> C>(self, f: F) -> Result<T> {
        self.map_err(|e| e.wrap(f()))
    }
}

/// Edit distance between two strings (by character): insertions, deletions,
/// substitutions and transpositions of neighbours (`synht` → `synth` is 1).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            d[i * w + j] = if i == 0 {
                j
            } else if j == 0 {
                i
            } else {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut v = (d[(i - 1) * w + j] + 1)
                    .min(d[i * w + j - 1] + 1)
                    .min(d[(i - 1) * w + j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    v = v.min(d[(i - 2) * w + j - 2] + 1);
                }
                v
            };
        }
    }
    d[a.len() * w + b.len()]
}

/// The candidate closest to `wanted` when it is close enough to be a likely typo
/// (at most a third of the longer name, and at least one edit allowed).
pub fn closest<'a, I: IntoIterator<Item = &'a str>>(
    wanted: &str,
    candidates: I,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .filter(|c| *c != wanted)
        .map(|c| (edit_distance(wanted, c), c))
        .filter(|(d, c)| *d <= (wanted.chars().count().max(c.chars().count()) / 3).max(1))
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// "did you mean X? NOUN there: a, b, c" (or "no NOUN there"), for a name not found.
pub fn did_you_mean(wanted: &str, noun: &str, candidates: &[String]) -> String {
    let mut s = String::new();
    if let Some(c) = closest(wanted, candidates.iter().map(String::as_str)) {
        s.push_str(&format!("did you mean {c:?}? "));
    }
    if candidates.is_empty() {
        s.push_str(&format!("there are no {noun} there"));
    } else {
        s.push_str(&format!("{noun} there: {}", candidates.join(", ")));
    }
    s
}

#[macro_export]
macro_rules! err {
    ($($arg:tt)*) => { $crate::error::Error::new(format!($($arg)*)) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_and_suggestions() {
        assert_eq!(edit_distance("dockr", "docker"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("synht", "synth"), 1);
        assert_eq!(closest("dockr", ["aws", "docker", "azure"]), Some("docker"));
        assert_eq!(closest("v1.2.4", ["v1.2.3", "v0.1.0"]), Some("v1.2.3"));
        assert_eq!(closest("zzzzzz", ["docker"]), None);
        let h = did_you_mean(
            "dockr",
            "infrastructure providers",
            &["aws".into(), "docker".into()],
        );
        assert_eq!(
            h,
            "did you mean \"docker\"? infrastructure providers there: aws, docker"
        );
        let e = Error::new("x").with_hint("h").wrap("ctx");
        assert_eq!((e.message(), e.hint()), ("ctx: x", Some("h")));
    }
}
