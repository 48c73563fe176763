//! Move every object into the target namespace (R7.5); shared by components and
//! cluster templates.

use crate::go::unstructured::{accessor_error, type_name, value_text, Numbers};
use serde_json::Value;

use super::{
    kind, metadata_mut, name, namespace, set_metadata_field, string_map, typed_round_trip, version,
};
use crate::error::{Error, Result};
use crate::typed::K8s;

/// Kinds clusterctl treats as cluster-scoped, by kind name only (group ignored).
pub const CLUSTER_SCOPED_KINDS: [&str; 16] = [
    "Namespace",
    "Node",
    "PersistentVolume",
    "PodSecurityPolicy",
    "CertificateSigningRequest",
    "ClusterRoleBinding",
    "ClusterRole",
    "VolumeAttachment",
    "StorageClass",
    "CSIDriver",
    "CSINode",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "CustomResourceDefinition",
    "PriorityClass",
    "RuntimeClass",
];

pub fn is_namespaced(kind: &str) -> bool {
    !CLUSTER_SCOPED_KINDS.contains(&kind)
}

/// Apply R7.5 to every object; the error is the first object's (by position) that
/// fails. Each object is moved on its own, so with many objects that need the typed
/// round trip (CRDs, webhook configurations, role bindings: most of a provider's
/// components by bytes), or two CRDs or more, they are moved on the thread pool, CRDs
/// first ([`round_trip_weight`]): a kubeadm provider is two CRDs of a quarter of a
/// megabyte each and a dozen small objects, and the two CRDs then convert side by side.
/// On an error the caller drops the list, so objects after the failing one being moved
/// too is not seen.
pub fn fix_target_namespace(objs: &mut [Value], target: &str, k8s: K8s) -> Result<()> {
    let weights = objs.iter().map(|o| round_trip_weight(kind(o)));
    let (typed, crds) = weights.fold((0, 0), |(t, c), w| {
        (t + usize::from(w > 0), c + usize::from(w > 1))
    });
    if typed < PARALLEL_MIN_ROUND_TRIPS && crds < 2 {
        return objs.iter_mut().try_for_each(|o| fix_one(o, target, k8s));
    }
    let results = crate::model::par::map_mut_largest_first(
        objs,
        |o| round_trip_weight(kind(o)),
        |o| fix_one(o, target, k8s),
    );
    results.into_iter().collect()
}

/// From this many typed round trips on, [`fix_target_namespace`] uses the thread pool
/// (below it, and with fewer than two CRDs, waking the pool costs more than it saves).
const PARALLEL_MIN_ROUND_TRIPS: usize = 8;

/// How much of [`fix_one`]'s work an object of this kind is, roughly: a CRD's typed round
/// trip (its schema: tens of thousands of nodes) 2, another round trip 1, no round trip
/// 0 (a few field writes).
fn round_trip_weight(kind: &str) -> usize {
    match kind {
        "CustomResourceDefinition" => 2,
        k if needs_round_trip(k) => 1,
        _ => 0,
    }
}

/// Whether [`fix_one`] converts an object of this kind to its typed struct and back.
fn needs_round_trip(kind: &str) -> bool {
    matches!(
        kind,
        "ClusterRoleBinding"
            | "RoleBinding"
            | "MutatingWebhookConfiguration"
            | "ValidatingWebhookConfiguration"
            | "CustomResourceDefinition"
    )
}

