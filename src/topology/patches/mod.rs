//! The patch engine (topology.md §6): request items built from the ClusterClass
//! templates, inline patches applied in order, patched templates written back into the
//! desired objects.

pub mod external;
mod generate;
mod head;
mod selector;
pub mod value;

use serde_json::{Map, Value};

use super::blueprint::Blueprint;
use super::builtins;
use super::desired::Desired;
use super::obj;
use crate::error::{Error, Result};
use crate::go::jsonpatch::{self, Failure};

/// Who holds a template (`HolderReference`), i.e. what the template is for.
#[derive(Debug, Clone, PartialEq)]
pub enum Holder {
    InfraCluster,
    ControlPlane,
    ControlPlaneInfra,
    MachineDeployment {
        class: String,
        index: usize,
        bootstrap: bool,
    },
    MachinePool {
        class: String,
        index: usize,
        bootstrap: bool,
    },
}

/// One `GeneratePatchesRequestItem`.
pub struct Item {
    pub holder: Holder,
    /// The ClusterClass's template (whole object), patched in place.
    pub template: Value,
    /// This item's `builtin` part (controlPlane / machineDeployment / machinePool).
    pub builtin: Value,
    /// Override variables (name, value) allowed for inline patches.
    pub overrides: Vec<(String, Value)>,
    /// Every override variable of the item's topology, for external patches (each takes
    /// those it defines, [`external::PatchVariables`]).
    pub all_overrides: Vec<(String, Value)>,
}

/// The topology's override variables, those `defined` only when given.
fn overrides(topology: Option<&Value>, defined: Option<&[String]>) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    if let Some(Value::Array(list)) =
        topology.and_then(|t| obj::get(t, &["variables", "overrides"]))
    {
        for v in list {
            let n = obj::str_at(v, &["name"]);
            if defined.is_none_or(|d| d.iter().any(|d| d == n)) {
                out.push((
                    n.to_string(),
                    v.get("value").cloned().unwrap_or(Value::Null),
                ));
            }
        }
    }
    out
}

/// The desired object an item's template stands for, and how its metadata goes into the
/// template (v1.14's sync before patching, [`head`]).
fn desired_of<'d>(
    desired: &'d Desired,
    holder: &Holder,
) -> Option<(&'d Value, &'static [head::Field])> {
    let object = head::OBJECT_TO_TEMPLATE;
    let template = head::TEMPLATE_TO_TEMPLATE_METADATA;
    match holder {
        Holder::InfraCluster => Some((&desired.infra_cluster, object)),
        Holder::ControlPlane => Some((&desired.control_plane, object)),
        Holder::ControlPlaneInfra => desired.cp_infra_template.as_ref().map(|t| (t, template)),
        Holder::MachineDeployment {
            index, bootstrap, ..
        } => desired.mds.get(*index).map(|md| {
            let t = if *bootstrap {
                &md.bootstrap_template
            } else {
                &md.infra_template
            };
            (t, template)
        }),
        Holder::MachinePool {
            index, bootstrap, ..
        } => desired.mps.get(*index).map(|mp| {
            let o = if *bootstrap {
                &mp.bootstrap_object
            } else {
                &mp.infra_object
            };
            (o, object)
        }),
    }
}

fn create_items(
    desired: &Desired,
    bp: &Blueprint,
    cluster: &Value,
    defined: &[String],
) -> Vec<Item> {
    let mut items = create_items_v1_10(desired, bp, cluster, defined);
    if bp.head_builtins {
        for item in &mut items {
            if let Some((src, fields)) = desired_of(desired, &item.holder) {
                head::copy_fields(&mut item.template, src, fields, &[]);
            }
            head::cleanup(&mut item.template);
        }
    }
    items
}

