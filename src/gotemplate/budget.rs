//! The output budget of the template functions (`--max-template-bytes`): every
//! function that builds a string or a list sizes its result first, or checks it as it
//! grows, and refuses one over the limit before the memory is spent. The executor
//! checks what a function returns and what it prints too, but only once it is built.

use crate::limits::{over_limit, Limit, Limits};

/// The limit: `--max-template-bytes`.
pub fn limit() -> u64 {
    Limits::current().template_bytes
}

/// The error text of a result of `size` bytes over the limit.
pub fn too_large(size: u128) -> String {
    format!(
        "capi-render: {}",
        over_limit(
            Limit::TemplateBytes,
            limit(),
            Some(u64::try_from(size).unwrap_or(u64::MAX))
        )
    )
}

/// `Ok` when a result of `size` bytes fits in the limit.
pub fn fits(size: u128) -> Result<(), String> {
    if size > u128::from(limit()) {
        return Err(too_large(size));
    }
    Ok(())
}

/// The bytes a list of `n` elements takes (each element a [`Value`] in memory),
/// as the limit counts them.
///
/// [`Value`]: super::value::Value
pub fn list_bytes(n: usize) -> u128 {
    (n as u128) * (std::mem::size_of::<super::value::Value>() as u128)
}

/// `Ok` when a list of `n` elements fits in the limit.
pub fn fits_list(n: usize) -> Result<(), String> {
    fits(list_bytes(n))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_list_element_counts_24_bytes_as_the_readme_says() {
        assert_eq!(super::list_bytes(1), 24);
        assert!(super::fits_list(1000).is_ok());
        let e = super::fits_list(1 << 30).unwrap_err();
        assert!(e.contains("--max-template-bytes"), "{e}");
    }
}
