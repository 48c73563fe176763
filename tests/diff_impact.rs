//! `diff`'s rollout impact end to end, on the bundled quick-start class (v1beta1, as a
//! v1.10 core decides): the headline, one section per Cluster, the JSON
//! `impact.clusters[]` and `warnings[]`, the refused template edit reported by `diff`
//! and `render --check`, and `--exit-code`.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;

/// The quick-start inputs with one replacement in `file`, in a scratch directory.
fn edited(s: &common::Scratch, name: &str, file: &str, from: &str, to: &str) -> PathBuf {
    let src = common::root().join("fixtures/quickstart/clusters");
    let d = s.path().join(name);
    fs::create_dir_all(&d).unwrap();
    for f in ["class.yaml", "clusters.yaml"] {
        let mut t = fs::read_to_string(src.join(f)).unwrap();
        if f == file {
            assert!(t.contains(from), "{from} not in {f}");
            t = t.replace(from, to);
        }
        fs::write(d.join(f), t).unwrap();
    }
    d
}

/// The quick-start inputs with every Cluster moved from Kubernetes v1.31.2 to v1.32.0.
fn bumped(s: &common::Scratch) -> PathBuf {
    edited(
        s,
        "a",
        "clusters.yaml",
        "version: v1.31.2",
        "version: v1.32.0",
    )
}

