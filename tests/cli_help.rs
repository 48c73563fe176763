//! Help that teaches: every command's `--help` (found by walking the "Commands:" lists
//! from the top) shows examples and exit codes, and no flag shows an empty default;
//! `completion` scripts load in bash; `man` is a roff page of the same tree.

use std::process::{Command, Output, Stdio};

mod common;
use common::{bin, bin_path};

fn run(args: &[&str]) -> Output {
    bin()
        .args(args)
        .stdin(Stdio::null())
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The subcommand names listed under "Commands:" (clap's `help` excluded).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect()
}

/// Every command path, top first: [], [generate], [generate, provider], ...
fn command_paths() -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    while let Some(path) = todo.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let o = run(&args);
        assert!(o.status.success(), "{args:?}: {o:?}");
        let help = text(&o.stdout);
        for s in subcommands(&help) {
            let mut p = path.clone();
            p.push(s);
            todo.push(p);
        }
        out.push((path, help));
    }
    out
}

#[test]
fn every_command_has_examples_and_exit_codes() {
    let paths = command_paths();
    let names: Vec<String> = paths.iter().map(|(p, _)| p.join(" ")).collect();
    for want in [
        "generate provider",
        "generate cluster",
        "init list-images",
        "upgrade plan",
        "upgrade apply",
        "render",
        "krm",
        "bundle",
        "bundle verify",
        "diff",
        "topology plan",
        "completion",
        "man",
    ] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} not found in {names:?}"
        );
    }
    for (path, help) in &paths {
        let name = format!("capi-render {}", path.join(" "));
        let ex = help
            .split("Examples:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{name}: no Examples:\n{help}"));
        // One example a line indented by two spaces; continuation lines by more.
        let examples = ex
            .lines()
            .take_while(|l| !l.trim().is_empty())
            .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
            .count();
        assert!(
            (2..=4).contains(&examples),
            "{name}: {examples} examples\n{help}"
        );
        let codes = help
            .split("Exit codes")
            .nth(1)
            .unwrap_or_else(|| panic!("{name}: no Exit codes\n{help}"));
        assert!(
            codes.contains("  0  ") && codes.contains("  1  "),
            "{name}: {codes}"
        );
        assert!(
            !help.contains("[default: ]"),
            "{name}: an empty default\n{help}"
        );
    }
}

#[test]
fn required_flags_show_no_empty_default() {
    for args in [
        &["generate", "cluster", "--help"][..],
        &["generate", "provider", "--help"],
        &["topology", "plan", "--help"],
    ] {
        let h = text(&run(args).stdout);
        assert!(
            h.contains("--target-namespace") || h.contains("--namespace"),
            "{h}"
        );
        assert!(!h.contains("[default: ]"), "{args:?}\n{h}");
    }
}

#[test]
fn completions_load_in_bash() {
    let script = format!(
        "source <({} completion bash) && complete -p capi-render",
        bin_path()
    );
    let o = Command::new("bash")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .output()
        .expect("bash");
    assert!(o.status.success(), "{o:?}");
    assert!(text(&o.stdout).contains("capi-render"), "{o:?}");
    for shell in ["zsh", "fish", "powershell"] {
        let o = run(&["completion", shell]);
        assert!(o.status.success(), "{shell}: {o:?}");
        let s = text(&o.stdout);
        // Every top-level command is offered.
        for c in ["render", "topology", "bundle", "completion"] {
            assert!(s.contains(c), "{shell} completion lacks {c}");
        }
    }
    assert_eq!(run(&["completion", "tcsh"]).status.code(), Some(2));
}

#[test]
fn man_page_is_roff_of_the_command_tree() {
    let o = run(&["man"]);
    assert!(o.status.success(), "{o:?}");
    let m = text(&o.stdout);
    assert!(
        m.starts_with(".ie") || m.contains(".TH capi-render"),
        "{}",
        &m[..200.min(m.len())]
    );
    for c in ["render", "topology", "completion", "\\-\\-quiet"] {
        assert!(m.contains(c), "man page lacks {c}");
    }
}

/// What bash's completion offers for the words typed so far (the last one being
/// completed), driven through the function `completion bash` registers.
fn bash_complete(words: &[&str]) -> Vec<String> {
    let (cur, prev) = (words[words.len() - 1], words[words.len() - 2]);
    let script = format!(
        "source <('{bin}' completion bash) || exit 9\n\
         f=$(complete -p capi-render | sed -n 's/.* -F \\([^ ]*\\) .*/\\1/p')\n\
         [ -n \"$f\" ] || exit 8\n\
         COMP_WORDS=({words}); COMP_CWORD={cword}\n\
         \"$f\" capi-render '{cur}' '{prev}'\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        bin = bin_path(),
        words = words.join(" "),
        cword = words.len() - 1,
    );
    let o = Command::new("bash")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .output()
        .expect("bash");
    assert!(o.status.success(), "{words:?}: {o:?}");
    text(&o.stdout).lines().map(str::to_string).collect()
}

#[test]
fn bash_completes_subcommand_flags() {
    // The binary's name holds a hyphen: clap_complete's case arms once never matched
    // a subcommand's state (src/cli/help.rs `completion`).
    let got = bash_complete(&["capi-render", "render", "--fl"]);
    assert!(got.iter().any(|c| c == "--flux"), "{got:?}");
    assert!(got.iter().all(|c| c.starts_with("--fl")), "{got:?}");
    let got = bash_complete(&["capi-render", "ren"]);
    assert_eq!(got, ["render"]);
    // A hyphenated subcommand, and one a level down.
    let got = bash_complete(&["capi-render", "merge-locks", "--"]);
    assert!(got.iter().any(|c| c == "--help"), "{got:?}");
    let got = bash_complete(&["capi-render", "bundle", "verify", "--"]);
    assert!(got.iter().any(|c| c == "--help"), "{got:?}");
    let got = bash_complete(&["capi-render", "generate", "provider", "--inf"]);
    assert!(got.iter().any(|c| c == "--infrastructure"), "{got:?}");
}

#[test]
fn the_limit_flags_are_documented_once_in_help_limits() {
    let topic = text(&run(&["help", "limits"]).stdout);
    let own = text(&run(&["limits"]).stdout);
    for flag in [
        "--max-file-bytes",
        "--max-documents",
        "--max-cel-cost",
        "--max-patch-depth",
    ] {
        assert!(topic.contains(&format!("{flag} <N>")), "{topic}");
        assert!(own.contains(&format!("{flag} <N>")), "{own}");
    }
    assert!(topic.contains("[default: 128Mi]"), "{topic}");
    for cmd in [
        &["render", "--help"][..],
        &["diff", "--help"],
        &["--help"],
        &["lint", "--help"],
    ] {
        let help = text(&run(cmd).stdout);
        assert!(
            !help.contains("--max-file-bytes"),
            "{cmd:?} repeats the limit flags:\n{help}"
        );
    }
    // Still accepted by every command, before or after its name.
    let o = run(&[
        "render",
        "--max-documents",
        "0",
        "-f",
        "/nonexistent",
        "--stdout",
    ]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
}
