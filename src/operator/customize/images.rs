//! R8: image overrides from the operator's own clusterctl config (`images:` keyed by
//! `all`, `<component>`, `<component>/<imageName>`, unioned in that order, with
//! `repository`, `name` (Cluster API v1.13, so operator v0.29) and `tag` —
//! [`crate::image::alter_image`]), applied after patches to every container and init
//! container of every Deployment and DaemonSet (`imageOverrides`, `fixImages`).
//!
//! Differences from clusterctl's own image step
//! ([`crate::components::filters::fix_images`]):
//!
//! * the step is skipped entirely when the operator has no clusterctl config (`None`);
//!   with one (even without `images:`) every Deployment/DaemonSet is round-tripped
//!   through its typed apps/v1 struct and every image parsed;
//! * images that do not parse fail, *including* valid but non-canonical ones
//!   (`nginx:1.0`): the operator means to keep those unchanged (`alterImage`,
//!   `isCanonicalError` with `errors.Is(err, reference.ErrNameNotCanonical)`), but
//!   cluster-api's `container.ImageFromString` (v1.13.5) wraps the parse error with `%v`,
//!   so `errors.Is` never sees it and the error propagates (operator.md R8.3 describes
//!   the intent, not what v0.29.0 does; checked with the Go oracle,
//!   `golden/operator-customize/images-non-canonical.json`);
//! * errors read inside-out: `<err>: failed to fix image for container <c>: failed to
//!   fix containers: failed to fix containers in deployment <name>` (`daemonset` for
//!   DaemonSets).

use std::collections::BTreeMap;

use serde_json::Value;

use super::typed;
use crate::components::filters::{kind, name};
use crate::config::ImageMeta;
use crate::error::{Error, Result};
use crate::image::alter_image;

/// The operator's `alterImage`: its non-canonical escape hatch never fires (see above).
fn alter(images: &BTreeMap<String, ImageMeta>, component: &str, image: &str) -> Result<String> {
    alter_image(Some(images), component, image)
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
        let mut typed = typed::round_trip(o)?;
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
            name: String::new(),
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
    fn all_component_and_image_keys_union() {
        let mut m = BTreeMap::new();
        m.insert("all".to_string(), meta("mirror.io/all", ""));
        m.insert("cluster-api".to_string(), meta("", "v9"));
        m.insert("cluster-api/init".to_string(), meta("mirror.io/init", ""));
        let mut o = objs();
        o[0]["spec"]["template"]["spec"]["containers"][1]["image"] =
            json!("docker.io/library/nginx:1.0");
        let out = apply_image_overrides(o, Some(&m), "cluster-api").unwrap();
        assert_eq!(
            images(&out[0], "containers"),
            [
                "mirror.io/all/cluster-api-controller:v9",
                "mirror.io/all/nginx:v9"
            ]
        );
        assert_eq!(
            images(&out[0], "initContainers"),
            ["mirror.io/init/init:v9"]
        );
        assert_eq!(images(&out[1], "containers"), ["mirror.io/all/ds:v9"]);
        assert_eq!(out[2], objs()[2]);
        // The typed round trip ran (DaemonSet status fields appear).
        assert_eq!(out[1]["status"]["numberReady"], json!(0));
    }

    #[test]
    fn empty_config_still_round_trips_and_parses_every_image() {
        let mut o = objs();
        o[0]["spec"]["template"]["spec"]["containers"]
            .as_array_mut()
            .unwrap()
            .pop();
        let out = apply_image_overrides(o, Some(&BTreeMap::new()), "cluster-api").unwrap();
        assert_eq!(out[0]["spec"]["strategy"], json!({}));
        // A non-canonical image fails even without any override configured.
        let e = apply_image_overrides(objs(), Some(&BTreeMap::new()), "cluster-api").unwrap_err();
        assert_eq!(
            e.message(),
            "couldn't parse image name: repository name must be canonical: failed to fix image for container short: failed to fix containers: failed to fix containers in deployment capi-controller-manager"
        );
    }

    #[test]
    fn invalid_images_fail_inside_out() {
        let mut o = objs();
        o[0]["spec"]["template"]["spec"]["containers"]
            .as_array_mut()
            .unwrap()
            .pop();
        o[1]["spec"]["template"]["spec"]["containers"][0]["image"] = json!("gcr.io/Bad/x:1");
        let e = apply_image_overrides(o, Some(&BTreeMap::new()), "c").unwrap_err();
        assert!(
            e.message().starts_with("couldn't parse image name: "),
            "{e}"
        );
        assert!(e.message().ends_with(": failed to fix image for container c: failed to fix containers: failed to fix containers in daemonset ds"), "{e}");
    }
}
