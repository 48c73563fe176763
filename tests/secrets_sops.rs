//! `render --secrets sops`: the Secrets of a provider that carry a value of its config
//! Secret are written SOPS-encrypted for the age recipients given, and kept byte for
//! byte while their plaintext is unchanged (the lock's salted sums). The fixture is
//! `fixtures/secrets/` (ours); the real `sops -d` decrypts the tree in
//! conformance/sops.sh, and src/sops's unit tests decrypt values and the MAC.

mod common;

use std::path::Path;

use common::{bin, run, Scratch};

const UNIT: &str = "providers/vault-system/infrastructure-vault";
const SECRET: &str = "secret-vault-manager-bootstrap-credentials.yaml";

fn recipient() -> (age::x25519::Identity, String) {
    let id = age::x25519::Identity::generate();
    let r = id.to_public().to_string();
    (id, r)
}

struct Out {
    ok: bool,
    code: Option<i32>,
    stderr: String,
}

fn capi(dir: &Path, args: &[&str]) -> Out {
    let mut cmd = bin();
    cmd.current_dir(dir)
        .args(["--repository", "repository"])
        .args(args);
    let o = run(&mut cmd, None);
    Out {
        ok: o.status.success(),
        code: o.status.code(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// The fixture's inputs in `dir`, its repository beside them (`--from-lock` reads
/// inside `dir` only), its credential replaced by `cred` when given.
fn inputs(dir: &Path, cred: Option<&str>) -> String {
    if !dir.join("repository").exists() {
        common::copy_dir(
            &common::root().join("fixtures/secrets/repository"),
            &dir.join("repository"),
        );
    }
    let text =
        std::fs::read_to_string(common::root().join("fixtures/secrets/providers.yaml")).unwrap();
    let text = match cred {
        Some(c) => text
            .lines()
            .map(
                |l| match l.trim_start().starts_with("VAULT_B64ENCODED_CREDENTIALS:") {
                    true => format!("  VAULT_B64ENCODED_CREDENTIALS: {c}"),
                    false => l.to_string(),
                },
            )
            .collect::<Vec<_>>()
            .join("\n"),
        None => text,
    };
    std::fs::write(dir.join("providers.yaml"), &text).unwrap();
    text
}

fn credential(text: &str) -> String {
    let docs = capi_render::yaml::read::parse_documents(text).unwrap();
    let s = docs.iter().find(|d| d["kind"] == "Secret").unwrap();
    s["stringData"]["VAULT_B64ENCODED_CREDENTIALS"]
        .as_str()
        .unwrap()
        .to_string()
}

fn sops_args<'a>(r: &'a str) -> Vec<&'a str> {
    vec![
        "render",
        "-f",
        "providers.yaml",
        "-o",
        "out",
        "--flux",
        "--flux-path",
        "out",
        "--secrets",
        "sops",
        "--sops-age-recipient",
        r,
    ]
}

#[test]
fn sops_encrypts_the_credential_and_keeps_its_file_until_it_changes() {
    let s = Scratch::new("sops-tree");
    let text = inputs(s.path(), None);
    let cred = credential(&text);
    let (id, r) = recipient();
    let o = capi(s.path(), &sops_args(&r));
    assert!(o.ok, "{}", o.stderr);
    // The Deployment's region and tenant are no Secret: left as rendered, named.
    assert!(
        o.stderr.contains(&format!(
            "out/{UNIT}/deployment-vault-controller-manager.yaml: Deployment vault-system/vault-controller-manager holds a value"
        )),
        "{}",
        o.stderr
    );
    let first = common::text_files(&s.path().join("out"));
    let b64 = capi_render::go::base64::encode(cred.as_bytes());
    for (p, t) in &first {
        assert!(
            !t.contains(&cred) && !t.contains(&b64),
            "{p} holds the credential"
        );
    }
    let sealed = &first[&format!("{UNIT}/{SECRET}")];
    let v = capi_render::yaml::read::parse_value(sealed).unwrap();
    assert!(v["data"]["credentials"]
        .as_str()
        .unwrap()
        .starts_with("ENC[AES256_GCM,data:"));
    assert_eq!(v["sops"]["age"][0]["recipient"], r.as_str());
    assert_eq!(v["sops"]["encrypted_regex"], "^(data|stringData)$");
    // The data key opens with the identity.
    let enc = v["sops"]["age"][0]["enc"].as_str().unwrap();
    assert_eq!(age::decrypt(&id, enc.as_bytes()).unwrap().len(), 32);
    // Flux decrypts the unit with the sops-age Secret.
    let ks =
        capi_render::yaml::read::parse_value(&first["flux/vault-system-infrastructure-vault.yaml"])
            .unwrap();
    assert_eq!(
        ks["spec"]["decryption"],
        serde_json::json!({"provider": "sops", "secretRef": {"name": "sops-age"}})
    );
    // The lock records the recipients and a salted sum, never the value.
    let lock = &first["capi-render.lock"];
    assert!(
        lock.contains("secrets: sops") && lock.contains(&r),
        "{lock}"
    );
    assert!(
        lock.contains("plainSha256: ") && lock.contains("salt: "),
        "{lock}"
    );

    // Again, and from the lock: nothing changes; --check passes.
    let o = capi(s.path(), &sops_args(&r));
    assert!(o.ok && o.stderr.contains("0 written"), "{}", o.stderr);
    assert_eq!(common::text_files(&s.path().join("out")), first);
    let mut cmd = bin();
    cmd.current_dir(s.path())
        .args(["render", "--from-lock", "out", "--check"]);
    let c = run(&mut cmd, None);
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));

    // A rotated credential: its Secret (and the lock) alone change, and --check says so
    // before the render does.
    inputs(s.path(), Some("cm90YXRlZAo="));
    let mut args = sops_args(&r);
    args.push("--check");
    let c = capi(s.path(), &args);
    assert_eq!(c.code, Some(1), "{}", c.stderr);
    let o = capi(s.path(), &sops_args(&r));
    assert!(o.ok, "{}", o.stderr);
    let after = common::text_files(&s.path().join("out"));
    let changed: Vec<&String> = after
        .keys()
        .filter(|k| first.get(*k) != after.get(*k))
        .collect();
    assert_eq!(
        changed,
        vec![&"capi-render.lock".to_string(), &format!("{UNIT}/{SECRET}")]
    );

    // Another recipient re-encrypts too.
    let (_, r2) = recipient();
    let o = capi(s.path(), &sops_args(&r2));
    assert!(o.ok, "{}", o.stderr);
    let v = capi_render::yaml::read::parse_value(
        &common::text_files(&s.path().join("out"))[&format!("{UNIT}/{SECRET}")],
    )
    .unwrap();
    assert_eq!(v["sops"]["age"][0]["recipient"], r2.as_str());
}

