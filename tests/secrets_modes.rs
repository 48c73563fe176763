//! `render --secrets`: the values of a provider's config Secret stay out of Git with
//! `flux-substitute`, and `keep` (implicit) names every file that carries one. The
//! fixture (`fixtures/secrets/`, ours) is an infrastructure provider whose components
//! take base64 credentials (`${VAULT_B64ENCODED_CREDENTIALS}`), a value embedded in a
//! URL (`https://api-${VAULT_TENANT}.example.com/v1`) and one with a default
//! (`${VAULT_REGION:=eu-west-1}`), and a ConfigMap with a literal `$`.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{bin, run, Scratch};

const UNIT: &str = "providers/vault-system/infrastructure-vault";

fn fixture() -> (PathBuf, String) {
    let root = common::root().join("fixtures/secrets");
    let text = std::fs::read_to_string(root.join("providers.yaml")).unwrap();
    (root, text)
}

/// The config Secret's values, and each in base64 (as a Secret's `data` holds it).
fn values(providers: &str) -> BTreeMap<String, String> {
    let docs = capi_render::yaml::read::parse_documents(providers).unwrap();
    let secret = docs.iter().find(|d| d["kind"] == "Secret").unwrap();
    let sd = secret["stringData"].as_object().unwrap();
    sd.iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().into()))
        .collect()
}

fn b64(s: &str) -> String {
    capi_render::go::base64::encode(s.as_bytes())
}

fn b64_decode(s: &str) -> String {
    String::from_utf8(capi_render::go::base64::decode(s.as_bytes()).unwrap()).unwrap()
}

