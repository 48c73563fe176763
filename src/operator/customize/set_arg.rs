//! R6.5: the operator's `setArgs`. The first arg starting with `<name>=` is replaced in
//! place by `<name>=<value>`; otherwise `<name>=<value>` is appended. Args written as
//! separate tokens (`--flag`, `value`) or bare flags never match, so a duplicate may be
//! appended; nothing is ever removed.

/// Set `name=value` in `args`.
pub fn set_arg(args: &mut Vec<String>, name: &str, value: &str) {
    let prefix = format!("{name}=");
    let new = format!("{name}={value}");
    match args.iter_mut().find(|a| a.starts_with(&prefix)) {
        Some(a) => *a = new,
        None => args.push(new),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn first_match_replaced_in_place() {
        let mut a = v(&["--a=1", "--b=2", "--b=3"]);
        set_arg(&mut a, "--b", "9");
        assert_eq!(a, v(&["--a=1", "--b=9", "--b=3"]));
    }

    #[test]
    fn separate_tokens_and_bare_flags_do_not_match() {
        let mut a = v(&["--b", "2", "--c"]);
        set_arg(&mut a, "--b", "9");
        set_arg(&mut a, "--c", "true");
        assert_eq!(a, v(&["--b", "2", "--c", "--b=9", "--c=true"]));
    }

    #[test]
    fn prefix_needs_the_equals_sign() {
        let mut a = v(&["--verbose=1"]);
        set_arg(&mut a, "--v", "2");
        assert_eq!(a, v(&["--verbose=1", "--v=2"]));
    }
}
