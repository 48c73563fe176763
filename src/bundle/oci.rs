//! OCI image layouts (image-spec v1.1 "image-layout") holding one provider version as
//! an artifact that `fetchConfig.oci` reads (operator.md §4.5): one manifest tagged
//! with the version (`org.opencontainers.image.ref.name`), an empty config, and one
//! layer per file named by its `org.opencontainers.image.title` annotation
//! (`<type>-<name>-<version>-metadata.yaml`, `<type>-<name>-<version>-components.yaml`).
//! No timestamps: the same files always give the same digests.

use crate::model::pointer::Pointer as _;
use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::model::sha256_hex;

pub const MEDIA_INDEX: &str = "application/vnd.oci.image.index.v1+json";
pub const MEDIA_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const MEDIA_EMPTY: &str = "application/vnd.oci.empty.v1+json";
/// What `oras push` gives a file layer without an explicit type; the operator looks
/// at titles only.
pub const MEDIA_LAYER: &str = "application/vnd.oci.image.layer.v1.tar";
/// `oras push`'s artifact type when none is given and the config is empty.
pub const ARTIFACT_TYPE: &str = "application/vnd.unknown.artifact.v1";
pub const ANNOTATION_TITLE: &str = "org.opencontainers.image.title";
pub const ANNOTATION_REF: &str = "org.opencontainers.image.ref.name";

/// `<type>-<name>-<version>-metadata.yaml` and `...-components.yaml` (R4.5.2).
pub fn file_titles(operator_type: &str, name: &str, version: &str) -> (String, String) {
    (
        format!("{operator_type}-{name}-{version}-metadata.yaml"),
        format!("{operator_type}-{name}-{version}-components.yaml"),
    )
}

fn descriptor(media: &str, bytes: &[u8]) -> Value {
    json!({
        "mediaType": media,
        "digest": format!("sha256:{}", sha256_hex(bytes)),
        "size": bytes.len(),
    })
}

fn blob_path(bytes: &[u8]) -> String {
    format!("blobs/sha256/{}", sha256_hex(bytes))
}

/// The files of a layout (layout-relative path → bytes) holding `files`
/// (title → bytes, in layer order) under tag `tag`.
pub fn write_layout(tag: &str, files: &[(String, Vec<u8>)]) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let config = b"{}".to_vec();
    let layers: Vec<Value> = files
        .iter()
        .map(|(title, bytes)| {
            let mut d = descriptor(MEDIA_LAYER, bytes);
            d["annotations"] = json!({ ANNOTATION_TITLE: title });
            d
        })
        .collect();
    let manifest = json!({
        "schemaVersion": 2,
        "mediaType": MEDIA_MANIFEST,
        "artifactType": ARTIFACT_TYPE,
        "config": descriptor(MEDIA_EMPTY, &config),
        "layers": layers,
    });
    let manifest = serde_json::to_vec(&manifest).unwrap_or_default();
    let mut mdesc = descriptor(MEDIA_MANIFEST, &manifest);
    mdesc["annotations"] = json!({ ANNOTATION_REF: tag });
    let index = json!({
        "schemaVersion": 2,
        "mediaType": MEDIA_INDEX,
        "manifests": [mdesc],
    });
    out.insert(
        "oci-layout".to_string(),
        br#"{"imageLayoutVersion":"1.0.0"}"#.to_vec(),
    );
    out.insert(
        "index.json".to_string(),
        serde_json::to_vec(&index).unwrap_or_default(),
    );
    for (_, bytes) in files {
        out.insert(blob_path(bytes), bytes.clone());
    }
    out.insert(blob_path(&config), config);
    out.insert(blob_path(&manifest), manifest);
    out
}

