//! `render` over topology Clusters (fleets) and `diff` (change impact), on our own
//! fixtures: the quickstart example and the `value-variable` topology case.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use capi_render::diff::impact;
use capi_render::model::{RenderOptions, RenderSet, UnitKind};
use capi_render::render::render_paths;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fx(p: &str) -> PathBuf {
    root().join("fixtures").join(p)
}

/// The desired objects as the units' objects (`--clusters desired`): what these tests
/// check is the fleet engine; the modes have tests/cluster_modes.rs.
fn opts() -> RenderOptions {
    RenderOptions {
        config: Some(fx("quickstart/clusterctl.yaml")),
        clusters: capi_render::model::ClusterMode::Desired,
        ..Default::default()
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("capi-render-fleet-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn unit<'a>(set: &'a RenderSet, dir: &str) -> &'a capi_render::model::RenderedUnit {
    set.units
        .iter()
        .find(|u| u.dir() == dir)
        .unwrap_or_else(|| panic!("no unit {dir}"))
}

#[test]
fn quickstart_renders_providers_then_clusters_deterministically() {
    let paths = [fx("quickstart/providers"), fx("quickstart/clusters")];
    let a = render_paths(&paths, &opts()).unwrap();
    let b = render_paths(&paths, &opts()).unwrap();
    assert_eq!(common::yaml_stream(&a), common::yaml_stream(&b));
    let dirs: Vec<String> = a.units.iter().map(|u| u.dir()).collect();
    assert_eq!(
        dirs,
        [
            "providers/capi-system/core-cluster-api",
            "providers/synth-bootstrap-system/bootstrap-synth",
            "providers/synth-infrastructure-system/infrastructure-synth",
            "clusters/default/dev",
            "clusters/default/prod",
        ]
    );
    let prod = unit(&a, "clusters/default/prod");
    assert_eq!(prod.kind, UnitKind::Cluster);
    let kinds: Vec<&str> = prod
        .objects
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    // Two MachineDeployments, one health check (md-1 disables it), the Cluster last.
    assert_eq!(
        kinds.iter().filter(|k| **k == "MachineDeployment").count(),
        2
    );
    assert_eq!(
        kinds.iter().filter(|k| **k == "MachineHealthCheck").count(),
        1
    );
    assert_eq!(kinds.last(), Some(&"Cluster"));
    // The dry-run store's artefacts are not desired state.
    for o in &prod.objects {
        assert!(o.get("status").is_none(), "{o}");
        assert!(o["metadata"].get("resourceVersion").is_none(), "{o}");
        assert_ne!(o["metadata"]["name"], "prod-shim");
    }
    // The Cluster points at the generated objects, whose names carry the stable suffix.
    let cluster = prod.objects.last().unwrap();
    let infra = cluster["spec"]["infrastructureRef"]["name"]
        .as_str()
        .unwrap();
    assert!(prod.objects.iter().any(|o| o["metadata"]["name"] == infra));
    assert_eq!(infra.len(), "prod-".len() + 5);
}

#[test]
fn a_cluster_renders_the_same_alone_and_in_a_fleet_of_two_classes() {
    let d = scratch("alone");
    let dev_only = d.join("dev.yaml");
    let text = fs::read_to_string(fx("quickstart/clusters/clusters.yaml")).unwrap();
    fs::write(&dev_only, text.split("\n---\n").next().unwrap()).unwrap();
    let alone = render_paths(&[fx("quickstart/clusters/class.yaml"), dev_only], &opts()).unwrap();
    // Two ClusterClasses (quickstart and the value-variable case's `plain`), three Clusters.
    let fleet = render_paths(
        &[fx("quickstart/clusters"), fx("topology/value-variable")],
        &opts(),
    )
    .unwrap();
    assert_eq!(fleet.units.len(), 3);
    assert_eq!(
        unit(&alone, "clusters/default/dev").objects,
        unit(&fleet, "clusters/default/dev").objects
    );
    let alpha = render_paths(&[fx("topology/value-variable")], &opts()).unwrap();
    assert_eq!(
        unit(&alpha, "clusters/default/alpha").objects,
        unit(&fleet, "clusters/default/alpha").objects
    );
    fs::remove_dir_all(d).unwrap();
}

/// A copy of the quickstart clusters with one text replaced in one file.
fn edited(name: &str, file: &str, from: &str, to: &str) -> PathBuf {
    let d = scratch(name);
    for f in ["class.yaml", "clusters.yaml"] {
        let mut t = fs::read_to_string(fx("quickstart/clusters").join(f)).unwrap();
        if f == file {
            assert!(t.contains(from), "{from} not in {f}");
            t = t.replacen(from, to, 1);
        }
        fs::write(d.join(f), t).unwrap();
    }
    d
}

#[test]
fn impact_of_a_class_change_covers_every_cluster_and_a_cluster_change_only_its_own() {
    let base = render_paths(&[fx("quickstart/clusters")], &opts()).unwrap();
    let class_change = edited(
        "class",
        "class.yaml",
        "minReadySeconds: 5",
        "minReadySeconds: 30",
    );
    let after = render_paths(std::slice::from_ref(&class_change), &opts()).unwrap();
    let i = impact(&base, &after).unwrap();
    assert_eq!(
        i.changed_units,
        ["clusters/default/dev", "clusters/default/prod"]
    );
    assert!(
        i.diff
            .contains("-  minReadySeconds: 5\n+  minReadySeconds: 30\n"),
        "{}",
        i.diff
    );

    let one = edited(
        "one",
        "clusters.yaml",
        "replicas: 3\n      - class",
        "replicas: 4\n      - class",
    );
    let after = render_paths(std::slice::from_ref(&one), &opts()).unwrap();
    let i = impact(&base, &after).unwrap();
    assert_eq!(i.changed_units, ["clusters/default/prod"]);
    assert!(i.diff.contains("+  replicas: 4\n"), "{}", i.diff);
    for d in [class_change, one] {
        fs::remove_dir_all(d).unwrap();
    }
}

fn capi(args: &[&str], dir: &Path) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_capi-render"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn diff_command_exit_codes() {
    let root = root();
    let class_change = edited("cli", "class.yaml", "maxSurge: 1", "maxSurge: 2");
    let after = class_change.to_str().unwrap();
    let (code, out, _) = capi(
        &[
            "diff",
            "-f",
            "fixtures/quickstart/clusters",
            "--against",
            after,
            "--name-only",
        ],
        &root,
    );
    assert_eq!(code, 1);
    // The class unit changed in place; the Clusters' review files show the effect.
    assert_eq!(
        out,
        "classes/default/quickstart\nclusters/default/dev\nclusters/default/prod\n"
    );
    let (code, out, _) = capi(
        &[
            "diff",
            "-f",
            "fixtures/quickstart/clusters",
            "--against",
            "fixtures/quickstart/clusters",
        ],
        &root,
    );
    assert_eq!((code, out.as_str()), (0, ""));
    let (code, _, err) = capi(
        &[
            "diff",
            "-f",
            "fixtures/quickstart/clusters",
            "--against",
            "fixtures/no-such-dir",
        ],
        &root,
    );
    assert_eq!(code, 2);
    assert!(err.contains("--against"), "{err}");
    fs::remove_dir_all(class_change).unwrap();
}

/// `render --stdout` prints units as they come; a Cluster that fails after output
/// began ends the stream with a document no YAML reader accepts, so a consumer of the
/// stream (`kubectl apply -f -`) refuses the partial output as the exit status does.
#[test]
fn stdout_cut_short_by_an_error_is_not_valid_yaml() {
    let d = scratch("broken-stream");
    let clusters = fs::read_to_string(fx("quickstart/clusters/clusters.yaml")).unwrap();
    let broken = clusters.clone()
        + "---\n"
        + &clusters
            .replace("name: dev", "name: dev2")
            .replace("name: prod", "name: prod2")
            .replace("class: quickstart", "class: missing");
    fs::write(d.join("clusters.yaml"), broken).unwrap();
    let class = fx("quickstart/clusters/class.yaml");
    let out = Command::new(env!("CARGO_BIN_EXE_capi-render"))
        .args(["render", "--stdout", "-f"])
        .arg(&class)
        .arg("-f")
        .arg(d.join("clusters.yaml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("Cluster default/dev2"), "{stderr}");
    // The good Clusters came first, then the marker.
    assert!(stdout.contains("name: prod\n"), "{stdout}");
    assert!(stdout.ends_with(capi_render_broken_marker()), "{stdout}");
    assert!(capi_render::yaml::parse_documents(&stdout).is_err());
    // The same inputs without the broken Clusters print a valid stream.
    let ok = Command::new(env!("CARGO_BIN_EXE_capi-render"))
        .args(["render", "--stdout", "-f"])
        .arg(&class)
        .arg("-f")
        .arg(fx("quickstart/clusters/clusters.yaml"))
        .output()
        .unwrap();
    assert!(ok.status.success());
    let text = String::from_utf8(ok.stdout).unwrap();
    assert!(capi_render::yaml::parse_documents(&text).is_ok());
    assert!(stdout.starts_with(&text[..text.len() - 1]));
    let _ = fs::remove_dir_all(&d);
}

fn capi_render_broken_marker() -> &'static str {
    "\n---\n{\"capi-render\": \"render failed: the output above is incomplete, see the error on stderr\"\n"
}
