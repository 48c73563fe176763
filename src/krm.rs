//! The KRM function protocol (config.kubernetes.io/v1 `ResourceList`): reading the
//! request (our options in `functionConfig.spec`, objects in `items`) and writing the
//! response (the rendered objects, or an error `result`).

use crate::model::pointer::Pointer as _;
use serde_json::{json, Map, Value};

use crate::error::{Error, Result};
use crate::model::{InputObject, RenderSet};

/// The functionConfig's kind and apiVersion (any apiVersion of our group is accepted).
pub const CONFIG_KIND: &str = "RenderConfig";
pub const CONFIG_GROUP: &str = "capi-render.io";

/// Options from `functionConfig.spec`. Relative paths are relative to the function's
/// working directory (for kustomize: the directory of the kustomization).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FunctionOptions {
    pub repository: Option<String>,
    pub config: Option<String>,
    pub no_namespaces: bool,
    pub oci_layout: Option<String>,
    /// `capiVersion`: as `render --capi-version`.
    pub capi_version: Option<String>,
    /// Files or directories read like `render -f`.
    pub inputs: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Request {
    pub options: FunctionOptions,
    pub items: Vec<Value>,
}

/// Parse a `ResourceList`.
pub fn parse_resource_list(text: &str) -> Result<Request> {
    let v = crate::yaml::parse_value(text).map_err(|e| e.wrap("ResourceList on stdin"))?;
    let Value::Object(m) = v else {
        return Err(Error::new("ResourceList on stdin: not a mapping"));
    };
    let kind = m.get("kind").and_then(Value::as_str).unwrap_or("");
    let api = m.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if kind != "ResourceList" || !api.starts_with("config.kubernetes.io/") {
        return Err(Error::new(format!(
            "stdin: expected a config.kubernetes.io/v1 ResourceList, got apiVersion {api:?} kind {kind:?}"
        )));
    }
    let items = match m.get("items") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => {
            for (i, it) in a.iter().enumerate() {
                if !it.is_object() {
                    return Err(Error::new(format!(
                        "ResourceList items[{i}]: not an object"
                    )));
                }
            }
            a.clone()
        }
        Some(_) => return Err(Error::new("ResourceList items: not a list")),
    };
    let options = match m.get("functionConfig") {
        None | Some(Value::Null) => {
            return Err(Error::new(format!(
                "ResourceList on stdin has no functionConfig: capi-render krm needs one \
                 (apiVersion {CONFIG_GROUP}/v1alpha1, kind {CONFIG_KIND}) naming its inputs; \
                 run it as a kustomize generator whose config file is that object"
            )))
        }
        Some(fc) => parse_function_config(fc)?,
    };
    Ok(Request { options, items })
}

fn parse_function_config(fc: &Value) -> Result<FunctionOptions> {
    let kind = fc.get("kind").and_then(Value::as_str).unwrap_or("");
    let api = fc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if kind != CONFIG_KIND || api.split('/').next() != Some(CONFIG_GROUP) {
        return Err(Error::new(format!(
            "functionConfig: expected kind {CONFIG_KIND} of apiVersion {CONFIG_GROUP}/v1alpha1, got apiVersion {api:?} kind {kind:?}"
        )));
    }
    let mut o = FunctionOptions::default();
    let spec = match fc.get("spec") {
        None | Some(Value::Null) => return Ok(o),
        Some(Value::Object(s)) => s,
        Some(_) => return Err(Error::new("functionConfig.spec: not a mapping")),
    };
    let string = |k: &str, v: &Value| -> Result<String> {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| Error::new(format!("functionConfig.spec.{k}: not a string")))
    };
    for (k, v) in spec {
        let path = |k: &str, v: &Value| -> Result<String> {
            let p = string(k, v)?;
            check_relative(k, &p)?;
            Ok(p)
        };
        match k.as_str() {
            "repository" => o.repository = Some(path(k, v)?),
            "config" => o.config = Some(path(k, v)?),
            "ociLayout" => o.oci_layout = Some(path(k, v)?),
            "capiVersion" => o.capi_version = Some(string(k, v)?),
            "noNamespaces" => {
                o.no_namespaces = v.as_bool().ok_or_else(|| {
                    Error::new("functionConfig.spec.noNamespaces: not a boolean")
                })?
            }
            "inputs" => {
                let a = v
                    .as_array()
                    .ok_or_else(|| Error::new("functionConfig.spec.inputs: not a list"))?;
                for (i, p) in a.iter().enumerate() {
                    let what = format!("inputs[{i}]");
                    let path = string(&what, p)?;
                    check_relative(&what, &path)?;
                    o.inputs.push(path);
                }
            }
            _ => {
                return Err(Error::new(format!(
                    "functionConfig.spec.{k}: unknown field (known: capiVersion, config, inputs, noNamespaces, ociLayout, repository)"
                )))
            }
        }
    }
    Ok(o)
}