fn blob<'a>(layout: &'a BTreeMap<String, Vec<u8>>, desc: &Value, what: &str) -> Result<&'a [u8]> {
    let digest = desc
        .get("digest")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::new(format!("{what}: descriptor has no digest")))?;
    let hex = digest
        .strip_prefix("sha256:")
        .ok_or_else(|| Error::new(format!("{what}: unsupported digest {digest:?}")))?;
    let bytes = layout
        .get(&format!("blobs/sha256/{hex}"))
        .ok_or_else(|| Error::new(format!("{what}: blob {digest} is missing")))?;
    if sha256_hex(bytes) != hex {
        return Err(Error::new(format!(
            "{what}: blob {digest} does not match its digest"
        )));
    }
    if desc.get("size").and_then(Value::as_u64) != Some(bytes.len() as u64) {
        return Err(Error::new(format!(
            "{what}: blob {digest} has the wrong size"
        )));
    }
    Ok(bytes)
}

/// Read back the files (title → bytes) of the manifest tagged `tag`, checking every
/// digest and size on the way, as a registry client copying the layout would.
pub fn read_layout(
    layout: &BTreeMap<String, Vec<u8>>,
    tag: &str,
) -> Result<BTreeMap<String, Vec<u8>>> {
    let parse = |bytes: &[u8], what: &str| -> Result<Value> {
        serde_json::from_slice(bytes).map_err(|e| Error::new(format!("{what}: {e}")))
    };
    let marker = layout
        .get("oci-layout")
        .ok_or_else(|| Error::new("oci-layout is missing"))?;
    if parse(marker, "oci-layout")?["imageLayoutVersion"] != "1.0.0" {
        return Err(Error::new("oci-layout: imageLayoutVersion is not 1.0.0"));
    }
    let index = parse(
        layout
            .get("index.json")
            .ok_or_else(|| Error::new("index.json is missing"))?,
        "index.json",
    )?;
    let mdesc = index["manifests"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|d| d.ptr("/annotations/org.opencontainers.image.ref.name") == Some(&json!(tag)))
        .ok_or_else(|| Error::new(format!("index.json: no manifest tagged {tag:?}")))?;
    let manifest = parse(blob(layout, mdesc, "manifest")?, "manifest")?;
    let mut out = BTreeMap::new();
    for (i, l) in manifest["layers"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let title = l
            .ptr("/annotations/org.opencontainers.image.title")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::new(format!("manifest layer {i}: no title annotation")))?;
        out.insert(
            title.to_string(),
            blob(layout, l, &format!("layer {title}"))?.to_vec(),
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> BTreeMap<String, Vec<u8>> {
        let (m, c) = file_titles("infrastructure", "docker", "v1.10.10");
        write_layout(
            "v1.10.10",
            &[(m, b"meta\n".to_vec()), (c, b"comp\n".to_vec())],
        )
    }

    #[test]
    fn layout_has_the_spec_files_and_round_trips() {
        let l = sample();
        assert_eq!(l["oci-layout"], br#"{"imageLayoutVersion":"1.0.0"}"#);
        // The empty config blob is the well-known `{}` digest.
        assert!(l.contains_key(
            "blobs/sha256/44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        ));
        assert_eq!(l.keys().filter(|k| k.starts_with("blobs/")).count(), 4);
        let files = read_layout(&l, "v1.10.10").unwrap();
        assert_eq!(
            files["infrastructure-docker-v1.10.10-components.yaml"],
            b"comp\n"
        );
        assert_eq!(
            files["infrastructure-docker-v1.10.10-metadata.yaml"],
            b"meta\n"
        );
        assert_eq!(sample(), l, "deterministic");
    }

    #[test]
    fn damaged_layouts_are_detected() {
        let l = sample();
        assert!(read_layout(&l, "v9")
            .unwrap_err()
            .message()
            .contains("no manifest tagged"));
        let mut bad = l.clone();
        let layer = format!("blobs/sha256/{}", sha256_hex(b"comp\n"));
        bad.insert(layer.clone(), b"comP\n".to_vec());
        assert!(read_layout(&bad, "v1.10.10")
            .unwrap_err()
            .message()
            .contains("does not match"));
        bad.remove(&layer);
        assert!(read_layout(&bad, "v1.10.10")
            .unwrap_err()
            .message()
            .contains("is missing"));
    }
}
