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
