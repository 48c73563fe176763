//! The verb of each changed object of a unit, for a reviewer: `create`, `update` (in
//! place, same name), `replace` (a new name stands for an old one: the topology
//! controller's template rotation, whose names differ only in their random suffix), or
//! `delete`; and who applies it: the tree (Flux, Argo CD, kustomize) or, for the review
//! files under `desired/`, the topology controller.

use crate::gitops::check::{Change, FileChange};

/// Whether the topology controller replaces the object at `path` rather than updating
/// it: a template among a Cluster's desired objects (`desired/<kind>template-...`)
/// whose `spec` changed (templates are immutable: a changed spec is a new template
/// under a new name, and the old one is deleted; a metadata change is patched in place).
pub fn rotates(path: &str, old: &str, new: &str) -> bool {
    let review = format!("/{}/", crate::model::REVIEW_DIR);
    let Some((_, file)) = path.split_once(review.as_str()) else {
        return false;
    };
    let kind = file.split_once('-').map_or("", |(k, _)| k);
    if !kind.ends_with("template") {
        return false;
    }
    let spec = |t: &str| {
        crate::yaml::read::parse_value_lenient(t)
            .ok()
            .and_then(|v| v.get("spec").cloned())
    };
    spec(old) != spec(new)
}

/// `create`, `update`, `replace` or `delete`, and `tree` or `topology controller`, for
/// each of `objects` (one unit's changed files), in order; `rotated[i]`: object `i`
/// changed in a way the topology controller answers with a new template ([`rotates`]).
pub fn verbs(objects: &[FileChange], rotated: &[bool]) -> Vec<(&'static str, &'static str)> {
    let stems_of = |c: Change| -> std::collections::HashSet<&str> {
        objects
            .iter()
            .filter(|f| f.change == c)
            .filter_map(|f| rotated_stem(&f.path))
            .collect()
    };
    let (added, removed) = (stems_of(Change::Added), stems_of(Change::Removed));
    objects
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let pair = rotated_stem(&f.path).is_some_and(|s| match f.change {
                Change::Added => removed.contains(s),
                Change::Removed => added.contains(s),
                Change::Changed => false,
            });
            let verb = match (f.change, pair) {
                (Change::Changed, _) if rotated.get(i).copied().unwrap_or(false) => "replace",
                (Change::Changed, _) => "update",
                (_, true) => "replace",
                (Change::Added, false) => "create",
                (Change::Removed, false) => "delete",
            };
            let by = if f.path.contains(&format!("/{}/", crate::model::REVIEW_DIR)) {
                "topology controller"
            } else {
                "tree"
            };
            (verb, by)
        })
        .collect()
}

/// The path without a generated name's random suffix (`-b4dh2.yaml`, Kubernetes'
/// random-string alphabet), or `None` when it has none.
fn rotated_stem(path: &str) -> Option<&str> {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let stem = path.strip_suffix(".yaml")?;
    let (head, suffix) = stem.rsplit_once('-')?;
    (suffix.len() == 5 && suffix.bytes().all(|b| ALPHABET.contains(&b))).then_some(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_whose_spec_changes_rotates_one_whose_metadata_changes_does_not() {
        let p = "clusters/a/prod/desired/dockermachinetemplate-prod-md-0-b4dh2.yaml";
        let t = |labels: &str, image: &str| {
            format!("kind: DockerMachineTemplate\nmetadata:\n  labels: {{{labels}}}\nspec:\n  template:\n    spec: {{customImage: {image}}}\n")
        };
        assert!(rotates(p, &t("a: b", "x:1"), &t("a: b", "x:2")));
        assert!(!rotates(p, &t("a: b", "x:1"), &t("a: c", "x:1")));
        let md = "clusters/a/prod/desired/machinedeployment-prod-md-0.yaml";
        assert!(!rotates(md, &t("a: b", "x:1"), &t("a: b", "x:2")));
        let applied = "classes/a/quick-start/dockermachinetemplate-worker.yaml";
        assert!(!rotates(applied, &t("a: b", "x:1"), &t("a: b", "x:2")));
    }

    fn f(path: &str, change: Change) -> FileChange {
        FileChange {
            path: path.into(),
            change,
        }
    }

    #[test]
    fn a_rotated_template_is_a_replace_and_review_files_are_the_controllers() {
        let objects = [
            f(
                "clusters/a/prod/desired/dockermachinetemplate-prod-md-0-b4dh2.yaml",
                Change::Removed,
            ),
            f(
                "clusters/a/prod/desired/dockermachinetemplate-prod-md-0-x7k2p.yaml",
                Change::Added,
            ),
            f(
                "clusters/a/prod/desired/machinedeployment-prod-md-0.yaml",
                Change::Changed,
            ),
            f("clusters/a/prod/cluster-prod.yaml", Change::Changed),
            f(
                "clusters/a/prod/desired/machinedeployment-prod-md-1.yaml",
                Change::Added,
            ),
            f(
                "clusters/a/prod/desired/kubeadmconfigtemplate-prod-md-9-qqqqq.yaml",
                Change::Removed,
            ),
        ];
        assert_eq!(
            verbs(&objects, &[false; 6]),
            vec![
                ("replace", "topology controller"),
                ("replace", "topology controller"),
                ("update", "topology controller"),
                ("update", "tree"),
                ("create", "topology controller"),
                ("delete", "topology controller"),
            ]
        );
    }
}
