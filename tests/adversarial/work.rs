//! Hostile cases: unbounded work (issue 43). Inputs that make a substitution, a Go
//! template, a printer or a merge build more than its limit allows must fail naming
//! the input and the limit, before the memory is spent.

use super::*;

/// The core provider CR with a config Secret `vars` holding `X` = `value`.
fn cr_with_secret(value: &str) -> String {
    format!(
        "{}  configSecret:\n    name: vars\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: vars\n  namespace: capi-system\nstringData:\n  X: {}\n",
        TINY_CORE_CR,
        yaml_q(value)
    )
}

const TEMPLATED_CLASS: &str =
    include_str!("../../fixtures/topology/templates-and-defaults/class.yaml");
const TEMPLATED_CLUSTER: &str =
    include_str!("../../fixtures/topology/templates-and-defaults/cluster.yaml");

/// The templated class with its first template line replaced by `line`.
fn templated(s: &Path, line: &str) {
    std::fs::create_dir_all(s.join("out")).unwrap();
    let first = "- echo level={{ .settings.level }} ratio={{ .settings.ratio }}";
    assert!(TEMPLATED_CLASS.contains(first));
    write(
        &s.join("in/class.yaml"),
        TEMPLATED_CLASS.replace(first, line),
    );
    write(&s.join("in/cluster.yaml"), TEMPLATED_CLUSTER);
}

/// JSON patch operations: an `add` of a 1 KB annotation and `n` copies of its parent
/// into itself (2ⁿ KB if built), as YAML list items indented by `indent`.
fn doubling_ops(indent: &str, parent: &str, n: usize) -> String {
    let mut t = format!(
        "{indent}- op: add\n{indent}  path: {parent}/a\n{indent}  value: {}\n",
        "x".repeat(1024)
    );
    for i in 0..n {
        t += &format!(
            "{indent}- op: copy\n{indent}  from: {parent}\n{indent}  path: {parent}/c{i}\n"
        );
    }
    t
}

