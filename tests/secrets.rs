//! Secrets are never printed (SECURITY.md): every failing path of the CLI runs with a
//! marker in every Secret value and every variable, and the marker must appear
//! neither on stdout nor on stderr. Synthetic inputs only: this always runs.

mod common;

use common::{bin, run, Scratch};

const MARKER: &str = "Zq7MARKERs3cr3t";

/// Core components that use the variables in the places a value can break.
const COMPONENTS: &str = r#"apiVersion: v1
kind: Namespace
metadata:
  name: capi-system
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: capi-system
stringData:
  token: ${TOKEN}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: capi-system
data:
  region: ${REGION:=eu}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capi-controller-manager
  namespace: capi-system
spec:
  replicas: ${REPLICAS:=1}
  selector:
    matchLabels:
      app: capi
  template:
    metadata:
      labels:
        app: capi
    spec:
      containers:
      - name: manager
        image: ${IMAGE:=registry.example/capi:v1.0.0}
        args: ["--v=2"]
"#;

struct Case {
    name: &'static str,
    /// stringData of the config Secret (every value carries the marker).
    string_data: Vec<(&'static str, String)>,
    /// `data` of the config Secret (base64 text as written).
    data: Vec<(&'static str, String)>,
}

fn b64(s: &str) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let b = s.as_bytes();
    let mut o = String::new();
    for ch in b.chunks(3) {
        let n = (u32::from(ch[0]) << 16)
            | (u32::from(*ch.get(1).unwrap_or(&0)) << 8)
            | u32::from(*ch.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= ch.len() {
                o.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                o.push('=');
            }
        }
    }
    o
}

fn cases() -> Vec<Case> {
    let m = MARKER;
    let ok_token = ("TOKEN", format!("{m}-token"));
    vec![
        // A credential starting with `[` breaks the YAML after substitution.
        Case {
            name: "yaml-after-substitution",
            string_data: vec![("TOKEN", format!("[{m}: x"))],
            data: vec![],
        },
        Case {
            name: "yaml-after-substitution-multiline",
            string_data: vec![("TOKEN", format!("{m}\n  - [{m}\n\"{m}\""))],
            data: vec![],
        },
        Case {
            name: "yaml-after-substitution-in-data",
            string_data: vec![],
            data: vec![("TOKEN", b64(&format!("{{{m}: [")))],
        },
        Case {
            name: "bad-image",
            string_data: vec![ok_token.clone(), ("IMAGE", format!("{m}::/bad image"))],
            data: vec![],
        },
        Case {
            name: "bad-replicas",
            string_data: vec![ok_token.clone(), ("REPLICAS", m.to_string())],
            data: vec![],
        },
        Case {
            name: "bad-images-override",
            string_data: vec![ok_token.clone(), ("images", format!("all: [{m}"))],
            data: vec![],
        },
        Case {
            name: "bad-base64",
            string_data: vec![ok_token.clone()],
            data: vec![("REGION", format!("{m}!!"))],
        },
        Case {
            name: "missing-variable",
            string_data: vec![("REGION", m.to_string())],
            data: vec![],
        },
    ]
}

fn inputs(c: &Case) -> String {
    let quote = |s: &str| serde_json::to_string(s).unwrap();
    let mut s = String::from(
        "apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.0.0\n  configSecret:\n    name: vars\n",
    );
    s.push_str(
        "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: vars\n  namespace: capi-system\n",
    );
    if !c.string_data.is_empty() {
        s.push_str("stringData:\n");
        for (k, v) in &c.string_data {
            s.push_str(&format!("  {k}: {}\n", quote(v)));
        }
    }
    if !c.data.is_empty() {
        s.push_str("data:\n");
        for (k, v) in &c.data {
            s.push_str(&format!("  {k}: {}\n", quote(v)));
        }
    }
    // A second Secret nobody refers to, with the marker too.
    s.push_str(&format!(
        "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: other\n  namespace: capi-system\nstringData:\n  K: {}\n",
        quote(MARKER)
    ));
    s
}

#[test]
fn no_failing_path_prints_a_secret_value() {
    let mut ran = 0;
    for c in cases() {
        let scratch = Scratch::new(&format!("secrets-{}", c.name));
        let dir = scratch.path().to_path_buf();
        let repo = common::tiny_repo(&dir, COMPONENTS);
        let input = dir.join("providers.yaml");
        std::fs::write(&input, inputs(&c)).unwrap();
        // A clean "before" for `diff`: no config Secret values at all.
        let before = dir.join("before.yaml");
        std::fs::write(
            &before,
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
        )
        .unwrap();
        let out = dir.join("out");
        // Relative paths: a KRM function reads inside its working directory only.
        let krm_list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  apiVersion: capi-render.io/v1alpha1\n  kind: RenderConfig\n  spec:\n    repository: repo\n    inputs: [providers.yaml]\nitems: []\n".to_string();
        let r = repo.to_str().unwrap();
        let i = input.to_str().unwrap();
        let mut runs: Vec<(&str, std::process::Command, Option<String>)> = Vec::new();
        let mut add = |what: &'static str, args: Vec<&str>, stdin: Option<String>| {
            let mut cmd = bin();
            if stdin.is_some() {
                cmd.current_dir(&dir).args(args);
            } else {
                cmd.args(["--repository", r]).args(args);
            }
            runs.push((what, cmd, stdin));
        };
        add("render --stdout", vec!["render", "-f", i, "--stdout"], None);
        add(
            "render -o",
            vec!["render", "-f", i, "-o", out.to_str().unwrap()],
            None,
        );
        add(
            "render --check",
            vec!["render", "-f", i, "-o", out.to_str().unwrap(), "--check"],
            None,
        );
        add(
            "diff",
            vec!["diff", "-f", before.to_str().unwrap(), "--against", i],
            None,
        );
        let bundle_dir = dir.join("bundle");
        add(
            "bundle",
            vec!["bundle", "-f", i, "-o", bundle_dir.to_str().unwrap()],
            None,
        );
        add("krm", vec!["krm"], Some(krm_list));
        add("upgrade plan", vec!["upgrade", "plan", "-f", i], None);
        add("upgrade apply", vec!["upgrade", "apply", "-f", i], None);
        for (what, mut cmd, stdin) in runs {
            let o = run(&mut cmd, stdin.as_deref().map(str::as_bytes));
            let so = String::from_utf8_lossy(&o.stdout);
            let se = String::from_utf8_lossy(&o.stderr);
            assert!(
                !so.contains(MARKER) && !se.contains(MARKER),
                "case {} / {what}: the secret marker was printed\nstdout: {so}\nstderr: {se}",
                c.name
            );
            if !what.starts_with("upgrade") {
                // Every case is a failing one for the rendering commands.
                assert!(
                    !o.status.success(),
                    "case {} / {what}: expected a failure\nstderr: {se}",
                    c.name
                );
                assert!(
                    !se.trim().is_empty() || !so.trim().is_empty(),
                    "case {} / {what}: silent failure",
                    c.name
                );
                ran += 1;
            }
        }
    }
    assert_eq!(ran, cases().len() * 6);
}