#[test]
fn dropping_sops_is_refused_and_bad_flags_are_errors() {
    let s = Scratch::new("sops-flags");
    inputs(s.path(), None);
    let (_, r) = recipient();
    assert!(capi(s.path(), &sops_args(&r)).ok);
    let before = common::text_files(&s.path().join("out"));
    // Without --secrets sops the credential would land in Git: refused.
    let o = capi(
        s.path(),
        &[
            "render",
            "-f",
            "providers.yaml",
            "-o",
            "out",
            "--flux",
            "--flux-path",
            "out",
        ],
    );
    assert!(!o.ok, "{}", o.stderr);
    assert!(o.stderr.contains("--secrets sops"), "{}", o.stderr);
    assert_eq!(common::text_files(&s.path().join("out")), before);

    // Argo CD has no SOPS decryption of its own: said once.
    let o = capi(
        s.path(),
        &[
            "render",
            "-f",
            "providers.yaml",
            "-o",
            "argo",
            "--argocd",
            "--argocd-repo",
            "https://git.example/fleet.git",
            "--flux-path",
            "argo",
            "--secrets",
            "sops",
            "--sops-age-recipient",
            &r,
        ],
    );
    assert!(o.ok, "{}", o.stderr);
    assert_eq!(
        o.stderr
            .matches("Argo CD applies the encrypted Secrets")
            .count(),
        1,
        "{}",
        o.stderr
    );

    for (args, says) in [
        (
            vec![
                "render",
                "-f",
                "providers.yaml",
                "-o",
                "o2",
                "--secrets",
                "sops",
            ],
            "needs at least one --sops-age-recipient",
        ),
        (
            vec![
                "render",
                "-f",
                "providers.yaml",
                "-o",
                "o2",
                "--secrets",
                "sops",
                "--sops-age-recipient",
                "age1nope",
            ],
            "--sops-age-recipient \"age1nope\": not an age recipient",
        ),
        (
            vec![
                "render",
                "-f",
                "providers.yaml",
                "--stdout",
                "--secrets",
                "sops",
                "--sops-age-recipient",
                &r,
            ],
            "render with -o OUT",
        ),
        (
            vec![
                "render",
                "-f",
                "providers.yaml",
                "-o",
                "o2",
                "--sops-age-recipient",
                &r,
            ],
            "go with --secrets sops",
        ),
    ] {
        let o = capi(s.path(), &args);
        assert!(!o.ok && o.stderr.contains(says), "{args:?}: {}", o.stderr);
        assert!(!s.path().join("o2").exists());
    }
}
