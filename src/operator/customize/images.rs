//! R8: image overrides from the operator's own clusterctl config (`images:` keyed by
//! `all`, `<component>`, `<component>/<imageName>`, unioned in that order —
//! [`crate::image::alter_image`]), applied after patches to every container and init
//! container of every Deployment and DaemonSet (`imageOverrides`, `fixImages`).
//!
//! Differences from clusterctl's own image step
//! ([`crate::components::filters::fix_images`]):
//!
//! * the step is skipped entirely when the operator has no clusterctl config (`None`);
//!   with one (even without `images:`) every Deployment/DaemonSet is round-tripped
//!   through its typed apps/v1 struct and every image parsed;
//! * an image that is valid but not canonical (`nginx:1.0`) is left unchanged instead
//!   of failing; other parse errors still fail;
//! * errors read inside-out: `<err>: failed to fix image for container <c>: failed to
//!   fix containers: failed to fix containers in deployment <name>` (`daemonset` for
//!   DaemonSets).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::components::filters::{kind, name, typed_round_trip};
use crate::config::ImageMeta;
use crate::error::{Error, Result};
use crate::image::alter_image;

/// What `reference.ErrNameNotCanonical` reads like once clusterctl has wrapped it.
const NOT_CANONICAL: &str = "couldn't parse image name: repository name must be canonical";

/// The operator's `alterImage`.
fn alter(images: &BTreeMap<String, ImageMeta>, component: &str, image: &str) -> Result<String> {
    match alter_image(Some(images), component, image) {
        Err(e) if e.message() == NOT_CANONICAL => Ok(image.to_string()),
        other => other,
    }
}

fn fix_list(
    list: Option<&mut Value>,
    images: &BTreeMap<String, ImageMeta>,
    component: &str,
) -> Result<()> {
    let Some(Value::Array(items)) = list else {
        return Ok(());
    };
    for c in items.iter_mut() {
        let Some(m) = c.as_object_mut() else { continue };
        let cname = m
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let img = m
            .get("image")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let new = alter(images, component, &img)
            .map_err(|e| Error::new(format!("{e}: failed to fix image for container {cname}")))?;
        if new.is_empty() {
            m.remove("image");
        } else {
            m.insert("image".into(), Value::String(new));
        }
    }
    Ok(())
}

/// `imageOverrides(component, overrides)` over the object list.
pub fn apply_image_overrides(
    mut objs: Vec<Value>,
    images: Option<&BTreeMap<String, ImageMeta>>,
    component: &str,
) -> Result<Vec<Value>> {
    let Some(images) = images else {
        return Ok(objs);
    };
    for o in objs.iter_mut() {
        let what = match kind(o) {
            "Deployment" => "deployment",
            "DaemonSet" => "daemonset",
            _ => continue,
        };
        let mut typed = typed_round_trip(o, "apps/v1")?;
        let n = name(o).to_string();
        let wrap = |e: Error, part: &str| {
            Error::new(format!(
                "{e}: failed to fix {part}: failed to fix containers in {what} {n}"
            ))
        };
        if let Some(spec) = typed
            .get_mut("spec")
            .and_then(|s| s.get_mut("template"))
            .and_then(|t| t.get_mut("spec"))
            .and_then(Value::as_object_mut)
        {
            fix_list(spec.get_mut("containers"), images, component)
                .map_err(|e| wrap(e, "containers"))?;
            fix_list(spec.get_mut("initContainers"), images, component)
                .map_err(|e| wrap(e, "init containers"))?;
        }
        *o = typed;
    }
    Ok(objs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(repo: &str, tag: &str) -> ImageMeta {
        ImageMeta {
            repository: repo.into(),
            tag: tag.into(),
        }
    }

    fn objs() -> Vec<Value> {
        vec![
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "capi-controller-manager", "namespace": "n"},
                   "spec": {"selector": {}, "template": {"spec": {
                       "containers": [{"name": "manager", "image": "registry.k8s.io/cluster-api/cluster-api-controller:v1.10.0"},
                                      {"name": "short", "image": "nginx:1.0"}],
                       "initContainers": [{"name": "init", "image": "gcr.io/x/init:1"}]}}}}),
            json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds", "namespace": "n"},
                   "spec": {"selector": {}, "template": {"spec": {"containers": [{"name": "c", "image": "gcr.io/x/ds:1"}]}}}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "gcr.io/x/p:1"}]}}),
        ]
    }

    fn images(o: &Value, field: &str) -> Vec<String> {
        o["spec"]["template"]["spec"][field]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["image"].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn none_skips_the_step() {
        assert_eq!(
            apply_image_overrides(objs(), None, "cluster-api").unwrap(),
            objs()
        );
    }

    #[test]
    fn all_component_and_image_keys_union_non_canonical_unchanged() {
        let mut m = BTreeMap::new();
        m.insert("all".to_string(), meta("mirror.io/all", ""));
        m.insert("cluster-api".to_string(), meta("", "v9"));
        m.insert("cluster-api/init".to_string(), meta("mirror.io/init", ""));
        let out = apply_image_overrides(objs(), Some(&m), "cluster-api").unwrap();
        assert_eq!(
            images(&out[0], "containers"),
            ["mirror.io/all/cluster-api-controller:v9", "nginx:1.0"]
        );
        assert_eq!(
            images(&out[0], "initContainers"),
            ["mirror.io/init/init:v9"]
        );
        assert_eq!(images(&out[1], "containers"), ["mirror.io/all/ds:v9"]);
        assert_eq!(out[2], objs()[2]);
        // The typed round trip ran (creationTimestamp appears).
        assert!(out[1]["metadata"].get("creationTimestamp").is_some());
    }

    #[test]
    fn empty_config_still_round_trips() {
        let out = apply_image_overrides(objs(), Some(&BTreeMap::new()), "cluster-api").unwrap();
        assert!(out[0]["metadata"].get("creationTimestamp").is_some());
        assert_eq!(images(&out[0], "containers")[1], "nginx:1.0");
    }

    #[test]
    fn invalid_images_fail_inside_out() {
        let mut o = objs();
        o[1]["spec"]["template"]["spec"]["containers"][0]["image"] = json!("gcr.io/Bad/x:1");
        let e = apply_image_overrides(o, Some(&BTreeMap::new()), "c").unwrap_err();
        assert!(
            e.message().starts_with("couldn't parse image name: "),
            "{e}"
        );
        assert!(e.message().ends_with(": failed to fix image for container c: failed to fix containers: failed to fix containers in daemonset ds"), "{e}");
    }
}
