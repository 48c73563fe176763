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

pub(super) fn cases(v: &mut Vec<Case>) {
    use Expect::*;
    // `${X//a/<1,000 b>}` with a 1 MiB Secret value: 1 GB, refused before it is built.
    v.push(case(
        "envsubst-replace-all-bomb",
        &render_stdout(),
        Fail("substitution of ${X}: 1048576000 bytes is over the template output limit"),
        |s| {
            let c = TINY_COMPONENTS.replace(
                "app: capi\n  template",
                &format!("app: capi\n      x: \"${{X//a/{}}}\"\n  template", "b".repeat(1000)),
            );
            tiny_repo(s, &c);
            write(&s.join("in/providers.yaml"), cr_with_secret(&"a".repeat(1 << 20)));
        },
    ));
}
