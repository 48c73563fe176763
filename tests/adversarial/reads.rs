//! Reads outside the inputs (issue 43): a value inside an input — a config's
//! `cert-manager.version` or URLs, an OCI layout's digests, a KRM functionConfig's
//! paths, a symbolic link in a repository or an input directory — must not make
//! capi-render read a file outside the roots SECURITY.md lists ("Nothing read outside
//! the roots").
//!
//! Every probe plants a file holding [`MARKER`] outside those roots (under `S/outside/`)
//! where the hostile value points, and checks that the run fails (exit 1 or 2, no
//! panic) with an error naming the input and the field, that the marker shows
//! nowhere (stdout, stderr, any file in OUT), and that nothing outside OUT changed.

use std::os::unix::fs::symlink;

use serde_json::json;

use super::common::TINY_META;
use super::*;

/// In every planted file; must never be printed or written.
const MARKER: &str = "leaked-marker-43-7f3a9c";

/// Core components carrying the marker wherever a render copies it (an image, a value).
fn marked_components() -> String {
    format!(
        "{}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: marked\n  namespace: capi-system\ndata:\n  value: {MARKER}\n",
        TINY_COMPONENTS.replace("registry.example/capi", &format!("registry.example/{MARKER}"))
    )
}

/// A clusterctl repository at `dir` whose `cluster-api` v1.0.0 holds the marker.
fn marked_repo(dir: &Path) {
    write(
        &dir.join("cluster-api/v1.0.0/core-components.yaml"),
        marked_components(),
    );
    write(&dir.join("cluster-api/v1.0.0/metadata.yaml"), TINY_META);
}

/// `init list-images` of the tiny repository's core and kubeadm providers.
const LIST_IMAGES: &[&str] = &[
    "--config",
    "{S}/cfg/clusterctl.yaml",
    "--repository",
    "{S}/repo",
    "init",
    "list-images",
    "--core",
    "cluster-api:v1.0.0",
    "-b",
    "kubeadm:v1.0.0",
    "-c",
    "kubeadm:v1.0.0",
];

/// The provider inputs, kubeadm's providers for `init list-images` and an empty
/// `cert-manager` folder in the repository.
fn list_images_repo(s: &Path) {
    providers(s);
    for (label, file) in [
        ("bootstrap-kubeadm", "bootstrap-components.yaml"),
        ("control-plane-kubeadm", "control-plane-components.yaml"),
    ] {
        let d = s.join("repo").join(label).join("v1.0.0");
        write(
            &d.join(file),
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kubeadm\n",
        );
        write(&d.join("metadata.yaml"), TINY_META);
    }
    std::fs::create_dir_all(s.join("repo/cert-manager")).unwrap();
}