fn create_items_v1_10(
    desired: &Desired,
    bp: &Blueprint,
    cluster: &Value,
    defined: &[String],
) -> Vec<Item> {
    let mut items = Vec::new();
    items.push(Item {
        holder: Holder::InfraCluster,
        template: bp.infra_cluster_template.clone(),
        builtin: Value::Object(Map::new()),
        overrides: vec![],
        all_overrides: vec![],
    });
    let cp_topo = obj::get(cluster, &["spec", "topology", "controlPlane"]);
    let replicas_set = cp_topo
        .and_then(|t| t.get("replicas"))
        .is_some_and(|v| !v.is_null());
    let cp_builtin = builtins::control_plane(
        &desired.control_plane,
        replicas_set,
        desired.cp_infra_template.as_ref(),
    );
    let cp_over = overrides(cp_topo, Some(defined));
    let cp_all = overrides(cp_topo, None);
    items.push(Item {
        holder: Holder::ControlPlane,
        template: bp.cp_template.clone(),
        builtin: cp_builtin.clone(),
        overrides: cp_over.clone(),
        all_overrides: cp_all.clone(),
    });
    if let Some(t) = &bp.cp_infra_template {
        items.push(Item {
            holder: Holder::ControlPlaneInfra,
            template: t.clone(),
            builtin: cp_builtin,
            overrides: cp_over,
            all_overrides: cp_all,
        });
    }
    for (i, md) in desired.mds.iter().enumerate() {
        let b = builtins::worker(
            "machineDeployment",
            &md.object,
            &md.topology,
            &md.bootstrap_template,
            &md.infra_template,
        );
        let over = overrides(Some(&md.topology), Some(defined));
        let all = overrides(Some(&md.topology), None);
        let wc = bp.md_class(&md.class);
        for (bootstrap, t) in [
            (true, wc.map(|c| &c.bootstrap)),
            (false, wc.map(|c| &c.infrastructure)),
        ] {
            items.push(Item {
                holder: Holder::MachineDeployment {
                    class: md.class.clone(),
                    index: i,
                    bootstrap,
                },
                template: t.cloned().unwrap_or(Value::Null),
                builtin: b.clone(),
                overrides: over.clone(),
                all_overrides: all.clone(),
            });
        }
    }
    for (i, mp) in desired.mps.iter().enumerate() {
        let b = builtins::worker(
            "machinePool",
            &mp.object,
            &mp.topology,
            &mp.bootstrap_object,
            &mp.infra_object,
        );
        let over = overrides(Some(&mp.topology), Some(defined));
        let all = overrides(Some(&mp.topology), None);
        let wc = bp.mp_class(&mp.class);
        for (bootstrap, t) in [
            (true, wc.map(|c| &c.bootstrap)),
            (false, wc.map(|c| &c.infrastructure)),
        ] {
            items.push(Item {
                holder: Holder::MachinePool {
                    class: mp.class.clone(),
                    index: i,
                    bootstrap,
                },
                template: t.cloned().unwrap_or(Value::Null),
                builtin: b.clone(),
                overrides: over.clone(),
                all_overrides: all.clone(),
            });
        }
    }
    items
}

/// Apply an RFC 6902 patch to an item's template: v1.14 (`head`) keeps `spec` and the
/// metadata labels and annotations, each when the patched template has it.
fn apply_json_patch_head(item: &mut Item, ops: Vec<Value>) -> Result<()> {
    let ops = jsonpatch::decode(&Value::Array(ops)).ok_or_else(|| {
        Error::new("failed to apply patch: error decoding json patch (RFC6902): an operation's op, path or from is not a string")
    })?;
    if ops.is_empty() {
        return Ok(());
    }
    let mut doc = item.template.clone();
    jsonpatch::apply(&mut doc, &ops).map_err(|(Failure::Decode(e) | Failure::Apply(e))| {
        Error::new(format!(
            "failed to apply patch: error applying json patch (RFC6902): {e}"
        ))
    })?;
    head::copy_fields(&mut item.template, &doc, head::PATCHED_ITEM, &[]);
    Ok(())
}

