//! "Did you mean": the closest candidate to a mistyped name, and the hint that lists
//! what there is.

/// Names longer than this get no suggestion (the distance is quadratic in length, and
/// no real kind, provider or version is this long).
const MAX_LEN: usize = 256;

/// Edit distance between two strings (by character): insertions, deletions,
/// substitutions and transpositions of neighbours (`synht` → `synth` is 1).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            d[i * w + j] = if i == 0 {
                j
            } else if j == 0 {
                i
            } else {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut v = (d[(i - 1) * w + j] + 1)
                    .min(d[i * w + j - 1] + 1)
                    .min(d[(i - 1) * w + j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    v = v.min(d[(i - 2) * w + j - 2] + 1);
                }
                v
            };
        }
    }
    d[a.len() * w + b.len()]
}

/// The candidate closest to `wanted` when it is close enough to be a likely typo
/// (at most a third of the longer name, and at least one edit allowed).
pub fn closest<'a, I: IntoIterator<Item = &'a str>>(
    wanted: &str,
    candidates: I,
) -> Option<&'a str> {
    if wanted.is_empty() || wanted.len() > MAX_LEN {
        return None;
    }
    candidates
        .into_iter()
        .filter(|c| *c != wanted && c.len() <= MAX_LEN)
        .map(|c| (edit_distance(wanted, c), c))
        .filter(|(d, c)| *d <= (wanted.chars().count().max(c.chars().count()) / 3).max(1))
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// The release closest to a version not found: one of the same major.minor with the
/// nearest patch (the newer on a tie: `v1.14.99` → `v1.14.2`, not `v1.10.9`, which is as
/// many edits away); otherwise the closest spelling.
pub fn closest_version<'a>(wanted: &str, candidates: &'a [String]) -> Option<&'a str> {
    let parse = |v: &str| semver::Version::parse(v.trim_start_matches('v')).ok();
    if let Some(w) = parse(wanted) {
        let same_minor = candidates
            .iter()
            .filter_map(|c| Some((parse(c)?, c.as_str())))
            .filter(|(v, c)| v.major == w.major && v.minor == w.minor && *c != wanted)
            .min_by_key(|(v, _)| (v.patch.abs_diff(w.patch), std::cmp::Reverse(v.clone())));
        if let Some((_, c)) = same_minor {
            return Some(c);
        }
    }
    closest(wanted, candidates.iter().map(String::as_str))
}

/// "did you mean X? NOUN there: a, b, c" (or "no NOUN there"), for a name not found.
pub fn did_you_mean(wanted: &str, noun: &str, candidates: &[String]) -> String {
    did_you_mean_with(
        closest(wanted, candidates.iter().map(String::as_str)),
        noun,
        candidates,
    )
}

/// [`did_you_mean`] for release versions, with [`closest_version`]'s choice.
pub fn did_you_mean_version(wanted: &str, candidates: &[String]) -> String {
    did_you_mean_with(closest_version(wanted, candidates), "versions", candidates)
}

fn did_you_mean_with(closest: Option<&str>, noun: &str, candidates: &[String]) -> String {
    let mut s = String::new();
    if let Some(c) = closest {
        s.push_str(&format!("did you mean {c:?}? "));
    }
    if candidates.is_empty() {
        s.push_str(&format!("there are no {noun} there"));
    } else {
        s.push_str(&format!("{noun} there: {}", candidates.join(", ")));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_and_suggestions() {
        assert_eq!(edit_distance("dockr", "docker"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("synht", "synth"), 1);
        assert_eq!(closest("dockr", ["aws", "docker", "azure"]), Some("docker"));
        assert_eq!(
            closest("Clusterr", ["Cluster", "ClusterClass"]),
            Some("Cluster")
        );
        assert_eq!(closest("v1.2.4", ["v1.2.3", "v0.1.0"]), Some("v1.2.3"));
        assert_eq!(closest("zzzzzz", ["docker"]), None);
        assert_eq!(closest(&"a".repeat(100_000), ["docker"]), None);
        let h = did_you_mean(
            "dockr",
            "infrastructure providers",
            &["aws".into(), "docker".into()],
        );
        assert_eq!(
            h,
            "did you mean \"docker\"? infrastructure providers there: aws, docker"
        );
    }

    #[test]
    fn versions_suggest_the_same_minor_first() {
        let v: Vec<String> = ["v1.9.11", "v1.10.9", "v1.10.10", "v1.14.2", "v1.14.3"]
            .map(String::from)
            .into();
        // As many edits from v1.10.9 as from v1.14.2: the same minor wins.
        assert_eq!(closest_version("v1.14.99", &v), Some("v1.14.3"));
        assert_eq!(closest_version("v1.10.19", &v), Some("v1.10.10"));
        assert_eq!(closest_version("v1.14.1", &v), Some("v1.14.2"));
        // No release of that minor: the closest spelling, if any is close.
        assert_eq!(closest_version("v1.11.0", &v), Some("v1.10.10"));
        assert_eq!(closest_version("latest-ish", &v), None);
        assert!(did_you_mean_version("v1.14.99", &v)
            .starts_with("did you mean \"v1.14.3\"? versions there: v1.9.11"));
    }
}
