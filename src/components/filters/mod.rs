//! One transformation per file, each a small function over the object list
//! (kustomize's `api/filters` is the model). They run in clusterctl's order,
//! driven by [`super::render`].

pub mod add_namespace;
pub mod common_labels;
pub mod fix_images;
pub mod order;
pub mod target_namespace;

use serde_json::Value;

use crate::model::object::{api_version, group_of, version_of};
use crate::typed::K8s;

pub use crate::model::object::{
    kind, metadata_mut, name, namespace, nested_string_map as string_map, set_metadata_field,
};

/// The group of the object's `apiVersion`.
pub fn group(o: &Value) -> &str {
    group_of(api_version(o))
}

/// The version of the object's `apiVersion`.
pub fn version(o: &Value) -> &str {
    version_of(api_version(o))
}

/// clusterctl's `scheme.Scheme.Convert(obj, &typed)` followed by the conversion back:
/// the object must carry the typed struct's `target` apiVersion; its content then
/// goes through [`crate::typed::round_trip_as`] in `k8s`'s Go types (the release the
/// clusterctl or operator followed is built on).
pub fn typed_round_trip(o: &Value, target: &str, k8s: K8s) -> crate::Result<Value> {
    let k = kind(o);
    let av = api_version(o);
    if av != target {
        let (tg, tv) = target.split_once('/').unwrap_or(("", target));
        let registered = group_of(av) == tg && crate::typed::is_supported(av, k)
            || matches!(
                (group_of(av), version_of(av)),
                ("apps", "v1beta1" | "v1beta2")
                    | ("rbac.authorization.k8s.io", "v1beta1" | "v1alpha1")
            );
        return Err(crate::Error::new(if registered {
            format!(
                "converting ({}.{k}) to ({tv}.{k}): unknown conversion",
                version_of(av)
            )
        } else {
            format!("no kind \"{k}\" is registered for version \"{av}\" in scheme \"pkg/runtime/scheme.go:100\"")
        }));
    }
    crate::typed::round_trip_as(k8s, o, target, k)
        .map_err(|e| crate::typed::scheme_convert_error(target, k, &e))
}
