//! `capi-render render -o / --check` and `capi-render krm` through the binary: exit
//! codes (0 / 1 drift / 2 error in check mode), masked diffs, and, on the corpus
//! (`$CAPI_CORPUS`, default `../shared/corpus`; skipped when absent), determinism,
//! idempotence and pruning of the real four providers.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_capi-render")
}

fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct Scratch(PathBuf);
impl Scratch {
    fn new(tag: &str) -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "capi-render-gitops-cli-{}-{tag}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
}
impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, fs::read(e.path()).unwrap())
        })
        .collect()
}

/// Our synthetic core provider (fixtures/gitops/synthetic) in `dir`; returns the
/// `--repository` argument (this crate's fixtures/repository).
fn synthetic(dir: &Path) -> String {
    for f in ["providers.yaml", "variables.yaml"] {
        fs::copy(
            crate_root().join("fixtures/gitops/synthetic").join(f),
            dir.join(f),
        )
        .unwrap();
    }
    crate_root()
        .join("fixtures/repository")
        .display()
        .to_string()
}

#[test]
fn check_mode_exit_codes_and_masked_diff() {
    let d = Scratch::new("codes");
    let repo = synthetic(&d.0);
    let r = |extra: &[&str]| {
        let mut a = vec![
            "render",
            "-f",
            "providers.yaml",
            "-f",
            "variables.yaml",
            "--repository",
            &repo,
            "-o",
            "out",
        ];
        a.extend_from_slice(extra);
        run(&d.0, &a)
    };
    let o = r(&[]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert!(d.0.join("out/kustomization.yaml").is_file());
    let o = r(&["--check"]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert!(o.stdout.is_empty());

    // A changed variable changes the rendered Secret: the diff says so, masked.
    let vars = fs::read_to_string(d.0.join("variables.yaml")).unwrap();
    fs::write(
        d.0.join("variables.yaml"),
        vars.replace("s3cr3t-token-one", "s3cr3t-token-two"),
    )
    .unwrap();
    let o = r(&["--check"]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    let diff = text(&o.stdout);
    let sec = "providers/synth-system/core-cluster-api/secret-synth-credentials.yaml";
    assert!(
        diff.contains(&format!("--- a/{sec}\n+++ b/{sec}\n")),
        "{diff}"
    );
    assert!(
        diff.contains("-  token: <masked>\n+  token: '<masked: changed>'\n"),
        "{diff}"
    );
    assert!(diff.contains("   region: <masked>\n"), "{diff}");
    assert!(
        !diff.contains("s3cr3t") && !diff.contains("eu-west-1"),
        "{diff}"
    );
    assert!(!text(&o.stderr).contains("s3cr3t"));
    let o = r(&[]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    // The summary, after the warnings naming the files that hold config Secret values
    // (`--secrets keep` left implicit).
    let stderr = text(&o.stderr);
    assert_eq!(
        stderr.trim_end().lines().last(),
        Some("out: 2 written, 19 unchanged, 0 removed")
    );
    assert!(
        stderr.contains(&format!("Warning: out/{sec}: holds a value")),
        "{stderr}"
    );

    // Drift: a hand edit, and a file of the lock that is no longer produced (a Secret).
    // The lock records the sha256 of what was written, so the stale file is ours.
    let old_secret =
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: aHVudGVyMg==\n";
    let lock = fs::read_to_string(d.0.join("out/capi-render.lock")).unwrap();
    let lock = lock.replace(
        "outputs:\n",
        &format!(
            "outputs:\n- path: old-secret.yaml\n  sha256: {}\n",
            capi_render::model::sha256_hex(old_secret.as_bytes())
        ),
    );
    fs::write(d.0.join("out/capi-render.lock"), lock).unwrap();
    fs::write(d.0.join("out/old-secret.yaml"), old_secret).unwrap();
    fs::write(d.0.join("out/kustomization.yaml"), "resources: []\n").unwrap();
    let before = snapshot(&d.0.join("out"));
    let o = r(&["--check"]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    let diff = text(&o.stdout);
    assert!(
        diff.contains("--- a/kustomization.yaml\n+++ b/kustomization.yaml\n"),
        "{diff}"
    );
    assert!(
        diff.contains("--- a/old-secret.yaml\n+++ /dev/null\n"),
        "{diff}"
    );
    assert!(diff.contains("-  password: <masked>\n"), "{diff}");
    assert!(
        diff.contains("--- a/capi-render.lock\n+++ b/capi-render.lock\n"),
        "{diff}"
    );
    assert!(!diff.contains("aHVudGVyMg=="), "{diff}");
    assert_eq!(snapshot(&d.0.join("out")), before, "--check wrote");

    // Errors are 2 in check mode, 1 otherwise.
    let o = run(
        &d.0,
        &["render", "-f", "missing.yaml", "-o", "out", "--check"],
    );
    assert_eq!(code(&o), 2);
    assert!(
        text(&o.stderr).contains("missing.yaml"),
        "{}",
        text(&o.stderr)
    );
    let o = run(&d.0, &["render", "-f", "missing.yaml", "-o", "out"]);
    assert_eq!(code(&o), 1);

    // The render brings the tree back and removes the stale file.
    let o = r(&[]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert!(!d.0.join("out/old-secret.yaml").exists());
    let o = r(&["--check"]);
    assert_eq!(code(&o), 0, "{}", text(&o.stdout));
}

fn krm(dir: &Path, input: &str) -> Output {
    let mut c = Command::new(bin())
        .arg("krm")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    c.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    c.wait_with_output().unwrap()
}

#[test]
fn krm_function_answers_with_a_resource_list() {
    let d = Scratch::new("krm");
    let rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  apiVersion: capi-render.io/v1alpha1\n  kind: RenderConfig\n  metadata:\n    name: x\n  spec:\n    inputs: [nope.yaml]\n";
    let o = krm(&d.0, rl);
    assert_eq!(code(&o), 1);
    let v = capi_render::yaml::parse_value(&text(&o.stdout)).unwrap();
    assert_eq!(v["kind"], "ResourceList");
    assert_eq!(v["results"][0]["severity"], "error");
    assert!(v["results"][0]["message"]
        .as_str()
        .unwrap()
        .contains("nope.yaml"));
    let o = krm(&d.0, "kind: Nope\n");
    assert_eq!(code(&o), 1);
    assert!(text(&o.stdout).contains("ResourceList"));
}

mod common;
use common::corpus;

#[cfg(unix)]
#[test]
fn corpus_tree_is_deterministic_idempotent_and_pruned() {
    use std::os::unix::fs::MetadataExt;
    let Some(corpus) = corpus() else { return };
    // Two working directories, so that the two renders share nothing but the inputs.
    let (d, d2) = (Scratch::new("corpus"), Scratch::new("corpus2"));
    let all =
        fs::read_to_string(crate_root().join("fixtures/gitops/corpus/providers.yaml")).unwrap();
    for w in [&d, &d2] {
        std::os::unix::fs::symlink(corpus.join("repository"), w.0.join("repository")).unwrap();
        fs::write(w.0.join("providers.yaml"), &all).unwrap();
    }
    let args = [
        "render",
        "-f",
        "providers.yaml",
        "--repository",
        "repository",
        "-o",
        "a",
        "--flux",
    ];
    let o = run(&d.0, &args);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let o = run(&d2.0, &args);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let (a, b) = (snapshot(&d.0.join("a")), snapshot(&d2.0.join("a")));
    let differ: Vec<&String> = a
        .keys()
        .chain(b.keys())
        .filter(|k| a.get(*k) != b.get(*k))
        .collect();
    assert!(differ.is_empty(), "two renders differ in {differ:?}");
    assert!(a.len() > 20, "{:?}", a.keys());
    for dir in [
        "providers/capi-system/core-cluster-api",
        "providers/capi-kubeadm-bootstrap-system/bootstrap-kubeadm",
        "providers/capi-kubeadm-control-plane-system/control-plane-kubeadm",
        "providers/capd-system/infrastructure-docker",
    ] {
        assert!(
            a.contains_key(&format!("{dir}/kustomization.yaml")),
            "{dir}"
        );
    }
    let lock = text(&a["capi-render.lock"]);
    assert!(
        lock.contains("version: v1.10.10") && lock.contains("contract: v1beta1"),
        "{lock}"
    );
    assert!(
        !lock.contains(&corpus.display().to_string()),
        "machine path in the lock"
    );

    // Idempotence: same inodes and mtimes.
    let meta = |p: &str| {
        let m = fs::metadata(d.0.join("a").join(p)).unwrap();
        (m.ino(), m.mtime(), m.mtime_nsec())
    };
    let before: BTreeMap<_, _> = a.keys().map(|k| (k.clone(), meta(k))).collect();
    let o = run(&d.0, &args);
    assert!(
        text(&o.stderr).contains(" 0 written, "),
        "{}",
        text(&o.stderr)
    );
    for (k, m) in &before {
        assert_eq!(&meta(k), m, "{k} rewritten");
    }
    let o = run(
        &d.0,
        &[
            "render",
            "-f",
            "providers.yaml",
            "--repository",
            "repository",
            "-o",
            "a",
            "--flux",
            "--check",
        ],
    );
    assert_eq!(code(&o), 0, "{}", text(&o.stdout));

    // Pruning: drop the docker provider from the inputs.
    fs::write(d.0.join("a/OWNERS"), "foreign\n").unwrap();
    let without: Vec<&str> = all
        .split("\n---\n")
        .filter(|doc| !doc.contains("kind: InfrastructureProvider"))
        .collect();
    fs::write(d.0.join("providers.yaml"), without.join("\n---\n")).unwrap();
    let o = run(
        &d.0,
        &[
            "render",
            "-f",
            "providers.yaml",
            "--repository",
            "repository",
            "-o",
            "a",
            "--flux",
            "--check",
        ],
    );
    assert_eq!(code(&o), 1);
    assert!(text(&o.stdout).contains("+++ /dev/null"));
    let o = run(&d.0, &args);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let after = snapshot(&d.0.join("a"));
    assert!(
        !after.keys().any(|k| k.contains("infrastructure-docker")),
        "{:?}",
        after.keys()
    );
    assert_eq!(after["OWNERS"], b"foreign\n");
    assert!(!d.0.join("a/providers/capd-system").exists());
}

#[cfg(unix)]
#[test]
fn krm_output_is_the_stdout_render() {
    let Some(corpus) = corpus() else { return };
    let d = Scratch::new("krm-corpus");
    std::os::unix::fs::symlink(corpus.join("repository"), d.0.join("repository")).unwrap();
    let all =
        fs::read_to_string(crate_root().join("fixtures/gitops/corpus/providers.yaml")).unwrap();
    fs::write(d.0.join("providers.yaml"), &all).unwrap();
    let o = run(
        &d.0,
        &[
            "render",
            "-f",
            "providers.yaml",
            "--repository",
            "repository",
            "--stdout",
        ],
    );
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let want = capi_render::yaml::parse_documents(&text(&o.stdout)).unwrap();
    assert!(want.len() > 20);
    // The provider CRs as items (as kustomize passes them, with its annotations), and the
    // functionConfig kustomize adds as a local-config item.
    let mut items: Vec<serde_json::Value> = capi_render::yaml::parse_documents(&all).unwrap();
    for (i, it) in items.iter_mut().enumerate() {
        it["metadata"]["annotations"] = serde_json::json!({
            "config.kubernetes.io/index": i.to_string(),
            "internal.config.kubernetes.io/path": "providers.yaml",
        });
    }
    let fc = serde_json::json!({
        "apiVersion": "capi-render.io/v1alpha1", "kind": "RenderConfig",
        "metadata": {"name": "x", "annotations": {"config.kubernetes.io/local-config": "true"}},
        "spec": {"repository": "repository"},
    });
    items.push(fc.clone());
    let rl = serde_json::json!({
        "apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
        "items": items, "functionConfig": fc,
    });
    let o = krm(&d.0, &capi_render::yaml::to_yaml(&rl));
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let got = capi_render::yaml::parse_value(&text(&o.stdout)).unwrap();
    assert_eq!(got["kind"], "ResourceList");
    assert_eq!(got["items"].as_array().unwrap(), &want);
    // The same through functionConfig inputs, without items.
    let rl = serde_json::json!({
        "apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [],
        "functionConfig": {"apiVersion": "capi-render.io/v1alpha1", "kind": "RenderConfig",
            "metadata": {"name": "x"}, "spec": {"repository": "repository", "inputs": ["providers.yaml"]}},
    });
    let o = krm(&d.0, &capi_render::yaml::to_yaml(&rl));
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let got = capi_render::yaml::parse_value(&text(&o.stdout)).unwrap();
    assert_eq!(got["items"].as_array().unwrap(), &want);
}

#[test]
fn flux_needs_a_repository_relative_path() {
    let d = Scratch::new("flux-abs");
    let repo = synthetic(&d.0);
    let out = d.0.join("out");
    let base = [
        "render",
        "-f",
        "providers.yaml",
        "-f",
        "variables.yaml",
        "--repository",
        &repo,
        "-o",
        out.to_str().unwrap(),
        "--flux",
    ];
    let o = run(&d.0, &base);
    assert_eq!(code(&o), 1);
    assert!(
        text(&o.stderr).contains("--flux-path"),
        "{}",
        text(&o.stderr)
    );
    assert!(!out.exists());
    let mut with_path = base.to_vec();
    with_path.extend_from_slice(&["--flux-path", "deploy/capi"]);
    let o = run(&d.0, &with_path);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let k = fs::read_to_string(out.join("flux/synth-system-core-cluster-api.yaml")).unwrap();
    assert!(
        k.contains("path: ./deploy/capi/providers/synth-system/core-cluster-api\n"),
        "{k}"
    );
}

/// `.pre-commit-hooks.yaml`: the keys pre-commit requires, and entries our CLI accepts.
#[test]
fn pre_commit_hooks_call_real_commands() {
    let hooks_text = fs::read_to_string(crate_root().join(".pre-commit-hooks.yaml")).unwrap();
    let hooks = capi_render::yaml::parse_value(&hooks_text).unwrap();
    let hooks = hooks.as_array().expect("a list of hooks");
    assert!(hooks.iter().any(|h| h["id"] == "capi-render-check"));
    for h in hooks {
        for k in ["id", "name", "entry", "language"] {
            assert!(h[k].is_string(), "{k} in {h}");
        }
        assert_eq!(h["pass_filenames"], false, "{h}");
        let words: Vec<&str> = h["entry"].as_str().unwrap().split_whitespace().collect();
        assert_eq!(words[0], "capi-render");
        let mut args = words[1..].to_vec();
        args.push("--help");
        let o = Command::new(bin()).args(&args).output().unwrap();
        assert_eq!(code(&o), 0, "{:?}: {}", args, text(&o.stderr));
    }
}

/// `--argocd` and the Flux options: the Applications and Kustomizations carry them, the
/// lock records them, and `--from-lock` replays them (`--check` passes, then a run
/// writes nothing).
#[test]
fn argocd_and_flux_options_are_written_recorded_and_replayed() {
    let d = Scratch::new("argocd");
    synthetic(&d.0);
    common::copy_dir(
        &crate_root().join("fixtures/repository"),
        &d.0.join("repository"),
    );
    fs::create_dir(d.0.join(".git")).unwrap();
    let args = [
        "render",
        "-f",
        "providers.yaml",
        "-f",
        "variables.yaml",
        "--repository",
        "repository",
        "-o",
        "deploy/capi",
        "--flux",
        "--flux-depends-on",
        "infra/cert-manager",
        "--flux-interval",
        "5m",
        "--flux-timeout",
        "2m",
        "--argocd",
        "--argocd-repo",
        "https://git.example.com/mgmt.git",
        "--argocd-revision",
        "main",
    ];
    let o = run(&d.0, &args);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let out = d.0.join("deploy/capi");
    let app = fs::read_to_string(out.join("argocd/synth-system-core-cluster-api.yaml")).unwrap();
    for want in [
        "argocd.argoproj.io/sync-wave: \"0\"",
        "path: deploy/capi/providers/synth-system/core-cluster-api\n",
        "repoURL: https://git.example.com/mgmt.git\n",
        "targetRevision: main\n",
        "argocd.argoproj.io/sync-options: Prune=false",
    ] {
        assert!(app.contains(want), "{want:?} not in\n{app}");
    }
    let apps = fs::read_to_string(out.join("argocd/kustomization.yaml")).unwrap();
    assert!(
        apps.contains("- synth-system-core-cluster-api.yaml"),
        "{apps}"
    );
    let k = fs::read_to_string(out.join("flux/synth-system-core-cluster-api.yaml")).unwrap();
    for want in [
        "interval: 5m\n",
        "timeout: 2m\n",
        "  - name: cert-manager\n    namespace: infra\n",
        "kustomize.toolkit.fluxcd.io/prune: disabled",
    ] {
        assert!(k.contains(want), "{want:?} not in\n{k}");
    }
    let before = snapshot(&out);
    let o = run(&d.0, &["render", "--from-lock", "deploy/capi", "--check"]);
    assert_eq!(code(&o), 0, "{}{}", text(&o.stdout), text(&o.stderr));
    let o = run(&d.0, &["render", "--from-lock", "deploy/capi"]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert_eq!(snapshot(&out), before);
    // Bad values are refused before anything is written.
    for (flag, value) in [
        ("--flux-interval", "soon"),
        ("--argocd-project", "Bad_Project"),
    ] {
        let mut bad = args.to_vec();
        let i = bad.iter().position(|a| *a == flag).unwrap_or(bad.len());
        if i < bad.len() {
            bad[i + 1] = value;
        } else {
            bad.extend_from_slice(&[flag, value]);
        }
        let o = run(&d.0, &bad);
        assert_eq!(code(&o), 1, "{flag}: {}", text(&o.stderr));
        assert!(text(&o.stderr).contains(flag), "{}", text(&o.stderr));
        assert_eq!(snapshot(&out), before);
    }
}
