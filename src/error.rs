//! One error type for the whole library.
//!
//! Messages follow clusterctl's wrapping convention (`context: inner`), so that a
//! message can be compared with the one clusterctl prints for the same condition.

use std::fmt;

/// What happened, for the callers that act on it (never by reading the message text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Anything no caller branches on.
    #[default]
    Other,
    /// A Cluster's ClusterClass, or a class (MachineDeployment, MachinePool) it names
    /// inside that ClusterClass, does not exist.
    ClassNotFound,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    msg: String,
    kind: ErrorKind,
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
            kind: ErrorKind::Other,
            source_file: None,
            hint: None,
        }
    }

    /// The same error, of kind `kind`.
    pub fn of_kind(mut self, kind: ErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// What happened (kept through [`Error::wrap`]).
    pub fn kind(&self) -> ErrorKind {
        self.kind
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
            ..self
        }
    }

    /// The same error with its message and hint rewritten (e.g. redacted), file kept.
    pub fn map_message(self, f: impl Fn(&str) -> String) -> Self {
        Error {
            msg: f(&self.msg),
            hint: self.hint.as_deref().map(&f),
            ..self
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_survive_wrapping() {
        let e = Error::new("x").with_hint("h").wrap("ctx");
        assert_eq!((e.message(), e.hint()), ("ctx: x", Some("h")));
    }

    #[test]
    fn kinds_survive_wrapping_and_redaction() {
        let e = Error::new("x")
            .of_kind(ErrorKind::ClassNotFound)
            .wrap("ctx");
        assert_eq!(e.kind(), ErrorKind::ClassNotFound);
        assert_eq!(
            e.map_message(|m| m.to_uppercase()).kind(),
            ErrorKind::ClassNotFound
        );
        assert_eq!(Error::new("x").kind(), ErrorKind::Other);
    }
}
