//! The namespaces unit (`namespaces/`): a Namespace object for every namespace the
//! tree applies objects into (the providers', the class units', the Clusters') that no
//! unit creates itself, applied before every other unit. A `v1` Namespace among the
//! inputs is kept as written: it replaces the generated one, or the Namespace a
//! provider unit (clusterctl) or cert-manager carries. The namespaces every cluster
//! has ([`SYSTEM`]) are never generated; a Namespace input for one is kept (its labels
//! and annotations are applied; the API server never deletes these namespaces).
//! `--no-namespaces` renders no Namespace at all, and a Namespace input is then an
//! error rather than a silent omission.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::model::{InputObject, RenderedUnit, UnitKind, NAMESPACES_DIR};

/// The namespaces every Kubernetes cluster has: never generated.
pub const SYSTEM: [&str; 4] = ["default", "kube-node-lease", "kube-public", "kube-system"];

/// A core `v1` Namespace.
pub fn is_namespace(v: &Value) -> bool {
    v.get("apiVersion").and_then(Value::as_str) == Some("v1")
        && v.get("kind").and_then(Value::as_str) == Some("Namespace")
}

fn name_of(v: &Value) -> &str {
    v.get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// An input Namespace: the object as written, and where it came from.
#[derive(Debug, Clone)]
pub struct Kept {
    pub value: Value,
    pub file: String,
    pub doc: usize,
}

/// Take the `v1` Namespaces out of `objects` (the others stay, in order), by name.
/// A Namespace without a valid name, two of one name, or any with `no_namespaces` is
/// an error naming the file and document.
pub fn take_inputs(
    objects: &mut Vec<InputObject>,
    no_namespaces: bool,
) -> Result<BTreeMap<String, Kept>> {
    let mut kept: BTreeMap<String, Kept> = BTreeMap::new();
    let mut rest = Vec::with_capacity(objects.len());
    for o in std::mem::take(objects) {
        if !is_namespace(&o.value) {
            rest.push(o);
            continue;
        }
        let at = format!("{}, document {}", o.file, o.doc + 1);
        let name = name_of(&o.value).to_string();
        let fail = |msg: String, hint: &str| {
            Err(Error::new(format!("{at}: Namespace {name:?}: {msg}"))
                .with_hint(hint)
                .in_file(&o.file))
        };
        if no_namespaces {
            return fail(
                "--no-namespaces renders no Namespace, so this one would be left out of the output".into(),
                "remove the Namespace from the inputs (its namespace is managed elsewhere), or render without --no-namespaces to apply it from the tree",
            );
        }
        let errs = crate::provider::dns1123_label_errors(&name);
        if !errs.is_empty() {
            return fail(
                format!("metadata.name is not a namespace name: {}", errs.join("; ")),
                "give the Namespace a DNS-1123 label as metadata.name",
            );
        }
        if let Some(first) = kept.get(&name) {
            return fail(
                format!(
                    "also in {}, document {}",
                    first.file,
                    first.doc + 1
                ),
                "keep one of them: the API server holds one Namespace of a name, and the second would replace the first",
            );
        }
        kept.insert(
            name,
            Kept {
                value: o.value,
                file: o.file,
                doc: o.doc,
            },
        );
    }
    *objects = rest;
    Ok(kept)
}

/// The namespaces `units` apply objects into: each provider's and class unit's own
/// namespace and every object's `metadata.namespace`.
fn used_by(units: &[RenderedUnit]) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for u in units {
        if matches!(u.kind, UnitKind::Provider(_) | UnitKind::Class) {
            used.insert(u.namespace.clone());
        }
        for o in &u.objects {
            if let Some(ns) = o.pointer("/metadata/namespace").and_then(Value::as_str) {
                if !used.contains(ns) {
                    used.insert(ns.to_string());
                }
            }
        }
    }
    used
}

