//! Templates are user input: random token soups must give Ok or Err, never a
//! panic, a hang or a stack overflow.

use serde_json::json;

/// Fragments that combine into valid and invalid templates.
const PIECES: &[&str] = &[
    "{{",
    "}}",
    "{{-",
    " -}}",
    " ",
    "\n",
    ".",
    ".a",
    ".b.c",
    "$",
    "$x",
    ":=",
    "=",
    "|",
    "(",
    ")",
    "if",
    "else",
    "end",
    "range",
    "with",
    "define",
    "template",
    "block",
    "break",
    "continue",
    "\"s\"",
    "`r`",
    "'c'",
    "1",
    "-2.5",
    "0x1F",
    "1e3",
    "nil",
    "true",
    "index",
    "len",
    "printf",
    "\"%v %d %q\"",
    "eq",
    "lt",
    "and",
    "or",
    "not",
    "default",
    "semver",
    "semverCompare",
    "\"< 1.2\"",
    "regexReplaceAll",
    "\"(a\"",
    "toJson",
    "list",
    "dict",
    "until",
    "1000000",
    "substr",
    "trunc",
    "first",
    "slice",
    "/*",
    "*/",
    "é",
    "☃",
    ",",
    "#",
    "\\",
];

#[test]
fn random_templates_never_panic() {
    let data = json!({"a": [1, "x", null, {"k": 2.5}], "b": {"c": "v1.2.3"}, "n": null});
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..20_000 {
        let n = (next() % 24) as usize;
        let t: String = (0..n)
            .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
            .collect();
        let _ = capi_render::gotemplate::execute(&t, &data);
    }
}

#[test]
fn pathological_inputs_are_errors() {
    let d = json!({});
    let run = |t: &str| capi_render::gotemplate::execute(t, &d);
    assert!(run(&"{{ if 1 }}".repeat(10_000)).is_err());
    assert!(run(&format!(
        "{{{{ {}1{} }}}}",
        "(".repeat(10_000),
        ")".repeat(10_000)
    ))
    .is_err());
    assert!(run("{{ define \"a\" }}{{ template \"a\" }}{{ end }}{{ template \"a\" }}").is_err());
    assert!(run("{{ range until 1000000 }}{{ range until 1000000 }}x{{ end }}{{ end }}").is_err());
    assert!(run("{{ repeat 1000000000 \"abc\" }}").is_err());
}
