//! capi-render against clusterctl's recorded output, case by case (fixtures/cases.txt):
//! v1.14.2's (golden/clusterctl-v1.14) with the default `--clusterctl-version`, v1.10.10's
//! (golden/clusterctl) with `--clusterctl-version v1.10`. The golden files are produced
//! only by `conformance/run.sh update` running the real clusterctl; this test needs no Go.

use std::path::{Path, PathBuf};
use std::process::Command;

struct Case {
    name: String,
    env: Vec<(String, String)>,
    config: String,
    args: Vec<String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cases() -> Vec<Case> {
    let text =
        std::fs::read_to_string(root().join("fixtures/cases.txt")).expect("fixtures/cases.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            assert_eq!(f.len(), 4, "bad case line: {l}");
            let env = if f[1] == "-" {
                vec![]
            } else {
                f[1].split_whitespace()
                    .map(|kv| {
                        let (k, v) = kv.split_once('=').expect("VAR=value");
                        (k.to_string(), v.to_string())
                    })
                    .collect()
            };
            Case {
                name: f[0].to_string(),
                env,
                config: f[2].to_string(),
                args: f[3].split_whitespace().map(str::to_string).collect(),
            }
        })
        .collect()
}

/// Cases whose error text differs from clusterctl's on purpose, with the reason.
fn message_exceptions(file: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join("fixtures").join(file)).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}

/// The error line; capi-render may add a second line naming the input file.
fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn fixture_cases_match_clusterctl_v1_14() {
    run_cases(
        "golden/clusterctl-v1.14",
        &[],
        "error-message-differences-v1.14.txt",
    );
}

#[test]
fn fixture_cases_match_clusterctl_v1_10_with_the_version_switch() {
    run_cases(
        "golden/clusterctl",
        &["--clusterctl-version", "v1.10"],
        "error-message-differences.txt",
    );
}

fn run_cases(golden: &str, switch: &[&str], exceptions_file: &str) {
    let gold = root().join(golden);
    let fixtures = root().join("fixtures");
    let exceptions = message_exceptions(exceptions_file);
    let mut failures = Vec::new();
    let all = cases();
    assert!(
        all.len() >= 40,
        "expected the full case list, got {}",
        all.len()
    );
    for c in &all {
        let out = Command::new(env!("CARGO_BIN_EXE_capi-render"))
            .args(&c.args)
            .args(switch)
            .arg("--config")
            .arg(fixtures.join(&c.config))
            .env_clear()
            .envs(c.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .output()
            .expect("run capi-render");
        let fix = fixtures.to_string_lossy().to_string();
        let stdout = String::from_utf8_lossy(&out.stdout).replace(&fix, "@FIXTURES@");
        let stderr = String::from_utf8_lossy(&out.stderr).replace(&fix, "@FIXTURES@");
        let want_status: i32 = read(&gold.join(format!("{}.status", c.name)))
            .trim()
            .parse()
            .unwrap();
        let want_stdout = read(&gold.join(format!("{}.stdout", c.name)));
        let want_stderr = read(&gold.join(format!("{}.stderr", c.name)));
        assert!(
            !stderr.contains("panicked"),
            "{}: capi-render panicked: {stderr}",
            c.name
        );
        if want_status == 0 {
            if !out.status.success() {
                failures.push(format!(
                    "{}: clusterctl succeeded, capi-render failed: {stderr}",
                    c.name
                ));
            } else if stdout != want_stdout {
                let diff = similar::TextDiff::from_lines(&want_stdout, &stdout)
                    .unified_diff()
                    .context_radius(2)
                    .header("clusterctl", "capi-render")
                    .to_string();
                failures.push(format!(
                    "{}: stdout differs\n{}",
                    c.name,
                    diff.lines().take(40).collect::<Vec<_>>().join("\n")
                ));
            }
        } else if out.status.success() {
            failures.push(format!(
                "{}: clusterctl failed ({}), capi-render succeeded",
                c.name,
                want_stderr.trim()
            ));
        } else if !exceptions.contains(&c.name) && first_line(&stderr) != first_line(&want_stderr) {
            failures.push(format!(
                "{}: error message differs\n  clusterctl:  {}\n  capi-render: {}",
                c.name,
                want_stderr.trim(),
                stderr.trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}
