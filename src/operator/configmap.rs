//! The operator's provider ConfigMap format, both ways (operator.md §4.2, §4.3):
//! reading `metadata`/`components` (gzip `binaryData` when annotated) for selector
//! sources, and writing [`provider_configmap`] as the operator and `preload` store a
//! downloaded release. Also label-selector matching and the selector texts the
//! operator's messages print.

use crate::model::pointer::Pointer as _;
use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{json, Map, Value};

use crate::error::{Error, Result};
use crate::go::base64::{decode as base64_decode, encode as base64_encode};
use crate::provider::ProviderType;
use crate::version::Version;

pub const LABEL_VERSION: &str = "provider.cluster.x-k8s.io/version";
pub const LABEL_TYPE: &str = "provider.cluster.x-k8s.io/type";
pub const LABEL_NAME: &str = "provider.cluster.x-k8s.io/name";
pub const LABEL_MANAGED_BY: &str = "managed-by.operator.cluster.x-k8s.io";
pub const LABEL_SOURCE: &str = "provider.cluster.x-k8s.io/source";
pub const ANNOTATION_COMPRESSED: &str = "provider.cluster.x-k8s.io/compressed";
pub const ANNOTATION_SOURCE: &str = "provider.cluster.x-k8s.io/source";
/// R4.2.4: components are compressed when metadata + components exceed this many bytes.
pub const MAX_CONFIGMAP_SIZE: usize = 1048576;

fn meta_str<'a>(o: &'a Value, path: &str) -> &'a str {
    o.ptr(path).and_then(Value::as_str).unwrap_or("")
}

/// `<ns>/<name>` of an object.
pub fn ns_name(o: &Value) -> String {
    format!(
        "{}/{}",
        meta_str(o, "/metadata/namespace"),
        meta_str(o, "/metadata/name")
    )
}

fn label<'a>(o: &'a Value, key: &str) -> Option<&'a str> {
    o.ptr("/metadata/labels")
        .and_then(Value::as_object)
        .and_then(|m| m.get(key))
        .and_then(Value::as_str)
}

/// R4.3.2: the version of a provider ConfigMap (label, else name), checked.
pub fn configmap_version(cm: &Value) -> Result<String> {
    let (v, from) = match label(cm, LABEL_VERSION) {
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
        .and_then(Value::as_object)
        .and_then(|m| m.get(key))
        .and_then(Value::as_str)
}

/// R4.3.3, R4.3.4: `(metadata, components)` of a provider ConfigMap.
pub fn read_configmap(cm: &Value) -> Result<(String, String)> {
    let l = crate::limits::Limits::current();
    read_configmap_within(cm, l.gzip_bytes, crate::limits::Limit::GzipBytes)
}

/// [`read_configmap`] decompressing at most `limit` bytes, reported as limit `which`
/// (`bundle verify` passes what is left of the bundle's limit when that is smaller).
pub fn read_configmap_within(
    cm: &Value,
    limit: u64,
    which: crate::limits::Limit,
) -> Result<(String, String)> {
    let id = ns_name(cm);
    let metadata = data_str(cm, "data", "metadata")
        .ok_or_else(|| Error::new(format!("ConfigMap {id} has no metadata")))?
        .to_string();
    let compressed = cm
        .ptr("/metadata/annotations")
        .and_then(Value::as_object)
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
        crate::limits::gunzip_within(&bytes, limit, which).map_err(|e| match e {
            Some(e) => e.wrap(format!("ConfigMap {id}: binaryData.components")),
            None => Error::new(format!("cannot decompress data from ConfigMap {id}")),
        })?
    } else {
        data_str(cm, "data", "components")
            .ok_or_else(|| Error::new(format!("ConfigMap {id} Data has no components")))?
            .to_string()
    };
    Ok((metadata, components))
}

/// gzip decompression (all members, as Go's gzip.Reader in multistream mode), at
/// most `--max-gzip-bytes` (a ConfigMap is untrusted: 1 MB of gzip can inflate to
/// gigabytes).
pub fn gunzip(bytes: &[u8]) -> Result<String> {
    let l = crate::limits::Limits::current();
    crate::limits::gunzip_within(bytes, l.gzip_bytes, crate::limits::Limit::GzipBytes)
        .map_err(|e| e.unwrap_or_else(|| Error::new("gzip: not gzip data or not UTF-8 text")))
}

