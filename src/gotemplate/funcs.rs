//! The function table (by name): text/template's builtins plus sprig's hermetic map
//! (sprig wins on a name clash, as `Funcs` does: sprig's `slice`). Each entry
//! carries its Go parameter types so the executor applies Go's argument rules.

use super::builtins;
use super::func::Func;
use super::sprig;

/// The function called `name` (sprig first, then the builtins).
pub fn lookup(name: &str) -> Option<Func> {
    sprig::lookup(name).or_else(|| builtins::lookup(name))
}

/// text/template's own function `name` (a template without sprig's map).
pub fn lookup_builtin(name: &str) -> Option<Func> {
    builtins::lookup(name)
}

/// Is `name` one of text/template's builtins (and not overridden by sprig)?
pub fn is_builtin(name: &str) -> bool {
    sprig::lookup(name).is_none() && builtins::lookup(name).is_some()
}

/// Does the function exist (parse-time check)?
pub fn exists(name: &str) -> bool {
    lookup(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sprig_overrides_builtin_slice() {
        assert!(!is_builtin("slice"));
        assert!(is_builtin("index"));
        assert!(exists("semverCompare"));
        assert!(!exists("toYaml"));
        assert!(!exists("now"));
        assert!(!exists("env"));
    }
}
