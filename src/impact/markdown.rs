//! `diff --output-format markdown`: the rollout impact as a pull-request comment. The
//! hidden marker first (CI finds and updates its one comment by it), the headline, the
//! warnings as a GitHub alert, one `<details>` section per Cluster, then the object diffs
//! per unit. The whole comment stays within a character budget (GitHub's 65,536): what
//! does not fit is counted in a last line that points at the full report.

use super::inert;
use super::report::{headline, unit_diffs};
use super::ClusterImpact;

/// The first line of every comment: CI updates the comment that carries it.
pub const MARKER: &str = "<!-- capi-render diff -->";

/// GitHub's limit on a comment's body, in characters.
pub const GITHUB_BUDGET: usize = 65_536;

/// Room kept for the closing line that says what was cut.
const CUT_NOTE_ROOM: usize = 600;

/// A value in a Markdown table cell: inert ([`inert::markdown`]).
pub fn cell(s: &str) -> String {
    inert::markdown(s, true)
}

/// One Cluster's `<details>` section: the action in the summary, a table of its parts.
pub fn cluster_section(c: &ClusterImpact) -> String {
    let rolls: u64 = c
        .parts()
        .filter(|(_, p)| p.action == super::Action::Rollout)
        .map(|(_, p)| p.machines)
        .sum();
    let what = if rolls > 0 {
        format!(" · {} replaced", super::machines(rolls))
    } else {
        String::new()
    };
    let mut s = format!(
        "<details><summary><b>Cluster {}/{}</b>: {}{what}</summary>\n\n",
        inert::html(&c.namespace),
        inert::html(&c.name),
        c.action.as_str()
    );
    if c.parts().next().is_some() {
        s.push_str("| part | action | machines | reasons |\n|---|---|---|---|\n");
        for (o, p) in c.parts() {
            let name = if p.name.is_empty() {
                String::new()
            } else {
                format!(" {}", inert::code_span(&inert::text(&p.name), true))
            };
            let reasons: Vec<String> = p.reasons.iter().map(|r| cell(r)).collect();
            s.push_str(&format!(
                "| {}{name} | {} | {} | {} |\n",
                o.label(),
                p.action.as_str(),
                p.machines,
                reasons.join("<br>")
            ));
        }
        s.push('\n');
    }
    s.push_str("</details>\n\n");
    s
}

/// A fenced ```diff block that no line of `body` can close.
fn fenced(body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for ch in body.chars() {
        run = if ch == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}diff\n{body}{fence}\n")
}

fn unit_section(header: &str, body: &str) -> String {
    format!(
        "<details><summary><code>{}</code></summary>\n\n{}\n</details>\n\n",
        inert::html(header),
        fenced(&inert::lines(body))
    )
}

