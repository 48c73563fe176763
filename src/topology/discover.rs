//! The ClusterClass reconciler's variable discovery (`reconcileVariables` of Cluster API
//! v1.14.2): each external patch naming a `discoverVariablesExtension` is asked for its
//! variables, which join the class's `status.variables` with `from: <patch name>`, so
//! Clusters' variables are defaulted and validated against them as against inline ones.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::obj;
use super::patches::external::settings;
use super::variables::status::{add_definition, definition};
use crate::error::{Error, Result};
use crate::runtime::Hook;
use crate::runtime::Session as Runtime;

/// `status.variables` (computed from `spec.variables`) with the discovered definitions
/// added, and the names each patch defined.
pub fn discover_variables(
    cc: &Value,
    mut status: Value,
    rt: &Runtime,
) -> Result<(Value, BTreeMap<String, Vec<String>>)> {
    let mut by_name: BTreeMap<String, Value> = status
        .as_array_mut()
        .map(std::mem::take)
        .unwrap_or_default()
        .into_iter()
        .map(|v| (obj::str_at(&v, &["name"]).to_string(), v))
        .collect();
    let mut discovered = BTreeMap::new();
    let mut errs = Vec::new();
    let patches = obj::get(cc, &["spec", "patches"]).and_then(Value::as_array);
    for p in patches.into_iter().flatten() {
        let Some(handler) = p
            .pointer("/external/discoverVariablesExtension")
            .and_then(Value::as_str)
            .filter(|h| !h.is_empty())
        else {
            continue;
        };
        let name = obj::str_at(p, &["name"]);
        let mut req = Map::new();
        if let Some(s) = settings(p) {
            req.insert("settings".into(), s);
        }
        let reply = match rt.call(
            Hook::DiscoverVariables,
            handler,
            obj::namespace(cc),
            obj::name(cc),
            req,
        ) {
            Ok(r) => r,
            Err(e) => {
                let e = e.wrap(format!("failed to call DiscoverVariables for patch {name}"));
                errs.push(crate::go::untrusted::escaped_excerpt(&e.to_string()));
                continue;
            }
        };
        let vars: Vec<Value> = reply
            .response
            .get("variables")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if vars.is_empty() || !errs.is_empty() {
            continue;
        }
        // The definitions are checked as a class's own (`ValidateClusterClassVariables`).
        let probe = json!({"metadata": {"name": obj::name(cc), "namespace": obj::namespace(cc)},
            "spec": {"variables": vars}});
        if let Err(e) = super::variables::validate_cluster_class_variables(&probe) {
            // Cut: an answer of 150,000 bad definitions is not repeated whole.
            let e = e.wrap(format!("{name}.variables")).to_string();
            errs.push(crate::go::untrusted::escaped_excerpt(&e));
            continue;
        }
        let mut names = Vec::new();
        for (i, v) in vars.iter().enumerate() {
            let vname = obj::str_at(v, &["name"]).to_string();
            let def = definition(v, name, &format!("{name}.variables[{i}]"))?;
            match by_name.get_mut(&vname) {
                Some(existing) => add_definition(existing, def),
                None => {
                    by_name.insert(
                        vname.clone(),
                        json!({"name": vname, "definitionsConflict": false, "definitions": [def]}),
                    );
                }
            }
            names.push(vname);
        }
        discovered.insert(name.to_string(), names);
    }
    if !errs.is_empty() {
        return Err(Error::new(crate::go::errors::aggregate(errs)).wrap(format!(
            "failed to discover variables for ClusterClass {}",
            obj::name(cc)
        )));
    }
    Ok((Value::Array(by_name.into_values().collect()), discovered))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::config::{extension_configs, UrlPolicy};
    use crate::runtime::{CallError, Registry, Transport};
    use std::time::Duration;

    /// How many bad definitions the extension answers.
    const N: usize = 20_000;

    /// An extension whose DiscoverVariables answers N bad definitions.
    struct Many;

    impl Transport for Many {
        fn post(
            &self,
            url: &str,
            _: &[u8],
            _: Duration,
        ) -> std::result::Result<Vec<u8>, CallError> {
            let answer = if url.ends_with("/discovery") {
                json!({"status": "Success", "handlers": [{"name": "vars",
                    "requestHook": {"apiVersion": crate::runtime::HOOKS_API_VERSION, "hook": "DiscoverVariables"}}]})
            } else {
                let vars: Vec<Value> = (0..N)
                    .map(|i| {
                        json!({"name": format!("Bad Name\u{1}{i}"), "required": false,
                        "schema": {"openAPIV3Schema": {"type": "nope"}}})
                    })
                    .collect();
                json!({"status": "Success", "variables": vars})
            };
            Ok(answer.to_string().into_bytes())
        }
    }

    #[test]
    fn an_answer_of_many_bad_variables_gives_a_short_error() {
        let ext = json!({"apiVersion": "runtime.cluster.x-k8s.io/v1alpha1", "kind": "ExtensionConfig",
            "metadata": {"name": "ext"}, "spec": {}});
        let urls = BTreeMap::from([("ext".to_string(), "http://127.0.0.1:1".to_string())]);
        let (configs, _) =
            extension_configs([("e.yaml".to_string(), &ext)], &urls, UrlPolicy::default()).unwrap();
        let registry = Registry::discover(configs, &Many).unwrap();
        let rt = Runtime::new(registry, Box::new(Many), BTreeMap::new());
        let cc = json!({"metadata": {"name": "c", "namespace": "ns"},
            "spec": {"patches": [{"name": "p", "external": {"discoverVariablesExtension": "vars.ext"}}]}});
        let e = discover_variables(&cc, json!([]), &rt)
            .unwrap_err()
            .to_string();
        assert!(e.len() < 4096 + 300, "{} bytes", e.len());
        assert!(!e.contains('\u{1}'), "{e}");
    }
}
