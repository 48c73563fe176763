//! Every command the README and the book's guide pages show runs here, and the output
//! they show is the output it prints.
//!
//! The convention (also in `docs/src/about-examples.md`):
//!
//! * A ```` ```console ```` block is run. Each line starting with `$ ` is a command (a
//!   line ending in ` \` continues on the next); the lines after it, up to the next
//!   `$ ` line or the end of the block, are its expected output: stdout, then stderr.
//!   No lines: the output is not checked. A line `...` stands for any number of lines.
//!   A last line `[exit status: N]` expects exit status N (else 0).
//! * Commands are `capi-render ARGS...` (the built binary; quotes as in sh, and a
//!   trailing `> FILE` writes stdout to FILE) and `cat FILE` (prints a file).
//!   Anything else in a console block is an error: commands that cannot run here
//!   (`flux bootstrap`, `git push`, `kubectl apply`) go in ```` ```sh ```` blocks.
//! * A ```` ```yaml file=PATH ```` block is written to PATH at that point of the page.
//! * `$CAPI_CORPUS` in a command is the release corpus; without it the page's
//!   remaining commands are skipped (`SKIPPED (corpus)`), as in every corpus test.
//!   In the output, the corpus path reads `$CAPI_CORPUS` and the scratch directory
//!   (the working directory) `$PWD`.
//! * `capi-render ... repository fetch` downloads from a fake GitHub on a loopback port
//!   that serves the corpus's releases (`tests/common/github.rs`): every command of the
//!   page runs with `CAPI_RENDER_GITHUB_URL` and `CAPI_RENDER_GITHUB_API_URL` pointing
//!   at it, as a user would point them at a mirror, and its URL reads
//!   `https://github.com` in the output. Without the corpus the page's remaining
//!   commands are skipped.
//!
//! `documented_flags_are_the_binarys`: every long flag of a synopsis (a code block
//! without an info string) or of a ```sh block line starting with `capi-render` is in
//! that subcommand's `--help`, so no page documents a flag the binary does not have.
//!
//! Each page runs in its own scratch directory holding a copy of `fixtures/quickstart`
//! and `fixtures/repository`, so the README's commands, written for a checkout's root,
//! run as written.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{bin, corpus, root, Scratch};

/// One step of a page.
#[derive(Debug)]
enum Step {
    /// Write a file (a ```yaml file=PATH block).
    File { path: String, text: String },
    /// Run a command; `expected` is `None` when no output is shown.
    Run {
        line: usize,
        command: String,
        expected: Option<Vec<String>>,
        status: i32,
    },
}

/// The steps of a Markdown page, in order.
fn steps(text: &str) -> Vec<Step> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let Some(info) = l.strip_prefix("```") else {
            i += 1;
            continue;
        };
        let info = info.trim().to_string();
        let start = i + 1;
        i += 1;
        while i < lines.len() && lines[i] != "```" {
            i += 1;
        }
        let body = &lines[start..i];
        i += 1;
        if info == "console" {
            console_steps(body, start, &mut out);
        } else if let Some(path) = info
            .split_whitespace()
            .find_map(|w| w.strip_prefix("file="))
        {
            let mut text = body.join("\n");
            text.push('\n');
            out.push(Step::File {
                path: path.to_string(),
                text,
            });
        }
    }
    out
}

fn console_steps(body: &[&str], first_line: usize, out: &mut Vec<Step>) {
    let mut j = 0;
    while j < body.len() {
        let Some(cmd) = body[j].strip_prefix("$ ") else {
            panic!(
                "line {}: output before any command in a console block: {:?}",
                first_line + j + 1,
                body[j]
            );
        };
        let line = first_line + j + 1;
        let mut command = cmd.to_string();
        j += 1;
        while command.ends_with('\\') {
            command.pop();
            command.push_str(body[j].trim_start());
            j += 1;
        }
        let mut expected = Vec::new();
        while j < body.len() && !body[j].starts_with("$ ") {
            expected.push(body[j].to_string());
            j += 1;
        }
        let mut status = 0;
        if let Some(s) = expected
            .last()
            .and_then(|l| l.strip_prefix("[exit status: "))
            .and_then(|l| l.strip_suffix(']'))
        {
            status = s.parse().unwrap();
            expected.pop();
        }
        out.push(Step::Run {
            line,
            command,
            expected: (!expected.is_empty()).then_some(expected),
            status,
        });
    }
}

