//! The namespaces unit (issue 42): every namespace the tree applies objects into has a
//! Namespace object applied before them (first in the root kustomization, Flux
//! `dependsOn`, Argo CD's first wave), once in the tree, in `--stdout` and in a sharded
//! render; a Namespace among the inputs is kept as written (labels, annotations), also
//! when it is a provider's own; `--no-namespaces` renders none and refuses a Namespace
//! input, and dropping the unit from a tree is guarded like every unit family.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::{bin, run, snapshot, Scratch};

const NAMESPACES: &str = "apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  labels:
    team: a
  annotations:
    example.com/owner: platform
---
apiVersion: v1
kind: Namespace
metadata:
  name: capi-system
  labels:
    pod-security.kubernetes.io/enforce: privileged
";

/// A repository: the quick start's providers and Clusters (namespace `default`), and
/// the no-patches class with 5 Clusters in namespace `team-a`, and in `team-b`
/// (`fleet-a`, `fleet-b`); with `namespaces.yaml` (the input Namespaces).
fn clone(root: &Path, name: &str) -> PathBuf {
    let d = root.join(name);
    fs::create_dir_all(&d).unwrap();
    for (from, to) in [
        ("fixtures/repository", "repository"),
        ("fixtures/quickstart", "qs"),
    ] {
        let out = Command::new("cp")
            .arg("-r")
            .arg(common::root().join(from))
            .arg(d.join(to))
            .output()
            .unwrap();
        assert!(out.status.success());
    }
    for ns in ["team-a", "team-b"] {
        let dir = d.join(format!("fleet-{}", &ns[5..]));
        common::fleet(&dir, 5, 0, |c| c.to_string());
        for f in ["class.yaml", "clusters.yaml"] {
            let text = fs::read_to_string(dir.join(f)).unwrap();
            let text = text.replace(
                "\nmetadata:\n",
                &format!("\nmetadata:\n  namespace: {ns}\n"),
            );
            fs::write(dir.join(f), text).unwrap();
        }
    }
    fs::write(d.join("namespaces.yaml"), NAMESPACES).unwrap();
    d
}

fn render(dir: &Path, extra: &[&str]) -> Output {
    let mut c = bin();
    c.current_dir(dir).args([
        "render",
        "--config",
        "qs/clusterctl.yaml",
        "-f",
        "qs/providers",
        "-f",
        "qs/clusters",
        "-f",
        "fleet-a",
        "-f",
        "fleet-b",
    ]);
    c.args(extra);
    run(&mut c, None)
}

const TREE: [&str; 6] = [
    "-o",
    "rendered",
    "--flux",
    "--argocd",
    "--argocd-repo",
    "https://git.example.com/mgmt.git",
];

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn yaml(p: &Path) -> Value {
    capi_render::yaml::parse_value(&fs::read_to_string(p).unwrap()).unwrap()
}

