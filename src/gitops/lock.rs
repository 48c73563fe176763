//! `OUT/capi-render.lock`: what produced the tree (tool version, inputs with their
//! sha256, each provider's resolved version, contract and source) and the files
//! capi-render owns in OUT (path and sha256). Only files listed here are ever
//! replaced or removed by a later run.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::names::is_safe_relative;
use crate::error::{Error, Result};
use crate::load::sha256_hex;
use crate::render::{RenderSet, UnitKind};

pub const FILE: &str = "capi-render.lock";
/// Format version of the lock file.
pub const LOCK_VERSION: u64 = 1;

/// The tool line: `capi-render <version>`.
pub fn tool() -> String {
    format!("capi-render {}", env!("CARGO_PKG_VERSION"))
}

/// The lock's text for a set and the tree's files (the lock itself excluded).
pub fn lock_text(set: &RenderSet, files: &BTreeMap<String, String>) -> String {
    let inputs: Vec<Value> = set
        .inputs
        .iter()
        .map(|i| json!({"path": i.path, "sha256": i.sha256}))
        .collect();
    let providers: Vec<Value> = set
        .units
        .iter()
        .filter_map(|u| match &u.kind {
            UnitKind::Provider(p) => Some(json!({
                "namespace": u.namespace, "name": u.name, "type": p.provider_type,
                "kind": p.kind, "version": p.version, "contract": p.contract, "source": p.source,
            })),
            UnitKind::Cluster => None,
        })
        .collect();
    let outputs: Vec<Value> = files
        .iter()
        .map(|(p, c)| json!({"path": p, "sha256": sha256_hex(c.as_bytes())}))
        .collect();
    let v = json!({
        "lockVersion": LOCK_VERSION,
        "tool": tool(),
        "inputs": inputs,
        "providers": providers,
        "outputs": outputs,
    });
    format!(
        "# capi-render lock file: written by `capi-render render`, do not edit.\n# capi-render only ever replaces or removes the files listed under outputs.\n{}",
        crate::yaml::to_yaml(&v)
    )
}

/// The output paths a lock lists. `shown` names the file in errors. Every path must
/// be a safe relative path: a lock is never trusted to point outside OUT.
pub fn read_outputs(text: &str, shown: &str) -> Result<Vec<String>> {
    let bad = |what: &str| {
        Error::new(format!(
            "{shown}: {what}; fix or delete the lock (capi-render then only writes files that do not exist yet)"
        ))
        .in_file(shown)
    };
    let v = crate::yaml::parse_value(text).map_err(|e| bad(e.message()))?;
    match v.get("lockVersion").and_then(Value::as_u64).or_else(|| {
        v.get("lockVersion")
            .and_then(Value::as_f64)
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .map(|f| f as u64)
    }) {
        Some(LOCK_VERSION) => {}
        Some(n) => {
            return Err(bad(&format!(
                "lockVersion: {n} is not supported (this capi-render writes {LOCK_VERSION})"
            )))
        }
        None => return Err(bad("lockVersion: missing")),
    }
    let outs = match v.get("outputs") {
        Some(Value::Array(a)) => a,
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(_) => return Err(bad("outputs: not a list")),
    };
    let mut paths = Vec::new();
    for (i, o) in outs.iter().enumerate() {
        let p = o
            .get("path")
            .and_then(Value::as_str)
            .ok_or_else(|| bad(&format!("outputs[{i}].path: missing or not a string")))?;
        if !is_safe_relative(p) || p == FILE || p.split('/').next() == Some(super::writer::STAGING)
        {
            return Err(bad(&format!(
                "outputs[{i}].path: {p:?} is not a relative path inside OUT"
            )));
        }
        paths.push(p.to_string());
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{InputFile, ProviderInfo, RenderedUnit};

    #[test]
    fn round_trip_of_outputs_and_facts() {
        let set = RenderSet {
            inputs: vec![InputFile {
                path: "in/p.yaml".into(),
                sha256: "ab".repeat(32),
            }],
            units: vec![RenderedUnit {
                kind: UnitKind::Provider(ProviderInfo {
                    provider_type: "core".into(),
                    kind: "CoreProvider".into(),
                    version: "v1.10.10".into(),
                    contract: "v1beta1".into(),
                    source: "repository:cluster-api/v1.10.10".into(),
                }),
                namespace: "capi-system".into(),
                name: "cluster-api".into(),
                objects: vec![],
            }],
            warnings: vec![],
        };
        let mut files = BTreeMap::new();
        files.insert("b/x.yaml".to_string(), "x: 1\n".to_string());
        files.insert("a.yaml".to_string(), "".to_string());
        let t = lock_text(&set, &files);
        assert_eq!(read_outputs(&t, "l").unwrap(), vec!["a.yaml", "b/x.yaml"]);
        let v = crate::yaml::parse_value(&t).unwrap();
        assert_eq!(v["providers"][0]["contract"], "v1beta1");
        assert_eq!(v["providers"][0]["version"], "v1.10.10");
        assert_eq!(v["inputs"][0]["path"], "in/p.yaml");
        assert_eq!(v["outputs"][0]["sha256"], sha256_hex(b""));
        assert_eq!(v["tool"], tool());
    }

    #[test]
    fn hostile_or_broken_locks_are_refused() {
        for (text, what) in [
            (
                "lockVersion: 1\noutputs:\n- path: ../../etc/passwd\n",
                "outputs[0].path",
            ),
            (
                "lockVersion: 1\noutputs:\n- path: /etc/passwd\n",
                "outputs[0].path",
            ),
            (
                "lockVersion: 1\noutputs:\n- path: capi-render.lock\n",
                "outputs[0].path",
            ),
            ("lockVersion: 1\noutputs:\n- sha256: x\n", "outputs[0].path"),
            ("lockVersion: 2\n", "lockVersion"),
            ("outputs: []\n", "lockVersion"),
            ("lockVersion: [\n", "OUT/capi-render.lock"),
        ] {
            let e = read_outputs(text, "OUT/capi-render.lock").unwrap_err();
            assert!(e.message().contains(what), "{text}: {e}");
        }
    }
}