fn fix_one(o: &mut Value, target: &str, k8s: K8s) -> Result<()> {
    let k = kind(o).to_string();
    if k == "Namespace" {
        set_metadata_field(o, "name", Value::String(target.to_string()));
    }
    let original_ns = namespace(o).to_string();
    if is_namespaced(&k) {
        set_metadata_field(o, "namespace", Value::String(target.to_string()));
    }
    match k.as_str() {
        "ClusterRoleBinding" | "RoleBinding" => {
            let mut t = typed_round_trip(o, "rbac.authorization.k8s.io/v1", k8s)?;
            set_subject_namespaces(&mut t, target);
            *o = t;
        }
        "MutatingWebhookConfiguration"
        | "ValidatingWebhookConfiguration"
        | "CustomResourceDefinition" => {
            fix_inject_ca_from(o, target)?;
            let v = version(o).to_string();
            if !matches!(v.as_str(), "v1" | "v1beta1") {
                return Err(Error::new(format!("failed to patch {v} {k}")));
            }
            let g = if k == "CustomResourceDefinition" {
                "apiextensions.k8s.io"
            } else {
                "admissionregistration.k8s.io"
            };
            let mut t = typed_round_trip(o, &format!("{g}/{v}"), k8s)?;
            if k == "CustomResourceDefinition" {
                set_crd_conversion_namespace(&mut t, &v, target);
            } else {
                set_webhook_service_namespaces(&mut t, target);
            }
            *o = t;
        }
        "Certificate" => fix_certificate(o, &original_ns, target)?,
        _ => {}
    }
    Ok(())
}

/// Subjects with a non-empty namespace move to the target.
fn set_subject_namespaces(o: &mut Value, target: &str) {
    if let Some(Value::Array(subjects)) = o.get_mut("subjects") {
        for s in subjects.iter_mut() {
            if let Some(m) = s.as_object_mut() {
                if m.get("namespace")
                    .and_then(Value::as_str)
                    .is_some_and(|n| !n.is_empty())
                {
                    m.insert("namespace".into(), Value::String(target.to_string()));
                }
            }
        }
    }
}

/// `cert-manager.io/inject-ca-from: <ns>/<name>` → `<target>/<name>`.
fn fix_inject_ca_from(o: &mut Value, target: &str) -> Result<()> {
    const KEY: &str = "cert-manager.io/inject-ca-from";
    let Some(mut ann) = string_map(o, "annotations") else {
        return Ok(());
    };
    let Some(v) = ann.get(KEY).and_then(Value::as_str) else {
        return Ok(());
    };
    let parts: Vec<&str> = v.split('/').collect();
    if parts.len() != 2 {
        return Err(Error::new(format!(
            "object {} {} does not have a correct value for {KEY}",
            kind(o),
            name(o)
        )));
    }
    let new = format!("{target}/{}", parts[1]);
    ann.insert(KEY.into(), Value::String(new));
    metadata_mut(o).insert("annotations".into(), Value::Object(ann));
    Ok(())
}

/// Every webhook whose `clientConfig.service` is set gets the target namespace.
fn set_webhook_service_namespaces(o: &mut Value, target: &str) {
    if let Some(Value::Array(hooks)) = o.get_mut("webhooks") {
        for h in hooks.iter_mut() {
            if let Some(svc) = h.get_mut("clientConfig").and_then(|c| c.get_mut("service")) {
                if let Some(m) = svc.as_object_mut() {
                    m.insert("namespace".into(), Value::String(target.to_string()));
                }
            }
        }
    }
}

/// The CRD conversion webhook's service namespace (v1 and v1beta1 paths).
fn set_crd_conversion_namespace(o: &mut Value, version: &str, target: &str) {
    let conv = o.get_mut("spec").and_then(|s| s.get_mut("conversion"));
    let svc = match (version, conv) {
        ("v1beta1", Some(c)) => c
            .get_mut("webhookClientConfig")
            .and_then(|w| w.get_mut("service")),
        ("v1", Some(c)) => c
            .get_mut("webhook")
            .and_then(|w| w.get_mut("clientConfig"))
            .and_then(|w| w.get_mut("service")),
        _ => None,
    };
    if let Some(m) = svc.and_then(Value::as_object_mut) {
        m.insert("namespace".into(), Value::String(target.to_string()));
    }
}