/// A path of the functionConfig (`inputs`, `repository`, `config`, `ociLayout`) must
/// stay inside the function's working directory (the kustomization root): no absolute
/// path, no `..` that climbs above it, no NUL.
fn check_relative(what: &str, path: &str) -> Result<()> {
    let bad = |why: &str| {
        Err(Error::new(format!(
            "functionConfig.spec.{what}: {path:?} {why}; the function's paths must be relative paths inside the kustomization's directory"
        ))
        .with_hint("move it into the kustomization's directory (a symbolic link there to a folder you trust works too: `ln -s /path/to/repository repository`) and name it relative to it"))
    };
    crate::paths::stays_inside(path).or_else(bad)
}

/// kustomize's bookkeeping annotations, removed from items before rendering.
fn is_internal_annotation(k: &str) -> bool {
    k.starts_with("internal.config.kubernetes.io/")
        || k == "config.kubernetes.io/path"
        || k == "config.kubernetes.io/index"
        || k == "config.k8s.io/id"
        || k == "kustomize.config.k8s.io/id"
}

/// Local configuration (kustomize passes a generator its own functionConfig as an
/// item, marked `config.kubernetes.io/local-config: "true"`): not an input.
fn is_local_config(v: &Value) -> bool {
    v.ptr("/metadata/annotations/config.kubernetes.io~1local-config")
        .and_then(Value::as_str)
        == Some("true")
}

/// Items as input objects: the file is the item's `config.kubernetes.io/path`
/// annotation (else `items`), the document its position. Local-config items (the
/// functionConfig kustomize adds) are skipped.
pub fn item_objects(items: &[Value]) -> Vec<InputObject> {
    items
        .iter()
        .enumerate()
        .filter(|(_, it)| !is_local_config(it))
        .map(|(i, it)| {
            let ann = it.ptr("/metadata/annotations");
            let path = ann
                .and_then(|a| {
                    a.get("internal.config.kubernetes.io/path")
                        .or_else(|| a.get("config.kubernetes.io/path"))
                })
                .and_then(Value::as_str)
                .unwrap_or("items")
                .to_string();
            InputObject {
                file: path,
                doc: i,
                value: strip_internal_annotations(it),
            }
        })
        .collect()
}

fn strip_internal_annotations(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(Value::Object(md)) = v.get_mut("metadata") {
        if let Some(Value::Object(a)) = md.get_mut("annotations") {
            a.retain(|k, _| !is_internal_annotation(k));
            if a.is_empty() {
                md.remove("annotations");
            }
        }
    }
    v
}

fn list(items: Vec<Value>, results: Option<Value>) -> String {
    let mut m = Map::new();
    m.insert("apiVersion".into(), json!("config.kubernetes.io/v1"));
    m.insert("kind".into(), json!("ResourceList"));
    m.insert("items".into(), Value::Array(items));
    if let Some(r) = results {
        m.insert("results".into(), r);
    }
    crate::yaml::to_yaml(&Value::Object(m))
}

/// The response: every rendered object, in `render --stdout` order.
pub fn output_list(set: &RenderSet) -> String {
    let items = set
        .units
        .iter()
        .flat_map(|u| u.objects.iter().cloned())
        .collect();
    list(items, None)
}

