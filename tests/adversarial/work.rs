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

pub(super) fn cases(v: &mut Vec<Case>) {
    use Expect::*;
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
}
