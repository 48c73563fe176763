//! External patches (the Topology Mutation Hook) as Cluster API v1.14.2's patch engine
//! runs them: the GeneratePatches request of all items with the variables the patch's
//! extension defined, the response's JSON patches and JSON merge patches applied to the
//! items, and after every patch, the ValidateTopology call of each patch that names a
//! validation handler.

use serde_json::{json, Map, Value};

use super::{head, Holder, Item};
use crate::error::{Error, Result};
use crate::go::jsonpatch::{self, Failure};
use crate::runtime::{Hook, Session as Runtime};
use crate::topology::desired::Desired;
use crate::topology::obj;

/// A patch's handlers: (generate, validate), by v1beta2's names or v1beta1's.
pub fn handlers(patch: &Value) -> (Option<&str>, Option<&str>) {
    let ext = patch.get("external");
    let get = |a: &str, b: &str| {
        ext.and_then(|e| e.get(a).or(e.get(b)))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    (
        get("generatePatchesExtension", "generateExtension"),
        get("validateTopologyExtension", "validateExtension"),
    )
}

/// A patch's `external.settings`.
pub fn settings(patch: &Value) -> Option<Value> {
    patch
        .pointer("/external/settings")
        .filter(|s| s.as_object().is_some_and(|m| !m.is_empty()))
        .cloned()
}

/// An item's `holderReference`: the object holding the template and the field that
/// references it (v1.14's `createRequest`).
pub fn holder_reference(item: &Item, desired: &Desired) -> Value {
    const CORE: &str = "cluster.x-k8s.io/v1beta2";
    let r = |api: &str, kind: &str, o: &Value, path: &str| {
        json!({"apiVersion": api, "kind": kind, "namespace": obj::namespace(o),
            "name": obj::name(o), "fieldPath": path})
    };
    match &item.holder {
        Holder::InfraCluster => r(CORE, "Cluster", &desired.cluster, "spec.infrastructureRef"),
        Holder::ControlPlane => r(CORE, "Cluster", &desired.cluster, "spec.controlPlaneRef"),
        Holder::ControlPlaneInfra => {
            let cp = &desired.control_plane;
            // The control plane's contract: v1beta1 references sit one level up.
            let path = if crate::topology::v1beta2::contract::is_v1beta2(obj::api_version(cp)) {
                "spec.machineTemplate.spec.infrastructureRef"
            } else {
                "spec.machineTemplate.infrastructureRef"
            };
            r(obj::api_version(cp), obj::kind(cp), cp, path)
        }
        Holder::MachineDeployment {
            index, bootstrap, ..
        } => {
            let md = desired.mds.get(*index).map_or(&Value::Null, |m| &m.object);
            r(CORE, "MachineDeployment", md, worker_ref(*bootstrap))
        }
        Holder::MachinePool {
            index, bootstrap, ..
        } => {
            let mp = desired.mps.get(*index).map_or(&Value::Null, |m| &m.object);
            r(CORE, "MachinePool", mp, worker_ref(*bootstrap))
        }
    }
}

/// The field of a MachineDeployment or MachinePool that references a template.
fn worker_ref(bootstrap: bool) -> &'static str {
    if bootstrap {
        "spec.template.spec.bootstrap.configRef"
    } else {
        "spec.template.spec.infrastructureRef"
    }
}

/// A request item's UID: stable, so the same inputs make the same request.
fn uid(i: usize) -> String {
    format!("00000000-0000-4000-8000-{i:012x}")
}

/// `[{name, value}]` from (name, value) pairs.
fn variable_list(vars: &[(String, Value)]) -> Value {
    Value::Array(
        vars.iter()
            .map(|(n, v)| json!({"name": n, "value": v}))
            .collect(),
    )
}

/// The variables of one patch (`addVariablesForPatch`): the global ones (the Cluster's
/// variables the patch defines, then `builtin`) and each item's (its overrides the
/// patch defines, then its `builtin` part; none for the InfrastructureCluster).
pub struct PatchVariables {
    pub global: Vec<(String, Value)>,
    pub items: Vec<Vec<(String, Value)>>,
}