/// gzip compression at the default level, no name, mtime 0 (what Go's gzip.Writer
/// writes in the header; the deflate stream itself is not byte-identical to Go's).
pub fn gzip(text: &str) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(text.as_bytes());
    enc.finish().unwrap_or_default()
}

/// R4.2.2: the labels of a provider ConfigMap.
pub fn provider_labels(
    operator_type: &str,
    name: &str,
    version: &str,
    oci: bool,
) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    m.insert(LABEL_VERSION.to_string(), version.to_string());
    m.insert(LABEL_TYPE.to_string(), operator_type.to_string());
    m.insert(LABEL_NAME.to_string(), name.to_string());
    m.insert(LABEL_MANAGED_BY.to_string(), "true".to_string());
    if oci {
        m.insert(LABEL_SOURCE.to_string(), "oci".to_string());
    }
    m
}

/// R4.2: the ConfigMap the operator (or `preload`) stores for one provider release:
/// name `<type>-<name>-<version>`, labels R4.2.2, `data.metadata` and
/// `data.components` (or gzip `binaryData.components` over 1 MiB, R4.2.4), the OCI
/// source annotation (R4.2.5, replaced by the compressed one when both apply). No
/// ownerReferences (R4.2.6, as `preload`).
pub fn provider_configmap(
    ptype: ProviderType,
    name: &str,
    namespace: &str,
    version: &str,
    metadata: &str,
    components: &str,
    oci: Option<&str>,
) -> Value {
    let otype = super::api::operator_type(ptype);
    let labels: Map<String, Value> = provider_labels(otype, name, version, oci.is_some())
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let mut md = Map::new();
    md.insert(
        "name".into(),
        Value::String(format!("{otype}-{name}-{version}")),
    );
    md.insert("namespace".into(), Value::String(namespace.to_string()));
    md.insert("labels".into(), Value::Object(labels));
    let mut annotations = Map::new();
    if let Some(o) = oci {
        annotations.insert(ANNOTATION_SOURCE.into(), Value::String(o.to_string()));
    }
    let mut cm = json!({"apiVersion": "v1", "kind": "ConfigMap"});
    let mut data = Map::new();
    data.insert("metadata".into(), Value::String(metadata.to_string()));
    if metadata.len() + components.len() > MAX_CONFIGMAP_SIZE {
        annotations = Map::new();
        annotations.insert(ANNOTATION_COMPRESSED.into(), Value::String("true".into()));
        cm["binaryData"] = json!({"components": base64_encode(&gzip(components))});
    } else {
        data.insert("components".into(), Value::String(components.to_string()));
    }
    if !annotations.is_empty() {
        md.insert("annotations".into(), Value::Object(annotations));
    }
    cm["metadata"] = Value::Object(md);
    cm["data"] = Value::Object(data);
    cm
}

/// A `metav1.LabelSelector` read from YAML.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector {
    pub match_labels: BTreeMap<String, String>,
    pub match_expressions: Vec<Requirement>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub key: String,
    pub operator: String,
    pub values: Vec<String>,
}

