//! `--output-format text|json`: the machine-readable results of `render` (`-o`,
//! `--check`), `diff`, `bundle verify`, `topology plan`, `upgrade plan` (also `yaml`)
//! and `lint` (also `sarif`). `-o` names an output location wherever it is shown.
//!
//! Every JSON result is one pretty-printed object on stdout, ending in a newline, that
//! starts with `apiVersion: capi-render.io/v1alpha1` and a `kind` naming its shape
//! (documented in the book, docs/src/reference/json.md). Fields are only ever added within one apiVersion; a
//! change of meaning gets a new apiVersion. Errors still go to stderr (stdout then
//! stays empty) and exit codes are the text form's.

use capi_render::gitops::check::FileChange;
use capi_render::Error;
use clap::ValueEnum;
use serde::Serialize;
use serde_json::Value;

/// The version of every JSON result shape.
pub const API_VERSION: &str = "capi-render.io/v1alpha1";

/// `--output-format`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Text for people (the default; unchanged by this flag).
    #[default]
    Text,
    /// One JSON object on stdout (`apiVersion: capi-render.io/v1alpha1`).
    Json,
}

#[derive(Serialize)]
struct Envelope<'a, T: Serialize> {
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    kind: &'a str,
    #[serde(flatten)]
    body: T,
}

/// The JSON text of a result: `{"apiVersion": ..., "kind": KIND, ...body}`, pretty,
/// with a final newline.
pub fn to_json<T: Serialize>(kind: &str, body: T) -> Result<String, Error> {
    let mut s = serde_json::to_string_pretty(&Envelope {
        api_version: API_VERSION,
        kind,
        body,
    })
    .map_err(|e| Error::new(format!("failed to encode the {kind} result as JSON: {e}")))?;
    s.push('\n');
    Ok(s)
}

/// Print a result as JSON on stdout.
pub fn print_json<T: Serialize>(kind: &str, body: T) -> Result<(), Error> {
    use std::io::Write;
    let text = to_json(kind, body)?;
    let mut so = std::io::stdout().lock();
    so.write_all(text.as_bytes())
        .and_then(|_| so.flush())
        .map_err(|e| Error::new(format!("failed to write to stdout: {e}")))
}

/// A file (or object) path and what happens to it: `{"path": ..., "status": ...}`.
pub fn file_changes(files: &[FileChange]) -> Vec<Value> {
    files
        .iter()
        .map(|f| serde_json::json!({"path": f.path, "status": f.change.as_str()}))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_comes_first_and_body_is_flattened() {
        #[derive(Serialize)]
        struct B {
            z: u32,
            a: &'static str,
        }
        let s = to_json("Thing", B { z: 1, a: "x" }).unwrap();
        assert_eq!(
            s,
            "{\n  \"apiVersion\": \"capi-render.io/v1alpha1\",\n  \"kind\": \"Thing\",\n  \"z\": 1,\n  \"a\": \"x\"\n}\n"
        );
    }
}
