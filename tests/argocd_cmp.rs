//! The Argo CD Config Management Plugin (`deploy/argocd/plugin.yaml`) and its sidecar
//! patch: the plugin has the shape of Argo CD's own `PluginConfig` Go type, passes its
//! `ValidatePluginConfig` rules, and its generate command — run here exactly as the
//! CMP server runs it, in the Application's folder — renders the bundled quick start
//! byte for byte as `render --stdout` does.

use std::path::Path;

use serde_json::Value;

mod common;
use common::{bin_path, root};

fn load(rel: &str) -> Value {
    let text = std::fs::read_to_string(root().join(rel)).unwrap();
    capi_render::yaml::parse_value(&text).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The fields of Argo CD's `PluginConfig` (argoproj/argo-cd, cmpserver/plugin/config.go
/// at commit 324ca867ecd7df6f49c8aa287274b284ed0e8911), by JSON name, per object path;
/// `metadata` is a metav1.ObjectMeta (only the fields a plugin file uses are listed).
/// Argo CD reads the file with sigs.k8s.io/yaml (YAML → JSON → encoding/json), so the
/// names are the `json` tags; `parameters`, `static` and `dynamic` carry only `yaml` tags,
/// which encoding/json matches case-insensitively by the Go field name.
const KNOWN: &[(&str, &[&str])] = &[
    // PluginConfig: metav1.TypeMeta (inline), Metadata, Spec.
    ("", &["apiVersion", "kind", "metadata", "spec"]),
    ("metadata", &["name", "namespace", "labels", "annotations"]),
    // PluginConfigSpec.
    (
        "spec",
        &[
            "version",
            "init",
            "generate",
            "discover",
            "parameters",
            "preserveFileMode",
        ],
    ),
    // Command.
    ("spec.init", &["command", "args"]),
    ("spec.generate", &["command", "args"]),
    // Discover, Find (Command inline + glob).
    ("spec.discover", &["find", "fileName"]),
    ("spec.discover.find", &["command", "args", "glob"]),
    // Parameters: static ([]*apiclient.ParameterAnnouncement), dynamic (Command).
    ("spec.parameters", &["static", "dynamic"]),
    ("spec.parameters.dynamic", &["command", "args"]),
];

/// Every key of every object in `v` is a known field of the Go type at its path.
fn check_known(v: &Value, path: &str) {
    let Some(obj) = v.as_object() else { return };
    let Some((_, fields)) = KNOWN.iter().find(|(p, _)| *p == path) else {
        // Below a path we do not model (labels, annotations, static announcements).
        return;
    };
    for (k, child) in obj {
        assert!(
            fields.contains(&k.as_str()),
            "plugin.yaml: {path}{}{k} is not a field of Argo CD's PluginConfig ({fields:?})",
            if path.is_empty() { "" } else { "." }
        );
        let sub = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        check_known(child, &sub);
    }
}

/// A `Command` field's list of strings.
fn string_list(v: &Value, what: &str) -> Vec<String> {
    match v {
        Value::Null => vec![],
        Value::Array(a) => a
            .iter()
            .map(|s| {
                s.as_str()
                    .unwrap_or_else(|| panic!("{what}: {s} is not a string"))
                    .to_string()
            })
            .collect(),
        other => panic!("{what} must be a list of strings, not {other}"),
    }
}

/// The generate command line of plugin.yaml (`command` then `args`, as the CMP server
/// runs it).
fn generate_argv(p: &Value) -> Vec<String> {
    let g = &p["spec"]["generate"];
    let mut argv = string_list(&g["command"], "spec.generate.command");
    argv.extend(string_list(&g["args"], "spec.generate.args"));
    argv
}

#[test]
fn plugin_has_argo_cds_shape() {
    let p = load("deploy/argocd/plugin.yaml");
    assert_eq!(p["apiVersion"], "argoproj.io/v1alpha1");
    // ValidatePluginConfig: kind, a non-empty metadata.name and generate command.
    assert_eq!(p["kind"], "ConfigManagementPlugin");
    assert!(p["metadata"]["name"]
        .as_str()
        .is_some_and(|n| !n.is_empty()));
    check_known(&p, "");
    for cmd in ["init", "generate"] {
        for f in ["command", "args"] {
            string_list(&p["spec"][cmd][f], &format!("spec.{cmd}.{f}"));
        }
    }
    let command = string_list(&p["spec"]["generate"]["command"], "spec.generate.command");
    assert!(!command.is_empty(), "spec.generate.command is empty");
    assert_eq!(command[0], "capi-render");
    let argv = generate_argv(&p);
    for a in ["render", "--stdout"] {
        assert!(argv.iter().any(|x| x == a), "generate has no {a}: {argv:?}");
    }
    // `render` comes after the global flags and before its own.
    let render = argv.iter().position(|x| x == "render").unwrap();
    let stdout = argv.iter().position(|x| x == "--stdout").unwrap();
    assert!(render < stdout, "{argv:?}");
}

#[test]
fn the_shape_check_catches_unknown_fields() {
    // What a typo (or a field of another Argo CD type) looks like to the check above.
    let bad = capi_render::yaml::parse_value(
        "apiVersion: argoproj.io/v1alpha1\nkind: ConfigManagementPlugin\nmetadata: {name: x}\nspec:\n  generate:\n    comand: [capi-render]\n",
    )
    .unwrap();
    let r = std::panic::catch_unwind(|| check_known(&bad, ""));
    assert!(r.is_err(), "spec.generate.comand was accepted");
}

/// The generate command as the CMP server runs it: in the Application's source path,
/// `command[0]` found on PATH (here: the binary under test).
fn run_generate(app_dir: &Path) -> std::process::Output {
    let argv = generate_argv(&load("deploy/argocd/plugin.yaml"));
    std::process::Command::new(bin_path())
        .args(&argv[1..])
        .current_dir(app_dir)
        // Argo CD sets these for the plugin; capi-render must not depend on them.
        .env("ARGOCD_APP_NAME", "capi-management")
        .env("ARGOCD_APP_NAMESPACE", "argocd")
        .env("ARGOCD_APP_SOURCE_PATH", "fixtures/quickstart")
        .output()
        .unwrap()
}

#[test]
fn generate_renders_the_quickstart_as_render_stdout() {
    let o = run_generate(&root().join("fixtures/quickstart"));
    assert!(
        o.status.success(),
        "generate failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The command the tests and the README use for the quick start.
    let want = common::bin()
        .current_dir(root())
        .args([
            "--config",
            "fixtures/quickstart/clusterctl.yaml",
            "render",
            "--stdout",
            "-f",
            "fixtures/quickstart/providers",
            "-f",
            "fixtures/quickstart/clusters",
        ])
        .output()
        .unwrap();
    assert!(want.status.success());
    assert!(
        o.stdout == want.stdout,
        "the plugin's output differs from render --stdout"
    );
    // A YAML stream Argo CD can apply: providers and both Clusters.
    let docs = capi_render::yaml::parse_documents(&String::from_utf8(o.stdout).unwrap()).unwrap();
    let has = |kind: &str, name: &str| {
        docs.iter()
            .any(|d| d["kind"] == kind && d["metadata"]["name"] == name)
    };
    assert!(has("Deployment", "synth-controller-manager"));
    assert!(has("Cluster", "dev") && has("Cluster", "prod"));
}

#[test]
fn generate_fails_loudly_outside_an_application_folder() {
    // No clusterctl.yaml: a non-zero exit and an error that names the file, so that
    // Argo CD shows it as the sync error.
    let o = run_generate(&root().join("fixtures/quickstart/providers"));
    assert!(!o.status.success());
    assert!(o.stdout.is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("clusterctl.yaml"), "{err}");
}

#[test]
fn sidecar_patch_mounts_the_plugin_where_the_cmp_server_reads_it() {
    let patch = load("deploy/argocd/repo-server-patch.yaml");
    let spec = &patch["spec"]["template"]["spec"];
    let c = spec["containers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "capi-render")
        .expect("a capi-render container");
    assert_eq!(c["command"][0], "/var/run/argocd/argocd-cmp-server");
    // Argo CD's CMP sidecars run as the argocd user.
    assert_eq!(c["securityContext"]["runAsUser"].as_f64(), Some(999.0));
    let mounts = c["volumeMounts"].as_array().unwrap();
    let at = |path: &str| {
        mounts
            .iter()
            .find(|m| m["mountPath"] == path)
            .unwrap_or_else(|| panic!("nothing mounted at {path}"))
    };
    at("/var/run/argocd");
    at("/home/argocd/cmp-server/plugins");
    at("/tmp");
    let cfg = at("/home/argocd/cmp-server/config/plugin.yaml");
    assert_eq!(cfg["subPath"], "plugin.yaml");
    // The volume is the ConfigMap the README creates from plugin.yaml.
    let vol = spec["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == cfg["name"])
        .expect("the plugin volume");
    let cm = vol["configMap"]["name"].as_str().unwrap();
    let readme = std::fs::read_to_string(root().join("deploy/argocd/README.md")).unwrap();
    assert!(
        readme.contains(&format!(
            "kubectl -n argocd create configmap {cm} --from-file=plugin.yaml=deploy/argocd/plugin.yaml"
        )),
        "deploy/argocd/README.md does not create the ConfigMap {cm}"
    );
    // The Application example names the plugin.
    let app = load("deploy/argocd/application.yaml");
    assert_eq!(
        app["spec"]["source"]["plugin"]["name"],
        load("deploy/argocd/plugin.yaml")["metadata"]["name"]
    );
}
