//! Image overrides on Deployments and DaemonSets, and the image list (R7.3, R7.4).
//!
//! clusterctl converts every Deployment and DaemonSet to its typed `apps/v1` struct
//! and back, whether or not an override is configured; the round trip's side
//! effects come from [`crate::typed`].

use std::collections::BTreeMap;

use serde_json::Value;

use super::{kind, name, typed_round_trip};
use crate::config::ImageMeta;
use crate::error::{Error, Result};
use crate::image::alter_image;
use crate::typed::K8s;

fn pod_spec_mut(o: &mut Value) -> Option<&mut serde_json::Map<String, Value>> {
    o.get_mut("spec")?
        .get_mut("template")?
        .get_mut("spec")?
        .as_object_mut()
}

fn fix_containers(
    list: Option<&mut Value>,
    alter: &dyn Fn(&str) -> Result<String>,
    moves: &mut Vec<(String, String)>,
) -> Result<()> {
    let Some(Value::Array(items)) = list else {
        return Ok(());
    };
    for c in items.iter_mut() {
        let cname = c
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let img = c
            .get("image")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let new = alter(&img)
            .map_err(|e| e.wrap(format!("failed to fix image for container {cname}")))?;
        moves.push((img, new.clone()));
        if let Some(m) = c.as_object_mut() {
            if new.is_empty() {
                m.remove("image");
            } else {
                m.insert("image".into(), Value::String(new));
            }
        }
    }
    Ok(())
}

/// Round-trip every Deployment/DaemonSet and pass each container then init
/// container image through `alter_image` with the provider's manifest label. Returns
/// each image as written and as overridden, in that order.
pub fn fix_images(
    objs: &mut [Value],
    images: Option<&BTreeMap<String, ImageMeta>>,
    component: &str,
    k8s: K8s,
) -> Result<Vec<(String, String)>> {
    let alter = |img: &str| alter_image(images, component, img);
    let mut moves = Vec::new();
    for o in objs.iter_mut() {
        let what = match kind(o) {
            "Deployment" => "deployment",
            "DaemonSet" => "deamonSet",
            _ => continue,
        };
        let mut typed = typed_round_trip(o, "apps/v1", k8s)?;
        let n = name(&typed).to_string();
        let wrap = |e: Error| e.wrap(format!("failed to fix containers in {what} {n}"));
        if let Some(spec) = pod_spec_mut(&mut typed) {
            fix_containers(spec.get_mut("containers"), &alter, &mut moves)
                .map_err(|e| wrap(e.wrap("failed to fix containers")))?;
            fix_containers(spec.get_mut("initContainers"), &alter, &mut moves)
                .map_err(|e| wrap(e.wrap("failed to fix init containers")))?;
        }
        *o = typed;
    }
    Ok(moves)
}

/// Images of every Deployment/DaemonSet: containers then init containers, in
/// object order, duplicates kept.
pub fn inspect_images(objs: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    for o in objs
        .iter()
        .filter(|o| matches!(kind(o), "Deployment" | "DaemonSet"))
    {
        let spec = o
            .get("spec")
            .and_then(|s| s.get("template"))
            .and_then(|t| t.get("spec"));
        for field in ["containers", "initContainers"] {
            if let Some(Value::Array(cs)) = spec.and_then(|s| s.get(field)) {
                out.extend(cs.iter().map(|c| {
                    c.get("image")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                }));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment(images: &[&str], init: &[&str]) -> Value {
        let cs: Vec<Value> = images
            .iter()
            .map(|i| json!({"name": "c", "image": i}))
            .collect();
        let ics: Vec<Value> = init
            .iter()
            .map(|i| json!({"name": "i", "image": i}))
            .collect();
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
               "spec": {"template": {"spec": {"containers": cs, "initContainers": ics}}}})
    }

    #[test]
    fn images_listed_containers_then_init() {
        let objs = vec![deployment(
            &["gcr.io/a/b:1", "gcr.io/a/c:1"],
            &["gcr.io/a/init:1"],
        )];
        assert_eq!(
            inspect_images(&objs),
            ["gcr.io/a/b:1", "gcr.io/a/c:1", "gcr.io/a/init:1"]
        );
    }

    #[test]
    fn overrides_applied_to_every_container() {
        let mut m = BTreeMap::new();
        m.insert(
            "all".to_string(),
            ImageMeta {
                repository: "mirror.io/x".into(),
                name: String::new(),
                tag: String::new(),
            },
        );
        let mut objs = vec![deployment(&["gcr.io/a/b:1"], &["gcr.io/a/init:2"])];
        let moves = fix_images(&mut objs, Some(&m), "cluster-api", K8s::V0_32).unwrap();
        assert_eq!(
            inspect_images(&objs),
            ["mirror.io/x/b:1", "mirror.io/x/init:2"]
        );
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(
            moves,
            [
                pair("gcr.io/a/b:1", "mirror.io/x/b:1"),
                pair("gcr.io/a/init:2", "mirror.io/x/init:2")
            ]
        );
    }

    #[test]
    fn short_image_names_fail_with_the_container_named() {
        let mut objs = vec![deployment(&["nginx:1.0"], &[])];
        let e = fix_images(&mut objs, None, "p", K8s::V0_32).unwrap_err();
        assert!(e.message().starts_with(
            "failed to fix containers in deployment d: failed to fix containers: failed to fix image for container c: couldn't parse image name"
        ), "{e}");
    }
}
