//! No silent loss of a unit family: a `render -o` whose flags would remove what OUT's
//! lock records — the Flux or Argo CD objects, cert-manager, the class units, the
//! Namespaces (the namespaces unit and the providers'), or the Clusters of another
//! cluster mode — is refused before
//! anything is rendered or written, naming what would go and the flag that differs,
//! unless `--allow-prune` is given. `--from-lock` runs with the recorded flags.

use super::lock::{Owned, RenderCommand};
use crate::error::{Error, Result};
use crate::model::ClusterMode;

/// A family the previous tree has and this run would remove: what the lock records
/// (`--flux`), how much of it (`10 files under flux/`), what this run has instead
/// (`no --flux`) and how to keep it (`with --flux`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loss {
    pub recorded: String,
    pub files: usize,
    pub what: String,
    pub this_run: String,
    pub keep_flag: String,
}

/// The files among `outputs` whose path satisfies `f`.
fn count(outputs: &[Owned<'_>], f: impl Fn(&str) -> bool) -> usize {
    outputs.iter().filter(|o| f(o.path)).count()
}

/// The namespaces unit's directory, as a path prefix.
const NAMESPACES: &str = "namespaces/";

/// A provider's Namespace file (`providers/<ns>/<unit>/namespace-<name>.yaml`).
fn is_provider_namespace(p: &str) -> bool {
    p.starts_with("providers/")
        && p.rsplit('/')
            .next()
            .is_some_and(|f| f.starts_with("namespace-"))
}

/// What a run with the flags `now` would remove from a tree whose lock lists
/// `outputs` and records `recorded` (`None`: a lock without `command:`, whose files
/// still tell every family but the cluster mode).
pub fn losses(
    outputs: &[Owned<'_>],
    recorded: Option<&RenderCommand>,
    now: &RenderCommand,
) -> Vec<Loss> {
    let mut out = Vec::new();
    let mut family = |dir: &str, flag: &str, present: bool, what: &str| {
        let n = count(outputs, |p| p.starts_with(dir));
        if n > 0 && !present {
            out.push(Loss {
                recorded: flag.to_string(),
                files: n,
                what: format!("{what} under {dir}"),
                this_run: format!("no {flag}"),
                keep_flag: format!("with {flag}"),
            });
        }
    };
    family("flux/", "--flux", now.flux.is_some(), "Flux files");
    family("argocd/", "--argocd", now.argocd.is_some(), "Argo CD files");
    family(
        "cert-manager/",
        "--cert-manager",
        now.cert_manager,
        "cert-manager files",
    );
    let mode = recorded.map(|c| c.clusters);
    match mode {
        Some(m) if m != now.clusters => {
            let n = count(outputs, |p| {
                p.starts_with("clusters/") || p.starts_with("classes/")
            });
            if n > 0 {
                out.push(Loss {
                    recorded: format!("--clusters {}", m.as_str()),
                    files: n,
                    what: "files under clusters/ and classes/, written in that mode".into(),
                    this_run: format!("--clusters {}", now.clusters.as_str()),
                    keep_flag: format!("with --clusters {}", m.as_str()),
                });
            }
        }
        // Without a recorded mode, the class units tell a managed tree.
        None if now.clusters != ClusterMode::Managed => {
            let n = count(outputs, |p| p.starts_with("classes/"));
            if n > 0 {
                out.push(Loss {
                    recorded: "class units (--clusters managed)".into(),
                    files: n,
                    what: "files under classes/".into(),
                    this_run: format!("--clusters {}", now.clusters.as_str()),
                    keep_flag: "with --clusters managed".into(),
                });
            }
        }
        _ => {}
    }
    // Config Secret values would land in files that hold placeholders now.
    if let Some(r) = recorded.filter(|r| r.secrets != now.secrets) {
        let n = count(outputs, |p| p.starts_with("providers/"));
        if r.secrets != crate::model::SecretsMode::Keep && n > 0 {
            let mode = r.secrets.as_str();
            out.push(Loss {
                recorded: format!("--secrets {mode}"),
                files: n,
                what: "files under providers/, free of config Secret values".into(),
                this_run: format!("--secrets {}", now.secrets.as_str()),
                keep_flag: format!("with --secrets {mode}"),
            });
        }
    }
    let ns = count(outputs, |p| {
        is_provider_namespace(p) || p.starts_with(NAMESPACES)
    });
    if now.no_namespaces && ns > 0 {
        out.push(Loss {
            recorded: "the Namespaces (the namespaces unit and the providers')".into(),
            files: ns,
            what: "files under namespaces/ and Namespace files under providers/".into(),
            this_run: "--no-namespaces".into(),
            keep_flag: "without --no-namespaces".into(),
        });
    }
    out
}

/// The refusal of a run that would lose `losses` from OUT (shown as `out`), naming
/// each family and the ways on.
pub fn refusal(out: &str, losses: &[Loss]) -> Error {
    let each: Vec<String> = losses
        .iter()
        .map(|l| {
            format!(
                "the lock records {} ({} {}); this run has {}: they would be removed",
                l.recorded, l.files, l.what, l.this_run
            )
        })
        .collect();
    let keep: Vec<&str> = losses.iter().map(|l| l.keep_flag.as_str()).collect();
    let lock = format!("{out}/{}", super::lock::FILE);
    Error::new(format!(
        "{lock}: {}. Run again {}, or with `capi-render render --from-lock {out}` to keep the recorded flags, or pass --allow-prune to remove them",
        each.join("; "),
        keep.join(" and ")
    ))
    .in_file(&lock)
}

/// `Err` naming what a run with `now` would remove from the tree at `out` (whose lock
/// lists `outputs` and records `recorded`), unless `allow_prune`.
pub fn refuse_losses(
    out: &str,
    outputs: &[Owned<'_>],
    recorded: Option<&RenderCommand>,
    now: &RenderCommand,
    allow_prune: bool,
) -> Result<()> {
    let l = losses(outputs, recorded, now);
    if allow_prune || l.is_empty() {
        return Ok(());
    }
    Err(refusal(out, &l))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUM: &str = "0000000000000000000000000000000000000000000000000000000000000000";

    fn owned(paths: &[&'static str]) -> Vec<Owned<'static>> {
        paths
            .iter()
            .map(|p| Owned {
                path: p,
                sha256: SUM,
            })
            .collect()
    }

    fn tree() -> Vec<Owned<'static>> {
        owned(&[
            "argocd/a.yaml",
            "argocd/kustomization.yaml",
            "cert-manager/deployment-cm.yaml",
            "classes/ns/quick/kustomization.yaml",
            "clusters/ns/c/cluster-c.yaml",
            "flux/a.yaml",
            "flux/b.yaml",
            "flux/kustomization.yaml",
            "kustomization.yaml",
            "namespaces/kustomization.yaml",
            "namespaces/namespace-ns.yaml",
            "providers/capi-system/core-cluster-api/namespace-capi-system.yaml",
        ])
    }

    fn full() -> RenderCommand {
        RenderCommand {
            files: vec!["p.yaml".into()],
            cert_manager: true,
            flux: Some(("flux-system".into(), "out".into())),
            argocd: Some((
                crate::gitops::argocd::Settings {
                    repo_url: "https://git.example.com/r.git".into(),
                    revision: "HEAD".into(),
                    project: "default".into(),
                    namespace: "argocd".into(),
                },
                "out".into(),
            )),
            ..Default::default()
        }
    }

    #[test]
    fn the_same_flags_lose_nothing() {
        assert_eq!(losses(&tree(), Some(&full()), &full()), vec![]);
        assert_eq!(losses(&tree(), None, &full()), vec![]);
        assert_eq!(
            losses(&[], Some(&full()), &RenderCommand::default()),
            vec![]
        );
    }

    #[test]
    fn each_dropped_family_is_named_with_its_flag() {
        let mut now = full();
        now.flux = None;
        let l = losses(&tree(), Some(&full()), &now);
        assert_eq!(l.len(), 1);
        assert_eq!((l[0].keep_flag.as_str(), l[0].files), ("with --flux", 3));
        now.argocd = None;
        now.cert_manager = false;
        let flags: Vec<String> = losses(&tree(), None, &now)
            .into_iter()
            .map(|l| l.keep_flag)
            .collect();
        assert_eq!(
            flags,
            ["with --flux", "with --argocd", "with --cert-manager"]
        );
        let e = refusal("out", &losses(&tree(), None, &now));
        let m = e.message();
        assert!(m.starts_with("out/capi-render.lock: the lock records --flux (3 Flux files under flux/); this run has no --flux: they would be removed;"), "{m}");
        assert!(m.contains("Run again with --flux and with --argocd and with --cert-manager, or with `capi-render render --from-lock out`"), "{m}");
        assert!(m.ends_with("pass --allow-prune to remove them"), "{m}");
        assert!(refuse_losses("out", &tree(), None, &now, true).is_ok());
        assert!(refuse_losses("out", &tree(), None, &now, false).is_err());
    }

    #[test]
    fn a_changed_cluster_mode_and_dropped_namespaces_are_named() {
        let mut now = full();
        now.clusters = ClusterMode::Flatten;
        let l = losses(&tree(), Some(&full()), &now);
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].recorded, "--clusters managed");
        assert_eq!(l[0].this_run, "--clusters flatten");
        assert_eq!(l[0].files, 2);
        // Flatten back to managed: the recorded mode is what counts.
        let mut flat = full();
        flat.clusters = ClusterMode::Flatten;
        let l = losses(&tree(), Some(&flat), &full());
        assert_eq!(l[0].keep_flag, "with --clusters flatten");
        // No recorded command: the class units tell a managed tree.
        let l = losses(&tree(), None, &now);
        assert_eq!(
            (l[0].keep_flag.as_str(), l[0].files),
            ("with --clusters managed", 1)
        );
        let mut nons = full();
        nons.no_namespaces = true;
        let l = losses(&tree(), Some(&full()), &nons);
        // The namespaces unit and the provider's Namespace file.
        assert_eq!((l[0].this_run.as_str(), l[0].files), ("--no-namespaces", 3));
    }
}
