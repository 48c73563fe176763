//! `fetchConfig.oci` read offline from an OCI image layout directory
//! (`oci-layout`, `index.json`, `blobs/<alg>/<hex>`), as written by `oras copy
//! --to-oci-layout` or `oras push --oci-layout`. Files are found by their
//! `org.opencontainers.image.title` layer annotation (operator.md §4.5.2).

use crate::model::pointer::Pointer as _;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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

/// A file of the layout (`index.json`, a blob): a plain relative path joined to the
/// layout with no symbolic link below it ([`crate::paths::safe_join`]: a link could
/// lead outside the layout); `what` names the field the path came from.
fn layout_file(dir: &Path, rel: &str, what: &str, source: &str) -> Result<PathBuf> {
    let hint = || {
        format!(
            "an OCI layout holds its own files, never links: `oras copy {source} --to-oci-layout {}` writes a fresh one",
            dir.display()
        )
    };
    if !crate::paths::is_safe_relative(rel) {
        return Err(Error::new(format!(
            "OCI layout {}: {what}: {rel:?} is not a plain relative path inside the layout",
            dir.display()
        ))
        .in_file(dir.display())
        .with_hint(hint()));
    }
    crate::paths::safe_join(dir, rel, what).map_err(|_| {
        Error::new(format!(
            "OCI layout {}: {what}: {rel} is or lies below a symbolic link; capi-render reads only files inside the layout",
            dir.display()
        ))
        .in_file(dir.display())
        .with_hint(hint())
    })
}

fn read_json(dir: &Path, rel: &str, source: &str) -> Result<Value> {
    let path = layout_file(dir, rel, rel, source)?;
    let shown = path.display().to_string();
    let bytes = crate::limits::read_file(&path, &shown, |e| {
        Error::new(format!("cannot read {shown}: {e}"))
    })?;
    serde_json::from_slice(&bytes)
        .map_err(|e| Error::new(format!("{}: not valid JSON: {e}", path.display())))
}

/// A digest as the OCI image spec writes it (`algorithm:encoded`, algorithm
/// `[a-z0-9]+([+._-][a-z0-9]+)*`, encoded `[a-zA-Z0-9=_-]+`), of an algorithm we can
/// verify: `sha256` (64 lowercase hex digits) or `sha512` (128). Returns
/// `(algorithm, encoded)`, or why not.
pub fn parse_digest(digest: &str) -> std::result::Result<(&str, &str), String> {
    let (alg, enc) = digest
        .split_once(':')
        .ok_or("is not of the form <algorithm>:<encoded>")?;
    let comps_ok = !alg.is_empty()
        && alg.split(['+', '.', '_', '-']).all(|c| {
            !c.is_empty()
                && c.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
    if !comps_ok {
        return Err(format!("has an invalid algorithm {alg:?}"));
    }
    if enc.is_empty()
        || !enc
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'=' || b == b'_' || b == b'-')
    {
        return Err(format!("has an invalid encoded part {enc:?}"));
    }
    let hex_len = match alg {
        "sha256" => 64,
        "sha512" => 128,
        _ => {
            return Err(format!(
                "uses the algorithm {alg:?}; capi-render reads only blobs it can verify: sha256 and sha512"
            ))
        }
    };
    if enc.len() != hex_len || !enc.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(format!(
            "is not a {alg} digest: {hex_len} lowercase hexadecimal digits expected"
        ));
    }
    Ok((alg, enc))
}

/// The blob `digest` of the layout at `dir`, checked against its digest; `what` names
/// the field the digest came from (`index.json manifests[0].digest`), `source` the
/// artifact (`reference:tag`, for the hint).
fn read_blob(dir: &Path, digest: &str, what: &str, source: &str) -> Result<Vec<u8>> {
    let (alg, hex) = parse_digest(digest).map_err(|why| {
        Error::new(format!(
            "OCI layout {}: {what} {digest:?} {why}",
            dir.display()
        ))
        .in_file(dir.display())
        .with_hint(format!(
            "a layout's descriptors name their blobs by digest (sha256:<64 hex digits>); `oras copy {source} --to-oci-layout {}` writes a valid layout",
            dir.display()
        ))
    })?;
    let path = layout_file(dir, &format!("blobs/{alg}/{hex}"), what, source)?;
    let shown = path.display().to_string();
    let bytes = crate::limits::read_file(&path, &shown, |e| {
        Error::new(format!("cannot read blob {shown} ({what}): {e}"))
    })?;
    let sum = match alg {
        "sha256" => crate::model::sha256_hex(&bytes),
        _ => {
            use sha2::Digest as _;
            crate::model::hex(&sha2::Sha512::digest(&bytes))
        }
    };
    if sum != hex {
        return Err(Error::new(format!(
            "blob {} does not match its digest {digest} ({what})",
            path.display()
        ))
        .in_file(dir.display()));
    }
    Ok(bytes)
}

/// The files (title → bytes) of the artifact tagged `tag` (or `reference:tag`) in the
/// layout at `dir`. A layout with a single untagged manifest is used whatever the tag.
pub fn read_artifact(dir: &Path, reference: &str, tag: &str) -> Result<BTreeMap<String, Vec<u8>>> {
    let full = format!("{reference}:{tag}");
    let index = read_json(dir, "index.json", &full)?;
    let manifests = index
        .get("manifests")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
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
    let (mi, m) = match chosen.as_slice() {
        [m] => (
            manifests
                .iter()
                .position(|x| std::ptr::eq(x, *m))
                .unwrap_or(0),
            *m,
        ),
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
    let manifest_digest = m.get("digest").and_then(Value::as_str).unwrap_or("");
    let what = format!("index.json manifests[{mi}].digest");
    let manifest: Value =
        serde_json::from_slice(&read_blob(dir, manifest_digest, &what, &full)?)
            .map_err(|e| Error::new(format!("manifest {manifest_digest}: not valid JSON: {e}")))?;
    let mut files = BTreeMap::new();
    for (li, layer) in manifest
        .get("layers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let title = layer
            .ptr(&format!("/annotations/{}", TITLE.replace('/', "~1")))
            .and_then(Value::as_str);
        let Some(title) = title else { continue };
        let digest = layer.get("digest").and_then(Value::as_str).unwrap_or("");
        let what = format!("manifest {manifest_digest} layers[{li}].digest");
        files.insert(title.to_string(), read_blob(dir, digest, &what, &full)?);
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
    fn digests_follow_the_oci_grammar_and_name_verifiable_blobs() {
        let h = "0a".repeat(32);
        assert_eq!(
            parse_digest(&format!("sha256:{h}")),
            Ok(("sha256", h.as_str()))
        );
        assert!(parse_digest(&format!("sha512:{}", "f".repeat(128))).is_ok());
        for bad in [
            "../../../outside:0ddba11".to_string(),
            "/etc:0ddba11".to_string(),
            "sha256:../x".to_string(),
            format!("sha256:{}", "A".repeat(64)),
            "sha256:0ddba11".to_string(),
            format!("sha512:{h}"),
            format!("sha256+b64u:{h}"),
            format!("multihash:{h}"),
            format!("SHA256:{h}"),
            "sha256".to_string(),
            format!(":{h}"),
            "sha256:".to_string(),
            format!("sha256:{h}/x"),
        ] {
            assert!(parse_digest(&bad).is_err(), "{bad}");
        }
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
