//! The operator's provider ConfigMap format as the bundle uses it (operator.md §4.2
//! write, §4.3 read). The operator branch owns the real implementation
//! (`operator::configmap`); until it is merged this file carries the same three
//! functions with the same signatures, and afterwards it only re-exports them.

use std::io::{Read, Write};

use serde_json::{json, Map, Value};

use crate::error::{Error, Result};
use crate::provider::ProviderType;
use crate::typed::gojson::{base64_decode, base64_encode};
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
