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
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(msg: impl Into<String>) -> Self {
        Error {
            msg: msg.into(),
            source_file: None,
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

    /// Prefix the message with `ctx: `, as Go's `errors.Wrap` does.
    pub fn wrap(self, ctx: impl fmt::Display) -> Self {
        Error {
            msg: format!("{ctx}: {}", self.msg),
            source_file: self.source_file,
        }
    }

    /// The same error with its message rewritten (e.g. redacted), file kept.
    pub fn map_message(self, f: impl FnOnce(&str) -> String) -> Self {
        Error {
            msg: f(&self.msg),
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