/// Apply an RFC 6902 patch to an item's template; only `spec` is kept.
fn apply_json_patch(item: &mut Item, ops: Vec<Value>) -> Result<()> {
    let ops = jsonpatch::decode(&Value::Array(ops)).ok_or_else(|| {
        Error::new("failed to apply patch: error decoding json patch (RFC6902): an operation's op, path or from is not a string")
    })?;
    // The patch runs on a copy of the template whose `spec` is moved there, not cloned
    // (the rest, which the patch may change but is dropped, is small); the patched
    // `spec` moves back. A failure fails the whole Cluster, so the template it leaves
    // is never read.
    let mut doc = match item.template.as_object_mut() {
        Some(m) => {
            let spec = m.remove("spec");
            let mut copy = m.clone();
            if let Some(spec) = spec {
                copy.insert("spec".into(), spec);
            }
            Value::Object(copy)
        }
        None => item.template.clone(),
    };
    jsonpatch::apply(&mut doc, &ops).map_err(|(Failure::Decode(e) | Failure::Apply(e))| {
        Error::new(format!(
            "failed to apply patch: error applying json patch (RFC6902): {e}"
        ))
    })?;
    match doc.as_object_mut().and_then(|m| m.remove("spec")) {
        Some(s) => obj::set(&mut item.template, &["spec"], s),
        None => {
            return Err(Error::new(format!(
                "failed to apply patch to template: failed to apply patch to template: missing field \"spec\" in {} {}/{}",
                obj::kind(&doc),
                obj::namespace(&doc),
                obj::name(&doc)
            )))
        }
    }
    Ok(())
}

fn item_kind(item: &Item) -> &str {
    obj::kind(&item.template)
}

/// One inline patch over all items (`jsonPatchGenerator.Generate` + apply).
fn run_inline<'g>(
    head: bool,
    patch: &Value,
    items: &mut [Item],
    item_vars: &[std::cell::OnceCell<generate::Vars<'g>>],
    global: &'g generate::Global,
    name: &str,
) -> Result<()> {
    let defs: Vec<&Value> = patch
        .get("definitions")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let enabled_if = patch.get("enabledIf").and_then(Value::as_str);
    let mut errs = Vec::new();
    let mut generated: Vec<(usize, Vec<Value>)> = Vec::new();
    for (idx, item) in items.iter().enumerate() {
        let matching: Vec<&&Value> = defs
            .iter()
            .filter(|d| selector::matches(item, d.get("selector").unwrap_or(&Value::Null)))
            .collect();
        if matching.is_empty() {
            continue;
        }
        let vars = item_vars[idx].get_or_init(|| {
            generate::Vars::new(global, item.overrides.clone(), item.builtin.clone())
        });
        match generate::is_enabled(enabled_if, vars) {
            Err(e) => {
                errs.push(
                    e.wrap(format!(
                        "failed to calculate if patch is enabled for {:?}",
                        item_kind(item)
                    ))
                    .to_string(),
                );
                continue;
            }
            Ok(false) => continue,
            Ok(true) => {}
        }
        for d in matching {
            let jp: &[Value] = d
                .get("jsonPatches")
                .and_then(Value::as_array)
                .map_or(&[], Vec::as_slice);
            match generate::json_patches(jp, vars) {
                Ok(ops) => generated.push((idx, ops)),
                Err(e) => errs.push(
                    e.wrap(format!(
                        "failed to generate JSON patches for {:?}",
                        item_kind(item)
                    ))
                    .to_string(),
                ),
            }
        }
    }
    if !errs.is_empty() {
        let joined = crate::go::errors::aggregate(errs);
        return Err(
            Error::new(joined).wrap(format!("failed to generate patches for patch {name:?}"))
        );
    }
    let apply = if head {
        apply_json_patch_head
    } else {
        apply_json_patch
    };
    for (idx, ops) in generated {
        apply(&mut items[idx], ops)
            .map_err(|e| e.wrap(format!("failed to apply patches for patch {name:?}")))?;
    }
    Ok(())
}

/// The patched template's `spec.template.spec`, for writing into `dest`.
fn template_spec(item: &Item, dest: &Value) -> Result<Value> {
    obj::get(&item.template, &["spec", "template", "spec"])
        .cloned()
        .ok_or_else(|| {
            Error::new(format!(
                "failed to apply patch to {} {}/{}: missing field \"spec.template.spec\" in {} {}/{}",
                obj::kind(dest),
                obj::namespace(dest),
                obj::name(dest),
                obj::kind(&item.template),
                obj::namespace(&item.template),
                obj::name(&item.template)
            ))
        })
}

