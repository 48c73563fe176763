//! Hostile inputs (SECURITY.md): every case must succeed or fail cleanly (exit code,
//! an `Error:` line, no panic), under a 2 s CPU and 256 MB data limit, and must not
//! write, move or delete anything outside OUT, nor any file in OUT that capi-render
//! did not write: the test snapshots the whole sandbox (inputs, OUT's foreign files
//! and a sibling `outside/` directory) before and after each run.
//!
//! Each case gets a sandbox `S` with `S/in/` (inputs), `S/out/` (OUT, where the case
//! may first render a good tree and then tamper with it), `S/outside/victim.yaml` and
//! `S/out/README.md` (a file capi-render never wrote).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{bin, snapshot, tiny_repo, Node, Scratch, TINY_COMPONENTS, TINY_CORE_CR};

const CLASS: &str = include_str!("../fixtures/topology/no-patches/class.yaml");
const CLUSTER: &str = include_str!("../fixtures/topology/no-patches/cluster.yaml");

/// What a case expects.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// Must fail cleanly, stderr containing this text.
    Fail(&'static str),
    /// Must succeed.
    Ok,
    /// Either, as long as it is clean.
    Clean,
}

struct Case {
    name: &'static str,
    /// Prepare the sandbox (inputs, tampering); gets S.
    setup: Box<dyn Fn(&Path)>,
    /// Arguments; `{S}` is replaced by the sandbox path.
    args: Vec<&'static str>,
    stdin: Option<Vec<u8>>,
    expect: Expect,
}

fn case(
    name: &'static str,
    args: &[&'static str],
    expect: Expect,
    setup: impl Fn(&Path) + 'static,
) -> Case {
    Case {
        name,
        setup: Box::new(setup),
        args: args.to_vec(),
        stdin: None,
        expect,
    }
}

fn write(p: &Path, text: impl AsRef<[u8]>) {
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(p, text).unwrap();
}

#[cfg(unix)]
fn link(target: impl AsRef<Path>, at: &Path) {
    if let Some(d) = at.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::os::unix::fs::symlink(target, at).unwrap();
}

/// Provider inputs rendering with `--repository S/repo`.
fn providers(s: &Path) {
    tiny_repo(s, TINY_COMPONENTS);
    write(&s.join("in/providers.yaml"), TINY_CORE_CR);
}

/// A good tree in S/out from the provider inputs (what the tampering cases start from).
fn good_tree(s: &Path) {
    providers(s);
    let o = bin()
        .args(["--repository"])
        .arg(s.join("repo"))
        .args(["render", "-f"])
        .arg(s.join("in/providers.yaml"))
        .arg("-o")
        .arg(s.join("out"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    write(&s.join("out/README.md"), "not ours\n");
}

/// Add an output entry for `path` to the good tree's lock (with the sha256 of
/// `x\n`, a well-formed sum of bytes nobody wrote there).
fn tamper_lock(s: &Path, path: &str) {
    let lock = s.join("out/capi-render.lock");
    let t = std::fs::read_to_string(&lock).unwrap();
    let sum = capi_render::model::sha256_hex(b"x\n");
    let entry = format!("outputs:\n- path: {path}\n  sha256: {sum}\n");
    write(&lock, t.replace("outputs:\n", &entry));
}

/// A staging directory as a Git checkout would bring it: real directories and files,
/// an owner file that names some other directory.
fn fake_staging(s: &Path, journal: &str) {
    let st = s.join("out/.capi-render.staging");
    write(&st.join("owner"), "capi-render staging 64768 1234567\n");
    write(&st.join("journal"), journal);
}

/// The topology inputs, with `edit` applied to the class text.
fn topology(s: &Path, edit: impl Fn(&str) -> String) {
    std::fs::create_dir_all(s.join("out")).unwrap();
    write(&s.join("in/class.yaml"), edit(CLASS));
    write(&s.join("in/cluster.yaml"), CLUSTER);
}

fn render_o() -> Vec<&'static str> {
    vec![
        "--repository",
        "{S}/repo",
        "render",
        "-f",
        "{S}/in",
        "-o",
        "{S}/out",
    ]
}

/// `topology plan` of the topology inputs into S/out.
fn plan_o() -> Vec<&'static str> {
    vec![
        "topology",
        "plan",
        "-f",
        "{S}/in/class.yaml",
        "-f",
        "{S}/in/cluster.yaml",
        "-o",
        "{S}/out",
    ]
}

fn render_stdout() -> Vec<&'static str> {
    vec![
        "--repository",
        "{S}/repo",
        "render",
        "-f",
        "{S}/in",
        "--stdout",
    ]
}

