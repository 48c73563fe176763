//! `images.txt`: the container images the rendered components run, and their mirror
//! names. A mirror `REG` is applied exactly as the operator will apply it in the
//! cluster: as the clusterctl image override `all: {repository: REG}` (the `images`
//! key of the provider's config Secret, operator.md R5.1.2/R5.3.3), which keeps each
//! image's last path component, tag and digest and replaces everything before it.

use crate::model::pointer::Pointer as _;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::components::filters::fix_images::inspect_images;
use crate::config::ImageMeta;
use crate::error::{Error, Result};
use crate::image::alter_image;

/// The override map for mirror `registry` (`images: {all: {repository: REG}}`).
pub fn mirror_overrides(registry: &str) -> BTreeMap<String, ImageMeta> {
    let mut m = BTreeMap::new();
    m.insert(
        "all".to_string(),
        ImageMeta {
            repository: registry.to_string(),
            name: String::new(),
            tag: String::new(),
        },
    );
    m
}

/// The `images` value to put in a provider's config Secret for mirror `registry`.
pub fn mirror_secret_value(registry: &str) -> String {
    let v = serde_json::json!({ "all": { "repository": registry } });
    crate::yaml::to_yaml(&v)
}

/// Check `--image-registry`: it must form canonical references (`host[:port]/path`).
pub fn check_registry(registry: &str) -> Result<()> {
    let r = registry.trim_end_matches('/');
    if r.is_empty() || r.contains('@') {
        return Err(Error::new(format!(
            "--image-registry {registry:?}: expected HOST[:PORT][/PATH]"
        )));
    }
    crate::image::parse_image(&format!("{r}/probe:v0"))
        .map(|_| ())
        .map_err(|e| e.wrap(format!("--image-registry {registry:?}")))
}

/// The pod spec of a workload object and whether the operator's image overrides
/// reach it (clusterctl and the operator rewrite Deployments and DaemonSets only).
fn pod_spec(o: &Value) -> Option<(&Value, bool)> {
    let kind = o.get("kind").and_then(Value::as_str)?;
    let path = match kind {
        "Deployment" | "DaemonSet" => return Some((o.ptr("/spec/template/spec")?, true)),
        "StatefulSet" | "ReplicaSet" | "Job" => "/spec/template/spec",
        "CronJob" => "/spec/jobTemplate/spec/template/spec",
        "Pod" => "/spec",
        _ => return None,
    };
    Some((o.ptr(path)?, false))
}

fn container_images(spec: &Value) -> impl Iterator<Item = &str> {
    ["containers", "initContainers"]
        .into_iter()
        .filter_map(|f| spec.get(f).and_then(Value::as_array))
        .flatten()
        .filter_map(|c| c.get("image").and_then(Value::as_str))
        .filter(|i| !i.is_empty())
}

/// The images of `objs` (containers and init containers of Deployments, DaemonSets,
/// StatefulSets, ReplicaSets, Jobs, CronJobs and Pods), de-duplicated and sorted.
/// Deployments and DaemonSets are read as clusterctl's `inspectImages` reads them.
pub fn images_of(objs: &[Value]) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = inspect_images(objs)
        .into_iter()
        .filter(|i| !i.is_empty())
        .collect();
    for (spec, _) in objs.iter().filter_map(pod_spec).filter(|(_, o)| !o) {
        out.extend(container_images(spec).map(str::to_string));
    }
    out
}

/// Images of workloads the operator's image override does not reach (kinds other
/// than Deployment and DaemonSet): `(image, "<Kind> <ns>/<name>")`.
pub fn unreachable_by_overrides(objs: &[Value]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for o in objs {
        let Some((spec, false)) = pod_spec(o) else {
            continue;
        };
        let s = |p: &str| o.ptr(p).and_then(Value::as_str).unwrap_or("");
        let what = format!(
            "{} {}/{}",
            s("/kind"),
            s("/metadata/namespace"),
            s("/metadata/name")
        );
        out.extend(container_images(spec).map(|i| (i.to_string(), what.clone())));
    }
    out
}