const CP_PRESERVE: &[&[&str]] = &[
    &["spec", "machineTemplate", "metadata"],
    &["spec", "machineTemplate", "readinessGates"],
    &["spec", "machineTemplate", "infrastructureRef"],
    &["spec", "machineTemplate", "nodeDrainTimeout"],
    &["spec", "machineTemplate", "nodeVolumeDetachTimeout"],
    &["spec", "machineTemplate", "nodeDeletionTimeout"],
    &["spec", "replicas"],
    &["spec", "version"],
];

/// `patchObject`: the object's `spec` becomes the template's `spec.template.spec`
/// (with preserved fields restored).
fn patch_object(object: &mut Value, item: &Item, preserve: &[&[&str]]) -> Result<()> {
    let spec = template_spec(item, object)?;
    let kept: Vec<(&[&str], Value)> = preserve
        .iter()
        .filter_map(|p| obj::get(object, p).map(|v| (*p, v.clone())))
        .collect();
    let mut patched = object.clone();
    obj::set(&mut patched, &["spec"], spec);
    for (p, v) in kept {
        obj::set(&mut patched, p, v);
    }
    if patched.get("spec") != object.get("spec") {
        *object = patched;
    }
    Ok(())
}

/// `patchTemplate`: the cloned template's `spec.template.spec` is replaced.
fn patch_template(object: &mut Value, item: &Item) -> Result<()> {
    let spec = template_spec(item, object)?;
    obj::set(object, &["spec", "template", "spec"], spec);
    Ok(())
}

fn update_desired(desired: &mut Desired, items: &[Item]) -> Result<()> {
    for item in items {
        match &item.holder {
            Holder::InfraCluster => patch_object(&mut desired.infra_cluster, item, &[])?,
            Holder::ControlPlane => patch_object(&mut desired.control_plane, item, CP_PRESERVE)?,
            Holder::ControlPlaneInfra => {
                if let Some(t) = desired.cp_infra_template.as_mut() {
                    patch_template(t, item)?;
                }
            }
            Holder::MachineDeployment {
                index, bootstrap, ..
            } => {
                let md = &mut desired.mds[*index];
                let t = if *bootstrap {
                    &mut md.bootstrap_template
                } else {
                    &mut md.infra_template
                };
                patch_template(t, item)?;
            }
            Holder::MachinePool {
                index, bootstrap, ..
            } => {
                let mp = &mut desired.mps[*index];
                let o = if *bootstrap {
                    &mut mp.bootstrap_object
                } else {
                    &mut mp.infra_object
                };
                patch_object(o, item, &[])?;
            }
        }
    }
    Ok(())
}

/// v1.14's `updateDesiredState`: objects take the patched `spec.template.spec` and
/// `spec.template.metadata`, templates their patched metadata and `spec.template`, each
/// field only when the patched template has it (v1.13+ skips a template without
/// `spec.template.spec`); the topology's labels and cloned-from annotations stay.
fn update_desired_head(desired: &mut Desired, items: &[Item]) {
    let cp_preserve: Vec<&[&str]> = head::CONTROL_PLANE_PRESERVE
        .iter()
        .chain(head::ALWAYS_PRESERVE)
        .copied()
        .collect();
    for item in items {
        let (dest, fields, preserve): (&mut Value, _, &[&[&str]]) = match &item.holder {
            Holder::InfraCluster => (
                &mut desired.infra_cluster,
                head::PATCH_OBJECT,
                head::ALWAYS_PRESERVE,
            ),
            Holder::ControlPlane => (&mut desired.control_plane, head::PATCH_OBJECT, &cp_preserve),
            Holder::ControlPlaneInfra => match desired.cp_infra_template.as_mut() {
                Some(t) => (t, head::PATCH_TEMPLATE, head::ALWAYS_PRESERVE),
                None => continue,
            },
            Holder::MachineDeployment {
                index, bootstrap, ..
            } => {
                let Some(md) = desired.mds.get_mut(*index) else {
                    continue;
                };
                let t = if *bootstrap {
                    &mut md.bootstrap_template
                } else {
                    &mut md.infra_template
                };
                (t, head::PATCH_TEMPLATE, head::ALWAYS_PRESERVE)
            }
            Holder::MachinePool {
                index, bootstrap, ..
            } => {
                let Some(mp) = desired.mps.get_mut(*index) else {
                    continue;
                };
                let o = if *bootstrap {
                    &mut mp.bootstrap_object
                } else {
                    &mut mp.infra_object
                };
                (o, head::PATCH_OBJECT, head::ALWAYS_PRESERVE)
            }
        };
        head::copy_fields(dest, &item.template, fields, preserve);
    }
}

