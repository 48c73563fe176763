//! apimachinery's `utilerrors.NewAggregate(errs).Error()`.

use std::collections::HashSet;

/// The text of an aggregate of `messages`: one message as it is, several in `[a, b]`,
/// each distinct message once, in first-seen order (apimachinery dedups by text).
pub fn aggregate<I>(messages: I) -> String
where
    I: IntoIterator,
    I::Item: Into<String>,
{
    let mut seen = HashSet::new();
    let mut unique: Vec<String> = Vec::new();
    for m in messages {
        let m = m.into();
        if seen.insert(m.clone()) {
            unique.push(m);
        }
    }
    if unique.len() == 1 {
        unique.pop().unwrap_or_default()
    } else {
        format!("[{}]", unique.join(", "))
    }
}

/// Go's `os` error text for a failed read of `path`.
pub fn go_os_error(op: &str, path: &std::path::Path, e: &std::io::Error) -> String {
    let reason = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        std::io::ErrorKind::IsADirectory => "is a directory".to_string(),
        _ => {
            let s = e.to_string();
            s.split(" (os error").next().unwrap_or(&s).to_lowercase()
        }
    };
    format!("{op} {}: {reason}", path.display())
}

#[cfg(test)]
mod tests {
    use super::aggregate;

    #[test]
    fn one_is_bare_several_are_bracketed_and_deduplicated() {
        assert_eq!(aggregate(["a"]), "a");
        assert_eq!(aggregate(["a", "a"]), "a");
        assert_eq!(aggregate(["b", "a", "b", "c"]), "[b, a, c]");
        assert_eq!(aggregate(Vec::<String>::new()), "[]");
    }
}