/// `unstructured.NestedStringSlice(obj, "spec", "dnsNames")`: `None` when absent.
fn nested_dns_names(o: &Value) -> std::result::Result<Option<Vec<String>>, String> {
    let Some(spec) = o.get("spec") else {
        return Ok(None);
    };
    let Value::Object(spec) = spec else {
        return Err(accessor_error(
            &["spec", "dnsNames"],
            spec,
            "map[string]interface{}",
            Numbers::Float64,
        ));
    };
    let Some(dns) = spec.get("dnsNames") else {
        return Ok(None);
    };
    let Value::Array(items) = dns else {
        return Err(accessor_error(
            &["spec", "dnsNames"],
            dns,
            "[]interface{}",
            Numbers::Float64,
        ));
    };
    items
        .iter()
        .map(|v| match v {
            Value::String(s) => Ok(s.clone()),
            other => Err(format!(
                ".spec.dnsNames accessor error: contains non-string value in the slice: {} is of the type {}, expected string",
                value_text(other, Numbers::Float64),
                type_name(other, Numbers::Float64)
            )),
        })
        .collect::<std::result::Result<Vec<_>, _>>()
        .map(Some)
}

/// Certificate dnsNames: the first `.<original>.` becomes `.<target>.`.
fn fix_certificate(o: &mut Value, original: &str, target: &str) -> Result<()> {
    let names = nested_dns_names(o).map_err(|e| {
        Error::new(format!(
            "failed to get .spec.dnsNames from Certificate {}/{}: {e}",
            namespace(o),
            name(o)
        ))
    })?;
    let Some(names) = names else { return Ok(()) };
    let needle = format!(".{original}.");
    let repl = format!(".{target}.");
    let fixed: Vec<Value> = names
        .iter()
        .map(|d| Value::String(d.replacen(&needle, &repl, 1)))
        .collect();
    if let Some(spec) = o.get_mut("spec").and_then(Value::as_object_mut) {
        spec.insert("dnsNames".into(), Value::Array(fixed));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn namespaced_kinds_move_cluster_scoped_do_not() {
        let mut objs = vec![
            json!({"kind": "Namespace", "metadata": {"name": "old"}}),
            json!({"kind": "ClusterIssuer", "metadata": {"name": "x"}}),
            json!({"kind": "ClusterRole", "metadata": {"name": "r"}}),
            json!({"kind": "Service"}),
        ];
        fix_target_namespace(&mut objs, "new", K8s::V0_32).unwrap();
        assert_eq!(objs[0]["metadata"], json!({"name": "new"}));
        assert_eq!(objs[1]["metadata"]["namespace"], "new");
        assert!(objs[2]["metadata"].get("namespace").is_none());
        assert_eq!(objs[3]["metadata"], json!({"namespace": "new"}));
    }

    #[test]
    fn certificate_first_occurrence_replaced() {
        let mut objs = vec![
            json!({"kind": "Certificate", "metadata": {"namespace": "a"},
            "spec": {"dnsNames": ["svc.a.svc", "x.a.a.svc", "nomatch"]}}),
        ];
        fix_target_namespace(&mut objs, "b", K8s::V0_32).unwrap();
        assert_eq!(
            objs[0]["spec"]["dnsNames"],
            json!(["svc.b.svc", "x.b.a.svc", "nomatch"])
        );
    }

    #[test]
    fn certificate_dns_names_of_the_wrong_type_are_errors() {
        let cert = |dns: Value| {
            vec![
                json!({"kind": "Certificate", "metadata": {"name": "c"}, "spec": {"dnsNames": dns}}),
            ]
        };
        let e = fix_target_namespace(&mut cert(json!("a.b")), "t", K8s::V0_32).unwrap_err();
        assert_eq!(
            e.message(),
            "failed to get .spec.dnsNames from Certificate t/c: .spec.dnsNames accessor error: a.b is of the type string, expected []interface{}"
        );
        let e = fix_target_namespace(&mut cert(json!(["ok", 1.5])), "t", K8s::V0_32).unwrap_err();
        assert!(e.message().ends_with("contains non-string value in the slice: 1.5 is of the type float64, expected string"), "{e}");
    }

    #[test]
    fn bad_inject_ca_from_is_an_error() {
        let mut objs = vec![json!({"apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingWebhookConfiguration",
            "metadata": {"name": "m", "annotations": {"cert-manager.io/inject-ca-from": "a/b/c"}}})];
        let e = fix_target_namespace(&mut objs, "t", K8s::V0_32).unwrap_err();
        assert_eq!(e.message(), "object MutatingWebhookConfiguration m does not have a correct value for cert-manager.io/inject-ca-from");
    }

    #[test]
    fn unsupported_webhook_version_is_an_error() {
        let mut objs = vec![json!({"apiVersion": "admissionregistration.k8s.io/v2",
            "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "m"}})];
        assert_eq!(
            fix_target_namespace(&mut objs, "t", K8s::V0_32)
                .unwrap_err()
                .message(),
            "failed to patch v2 ValidatingWebhookConfiguration"
        );
    }

    /// Kinds of every branch of [`fix_one`], with and without a typed round trip.
    fn mixed_objects(n: usize) -> Vec<Value> {
        (0..n)
            .map(|i| match i % 5 {
                0 => json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                    "metadata": {"name": format!("c{i}"), "annotations": {"cert-manager.io/inject-ca-from": "a/b"}},
                    "spec": {"conversion": {"strategy": "Webhook", "webhook": {"clientConfig":
                        {"service": {"name": "s", "namespace": "a"}}, "conversionReviewVersions": ["v1"]}}}}),
                1 => json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                    "metadata": {"name": format!("r{i}"), "namespace": "a"},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "x"},
                    "subjects": [{"kind": "ServiceAccount", "name": "sa", "namespace": "a"}]}),
                2 => json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
                    "metadata": {"name": format!("v{i}")},
                    "webhooks": [{"name": "w", "clientConfig": {"service": {"name": "s", "namespace": "a"}}}]}),
                3 => json!({"kind": "Certificate", "metadata": {"name": format!("t{i}"), "namespace": "a"},
                    "spec": {"dnsNames": ["svc.a.svc"]}}),
                _ => json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": format!("s{i}")}}),
            })
            .collect()
    }

    #[test]
    fn the_thread_pool_moves_objects_as_one_at_a_time_does() {
        // 40 objects: 24 typed round trips; 6: two CRDs among four.
        for n in [40, 6] {
            moved_on_the_pool_as_one_at_a_time(n);
        }
    }

    fn moved_on_the_pool_as_one_at_a_time(n: usize) {
        let objs = mixed_objects(n);
        let weights: Vec<usize> = objs.iter().map(|o| round_trip_weight(kind(o))).collect();
        assert!(
            weights.iter().filter(|w| **w > 0).count() >= PARALLEL_MIN_ROUND_TRIPS
                || weights.iter().filter(|w| **w > 1).count() >= 2,
            "{n} objects take the pool"
        );
        let mut pooled = objs.clone();
        fix_target_namespace(&mut pooled, "t", K8s::V0_32).unwrap();
        let mut alone = objs.clone();
        for o in &mut alone {
            fix_one(o, "t", K8s::V0_32).unwrap();
        }
        assert_eq!(pooled, alone);
        assert_ne!(pooled, objs);
        // Every typed kind is one `fix_one` converts: a round trip adds the zero
        // fields of its struct (`creationTimestamp: null`).
        for o in &pooled {
            assert_eq!(
                needs_round_trip(kind(o)),
                o["metadata"].get("creationTimestamp").is_some(),
                "{o}"
            );
        }
    }

    #[test]
    fn the_thread_pool_reports_the_first_failing_object() {
        let mut objs = mixed_objects(40);
        objs[23]["apiVersion"] = json!("admissionregistration.k8s.io/v2");
        objs[7]["apiVersion"] = json!("admissionregistration.k8s.io/v3");
        objs[31]["apiVersion"] = json!("admissionregistration.k8s.io/v4");
        let e = fix_target_namespace(&mut objs, "t", K8s::V0_32).unwrap_err();
        assert_eq!(
            e.message(),
            "failed to patch v3 ValidatingWebhookConfiguration"
        );
    }
}