/// `sh`-style words: blanks separate, '...' and "..." quote (no escapes inside '...').
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut any = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            '\'' => {
                any = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                any = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => cur.extend(chars.next()),
                        c => cur.push(c),
                    }
                }
            }
            '\\' => {
                any = true;
                cur.extend(chars.next());
            }
            c => {
                any = true;
                cur.push(c);
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// `expected` (with `...` lines) matches `got`.
fn matches(expected: &[String], got: &[&str]) -> bool {
    match expected.split_first() {
        None => got.is_empty(),
        Some((e, rest)) if e == "..." => (0..=got.len()).any(|k| matches(rest, &got[k..])),
        Some((e, rest)) => got.first().is_some_and(|g| g == e) && matches(rest, &got[1..]),
    }
}

/// Run the steps of `page` (relative to the crate root) in `dir`.
fn run_page(page: &str, dir: &Path) {
    let text = std::fs::read_to_string(root().join(page)).unwrap();
    let mut ran = 0;
    // The fake GitHub, started by the page's first `repository fetch`.
    let mut github: Option<String> = None;
    for step in steps(&text) {
        match step {
            Step::File { path, text } => {
                let p = dir.join(&path);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, text).unwrap();
            }
            Step::Run {
                line,
                command,
                expected,
                status,
            } => {
                let at = format!("{page}:{line}: $ {command}");
                let mut command = command.clone();
                let mut corpus_dir = None;
                if command.contains("$CAPI_CORPUS") {
                    let Some(c) = corpus() else {
                        return;
                    };
                    command = command.replace("$CAPI_CORPUS", &c.display().to_string());
                    corpus_dir = Some(c);
                }
                let mut w = words(&command);
                let mut to_file = None;
                if w.len() > 2 && w[w.len() - 2] == ">" {
                    to_file = w.pop();
                    w.pop();
                }
                if github.is_none() && w.windows(2).any(|p| p == ["repository", "fetch"]) {
                    let Some(c) = corpus() else {
                        return;
                    };
                    github = Some(common::github::serve_corpus(&c));
                }
                let (stdout, stderr, code) = match w[0].as_str() {
                    "capi-render" => {
                        let mut c = bin();
                        c.args(&w[1..])
                            .current_dir(dir)
                            .env_remove("CAPI_CORPUS")
                            .env_remove("GITHUB_TOKEN")
                            .env("NO_COLOR", "1");
                        if let Some(url) = &github {
                            c.env("CAPI_RENDER_GITHUB_URL", url)
                                .env("CAPI_RENDER_GITHUB_API_URL", url);
                        }
                        let o: Output = c.output().unwrap();
                        (o.stdout, o.stderr, o.status.code().unwrap_or(-1))
                    }
                    "cat" if w.len() == 2 => {
                        let t = std::fs::read(dir.join(&w[1]))
                            .unwrap_or_else(|e| panic!("{at}: {e}"));
                        (t, Vec::new(), 0)
                    }
                    _ => panic!(
                        "{at}: a console block runs only capi-render and cat; show other commands in a ```sh block"
                    ),
                };
                if let Some(f) = to_file {
                    std::fs::write(dir.join(f), &stdout).unwrap();
                }
                let mut shown = String::from_utf8_lossy(&stdout).into_owned();
                shown.push_str(&String::from_utf8_lossy(&stderr));
                if let Some(c) = &corpus_dir {
                    shown = shown.replace(&c.display().to_string(), "$CAPI_CORPUS");
                }
                if let Some(url) = &github {
                    shown = shown.replace(url.as_str(), "https://github.com");
                }
                for d in [dir.canonicalize().unwrap(), dir.to_path_buf()] {
                    shown = shown.replace(&d.display().to_string(), "$PWD");
                }
                assert_eq!(
                    code, status,
                    "{at}: exit status {code}, the page expects {status}; output:\n{shown}"
                );
                if let Some(e) = expected {
                    let got: Vec<&str> = shown.lines().collect();
                    assert!(
                        matches(&e, &got),
                        "{at}: the output differs from the page's.\n--- page\n{}\n--- output\n{shown}",
                        e.join("\n")
                    );
                }
                ran += 1;
            }
        }
    }
    assert!(
        ran > 0 || !text.contains("```console"),
        "{page}: no command ran"
    );
}

fn scratch_with_fixtures(tag: &str) -> Scratch {
    let s = Scratch::new(tag);
    for d in ["fixtures/quickstart", "fixtures/repository"] {
        common::copy_dir(&root().join(d), &s.path().join(d));
    }
    s
}

fn guide_pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs/src/guide"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages
}

#[test]
fn readme_commands() {
    let s = scratch_with_fixtures("docs-readme");
    run_page("README.md", s.path());
}

#[test]
fn guide_commands() {
    let pages = guide_pages();
    assert!(!pages.is_empty());
    // Every page runs, and the failures are listed together at the end.
    let mut failed = Vec::new();
    for p in pages {
        let rel = p.strip_prefix(root()).unwrap().display().to_string();
        let s = scratch_with_fixtures("docs-guide");
        if std::panic::catch_unwind(|| run_page(&rel, s.path())).is_err() {
            failed.push(rel);
        }
    }
    assert!(
        failed.is_empty(),
        "guide pages whose commands failed: {failed:?}"
    );
}