/// The namespaces unit of a run whose other units are `units` (providers,
/// cert-manager, class units) and whose Clusters are in `clusters`, with the input
/// Namespaces `kept`. A unit's own Namespace object named by an input is replaced by
/// the input, in place; every namespace used and created by no unit gets one, the
/// input's or a generated one, as does every other input Namespace. Namespaces in
/// name order; `None` when there is none.
pub fn unit<'a>(
    mut kept: BTreeMap<String, Kept>,
    units: &mut [RenderedUnit],
    clusters: impl IntoIterator<Item = &'a str>,
) -> Option<RenderedUnit> {
    let mut created = BTreeSet::new();
    for u in units.iter_mut() {
        for o in u.objects.iter_mut().filter(|o| is_namespace(o)) {
            let name = name_of(o).to_string();
            if let Some(k) = kept.get(&name) {
                *o = k.value.clone();
            }
            created.insert(name);
        }
    }
    kept.retain(|name, _| !created.contains(name));
    let mut used = used_by(units);
    used.extend(clusters.into_iter().map(str::to_string));
    let mut names: BTreeSet<String> = used
        .into_iter()
        .filter(|n| !n.is_empty() && !created.contains(n) && !SYSTEM.contains(&n.as_str()))
        .collect();
    names.extend(kept.keys().cloned());
    if names.is_empty() {
        return None;
    }
    let objects = names
        .into_iter()
        .map(|n| match kept.remove(&n) {
            Some(k) => k.value,
            None => json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}}),
        })
        .collect();
    Some(RenderedUnit::new(
        UnitKind::Namespaces,
        NAMESPACES_DIR.to_string(),
        NAMESPACES_DIR.to_string(),
        objects,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(name: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    }

    fn input(v: Value, doc: usize) -> InputObject {
        InputObject {
            file: "in.yaml".into(),
            doc,
            value: v,
        }
    }

    fn names(u: &RenderedUnit) -> Vec<&str> {
        u.objects.iter().map(name_of).collect()
    }

    fn provider(ns_name: &str, objects: Vec<Value>) -> RenderedUnit {
        RenderedUnit::new(
            UnitKind::Provider(crate::model::ProviderInfo {
                provider_type: "core".into(),
                kind: "CoreProvider".into(),
                version: "v1.10.0".into(),
                contract: "v1beta1".into(),
                source: String::new(),
                ..Default::default()
            }),
            ns_name.into(),
            "cluster-api".into(),
            objects,
        )
    }

    #[test]
    fn inputs_taken_out_in_order_others_stay() {
        let labelled = json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "team-a", "labels": {"team": "a"}}});
        let mut objs = vec![
            input(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}),
                0,
            ),
            input(labelled.clone(), 1),
            // Not the core Namespace: stays an ordinary input.
            input(
                json!({"apiVersion": "example.io/v1", "kind": "Namespace", "metadata": {"name": "b"}}),
                2,
            ),
        ];
        let kept = take_inputs(&mut objs, false).unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept["team-a"].value, labelled);
        assert_eq!(objs.iter().map(|o| o.doc).collect::<Vec<_>>(), [0, 2]);
    }

    #[test]
    fn bad_duplicate_and_no_namespaces_inputs_are_errors() {
        let e = take_inputs(&mut vec![input(ns("a"), 0), input(ns("a"), 3)], false).unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("in.yaml, document 4") && m.contains("also in in.yaml, document 1"),
            "{m}"
        );
        let e = take_inputs(&mut vec![input(ns("Team_A"), 0)], false).unwrap_err();
        assert!(e.to_string().contains("metadata.name"), "{e}");
        let e = take_inputs(&mut vec![input(ns("a"), 0)], true).unwrap_err();
        assert!(e.to_string().contains("--no-namespaces"), "{e}");
        let mut none = vec![input(json!({"kind": "Secret"}), 0)];
        assert!(take_inputs(&mut none, true).unwrap().is_empty());
    }

    #[test]
    fn used_namespaces_not_created_by_a_unit_and_not_system() {
        let mut units = vec![
            provider(
                "capi-system",
                vec![
                    ns("capi-system"),
                    json!({"kind": "Deployment", "metadata": {"name": "m", "namespace": "capi-system"}}),
                ],
            ),
            RenderedUnit::new(
                UnitKind::Class,
                "shared".into(),
                "quick".into(),
                vec![
                    json!({"kind": "ClusterClass", "metadata": {"name": "quick", "namespace": "shared"}}),
                ],
            ),
        ];
        let u = unit(
            BTreeMap::new(),
            &mut units,
            ["team-b", "default", "team-a", "capi-system", "team-b"],
        )
        .unwrap();
        assert_eq!(u.dir(), "namespaces");
        assert_eq!(names(&u), ["shared", "team-a", "team-b"]);
        assert!(u.objects.iter().all(|o| *o == ns(name_of(o))));
        assert!(unit(BTreeMap::new(), &mut [], ["default", "kube-system"]).is_none());
    }

    #[test]
    fn kept_inputs_replace_generated_and_unit_namespaces() {
        let mut objs = vec![
            input(
                json!({"apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": "team-a", "labels": {"team": "a"}}}),
                0,
            ),
            input(
                json!({"apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": "capi-system", "annotations": {"owner": "platform"}}}),
                1,
            ),
            input(
                json!({"apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": "default", "labels": {"pod-security.kubernetes.io/enforce": "baseline"}}}),
                2,
            ),
            input(ns("unused"), 3),
        ];
        let kept = take_inputs(&mut objs, false).unwrap();
        let mut units = vec![provider("capi-system", vec![ns("capi-system")])];
        let u = unit(kept, &mut units, ["team-a", "team-b"]).unwrap();
        assert_eq!(names(&u), ["default", "team-a", "team-b", "unused"]);
        assert_eq!(
            u.objects[0]["metadata"]["labels"]["pod-security.kubernetes.io/enforce"],
            "baseline"
        );
        assert_eq!(u.objects[1]["metadata"]["labels"]["team"], "a");
        assert_eq!(u.objects[2], ns("team-b"));
        // The provider's own Namespace is the input's, once.
        assert_eq!(units[0].objects.len(), 1);
        assert_eq!(
            units[0].objects[0]["metadata"]["annotations"]["owner"],
            "platform"
        );
    }
}
