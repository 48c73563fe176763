//! Hostile cases: Bundles, the KRM function and the clusterctl-compatible commands.

use super::*;

pub(super) fn cases(v: &mut Vec<Case>) {
    use Expect::*;
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
}