/// `source → mirror` for every image; two different sources that would land on the
/// same mirror name are an error (the copy step would overwrite one with the other).
pub fn mirror_map(images: &BTreeSet<String>, registry: &str) -> Result<BTreeMap<String, String>> {
    let o = mirror_overrides(registry);
    let mut out = BTreeMap::new();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for src in images {
        let dst = alter_image(Some(&o), "", src).map_err(|e| e.wrap(format!("image {src:?}")))?;
        if let Some(other) = seen.insert(dst.clone(), src.clone()) {
            return Err(Error::new(format!(
                "images {other:?} and {src:?} both mirror to {dst:?}; mirror them by hand or to different registries"
            )));
        }
        out.insert(src.clone(), dst);
    }
    Ok(out)
}

/// What a provider rendered with the mirror as its image override pulls, by source:
/// for each image of `objs`, the image(s) clusterctl's override turned into it
/// (`moves`, [`crate::operator::Processed::image_moves`]), else the image itself —
/// a workload the override does not reach ([`unreachable_by_overrides`]) or an image
/// the operator's customisation set after the override (returned second, with the
/// Deployment or DaemonSet that runs it: the mirror does not reach it either).
pub fn mirror_sources(
    objs: &[Value],
    moves: &[(String, String)],
) -> (BTreeSet<String>, Vec<String>) {
    let mut by_result: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (src, dst) in moves {
        by_result.entry(dst).or_default().push(src);
    }
    let unreachable: BTreeSet<String> = unreachable_by_overrides(objs)
        .into_iter()
        .map(|x| x.0)
        .collect();
    let mut sources = BTreeSet::new();
    let mut customised = Vec::new();
    for img in images_of(objs) {
        match by_result.get(img.as_str()) {
            Some(srcs) => sources.extend(srcs.iter().map(|s| s.to_string())),
            None => {
                if !unreachable.contains(&img) {
                    customised.push(img.clone());
                }
                sources.insert(img);
            }
        }
    }
    (sources, customised)
}

