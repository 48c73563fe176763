//! `cluster.x-k8s.io/v1beta2` ClusterClasses and Clusters (CAPI v1.11+, topology.md
//! §12), rendered with HEAD semantics: the Cluster and its ClusterClass are converted
//! to the v1beta1 shape the engine reads ([`cluster`], [`class`]), the engine runs with
//! HEAD's builtin variables ([`builtins`]), and the desired objects are converted to
//! what HEAD's controller writes for v1beta2 ([`objects`]).

pub mod builtins;
pub mod class;
pub mod cluster;
pub mod contract;
pub mod head_fields;
pub mod health_check;
pub mod hub;
pub mod md_health;
pub mod mhc_source;
pub mod objects;
pub mod refs;
pub mod seconds;
pub mod spoke;

use serde_json::Value;

/// The Runtime SDK a render calls extensions through, shared by its Clusters.
pub type Runtime = std::sync::Arc<crate::runtime::Session>;

use super::{input, obj};
use crate::error::{Error, ErrorKind, Result};

pub const V1BETA1: &str = "cluster.x-k8s.io/v1beta1";
pub const V1BETA2: &str = "cluster.x-k8s.io/v1beta2";

pub fn is_cluster(o: &Value) -> bool {
    obj::api_version(o) == V1BETA2 && obj::kind(o) == "Cluster"
}

pub fn is_cluster_class(o: &Value) -> bool {
    obj::api_version(o) == V1BETA2 && obj::kind(o) == "ClusterClass"
}

/// A v1beta2 Cluster or ClusterClass (what `topology plan` refuses).
pub fn is_v1beta2_topology_object(o: &Value) -> bool {
    is_cluster(o) || is_cluster_class(o)
}

/// The desired objects of one v1beta2 Cluster (namespaces already set) against the
/// ClusterClasses (v1beta2 or v1beta1) and templates in `inputs`, in the order of
/// [`super::render_cluster`].
pub fn render_cluster(cluster: &Value, inputs: &[Value]) -> Result<Vec<Value>> {
    render_cluster_deferring(cluster, inputs, None, None)
}

/// [`render_cluster`]; with `pending`, a ClusterClass's external patches are left out
/// instead of refused, and each is described there ([`strip_external_patches`]).
/// With `runtime`, external patches call their runtime extensions instead.
pub fn render_cluster_deferring(
    cluster: &Value,
    inputs: &[Value],
    mut pending: Option<&mut Vec<String>>,
    runtime: Option<&Runtime>,
) -> Result<Vec<Value>> {
    let c1 = cluster::to_v1beta1(cluster)?;
    let class = obj::str_at(&c1, &["spec", "topology", "class"]);
    let class_ns = obj::class_namespace(&c1);
    let mut engine_inputs = Vec::with_capacity(inputs.len());
    for o in inputs {
        let ours = obj::name(o) == class && obj::namespace(o) == class_ns;
        if is_cluster_class(o) {
            if ours {
                let mut cc = class::to_v1beta1(o)?;
                if let (Some(p), None) = (pending.as_deref_mut(), runtime) {
                    p.extend(strip_external_patches(&mut cc));
                }
                engine_inputs.push(cc);
            }
        } else if input::is_cluster_class(o) && ours {
            engine_inputs.push(class_refs_in_own_namespace(o));
        } else if !input::is_cluster_class(o) {
            engine_inputs.push(o.clone());
        }
    }
    if let (Some(cc), None) = (
        engine_inputs.iter().find(|o| input::is_cluster_class(o)),
        runtime,
    ) {
        external_patches(cc)?;
    }
    let out = super::render_cluster_head(&c1, &engine_inputs, true, runtime).map_err(|e| {
        if e.kind() == ErrorKind::ClassNotFound {
            e.wrap("spec.topology.classRef")
        } else {
            e
        }
    })?;
    let cc1 = engine_inputs
        .iter()
        .find(|o| input::is_cluster_class(o))
        .cloned()
        .unwrap_or(Value::Null);
    let explicit = |mhc: &Value| mhc_source::explicit_max_unhealthy(mhc, &c1, &cc1);
    let class_v1beta2 = inputs
        .iter()
        .find(|o| {
            (is_cluster_class(o) || input::is_cluster_class(o))
                && obj::name(o) == class
                && obj::namespace(o) == class_ns
        })
        .cloned()
        .unwrap_or(Value::Null);
    let objects_inputs = objects::Inputs {
        cluster,
        class: &class_v1beta2,
        explicit_max_unhealthy: &explicit,
    };
    objects::to_v1beta2(out, &objects_inputs)
        .map_err(|e: Error| e.wrap("converting the desired objects to v1beta2"))
}

