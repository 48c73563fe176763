//! envsubst as `render` runs it on components (`envsubst::processor`) with large
//! variable values: the input is a template, a NUL, then a recipe for the values of
//! `X`, `Y` and `Z` (each: a length byte pair and a pattern, repeated up to 1 MiB).
//! Replacements, defaults and case changes of such values must stay within the output
//! limit as they grow: an error, never an abort.
#![no_main]
use libfuzzer_sys::fuzz_target;

fn value(recipe: &[u8]) -> String {
    let (n, pat) = match recipe {
        [a, b, rest @ ..] if !rest.is_empty() => ((usize::from(*a) << 8 | usize::from(*b)) * 16, rest),
        _ => (0, &b"a"[..]),
    };
    let pat = String::from_utf8_lossy(pat);
    let mut s = String::new();
    while s.len() < n.min(1 << 20) {
        s.push_str(&pat);
    }
    s
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(2, |b| *b == 0);
    let Ok(text) = std::str::from_utf8(parts.next().unwrap_or_default()) else {
        return;
    };
    let recipes: Vec<&[u8]> = parts.next().unwrap_or_default().splitn(3, |b| *b == b'|').collect();
    let values: Vec<String> = (0..3).map(|i| value(recipes.get(i).copied().unwrap_or_default())).collect();
    let lookup = |k: &str| match k {
        "X" => Some(values[0].clone()),
        "Y" => Some(values[1].clone()),
        "Z" => Some(values[2].clone()),
        _ => None,
    };
    if let Ok(p) = capi_render::envsubst::processor::Prepared::new(text) {
        let _ = p.process_bytes(&lookup);
    }
});
