//! The review cannot lie: a Cluster variable whose value reaches a rollout reason holds
//! carriage returns, ANSI escapes (`ESC[1A ESC[2K`: cursor up, erase the line), a
//! bidi override, Markdown emphasis, link and image syntax, raw HTML, a pipe, a line
//! break, a URL, an e-mail address and a mention. `diff` shows it as a value in every
//! output: the text report (with and without colour) carries no raw control character,
//! the Markdown comment parsed by a GFM parser (comrak, a port of GitHub's cmark-gfm)
//! has exactly the headline, tables, rows and sections it has for a plain value and no
//! link, image, HTML or emphasis from the value, and the HTML page shows it escaped.

use std::fs;
use std::path::{Path, PathBuf};

use comrak::nodes::{AstNode, NodeValue};
use comrak::{parse_document, Arena, Options};

mod common;

/// What the prod Cluster's `registry` variable becomes (a reason shows ≤ 64 bytes).
const PROD: &str = "\r\x1b[1A\x1b[2K**no Cluster changes** [l](https://e.example) $x$";
/// What the dev Cluster's `registry` variable becomes.
const DEV: &str = "![i](x) <img src=x onerror=alert(1)> a|b\nc @team a@b.ex \u{202e}";

/// The quick-start inputs with the two Clusters' `registry` values replaced.
fn inputs(s: &common::Scratch, name: &str, prod: &str, dev: &str) -> PathBuf {
    let src = common::root().join("fixtures/quickstart/clusters");
    let d = s.path().join(name);
    fs::create_dir_all(&d).unwrap();
    fs::copy(src.join("class.yaml"), d.join("class.yaml")).unwrap();
    let quoted = |v: &str| serde_json::to_string(v).unwrap();
    let t = fs::read_to_string(src.join("clusters.yaml")).unwrap();
    for from in ["value: mirror.example.com", "value: registry.example.com"] {
        assert!(t.contains(from), "{from}");
    }
    let t = t
        .replace(
            "value: mirror.example.com",
            &format!("value: {}", quoted(prod)),
        )
        .replace(
            "value: registry.example.com",
            &format!("value: {}", quoted(dev)),
        );
    fs::write(d.join("clusters.yaml"), t).unwrap();
    d
}

fn diff(after: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let root = common::root();
    let mut cmd = common::bin();
    cmd.current_dir(&root)
        .args(["diff", "-f", "fixtures/quickstart/clusters", "--against"])
        .arg(after)
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = common::run(&mut cmd, None);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Characters that act on a terminal or reorder text: controls and bidi formatting.
fn hidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A value as the reports show it: hidden characters in Go's `%q` spelling.
fn shown(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\r' => "\\r".to_string(),
            '\n' => "\\n".to_string(),
            c if hidden(c) && (c as u32) < 0x80 => format!("\\x{:02x}", c as u32),
            c if hidden(c) => format!("\\u{:04x}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

/// The reason the prod control plane's `imageRepository` change gives, as shown.
fn reason(old: &str, new: &str) -> String {
    format!(
        "spec.kubeadmConfigSpec.clusterConfiguration.imageRepository: {old} → {}",
        shown(new)
    )
}

fn raw_hidden(s: &str) -> Vec<char> {
    s.chars().filter(|&c| c != '\n' && hidden(c)).collect()
}

#[test]
fn the_text_report_shows_hidden_characters_escaped_with_or_without_colour() {
    let s = common::Scratch::new("inert-text");
    let after = inputs(&s, "hostile", PROD, DEV);
    for (args, env) in [
        (&["--color", "never"][..], &[][..]),
        (&["--color", "always"][..], &[("CLICOLOR_FORCE", "1")][..]),
        (&[][..], &[][..]),
    ] {
        let out = diff(&after, args, env);
        assert!(
            raw_hidden(&out).is_empty(),
            "{args:?}: {:?}",
            raw_hidden(&out)
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0], "2 Clusters changed · 2 control planes roll (4 machines)",
            "{out}"
        );
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("Cluster ")).count(),
            2,
            "{out}"
        );
        assert!(
            out.contains(&format!("    {}\n", reason("mirror.example.com", PROD))),
            "{out}"
        );
        assert!(
            out.contains(&format!("    {}\n", reason("registry.example.com", DEV))),
            "{out}"
        );
        assert!(
            out.contains("\\r\\x1b[1A\\x1b[2K**no Cluster changes**"),
            "{out}"
        );
        assert!(out.contains("a|b\\nc @team a@b.ex \\u202e"), "{out}");
    }
}