#[test]
fn console_blocks_are_parsed_as_documented() {
    let page = "x\n```yaml file=a/b.yaml\nk: v\n```\n```console\n$ capi-render a \\\n  'b c' \"d\"\none\n...\n[exit status: 1]\n$ cat a/b.yaml\n```\n```sh\n$ git push\n```\n";
    let s = steps(page);
    assert_eq!(s.len(), 3, "{s:?}");
    match &s[1] {
        Step::Run {
            command,
            expected,
            status,
            ..
        } => {
            assert_eq!(words(command), ["capi-render", "a", "b c", "d"]);
            assert_eq!(
                expected.as_deref(),
                Some(&["one".to_string(), "...".to_string()][..])
            );
            assert_eq!(*status, 1);
        }
        other => panic!("{other:?}"),
    }
    let e: Vec<String> = ["a", "...", "c"].iter().map(|s| s.to_string()).collect();
    assert!(matches(&e, &["a", "c"]));
    assert!(matches(&e, &["a", "b", "b", "c"]));
    assert!(!matches(&e, &["a", "b"]));
}

/// The subcommands whose `--help` a documented flag is looked up in (longest first).
const SUBCOMMANDS: &[&str] = &[
    "generate provider",
    "generate cluster",
    "init list-images",
    "upgrade plan",
    "upgrade apply",
    "bundle verify",
    "topology plan",
    "render",
    "krm",
    "bundle",
    "diff",
    "lint",
    "validate",
    "merge-locks",
    "completion",
    "man",
];

/// Every `capi-render ...` line of a synopsis (a code block without an info string) or
/// of a ```sh block in the README and the book, with its continuation lines: the
/// subcommand it names and the long flags it shows.
fn documented_invocations() -> Vec<(String, String, Vec<String>)> {
    let mut pages = vec![root().join("README.md")];
    let mut dirs = vec![root().join("docs/src")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "md") {
                pages.push(p);
            }
        }
    }
    let mut out = Vec::new();
    for page in pages {
        let rel = page.strip_prefix(root()).unwrap().display().to_string();
        let text = std::fs::read_to_string(&page).unwrap();
        let mut in_block = None::<String>;
        let mut current: Option<(usize, String)> = None;
        let flush = |cur: &mut Option<(usize, String)>, out: &mut Vec<_>| {
            if let Some((line, inv)) = cur.take() {
                let words: Vec<&str> = inv
                    .split_whitespace()
                    .skip(1)
                    .filter(|w| !w.starts_with('[') && !w.starts_with('-') && !w.ends_with(']'))
                    .collect();
                let named = words.join(" ");
                let sub = SUBCOMMANDS
                    .iter()
                    .find(|s| named.starts_with(*s))
                    .map(|s| s.to_string());
                let flags = inv
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                    .filter(|w| w.starts_with("--") && w.len() > 2)
                    .map(|w| w.to_string())
                    .collect();
                if let Some(sub) = sub {
                    out.push((format!("{rel}:{line}"), sub, flags));
                }
            }
        };
        for (n, l) in text.lines().enumerate() {
            if let Some(info) = l.strip_prefix("```") {
                flush(&mut current, &mut out);
                in_block = match in_block {
                    None => Some(info.trim().to_string()),
                    Some(_) => None,
                };
                continue;
            }
            let Some(info) = &in_block else { continue };
            if !(info.is_empty() || info == "sh") {
                continue;
            }
            if l.starts_with("capi-render ") {
                flush(&mut current, &mut out);
                current = Some((n + 1, l.split('#').next().unwrap().to_string()));
            } else if l.starts_with("    ") && current.is_some() {
                let c = current.as_mut().unwrap();
                c.1.push(' ');
                c.1.push_str(l.split('#').next().unwrap());
            } else {
                flush(&mut current, &mut out);
            }
        }
        flush(&mut current, &mut out);
    }
    out
}

#[test]
fn documented_flags_are_the_binarys() {
    let mut help = std::collections::BTreeMap::new();
    let invocations = documented_invocations();
    assert!(invocations.len() > 15, "{invocations:?}");
    let mut wrong = Vec::new();
    for (at, sub, flags) in invocations {
        let text = help.entry(sub.clone()).or_insert_with(|| {
            let mut args: Vec<&str> = sub.split(' ').collect();
            args.push("--help");
            let o = bin().args(&args).output().unwrap();
            assert!(o.status.success(), "capi-render {sub} --help");
            String::from_utf8(o.stdout).unwrap()
        });
        for f in flags {
            let known = text.match_indices(&f).any(|(i, _)| {
                !text[i + f.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
            });
            if !known {
                wrong.push(format!("{at}: capi-render {sub}: {f} is not in its --help"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The README stays short (issue 44: at most 12 KB); the rest is the book.
#[test]
fn the_readme_is_at_most_12_kb() {
    let n = std::fs::read(root().join("README.md")).unwrap().len();
    assert!(
        n <= 12_000,
        "README.md is {n} bytes; move detail into docs/"
    );
}
