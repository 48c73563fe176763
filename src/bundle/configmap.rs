//! Provider ConfigMaps in cluster-api-operator's format (operator.md §4.2 write,
//! §4.3 read): the bundle's own writer and reader until the operator branch's
//! `operator::configmap` lands, then this file delegates to it.
//!
//! Name `<type>-<name>-<version>`, the four `ProviderLabels`, `data.metadata` and
//! `data.components` holding the raw files; above 1 MiB (metadata + components,
//! strictly greater) the components move to `binaryData.components` as gzip and the
//! annotation `provider.cluster.x-k8s.io/compressed: "true"` is set.

use std::io::{Read, Write};

use base64::Engine as _;
use serde_json::{json, Map, Value};

use crate::error::{Error, Result};

pub const LABEL_VERSION: &str = "provider.cluster.x-k8s.io/version";
pub const LABEL_TYPE: &str = "provider.cluster.x-k8s.io/type";
pub const LABEL_NAME: &str = "provider.cluster.x-k8s.io/name";
pub const LABEL_MANAGED: &str = "managed-by.operator.cluster.x-k8s.io";
pub const ANNOTATION_COMPRESSED: &str = "provider.cluster.x-k8s.io/compressed";
/// R4.2.4: the operator compresses when metadata + components exceed this many bytes.
pub const MAX_UNCOMPRESSED: usize = 1_048_576;

/// One provider version as the operator stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderFiles {
    /// `GetType()`: core, bootstrap, control-plane, infrastructure, addon, ipam, runtimeextension.
    pub operator_type: String,
    pub name: String,
    pub namespace: String,
    pub version: String,
    pub metadata: String,
    pub components: String,
}

/// R4.2.1 `<type>-<name>-<version>`.
pub fn configmap_name(operator_type: &str, name: &str, version: &str) -> String {
    format!("{operator_type}-{name}-{version}")
}

/// R4.2.2 `ProviderLabels` (without the OCI source label).
pub fn provider_labels(operator_type: &str, name: &str, version: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(LABEL_VERSION.into(), json!(version));
    m.insert(LABEL_TYPE.into(), json!(operator_type));
    m.insert(LABEL_NAME.into(), json!(name));
    m.insert(LABEL_MANAGED.into(), json!("true"));
    m
}

/// gzip (RFC 1952, one member, default level, no timestamp) of `bytes`.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(bytes);
    enc.finish().unwrap_or_default()
}

/// Decompress a gzip stream.
pub fn gunzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes).read_to_end(&mut out)?;
    Ok(out)
}

/// The ConfigMap object for `f` (R4.2).
pub fn to_configmap(f: &ProviderFiles) -> Value {
    let mut meta = Map::new();
    meta.insert(
        "name".into(),
        json!(configmap_name(&f.operator_type, &f.name, &f.version)),
    );
    meta.insert("namespace".into(), json!(f.namespace));
    meta.insert(
        "labels".into(),
        Value::Object(provider_labels(&f.operator_type, &f.name, &f.version)),
    );
    let mut cm = Map::new();
    cm.insert("apiVersion".into(), json!("v1"));
    cm.insert("kind".into(), json!("ConfigMap"));
    let mut data = Map::new();
    data.insert("metadata".into(), json!(f.metadata));
    if f.metadata.len() + f.components.len() > MAX_UNCOMPRESSED {
        meta.insert(
            "annotations".into(),
            json!({ ANNOTATION_COMPRESSED: "true" }),
        );
        let gz = gzip(f.components.as_bytes());
        let b64 = base64::engine::general_purpose::STANDARD.encode(gz);
        cm.insert("binaryData".into(), json!({ "components": b64 }));
    } else {
        data.insert("components".into(), json!(f.components));
    }
    cm.insert("data".into(), Value::Object(data));
    cm.insert("metadata".into(), Value::Object(meta));
    Value::Object(cm)
}

fn str_at<'a>(v: &'a Value, path: &str) -> Option<&'a str> {
    v.pointer(path).and_then(Value::as_str)
}

