//! What `render` reads (SECURITY.md, "No silent loss"). An object of the Cluster API
//! core group that `render` would skip is an error, not a silent omission: with `-o`
//! a skipped Cluster would be pruned from the tree. Checked before anything renders:
//! - `cluster.x-k8s.io` objects: `Cluster` (with `spec.topology`) and `ClusterClass`,
//!   at v1beta1 or v1beta2; other known kinds of the group are not inputs of `render`,
//!   and an unknown kind gets a "did you mean";
//! - a `List` wrapper (`kind: List`, or `*List` with `items`) is refused: its items
//!   would be skipped.
//!
//! Provider CRs (`operator.cluster.x-k8s.io`, `management.cluster.x-k8s.io`) are
//! checked by `operator::api::classify` the same way.

use crate::model::pointer::Pointer as _;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::InputObject;

/// The Cluster API core group.
pub const CORE_GROUP: &str = "cluster.x-k8s.io";
/// The core kinds `render` reads.
pub const READ_KINDS: [&str; 2] = ["Cluster", "ClusterClass"];
/// Their versions `render` reads.
pub const READ_VERSIONS: [&str; 2] = ["v1beta1", "v1beta2"];
/// The other kinds of the core group (v1.10/v1.11): real objects, but not `render`
/// inputs (the topology controller creates them from a Cluster's topology).
pub const OTHER_CORE_KINDS: [&str; 6] = [
    "Machine",
    "MachineSet",
    "MachineDeployment",
    "MachinePool",
    "MachineHealthCheck",
    "MachineDrainRule",
];

fn str_at<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// Every input object `render` would otherwise skip silently is an error.
pub fn check(objects: &[InputObject]) -> Result<()> {
    objects.iter().try_for_each(check_one)
}

/// [`check`] of one object.
pub fn check_one(o: &InputObject) -> Result<()> {
    let v = &o.value;
    let (api, kind) = (str_at(v, "apiVersion"), str_at(v, "kind"));
    let at = format!("{}, document {}", o.file, o.doc + 1);
    let fail = |msg: String| Err(Error::new(format!("{at}: {msg}")).in_file(&o.file));
    if kind == "List" || (kind.ends_with("List") && v.get("items").is_some_and(Value::is_array)) {
        return fail(format!(
            "kind {kind}: a List wrapper is not read (its items would be skipped); write each object as its own YAML document"
        ));
    }
    let (group, version) = api.split_once('/').unwrap_or((api, ""));
    if group != CORE_GROUP {
        return Ok(());
    }
    let name = v
        .ptr("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if READ_KINDS.contains(&kind) {
        if !READ_VERSIONS.contains(&version) {
            return fail(format!(
                "{kind} {name:?}: apiVersion {api:?} is not a version capi-render reads ({CORE_GROUP}/v1beta1 or {CORE_GROUP}/v1beta2)"
            ));
        }
        if kind == "Cluster" && v.ptr("/spec/topology").is_none_or(Value::is_null) {
            return fail(format!(
                "Cluster {name:?} has no spec.topology: render renders Clusters with a managed topology only, so this one would be left out of the output (with -o: removed from the tree); add spec.topology, or remove the Cluster from the inputs"
            ));
        }
        return Ok(());
    }
    if OTHER_CORE_KINDS.contains(&kind) {
        return fail(format!(
            "{kind} {name:?}: render does not read {kind} objects (the topology controller creates them from a Cluster's spec.topology); remove it from the inputs"
        ));
    }
    let known: Vec<&str> = READ_KINDS
        .iter()
        .chain(&OTHER_CORE_KINDS)
        .copied()
        .collect();
    let hint = match crate::suggest::closest(kind, known.iter().copied()) {
        Some(k) => format!("did you mean {k:?}? "),
        None => String::new(),
    };
    fail(format!(
        "kind {kind:?} is not a kind of {CORE_GROUP}; {hint}render reads Cluster and ClusterClass"
    ))
}

/// Two topology Clusters of one namespace and name (in one file or two): an error
/// naming both inputs, since one would silently replace the other on apply. Each
/// Cluster is `(namespace, name, file, document)`; the document is `None` for a file
/// an incremental run left unparsed.
pub fn unique_clusters<'a>(
    clusters: impl Iterator<Item = (&'a str, &'a str, &'a str, Option<usize>)>,
) -> Result<()> {
    let at = |f: &str, d: Option<usize>| match d {
        Some(d) => format!("{f} (document {})", d + 1),
        None => f.to_string(),
    };
    let mut seen: std::collections::HashMap<(&str, &str), (&str, Option<usize>)> =
        Default::default();
    for (ns, name, file, doc) in clusters {
        if let Some(&(f0, d0)) = seen.get(&(ns, name)) {
            return Err(Error::new(format!(
                "Cluster {ns}/{name} is in two inputs: {} and {}",
                at(f0, d0),
                at(file, doc)
            ))
            .with_hint("keep one of them: the API server holds one Cluster of a namespace and name, and the second would replace the first")
            .in_file(file));
        }
        seen.insert((ns, name), (file, doc));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> InputObject {
        InputObject {
            file: "in.yaml".into(),
            doc: 1,
            value: v,
        }
    }

    fn err(v: Value) -> String {
        check(&[obj(v)]).unwrap_err().message().to_string()
    }

    #[test]
    fn a_cluster_in_two_inputs_names_both() {
        let one = [
            ("a", "c1", "x.yaml", Some(0)),
            ("b", "c1", "y.yaml", Some(2)),
        ];
        assert!(unique_clusters(one.into_iter()).is_ok());
        let two = [("a", "c1", "x.yaml", Some(0)), ("a", "c1", "y.yaml", None)];
        let e = unique_clusters(two.into_iter()).unwrap_err();
        assert_eq!(
            e.message(),
            "Cluster a/c1 is in two inputs: x.yaml (document 1) and y.yaml"
        );
    }

    #[test]
    fn read_kinds_pass_and_others_in_other_groups_are_left_alone() {
        let topo = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
                          "metadata": {"name": "c"}, "spec": {"topology": {"class": "x"}}});
        let class = json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "ClusterClass"});
        let tmpl = json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "DockerClusterTemplate"});
        let secret = json!({"apiVersion": "v1", "kind": "Secret"});
        assert!(check(&[obj(topo), obj(class), obj(tmpl), obj(secret)]).is_ok());
    }

    #[test]
    fn typos_versions_lists_and_topology_less_clusters_are_errors() {
        let e = err(json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Clusterr"}));
        assert!(
            e.starts_with("in.yaml, document 2: kind \"Clusterr\""),
            "{e}"
        );
        assert!(e.contains("did you mean \"Cluster\"?"), "{e}");
        let e = err(
            json!({"apiVersion": "cluster.x-k8s.io/v9", "kind": "Cluster",
                           "metadata": {"name": "c"}, "spec": {"topology": {}}}),
        );
        assert!(
            e.contains("apiVersion \"cluster.x-k8s.io/v9\" is not a version"),
            "{e}"
        );
        let e = err(json!({"apiVersion": "v1", "kind": "List", "items": []}));
        assert!(e.contains("List wrapper"), "{e}");
        let e = err(
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "ClusterList", "items": []}),
        );
        assert!(e.contains("List wrapper"), "{e}");
        let e = err(
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
                           "metadata": {"name": "c"}, "spec": {"topolgy": {}}}),
        );
        assert!(e.contains("has no spec.topology"), "{e}");
        let e = err(json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachineDeployment"}));
        assert!(e.contains("render does not read MachineDeployment"), "{e}");
    }
}