#[test]
fn the_html_page_shows_hidden_characters_and_markup_escaped() {
    let s = common::Scratch::new("inert-html");
    let after = inputs(&s, "hostile", PROD, DEV);
    let page = diff(&after, &["--output-format", "html"], &[]);
    assert!(raw_hidden(&page).is_empty(), "{:?}", raw_hidden(&page));
    assert!(!page.contains("<img"), "{page}");
    assert!(
        page.contains("\\r\\x1b[1A\\x1b[2K**no Cluster changes** [l](https://e.example)"),
        "{page}"
    );
    assert!(
        page.contains("&lt;img src=x onerror=alert(1)&gt; a|b\\nc @team a@b.ex \\u202e"),
        "{page}"
    );
    // JSON carries the exact value (serde escapes the control characters).
    let json = diff(&after, &["--output-format", "json"], &[]);
    assert!(raw_hidden(&json).iter().all(|&c| c == '\u{202e}'), "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let reasons: Vec<&str> = v["impact"]["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["controlPlane"]["reasons"].as_array().unwrap())
        .filter_map(|r| r.as_str())
        .collect();
    let exact = format!(
        "spec.kubeadmConfigSpec.clusterConfiguration.imageRepository: mirror.example.com → {PROD}"
    );
    assert!(reasons.contains(&exact.as_str()), "{reasons:?}");
}

fn gfm() -> Options<'static> {
    let mut o = Options::default();
    let e = &mut o.extension;
    e.table = true;
    e.autolink = true;
    e.strikethrough = true;
    e.tasklist = true;
    e.footnotes = true;
    e.alerts = true;
    e.math_dollars = true;
    o
}

/// The plain text under `n`: its Text and code spans, up to the first `<br>`.
fn plain<'a>(n: &'a AstNode<'a>) -> String {
    let mut s = String::new();
    for d in n.descendants() {
        match &d.data.borrow().value {
            NodeValue::Text(t) => s.push_str(t),
            NodeValue::Code(c) => s.push_str(&c.literal),
            NodeValue::HtmlInline(h) if h == "<br>" => break,
            _ => {}
        }
    }
    s
}

/// The comment's structure: every node but the text and code spans (where values go),
/// with a heading's text, a table's size, a code block's info string and the HTML.
fn skeleton<'a>(n: &'a AstNode<'a>, depth: usize, out: &mut Vec<String>) {
    let v = n.data.borrow().value.clone();
    let line = match &v {
        NodeValue::Text(_) | NodeValue::Code(_) => return,
        NodeValue::Heading(h) => format!("Heading {} {}", h.level, plain(n)),
        NodeValue::Table(t) => format!("Table {}x{}", t.num_rows, t.num_columns),
        NodeValue::CodeBlock(c) => format!("CodeBlock {}", c.info),
        NodeValue::HtmlBlock(h) => format!("HtmlBlock {}", h.literal),
        other => format!("{other:?}"),
    };
    out.push(format!("{}{line}", "  ".repeat(depth)));
    for c in n.children() {
        skeleton(c, depth + 1, out);
    }
}

