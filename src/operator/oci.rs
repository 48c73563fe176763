//! `fetchConfig.oci` read offline from an OCI image layout directory
//! (`oci-layout`, `index.json`, `blobs/<alg>/<hex>`), as written by `oras copy
//! --to-oci-layout` or `oras push --oci-layout`. Files are found by their
//! `org.opencontainers.image.title` layer annotation (operator.md §4.5.2).

use crate::model::pointer::Pointer as _;
use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};

const TITLE: &str = "org.opencontainers.image.title";
const REF_NAME: &str = "org.opencontainers.image.ref.name";

/// R4.5.1 `parseOCISource`: `(reference, tag, plain_http)`; the tag is `version`
/// when the string carries none.
pub fn parse_oci_source(s: &str, version: &str) -> (String, String, bool) {
    let (rest, plain) = match s.strip_prefix("http://") {
        Some(r) => (r, true),
        None => (s, false),
    };
    let parts: Vec<&str> = rest.splitn(3, ':').collect();
    match parts.as_slice() {
        [r, t] if !t.contains('/') => (r.to_string(), t.to_string(), plain),
        [h, p, t] => (format!("{h}:{p}"), t.to_string(), plain),
        _ => (rest.to_string(), version.to_string(), plain),
    }
}

fn read_json(path: &Path) -> Result<Value> {
    let shown = path.display().to_string();
    let bytes = crate::limits::read_file(path, &shown, |e| {
        Error::new(format!("cannot read {shown}: {e}"))
    })?;
    serde_json::from_slice(&bytes)
        .map_err(|e| Error::new(format!("{}: not valid JSON: {e}", path.display())))
}

fn read_blob(dir: &Path, digest: &str) -> Result<Vec<u8>> {
    let (alg, hex) = digest
        .split_once(':')
        .filter(|(a, h)| !a.is_empty() && !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| Error::new(format!("invalid digest {digest:?}")))?;
    let path = dir.join("blobs").join(alg).join(hex);
    let shown = path.display().to_string();
    let bytes = crate::limits::read_file(&path, &shown, |e| {
        Error::new(format!("cannot read blob {shown}: {e}"))
    })?;
    if alg == "sha256" && crate::model::sha256_hex(&bytes) != hex.to_ascii_lowercase() {
        return Err(Error::new(format!(
            "blob {} does not match its digest {digest}",
            path.display()
        )));
    }
    Ok(bytes)
}

