//! The operator's provider ConfigMap format as the bundle uses it (operator.md §4.2
//! write, §4.3 read). The operator branch owns the real implementation
//! (`operator::configmap`); until it is merged this file carries the same three
//! functions with the same signatures, and afterwards it only re-exports them.

use std::io::{Read, Write};

use serde_json::{json, Map, Value};

use crate::error::{Error, Result};
use crate::provider::ProviderType;
use crate::version::Version;

pub const LABEL_VERSION: &str = "provider.cluster.x-k8s.io/version";
pub const LABEL_TYPE: &str = "provider.cluster.x-k8s.io/type";
pub const LABEL_NAME: &str = "provider.cluster.x-k8s.io/name";
pub const LABEL_MANAGED_BY: &str = "managed-by.operator.cluster.x-k8s.io";
pub const ANNOTATION_COMPRESSED: &str = "provider.cluster.x-k8s.io/compressed";
/// R4.2.4: components are compressed when metadata + components exceed this many bytes.
pub const MAX_CONFIGMAP_SIZE: usize = 1048576;

/// `GetType()` of a provider type (operator.md R1.1.2).
pub fn operator_type(t: ProviderType) -> &'static str {
    match t {
        ProviderType::Core => "core",
        ProviderType::Bootstrap => "bootstrap",
        ProviderType::ControlPlane => "control-plane",
        ProviderType::Infrastructure => "infrastructure",
        ProviderType::Addon => "addon",
        ProviderType::Ipam => "ipam",
        ProviderType::RuntimeExtension => "runtimeextension",
    }
}

fn meta_str<'a>(o: &'a Value, path: &str) -> &'a str {
    o.pointer(path).and_then(Value::as_str).unwrap_or("")
}

fn ns_name(o: &Value) -> String {
    format!(
        "{}/{}",
        meta_str(o, "/metadata/namespace"),
        meta_str(o, "/metadata/name")
    )
}

/// R4.3.2: the version of a provider ConfigMap (label, else name), checked.
pub fn configmap_version(cm: &Value) -> Result<String> {
    let label = cm
        .pointer("/metadata/labels")
        .and_then(|l| l.get(LABEL_VERSION))
        .and_then(Value::as_str);
    let (v, from) = match label {
        Some(v) => (v.to_string(), "the Label provider.cluster.x-k8s.io/version"),
        None => (meta_str(cm, "/metadata/name").to_string(), "the Name"),
    };
    if Version::parse(&v).is_err() {
        return Err(Error::new(format!(
            "ConfigMap {} has invalid version:{v} (from {from})",
            ns_name(cm)
        )));
    }
    Ok(v)
}

fn data_str<'a>(cm: &'a Value, field: &str, key: &str) -> Option<&'a str> {
    cm.get(field)
        .and_then(|m| m.get(key))
        .and_then(Value::as_str)
}

/// R4.3.3, R4.3.4: `(metadata, components)` of a provider ConfigMap.
pub fn read_configmap(cm: &Value) -> Result<(String, String)> {
    let id = ns_name(cm);
    let metadata = data_str(cm, "data", "metadata")
        .ok_or_else(|| Error::new(format!("ConfigMap {id} has no metadata")))?
        .to_string();
    let compressed = cm
        .pointer("/metadata/annotations")
        .and_then(|m| m.get(ANNOTATION_COMPRESSED))
        .and_then(Value::as_str)
        == Some("true");
    let components = if compressed {
        let b64 = data_str(cm, "binaryData", "components")
            .ok_or_else(|| Error::new(format!("ConfigMap {id} BinaryData has no components")))?;
        let bytes = base64_decode(b64.as_bytes()).map_err(|off| {
            Error::new(format!(
                "ConfigMap {id}: binaryData.components: illegal base64 data at input byte {off}"
            ))
        })?;
        let mut s = String::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_string(&mut s)
            .map_err(|_| Error::new(format!("cannot decompress data from ConfigMap {id}")))?;
        s
    } else {
        data_str(cm, "data", "components")
            .ok_or_else(|| Error::new(format!("ConfigMap {id} Data has no components")))?
            .to_string()
    };
    Ok((metadata, components))
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (Go's `base64.StdEncoding`, as `binaryData` is written).
fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decode standard padded base64 (line breaks ignored); the error is the offset of
/// the first bad byte.
fn base64_decode(src: &[u8]) -> std::result::Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let (mut acc, mut bits, mut pad) = (0u32, 0u32, 0usize);
    for (i, &c) in src.iter().enumerate() {
        let v = match c {
            b'\r' | b'\n' => continue,
            b'=' => {
                pad += 1;
                continue;
            }
            _ if pad > 0 => return Err(i),
            _ => B64.iter().position(|&x| x == c).ok_or(i)? as u32,
        };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    let data = src.iter().filter(|c| !matches!(c, b'\r' | b'\n')).count();
    if data % 4 != 0 || pad > 2 {
        return Err(src.len());
    }
    Ok(out)
}

fn gzip(text: &str) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(text.as_bytes());
    enc.finish().unwrap_or_default()
}

/// R4.2 (without OCI provenance, which a bundle never has): name
/// `<type>-<name>-<version>`, the four labels, `data.metadata`, `data.components` or,
/// above 1 MiB, gzip `binaryData.components` with the compressed annotation.
pub fn provider_configmap(
    ptype: ProviderType,
    name: &str,
    namespace: &str,
    version: &str,
    metadata: &str,
    components: &str,
    oci: Option<&str>,
) -> Value {
    let otype = operator_type(ptype);
    let mut labels = Map::new();
    labels.insert(LABEL_VERSION.into(), json!(version));
    labels.insert(LABEL_TYPE.into(), json!(otype));
    labels.insert(LABEL_NAME.into(), json!(name));
    labels.insert(LABEL_MANAGED_BY.into(), json!("true"));
    let mut md = Map::new();
    md.insert("name".into(), json!(format!("{otype}-{name}-{version}")));
    md.insert("namespace".into(), json!(namespace));
    let mut cm = json!({"apiVersion": "v1", "kind": "ConfigMap"});
    let mut data = Map::new();
    data.insert("metadata".into(), json!(metadata));
    if metadata.len() + components.len() > MAX_CONFIGMAP_SIZE {
        md.insert("annotations".into(), json!({ ANNOTATION_COMPRESSED: "true" }));
        cm["binaryData"] = json!({"components": base64_encode(&gzip(components))});
    } else {
        if let Some(o) = oci {
            md.insert(
                "annotations".into(),
                json!({ "provider.cluster.x-k8s.io/source": o }),
            );
            labels.insert("provider.cluster.x-k8s.io/source".into(), json!("oci"));
        }
        data.insert("components".into(), json!(components));
    }
    md.insert("labels".into(), Value::Object(labels));
    cm["metadata"] = Value::Object(md);
    cm["data"] = Value::Object(data);
    cm
}