fn resources(dir: &Path) -> Vec<String> {
    yaml(&dir.join("kustomization.yaml"))["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// Every Namespace object the tree applies (outside flux/, argocd/ and review files),
/// by name, with the files it is in.
fn namespace_objects(out: &Path) -> BTreeMap<String, Vec<String>> {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in walkdir::WalkDir::new(out).sort_by_file_name() {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(out).unwrap().display().to_string();
        if !e.file_type().is_file()
            || !rel.ends_with(".yaml")
            || rel.starts_with("flux/")
            || rel.starts_with("argocd/")
            || rel.contains("/desired/")
        {
            continue;
        }
        let v = yaml(e.path());
        if v["kind"] == "Namespace" {
            let name = v["metadata"]["name"].as_str().unwrap().to_string();
            found.entry(name).or_default().push(rel);
        }
    }
    found
}

#[test]
fn namespaces_unit_first_once_with_the_inputs_kept_as_written() {
    let s = Scratch::new("namespaces");
    let d = clone(s.path(), "repo");
    ok(render(
        &d,
        &[&["-f", "namespaces.yaml"][..], &TREE].concat(),
    ));
    let out = d.join("rendered");
    // First in the root kustomization; team-a as written, team-b generated; `default`
    // (the quick start's Clusters) is never generated.
    assert_eq!(resources(&out)[0], "namespaces");
    assert_eq!(
        resources(&out.join("namespaces")),
        ["namespace-team-a.yaml", "namespace-team-b.yaml"]
    );
    let a = yaml(&out.join("namespaces/namespace-team-a.yaml"));
    assert_eq!(a["metadata"]["labels"]["team"], "a");
    assert_eq!(
        a["metadata"]["annotations"]["example.com/owner"],
        "platform"
    );
    assert_eq!(
        yaml(&out.join("namespaces/namespace-team-b.yaml")),
        serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-b"}})
    );
    // Every Namespace once in the tree: the provider's own is the input, in its unit.
    let all = namespace_objects(&out);
    assert!(all.values().all(|files| files.len() == 1), "{all:?}");
    assert_eq!(
        all["capi-system"],
        ["providers/capi-system/core-cluster-api/namespace-capi-system.yaml"]
    );
    let capi = yaml(&out.join(&all["capi-system"][0]));
    assert_eq!(
        capi["metadata"]["labels"]["pod-security.kubernetes.io/enforce"],
        "privileged"
    );
    assert!(!all.contains_key("default"));
    // Flux: every other unit depends on it; Argo CD: wave 0 alone.
    let mut units = 0;
    for e in fs::read_dir(out.join("flux")).unwrap() {
        let p = e.unwrap().path();
        let f = p.file_name().unwrap().to_str().unwrap().to_string();
        if f == "kustomization.yaml" {
            continue;
        }
        units += 1;
        let deps = yaml(&p)["spec"]["dependsOn"].clone();
        let on_ns = deps
            .as_array()
            .is_some_and(|a| a.iter().any(|d| d["name"] == "namespaces"));
        assert_eq!(on_ns, f != "namespaces.yaml", "{f}: {deps}");
        let app = yaml(&out.join("argocd").join(&f));
        let wave = app["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"].clone();
        assert_eq!(wave == "0", f == "namespaces.yaml", "{f}: wave {wave}");
    }
    // One Flux Kustomization per unit of the root kustomization.
    assert_eq!(units, resources(&out).len());
    // --stdout: the same Namespaces, once each, first.
    let stdout = ok(render(&d, &["-f", "namespaces.yaml", "--stdout", "-q"])).stdout;
    let docs = capi_render::yaml::parse_documents(&String::from_utf8(stdout).unwrap()).unwrap();
    let names: Vec<&str> = docs
        .iter()
        .filter(|v| v["kind"] == "Namespace")
        .map(|v| v["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(&names[..2], ["team-a", "team-b"]);
    assert_eq!(docs[0]["metadata"]["labels"]["team"], "a");
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    // A second run changes nothing; --check agrees.
    let again = ok(render(
        &d,
        &[&["-f", "namespaces.yaml"][..], &TREE].concat(),
    ));
    assert!(String::from_utf8_lossy(&again.stderr).contains(" 0 written, "));
    ok(render(
        &d,
        &[&["-f", "namespaces.yaml"][..], &TREE, &["--check"]].concat(),
    ));
}

#[test]
fn sharded_renders_carry_the_namespaces_unit_once() {
    let s = Scratch::new("namespaces-shard");
    let single = clone(s.path(), "single");
    ok(render(&single, &TREE));
    let want = snapshot(&single.join("rendered"));
    assert!(want.contains_key("namespaces/namespace-team-b.yaml"));
    let merged = clone(s.path(), "merged");
    for i in 1..=3 {
        ok(render(
            &merged,
            &[&TREE[..], &["--shard", &format!("{i}/3")]].concat(),
        ));
    }
    ok(run(
        bin().current_dir(&merged).args(["merge-locks", "rendered"]),
        None,
    ));
    assert_eq!(snapshot(&merged.join("rendered")), want);
}

#[test]
fn no_namespaces_renders_none_refuses_inputs_and_guards_the_unit() {
    let s = Scratch::new("namespaces-off");
    let d = clone(s.path(), "repo");
    // A Namespace input would be left out: an error naming the file and document.
    let o = render(
        &d,
        &[&["-f", "namespaces.yaml", "--no-namespaces"][..], &TREE].concat(),
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("namespaces.yaml, document 1: Namespace \"team-a\": --no-namespaces"),
        "{e}"
    );
    assert!(!d.join("rendered").exists());
    // A tree with the unit: dropping it is refused, then pruned on request.
    ok(render(&d, &TREE));
    assert!(d.join("rendered/namespaces").is_dir());
    let o = render(&d, &[&TREE[..], &["--no-namespaces"]].concat());
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("files under namespaces/"));
    ok(render(
        &d,
        &[&TREE[..], &["--no-namespaces", "--allow-prune"]].concat(),
    ));
    let out = d.join("rendered");
    assert!(!out.join("namespaces").exists());
    assert!(namespace_objects(&out).is_empty());
    assert!(!resources(&out).contains(&"namespaces".to_string()));
    // Recorded in the lock: --from-lock keeps it off.
    let o = ok(run(
        bin()
            .current_dir(&d)
            .args(["render", "--from-lock", "rendered", "--check"]),
        None,
    ));
    assert!(o.status.success());
}
