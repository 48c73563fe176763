//! `diff --output-format html`: the same report as the Markdown comment, as one
//! self-contained page (inline style, no script, nothing fetched) for a CI artefact on a
//! large fleet: the headline, the warnings, a section per Cluster with a table of its
//! parts, and the object diffs per unit with added and removed lines coloured. No budget.

use super::inert;
use super::report::{headline, unit_diffs};
use super::ClusterImpact;

/// Text escaped for HTML element content and attribute values (a value from the inputs
/// goes through [`inert::html`], which also shows its hidden characters).
pub use super::inert::escape_html as escape;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#1f2328}\
h1{font-size:1.4em}.headline{font-size:1.15em;font-weight:600}\
.warning{border-left:4px solid #9a6700;background:#fff8c5;padding:.5em 1em;margin:.5em 0}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #d0d7de;padding:.25em .6em;text-align:left;vertical-align:top}\
.rollout{color:#cf222e;font-weight:600}.in-place{color:#1a7f37}.unknown{color:#9a6700}\
details{margin:.4em 0}summary{cursor:pointer}\
pre{background:#f6f8fa;padding:.6em;overflow-x:auto}.add{color:#1a7f37}.del{color:#cf222e}.hunk{color:#8250df}";

fn cluster_section(c: &ClusterImpact) -> String {
    let mut s = format!(
        "<details open><summary><b>Cluster {}/{}</b>: {}</summary>\n",
        inert::html(&c.namespace),
        inert::html(&c.name),
        c.action.as_str()
    );
    if c.parts().next().is_some() {
        s.push_str(
            "<table><tr><th>part</th><th>action</th><th>machines</th><th>reasons</th></tr>\n",
        );
        for (o, p) in c.parts() {
            let reasons: Vec<String> = p.reasons.iter().map(|r| inert::html(r)).collect();
            s.push_str(&format!(
                "<tr><td>{} <code>{}</code></td><td class=\"{a}\">{a}</td><td>{}</td><td>{}</td></tr>\n",
                o.label(),
                inert::html(&p.name),
                p.machines,
                reasons.join("<br>"),
                a = p.action.as_str(),
            ));
        }
        s.push_str("</table>\n");
    }
    s.push_str("</details>\n");
    s
}

fn diff_lines(body: &str) -> String {
    let mut s = String::with_capacity(body.len() + body.len() / 4);
    for line in body.split_terminator('\n') {
        let class = if line.starts_with("+++") || line.starts_with("---") {
            ""
        } else if line.starts_with('+') {
            "add"
        } else if line.starts_with('-') {
            "del"
        } else if line.starts_with("@@") {
            "hunk"
        } else {
            ""
        };
        if class.is_empty() {
            s.push_str(&inert::html(line));
        } else {
            let line = inert::html(line);
            s.push_str(&format!("<span class=\"{class}\">{line}</span>"));
        }
        s.push('\n');
    }
    s
}

/// The page for one [`crate::diff::Impact`].
pub fn page(clusters: &[ClusterImpact], warnings: &[String], diff: &str) -> String {
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <title>capi-render diff</title><style>{STYLE}</style></head>\n<body>\n\
         <h1>capi-render diff</h1>\n<p class=\"headline\" id=\"headline\">{}</p>\n",
        escape(&headline(clusters))
    );
    for w in warnings {
        s.push_str(&format!(
            "<div class=\"warning\">{}</div>\n",
            inert::html(w)
        ));
    }
    for c in clusters {
        s.push_str(&cluster_section(c));
    }
    let units = unit_diffs(diff);
    if !units.is_empty() {
        s.push_str(&format!(
            "<h2>Object diffs ({} unit{})</h2>\n",
            units.len(),
            if units.len() == 1 { "" } else { "s" }
        ));
    }
    for (h, b) in units {
        s.push_str(&format!(
            "<details><summary><code>{}</code></summary>\n<pre>{}</pre></details>\n",
            inert::html(h),
            diff_lines(b)
        ));
    }
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_self_contained_and_escapes_what_it_shows() {
        let p = page(
            &[],
            &["a <b> & \"c\"".into()],
            "# u: changed\n-old\n+<new>\n",
        );
        assert!(p.starts_with("<!DOCTYPE html>"));
        assert!(!p.contains("<script") && !p.contains("src=") && !p.contains("href="));
        assert!(p.contains("<div class=\"warning\">a &lt;b&gt; &amp; &quot;c&quot;</div>"));
        assert!(
            p.contains("<span class=\"del\">-old</span>\n<span class=\"add\">+&lt;new&gt;</span>")
        );
        assert!(p.contains("<p class=\"headline\" id=\"headline\">no Cluster changes</p>"));
    }
}
