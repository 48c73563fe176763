//! The desired objects in the form the topology controller sends them: what both
//! `render` (the Git form, [`super::desired_view`]) and `topology plan` (the dry-run
//! store, [`super::dryrun`]) start from.
//!
//! The controller creates each object through a two-way merge patch helper: only the
//! allowed paths are kept, maps left empty are dropped and nulls pruned
//! ([`create_intent`]); the objects it builds as Go structs (MachineDeployments,
//! MachinePools, MachineHealthChecks) go through the typed round trip first
//! ([`typed_build`]), and the kinds of clusterctl's scheme are held as Go structs
//! ([`normalise`]). [`creation_order`] is the order the reconcile creates them in.

use serde_json::{Map, Value};

use super::desired::Desired;
use super::obj;
use crate::error::Result;

const ALLOWED_ON_CREATE: &[&[&str]] = &[
    &["metadata", "labels"],
    &["metadata", "annotations"],
    &["spec"],
    &["apiVersion"],
    &["kind"],
    &["metadata", "name"],
    &["metadata", "namespace"],
    &["metadata", "ownerReferences"],
];

fn overlaps(a: &[String], b: &[&str]) -> bool {
    a.iter().zip(b.iter()).all(|(x, y)| x == y)
}

/// `dropDiff` against an empty original: fields outside the allowed (or inside
/// ignored) paths go, and so does every map left empty (not inside lists), unless
/// `keep_empty` (a server-side apply of the desired object).
fn drop_diff(
    path: &mut Vec<String>,
    m: &mut Map<String, Value>,
    drop: &dyn Fn(&[String]) -> bool,
    keep_empty: bool,
) {
    let depth = path.len();
    drop_diff_at(path, depth, m, drop, keep_empty);
    path.truncate(depth);
}

/// [`drop_diff`] of the map at `depth`: `path[..depth]` leads to it, and the buffers
/// of `path` beyond that are reused from sibling to sibling (no allocation per key).
fn drop_diff_at(
    path: &mut Vec<String>,
    depth: usize,
    m: &mut Map<String, Value>,
    drop: &dyn Fn(&[String]) -> bool,
    keep_empty: bool,
) {
    if path.len() == depth {
        path.push(String::new());
    }
    m.retain(|k, v| {
        path[depth].clear();
        path[depth].push_str(k);
        if drop(&path[..=depth]) {
            return false;
        }
        if let Value::Object(child) = v {
            drop_diff_at(path, depth + 1, child, drop, keep_empty);
            if child.is_empty() && !keep_empty {
                return false;
            }
        }
        true
    });
}

/// The object the two-way patch helper creates from a desired object.
pub fn create_intent(desired: Value, ignore: &[Vec<String>]) -> Value {
    intent_with(desired, ignore, false)
}

/// A desired object of CAPI v1.14's topology controller (v1beta2 Clusters) as its
/// `desiredstate` computes it: the paths allowed on create, empty maps and nulls kept (a
/// patch's `null` stays in the desired object). No ignore paths: those belong to the
/// patch helper, after the desired state.
pub fn applied_intent(desired: Value) -> Value {
    intent_with(desired, &[], true)
}

fn intent_with(desired: Value, ignore: &[Vec<String>], keep_empty: bool) -> Value {
    let mut v = desired;
    if let Value::Object(m) = &mut v {
        let not_allowed = |p: &[String]| !ALLOWED_ON_CREATE.iter().any(|a| overlaps(p, a));
        drop_diff(&mut Vec::new(), m, &not_allowed, keep_empty);
        if !ignore.is_empty() {
            let ignored = |p: &[String]| {
                ignore
                    .iter()
                    .any(|i| p.len() >= i.len() && p[..i.len()] == i[..])
            };
            drop_diff(&mut Vec::new(), m, &ignored, keep_empty);
        }
    }
    if !keep_empty {
        crate::go::mergepatch::prune_nulls(&mut v);
    }
    v
}

/// The objects the topology controller builds as Go structs (converted to unstructured
/// before the patch helper): MachineDeployments, MachinePools, MachineHealthChecks. The
/// InfrastructureCluster, ControlPlane and templates stay unstructured.
pub fn typed_build(v: &Value) -> Result<Value> {
    let built_typed = obj::api_version(v) == "cluster.x-k8s.io/v1beta1"
        && matches!(
            obj::kind(v),
            "MachineDeployment" | "MachinePool" | "MachineHealthCheck"
        );
    if built_typed {
        crate::typed::round_trip(v)
    } else {
        Ok(v.clone())
    }
}