impl PatchVariables {
    /// The variables for a patch whose definitions are `defined`.
    pub fn new(
        items: &[Item],
        topology_variables: &[(String, Value)],
        builtin: &Value,
        defined: &[String],
    ) -> PatchVariables {
        let is_defined = |n: &str| defined.iter().any(|d| d == n);
        let mut global: Vec<(String, Value)> = topology_variables
            .iter()
            .filter(|(n, _)| n != "builtin" && is_defined(n))
            .cloned()
            .collect();
        global.push(("builtin".into(), builtin.clone()));
        let items = items
            .iter()
            .map(|item| {
                if item.holder == Holder::InfraCluster {
                    return Vec::new();
                }
                let mut v: Vec<(String, Value)> = item
                    .all_overrides
                    .iter()
                    .filter(|(n, _)| is_defined(n))
                    .cloned()
                    .collect();
                v.push(("builtin".into(), item.builtin.clone()));
                v
            })
            .collect();
        PatchVariables { global, items }
    }
}

/// The GeneratePatches request of every item (without apiVersion, kind and settings).
pub fn generate_request(
    items: &[Item],
    vars: &PatchVariables,
    desired: &Desired,
) -> Map<String, Value> {
    let list: Vec<Value> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let mut m = Map::new();
            m.insert("uid".into(), uid(i).into());
            m.insert("holderReference".into(), holder_reference(item, desired));
            m.insert("object".into(), item.template.clone());
            if !vars.items[i].is_empty() {
                m.insert("variables".into(), variable_list(&vars.items[i]));
            }
            Value::Object(m)
        })
        .collect();
    let mut req = Map::new();
    req.insert("variables".into(), variable_list(&vars.global));
    req.insert("items".into(), Value::Array(list));
    req
}

/// The ValidateTopology request (`convertToValidationRequest`): the items as patched,
/// with the variables of the last patch.
pub fn validate_request(
    items: &[Item],
    vars: &PatchVariables,
    desired: &Desired,
) -> Map<String, Value> {
    let mut req = generate_request(items, vars, desired);
    if let Some(Value::Array(list)) = req.get_mut("items") {
        for it in list {
            if let Some(m) = it.as_object_mut() {
                m.remove("uid");
            }
        }
    }
    req
}

/// `applyPatchesToRequest`: each response item's patch applied to the request item of
/// its UID, keeping `spec` and the metadata labels and annotations.
pub fn apply_response(items: &mut [Item], response: &Value) -> Result<()> {
    let list: &[Value] = response
        .get("items")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    for p in list {
        let id = p.get("uid").and_then(Value::as_str).unwrap_or("");
        let Some(item) = (0..items.len())
            .find(|i| uid(*i) == id)
            .map(|i| &mut items[i])
        else {
            return Err(Error::new(
                "unable to find corresponding request item for patch",
            ));
        };
        let raw = match p.get("patch") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(b64)) => {
                crate::go::base64::decode(b64.as_bytes()).map_err(|at| {
                    Error::new(format!(
                        "failed to apply patch: the patch of item {id} is not base64 (byte {at})"
                    ))
                })?
            }
            Some(_) => {
                return Err(Error::new(format!(
                    "failed to apply patch: the patch of item {id} is not a base64 string"
                )))
            }
        };
        match p.get("patchType").and_then(Value::as_str).unwrap_or("") {
            "JSONPatch" => {
                let ops: Value = serde_json::from_slice(&raw).map_err(|e| {
                    Error::new(format!(
                        "failed to apply patch: error decoding json patch (RFC6902): {e}"
                    ))
                })?;
                let ops = jsonpatch::decode(&ops).ok_or_else(|| {
                    Error::new("failed to apply patch: error decoding json patch (RFC6902): not a list of operations")
                })?;
                if ops.is_empty() {
                    continue;
                }
                let mut doc = item.template.clone();
                jsonpatch::apply(&mut doc, &ops).map_err(
                    |(Failure::Decode(e) | Failure::Apply(e))| {
                        Error::new(format!(
                            "failed to apply patch: error applying json patch (RFC6902): {}",
                            crate::go::untrusted::plain_or_quoted(&e.to_string())
                        ))
                    },
                )?;
                head::copy_fields(&mut item.template, &doc, head::PATCHED_ITEM, &[]);
            }
            "JSONMergePatch" => {
                if raw.is_empty() || raw == b"{}" {
                    continue;
                }
                let patch: Value = serde_json::from_slice(&raw).map_err(|e| {
                    Error::new(format!(
                        "failed to apply patch: error applying json merge patch (RFC7386): {e}"
                    ))
                })?;
                let doc = crate::go::mergepatch::merge_patch(&item.template, &patch);
                head::copy_fields(&mut item.template, &doc, head::PATCHED_ITEM, &[]);
            }
            other => {
                return Err(Error::new(format!(
                    "failed to apply patch: unknown patch type {} for item {id}",
                    crate::go::untrusted::quote_untrusted(other)
                )))
            }
        }
    }
    Ok(())
}

