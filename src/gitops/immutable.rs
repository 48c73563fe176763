//! The one change no tree may carry: a Cluster API template (`*Template` of a
//! `*cluster.x-k8s.io` group) whose `spec` changed under a name OUT already applies.
//! The providers' webhooks refuse it ("spec.template.spec field is immutable"), so
//! `render -o` refuses to write it, naming the file. Review files (`<unit>/desired/`)
//! are applied by nothing and exempt.

use crate::error::{Error, Result};
use crate::topology::flatten::is_template;
use crate::topology::obj;

/// Whether [`check`] can refuse the change of the file at tree path `path` to `new`
/// (cheap: no parsing), so that the old file is read only then.
pub fn concerns(path: &str, new: &[u8]) -> bool {
    let review = format!("/{}/", crate::model::REVIEW_DIR);
    // The lock is no object (and 250 MB at 100,000 Clusters: not scanned).
    path != super::lock::FILE && !path.contains(&review) && contains(new, b"Template")
}

/// Check the file at tree path `path` (shown as `shown`), about to change from `old`
/// to `new`.
pub fn check(path: &str, shown: &str, old: &[u8], new: &[u8]) -> Result<()> {
    if !concerns(path, new) {
        return Ok(());
    }
    let parse = |b: &[u8]| {
        std::str::from_utf8(b)
            .ok()
            .and_then(|t| crate::yaml::parse_value(t).ok())
    };
    let (Some(new), Some(old)) = (parse(new), parse(old)) else {
        return Ok(());
    };
    let same_object = obj::kind(&old) == obj::kind(&new)
        && obj::name(&old) == obj::name(&new)
        && obj::namespace(&old) == obj::namespace(&new);
    if !is_template(&new) || !same_object || old.get("spec") == new.get("spec") {
        return Ok(());
    }
    let hint = if path.starts_with("classes/") {
        "give the changed template a new name in the inputs and point the ClusterClass at it (the ClusterClass may change in place: the topology controller then moves every Cluster to new templates); keep the old template while a Cluster still uses the class's old revision"
    } else {
        "templates of --clusters flatten are named by their content, so this is a hand edit of OUT or a name clash: restore the file (or delete it with its unit) and render again"
    };
    Err(Error::new(format!(
        "{shown}: {} {}/{}: spec changed under the same name; Cluster API refuses to change a template's spec in place (\"spec.template.spec field is immutable\"), so this tree would not apply",
        obj::kind(&new),
        obj::namespace(&new),
        obj::name(&new)
    ))
    .with_hint(hint)
    .in_file(shown))
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: DockerMachineTemplate\nmetadata:\n  name: t\n  namespace: ns\nspec:\n  template:\n    spec:\n      customImage: a\n";

    #[test]
    fn a_changed_template_spec_is_refused_naming_the_file() {
        let new = OLD.replace("customImage: a", "customImage: b");
        let e = check(
            "classes/ns/c/t.yaml",
            "OUT/classes/ns/c/t.yaml",
            OLD.as_bytes(),
            new.as_bytes(),
        )
        .unwrap_err();
        assert!(
            e.message()
                .starts_with("OUT/classes/ns/c/t.yaml: DockerMachineTemplate ns/t: spec changed"),
            "{e}"
        );
        assert!(e.hint().unwrap_or_default().contains("new name"), "{e:?}");
    }

    #[test]
    fn labels_review_files_renames_and_other_kinds_pass() {
        let labelled = OLD.replace("  name: t\n", "  name: t\n  labels:\n    a: b\n");
        assert!(check(
            "classes/ns/c/t.yaml",
            "t",
            OLD.as_bytes(),
            labelled.as_bytes()
        )
        .is_ok());
        let new = OLD.replace("customImage: a", "customImage: b");
        assert!(check(
            "clusters/ns/c/desired/t.yaml",
            "t",
            OLD.as_bytes(),
            new.as_bytes()
        )
        .is_ok());
        let renamed = new.replace("name: t", "name: t2");
        assert!(check(
            "clusters/ns/c/t.yaml",
            "t",
            OLD.as_bytes(),
            renamed.as_bytes()
        )
        .is_ok());
        let pod = |x: &str| {
            format!("apiVersion: v1\nkind: PodTemplate\nmetadata:\n  name: p\nspec:\n  x: {x}\n")
        };
        assert!(check("p.yaml", "p", pod("1").as_bytes(), pod("2").as_bytes()).is_ok());
        // The lock is not looked at, whatever it holds.
        assert!(concerns("x.yaml", b"kind: FooTemplate\n"));
        assert!(!concerns(super::super::lock::FILE, b"kind: FooTemplate\n"));
    }
}
