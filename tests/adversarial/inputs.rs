//! Hostile cases: Names with path tricks, and YAML that tries to exhaust memory or confuse the reader.

use super::*;

pub(super) fn cases(v: &mut Vec<Case>) {
    use Expect::*;
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
}