impl LabelSelector {
    /// Read `fetchConfig.selector`.
    pub fn from_value(v: &Value) -> Result<LabelSelector> {
        let mut s = LabelSelector::default();
        let Some(m) = v.as_object() else {
            return Err(Error::new("spec.fetchConfig.selector: must be a mapping"));
        };
        if let Some(ml) = m.get("matchLabels").filter(|v| !v.is_null()) {
            let ml = ml.as_object().ok_or_else(|| {
                Error::new("spec.fetchConfig.selector.matchLabels: must be a mapping")
            })?;
            for (k, v) in ml {
                let v = v.as_str().ok_or_else(|| {
                    Error::new(format!(
                        "spec.fetchConfig.selector.matchLabels.{k}: must be a string"
                    ))
                })?;
                s.match_labels.insert(k.clone(), v.to_string());
            }
        }
        if let Some(me) = m.get("matchExpressions").filter(|v| !v.is_null()) {
            let list = me.as_array().ok_or_else(|| {
                Error::new("spec.fetchConfig.selector.matchExpressions: must be a list")
            })?;
            for (i, r) in list.iter().enumerate() {
                let p = format!("spec.fetchConfig.selector.matchExpressions[{i}]");
                let key = r.get("key").and_then(Value::as_str).unwrap_or("");
                let op = r.get("operator").and_then(Value::as_str).unwrap_or("");
                let values: Vec<String> = match r.get("values") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(a)) => a
                        .iter()
                        .map(|x| {
                            x.as_str()
                                .map(str::to_string)
                                .ok_or_else(|| Error::new(format!("{p}.values: must be strings")))
                        })
                        .collect::<Result<_>>()?,
                    Some(_) => return Err(Error::new(format!("{p}.values: must be a list"))),
                };
                match op {
                    "In" | "NotIn" if values.is_empty() => {
                        return Err(Error::new(format!(
                            "{p}.values: Required value: must be specified when `operator` is 'In' or 'NotIn'"
                        )))
                    }
                    "Exists" | "DoesNotExist" if !values.is_empty() => {
                        return Err(Error::new(format!(
                            "{p}.values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                        )))
                    }
                    "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
                    _ => {
                        return Err(Error::new(format!(
                            "{p}.operator: Invalid value: {op:?}: not a valid selector operator"
                        )))
                    }
                }
                s.match_expressions.push(Requirement {
                    key: key.to_string(),
                    operator: op.to_string(),
                    values,
                });
            }
        }
        Ok(s)
    }

    /// From a plain label map (R4.1.2's default label set).
    pub fn from_labels(labels: BTreeMap<String, String>) -> LabelSelector {
        LabelSelector {
            match_labels: labels,
            match_expressions: Vec::new(),
        }
    }

    /// Does an object's label set match? (An empty selector matches everything.)
    pub fn matches(&self, obj: &Value) -> bool {
        let labels = obj.ptr("/metadata/labels").and_then(Value::as_object);
        let get = |k: &str| labels.and_then(|m| m.get(k)).and_then(Value::as_str);
        self.match_labels
            .iter()
            .all(|(k, v)| get(k) == Some(v.as_str()))
            && self
                .match_expressions
                .iter()
                .all(|r| match r.operator.as_str() {
                    "In" => get(&r.key).is_some_and(|v| r.values.iter().any(|x| x == v)),
                    "NotIn" => get(&r.key).is_none_or(|v| !r.values.iter().any(|x| x == v)),
                    "Exists" => get(&r.key).is_some(),
                    "DoesNotExist" => get(&r.key).is_none(),
                    _ => false,
                })
    }

    /// The Go `String()` of `*metav1.LabelSelector` (used by R4.3.1's message).
    pub fn go_struct_string(&self) -> String {
        let mut ml = String::from("map[string]string{");
        for (k, v) in &self.match_labels {
            ml.push_str(&format!("{k}: {v},"));
        }
        ml.push('}');
        let mut me = String::from("[]LabelSelectorRequirement{");
        for r in &self.match_expressions {
            me.push_str(&format!(
                "LabelSelectorRequirement{{Key:{},Operator:{},Values:[{}],}},",
                r.key,
                r.operator,
                r.values.join(" ")
            ));
        }
        me.push('}');
        format!("&LabelSelector{{MatchLabels:{ml},MatchExpressions:{me},}}")
    }

    /// `labels.Selector.String()`: requirements sorted by key, comma-joined.
    pub fn selector_string(&self) -> String {
        let mut reqs: Vec<(String, String)> = self
            .match_labels
            .iter()
            .map(|(k, v)| (k.clone(), format!("{k}={v}")))
            .collect();
        for r in &self.match_expressions {
            let mut vals = r.values.clone();
            vals.sort();
            let s = match r.operator.as_str() {
                "In" => format!("{} in ({})", r.key, vals.join(",")),
                "NotIn" => format!("{} notin ({})", r.key, vals.join(",")),
                "Exists" => r.key.clone(),
                _ => format!("!{}", r.key),
            };
            reqs.push((r.key.clone(), s));
        }
        reqs.sort_by(|a, b| a.0.cmp(&b.0));
        reqs.into_iter()
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cm(name: &str, labels: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": name, "namespace": "ns", "labels": labels},
               "data": {"metadata": "m", "components": "c"}})
    }

    #[test]
    fn version_from_label_or_name() {
        assert_eq!(
            configmap_version(&cm("x", json!({LABEL_VERSION: "v1.2.3"}))).unwrap(),
            "v1.2.3"
        );
        assert_eq!(
            configmap_version(&cm("v0.1.0", json!({}))).unwrap(),
            "v0.1.0"
        );
        assert_eq!(
            configmap_version(&cm("x", json!({LABEL_VERSION: "one"})))
                .unwrap_err()
                .message(),
            "ConfigMap ns/x has invalid version:one (from the Label provider.cluster.x-k8s.io/version)"
        );
        assert_eq!(
            configmap_version(&cm("aws", json!({})))
                .unwrap_err()
                .message(),
            "ConfigMap ns/aws has invalid version:aws (from the Name)"
        );
    }