fn diff(after: &Path, extra: &[&str]) -> (i32, String, String) {
    let root = common::root();
    let mut cmd = common::bin();
    cmd.current_dir(&root)
        .args(["diff", "-f", "fixtures/quickstart/clusters", "--against"])
        .arg(after)
        .args(extra);
    let o = common::run(&mut cmd, None);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn json(after: &Path) -> Value {
    let (code, out, err) = diff(after, &["--output-format", "json"]);
    assert_eq!(code, 1, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// `(name, action, machines)` of a Cluster's parts, the control plane first.
fn parts(c: &Value) -> Vec<(String, String, u64)> {
    let one = |p: &Value| {
        (
            p["name"].as_str().unwrap().to_string(),
            p["action"].as_str().unwrap().to_string(),
            p["machines"].as_u64().unwrap(),
        )
    };
    let mut out = vec![one(&c["controlPlane"])];
    out.extend(c["machineDeployments"].as_array().unwrap().iter().map(one));
    out
}

fn cluster<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["impact"]["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {v:#}"))
}

#[test]
fn a_version_bump_rolls_every_control_plane_and_machine_deployment() {
    let s = common::Scratch::new("impact-version");
    let after = bumped(&s);
    let v = json(&after);
    let prod = cluster(&v, "prod");
    assert_eq!(prod["action"], "update");
    let p = parts(prod);
    assert_eq!(p[0].1, "rollout");
    assert_eq!(p[0].2, 3);
    assert_eq!(
        p[1..],
        [
            ("md-0".to_string(), "rollout".to_string(), 3),
            ("md-1".into(), "rollout".into(), 2)
        ]
    );
    assert!(prod["controlPlane"]["reasons"]
        .as_array()
        .unwrap()
        .contains(&Value::from("spec.version: v1.31.2 → v1.32.0")));
    let dev = parts(cluster(&v, "dev"));
    assert_eq!((dev[0].1.as_str(), dev[0].2), ("rollout", 1));
    let (code, text, _) = diff(&after, &[]);
    assert_eq!(code, 1);
    assert!(
        text.starts_with("2 Clusters changed · 2 control planes roll (4 machines) · 3 MachineDeployments roll (6 machines)\n"),
        "{text}"
    );
    assert!(text.contains("Cluster default/prod: update\n"), "{text}");
    assert!(
        text.contains("\n# clusters/default/prod: changed,"),
        "{text}"
    );
}

#[test]
fn labels_and_replicas_change_in_place() {
    let s = common::Scratch::new("impact-inplace");
    let after = edited(
        &s,
        "a",
        "clusters.yaml",
        "        name: md-1\n        replicas: 2\n",
        "        name: md-1\n        replicas: 4\n        metadata:\n          labels:\n            tier: gold\n",
    );
    let v = json(&after);
    let p = parts(cluster(&v, "prod"));
    assert_eq!(p[0].1, "none");
    assert_eq!(p[1], ("md-0".to_string(), "none".to_string(), 0));
    assert_eq!(p[2], ("md-1".to_string(), "in-place".to_string(), 4));
    assert!(v["warnings"].as_array().unwrap().is_empty(), "{v:#}");

    let after = edited(
        &s,
        "b",
        "clusters.yaml",
        "        name: md-1\n        replicas: 2\n",
        "        name: md-1\n        replicas: 5\n",
    );
    let v = json(&after);
    let md1 = &cluster(&v, "prod")["machineDeployments"][1];
    assert_eq!(
        (md1["action"].as_str(), md1["machines"].as_u64()),
        (Some("in-place"), Some(3))
    );
    assert_eq!(
        md1["reasons"],
        serde_json::json!([
            "spec.replicas: 2 → 5",
            "from Cluster spec.topology.workers.machineDeployments[md-1].replicas"
        ])
    );
}

#[test]
fn reasons_name_the_variable_and_the_patches_it_came_through() {
    let s = common::Scratch::new("impact-origin");
    // prod's registry (the `registry` patch: the control plane only) and its machine
    // image (the `machine` patch: the control plane and the `*-worker` classes).
    let after = edited(
        &s,
        "a",
        "clusters.yaml",
        "      value: mirror.example.com\n    - name: machine\n      value:\n        image: kindest/node:v1.31.2\n",
        "      value: mirror.example.org\n    - name: machine\n      value:\n        image: kindest/node:v1.31.3\n",
    );
    let v = json(&after);
    let prod = cluster(&v, "prod");
    let reasons = |p: &Value| -> Vec<String> {
        p["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| {
                r.as_str()
                    .filter(|r| r.starts_with("from "))
                    .map(String::from)
            })
            .collect()
    };
    assert_eq!(
        reasons(&prod["controlPlane"]),
        ["from variable machine", "from variable registry"]
    );
    for md in prod["machineDeployments"].as_array().unwrap() {
        assert_eq!(md["action"], "rollout", "{md}");
        assert_eq!(reasons(md), ["from variable machine"], "{md}");
    }
    assert!(v["impact"]["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["name"] != "dev"));
}

#[test]
fn a_class_patch_change_rolls_every_cluster_and_names_the_patch() {
    let s = common::Scratch::new("impact-class-patch");
    // The `machine` patch (the control plane and the `*-worker` classes) preloads an image.
    let after = edited(
        &s,
        "a",
        "class.yaml",
        "        path: /spec/template/spec/preLoadImages\n        value: []\n",
        "        path: /spec/template/spec/preLoadImages\n        value: [registry.example.com/app:v1]\n",
    );
    let v = json(&after);
    for c in ["dev", "prod"] {
        for p in parts(cluster(&v, c)) {
            assert_eq!(p.1, "rollout", "{c}: {p:?}");
        }
        let cp = &cluster(&v, c)["controlPlane"];
        assert!(
            cp["reasons"]
                .as_array()
                .unwrap()
                .contains(&Value::from("from ClusterClass patch machine")),
            "{c}: {cp}"
        );
    }
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w.as_str().unwrap().starts_with(
            "ClusterClass default/quickstart changes roll 2 Clusters (10 machines replaced): default/dev, default/prod"
        )),
        "{warnings:?}"
    );
}