/// One Cluster's external patches: the runtime, the Cluster, its variables and `builtin`.
pub struct Context<'a> {
    rt: &'a Runtime,
    namespace: String,
    name: String,
    topology_variables: Vec<(String, Value)>,
    builtin: Value,
}

impl<'a> Context<'a> {
    pub fn new(rt: &'a Runtime, desired: &Desired, cluster: &Value, builtin: Value) -> Self {
        let topology_variables = obj::get(cluster, &["spec", "topology", "variables"])
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|v| {
                        (
                            obj::str_at(v, &["name"]).to_string(),
                            v.get("value").cloned().unwrap_or(Value::Null),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        Context {
            rt,
            namespace: obj::namespace(&desired.cluster).to_string(),
            name: obj::name(&desired.cluster).to_string(),
            topology_variables,
            builtin,
        }
    }

    /// One external patch: its GeneratePatches call, its answer applied to the items.
    pub fn generate(
        &self,
        patch: &Value,
        name: &str,
        items: &mut [Item],
        desired: &Desired,
        defined: &[String],
    ) -> Result<()> {
        let Some(handler) = handlers(patch).0 else {
            return Err(Error::new(format!(
                "failed to create patch generator for patch {name:?}"
            )));
        };
        let vars = PatchVariables::new(items, &self.topology_variables, &self.builtin, defined);
        let mut req = generate_request(items, &vars, desired);
        if let Some(s) = settings(patch) {
            req.insert("settings".into(), s);
        }
        let reply = self
            .rt
            .call(
                Hook::GeneratePatches,
                handler,
                &self.namespace,
                &self.name,
                req,
            )
            .map_err(|e| e.wrap(format!("failed to generate patches for patch {name:?}")))?;
        apply_response(items, &reply.response)
            .map_err(|e| e.wrap(format!("failed to apply patches for patch {name:?}")))
    }

    /// After every patch: the ValidateTopology call of each patch naming a validation
    /// handler, in class order, with the variables of the last patch (`defined`).
    pub fn validate(
        &self,
        patches: &[Value],
        items: &[Item],
        desired: &Desired,
        defined: &[String],
    ) -> Result<()> {
        let mut base: Option<Map<String, Value>> = None;
        for p in patches {
            let Some(handler) = handlers(p).1 else {
                continue;
            };
            let name = obj::str_at(p, &["name"]);
            let mut req = base
                .get_or_insert_with(|| {
                    let vars = PatchVariables::new(
                        items,
                        &self.topology_variables,
                        &self.builtin,
                        defined,
                    );
                    validate_request(items, &vars, desired)
                })
                .clone();
            if let Some(s) = settings(p) {
                req.insert("settings".into(), s);
            }
            self.rt
                .call(
                    Hook::ValidateTopology,
                    handler,
                    &self.namespace,
                    &self.name,
                    req,
                )
                .map_err(|e| e.wrap(format!("validation of patch {name:?} failed")))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::desired::Desired;

    fn item(holder: Holder, template: Value, builtin: Value) -> Item {
        Item {
            holder,
            template,
            builtin,
            overrides: vec![],
            all_overrides: vec![("defined".into(), json!(1)), ("other".into(), json!(2))],
        }
    }

    fn desired() -> Desired {
        Desired {
            cluster: json!({"metadata": {"name": "c1", "namespace": "ns"}}),
            infra_cluster: Value::Null,
            control_plane: json!({"apiVersion": "controlplane.cluster.x-k8s.io/v1beta1",
                "kind": "KubeadmControlPlane", "metadata": {"name": "c1-cp", "namespace": "ns"}}),
            cp_infra_template: None,
            cp_mhc: None,
            mds: vec![],
            mps: vec![],
        }
    }

    #[test]
    fn the_request_has_each_item_with_its_holder_and_the_patch_s_variables() {
        let items = vec![
            item(
                Holder::InfraCluster,
                json!({"kind": "DockerClusterTemplate"}),
                json!({}),
            ),
            item(
                Holder::ControlPlaneInfra,
                json!({"kind": "DockerMachineTemplate"}),
                json!({"controlPlane": {"version": "v1.34.1"}}),
            ),
        ];
        let topology = vec![("defined".into(), json!("a")), ("other".into(), json!("b"))];
        let builtin = json!({"cluster": {"name": "c1"}});
        let vars = PatchVariables::new(&items, &topology, &builtin, &["defined".to_string()]);
        let req = generate_request(&items, &vars, &desired());
        assert_eq!(
            req["variables"],
            json!([{"name": "defined", "value": "a"}, {"name": "builtin", "value": builtin}])
        );
        let list = req["items"].as_array().unwrap();
        assert_eq!(
            list[0]["holderReference"],
            json!({"apiVersion": "cluster.x-k8s.io/v1beta2",
            "kind": "Cluster", "namespace": "ns", "name": "c1", "fieldPath": "spec.infrastructureRef"})
        );
        assert!(list[0].get("variables").is_none());
        // A v1beta1 control plane holds its machine template one level up.
        assert_eq!(
            list[1]["holderReference"]["fieldPath"],
            "spec.machineTemplate.infrastructureRef"
        );
        assert_eq!(
            list[1]["variables"],
            json!([{"name": "defined", "value": 1},
                   {"name": "builtin", "value": {"controlPlane": {"version": "v1.34.1"}}}])
        );
        assert_ne!(list[0]["uid"], list[1]["uid"]);
        let v = validate_request(&items, &vars, &desired());
        assert!(v["items"][0].get("uid").is_none());
    }

    #[test]
    fn json_and_merge_patches_change_spec_and_metadata_only() {
        let mut items = vec![
            item(
                Holder::InfraCluster,
                json!({"kind": "K", "metadata": {"name": "n"}, "spec": {"a": 1}}),
                json!({}),
            ),
            item(
                Holder::ControlPlane,
                json!({"kind": "K", "metadata": {"name": "m"}, "spec": {"b": 1, "c": 1}}),
                json!({}),
            ),
        ];
        let jp = json!([{"op": "add", "path": "/spec/x", "value": 2},
                        {"op": "replace", "path": "/metadata/name", "value": "renamed"}]);
        let mp = json!({"spec": {"c": null, "d": 3}, "metadata": {"labels": {"l": "v"}}});
        let b64 = |v: &Value| crate::go::base64::encode(v.to_string().as_bytes());
        let resp = json!({"items": [
            {"uid": uid(0), "patchType": "JSONPatch", "patch": b64(&jp)},
            {"uid": uid(1), "patchType": "JSONMergePatch", "patch": b64(&mp)}]});
        apply_response(&mut items, &resp).unwrap();
        assert_eq!(
            items[0].template,
            json!({"kind": "K", "metadata": {"name": "n"}, "spec": {"a": 1, "x": 2}})
        );
        assert_eq!(
            items[1].template,
            json!({"kind": "K", "metadata": {"name": "m", "labels": {"l": "v"}}, "spec": {"b": 1, "d": 3}})
        );
        let bad = json!({"items": [{"uid": "nope", "patchType": "JSONPatch", "patch": ""}]});
        assert_eq!(
            apply_response(&mut items, &bad).unwrap_err().message(),
            "unable to find corresponding request item for patch"
        );
        let bad = json!({"items": [{"uid": uid(0), "patchType": "JSONPatch",
            "patch": b64(&json!([{"op": "replace", "path": "/spec/nope/x", "value": 1}]))}]});
        assert!(apply_response(&mut items, &bad)
            .unwrap_err()
            .message()
            .starts_with("failed to apply patch: error applying json patch (RFC6902)"));
        // An answer's text is quoted in 4 KiB, its control characters escaped.
        let huge = "\u{1}".repeat(1 << 20);
        for bad in [
            json!({"items": [{"uid": uid(0), "patchType": huge}]}),
            json!({"items": [{"uid": uid(0), "patchType": "JSONPatch",
                "patch": b64(&json!([{"op": "replace", "path": format!("/spec/{huge}"), "value": 1}]))}]}),
        ] {
            let e = apply_response(&mut items, &bad).unwrap_err().to_string();
            assert!(e.len() < 4096 + 200, "{} bytes", e.len());
            assert!(!e.contains('\u{1}'));
        }
    }
}
