//! JSON patch sequences built to grow (issue 55): `copy` and `move` of containers into
//! themselves and into deep paths, between `add`s of large values, `remove`, `replace`
//! and `test`, over one document. Every byte picks an operation, its paths (segments
//! from a small alphabet, so that paths meet) and its value. What must hold: nothing
//! panics or aborts, and a patch that applies leaves a document no larger than the
//! original plus `--max-patch-bytes` (set to 1 MiB here, so that the fuzzer reaches it
//! quickly) plus the keys its paths name.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

const LIMIT: u64 = 1 << 20;

const SEGMENTS: [&str; 12] = ["a", "b", "c", "0", "1", "-", "", "~1", "~0", "-1", "x", "a~1b"];

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
}

fn path(b: &mut Bytes) -> String {
    let n = b.next() % 6;
    let mut p = String::new();
    for _ in 0..n {
        p.push('/');
        p.push_str(SEGMENTS[usize::from(b.next()) % SEGMENTS.len()]);
    }
    p
}

fn value(b: &mut Bytes) -> Value {
    match b.next() % 7 {
        0 => Value::Null,
        1 => json!(u64::from(b.next())),
        2 => json!("x".repeat(usize::from(b.next()) * 64)),
        3 => json!({"a": {"b": [1, 2]}, "c": "d"}),
        4 => json!([[], {}, "x"]),
        5 => json!({}),
        _ => json!([]),
    }
}

fuzz_target!(|data: &[u8]| {
    capi_render::limits::install(capi_render::limits::Limits {
        patch_bytes: LIMIT,
        ..Default::default()
    });
    let mut b = Bytes(data);
    let doc = json!({"a": {"b": {"c": [1, {"x": "y"}]}, "0": []}, "b": [{"a": {}}], "c": "s"});
    let mut ops = Vec::new();
    let mut keys = 0;
    while !b.0.is_empty() && ops.len() < 256 {
        let kind = ["add", "copy", "move", "copy", "remove", "replace", "test", "copy"]
            [usize::from(b.next()) % 8];
        let mut op = json!({"op": kind, "path": path(&mut b)});
        keys += op["path"].as_str().map_or(0, str::len);
        match kind {
            "copy" | "move" => op["from"] = json!(path(&mut b)),
            "remove" => {}
            _ => op["value"] = value(&mut b),
        }
        ops.push(op);
    }
    let Some(decoded) = capi_render::go::jsonpatch::decode(&Value::Array(ops)) else {
        return;
    };
    let before = serde_json::to_string(&doc).map_or(0, |t| t.len());
    let mut d = doc.clone();
    if capi_render::go::jsonpatch::apply(&mut d, &decoded).is_ok() {
        let after = serde_json::to_string(&d).map_or(0, |t| t.len());
        assert!(
            // A new key's quotes, colon and comma: 4 bytes beyond its path's.
            after as u64 <= before as u64 + LIMIT + keys as u64 + 4 * decoded.len() as u64,
            "{after} bytes from {before}"
        );
    }
});