fn cr_named(ns: &str, name: &str) -> String {
    TINY_CORE_CR
        .replace("name: cluster-api", &format!("name: {name}"))
        .replace("namespace: capi-system", &format!("namespace: {ns}"))
}

fn yaml_q(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn cases() -> Vec<Case> {
    use Expect::*;
    let mut v: Vec<Case> = Vec::new();

    // --- The staging area and journal: recovery trusts only what it can verify. ---
    #[cfg(unix)]
    {
        v.push(case(
            "staging-is-symlink",
            &render_o(),
            Fail("not a directory capi-render made"),
            |s| {
                good_tree(s);
                link(s.join("outside"), &s.join("out/.capi-render.staging"));
            },
        ));
        v.push(case(
            "staging-old-entry-symlink",
            &render_o(),
            Fail("cannot recover"),
            |s| {
                good_tree(s);
                fake_staging(s, "capi-render journal 2\nW 1 5 6 kustomization.yaml\n");
                link(
                    s.join("outside/victim.yaml"),
                    &s.join("out/.capi-render.staging/old/kustomization.yaml"),
                );
            },
        ));
        v.push(case(
            "staging-old-dir-symlink",
            &render_o(),
            Fail("cannot recover"),
            |s| {
                good_tree(s);
                fake_staging(s, "capi-render journal 2\nW 1 5 6 kustomization.yaml\n");
                link(s.join("outside"), &s.join("out/.capi-render.staging/old"));
            },
        ));
        v.push(case(
            "staging-new-dir-symlink",
            &render_o(),
            Fail("cannot recover"),
            |s| {
                good_tree(s);
                fake_staging(s, "capi-render journal 2\nW 0 5 0 README.md\n");
                link(s.join("outside"), &s.join("out/.capi-render.staging/new"));
            },
        ));
        v.push(case(
            "journal-is-symlink",
            &render_o(),
            Fail("cannot recover"),
            |s| {
                good_tree(s);
                fake_staging(s, "");
                let j = s.join("out/.capi-render.staging/journal");
                std::fs::remove_file(&j).unwrap();
                write(
                    &s.join("outside/journal"),
                    "capi-render journal 2\nW 0 1 0 README.md\n",
                );
                link(s.join("outside/journal"), &j);
            },
        ));
        v.push(case(
            "tree-dir-symlink",
            &render_o(),
            Fail("symbolic link"),
            |s| {
                good_tree(s);
                let p = s.join("out/providers");
                std::fs::remove_dir_all(&p).unwrap();
                link(s.join("outside"), &p);
            },
        ));
        v.push(case(
            "lock-symlink",
            &render_o(),
            Fail("symbolic link"),
            |s| {
                good_tree(s);
                let p = s.join("out/capi-render.lock");
                std::fs::rename(&p, s.join("outside/capi-render.lock")).unwrap();
                link(s.join("outside/capi-render.lock"), &p);
            },
        ));
        v.push(case(
            "lock-output-through-symlink",
            &render_o(),
            Fail("symbolic link"),
            |s| {
                good_tree(s);
                link(s.join("outside"), &s.join("out/escape"));
                tamper_lock(s, "escape/victim.yaml");
            },
        ));
        v.push(case(
            "topology-plan-created-symlink",
            &plan_o(),
            Fail("symbolic link"),
            |s| {
                topology(s, str::to_string);
                link(s.join("outside"), &s.join("out/created"));
            },
        ));
    }
    #[cfg(unix)]
    v.push(case(
        "journal-v1-old-dir-symlink-moves-outside-in",
        &render_o(),
        Fail("journal"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 1\nW 1 victim.yaml\n");
            link(s.join("outside"), &s.join("out/.capi-render.staging/old"));
        },
    ));
    #[cfg(unix)]
    v.push(case(
        "journal-v2-old-dir-symlink-moves-outside-in",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 2\nW 1 1 1 victim.yaml\n");
            link(s.join("outside"), &s.join("out/.capi-render.staging/old"));
        },
    ));
    v.push(case(
        "journal-v1-deletes-readme",
        &render_o(),
        Fail("journal"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 1\nW 0 README.md\n");
        },
    ));
    v.push(case(
        "journal-v2-fake-owner",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 2\nW 0 99 0 README.md\n");
        },
    ));
    v.push(case(
        "journal-restores-over-tree-file",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 2\nW 1 5 6 kustomization.yaml\n");
            write(
                &s.join("out/.capi-render.staging/old/kustomization.yaml"),
                "resources: [../../outside]\n",
            );
        },
    ));
    v.push(case(
        "journal-escapes-out",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 2\nW 0 1 0 ../outside/victim.yaml\n");
        },
    ));
    v.push(case(
        "journal-absolute",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 2\nR 1 /etc/hostname\n");
        },
    ));
    v.push(case(
        "journal-nul",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 2\nR 1 README.md\0x\n");
        },
    ));
    v.push(case(
        "staging-junk-without-journal",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            write(&s.join("out/.capi-render.staging/new/README.md"), "junk\n");
        },
    ));
    v.push(case(
        "staging-is-a-file",
        &render_o(),
        Fail("not a directory capi-render made"),
        |s| {
            good_tree(s);
            write(&s.join("out/.capi-render.staging"), "x");
        },
    ));
    for (name, path) in [
        ("lock-output-escapes", "../outside/victim.yaml"),
        ("lock-output-absolute", "/etc/hostname"),
        ("lock-output-in-staging", ".capi-render.staging/x"),
    ] {
        v.push(case(
            name,
            &render_o(),
            Fail("not a relative path inside OUT"),
            move |s| {
                good_tree(s);
                tamper_lock(s, path);
            },
        ));
    }
    // A lock that lists a file capi-render never wrote (README.md, whose bytes are
    // not the ones the lock records): neither -o nor --check treats it as ours.
    v.push(case(
        "lock-lists-a-foreign-file",
        &render_o(),
        Fail("not the file capi-render wrote"),
        |s| {
            good_tree(s);
            tamper_lock(s, "README.md");
        },
    ));
    v.push(case(
        "lock-lists-a-foreign-file-check",
        &[render_o(), vec!["--check"]].concat(),
        Fail("not the file capi-render wrote"),
        |s| {
            good_tree(s);
            tamper_lock(s, "README.md");
        },
    ));
    v.push(case(
        "lock-without-sums",
        &render_o(),
        Fail("outputs[0].sha256"),
        |s| {
            good_tree(s);
            let lock = s.join("out/capi-render.lock");
            let t = std::fs::read_to_string(&lock).unwrap();
            write(
                &lock,
                t.replace("outputs:\n", "outputs:\n- path: README.md\n"),
            );
        },
    ));
    v.push(case(
        "lock-garbage",
        &render_o(),
        Fail("capi-render.lock"),
        |s| {
            good_tree(s);
            write(&s.join("out/capi-render.lock"), "lockVersion: [\n");
        },
    ));
    v.push(case(
        "foreign-file-in-the-way",
        &render_o(),
        Fail("capi-render did not write it"),
        |s| {
            providers(s);
            write(&s.join("out/kustomization.yaml"), "mine\n");
        },
    ));

    // --- Names with path tricks. ---
    for (name, ns, nm) in [
        ("provider-name-dotdot", "capi-system", "../x"),
        ("provider-name-slash", "capi-system", "a/b"),
        ("provider-namespace-dotdot", "..", "cluster-api"),
        ("provider-namespace-slash", "x/../../outside", "cluster-api"),
        ("provider-name-nul", "capi-system", "a\u{0}b"),
    ] {
        v.push(case(name, &render_o(), Fail(""), move |s| {
            tiny_repo(s, TINY_COMPONENTS);
            write(
                &s.join("in/providers.yaml"),
                cr_named(&yaml_q(ns), &yaml_q(nm)),
            );
        }));
    }
    let long: &'static str = Box::leak("a".repeat(300).into_boxed_str());
    v.push(case("provider-name-300", &render_o(), Fail(""), move |s| {
        tiny_repo(s, TINY_COMPONENTS);
        write(&s.join("in/providers.yaml"), cr_named("capi-system", long));
    }));
    for (name, cname, cns) in [
        ("cluster-name-dotdot", "../../outside", "default"),
        ("cluster-namespace-dotdot", "bare", ".."),
        ("cluster-name-slash", "a/b", "default"),
        ("cluster-name-nul", "a\u{0}b", "default"),
    ] {
        v.push(case(name, &render_o(), Fail(""), move |s| {
            write(
                &s.join("in/class.yaml"),
                CLASS.replace(
                    "metadata:\n  name: plain",
                    &format!("metadata:\n  name: plain\n  namespace: {}", yaml_q(cns)),
                ),
            );
            write(
                &s.join("in/cluster.yaml"),
                CLUSTER.replace(
                    "name: bare",
                    &format!("name: {}\n  namespace: {}", yaml_q(cname), yaml_q(cns)),
                ),
            );
        }));
    }
    v.push(case("component-object-names", &render_o(), Ok, |s| {
        // Object names become file names only after sanitising.
        tiny_repo(s, &format!("{TINY_COMPONENTS}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"../../../outside/x\"\n  namespace: capi-system\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: \"/etc/passwd\"\n"));
        write(&s.join("in/providers.yaml"), TINY_CORE_CR);
    }));
    v.push(case(
        "topology-plan-kind-escape",
        &plan_o(),
        Fail("cannot form an output file name"),
        |s| {
            topology(s, |c| {
                c.replace(
                    "kind: DockerClusterTemplate",
                    "kind: Docker/../../../outside/ClusterTemplate",
                )
            });
        },
    ));
    v.push(case(
        "topology-plan-kind-backslash",
        &plan_o(),
        Fail("cannot form an output file name"),
        |s| {
            topology(s, |c| {
                c.replace(
                    "kind: DockerClusterTemplate",
                    "kind: \"Docker\\\\..\\\\ClusterTemplate\"",
                )
            });
        },
    ));
    v.push(case("topology-plan-good", &plan_o(), Ok, |s| {
        topology(s, str::to_string);
    }));

    // --- YAML that tries to exhaust memory or confuse the reader. ---
    let laughs = {
        let mut t = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\na0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for i in 1..10 {
            let p = i - 1;
            t.push_str(&format!(
                "a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n"
            ));
        }
        t
    };
    v.push(case(
        "billion-laughs",
        &render_stdout(),
        Fail(""),
        move |s| {
            providers(s);
            write(&s.join("in/bomb.yaml"), &laughs);
        },
    ));
    v.push(case("deep-nesting-flow", &render_stdout(), Fail(""), |s| {
        providers(s);
        write(
            &s.join("in/deep.yaml"),
            format!("a: {}{}\n", "[".repeat(100_000), "]".repeat(100_000)),
        );
    }));
    v.push(case(
        "deep-nesting-block",
        &render_stdout(),
        Fail(""),
        |s| {
            providers(s);
            let mut t = String::new();
            for i in 0..5_000 {
                t.push_str(&" ".repeat(i));
                t.push_str("a:\n");
            }
            write(&s.join("in/deep.yaml"), t);
        },
    ));
    v.push(case("bad-utf8", &render_stdout(), Fail("UTF-8"), |s| {
        providers(s);
        write(
            &s.join("in/bad.yaml"),
            b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \xff\xfe\n",
        );
    }));
    v.push(case("tags", &render_stdout(), Clean, |s| {
        providers(s);
        write(&s.join("in/tags.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: !!python/object:os.system x\ndata: !!binary aGVsbG8=\n");
    }));
    v.push(case("merge-key-bomb", &render_stdout(), Fail(""), |s| {
        providers(s);
        let mut t =
            String::from("a0: &a0 {k0: v, k1: v, k2: v, k3: v, k4: v, k5: v, k6: v, k7: v}\n");
        for i in 1..24 {
            t.push_str(&format!(
                "a{i}: &a{i} {{<<: [*a{}, *a{}], x{i}: y}}\n",
                i - 1,
                i - 1
            ));
        }
        write(&s.join("in/merge.yaml"), t);
    }));
    v.push(case("big-document", &render_stdout(), Clean, |s| {
        providers(s);
        let mut t =
            String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n");
        for i in 0..200_000 {
            t.push_str(&format!("  k{i}: \"{}\"\n", "v".repeat(40)));
        }
        write(&s.join("in/big.yaml"), t);
    }));
    v.push(case(
        "scalar-not-mapping",
        &render_stdout(),
        Fail("must be a mapping"),
        |s| {
            providers(s);
            write(&s.join("in/x.yaml"), "- a\n- b\n");
        },
    ));

    // --- No silent loss. ---
    v.push(case(
        "empty-input-file",
        &[
            "--repository",
            "{S}/repo",
            "render",
            "-f",
            "{S}/in/providers.yaml",
            "-f",
            "{S}/in/empty.yaml",
            "-o",
            "{S}/out",
        ],
        Fail("no Kubernetes object"),
        |s| {
            good_tree(s);
            write(&s.join("in/empty.yaml"), "");
        },
    ));
    v.push(case(
        "comment-only-input",
        &[
            "--repository",
            "{S}/repo",
            "render",
            "-f",
            "{S}/in/c.yaml",
            "-o",
            "{S}/out",
        ],
        Fail("no Kubernetes object"),
        |s| {
            good_tree(s);
            write(&s.join("in/c.yaml"), "# nothing\n---\n");
        },
    ));
    v.push(case(
        "inputs-yield-nothing-prunes-nothing",
        &["render", "-f", "{S}/other", "-o", "{S}/out"],
        Fail("--allow-empty"),
        |s| {
            good_tree(s);
            write(
                &s.join("other/cm.yaml"),
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
            );
        },
    ));
    v.push(case(
        "empty-directory-input",
        &["render", "-f", "{S}/none", "-o", "{S}/out"],
        Fail("holds no *.yaml"),
        |s| {
            good_tree(s);
            std::fs::create_dir_all(s.join("none")).unwrap();
        },
    ));
    // One edit of the Cluster each: a typo that used to drop it silently.
    for (name, from, to, says) in [
        (
            "cluster-unknown-version",
            "cluster.x-k8s.io/v1beta1",
            "cluster.x-k8s.io/v9",
            "is not a version capi-render reads",
        ),
        (
            "cluster-kind-typo",
            "kind: Cluster",
            "kind: Clusterr",
            "did you mean \"Cluster\"",
        ),
        (
            "cluster-without-topology",
            "  topology:",
            "  topolgy:",
            "has no spec.topology",
        ),
    ] {
        v.push(case(name, &render_stdout(), Fail(says), move |s| {
            providers(s);
            write(&s.join("in/c.yaml"), CLUSTER.replace(from, to));
        }));
    }
    v.push(case("list-wrapper", &render_stdout(), Fail("List wrapper"), |s| {
        providers(s);
        write(&s.join("in/l.yaml"), format!("apiVersion: v1\nkind: List\nitems:\n- {}\n", serde_json::to_string(&serde_json::json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster"})).unwrap()));
    }));
    v.push(case(
        "provider-kind-typo",
        &render_stdout(),
        Fail(""),
        |s| {
            tiny_repo(s, TINY_COMPONENTS);
            write(
                &s.join("in/providers.yaml"),
                TINY_CORE_CR.replace("CoreProvider", "CoreProvder"),
            );
        },
    ));
    v.push(case(
        "provider-unknown-version",
        &render_stdout(),
        Fail(""),
        |s| {
            tiny_repo(s, TINY_COMPONENTS);
            write(
                &s.join("in/providers.yaml"),
                TINY_CORE_CR.replace("v1alpha2", "v9"),
            );
        },
    ));
    v.push(case("machine-deployment-input", &render_stdout(), Fail("render does not read MachineDeployment"), |s| {
        providers(s);
        write(&s.join("in/md.yaml"), "apiVersion: cluster.x-k8s.io/v1beta1\nkind: MachineDeployment\nmetadata:\n  name: md\n");
    }));
    v.push(case(
        "allow-empty-prunes-on-request",
        &[
            "render",
            "-f",
            "{S}/other",
            "-o",
            "{S}/out",
            "--allow-empty",
        ],
        Ok,
        |s| {
            good_tree(s);
            write(
                &s.join("other/cm.yaml"),
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
            );
        },
    ));

    // --- Secrets in hostile places. ---
    v.push(case("secret-breaks-yaml", &render_stdout(), Fail("document not shown"), |s| {
        tiny_repo(s, &format!("{TINY_COMPONENTS}---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: capi-system\nstringData:\n  t: ${{TOKEN}}\n"));
        write(&s.join("in/providers.yaml"), format!("{}  configSecret:\n    name: v\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: v\n  namespace: capi-system\nstringData:\n  TOKEN: \"[hunter2hunter2\"\n", TINY_CORE_CR));
    }));

    // --- Bundles. ---
    let verify = ["bundle", "verify", "{S}/b"];
    v.push(case("bundle-verify-missing", &verify, Fail(""), |_| {}));
    #[cfg(unix)]
    {
        v.push(case("bundle-verify-symlink", &verify, Fail(""), |s| {
            write(&s.join("b/SHA256SUMS"), "");
            link(s.join("outside/victim.yaml"), &s.join("b/x.yaml"));
        }));
        v.push(case("bundle-verify-sums-symlink", &verify, Fail(""), |s| {
            link(s.join("outside/victim.yaml"), &s.join("b/SHA256SUMS"));
        }));
        v.push(case("bundle-verify-fifo", &verify, Fail(""), |s| {
            write(&s.join("b/SHA256SUMS"), "");
            let st = Command::new("mkfifo")
                .arg(s.join("b/fifo"))
                .status()
                .unwrap();
            assert!(st.success());
        }));
    }
    v.push(case("bundle-verify-dotdot-entry", &verify, Fail(""), |s| {
        write(
            &s.join("b/SHA256SUMS"),
            format!("{}  ../outside/victim.yaml\n", "0".repeat(64)),
        );
    }));
    v.push(case(
        "bundle-verify-absolute-entry",
        &verify,
        Fail(""),
        |s| {
            write(
                &s.join("b/SHA256SUMS"),
                format!("{}  /etc/hostname\n", "0".repeat(64)),
            );
        },
    ));
    v.push(case("bundle-verify-bad-gzip", &verify, Fail(""), |s| {
        let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: v1.0.0\n  namespace: capi-system\n  labels:\n    provider.cluster.x-k8s.io/name: cluster-api\n    provider.cluster.x-k8s.io/type: core\n    provider.cluster.x-k8s.io/version: v1.0.0\n  annotations:\n    provider.cluster.x-k8s.io/compressed: \"true\"\nbinaryData:\n  components: H4sIAAAAbad=\ndata:\n  metadata: \"\"\n";
        write(&s.join("b/configmaps/core-cluster-api-v1.0.0.yaml"), cm);
        let sum = {
            use sha2::Digest;
            sha2::Sha256::digest(cm.as_bytes()).iter().map(|b| format!("{b:02x}")).collect::<String>()
        };
        write(&s.join("b/SHA256SUMS"), format!("{sum}  configmaps/core-cluster-api-v1.0.0.yaml\n"));
    }));
    v.push(case(
        "bundle-output-exists",
        &[
            "--repository",
            "{S}/repo",
            "bundle",
            "-f",
            "{S}/in",
            "-o",
            "{S}/outside",
        ],
        Fail(""),
        |s| {
            providers(s);
        },
    ));

    // --- The KRM function. ---
    let mut k = case("krm-not-a-resource-list", &["krm"], Fail(""), |_| {});
    k.stdin = Some(b"- a\n".to_vec());
    v.push(k);
    let mut k = case("krm-alias-bomb", &["krm"], Fail(""), |_| {});
    k.stdin = Some({
        let mut t = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a0: &a0 [x,x,x,x,x,x,x,x,x,x]\n");
        for i in 1..9 {
            t.push_str(&format!(
                "- a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n",
                p = i - 1
            ));
        }
        t.into_bytes()
    });
    v.push(k);

    // --- clusterctl-compatible commands with hostile files. ---
    v.push(case("generate-cluster-from-laughs", &["generate", "cluster", "c", "-n", "ns", "-i", "docker:v1.0.0", "--from", "{S}/in/t.yaml"], Fail(""), |s| {
        let mut t = String::from("a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for i in 1..10 {
            let p = i - 1;
            t.push_str(&format!("a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n"));
        }
        write(&s.join("in/t.yaml"), t);
    }));
    v.push(case(
        "generate-provider-name-escape",
        &[
            "--repository",
            "{S}/repo",
            "generate",
            "provider",
            "--core",
            "../../outside:v1.0.0",
        ],
        Fail(""),
        |s| {
            providers(s);
        },
    ));
    v.push(case(
        "topology-plan-bad-yaml",
        &["topology", "plan", "-f", "{S}/in/x.yaml", "-o", "{S}/out"],
        Fail(""),
        |s| {
            write(&s.join("in/x.yaml"), "a: [\n");
        },
    ));
    v
}

/// The CPU limit: 2 s for the optimised binary (what users run, and what CI's
/// `cargo test --release` checks); an unoptimised test build is about 10× slower.
const CPU_SECONDS: u32 = if cfg!(debug_assertions) { 20 } else { 2 };

/// Run the binary under the CPU limit and a 256 MB data limit.
fn limited(args: &[String]) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!(
            "ulimit -t {CPU_SECONDS} && ulimit -d 262144 && exec \"$0\" \"$@\""
        ))
        .arg(common::bin_path())
        .args(args)
        .env("NO_COLOR", "1");
    c
}

/// Everything in the sandbox except OUT's own files: inputs, `outside/`, and the files
/// in OUT that capi-render did not write (README.md).
fn guarded(s: &Path) -> Vec<(String, Node)> {
    snapshot(s)
        .into_iter()
        .filter(|(k, _)| !k.starts_with("out/") || k == "out/README.md")
        .filter(|(k, _)| k != "out")
        .collect()
}

#[test]
fn hostile_inputs_fail_cleanly_and_stay_inside_out() {
    let cases = cases();
    assert!(cases.len() >= 60, "only {} hostile cases", cases.len());
    let mut failures = Vec::new();
    for c in &cases {
        let sb = Scratch::new(&format!("adv-{}", c.name));
        let s: PathBuf = sb.path().to_path_buf();
        write(&s.join("outside/victim.yaml"), "victim: untouched\n");
        (c.setup)(&s);
        let before = guarded(&s);
        let args: Vec<String> = c
            .args
            .iter()
            .map(|a| a.replace("{S}", s.to_str().unwrap()))
            .collect();
        let o = common::run(&mut limited(&args), c.stdin.as_deref());
        let err = String::from_utf8_lossy(&o.stderr);
        let problem = if o.status.code().is_none() {
            Some(format!("killed (limit or signal): {:?}", o.status))
        } else if err.contains("panicked") {
            Some(format!("panicked: {err}"))
        } else if guarded(&s) != before {
            let after = guarded(&s);
            let changed: Vec<&String> = after
                .iter()
                .filter(|e| !before.contains(e))
                .map(|(k, _)| k)
                .chain(before.iter().filter(|e| !after.contains(e)).map(|(k, _)| k))
                .collect();
            Some(format!(
                "changed outside OUT or a foreign file: {changed:?}"
            ))
        } else {
            match (c.expect, o.status.success()) {
                (Expect::Ok, false) => Some(format!("expected success: {err}")),
                (Expect::Fail(_), true) => Some("expected a failure, got exit 0".to_string()),
                (Expect::Fail(t), false) if !err.contains(t) => {
                    Some(format!("error does not say {t:?}: {err}"))
                }
                (Expect::Fail(_) | Expect::Clean, false)
                    if !err.contains("Error")
                        && !String::from_utf8_lossy(&o.stdout).contains("error") =>
                {
                    Some(format!("failed without an error message: {err}"))
                }
                _ => None,
            }
        };
        if let Some(p) = problem {
            failures.push(format!("{}: {p}", c.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