#[test]
fn a_class_template_edit_rolls_every_cluster_and_is_refused_by_render_and_check() {
    let s = common::Scratch::new("impact-class");
    let after = edited(
        &s,
        "a",
        "class.yaml",
        "      extraMounts: []\n",
        "      extraMounts:\n      - containerPath: /x\n        hostPath: /x\n",
    );
    let v = json(&after);
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        warnings.iter().any(|w| w.starts_with(
            "ClusterClass default/quickstart changes roll 2 Clusters (6 machines replaced): default/dev, default/prod; Cluster API recommends a new ClusterClass"
        )),
        "{warnings:#?}"
    );
    assert!(
        warnings.iter().any(|w| w.starts_with("render -o would refuse classes/default/quickstart/dockermachinetemplate-quickstart-worker-machine.yaml: DockerMachineTemplate default/quickstart-worker-machine: spec changed under the same name")),
        "{warnings:#?}"
    );
    for c in ["dev", "prod"] {
        for md in cluster(&v, c)["machineDeployments"].as_array().unwrap() {
            assert_eq!(md["action"], "rollout", "{c}: {md}");
            assert!(
                md["reasons"].as_array().unwrap().contains(&Value::from(
                    "from template DockerMachineTemplate quickstart-worker-machine"
                )),
                "{c}: {md}"
            );
        }
    }

    // `render --check` against a tree of the base reports the refusal too.
    let root = common::root();
    let out = s.path().join("out");
    let mut r = common::bin();
    r.current_dir(&root)
        .args(["render", "-f", "fixtures/quickstart/clusters", "-o"])
        .arg(&out);
    assert!(common::run(&mut r, None).status.success());
    let mut c = common::bin();
    c.current_dir(&root)
        .args(["render", "-f"])
        .arg(&after)
        .arg("-o")
        .arg(&out)
        .arg("--check");
    let o = common::run(&mut c, None);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("Warning: render -o would refuse classes/default/quickstart/dockermachinetemplate-quickstart-worker-machine.yaml: DockerMachineTemplate default/quickstart-worker-machine: spec changed under the same name"),
        "{err}"
    );
}

#[test]
fn a_deleted_cluster_is_warned_with_its_machines() {
    let s = common::Scratch::new("impact-delete");
    let clusters =
        fs::read_to_string(common::root().join("fixtures/quickstart/clusters/clusters.yaml"))
            .unwrap();
    // The first document (dev) removed, prod kept.
    let dev = format!("{}\n---\n", clusters.split("\n---\n").next().unwrap());
    let d = edited(&s, "a", "clusters.yaml", &dev, "");
    let v = json(&d);
    assert_eq!(cluster(&v, "dev")["action"], "delete");
    assert_eq!(
        v["warnings"],
        serde_json::json!([
            "Cluster default/dev is deleted: the workload cluster and its 2 machines are destroyed"
        ])
    );
    let (_, text, _) = diff(&d, &[]);
    assert!(
        text.starts_with("1 Cluster deleted (2 machines)\n! Cluster default/dev is deleted"),
        "{text}"
    );
}

#[test]
fn exit_code_flag_reports_changes_as_2_and_errors_as_1() {
    let s = common::Scratch::new("impact-exit");
    let after = edited(&s, "a", "clusters.yaml", "replicas: 2", "replicas: 3");
    assert_eq!(diff(&after, &["--exit-code"]).0, 2);
    assert_eq!(
        diff(&after, &["--exit-code", "--output-format", "json"]).0,
        2
    );
    let same = common::root().join("fixtures/quickstart/clusters");
    assert_eq!(diff(&same, &["--exit-code"]).0, 0);
    let (code, _, err) = diff(&s.path().join("no-such-dir"), &["--exit-code"]);
    assert_eq!(code, 1, "{err}");
    // Without the flag: diff(1)'s codes.
    assert_eq!(diff(&after, &[]).0, 1);
}