/// The files (title → bytes) of the artifact tagged `tag` (or `reference:tag`) in the
/// layout at `dir`. A layout with a single untagged manifest is used whatever the tag.
pub fn read_artifact(dir: &Path, reference: &str, tag: &str) -> Result<BTreeMap<String, Vec<u8>>> {
    let index = read_json(&dir.join("index.json"))?;
    let manifests = index
        .get("manifests")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let full = format!("{reference}:{tag}");
    let ref_of = |m: &Value| {
        m.ptr(&format!("/annotations/{}", REF_NAME.replace('/', "~1")))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut chosen: Vec<&Value> = manifests
        .iter()
        .filter(|m| ref_of(m).is_some_and(|r| r == tag || r == full))
        .collect();
    if chosen.is_empty() && manifests.len() == 1 && ref_of(&manifests[0]).is_none() {
        chosen.push(&manifests[0]);
    }
    let m = match chosen.as_slice() {
        [m] => *m,
        [] => {
            let have: Vec<String> = manifests.iter().filter_map(ref_of).collect();
            return Err(Error::new(format!(
                "OCI layout {} has no manifest tagged {tag:?} (for {full}); tags present: [{}]",
                dir.display(),
                have.join(", ")
            )));
        }
        _ => {
            return Err(Error::new(format!(
                "OCI layout {} has more than one manifest tagged {tag:?}",
                dir.display()
            )))
        }
    };
    let digest = m.get("digest").and_then(Value::as_str).unwrap_or("");
    let manifest: Value = serde_json::from_slice(&read_blob(dir, digest)?)
        .map_err(|e| Error::new(format!("manifest {digest}: not valid JSON: {e}")))?;
    let mut files = BTreeMap::new();
    for layer in manifest
        .get("layers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let title = layer
            .ptr(&format!("/annotations/{}", TITLE.replace('/', "~1")))
            .and_then(Value::as_str);
        let Some(title) = title else { continue };
        let digest = layer.get("digest").and_then(Value::as_str).unwrap_or("");
        files.insert(title.to_string(), read_blob(dir, digest)?);
    }
    Ok(files)
}

/// R4.5.2: pick `(metadata, components)` among the artifact's files.
pub fn pick_files(
    files: &BTreeMap<String, Vec<u8>>,
    operator_type: &str,
    name: &str,
    version: &str,
) -> Result<(String, String)> {
    let full_meta = format!("{operator_type}-{name}-{version}-metadata.yaml");
    let full_comp = format!("{operator_type}-{name}-{version}-components.yaml");
    let typed = format!("{operator_type}-components.yaml");
    let first = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| files.get(*n).filter(|b| !b.is_empty()))
            .map(|b| String::from_utf8_lossy(b).into_owned())
    };
    let metadata = first(&[&full_meta, "metadata.yaml"]).ok_or_else(|| {
        Error::new(format!(
            "collected artifact needs to provide metadata as {full_meta} or metadata.yaml file"
        ))
    })?;
    let components = first(&[&full_comp, &typed, "components.yaml"]).ok_or_else(|| {
        Error::new(format!(
            "collected artifact needs to provide components as {full_comp} or {typed} or components.yaml file"
        ))
    })?;
    Ok((metadata, components))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_source_forms() {
        assert_eq!(
            parse_oci_source("ghcr.io/o/p:v1.0.0", "v9.9.9"),
            ("ghcr.io/o/p".into(), "v1.0.0".into(), false)
        );
        assert_eq!(
            parse_oci_source("http://localhost:5000/o/p:v1", ""),
            ("localhost:5000/o/p".into(), "v1".into(), true)
        );
        assert_eq!(
            parse_oci_source("localhost:5000/o/p", "v2"),
            ("localhost:5000/o/p".into(), "v2".into(), false)
        );
        assert_eq!(
            parse_oci_source("ghcr.io/o/p", "v2"),
            ("ghcr.io/o/p".into(), "v2".into(), false)
        );
    }

    #[test]
    fn file_lookup_order_and_errors() {
        let mut f = BTreeMap::new();
        f.insert("metadata.yaml".to_string(), b"m".to_vec());
        f.insert("components.yaml".to_string(), b"generic".to_vec());
        f.insert(
            "infrastructure-components.yaml".to_string(),
            b"typed".to_vec(),
        );
        assert_eq!(
            pick_files(&f, "infrastructure", "docker", "v1").unwrap(),
            ("m".into(), "typed".into())
        );
        f.insert(
            "infrastructure-docker-v1-components.yaml".to_string(),
            b"full".to_vec(),
        );
        assert_eq!(
            pick_files(&f, "infrastructure", "docker", "v1").unwrap().1,
            "full"
        );
        f.remove("metadata.yaml");
        assert_eq!(
            pick_files(&f, "infrastructure", "docker", "v1").unwrap_err().message(),
            "collected artifact needs to provide metadata as infrastructure-docker-v1-metadata.yaml or metadata.yaml file"
        );
        let mut g = BTreeMap::new();
        g.insert("metadata.yaml".to_string(), b"m".to_vec());
        assert_eq!(
            pick_files(&g, "core", "cluster-api", "v1").unwrap_err().message(),
            "collected artifact needs to provide components as core-cluster-api-v1-components.yaml or core-components.yaml or components.yaml file"
        );
    }
}