/// The response for a failure: no items, one error result (the message names the
/// input; it never carries secret values, as no library error does).
pub fn error_list(e: &Error) -> String {
    let mut msg = e.message().to_string();
    if let Some(f) = e.source_file() {
        msg.push_str(&format!(" (in {f})"));
    }
    if let Some(h) = e.hint() {
        msg.push_str(&format!("; hint: {h}"));
    }
    list(
        Vec::new(),
        Some(json!([{"message": msg, "severity": "error"}])),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const RL: &str = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: operator.cluster.x-k8s.io/v1alpha2\n  kind: CoreProvider\n  metadata:\n    name: cluster-api\n    namespace: capi-system\n    annotations:\n      config.kubernetes.io/index: '0'\n      internal.config.kubernetes.io/path: providers.yaml\n      keep: me\n  spec:\n    version: v1.10.10\nfunctionConfig:\n  apiVersion: capi-render.io/v1alpha1\n  kind: RenderConfig\n  metadata:\n    name: capi\n  spec:\n    repository: repo\n    noNamespaces: true\n    capiVersion: v1.14.2\n    inputs: [a.yaml, dir]\n";

    #[test]
    fn request_options_and_items() {
        let r = parse_resource_list(RL).unwrap();
        assert_eq!(r.options.repository.as_deref(), Some("repo"));
        assert!(r.options.no_namespaces);
        assert_eq!(r.options.capi_version.as_deref(), Some("v1.14.2"));
        assert_eq!(r.options.inputs, vec!["a.yaml", "dir"]);
        assert_eq!(r.options.config, None);
        let mut items = r.items.clone();
        let mut fc = crate::yaml::parse_value(RL).unwrap()["functionConfig"].clone();
        fc["metadata"]["annotations"] = json!({"config.kubernetes.io/local-config": "true"});
        items.push(fc);
        let objs = item_objects(&items);
        assert_eq!(objs.len(), 1);
        assert_eq!(objs[0].file, "providers.yaml");
        let ann = objs[0].value.ptr("/metadata/annotations").unwrap();
        assert_eq!(ann, &json!({"keep": "me"}));
    }

    #[test]
    fn bad_function_config_fields_are_named() {
        let bad = RL.replace("noNamespaces: true", "noNamespace: true");
        let e = parse_resource_list(&bad).unwrap_err();
        assert!(
            e.message()
                .contains("functionConfig.spec.noNamespace: unknown field"),
            "{e}"
        );
        let bad = RL.replace("noNamespaces: true", "noNamespaces: 'yes'");
        let e = parse_resource_list(&bad).unwrap_err();
        assert!(
            e.message()
                .contains("functionConfig.spec.noNamespaces: not a boolean"),
            "{e}"
        );
        let bad = RL.replace("kind: RenderConfig", "kind: ConfigMap");
        assert!(parse_resource_list(&bad).is_err());
        assert!(parse_resource_list("kind: List\n").is_err());
        for bad_input in ["/etc", "../x.yaml", "a/../../b", "", "/etc/passwd"] {
            let bad = RL.replace(
                "inputs: [a.yaml, dir]",
                &format!("inputs: [a.yaml, {bad_input:?}]"),
            );
            let e = parse_resource_list(&bad).unwrap_err();
            assert!(
                e.message().starts_with("functionConfig.spec.inputs[1]: "),
                "{bad_input}: {e}"
            );
        }
        for field in ["repository", "config", "ociLayout"] {
            for bad_path in ["/etc", "../repo", "a/../../b", ""] {
                let bad = RL.replace("repository: repo", &format!("{field}: {bad_path:?}"));
                let e = parse_resource_list(&bad).unwrap_err();
                assert!(
                    e.message()
                        .starts_with(&format!("functionConfig.spec.{field}: ")),
                    "{field} {bad_path}: {e}"
                );
            }
        }
        for good in ["a/../b.yaml", "./dir", "sub/dir/x.yaml"] {
            let ok = RL.replace("inputs: [a.yaml, dir]", &format!("inputs: [{good:?}]"));
            assert!(parse_resource_list(&ok).is_ok(), "{good}");
        }
        let e = parse_resource_list(
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
        )
        .unwrap_err();
        assert!(e.message().contains("no functionConfig"), "{e}");
        assert!(parse_resource_list("- a\n").is_err());
    }

    #[test]
    fn responses_are_resource_lists() {
        let e = Error::new("boom").in_file("x.yaml");
        let v = crate::yaml::parse_value(&error_list(&e)).unwrap();
        assert_eq!(v["kind"], "ResourceList");
        assert_eq!(v["results"][0]["severity"], "error");
        assert_eq!(v["results"][0]["message"], "boom (in x.yaml)");
        let v = crate::yaml::parse_value(&output_list(&RenderSet::default())).unwrap();
        assert_eq!(v["items"], json!([]));
    }
}