    #[test]
    fn write_then_read_small_and_compressed() {
        let small = provider_configmap(
            ProviderType::Infrastructure,
            "docker",
            "capd",
            "v1.0.0",
            "meta",
            "comp: ${X}\n",
            None,
        );
        assert_eq!(small["metadata"]["name"], "infrastructure-docker-v1.0.0");
        assert_eq!(small["metadata"]["labels"][LABEL_TYPE], "infrastructure");
        assert!(small["metadata"].get("annotations").is_none());
        assert_eq!(
            read_configmap(&small).unwrap(),
            ("meta".into(), "comp: ${X}\n".into())
        );

        let big_text = "x: y\n".repeat(MAX_CONFIGMAP_SIZE / 5 + 1);
        let big = provider_configmap(
            ProviderType::RuntimeExtension,
            "ext",
            "n",
            "v2.0.0",
            "meta",
            &big_text,
            Some("reg/x:v2.0.0"),
        );
        assert_eq!(big["metadata"]["name"], "runtimeextension-ext-v2.0.0");
        // R4.2.5: the compressed annotation replaces the source one.
        assert_eq!(
            big["metadata"]["annotations"],
            json!({ANNOTATION_COMPRESSED: "true"})
        );
        assert_eq!(big["metadata"]["labels"][LABEL_SOURCE], "oci");
        assert!(big["data"].get("components").is_none());
        assert_eq!(read_configmap(&big).unwrap().1, big_text);
    }

    #[test]
    fn exactly_at_the_limit_is_not_compressed() {
        let comp = "a".repeat(MAX_CONFIGMAP_SIZE - 4);
        let c = provider_configmap(
            ProviderType::Core,
            "cluster-api",
            "n",
            "v1.0.0",
            "meta",
            &comp,
            None,
        );
        assert!(c["data"].get("components").is_some());
    }

    #[test]
    fn read_errors() {
        let mut c = cm("v1.0.0", json!({}));
        c["data"].as_object_mut().unwrap().remove("components");
        assert_eq!(
            read_configmap(&c).unwrap_err().message(),
            "ConfigMap ns/v1.0.0 Data has no components"
        );
        c["metadata"]["annotations"] = json!({ANNOTATION_COMPRESSED: "true"});
        assert_eq!(
            read_configmap(&c).unwrap_err().message(),
            "ConfigMap ns/v1.0.0 BinaryData has no components"
        );
        c["binaryData"] = json!({"components": base64_encode(b"not gzip")});
        assert_eq!(
            read_configmap(&c).unwrap_err().message(),
            "cannot decompress data from ConfigMap ns/v1.0.0"
        );
        c["data"].as_object_mut().unwrap().remove("metadata");
        assert_eq!(
            read_configmap(&c).unwrap_err().message(),
            "ConfigMap ns/v1.0.0 has no metadata"
        );
    }

    #[test]
    fn selectors() {
        let s = LabelSelector::from_value(&json!({
            "matchLabels": {"provider-components": "aws"},
            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]
        }))
        .unwrap();
        assert!(s.matches(&cm("x", json!({"provider-components": "aws", "tier": "b"}))));
        assert!(!s.matches(&cm("x", json!({"provider-components": "aws"}))));
        assert_eq!(
            s.go_struct_string(),
            "&LabelSelector{MatchLabels:map[string]string{provider-components: aws,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:tier,Operator:In,Values:[a b],},},}"
        );
        assert_eq!(s.selector_string(), "provider-components=aws,tier in (a,b)");
        let only =
            LabelSelector::from_value(&json!({"matchLabels": {"provider-components": "aws"}}))
                .unwrap();
        assert_eq!(
            only.go_struct_string(),
            "&LabelSelector{MatchLabels:map[string]string{provider-components: aws,},MatchExpressions:[]LabelSelectorRequirement{},}"
        );
        assert!(LabelSelector::from_value(
            &json!({"matchExpressions": [{"key": "k", "operator": "Foo"}]})
        )
        .is_err());
    }
}