/// The desired objects of one `cluster.x-k8s.io/v1beta1` Cluster under a core provider of
/// v1.11 or later: the Cluster converted to v1beta2 as the conversion webhook does
/// ([`hub`]), rendered as [`render_cluster`], the generated CAPI objects written back as
/// v1beta1 ([`spoke`]); a reference's apiVersion is its kind's among the inputs and the
/// rendered objects.
pub fn render_v1beta1_cluster(
    cluster: &Value,
    inputs: &[Value],
    pending: Option<&mut Vec<String>>,
    runtime: Option<&Runtime>,
) -> Result<Vec<Value>> {
    let c2 = hub::cluster(cluster)?;
    let out = render_cluster_deferring(&c2, inputs, pending, runtime)?;
    let mut versions = std::collections::HashMap::new();
    for o in inputs.iter().chain(&out) {
        let av = obj::api_version(o);
        let group = obj::group_of(av);
        let kind = obj::kind(o);
        versions
            .entry((group.to_string(), kind.to_string()))
            .or_insert_with(|| av.to_string());
        if let Some(k) = kind.strip_suffix("Template") {
            versions
                .entry((group.to_string(), k.to_string()))
                .or_insert_with(|| av.to_string());
        }
    }
    let lookup = |g: &str, k: &str| versions.get(&(g.to_string(), k.to_string())).cloned();
    out.into_iter()
        .map(|o| spoke::object(o, &lookup))
        .collect::<Result<Vec<_>>>()
        .map_err(|e| e.wrap("converting the desired objects to v1beta1"))
}

/// A v1beta1 ClusterClass as the v1beta2 controller reads it: the conversion webhook keeps
/// only `{apiVersion, kind, name}` of each template reference (v1beta2's `templateRef`), so
/// every template is the one in the class's namespace, whatever `ref.namespace` said.
fn class_refs_in_own_namespace(cc: &Value) -> Value {
    let mut out = cc.clone();
    let ns = Value::from(obj::namespace(cc));
    let mut refs: Vec<String> = [
        "/spec/infrastructure/ref",
        "/spec/controlPlane/ref",
        "/spec/controlPlane/machineInfrastructure/ref",
    ]
    .iter()
    .map(|p| p.to_string())
    .collect();
    for list in ["machineDeployments", "machinePools"] {
        let n = obj::get(cc, &["spec", "workers", list])
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        for i in 0..n {
            for t in ["bootstrap", "infrastructure"] {
                refs.push(format!("/spec/workers/{list}/{i}/template/{t}/ref"));
            }
        }
    }
    for p in refs {
        if let Some(Value::Object(r)) = out.pointer_mut(&p) {
            r.insert("namespace".into(), ns.clone());
        }
    }
    out
}

/// A v1beta1 Cluster renders with clusterctl v1.10.10's semantics, which need a v1beta1
/// ClusterClass: true when the class it names exists only as v1beta2, which is a clear
/// error ([`v1beta1_cluster_error`]) rather than "not found".
pub fn only_v1beta2_class(cluster: &Value, inputs: &[Value]) -> bool {
    let class = obj::str_at(cluster, &["spec", "topology", "class"]);
    let ns = obj::class_namespace(cluster);
    let same = |o: &&Value| obj::name(o) == class && obj::namespace(o) == ns;
    !inputs.iter().filter(same).any(input::is_cluster_class)
        && inputs.iter().filter(same).any(is_cluster_class)
}

/// The error of a v1beta1 Cluster whose class exists only as v1beta2
/// ([`only_v1beta2_class`]).
pub fn v1beta1_cluster_error(cluster: &Value) -> Error {
    let class = obj::str_at(cluster, &["spec", "topology", "class"]);
    let ns = obj::class_namespace(cluster);
    Error::new(format!(
        "ClusterClass {ns}/{class} is cluster.x-k8s.io/v1beta2 but Cluster {}/{} is v1beta1: write the Cluster as cluster.x-k8s.io/v1beta2 (spec.topology.classRef) to render it",
        obj::namespace(cluster),
        obj::name(cluster)
    ))
}

/// Remove a ClusterClass's external patches (converted to v1beta1: `spec.patches[]`
/// with `external`), returning one line for each: the class, the patch and the
/// runtime extension handlers it names.
pub fn strip_external_patches(cc: &mut Value) -> Vec<String> {
    let id = format!("{}/{}", obj::namespace(cc), obj::name(cc));
    let Some(patches) = cc
        .pointer_mut("/spec/patches")
        .and_then(Value::as_array_mut)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    patches.retain(|p| {
        let Some(ext) = p.get("external").filter(|v| !v.is_null()) else {
            return true;
        };
        // v1beta2's names, then v1beta1's.
        let handlers: Vec<&str> = [
            "generatePatchesExtension",
            "validateTopologyExtension",
            "generateExtension",
            "validateExtension",
            "discoverVariablesExtension",
        ]
        .iter()
            .filter_map(|k| ext.get(*k).and_then(Value::as_str))
            .collect();
        out.push(format!(
            "ClusterClass {id} patch {:?} calls runtime extension handlers {}, which capi-render does not call offline",
            obj::str_at(p, &["name"]),
            handlers.join(", ")
        ));
        false
    });
    out
}

