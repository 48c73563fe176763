//! Chained upgrades (Cluster API v1.12+): the steps the topology controller takes from a
//! Cluster's current version to a new `spec.topology.version` when its ClusterClass
//! lists `spec.kubernetesVersions` — the control plane through the newest listed patch of
//! every minor in between, the workers only where the version skew rules need a step
//! (every third minor) and at the end — as `exp/topology/desiredstate`'s
//! `GetUpgradePlanFromClusterClassVersions` and `DefaultAndValidateUpgradePlans` compute
//! them (v1.14.2). Pure functions over version strings.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use semver::Version;

/// An upgrade plan: the versions the control plane and the workers go through, in order,
/// the last being the Cluster's new version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub control_plane: Vec<String>,
    pub workers: Vec<String>,
}

/// A version as Cluster API's `semver.ParseTolerant` reads it (`v` prefix, a missing
/// patch).
fn parse(v: &str) -> Result<Version, String> {
    let t = v.trim().trim_start_matches('v');
    let core_end = t.find(['-', '+']).unwrap_or(t.len());
    let t = if t[..core_end].matches('.').count() == 1 {
        format!("{}.0{}", &t[..core_end], &t[core_end..])
    } else {
        t.to_string()
    };
    Version::parse(&t).map_err(|e| format!("failed to parse version {v}: {e}"))
}

/// `version.Compare(a, b, WithBuildTags())`: -1, 0, 1, or 2 for the same version with
/// other build tags (no order).
fn compare(a: &Version, b: &Version) -> i8 {
    match a.cmp_precedence(b) {
        Ordering::Less => -1,
        Ordering::Greater => 1,
        Ordering::Equal if a.build == b.build => 0,
        Ordering::Equal => 2,
    }
}

/// The control plane's steps from `current` to `desired` through the class's
/// `kubernetesVersions`: every listed version above the current one up to the desired
/// one, keeping the last of each minor.
fn control_plane_steps(
    desired: &str,
    current: &str,
    versions: &[String],
) -> Result<Vec<String>, String> {
    let (d, c) = (parse(desired)?, parse(current)?);
    if d.to_string() == c.to_string() {
        return Ok(Vec::new());
    }
    let mut candidates = Vec::new();
    for v in versions {
        let s = parse(v)?;
        if s.cmp_precedence(&c) != Ordering::Greater {
            continue;
        }
        if compare(&s, &d) == 1 {
            break;
        }
        candidates.push((v.clone(), s.minor));
        if s.to_string() == d.to_string() {
            break;
        }
    }
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let mut out: Vec<String> = Vec::new();
    let mut minor = c.minor;
    if minor == d.minor {
        out.push(candidates[0].0.clone());
    }
    for (v, m) in candidates {
        if m > minor {
            out.push(v);
        } else if m == minor && !out.is_empty() {
            let last = out.len() - 1;
            out[last] = v;
        }
        minor = m;
    }
    Ok(out)
}

/// The upgrade plan of a Cluster whose control plane is at `control_plane` and whose
/// oldest worker is at `min_workers` (none without workers), moving to `desired`
/// through the class's `kubernetesVersions`; Cluster API's error when it cannot plan.
pub fn plan(
    desired: &str,
    control_plane: &str,
    min_workers: Option<&str>,
    versions: &[String],
) -> Result<Plan, String> {
    let cp_plan = control_plane_steps(desired, control_plane, versions)?;
    let (d, cp) = (parse(desired)?, parse(control_plane)?);
    let mut minors: BTreeMap<u64, String> = BTreeMap::new();
    minors.insert(cp.minor, control_plane.to_string());
    if compare(&cp, &d) != 0 {
        let mut current = cp.clone();
        for (i, t) in cp_plan.iter().enumerate() {
            let s = parse(t)?;
            if compare(&s, &current) <= 0 {
                return Err(format!("invalid ControlPlane upgrade plan: item {i}; version {t} must be greater than v{current}"));
            }
            if current.minor != s.minor && current.minor + 1 != s.minor {
                return Err(format!("invalid ControlPlane upgrade plan: item {i}; expecting a version with minor {} or {}, found version {t}", current.minor, current.minor + 1));
            }
            minors.insert(s.minor, t.clone());
            current = s;
        }
        if compare(&current, &d) != 0 {
            return Err(format!("invalid ControlPlane upgrade plan: control plane upgrade plan must end with version {desired}, ends with v{current} instead"));
        }
    }
    let mut workers = Vec::new();
    if let Some(w) = min_workers.map(parse).transpose()? {
        if compare(&w, &d) != 0 {
            for i in 1..d.minor.saturating_sub(w.minor) {
                if i % 3 == 0 {
                    let v = minors.get(&(w.minor + i)).ok_or_else(|| {
                        format!(
                            "invalid upgrade plan; unable to identify version for minor {}",
                            w.minor + i
                        )
                    })?;
                    workers.push(v.clone());
                }
            }
            if workers.last().map(String::as_str) != Some(desired) {
                workers.push(desired.to_string());
            }
        }
    }
    Ok(Plan {
        control_plane: cp_plan,
        workers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vs(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_control_plane_takes_the_newest_listed_patch_of_every_minor() {
        let versions = vs(&["v1.32.4", "v1.33.1", "v1.33.2", "v1.34.0", "v1.34.1"]);
        let p = plan("v1.34.1", "v1.32.4", Some("v1.32.4"), &versions).unwrap();
        assert_eq!(p.control_plane, ["v1.33.2", "v1.34.1"]);
        assert_eq!(p.workers, ["v1.34.1"]);
        // A patch upgrade within the minor.
        let p = plan("v1.34.1", "v1.34.0", Some("v1.34.0"), &versions).unwrap();
        assert_eq!(p.control_plane, ["v1.34.1"]);
        // Nothing to do.
        let p = plan("v1.34.1", "v1.34.1", Some("v1.34.1"), &versions).unwrap();
        assert_eq!(
            p,
            Plan {
                control_plane: vec![],
                workers: vec![]
            }
        );
    }

    #[test]
    fn workers_step_every_third_minor() {
        let versions = vs(&[
            "v1.30.1", "v1.31.1", "v1.32.1", "v1.33.1", "v1.34.1", "v1.35.0",
        ]);
        let p = plan("v1.35.0", "v1.30.1", Some("v1.30.1"), &versions).unwrap();
        assert_eq!(p.control_plane.len(), 5);
        assert_eq!(p.workers, ["v1.33.1", "v1.35.0"]);
        // No workers: no workers plan.
        assert!(plan("v1.35.0", "v1.30.1", None, &versions)
            .unwrap()
            .workers
            .is_empty());
    }

    #[test]
    fn a_missing_minor_cannot_be_planned() {
        let e = plan("v1.34.1", "v1.32.4", None, &vs(&["v1.32.4", "v1.34.1"])).unwrap_err();
        assert_eq!(e, "invalid ControlPlane upgrade plan: item 0; expecting a version with minor 32 or 33, found version v1.34.1");
        assert!(parse("1.34").is_ok());
    }
}
