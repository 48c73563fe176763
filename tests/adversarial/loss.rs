//! Hostile cases: No silent loss, and secrets in hostile places.

use super::*;

pub(super) fn cases(v: &mut Vec<Case>) {
    use Expect::*;
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
}