/// Every text that would give a credential away: each value, base64 of each, and the
/// decoded credentials file's lines.
fn needles(vals: &BTreeMap<String, String>) -> Vec<String> {
    let mut n = Vec::new();
    for v in vals.values() {
        n.push(v.clone());
        n.push(b64(v));
    }
    let creds = b64_decode(&vals["VAULT_B64ENCODED_CREDENTIALS"]);
    n.extend(creds.lines().filter(|l| !l.is_empty()).map(str::to_string));
    n
}

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn render(dir: &Path, inputs: &Path, extra: &[&str]) -> Run {
    // A copy beside the tree where there is one (`--from-lock` reads inside it only).
    let repo = match dir.join("repository").is_dir() {
        true => PathBuf::from("repository"),
        false => common::root().join("fixtures/secrets/repository"),
    };
    let mut cmd = bin();
    cmd.current_dir(dir)
        .arg("--repository")
        .arg(&repo)
        .args(["render", "-f"])
        .arg(inputs)
        .args(extra);
    let o = run(&mut cmd, None);
    Run {
        ok: o.status.success(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn assert_no_value(what: &str, text: &str, vals: &BTreeMap<String, String>) {
    for n in needles(vals) {
        assert!(
            !text.contains(&n),
            "{what}: a config Secret value is in it:\n{text}"
        );
    }
}

const FLUX: &[&str] = &["-o", "out", "--flux", "--flux-path", "out"];

#[test]
fn keep_warns_for_each_file_with_a_value_unless_explicit() {
    let (root, text) = fixture();
    let s = Scratch::new("secrets-keep");
    let r = render(s.path(), &root.join("providers.yaml"), &["-o", "out"]);
    assert!(r.ok, "{}", r.stderr);
    let warned: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("holds a value of the provider's config Secret"))
        .collect();
    assert_eq!(warned.len(), 2, "{}", r.stderr);
    for f in [
        "secret-vault-manager-bootstrap-credentials.yaml",
        "deployment-vault-controller-manager.yaml",
    ] {
        let path = format!("out/{UNIT}/{f}: ");
        assert!(
            warned.iter().any(|l| l.contains(&path)),
            "no warning names {path}\n{}",
            r.stderr
        );
    }
    assert_no_value("stderr", &r.stderr, &values(&text));
    // The files named do hold the values (what the warning is about).
    let tree = common::text_files(&s.path().join("out"));
    let vals = values(&text);
    let secret = &tree[&format!("{UNIT}/secret-vault-manager-bootstrap-credentials.yaml")];
    assert!(secret.contains(&vals["VAULT_B64ENCODED_CREDENTIALS"]));
    // The input config Secret itself is not written into the tree.
    assert!(
        !tree.keys().any(|k| k.contains("vault-variables")),
        "{tree:?}"
    );

    let quiet = render(
        s.path(),
        &root.join("providers.yaml"),
        &["-o", "out", "--secrets", "keep"],
    );
    assert!(quiet.ok, "{}", quiet.stderr);
    assert!(!quiet.stderr.contains("config Secret"), "{}", quiet.stderr);
    let stdout = render(s.path(), &root.join("providers.yaml"), &["--stdout"]);
    assert_eq!(
        stdout.stderr.matches("holds a value").count(),
        2,
        "{}",
        stdout.stderr
    );
}

#[test]
fn flux_substitute_needs_flux() {
    let (root, text) = fixture();
    let s = Scratch::new("secrets-noflux");
    let r = render(
        s.path(),
        &root.join("providers.yaml"),
        &["-o", "out", "--secrets", "flux-substitute"],
    );
    assert!(!r.ok);
    assert!(r.stderr.contains("add --flux"), "{}", r.stderr);
    assert!(!s.path().join("out").exists());
    assert_no_value("stderr", &r.stderr, &values(&text));
}

/// `${VAR}` replaced by its value, as Flux's non-strict substitution does for the
/// plain form (the only form flux-substitute writes).
fn substitute(text: &str, vals: &BTreeMap<String, String>) -> String {
    let mut t = text.to_string();
    for (k, v) in vals {
        t = t.replace(&format!("${{{k}}}"), v);
    }
    t
}

fn parse(text: &str) -> serde_json::Value {
    capi_render::yaml::read::parse_value(text).unwrap()
}

#[test]
fn flux_substitute_writes_placeholders_that_give_back_the_keep_tree() {
    let (root, text) = fixture();
    let vals = values(&text);
    let s = Scratch::new("secrets-flux");
    let inputs = s.path().join("providers.yaml");
    std::fs::write(&inputs, &text).unwrap();
    common::copy_dir(&root.join("repository"), &s.path().join("repository"));
    let keep = render(s.path(), &inputs, &["-o", "keep", "--secrets", "keep"]);
    assert!(keep.ok, "{}", keep.stderr);
    let mut args = FLUX.to_vec();
    args.extend(["--secrets", "flux-substitute"]);
    let r = render(s.path(), &inputs, &args);
    assert!(r.ok, "{}", r.stderr);
    assert!(!r.stderr.contains("holds a value"), "{}", r.stderr);
    let tree = common::text_files(&s.path().join("out"));
    for (path, body) in &tree {
        assert_no_value(path, body, &vals);
    }
    let unit = |f: &str| tree[&format!("{UNIT}/{f}")].clone();
    let secret = unit("secret-vault-manager-bootstrap-credentials.yaml");
    assert!(
        secret.contains("credentials: ${VAULT_B64ENCODED_CREDENTIALS}"),
        "{secret}"
    );
    let deploy = unit("deployment-vault-controller-manager.yaml");
    assert!(
        deploy.contains("https://api-${VAULT_TENANT}.example.com/v1"),
        "{deploy}"
    );
    assert!(deploy.contains("--region=${VAULT_REGION}"), "{deploy}");
    // The ConfigMap's `$` is protected from Flux; it carries no placeholder.
    let cm = parse(&unit("configmap-vault-prices.yaml"));
    assert_eq!(
        cm["metadata"]["annotations"]["kustomize.toolkit.fluxcd.io/substitute"],
        "disabled"
    );
    // The unit's Kustomization substitutes from the flux-system copy of the Secret.
    let ks = parse(&tree["flux/vault-system-infrastructure-vault.yaml"]);
    assert_eq!(ks["metadata"]["namespace"], "flux-system");
    assert_eq!(
        ks["spec"]["postBuild"]["substituteFrom"],
        serde_json::json!([{"kind": "Secret", "name": "vault-system-vault-variables"}])
    );
    // Substituted, every object equals the keep rendering's (the ConfigMap but for
    // the annotation).
    let keep_tree = common::text_files(&s.path().join("keep"));
    let mut compared = 0;
    for (path, body) in &keep_tree {
        if !path.starts_with(UNIT) {
            continue;
        }
        let mut got = parse(&substitute(&tree[path], &vals));
        if let Some(a) = got
            .pointer_mut("/metadata/annotations")
            .and_then(|a| a.as_object_mut())
        {
            a.remove("kustomize.toolkit.fluxcd.io/substitute");
            if a.is_empty() {
                got["metadata"]
                    .as_object_mut()
                    .unwrap()
                    .remove("annotations");
            }
        }
        assert_eq!(got, parse(body), "{path}");
        compared += 1;
    }
    assert_eq!(compared, 5, "{keep_tree:?}");

    // --check passes; a changed value leaves every unit file as it is (the tree holds
    // no value: only the lock's input sum differs) while the keep tree's files change.
    let mut check = args.clone();
    check.push("--check");
    assert!(render(s.path(), &inputs, &check).ok);
    let changed = text.replace("tenantzq7", "tenantzq8");
    std::fs::write(&inputs, &changed).unwrap();
    let c = render(s.path(), &inputs, &check);
    assert!(!c.ok);
    let diffed = |out: &str| -> Vec<String> {
        out.lines()
            .filter_map(|l| l.strip_prefix("+++ b/"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(diffed(&c.stdout), ["capi-render.lock"], "{}", c.stdout);
    assert_no_value("--check", &c.stdout, &values(&changed));
    let k = render(
        s.path(),
        &inputs,
        &["-o", "keep", "--secrets", "keep", "--check"],
    );
    assert!(
        diffed(&k.stdout).contains(&format!("{UNIT}/deployment-vault-controller-manager.yaml")),
        "{}",
        k.stdout
    );
    std::fs::write(&inputs, &text).unwrap();
    // --from-lock keeps the mode the lock records.
    let again = {
        let mut cmd = bin();
        cmd.current_dir(s.path())
            .args(["render", "--from-lock", "out", "--check"]);
        run(&mut cmd, None)
    };
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let lock = std::fs::read_to_string(s.path().join("out/capi-render.lock")).unwrap();
    assert!(lock.contains("secrets: flux-substitute"), "{lock}");
    // Dropping the mode would write the values: refused, nothing written.
    let before = common::text_files(&s.path().join("out"));
    let dropped = render(s.path(), &inputs, FLUX);
    assert!(!dropped.ok);
    assert!(
        dropped
            .stderr
            .contains("the lock records --secrets flux-substitute"),
        "{}",
        dropped.stderr
    );
    assert_eq!(common::text_files(&s.path().join("out")), before);
}

#[test]
fn diff_and_stdout_never_print_a_value() {
    let (root, text) = fixture();
    let vals = values(&text);
    let s = Scratch::new("secrets-diff");
    let before = s.write(
        "before.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    );
    let repo = root.join("repository");
    let mut cmd = bin();
    cmd.arg("--repository")
        .arg(&repo)
        .args(["diff", "-f", &before, "--against"])
        .arg(root.join("providers.yaml"));
    let o = run(&mut cmd, None);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("vault-manager-bootstrap-credentials"), "{out}");
    // Where a value went, the diff shows its variable.
    assert!(
        out.contains("https://api-${VAULT_TENANT}.example.com/v1"),
        "{out}"
    );
    assert_no_value("diff", &out, &vals);
    assert_no_value("diff stderr", &String::from_utf8_lossy(&o.stderr), &vals);
}