/// HEAD accepts external (RuntimeSDK) patches, which capi-render cannot call: the
/// first one is reported, naming the ClusterClass and the patch.
fn external_patches(cc: &Value) -> Result<()> {
    let patches = obj::get(cc, &["spec", "patches"]).and_then(Value::as_array);
    for (i, p) in patches.into_iter().flatten().enumerate() {
        if p.get("external").is_some_and(|v| !v.is_null()) {
            return Err(Error::new(format!(
                "ClusterClass {}/{}: spec.patches[{i}] ({:?}) is an external patch: it needs a runtime extension (RuntimeSDK), which capi-render cannot call offline",
                obj::namespace(cc),
                obj::name(cc),
                obj::str_at(p, &["name"])
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_v1beta1_class_finds_its_templates_in_its_own_namespace() {
        let cc = json!({"apiVersion": V1BETA1, "kind": "ClusterClass", "metadata": {"name": "k", "namespace": "hv"},
            "spec": {"infrastructure": {"ref": {"kind": "I", "name": "i", "namespace": "default"}},
                "controlPlane": {"ref": {"kind": "C", "name": "c"},
                    "machineInfrastructure": {"ref": {"kind": "M", "name": "m", "namespace": "x"}}},
                "workers": {"machineDeployments": [{"class": "w", "template": {
                    "bootstrap": {"ref": {"kind": "B", "name": "b", "namespace": "default"}},
                    "infrastructure": {"ref": {"kind": "M", "name": "m"}}}}]}}});
        let out = class_refs_in_own_namespace(&cc);
        for p in [
            "/spec/infrastructure/ref",
            "/spec/controlPlane/ref",
            "/spec/controlPlane/machineInfrastructure/ref",
            "/spec/workers/machineDeployments/0/template/bootstrap/ref",
            "/spec/workers/machineDeployments/0/template/infrastructure/ref",
        ] {
            assert_eq!(
                out.pointer(&format!("{p}/namespace")),
                Some(&json!("hv")),
                "{p}"
            );
        }
        assert_eq!(class_refs_in_own_namespace(&json!(3)), json!(3));
    }

    #[test]
    fn v1beta1_cluster_with_v1beta2_class_is_a_clear_error() {
        let c = json!({"apiVersion": V1BETA1, "kind": "Cluster", "metadata": {"name": "c", "namespace": "ns"},
            "spec": {"topology": {"class": "k"}}});
        let k2 = json!({"apiVersion": V1BETA2, "kind": "ClusterClass", "metadata": {"name": "k", "namespace": "ns"}});
        assert!(only_v1beta2_class(&c, std::slice::from_ref(&k2)));
        let m = crate::topology::render_cluster(&c, std::slice::from_ref(&k2))
            .unwrap_err()
            .to_string();
        assert!(
            m.contains("ClusterClass ns/k is cluster.x-k8s.io/v1beta2")
                && m.contains("Cluster ns/c"),
            "{m}"
        );
        let mut k1 = k2;
        k1["apiVersion"] = json!(V1BETA1);
        assert!(!only_v1beta2_class(&c, &[k1]));
        assert!(!only_v1beta2_class(&c, &[]));
    }

    #[test]
    fn external_patch_names_class_and_patch() {
        let cc = json!({"metadata": {"name": "k", "namespace": "ns"},
            "spec": {"patches": [{"name": "in", "definitions": []},
                {"name": "ext", "external": {"generatePatchesExtension": "g"}}]}});
        let m = external_patches(&cc).unwrap_err().to_string();
        assert!(
            m.contains("ClusterClass ns/k: spec.patches[1] (\"ext\")"),
            "{m}"
        );
        assert!(m.contains("needs a runtime extension"), "{m}");
        assert!(external_patches(&json!({"spec": {"patches": 3}})).is_ok());
    }

    #[test]
    fn external_patches_are_stripped_and_described() {
        let mut cc = json!({"metadata": {"name": "qs", "namespace": "ns"},
            "spec": {"patches": [
                {"name": "inline", "definitions": []},
                {"name": "lb", "external": {"generatePatchesExtension": "gen.ext", "validateTopologyExtension": "val.ext"}},
                {"name": "old", "external": {"generateExtension": "g.old"}}]}});
        let p = strip_external_patches(&mut cc);
        assert_eq!(
            p,
            [
                "ClusterClass ns/qs patch \"lb\" calls runtime extension handlers gen.ext, val.ext, which capi-render does not call offline",
                "ClusterClass ns/qs patch \"old\" calls runtime extension handlers g.old, which capi-render does not call offline"
            ]
        );
        assert_eq!(
            cc["spec"]["patches"],
            json!([{"name": "inline", "definitions": []}])
        );
        assert!(external_patches(&cc).is_ok());
        assert!(strip_external_patches(&mut json!({"spec": {}})).is_empty());
    }
}