/// The names of the ClusterClass's inline variable definitions (`definitionFrom`
/// "inline" in `status.variables`; offline every definition is inline).
pub fn inline_definitions(cc: &Value) -> Vec<String> {
    obj::get(cc, &["spec", "variables"])
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|v| obj::str_at(v, &["name"]).to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// `engine.Apply`.
pub fn apply(desired: &mut Desired, bp: &Blueprint, cluster: &Value) -> Result<()> {
    let patches: &[Value] = obj::get(&bp.cc, &["spec", "patches"])
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    if patches.is_empty() {
        return Ok(());
    }
    let defined = inline_definitions(&bp.cc);
    let mut items = create_items(desired, bp, cluster, &defined);
    let mut global = Map::new();
    if let Some(Value::Array(vars)) = obj::get(cluster, &["spec", "topology", "variables"]) {
        for v in vars {
            let n = obj::str_at(v, &["name"]);
            if n != "builtin" && defined.iter().any(|d| d == n) {
                global.insert(
                    n.to_string(),
                    v.get("value").cloned().unwrap_or(Value::Null),
                );
            }
        }
    }
    let mut builtin = builtins::cluster(&desired.cluster);
    if bp.head_builtins {
        crate::topology::v1beta2::builtins::adjust(&mut builtin);
    }
    let external = bp
        .runtime
        .as_deref()
        .map(|rt| external::Context::new(rt, desired, cluster, builtin.clone()));
    global.insert("builtin".into(), builtin);
    let global = generate::Global::new(global);
    // An item's variables are the same for every patch: merged (and converted for
    // templates) once, when a patch first selects the item.
    let vars: Vec<std::cell::OnceCell<generate::Vars>> =
        items.iter().map(|_| Default::default()).collect();
    // The variables of the last patch, which the validation request carries.
    let mut last_defined: &[String] = &defined;
    for p in patches {
        let name = obj::str_at(p, &["name"]);
        if p.get("external").is_some_and(|v| !v.is_null()) {
            let Some(ctx) = external.as_ref().filter(|_| bp.head_builtins) else {
                return Err(Error::new(format!(
                    "failed to generate patches for patch {name:?}: patch {name:?} is an external patch: it needs a runtime extension (RuntimeSDK), which capi-render cannot call offline"
                )));
            };
            let defs = bp.external_definitions(name);
            ctx.generate(p, name, &mut items, desired, defs)?;
            last_defined = defs;
            continue;
        }
        run_inline(bp.head_builtins, p, &mut items, &vars, &global, name)?;
        last_defined = &defined;
    }
    if let Some(ctx) = &external {
        ctx.validate(patches, &items, desired, last_defined)?;
    }
    if bp.head_builtins {
        update_desired_head(desired, &items);
        return Ok(());
    }
    update_desired(desired, &items).map_err(|e| e.wrap("failed to apply patches to desired state"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patch_keeps_only_spec_changes() {
        let mut item = Item {
            holder: Holder::InfraCluster,
            template: json!({"kind": "K", "metadata": {"name": "n"}, "spec": {"template": {"spec": {}}}}),
            builtin: json!({}),
            overrides: vec![],
            all_overrides: vec![],
        };
        apply_json_patch(
            &mut item,
            vec![
                json!({"op": "add", "path": "/spec/template/spec/a", "value": 1}),
                json!({"op": "add", "path": "/metadata/labels", "value": {"x": "y"}}),
            ],
        )
        .unwrap();
        assert_eq!(item.template["spec"]["template"]["spec"]["a"], 1);
        assert!(item.template["metadata"].get("labels").is_none());
        let e = apply_json_patch(
            &mut item,
            vec![json!({"op": "replace", "path": "/spec/nope/x", "value": 1})],
        );
        assert!(e
            .unwrap_err()
            .message()
            .contains("error applying json patch"));
    }

    #[test]
    fn head_patch_keeps_spec_and_metadata() {
        let mut item = Item {
            holder: Holder::InfraCluster,
            template: json!({"kind": "K", "metadata": {"name": "n", "labels": {"a": "1"}},
                "spec": {"template": {"spec": {"z": 1}}}}),
            builtin: json!({}),
            overrides: vec![],
            all_overrides: vec![],
        };
        apply_json_patch_head(
            &mut item,
            vec![
                json!({"op": "replace", "path": "/spec", "value": {"template": {"metadata": {"labels": {"x": "y"}}}}}),
                json!({"op": "add", "path": "/metadata/labels/b", "value": "2"}),
                json!({"op": "add", "path": "/metadata/name", "value": "other"}),
            ],
        )
        .unwrap();
        assert_eq!(
            item.template["spec"],
            json!({"template": {"metadata": {"labels": {"x": "y"}}}})
        );
        assert_eq!(
            item.template["metadata"],
            json!({"name": "n", "labels": {"a": "1", "b": "2"}})
        );
    }

    #[test]
    fn head_update_skips_a_template_without_spec_and_keeps_topology_labels() {
        let item = Item {
            holder: Holder::InfraCluster,
            template: json!({"spec": {"template": {"metadata": {"labels": {
                "cluster.x-k8s.io/cluster-name": "other", "team": "blue"}}}}}),
            builtin: json!({}),
            overrides: vec![],
            all_overrides: vec![],
        };
        let mut infra = json!({"metadata": {"labels": {"cluster.x-k8s.io/cluster-name": "c"}},
            "spec": {"zone": "z"}});
        let fields = head::PATCH_OBJECT;
        head::copy_fields(&mut infra, &item.template, fields, head::ALWAYS_PRESERVE);
        assert_eq!(infra["spec"], json!({"zone": "z"}));
        assert_eq!(
            infra["metadata"]["labels"],
            json!({"cluster.x-k8s.io/cluster-name": "c", "team": "blue"})
        );
    }

    #[test]
    fn control_plane_fields_are_preserved() {
        let item = Item {
            holder: Holder::ControlPlane,
            template: json!({"spec": {"template": {"spec": {"version": "v9", "replicas": 9, "x": 1}}}}),
            builtin: json!({}),
            overrides: vec![],
            all_overrides: vec![],
        };
        let mut cp = json!({"spec": {"version": "v1.30.0", "replicas": 3}});
        patch_object(&mut cp, &item, CP_PRESERVE).unwrap();
        assert_eq!(
            cp["spec"],
            json!({"version": "v1.30.0", "replicas": 3, "x": 1})
        );
    }

    #[test]
    fn builtin_is_merged_per_item() {
        let global = json!({"builtin": {"cluster": {"name": "c"}}, "v": 1})
            .as_object()
            .unwrap()
            .clone();
        let item = Item {
            holder: Holder::ControlPlane,
            template: json!({}),
            builtin: json!({"controlPlane": {"name": "cp"}}),
            overrides: vec![("v".into(), json!(2))],
            all_overrides: vec![],
        };
        let m = generate::merge_variables(&global, &item.overrides, &item.builtin);
        assert_eq!(m["builtin"]["cluster"]["name"], "c");
        assert_eq!(m["builtin"]["controlPlane"]["name"], "cp");
        assert_eq!(m["v"], 2);
    }
}