/// One hostile run.
struct Probe {
    name: &'static str,
    setup: Box<dyn Fn(&Path)>,
    /// Arguments; `{S}` is the sandbox.
    args: Vec<&'static str>,
    /// The working directory, relative to the sandbox.
    cwd: &'static str,
    /// OUT, relative to the sandbox.
    out: &'static str,
    env: Vec<(&'static str, String)>,
    stdin: Option<String>,
    /// What stderr must say (the input and the field); `{S}` is the sandbox.
    says: Vec<String>,
}

fn probe(
    name: &'static str,
    args: &[&'static str],
    says: &[&str],
    setup: impl Fn(&Path) + 'static,
) -> Probe {
    Probe {
        name,
        setup: Box::new(setup),
        args: args.to_vec(),
        cwd: "",
        out: "out",
        env: Vec::new(),
        stdin: None,
        says: says.iter().map(|s| s.to_string()).collect(),
    }
}

/// Run every probe; fail with the list of those that read outside or failed unclearly.
fn refused(probes: Vec<Probe>) {
    let mut failures = Vec::new();
    for p in &probes {
        let sb = Scratch::new(&format!("reads-{}", p.name));
        let s: PathBuf = sb.path().to_path_buf();
        let sub = |t: &str| t.replace("{S}", s.to_str().unwrap());
        write(&s.join("outside/victim.yaml"), "victim: untouched\n");
        std::fs::create_dir_all(s.join("out")).unwrap();
        (p.setup)(&s);
        let before = guarded(&s);
        let args: Vec<String> = p.args.iter().map(|a| sub(a)).collect();
        let mut cmd = limited(&args);
        cmd.current_dir(s.join(p.cwd));
        for (k, v) in &p.env {
            cmd.env(k, sub(v));
        }
        let o = common::run(
            &mut cmd,
            p.stdin
                .as_ref()
                .map(|t| sub(t))
                .as_deref()
                .map(str::as_bytes),
        );
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        let in_out: Vec<String> = snapshot(&s.join(p.out))
            .into_iter()
            .filter(
                |(_, n)| matches!(n, Node::File(b) if String::from_utf8_lossy(b).contains(MARKER)),
            )
            .map(|(k, _)| k)
            .collect();
        let mut problems = Vec::new();
        if !matches!(o.status.code(), Some(1 | 2)) {
            problems.push(format!("exit {:?}, expected 1 or 2", o.status));
        }
        if err.contains("panicked") {
            problems.push("panicked".to_string());
        }
        for w in &p.says {
            if !err.contains(&sub(w)) {
                problems.push(format!("stderr does not say {:?}", sub(w)));
            }
        }
        if out.contains(MARKER) {
            problems.push("the marker is on stdout".to_string());
        }
        if err.contains(MARKER) {
            problems.push("the marker is on stderr".to_string());
        }
        if !in_out.is_empty() {
            problems.push(format!("the marker is in OUT: {in_out:?}"));
        }
        if guarded(&s) != before {
            problems.push("changed something outside OUT".to_string());
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{}: {}\n  stderr: {err}",
                p.name,
                problems.join("; ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} probes:\n{}",
        failures.len(),
        probes.len(),
        failures.join("\n")
    );
}

/// A repository `S/git` (with `.git`, so `S/outside` is outside it) holding the
/// provider inputs (`in/`, `repo/`) and their good tree `out/`, its lock's command
/// given `extra` lines (e.g. a `config:`), as a pull request could edit it.
fn tampered_tree(s: &Path, extra: &str) {
    let g = s.join("git");
    tiny_repo(&g, TINY_COMPONENTS);
    std::fs::create_dir_all(g.join("repo/cert-manager")).unwrap();
    std::fs::create_dir_all(g.join(".git")).unwrap();
    write(&g.join("in/providers.yaml"), TINY_CORE_CR);
    let o = bin()
        .current_dir(&g)
        .args([
            "--repository",
            "repo",
            "render",
            "-f",
            "in/providers.yaml",
            "-o",
            "out",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lock = g.join("out/capi-render.lock");
    let t = std::fs::read_to_string(&lock).unwrap();
    assert!(t.contains("command:\n"), "{t}");
    write(
        &lock,
        t.replace("command:\n", &format!("command:\n{extra}")),
    );
}

/// A probe of `render --from-lock` run in the repository `S/git` on its tree `out`.
fn from_lock(
    name: &'static str,
    args: &[&'static str],
    says: &[&str],
    setup: impl Fn(&Path) + 'static,
) -> Probe {
    let mut p = probe(name, args, says, setup);
    p.cwd = "git";
    p.out = "git/out";
    p
}

#[test]
fn cert_manager_version_is_one_path_segment() {
    let list_images = LIST_IMAGES;
    let says = ["{S}/cfg/clusterctl.yaml", "cert-manager.version"];
    let probes = vec![
        // --config, the version climbing from the repository to S/outside.
        probe("version-dotdot", list_images, &says, |s| {
            list_images_repo(s);
            write(
                &s.join("outside/cert-manager/v1.0.0/cert-manager.yaml"),
                marked_components(),
            );
            write(
                &s.join("cfg/clusterctl.yaml"),
                format!(
                    "cert-manager:\n  url: {}/repo/cert-manager/v1.0.0/cert-manager.yaml\n  version: ../../outside/cert-manager/v1.0.0\n",
                    s.display()
                ),
            );
        }),
        // The issue's form: /proc/self/cwd, then up to / and down to any folder.
        probe(
            "version-proc-cwd",
            &[
                "--config",
                "{S}/cfg/clusterctl.yaml",
                "--repository",
                "{S}/repo",
                "render",
                "--cert-manager",
                "-f",
                "{S}/in",
                "--stdout",
            ],
            &says,
            |s| {
                providers(s);
                std::fs::create_dir_all(s.join("cert-manager")).unwrap();
                write(&s.join("outside/.kube/config"), marked_components());
                let up = "../".repeat(24);
                write(
                        &s.join("cfg/clusterctl.yaml"),
                        format!(
                            "cert-manager:\n  url: /proc/self/cwd/cert-manager/v1.0.0/config\n  version: \"{up}{}/outside/.kube\"\n",
                            s.display().to_string().trim_start_matches('/')
                        ),
                    );
            },
        ),
        // --from-lock: the lock edited to name a config inside the repository.
        from_lock(
            "version-from-lock",
            &["render", "--from-lock", "out", "--check"],
            &["./cfg/evil.yaml", "cert-manager.version"],
            |s| {
                tampered_tree(s, "  config: ../cfg/evil.yaml\n  certManager: true\n");
                write(
                    &s.join("outside/cert-manager/v1.0.0/cert-manager.yaml"),
                    marked_components(),
                );
                write(
                    &s.join("git/cfg/evil.yaml"),
                    format!(
                        "cert-manager:\n  url: {}/git/repo/cert-manager/v1.0.0/cert-manager.yaml\n  version: ../../../outside/cert-manager/v1.0.0\n",
                        s.display()
                    ),
                );
            },
        ),
    ];
    refused(probes);
}

/// An OCI layout at `dir` tagged `v1.0.0`: `metadata.yaml` and `components.yaml`
/// (the marked components), both sha256 blobs; `edit` changes the manifest (its
/// `layers`) before it is stored, `index` the index.
fn oci_layout(
    dir: &Path,
    edit: impl Fn(&mut serde_json::Value),
    index: impl Fn(&mut serde_json::Value),
) {
    let put = |bytes: &[u8]| {
        let d = capi_render::model::sha256_hex(bytes);
        write(&dir.join("blobs/sha256").join(&d), bytes);
        (format!("sha256:{d}"), bytes.len())
    };
    let (cd, cn) = put(b"{}");
    let layer = |title: &str, text: &str| {
        let (d, n) = put(text.as_bytes());
        json!({"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": d, "size": n,
               "annotations": {"org.opencontainers.image.title": title}})
    };
    let mut manifest = json!({"schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.empty.v1+json", "digest": cd, "size": cn},
        "layers": [layer("metadata.yaml", TINY_META), layer("components.yaml", &marked_components())]});
    edit(&mut manifest);
    let (md, mn) = put(serde_json::to_string(&manifest).unwrap().as_bytes());
    write(&dir.join("oci-layout"), r#"{"imageLayoutVersion":"1.0.0"}"#);
    let mut idx = json!({"schemaVersion": 2, "manifests": [{
        "mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": md, "size": mn,
        "annotations": {"org.opencontainers.image.ref.name": "v1.0.0"}}]});
    index(&mut idx);
    write(
        &dir.join("index.json"),
        serde_json::to_string(&idx).unwrap(),
    );
}

const OCI_CR: &str = "apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.0.0\n  fetchConfig:\n    oci: registry.example/capi:v1.0.0\n";

#[test]
fn oci_layout_digests_stay_inside_the_layout() {
    let args: &[&str] = &[
        "render",
        "-f",
        "{S}/in/providers.yaml",
        "--oci-layout",
        "{S}/oci",
        "--stdout",
    ];
    let layer = ["{S}/oci", "layers[1].digest"];
    let mut probes = Vec::new();
    for (name, digest) in [
        ("digest-dotdot-algorithm", "../../outside:0ddba11"),
        ("digest-absolute-algorithm", "{S}/outside:0ddba11"),
    ] {
        probes.push(probe(name, args, &layer, move |s| {
            write(&s.join("in/providers.yaml"), OCI_CR);
            write(&s.join("outside/0ddba11"), marked_components());
            let d = digest.replace("{S}", s.to_str().unwrap());
            oci_layout(
                &s.join("oci"),
                move |m| m["layers"][1]["digest"] = json!(d),
                |_| {},
            );
        }));
    }
    // A blob that is a link leading out of the layout, its digest right.
    probes.push(probe(
        "blob-symlink",
        args,
        &["{S}/oci", "layers[1].digest", "symbolic link"],
        |s| {
            write(&s.join("in/providers.yaml"), OCI_CR);
            let text = marked_components();
            write(&s.join("outside/blob"), &text);
            let hex = capi_render::model::sha256_hex(text.as_bytes());
            oci_layout(&s.join("oci"), |_| {}, |_| {});
            let blob = s.join("oci/blobs/sha256").join(&hex);
            std::fs::remove_file(&blob).unwrap();
            symlink(s.join("outside/blob"), &blob).unwrap();
        },
    ));
    // An algorithm nobody verifies: the blob is read as is.
    probes.push(probe(
        "digest-unverifiable-algorithm",
        args,
        &["{S}/oci", "layers[1].digest", "md5"],
        |s| {
            write(&s.join("in/providers.yaml"), OCI_CR);
            write(&s.join("oci/blobs/md5/0ddba11"), marked_components());
            oci_layout(
                &s.join("oci"),
                |m| m["layers"][1]["digest"] = json!("md5:0ddba11"),
                |_| {},
            );
        },
    ));
    // The index's manifest digest leading out of the layout.
    probes.push(probe(
        "index-digest-dotdot",
        args,
        &["{S}/oci", "index.json manifests[0].digest"],
        |s| {
            write(&s.join("in/providers.yaml"), OCI_CR);
            oci_layout(
                &s.join("oci"),
                |_| {},
                |i| i["manifests"][0]["digest"] = json!("../../outside:0ddba12"),
            );
            // The manifest found there names the marked blob by its sha256.
            let text = marked_components();
            let hex = capi_render::model::sha256_hex(text.as_bytes());
            write(
                &s.join("outside/0ddba12"),
                json!({"schemaVersion": 2, "layers": [
            {"digest": format!("sha256:{}", capi_render::model::sha256_hex(TINY_META.as_bytes())),
             "annotations": {"org.opencontainers.image.title": "metadata.yaml"}},
            {"digest": format!("sha256:{hex}"),
             "annotations": {"org.opencontainers.image.title": "components.yaml"}}]})
                .to_string(),
            );
        },
    ));
    refused(probes);
}

#[test]
fn from_lock_keeps_the_configs_paths_inside_the_repository() {
    let check: &[&str] = &["render", "--from-lock", "out", "--check"];
    let write_mode: &[&str] = &["render", "--from-lock", "out"];
    let provider_url = |url: &'static str| {
        move |s: &Path| {
            tampered_tree(s, "  config: ../cfg/evil.yaml\n");
            marked_repo(&s.join("outside"));
            write(
                &s.join("git/cfg/evil.yaml"),
                format!(
                    "providers:\n- name: cluster-api\n  type: CoreProvider\n  url: {}\n",
                    url.replace("{S}", s.to_str().unwrap())
                ),
            );
        }
    };
    let cert_manager = |section: &'static str| {
        move |s: &Path| {
            tampered_tree(s, "  config: ../cfg/evil.yaml\n  certManager: true\n");
            write(
                &s.join("git/repo/cert-manager/v1.19.1/cert-manager.yaml"),
                TINY_COMPONENTS,
            );
            write(
                &s.join("outside/cert-manager/v1.19.1/cert-manager.yaml"),
                marked_components(),
            );
            write(
                &s.join("outside/overrides/cert-manager/v1.19.1/cert-manager.yaml"),
                marked_components(),
            );
            write(
                &s.join("git/cfg/evil.yaml"),
                section.replace("{S}", s.to_str().unwrap()),
            );
        }
    };
    let says = ["./cfg/evil.yaml", "providers[0].url"];
    let cm = ["./cfg/evil.yaml", "cert-manager.url"];
    let of = ["./cfg/evil.yaml", "overridesFolder"];
    let probes = vec![
        from_lock(
            "provider-file-url",
            check,
            &says,
            provider_url("file://{S}/outside/cluster-api/v1.0.0/core-components.yaml"),
        ),
        from_lock(
            "provider-absolute-url",
            write_mode,
            &says,
            provider_url("{S}/outside/cluster-api/v1.0.0/core-components.yaml"),
        ),
        from_lock(
            "provider-dotdot-url",
            check,
            &says,
            provider_url("../../outside/cluster-api/v1.0.0/core-components.yaml"),
        ),
        from_lock(
            "cert-manager-url",
            write_mode,
            &cm,
            cert_manager(
                "cert-manager:\n  url: {S}/outside/cert-manager/v1.19.1/cert-manager.yaml\n",
            ),
        ),
        from_lock(
            "overrides-folder",
            check,
            &of,
            cert_manager("overridesFolder: {S}/outside/overrides\n"),
        ),
    ];
    refused(probes);
}

/// A KRM request run in `S/in` (the kustomization's directory) with this `spec`.
fn krm_request(spec: &str) -> String {
    format!(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  apiVersion: capi-render.io/v1alpha1\n  kind: RenderConfig\n  metadata:\n    name: capi\n  spec:\n{spec}"
    )
}

#[test]
fn krm_function_paths_stay_inside_the_kustomization() {
    let mut probes = Vec::new();
    for (name, spec, field) in [
        (
            "krm-repository-dotdot",
            "    repository: ../outside/repo\n    inputs: [providers.yaml]\n",
            "functionConfig.spec.repository",
        ),
        (
            "krm-repository-absolute",
            "    repository: {S}/outside/repo\n    inputs: [providers.yaml]\n",
            "functionConfig.spec.repository",
        ),
        (
            "krm-config-dotdot",
            "    config: ../outside/c.yaml\n    inputs: [providers.yaml]\n",
            "functionConfig.spec.config",
        ),
        (
            "krm-oci-layout-absolute",
            "    ociLayout: {S}/outside/oci\n    inputs: [oci.yaml]\n",
            "functionConfig.spec.ociLayout",
        ),
        // A config inside the kustomization, its provider URL outside.
        (
            "krm-config-url-outside",
            "    config: c.yaml\n    inputs: [providers.yaml]\n",
            "providers[0].url",
        ),
    ] {
        let mut p = probe(name, &["krm"], &[field], |s| {
            write(&s.join("in/providers.yaml"), TINY_CORE_CR);
            write(&s.join("in/oci.yaml"), OCI_CR);
            marked_repo(&s.join("outside/repo"));
            oci_layout(&s.join("outside/oci"), |_| {}, |_| {});
            let cfg = format!(
                "providers:\n- name: cluster-api\n  type: CoreProvider\n  url: {}/outside/repo/cluster-api/v1.0.0/core-components.yaml\n",
                s.display()
            );
            write(&s.join("outside/c.yaml"), &cfg);
            write(&s.join("in/c.yaml"), &cfg);
        });
        p.cwd = "in";
        p.stdin = Some(krm_request(spec));
        probes.push(p);
    }
    refused(probes);
}

#[test]
fn repository_links_leading_outside_are_refused() {
    let render: &[&str] = &[
        "render",
        "-f",
        "{S}/in/providers.yaml",
        "--repository",
        "{S}/repo",
        "--stdout",
    ];
    let probes = vec![
        probe(
            "repository-components-link",
            render,
            &[
                "{S}/repo/cluster-api/v1.0.0/core-components.yaml",
                "symbolic link",
            ],
            |s| {
                providers(s);
                write(&s.join("outside/c.yaml"), marked_components());
                let f = s.join("repo/cluster-api/v1.0.0/core-components.yaml");
                std::fs::remove_file(&f).unwrap();
                symlink(s.join("outside/c.yaml"), f).unwrap();
            },
        ),
        probe(
            "repository-version-dir-link",
            render,
            &["{S}/repo/cluster-api/v1.0.0/metadata.yaml", "symbolic link"],
            |s| {
                providers(s);
                marked_repo(&s.join("outside"));
                std::fs::remove_dir_all(s.join("repo/cluster-api/v1.0.0")).unwrap();
                symlink(
                    s.join("outside/cluster-api/v1.0.0"),
                    s.join("repo/cluster-api/v1.0.0"),
                )
                .unwrap();
            },
        ),
        probe(
            "repository-cert-manager-link",
            &[
                "render",
                "--cert-manager",
                "-f",
                "{S}/in/providers.yaml",
                "--repository",
                "{S}/repo",
                "--stdout",
            ],
            &[
                "{S}/repo/cert-manager/v1.19.1/cert-manager.yaml",
                "symbolic link",
            ],
            |s| {
                providers(s);
                write(&s.join("outside/cm.yaml"), marked_components());
                std::fs::create_dir_all(s.join("repo/cert-manager/v1.19.1")).unwrap();
                symlink(
                    s.join("outside/cm.yaml"),
                    s.join("repo/cert-manager/v1.19.1/cert-manager.yaml"),
                )
                .unwrap();
            },
        ),
    ];
    refused(probes);
}

#[test]
fn cert_manager_url_variables_stay_out_of_errors() {
    let args = LIST_IMAGES;
    let mut probes = Vec::new();
    for (name, url) in [
        (
            "cm-url-env-missing-file",
            "${CAPI_CM_BASE}/cert-manager/v1.19.1/cert-manager.yaml",
        ),
        ("cm-url-env-bad-shape", "${CAPI_CM_BASE}/cert-manager.yaml"),
    ] {
        let mut p = probe(
            name,
            args,
            &[
                "{S}/cfg/clusterctl.yaml",
                "cert-manager.url",
                "${CAPI_CM_BASE}",
            ],
            move |s| {
                list_images_repo(s);
                std::fs::create_dir_all(s.join("outside").join(MARKER)).unwrap();
                write(
                    &s.join("cfg/clusterctl.yaml"),
                    format!("cert-manager:\n  url: {url}\n"),
                );
            },
        );
        p.env = vec![("CAPI_CM_BASE", format!("{{S}}/outside/{MARKER}"))];
        probes.push(p);
    }
    refused(probes);
}

#[test]
fn input_directory_links_leading_outside_are_refused() {
    let render_args = super::render_o();
    let render: &[&str] = &render_args;
    let marked_cm = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: marked\n  namespace: capi-system\ndata:\n  value: {MARKER}\n");
    let mut probes = Vec::new();
    for (name, link, target, says) in [
        (
            "input-file-link-outside",
            "in/evil.yaml",
            "outside/cm.yaml",
            "{S}/in/evil.yaml",
        ),
        (
            "input-dir-link-outside",
            "in/more",
            "outside",
            "{S}/in/more",
        ),
        (
            "input-link-nowhere",
            "in/gone.yaml",
            "outside/missing.yaml",
            "{S}/in/gone.yaml",
        ),
    ] {
        let cm = marked_cm.clone();
        probes.push(probe(name, render, &[says, "symbolic link"], move |s| {
            providers(s);
            write(&s.join("outside/cm.yaml"), &cm);
            symlink(s.join(target), s.join(link)).unwrap();
        }));
    }
    refused(probes);
}

/// Links that stay inside their root are followed, as a render typed there follows
/// them: a repository's components file, an input directory's YAML file.
#[test]
fn links_inside_their_root_are_followed() {
    let sb = Scratch::new("reads-links-inside");
    let s = sb.path();
    providers(s);
    let comps = s.join("repo/cluster-api/v1.0.0/core-components.yaml");
    std::fs::rename(&comps, s.join("repo/shared.yaml")).unwrap();
    symlink("../../shared.yaml", &comps).unwrap();
    std::fs::remove_file(s.join("in/providers.yaml")).unwrap();
    write(&s.join("in/data/core.txt"), TINY_CORE_CR);
    symlink("data/core.txt", s.join("in/providers.yaml")).unwrap();
    let o = common::run(
        bin()
            .arg("--repository")
            .arg(s.join("repo"))
            .args(["render", "-f"])
            .arg(s.join("in"))
            .arg("--stdout"),
        None,
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("name: capi-controller-manager"), "{out}");
}