/// `images.txt`: one image a line, or `source -> mirror` lines, sorted by source.
pub fn images_txt(images: &BTreeSet<String>, mirror: Option<&BTreeMap<String, String>>) -> String {
    images
        .iter()
        .map(|i| match mirror.and_then(|m| m.get(i)) {
            Some(d) => format!("{i} -> {d}\n"),
            None => format!("{i}\n"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment(c: &[&str], init: &[&str]) -> Value {
        let cs: Vec<Value> = c.iter().map(|i| json!({"name": "c", "image": i})).collect();
        let is: Vec<Value> = init
            .iter()
            .map(|i| json!({"name": "i", "image": i}))
            .collect();
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "n"},
               "spec": {"selector": {}, "template": {"spec": {"containers": cs, "initContainers": is}}}})
    }

    #[test]
    fn sidecars_and_init_containers_are_listed_once_sorted() {
        let objs = vec![
            deployment(
                &["reg.io/a/m:v1", "reg.io/a/sidecar:v2"],
                &["reg.io/b/init:v3"],
            ),
            deployment(&["reg.io/a/m:v1"], &[]),
            json!({"kind": "ConfigMap", "data": {"image": "x.io/not/an:image"}}),
        ];
        let got: Vec<String> = images_of(&objs).into_iter().collect();
        assert_eq!(
            got,
            ["reg.io/a/m:v1", "reg.io/a/sidecar:v2", "reg.io/b/init:v3"]
        );
    }

    #[test]
    fn other_workloads_are_listed_and_flagged() {
        let job = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "j", "namespace": "n"},
            "spec": {"jobTemplate": {"spec": {"template": {"spec": {
                "containers": [{"name": "c", "image": "reg.io/a/job:v1"}],
                "initContainers": [{"name": "i", "image": "reg.io/a/jobinit:v1"}]}}}}}});
        let sts = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s", "namespace": "n"},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "reg.io/a/sts:v1"}]}}}});
        let objs = vec![deployment(&["reg.io/a/m:v1"], &[]), job, sts];
        let got: Vec<String> = images_of(&objs).into_iter().collect();
        assert_eq!(
            got,
            [
                "reg.io/a/job:v1",
                "reg.io/a/jobinit:v1",
                "reg.io/a/m:v1",
                "reg.io/a/sts:v1"
            ]
        );
        let flagged = unreachable_by_overrides(&objs);
        assert_eq!(
            flagged,
            [
                ("reg.io/a/job:v1".to_string(), "CronJob n/j".to_string()),
                ("reg.io/a/jobinit:v1".to_string(), "CronJob n/j".to_string()),
                ("reg.io/a/sts:v1".to_string(), "StatefulSet n/s".to_string()),
            ]
        );
    }

    #[test]
    fn mirror_keeps_name_tag_and_digest() {
        let d = format!("sha256:{}", "a".repeat(64));
        let imgs: BTreeSet<String> = [
            "registry.k8s.io/cluster-api/cluster-api-controller:v1.10.10".to_string(),
            format!("gcr.io/x/y/capd-manager@{d}"),
        ]
        .into();
        let m = mirror_map(&imgs, "mirror.local:5000/capi/").unwrap();
        assert_eq!(
            m["registry.k8s.io/cluster-api/cluster-api-controller:v1.10.10"],
            "mirror.local:5000/capi/cluster-api-controller:v1.10.10"
        );
        assert_eq!(
            m[&format!("gcr.io/x/y/capd-manager@{d}")],
            format!("mirror.local:5000/capi/capd-manager@{d}")
        );
        let txt = images_txt(&imgs, Some(&m));
        assert_eq!(txt.lines().count(), 2);
        assert!(txt.starts_with("gcr.io/"), "sorted by source: {txt}");
    }

    #[test]
    fn mirror_collisions_and_bad_registries_fail() {
        let imgs: BTreeSet<String> = ["a.io/x/m:v1".to_string(), "b.io/y/m:v1".to_string()].into();
        assert!(mirror_map(&imgs, "mirror.local")
            .unwrap_err()
            .message()
            .contains("both mirror to"));
        assert!(check_registry("mirror.local/Capi").is_err());
        assert!(check_registry("").is_err());
        check_registry("mirror.local:5000/capi").unwrap();
    }

    #[test]
    fn mirror_sources_follow_the_override_and_flag_what_it_missed() {
        let sts = json!({"kind": "StatefulSet", "spec": {"template": {"spec": {
            "containers": [{"name": "c", "image": "reg.io/a/sts:v1"}]}}}});
        let objs = vec![
            deployment(
                &["mirror.local/m:v1", "own.io/x/custom:v9"],
                &["mirror.local/init:v3"],
            ),
            sts,
        ];
        let moves = [
            ("reg.io/a/m:v1", "mirror.local/m:v1"),
            ("reg.io/b/init:v3", "mirror.local/init:v3"),
            ("reg.io/a/gone:v1", "mirror.local/gone:v1"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()));
        let (sources, customised) = mirror_sources(&objs, &moves);
        assert_eq!(
            sources.into_iter().collect::<Vec<_>>(),
            [
                "own.io/x/custom:v9",
                "reg.io/a/m:v1",
                "reg.io/a/sts:v1",
                "reg.io/b/init:v3"
            ],
            "an override result no longer in the objects is not listed"
        );
        assert_eq!(customised, ["own.io/x/custom:v9"]);
    }

    #[test]
    fn the_secret_value_parses_as_the_mirror_overrides() {
        // The Secret's `images` value, read back as clusterctl config, gives the same overrides.
        let cfg_text = format!(
            "images:\n{}",
            mirror_secret_value("mirror.local")
                .lines()
                .map(|l| format!("  {l}\n"))
                .collect::<String>()
        );
        let cfg = crate::config::Config::from_text(
            &cfg_text,
            std::path::Path::new("/x/c.yaml"),
            Default::default(),
        )
        .unwrap();
        assert_eq!(cfg.images.unwrap(), mirror_overrides("mirror.local"));
    }
}