fn git(dir: &Path, args: &[&str]) {
    let o = std::process::Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn base_reads_the_before_side_from_git() {
    let s = common::Scratch::new("impact-base");
    let repo = s.path().join("repo");
    common::copy_quickstart(&repo);
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "base"]);
    let clusters = repo.join("fixtures/quickstart/clusters/clusters.yaml");
    let t = fs::read_to_string(&clusters).unwrap();
    fs::write(&clusters, t.replace("version: v1.31.2", "version: v1.32.0")).unwrap();
    let run = |args: &[&str]| {
        let mut cmd = common::bin();
        cmd.current_dir(&repo).arg("diff").args(args);
        let o = common::run(&mut cmd, None);
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(&[
        "--base",
        "HEAD",
        "-f",
        "fixtures/quickstart/clusters",
        "--exit-code",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(out.starts_with("2 Clusters changed · 2 control planes roll (4 machines) · 3 MachineDeployments roll (6 machines)\n"), "{out}");
    // The same tree at the base revision: no change.
    git(&repo, &["stash", "-q"]);
    let (code, out, err) = run(&[
        "--base",
        "HEAD",
        "-f",
        "fixtures/quickstart/clusters",
        "--exit-code",
    ]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    // A revision that does not hold the path is an error, never a mass deletion.
    let (code, _, err) = run(&[
        "--base",
        "no-such-rev",
        "-f",
        "fixtures/quickstart/clusters",
        "--exit-code",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("--base"), "{err}");
}

/// `--base REV` is never an option to git (issue 55): `--output=FILE` truncated a file
/// outside the repository, `-oFILE` created one, `--remote=PATH` ran upload-archive.
#[test]
fn base_is_never_read_as_an_option() {
    let s = common::Scratch::new("impact-base-options");
    let repo = s.path().join("repo");
    common::copy_quickstart(&repo);
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "base"]);
    let victim = s.path().join("victim.txt");
    fs::write(&victim, "untouched\n").unwrap();
    let created = s.path().join("created.tar");
    let other = s.path().join("other");
    git(s.path(), &["init", "-q", "other"]);
    for rev in [
        format!("--output={}", victim.display()),
        format!("-o{}", created.display()),
        format!("--remote={}", other.display()),
        "--format=zip".to_string(),
        "-".to_string(),
    ] {
        let mut cmd = common::bin();
        cmd.current_dir(&repo)
            .args(["diff", "-f", "fixtures/quickstart/clusters"]);
        cmd.arg(format!("--base={rev}"));
        let o = common::run(&mut cmd, None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            matches!(o.status.code(), Some(1 | 2)),
            "{rev}: {:?} {err}",
            o.status
        );
        assert!(err.contains("not a revision"), "{rev}: {err}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "untouched\n", "{rev}");
        assert!(!created.exists(), "{rev}");
    }
    // A real revision still works.
    let mut cmd = common::bin();
    cmd.current_dir(&repo).args([
        "diff",
        "-f",
        "fixtures/quickstart/clusters",
        "--base",
        "HEAD",
        "--exit-code",
    ]);
    let o = common::run(&mut cmd, None);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn markdown_is_a_pull_request_comment_within_its_budget() {
    let s = common::Scratch::new("impact-markdown");
    let after = bumped(&s);
    let (code, md, err) = diff(&after, &["--output-format", "markdown"]);
    assert_eq!(code, 1, "{err}");
    assert!(md.starts_with("<!-- capi-render diff -->\n### capi-render diff\n\n**2 Clusters changed · 2 control planes roll (4 machines) · 3 MachineDeployments roll (6 machines)**\n"), "{md}");
    assert!(
        md.contains(
            "<details><summary><b>Cluster default/prod</b>: update · 8 machines replaced</summary>"
        ),
        "{md}"
    );
    assert!(
        md.contains("| MachineDeployment `md-1` | rollout | 2 |"),
        "{md}"
    );
    assert!(md.contains("#### Object diffs (2 units)"), "{md}");
    assert!(md.contains("```diff\n"), "{md}");
    assert!(!md.contains("Cut to fit"), "{md}");
    // A small budget keeps the headline and cuts the rest, saying what and where.
    let (_, cut, _) = diff(
        &after,
        &[
            "--output-format",
            "markdown",
            "--comment-budget",
            "1500",
            "--full-report",
            "https://ci.example/r.html",
        ],
    );
    assert!(cut.chars().count() <= 1500, "{}", cut.len());
    assert!(cut.contains("**2 Clusters changed"), "{cut}");
    assert!(
        cut.contains("not shown. The full report: https://ci.example/r.html._\n"),
        "{cut}"
    );
    // No change: the comment still comes (CI updates its comment to say so); exit 0.
    let same = edited(
        &s,
        "b",
        "clusters.yaml",
        "version: v1.31.2",
        "version: v1.31.2",
    );
    let (code, md, _) = diff(&same, &["--output-format", "markdown"]);
    assert_eq!(code, 0);
    assert_eq!(
        md,
        "<!-- capi-render diff -->\n### capi-render diff\n\n**no Cluster changes**\n\n"
    );
}

/// Chromium's command line for a headless run that reaches nothing on the network.
fn chromium(profile: &Path) -> Option<std::process::Command> {
    let bin = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            std::process::Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })?;
    let mut c = std::process::Command::new(bin);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1200,900",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    Some(c)
}

#[test]
fn html_is_one_self_contained_page_that_chromium_renders() {
    let s = common::Scratch::new("impact-html");
    let after = bumped(&s);
    let (code, html, err) = diff(&after, &["--output-format", "html"]);
    assert_eq!(code, 1, "{err}");
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    for external in ["<script", "<link", "src=", "href=", "@import", "url("] {
        assert!(!html.contains(external), "{external} in the page");
    }
    let page = s.path().join("report.html");
    fs::write(&page, &html).unwrap();
    let Some(mut dump) = chromium(&s.path().join("profile")) else {
        assert!(
            std::env::var_os("CAPI_REQUIRE_CHROMIUM").is_none(),
            "CAPI_REQUIRE_CHROMIUM is set but no chromium runs"
        );
        eprintln!("SKIPPED (chromium): html_is_one_self_contained_page_that_chromium_renders: no chromium on PATH");
        return;
    };
    // The DOM Chromium built: the headline, a section per Cluster, the coloured diffs.
    let o = dump.arg("--dump-dom").arg(&page).output().unwrap();
    let dom = String::from_utf8_lossy(&o.stdout);
    assert!(dom.contains("<p class=\"headline\" id=\"headline\">2 Clusters changed · 2 control planes roll (4 machines) · 3 MachineDeployments roll (6 machines)</p>"), "{dom}");
    assert_eq!(
        dom.matches("<details open=\"\"><summary><b>Cluster ")
            .count(),
        2,
        "{dom}"
    );
    assert!(dom.contains("<span class=\"add\">"), "{dom}");
    // And a screenshot of it: a PNG well above an empty page's size.
    let shoot = |name: &str, page: &Path| {
        let shot = s.path().join(format!("{name}.png"));
        let o = chromium(&s.path().join(format!("profile-{name}")))
            .unwrap()
            .arg(format!("--screenshot={}", shot.display()))
            .arg(page)
            .output()
            .unwrap();
        fs::read(&shot).unwrap_or_else(|e| {
            panic!(
                "no screenshot ({e}): {}",
                String::from_utf8_lossy(&o.stderr)
            )
        })
    };
    let png = shoot("report", &page);
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let blank = s.path().join("blank.html");
    fs::write(&blank, "<!DOCTYPE html><html><body></body></html>").unwrap();
    let blank_len = shoot("blank", &blank).len();
    assert!(
        png.len() > 4 * blank_len,
        "{} vs an empty page's {blank_len}",
        png.len()
    );
}

#[test]
fn diff_help_shows_a_real_comment() {
    let s = common::Scratch::new("impact-help");
    let after = bumped(&s);
    let (_, md, _) = diff(
        &after,
        &[
            "--output-format",
            "markdown",
            "--comment-budget",
            "1400",
            "--full-report",
            "https://ci.example/report.html",
        ],
    );
    let help = common::run(common::bin().args(["diff", "--help"]), None);
    let help = String::from_utf8_lossy(&help.stdout);
    let shown: String = md
        .lines()
        .map(|l| {
            if l.is_empty() {
                "\n".to_string()
            } else {
                format!("  {l}\n")
            }
        })
        .collect();
    assert!(
        help.contains(&shown),
        "diff --help does not show:\n{shown}\n---\n{help}"
    );
}

/// `diff --base REV --from-lock OUT`: the inputs and options of the `render` command the
/// tree's lock records, the base side of those inputs read from Git.
#[test]
fn from_lock_takes_the_recorded_inputs() {
    let s = common::Scratch::new("impact-from-lock");
    let repo = s.path().join("repo");
    common::copy_quickstart(&repo);
    let render = common::run(
        common::bin().current_dir(&repo).args([
            "--config",
            "fixtures/quickstart/clusterctl.yaml",
            "render",
            "-f",
            "fixtures/quickstart/providers",
            "-f",
            "fixtures/quickstart/clusters",
            "-o",
            "rendered",
        ]),
        None,
    );
    assert!(
        render.status.success(),
        "{}",
        String::from_utf8_lossy(&render.stderr)
    );
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "base"]);
    let clusters = repo.join("fixtures/quickstart/clusters/clusters.yaml");
    let t = fs::read_to_string(&clusters).unwrap();
    fs::write(
        &clusters,
        t.replacen("version: v1.31.2", "version: v1.32.0", 1),
    )
    .unwrap();
    let run = |args: &[&str]| {
        let o = common::run(
            common::bin().current_dir(&repo).arg("diff").args(args),
            None,
        );
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(&["--base", "HEAD", "--from-lock", "rendered", "--name-only"]);
    assert_eq!((code, out.as_str()), (1, "clusters/default/dev\n"), "{err}");
    // Without --base there is nothing to compare with; -f and the lock's flags clash.
    let (code, _, err) = run(&["--from-lock", "rendered"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&[
        "--base",
        "HEAD",
        "--from-lock",
        "rendered",
        "-f",
        "fixtures/quickstart/clusters",
    ]);
    assert_eq!(code, 2, "{err}");
}

/// Each changed object's verb: a class change to the workers' machine template spec
/// makes the topology controller replace every Cluster's worker template (a new one
/// under a new name), while the class unit's own template is updated by the tree.
#[test]
fn each_changed_object_has_a_verb_and_who_applies_it() {
    let s = common::Scratch::new("impact-verbs");
    let after = edited(
        &s,
        "a",
        "class.yaml",
        "extraMounts: []",
        "extraMounts: [{containerPath: /x, hostPath: /x}]",
    );
    let (code, out, err) = diff(&after, &["--output-format", "json"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let objects: Vec<&serde_json::Value> = v["units"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|u| u["objects"].as_array().unwrap())
        .collect();
    let verbs = |verb: &str| objects.iter().filter(|o| o["verb"] == verb).count();
    assert!(verbs("replace") >= 2, "{out}");
    for o in objects.iter().filter(|o| o["verb"] == "replace") {
        let p = o["path"].as_str().unwrap();
        assert!(p.contains("/desired/dockermachinetemplate-"), "{p}");
    }
    assert!(
        objects
            .iter()
            .any(|o| o["verb"] == "update" && o["appliedBy"] == "tree"),
        "{out}"
    );
    for o in &objects {
        let review = o["path"].as_str().unwrap().contains("/desired/");
        let by = if review {
            "topology controller"
        } else {
            "tree"
        };
        assert_eq!(o["appliedBy"], by, "{o}");
        if o["status"] == "changed" {
            assert!(o["verb"] == "update" || o["verb"] == "replace", "{o}");
        }
    }
}
