//! The Go template engine with sprig, as ClusterClass patches run it, on generated
//! values: the input's first byte picks a pipeline of the functions that build large
//! results (indent, nindent, replace, regexReplaceAll, toJson, toPrettyJson, concat,
//! repeat, join, printf "%v", toString, eq, dict, list), the next bytes build the
//! data `.v` (nested lists and maps of strings, numbers and booleans, up to 2,000 levels
//! and 64 KiB), and the rest (after a NUL) is a template of the fuzzer's own. Every
//! result must be sized against the template output limit before it is built, and
//! printing or comparing a deep value must end in an error, never a stack overflow.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

const PIPELINES: &[&str] = &[
    "{{ indent 8 (toString .v) }}",
    "{{ nindent 100 (toPrettyJson .v) }}",
    "{{ replace \"a\" \"aaaaaaaa\" (toString .v) }}",
    "{{ regexReplaceAll \"\" (toString .v) \"$0$0$0$0\" }}",
    "{{ toJson .v }}",
    "{{ toPrettyJson .v }}",
    "{{ $l := list .v }}{{ range until 24 }}{{ $l = concat $l $l }}{{ end }}{{ len $l }}",
    "{{ repeat 1000 (toString .v) | len }}",
    "{{ join \",\" (list .v .v .v) }}",
    "{{ printf \"%v %v\" .v .v }}",
    "{{ eq .v .v }}",
    "{{ dict \"a\" .v \"b\" (list .v .v) | toJson }}",
    "{{ .v }}",
    "{{ range $k, $x := .v }}{{ $k }}={{ $x }}{{ end }}",
];

/// A value from the bytes at `*at`: lists and maps nest (up to `depth` levels), the
/// other bytes make strings, numbers and booleans.
fn build(b: &[u8], at: &mut usize, depth: usize, budget: &mut usize) -> Value {
    let Some(&c) = b.get(*at) else {
        return Value::Null;
    };
    *at += 1;
    if *budget == 0 {
        return Value::Null;
    }
    *budget -= 1;
    match c % 8 {
        0 if depth > 0 => {
            let n = b.get(*at).map_or(0, |n| usize::from(n % 4));
            *at += 1;
            Value::Array((0..n.max(1)).map(|_| build(b, at, depth - 1, budget)).collect())
        }
        1 if depth > 0 => {
            let n = b.get(*at).map_or(0, |n| usize::from(n % 4));
            *at += 1;
            let mut m = Map::new();
            for i in 0..n.max(1) {
                m.insert(format!("k{i}"), build(b, at, depth - 1, budget));
            }
            Value::Object(m)
        }
        2 => Value::Bool(c & 8 != 0),
        3 => Value::from(i64::from(c) * 1_000_003),
        4 => Value::from(f64::from(c) / 7.0),
        5 => {
            let n = b.get(*at).map_or(1, |n| usize::from(*n)) * 64;
            *at += 1;
            Value::from("a\n".repeat(n))
        }
        _ => Value::from(String::from_utf8_lossy(&b[*at - 1..(*at + 3).min(b.len())]).into_owned()),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (recipe, own) = match rest.iter().position(|b| *b == 0) {
        Some(i) => (&rest[..i], std::str::from_utf8(&rest[i + 1..]).ok()),
        None => (rest, None),
    };
    let mut at = 0;
    let mut budget = 64 * 1024;
    // A recipe that starts with many 0x00/0x08 bytes nests lists 2,000 deep.
    let v = build(recipe, &mut at, 2000, &mut budget);
    let data = serde_json::json!({ "v": v });
    let opts = capi_render::gotemplate::Options::default();
    let _ = capi_render::gotemplate::execute_with(PIPELINES[usize::from(pick) % PIPELINES.len()], &data, &opts);
    if let Some(t) = own {
        let _ = capi_render::gotemplate::execute_with(t, &data, &opts);
    }
});