/// The comment for a diff: `clusters`, `warnings` and the object `diff` text of one
/// [`crate::diff::Impact`], at most `budget` characters; `full_report` (a URL or a
/// command) is named when something is cut.
pub fn comment(
    clusters: &[ClusterImpact],
    warnings: &[String],
    diff: &str,
    budget: usize,
    full_report: &str,
) -> String {
    let mut out = format!(
        "{MARKER}\n### capi-render diff\n\n**{}**\n\n",
        headline(clusters)
    );
    let room = budget.saturating_sub(CUT_NOTE_ROOM);
    let len = |s: &str| s.chars().count();
    let mut used = len(&out);
    let mut cut = [0usize; 4]; // warnings, Clusters, unit diffs, the diffs' heading
    let mut put = |piece: String, kind: usize, out: &mut String| {
        let n = len(&piece);
        if cut.iter().all(|&c| c == 0) && used + n <= room {
            used += n;
            out.push_str(&piece);
        } else {
            cut[kind] += 1;
        }
    };
    if !warnings.is_empty() {
        put("> [!WARNING]\n".to_string(), 0, &mut out);
        for (i, w) in warnings.iter().enumerate() {
            let sep = if i + 1 < warnings.len() { ">\n" } else { "\n" };
            put(
                format!("> {}\n{sep}", inert::markdown(w, false)),
                0,
                &mut out,
            );
        }
    }
    for c in clusters {
        put(cluster_section(c), 1, &mut out);
    }
    let units = unit_diffs(diff);
    if !units.is_empty() {
        put(
            format!(
                "#### Object diffs ({} unit{})\n\n",
                units.len(),
                if units.len() == 1 { "" } else { "s" }
            ),
            3,
            &mut out,
        );
    }
    for (h, b) in units {
        put(unit_section(h, b), 2, &mut out);
    }
    if cut.iter().any(|&c| c > 0) {
        let parts: Vec<String> = [
            (cut[0], "warning", "warnings"),
            (cut[1], "Cluster section", "Cluster sections"),
            (cut[2], "unit diff", "unit diffs"),
        ]
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|(n, one, many)| format!("{n} {}", if *n == 1 { one } else { many }))
        .collect();
        out.push_str(&format!(
            "_Cut to fit {budget} characters: {} not shown. The full report: {}._\n",
            parts.join(", "),
            inert::html(full_report)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Action, ClusterAction, Part};
    use super::*;

    fn impact(name: &str, machines: u64) -> ClusterImpact {
        ClusterImpact {
            namespace: "team-a".into(),
            name: name.into(),
            class: "team-a/quick-start".into(),
            action: ClusterAction::Update,
            control_plane: Some(Part {
                name: String::new(),
                action: Action::Rollout,
                machines,
                reasons: vec!["spec.version: v1.33.0 → v1.34.0 | <x>".into()],
            }),
            machine_deployments: vec![],
            machine_pools: vec![],
            warnings: vec![],
            upgrade_plan: None,
        }
    }

    #[test]
    fn the_comment_has_the_marker_headline_sections_and_diffs() {
        let diff = "# clusters/team-a/a: changed, 1 object differs\n--- a\n+++ b\n-x\n+y\n# providers/p: added, 1 object differs\n+z\n";
        let c = comment(&[impact("a", 3)], &["w1".into()], diff, GITHUB_BUDGET, "r");
        assert!(c.starts_with(&format!("{MARKER}\n### capi-render diff\n\n**1 Cluster changed · 1 control plane rolls (3 machines)**\n\n> [!WARNING]\n> w1\n\n")), "{c}");
        assert!(
            c.contains("<summary><b>Cluster team-a/a</b>: update · 3 machines replaced</summary>"),
            "{c}"
        );
        assert!(
            c.contains(
                "| control plane | rollout | 3 | spec.version: v1.33.0 → v1.34.0 \\| &lt;x&gt; |"
            ),
            "{c}"
        );
        assert!(c.contains("#### Object diffs (2 units)"), "{c}");
        assert!(c.contains("<code>clusters/team-a/a: changed, 1 object differs</code></summary>\n\n```diff\n--- a\n+++ b\n-x\n+y\n```\n"), "{c}");
        assert!(c.contains("```diff\n+z\n```"), "{c}");
        assert!(!c.contains("Cut to fit"), "{c}");
    }

    #[test]
    fn a_comment_over_budget_is_cut_and_says_what_is_missing() {
        let clusters: Vec<ClusterImpact> = (0..2000).map(|i| impact(&format!("c{i}"), 3)).collect();
        let c = comment(
            &clusters,
            &[],
            "",
            GITHUB_BUDGET,
            "https://ci.example/report.html",
        );
        assert!(c.chars().count() <= GITHUB_BUDGET, "{}", c.len());
        let shown = c.matches("<details>").count();
        assert!(shown > 10 && shown < 2000, "{shown}");
        assert!(c.ends_with(&format!("_Cut to fit 65536 characters: {} Cluster sections not shown. The full report: https://ci.example/report.html._\n", 2000 - shown)), "{}", &c[c.len() - 300..]);
    }

    #[test]
    fn a_fence_outlasts_backticks_in_the_diff() {
        assert_eq!(fenced("+a ```` b\n"), "`````diff\n+a ```` b\n`````\n");
        assert_eq!(
            unit_diffs("# u: x\n+a\n# v: y\n"),
            [("u: x", "+a\n"), ("v: y", "")]
        );
        assert!(super::super::report::unit_diffs("").is_empty());
    }
}