/// An object as clusterctl's scheme holds it: the typed round trip for the kinds the
/// scheme knows, anything else unchanged.
pub fn normalise(v: Value) -> Result<Value> {
    if crate::typed::is_supported(obj::api_version(&v), obj::kind(&v)) {
        crate::typed::round_trip(&v)
            .map_err(|e| e.wrap(format!("failed to create {}", obj::kind(&v))))
    } else {
        Ok(v)
    }
}

/// The InfrastructureCluster contract's ignore paths: an empty endpoint host, a zero
/// port. A host that is not a string or a port that is not an integer (after patches)
/// stops the reconcile, as `NestedString` / `NestedInt64` do.
fn infra_ignore_paths(infra: &Value) -> Result<Vec<Vec<String>>> {
    use crate::go::unstructured::{accessor_error, Numbers};
    let mut out = Vec::new();
    let p = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    // (field, Go type, Some(is zero) when the value has that type)
    type Check = (&'static str, &'static str, fn(&Value) -> Option<bool>);
    let checks: [Check; 2] = [
        ("host", "string", |v| v.as_str().map(str::is_empty)),
        ("port", "int64", |v| match v {
            Value::Number(n) => crate::go::json::as_int64(n).map(|i| i == 0),
            _ => None,
        }),
    ];
    for (field, expected, is_zero) in checks {
        let path = ["spec", "controlPlaneEndpoint", field];
        let Some(v) = obj::get(infra, &path) else {
            continue;
        };
        match is_zero(v) {
            Some(true) => out.push(p(&path)),
            Some(false) => {}
            None => {
                return Err(crate::error::Error::new(format!(
                    "failed to retrieve {}: {}",
                    path.join("."),
                    accessor_error(&path, v, expected, Numbers::Int64)
                ))
                .wrap("failed to calculate ignore paths")
                .wrap("error reconciling the Cluster topology"))
            }
        }
    }
    Ok(out)
}

/// One object of a new Cluster's reconcile.
pub struct Step<'a> {
    pub object: &'a Value,
    /// Paths the patch helper ignores for this object.
    pub ignore: Vec<Vec<String>>,
    /// The InfrastructureCluster and the ControlPlane: the dry-run store gives them an
    /// owner reference to the Cluster's shim Secret.
    pub cluster_owned: bool,
}

/// The desired objects in the order a new Cluster's reconcile creates them, with the
/// InfrastructureCluster's ignore paths when `ignore_paths` (they may fail:
/// [`infra_ignore_paths`]). CAPI v1.14's desired state (v1beta2 Clusters) has none: they
/// belong to its patch helper, after the desired state, so a patched endpoint port that is
/// no integer is desired state there, not an error.
pub fn creation_order(d: &Desired, ignore_paths: bool) -> Result<Vec<Step<'_>>> {
    let step = |object, cluster_owned| Step {
        object,
        ignore: Vec::new(),
        cluster_owned,
    };
    let mut out = vec![Step {
        object: &d.infra_cluster,
        ignore: if ignore_paths {
            infra_ignore_paths(&d.infra_cluster)?
        } else {
            Vec::new()
        },
        cluster_owned: true,
    }];
    out.extend(d.cp_infra_template.iter().map(|t| step(t, false)));
    out.push(step(&d.control_plane, true));
    out.extend(d.cp_mhc.iter().map(|m| step(m, false)));
    for md in &d.mds {
        out.push(step(&md.infra_template, false));
        out.push(step(&md.bootstrap_template, false));
        out.push(step(&md.object, false));
        out.extend(md.mhc.iter().map(|m| step(m, false)));
    }
    for mp in &d.mps {
        out.push(step(&mp.infra_object, false));
        out.push(step(&mp.bootstrap_object, false));
        out.push(step(&mp.object, false));
    }
    Ok(out)
}