#[test]
fn the_comment_parsed_as_gfm_has_our_structure_whatever_the_values() {
    let s = common::Scratch::new("inert-markdown");
    let hostile = diff(
        &inputs(&s, "hostile", PROD, DEV),
        &["--output-format", "markdown"],
        &[],
    );
    let plain_md = diff(
        &inputs(&s, "plain", "mirror.example.org", "registry.example.org"),
        &["--output-format", "markdown"],
        &[],
    );
    let arena = Arena::new();
    let doc = parse_document(&arena, &hostile, &gfm());
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    skeleton(doc, 0, &mut theirs);
    skeleton(parse_document(&arena, &plain_md, &gfm()), 0, &mut ours);
    assert_eq!(theirs.join("\n"), ours.join("\n"), "{hostile}");

    // The headline, the tables and the sections are the ones we wrote.
    let top: Vec<&AstNode> = doc.children().collect();
    assert!(
        matches!(&top[0].data.borrow().value, NodeValue::HtmlBlock(h) if h.literal == "<!-- capi-render diff -->\n")
    );
    assert!(matches!(&top[1].data.borrow().value, NodeValue::Heading(h) if h.level == 3));
    assert_eq!(plain(top[1]), "capi-render diff");
    let strong = top[2].first_child().unwrap();
    assert!(matches!(strong.data.borrow().value, NodeValue::Strong));
    assert_eq!(
        plain(top[2]),
        "2 Clusters changed · 2 control planes roll (4 machines)"
    );
    let mut tables = Vec::new();
    let mut headings = Vec::new();
    for d in doc.descendants() {
        match &d.data.borrow().value {
            NodeValue::Table(t) => tables.push((t.num_rows, t.num_columns)),
            NodeValue::Heading(_) => headings.push(plain(d)),
            NodeValue::Link(_)
            | NodeValue::Image(_)
            | NodeValue::Math(_)
            | NodeValue::Emph
            | NodeValue::Strikethrough
            | NodeValue::FootnoteReference(_)
            | NodeValue::SoftBreak
            | NodeValue::LineBreak => panic!("{:?} in\n{hostile}", d.data.borrow().value),
            NodeValue::HtmlInline(h) => assert_eq!(h, "<br>", "{hostile}"),
            NodeValue::Strong => assert!(d.same_node(strong), "{hostile}"),
            _ => {}
        }
    }
    assert_eq!(tables, [(3, 4), (4, 4)], "{hostile}");
    assert_eq!(
        headings,
        ["capi-render diff", "Object diffs (2 units)"],
        "{hostile}"
    );

    // Each value shows in its cell as the text report shows it.
    let cells: Vec<String> = doc
        .descendants()
        .filter(|d| matches!(d.data.borrow().value, NodeValue::TableCell))
        .map(plain)
        .collect();
    assert!(
        cells.contains(&reason("registry.example.com", DEV)),
        "{cells:#?}"
    );
    assert!(
        cells.contains(&reason("mirror.example.com", PROD)),
        "{cells:#?}"
    );
}

#[test]
fn a_warning_holding_markup_stays_one_line_of_the_alert() {
    let w = format!("Cluster default/x: Kubernetes v1.31.2 → {PROD} skips a minor version");
    let md = capi_render::impact::markdown::comment(&[], &[w.clone(), DEV.into()], "", 65_536, "r");
    let arena = Arena::new();
    let doc = parse_document(&arena, &md, &gfm());
    let top: Vec<&AstNode> = doc.children().collect();
    assert_eq!(top.len(), 4, "{md}");
    assert!(
        matches!(top[3].data.borrow().value, NodeValue::Alert(_)),
        "{md}"
    );
    let paragraphs: Vec<String> = top[3].children().map(plain).collect();
    assert_eq!(paragraphs, [shown(&w), shown(DEV)], "{md}");
    for d in top[3].descendants() {
        let v = &d.data.borrow().value;
        assert!(
            matches!(
                v,
                NodeValue::Alert(_)
                    | NodeValue::Paragraph
                    | NodeValue::Text(_)
                    | NodeValue::Code(_)
            ),
            "{v:?} in\n{md}"
        );
    }
}