pub(super) fn cases(v: &mut Vec<Case>) {
    use Expect::*;
    // JSON patches that double a value with `copy` (issue 55: the process aborted at
    // 2⁴⁰ KB): stopped at --max-patch-bytes, in a provider's patches and a class's.
    v.push(case(
        "patch-copy-doubling-provider",
        &render_stdout(),
        Fail("over the JSON patch value limit of 16777216 bytes (raise it with --max-patch-bytes)"),
        |s| {
            tiny_repo(s, TINY_COMPONENTS);
            let patch = doubling_ops("      ", "/metadata/annotations", 40);
            write(
                &s.join("in/providers.yaml"),
                format!("{TINY_CORE_CR}  patches:\n  - target:\n      kind: Deployment\n    patch: |\n      - op: add\n        path: /metadata/annotations\n        value: {{}}\n{patch}"),
            );
        },
    ));
    // A class patch may only add, replace and remove (Cluster API's webhook): 5,000
    // adds of 4 KiB values (YAML aliases) build 20 MiB.
    v.push(case(
        "patch-add-many-class",
        &plan_o(),
        Fail("over the JSON patch value limit of 16777216 bytes (raise it with --max-patch-bytes)"),
        |s| {
            topology(s, |c| {
                let mut ops = "      - op: add\n        path: /spec/template/grow\n        value: {}\n".to_string();
                // 500 anchors used 10 times each (the YAML reader bounds aliases per anchor).
                for i in 0..5000 {
                    let value = if i % 10 == 0 {
                        format!("&v{} {}", i / 10, "x".repeat(4096))
                    } else {
                        format!("*v{}", i / 10)
                    };
                    ops += &format!("      - op: add\n        path: /spec/template/grow/c{i}\n        value: {value}\n");
                }
                c.replacen(
                    "  variables:\n",
                    &format!("  patches:\n  - name: grow\n    definitions:\n    - selector:\n        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\n        kind: DockerClusterTemplate\n        matchResources:\n          infrastructureCluster: true\n      jsonPatches:\n{ops}  variables:\n"),
                    1,
                )
            })
        },
    ));
    // Go templates of a ClusterClass patch: results sized before they are built.
    for (name, line, says) in [
        (
            "template-deep-list",
            "- {{ $x := list }}{{ range until 8000 }}{{ $x = list $x }}{{ end }}{{ $x }}",
            "template value nesting limit of 1000 levels",
        ),
        (
            "template-deep-list-eq",
            "- {{ $x := list }}{{ range until 8000 }}{{ $x = list $x }}{{ end }}{{ eq $x $x }}",
            "template value nesting limit of 1000 levels",
        ),
        (
            "template-indent-bomb",
            "- {{ indent 100000 (repeat 1000 \"x\\n\") }}",
            "template output limit",
        ),
        (
            "template-concat-doubling",
            "- {{ $l := list 1 }}{{ range until 30 }}{{ $l = concat $l $l }}{{ end }}{{ len $l }}",
            "template output limit",
        ),
        (
            "template-regex-empty-pattern",
            "- {{ regexReplaceAll \"\" (repeat 1000000 \"a\") \"0123456789abcdefghij\" | len }}",
            "template output limit",
        ),
    ] {
        v.push(case(name, &plan_o(), Fail(says), move |s| {
            templated(s, line)
        }));
    }
    // `${X//a/<1,000 b>}` with a 1 MiB Secret value: 1 GB, refused before it is built.
    v.push(case(
        "envsubst-replace-all-bomb",
        &render_stdout(),
        Fail("substitution of ${X}: 1048576000 bytes is over the template output limit"),
        |s| {
            let c = TINY_COMPONENTS.replace(
                "app: capi\n  template",
                &format!(
                    "app: capi\n      x: \"${{X//a/{}}}\"\n  template",
                    "b".repeat(1000)
                ),
            );
            tiny_repo(s, &c);
            write(
                &s.join("in/providers.yaml"),
                cr_with_secret(&"a".repeat(1 << 20)),
            );
        },
    ));
    // `${X%b*}` on a 1 MiB value without `b`: drone tries every suffix and scans each
    // (5 * 10^11 comparisons); refused by the step limit as the comparisons add up.
    v.push(case(
        "envsubst-trim-quadratic",
        &render_stdout(),
        Fail("substitution of ${X}: matching its pattern: more than 1000000 steps is over the template execution limit"),
        |s| {
            let c = TINY_COMPONENTS.replace(
                "app: capi\n  template",
                "app: capi\n      x: \"${X%b*}\"\n  template",
            );
            tiny_repo(s, &c);
            write(
                &s.join("in/providers.yaml"),
                cr_with_secret(&"a".repeat(1 << 20)),
            );
        },
    ));
    // A v1beta2 class whose variable rule chains 34 `.replace()`s, each multiplying
    // the Cluster's value by ten (10^34 bytes): refused by the cost estimate that
    // v1beta2 classes get as v1beta1 ones do (the runtime cost, which counts what
    // `replace` builds before it is built, is the second line: unit tests).
    v.push(case(
        "cel-v1beta2-replace-chain",
        &["render", "--stdout", "-f", "{S}/in"],
        Fail("x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget"),
        |s| {
            std::fs::create_dir_all(s.join("out")).unwrap();
            let rule = format!("self{} != ''", ".replace('a', 'aaaaaaaaaa')".repeat(34));
            let schema = "openAPIV3Schema: {type: string, enum: [eu-1, us-1]}";
            assert!(ACME.contains(schema));
            let text = ACME.replace(
                schema,
                &format!("openAPIV3Schema: {{type: string, x-kubernetes-validations: [{{rule: \"{rule}\"}}]}}"),
            );
            let text = text.replace("{name: region, value: eu-1}", "{name: region, value: aaaa}");
            let (class, cluster) = text.split_once("\n---\napiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\n").unwrap();
            write(&s.join("in/class.yaml"), class);
            write(
                &s.join("in/cluster.yaml"),
                format!("apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\n{cluster}"),
            );
        },
    ));
    // merge-locks with a shard sidecar claiming ten million units, and one whose unit
    // namespace climbs out of the tree: refused before anything is allocated or written.
    for (name, field, value, says) in [
        (
            "merge-locks-ten-million-units",
            "units",
            "10000000",
            "`units` is 10000000",
        ),
        (
            "merge-locks-namespace-climbs-out",
            "namespace",
            "\"../../..\"",
            "cannot name a directory",
        ),
    ] {
        v.push(case(
            name,
            &["merge-locks", "{S}/out"],
            Fail(says),
            move |s| sharded(s, field, value),
        ));
    }
}

const ACME: &str = include_str!("../../fixtures/topology-v1beta2/oracle/acme.yaml");

/// A tree of two shards of the topology inputs in S/out, the first shard's sidecar
/// with `field` (`units`, or its first part's summary `namespace`) set to `value`.
fn sharded(s: &Path, field: &str, value: &str) {
    topology(s, |c| c.to_string());
    let name = CLUSTER
        .lines()
        .find_map(|l| l.strip_prefix("  name: "))
        .unwrap();
    write(
        &s.join("in/cluster2.yaml"),
        CLUSTER.replacen(&format!("  name: {name}\n"), "  name: second\n", 1),
    );
    for k in ["1/2", "2/2"] {
        let o = bin()
            .args(["render", "-q", "-f"])
            .arg(s.join("in"))
            .arg("-o")
            .arg(s.join("out"))
            .args(["--shard", k])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let value: serde_json::Value = serde_json::from_str(value).unwrap();
    // `units` is the same in every sidecar (else it differs from shard 1's).
    for k in ["1-of-2", "2-of-2"] {
        let side = s.join(format!("out/.capi-render.shards/{k}/shard.json"));
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&side).unwrap()).unwrap();
        if field == "units" {
            v["units"] = value.clone();
        } else if k == "1-of-2" {
            v["parts"][0]["summary"][field] = value.clone();
        }
        write(&side, serde_json::to_string_pretty(&v).unwrap());
    }
}
