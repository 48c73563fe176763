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

    /// The same error with its message and hint rewritten (e.g. redacted), file kept.
    pub fn map_message(self, f: impl Fn(&str) -> String) -> Self {
        Error {
            msg: f(&self.msg),
            hint: self.hint.as_deref().map(&f),
            source_file: self.source_file,
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

#[macro_export]
macro_rules! err {
    ($($arg:tt)*) => { $crate::error::Error::new(format!($($arg)*)) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_survive_wrapping() {
        let e = Error::new("x").with_hint("h").wrap("ctx");
        assert_eq!((e.message(), e.hint()), ("ctx: x", Some("h")));
    }
}
