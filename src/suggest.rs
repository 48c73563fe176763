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

/// "did you mean X? NOUN there: a, b, c" (or "no NOUN there"), for a name not found.
pub fn did_you_mean(wanted: &str, noun: &str, candidates: &[String]) -> String {
    let mut s = String::new();
    if let Some(c) = closest(wanted, candidates.iter().map(String::as_str)) {
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
}
