//! "Did you mean": the closest candidate to a mistyped word.

/// Levenshtein distance over chars (case-insensitive), O(len(a)·len(b)) time and
/// O(len(b)) memory; both words are short names.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The candidate closest to `word`, if it is close enough to be a typo (at most a
/// third of the word's length, and at least 1, edits); ties go to the first.
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    if word.is_empty() || word.chars().count() > 253 {
        return None;
    }
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (distance(word, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("Docker", "docker"), 0);
        assert_eq!(
            closest("dockr", &["aws", "docker", "vsphere"]),
            Some("docker")
        );
        assert_eq!(
            closest("Clusterr", &["Cluster", "ClusterClass"]),
            Some("Cluster")
        );
        assert_eq!(closest("zzz", &["aws", "docker"]), None);
        assert_eq!(closest("", &["a"]), None);
    }
}