/// R4.3: metadata and components of a provider ConfigMap, with the operator's errors.
/// Returns `(version, metadata, components)`; the version is the version label, else
/// the name.
pub fn read_configmap(cm: &Value) -> Result<(String, String, String)> {
    let ns = str_at(cm, "/metadata/namespace").unwrap_or("");
    let name = str_at(cm, "/metadata/name").unwrap_or("");
    let id = format!("{ns}/{name}");
    let (version, from) = match str_at(cm, "/metadata/labels/provider.cluster.x-k8s.io~1version") {
        Some(v) => (v, "Label provider.cluster.x-k8s.io/version"),
        None => (name, "Name"),
    };
    if crate::version::Version::parse(version).is_err() {
        return Err(Error::new(format!(
            "ConfigMap {id} has invalid version:{version} (from the {from})"
        )));
    }
    let metadata = str_at(cm, "/data/metadata")
        .ok_or_else(|| Error::new(format!("ConfigMap {id} has no metadata")))?;
    let compressed =
        str_at(cm, "/metadata/annotations/provider.cluster.x-k8s.io~1compressed") == Some("true");
    let components = if compressed {
        let b64 = str_at(cm, "/binaryData/components")
            .ok_or_else(|| Error::new(format!("ConfigMap {id} BinaryData has no components")))?;
        let undecodable = || Error::new(format!("cannot decompress data from ConfigMap {id}"));
        let gz = base64::engine::general_purpose::STANDARD
            .decode(b64.trim())
            .map_err(|_| undecodable())?;
        let raw = gunzip(&gz).map_err(|_| undecodable())?;
        String::from_utf8(raw).map_err(|_| undecodable())?
    } else {
        str_at(cm, "/data/components")
            .ok_or_else(|| Error::new(format!("ConfigMap {id} Data has no components")))?
            .to_string()
    };
    Ok((version.to_string(), metadata.to_string(), components))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(components: String) -> ProviderFiles {
        ProviderFiles {
            operator_type: "infrastructure".into(),
            name: "docker".into(),
            namespace: "capd-system".into(),
            version: "v1.10.10".into(),
            metadata: "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\n".into(),
            components,
        }
    }

    #[test]
    fn small_components_stay_in_data() {
        let f = files("kind: Namespace\n  # ${VAR}  \n".into());
        let cm = to_configmap(&f);
        assert_eq!(str_at(&cm, "/metadata/name"), Some("infrastructure-docker-v1.10.10"));
        assert_eq!(cm["metadata"]["labels"].as_object().unwrap().len(), 4);
        assert!(cm.get("binaryData").is_none());
        assert!(cm["metadata"].get("annotations").is_none());
        // Through YAML text and back, byte-identical.
        let text = crate::yaml::to_yaml(&cm);
        let back = crate::yaml::parse_value(&text).unwrap();
        let (v, m, c) = read_configmap(&back).unwrap();
        assert_eq!((v.as_str(), m, c), ("v1.10.10", f.metadata, f.components));
    }

    #[test]
    fn compression_starts_strictly_above_the_limit() {
        let meta_len = files(String::new()).metadata.len();
        let at = files("x".repeat(MAX_UNCOMPRESSED - meta_len));
        assert!(to_configmap(&at).get("binaryData").is_none());
        let above = files("x".repeat(MAX_UNCOMPRESSED - meta_len + 1));
        let cm = to_configmap(&above);
        assert_eq!(
            str_at(&cm, "/metadata/annotations/provider.cluster.x-k8s.io~1compressed"),
            Some("true")
        );
        assert!(cm["data"].get("components").is_none());
        let text = crate::yaml::to_yaml(&cm);
        let back = crate::yaml::parse_value(&text).unwrap();
        assert_eq!(read_configmap(&back).unwrap().2, above.components);
    }

    #[test]
    fn operator_read_errors() {
        let mut cm = to_configmap(&files("a: b\n".into()));
        cm["data"].as_object_mut().unwrap().remove("components");
        assert_eq!(
            read_configmap(&cm).unwrap_err().message(),
            "ConfigMap capd-system/infrastructure-docker-v1.10.10 Data has no components"
        );
        cm["metadata"]["annotations"] = json!({ ANNOTATION_COMPRESSED: "true" });
        cm["binaryData"] = json!({"components": "bm90IGd6aXA="});
        assert_eq!(
            read_configmap(&cm).unwrap_err().message(),
            "cannot decompress data from ConfigMap capd-system/infrastructure-docker-v1.10.10"
        );
        cm["metadata"]["labels"][LABEL_VERSION] = json!("one");
        assert_eq!(
            read_configmap(&cm).unwrap_err().message(),
            "ConfigMap capd-system/infrastructure-docker-v1.10.10 has invalid version:one (from the Label provider.cluster.x-k8s.io/version)"
        );
        cm["data"].as_object_mut().unwrap().remove("metadata");
        cm["metadata"]["labels"][LABEL_VERSION] = json!("v1.0.0");
        assert!(read_configmap(&cm).unwrap_err().message().ends_with("has no metadata"));
    }
}