/// The Cluster after the reconcile wrote the desired Cluster's labels, annotations and
/// spec into `current` (each through the patch helper): maps merge key by key,
/// anything else replaces what is there.
pub fn reconciled_cluster(current: Value, desired_cluster: &Value) -> Value {
    let mut c = current;
    for p in [
        &["metadata", "labels"][..],
        &["metadata", "annotations"],
        &["spec"],
    ] {
        if let Some(v) = obj::get(desired_cluster, p) {
            let mut intent = serde_json::json!({});
            obj::set(&mut intent, p, v.clone());
            let mut intent = create_intent(intent, &[]);
            if let Some(v) = obj::remove(&mut intent, p) {
                merge_into(&mut c, p, v);
            }
        }
    }
    c
}

fn merge_into(target: &mut Value, path: &[&str], v: Value) {
    let cur = path
        .iter()
        .try_fold(&mut *target, |t, k| t.as_object_mut()?.get_mut(*k));
    match (cur, v) {
        (Some(Value::Object(cur)), Value::Object(new)) => merge_maps(cur, new),
        (_, v) => obj::set(target, path, v),
    }
}

fn merge_maps(cur: &mut Map<String, Value>, new: Map<String, Value>) {
    for (k, x) in new {
        match (cur.get_mut(&k), x) {
            (Some(Value::Object(c)), Value::Object(n)) => merge_maps(c, n),
            (_, x) => {
                cur.insert(k, x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `drop_diff` as it was written first: the keys copied, the path built per key.
    fn drop_diff_reference(
        path: &mut Vec<String>,
        m: &mut Map<String, Value>,
        drop: &dyn Fn(&[String]) -> bool,
        keep_empty: bool,
    ) {
        let keys: Vec<String> = m.keys().cloned().collect();
        for k in keys {
            path.push(k.clone());
            if drop(path) {
                m.remove(&k);
            } else if let Some(Value::Object(child)) = m.get_mut(&k) {
                drop_diff_reference(path, child, drop, keep_empty);
                if child.is_empty() && !keep_empty {
                    m.remove(&k);
                }
            }
            path.pop();
        }
    }

    fn arb_object() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let key = prop::sample::select(vec![
            "metadata", "labels", "spec", "status", "name", "a", "b",
        ]);
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            "[a-c]{0,2}".prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 64, 5, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::btree_map(key.clone().prop_map(str::to_string), inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        // A fixed seed: the same cases on every run and machine.
        #![proptest_config(proptest::test_runner::Config {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x6472_6f70),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]
        /// The reusing walk drops what the reference drops, for the allowed paths, for
        /// ignore paths and from a non-empty starting path, keeping empty maps or not.
        #[test]
        fn drop_diff_is_the_reference(
            o in arb_object(),
            ignore in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(vec!["spec", "a", "b", "labels"]), 1..4),
                0..3,
            ),
            keep_empty in proptest::bool::ANY,
            start in proptest::collection::vec(proptest::sample::select(vec!["spec", "a"]), 0..2),
        ) {
            let Value::Object(m) = o else { return Ok(()) };
            let not_allowed = |p: &[String]| !ALLOWED_ON_CREATE.iter().any(|a| overlaps(p, a));
            let ignored = |p: &[String]| {
                ignore.iter().any(|i| p.len() >= i.len() && p[..i.len()].iter().zip(i).all(|(x, y)| x == y))
            };
            type Pred<'a> = &'a dyn Fn(&[String]) -> bool;
            let preds: [Pred; 2] = [&not_allowed, &ignored];
            for drop in preds {
                let (mut a, mut b) = (m.clone(), m.clone());
                let start: Vec<String> = start.iter().map(|s| s.to_string()).collect();
                let (mut pa, mut pb) = (start.clone(), start.clone());
                drop_diff(&mut pa, &mut a, drop, keep_empty);
                drop_diff_reference(&mut pb, &mut b, drop, keep_empty);
                proptest::prop_assert_eq!(&a, &b);
                proptest::prop_assert_eq!(&pa, &start);
            }
        }
    }

    #[test]
    fn create_intent_drops_empty_maps_and_disallowed_fields() {
        let d = json!({"apiVersion": "a/v1", "kind": "K", "status": {"x": 1},
            "metadata": {"name": "n", "creationTimestamp": null, "labels": {}},
            "spec": {"a": {}, "b": {"c": {}}, "l": [{}], "n": {"x": null}}});
        let v = create_intent(d.clone(), &[]);
        assert_eq!(
            v,
            json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "n"},
            "spec": {"l": [{}], "n": {}}})
        );
    }

    #[test]
    fn applied_intent_keeps_empty_maps() {
        let d = json!({"apiVersion": "a/v1", "kind": "K", "status": {"x": 1},
            "spec": {"backend": {"inMemory": {}}, "n": {"x": null}}});
        assert_eq!(
            applied_intent(d.clone()),
            json!({"apiVersion": "a/v1", "kind": "K", "spec": {"backend": {"inMemory": {}}, "n": {"x": null}}})
        );
    }

    #[test]
    fn ignore_paths_drop_endpoint() {
        let d = json!({"spec": {"controlPlaneEndpoint": {"host": "", "port": 0}, "x": 1}});
        let v = create_intent(d.clone(), &infra_ignore_paths(&d).unwrap());
        assert_eq!(v, json!({"spec": {"x": 1}}));
        let kept = json!({"spec": {"controlPlaneEndpoint": {"host": "h", "port": 6443.0}}});
        assert!(infra_ignore_paths(&kept).unwrap().is_empty());
    }

    #[test]
    fn endpoint_of_the_wrong_type_stops_the_reconcile() {
        let e = infra_ignore_paths(&json!({"spec": {"controlPlaneEndpoint": {"host": 10}}}))
            .unwrap_err()
            .to_string();
        assert_eq!(e, "error reconciling the Cluster topology: failed to calculate ignore paths: failed to retrieve spec.controlPlaneEndpoint.host: .spec.controlPlaneEndpoint.host accessor error: 10 is of the type int64, expected string");
        let e = infra_ignore_paths(&json!({"spec": {"controlPlaneEndpoint": {"port": 6443.5}}}))
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("6443.5 is of the type float64, expected int64"),
            "{e}"
        );
    }

    #[test]
    fn unknown_kinds_are_not_normalised() {
        let v = json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "n"}, "x": {}});
        assert_eq!(normalise(v.clone()).unwrap(), v);
    }

    #[test]
    fn reconciled_cluster_merges_maps_and_replaces_the_rest() {
        let cur = json!({"metadata": {"name": "c", "labels": {"a": "1", "b": "2"}},
            "spec": {"topology": {"class": "k", "version": "v1"}, "paused": true}});
        let want = json!({"metadata": {"labels": {"b": "3"}, "annotations": {}},
            "spec": {"topology": {"version": "v2"}, "paused": false, "x": null}});
        assert_eq!(
            reconciled_cluster(cur, &want),
            json!({"metadata": {"name": "c", "labels": {"a": "1", "b": "3"}},
                "spec": {"topology": {"class": "k", "version": "v2"}, "paused": false}})
        );
    }

    #[test]
    fn creation_order_puts_the_cluster_owned_objects_first() {
        let d = Desired {
            cluster: json!({}),
            infra_cluster: json!({"kind": "I", "spec": {"controlPlaneEndpoint": {"host": ""}}}),
            control_plane: json!({"kind": "CP"}),
            cp_infra_template: Some(json!({"kind": "T"})),
            cp_mhc: None,
            mds: Vec::new(),
            mps: Vec::new(),
        };
        let steps = creation_order(&d, true).unwrap();
        let kinds: Vec<&str> = steps.iter().map(|s| obj::kind(s.object)).collect();
        assert_eq!(kinds, ["I", "T", "CP"]);
        let owned: Vec<bool> = steps.iter().map(|s| s.cluster_owned).collect();
        assert_eq!(owned, [true, false, true]);
        assert_eq!(steps[0].ignore.len(), 1);
        assert!(creation_order(&d, false).unwrap()[0].ignore.is_empty());
    }

    #[test]
    fn an_endpoint_port_of_the_wrong_type_fails_only_with_ignore_paths() {
        let d = Desired {
            cluster: json!({}),
            infra_cluster: json!({"kind": "I", "spec": {"controlPlaneEndpoint": {"port": "<no value>"}}}),
            control_plane: json!({"kind": "CP"}),
            cp_infra_template: None,
            cp_mhc: None,
            mds: Vec::new(),
            mps: Vec::new(),
        };
        let e = creation_order(&d, true).err().unwrap().to_string();
        assert!(e.contains("failed to calculate ignore paths"), "{e}");
        assert_eq!(creation_order(&d, false).unwrap().len(), 2);
    }
}
