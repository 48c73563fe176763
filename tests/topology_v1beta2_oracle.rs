//! `capi-render render --stdout` on every case of conformance/topology-v1beta2/cases.txt
//! against its golden from Cluster API v1.14.2's desired-state code
//! (golden/topology-v1beta2/<case>/desired.yaml, written by
//! conformance/topology-v1beta2.sh update), normalised as that script does: random name
//! suffixes and document order. A case with a listed difference
//! (conformance/topology-v1beta2/differences/<case>.diff) must still differ; every other
//! case must match. Corpus cases read `$CAPI_CORPUS` with the placeholders' defaults.

use regex::Regex;

mod common;
use common::root;

fn normalise(text: &str) -> Vec<String> {
    let suffix = Regex::new(r"-[bcdfghjklmnpqrstvwxz2456789]{5}([^a-z0-9]|$)").unwrap();
    let lines: Vec<String> = text
        .lines()
        .map(|l| suffix.replace_all(l, "-XXXXX$1").into_owned())
        .collect();
    let mut docs: Vec<String> = lines
        .join("\n")
        .split("\n---\n")
        .map(|d| d.trim_matches('\n').to_string())
        .filter(|d| !d.is_empty())
        .collect();
    docs.sort();
    docs
}

struct Case {
    name: String,
    inputs: Vec<String>,
    /// The optional third column: flags given to both tools (`--capi-version v1.14.2`).
    flags: Vec<String>,
}

fn cases() -> Vec<Case> {
    let text =
        std::fs::read_to_string(root().join("conformance/topology-v1beta2/cases.txt")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| {
            let (name, rest) = l.split_once('|').expect("case | files");
            let (files, flags) = rest.split_once('|').unwrap_or((rest, ""));
            Case {
                name: name.trim().to_string(),
                inputs: files.split_whitespace().map(str::to_string).collect(),
                flags: flags.split_whitespace().map(str::to_string).collect(),
            }
        })
        .collect()
}

#[test]
fn cases_have_goldens_from_the_oracle() {
    let cs = cases();
    assert!(cs.len() >= 8, "{} cases", cs.len());
    for c in &cs {
        let g = root().join(format!("golden/topology-v1beta2/{}/desired.yaml", c.name));
        let text = std::fs::read_to_string(&g).unwrap_or_else(|e| panic!("{}: {e}", g.display()));
        assert!(text.contains("kind: Cluster\n"), "{}", c.name);
    }
}

#[test]
fn render_matches_cluster_api_desired_state() {
    let Some(_) = common::corpus() else { return };
    let scratch = common::Scratch::new("v1beta2-oracle");
    let defaults = Regex::new(r"\$\{[A-Z_]+:-([^}]*)\}").unwrap();
    let mut checked = 0;
    for c in cases() {
        let mut cmd = common::bin();
        cmd.args(["render", "--stdout", "-q", "--clusters", "desired"]);
        cmd.args(&c.flags);
        for (i, f) in c.inputs.iter().enumerate() {
            let path = match f.strip_prefix("corpus:") {
                Some(rel) => {
                    let text = std::fs::read_to_string(common::corpus_dir().join(rel)).unwrap();
                    scratch.write(
                        &format!("{}-{i}.yaml", c.name),
                        &defaults.replace_all(&text, "$1"),
                    )
                }
                None => root().join(f).display().to_string(),
            };
            cmd.args(["-f", &path]);
        }
        let out = common::run(&mut cmd, None);
        assert!(
            out.status.success(),
            "{}: {}",
            c.name,
            String::from_utf8_lossy(&out.stderr)
        );
        let ours = normalise(&String::from_utf8(out.stdout).unwrap());
        let golden = std::fs::read_to_string(
            root().join(format!("golden/topology-v1beta2/{}/desired.yaml", c.name)),
        )
        .unwrap();
        let theirs = normalise(&golden);
        let listed = root()
            .join(format!(
                "conformance/topology-v1beta2/differences/{}.diff",
                c.name
            ))
            .exists();
        if listed {
            assert_ne!(ours, theirs, "{}: the listed difference is gone", c.name);
        } else {
            assert_eq!(
                ours, theirs,
                "{}: render differs from CAPI's desired state",
                c.name
            );
        }
        checked += 1;
    }
    assert!(checked >= 8);
}
