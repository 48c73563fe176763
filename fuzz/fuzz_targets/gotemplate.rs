//! The Go text/template engine (sprig functions included): a template, a NUL byte,
//! then JSON data. Within the limits, never a panic and never unbounded work.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (tmpl, json) = text.split_once('\0').unwrap_or((text, "{}"));
    let data: serde_json::Value = serde_json::from_str(json).unwrap_or(serde_json::Value::Null);
    let _ = capi_render::gotemplate::execute(tmpl, &data);
});
