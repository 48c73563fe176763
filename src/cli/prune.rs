//! The command tree clap parses a run's arguments with: the whole tree, or, when the
//! arguments name a top-level subcommand, the root with that one subcommand.
//!
//! Why: clap copies every global argument (`--config`, `--repository`, `-q`, `-v`,
//! `--color` and the fourteen `--max-*` limits) into every subcommand of the command it
//! parses with, before it parses. With all thirteen subcommands that was 250 argument
//! copies, a twelfth of a one-Cluster `topology plan`'s instructions, for twelve
//! subcommands the run never looks at. Parsing `topology plan …` with the root and
//! `topology` only gives the same matches, help and errors: clap only descends into the
//! subcommand the arguments name. The tests below parse every subcommand's help and a set
//! of errors and valid runs both ways and compare.
//!
//! Only the root is rebuilt ([`only`]): its arguments, groups and the settings
//! `#[derive(Parser)]` gives it (`uncopied` checks there are no others). Arguments
//! that name no subcommand (`--help`, `--version`, `help …`, a typo, none) keep the whole
//! tree, so the root's help, its suggestions and its errors are clap's own.

use std::ffi::OsString;

use clap::Command;

/// The tree to parse `args` (with the binary's name first) with.
pub fn for_args(full: Command, args: &[OsString]) -> Command {
    match invoked(&full, args) {
        Some(name) => only(full, &name),
        None => full,
    }
}

/// The top-level subcommand `args` names: the first word that is neither an option of the
/// root nor an option's value, when it is a subcommand's name. `None` when an option is
/// not the root's, is `--help`/`--version`-like (takes no value and ends the parse), or
/// when a short option cluster could take a value: clap decides those with the whole tree.
fn invoked(cmd: &Command, args: &[OsString]) -> Option<String> {
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        let a = a.to_str()?;
        if a == "--" || a == "-" {
            return None;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            let arg = cmd.get_arguments().find(|x| x.get_long() == Some(name))?;
            if arg.get_action().takes_values() {
                if !inline {
                    it.next()?;
                }
            } else if inline || !flag_only(arg) {
                return None;
            }
            continue;
        }
        if let Some(shorts) = a.strip_prefix('-') {
            for c in shorts.chars() {
                let arg = cmd.get_arguments().find(|x| x.get_short() == Some(c))?;
                if arg.get_action().takes_values() || !flag_only(arg) {
                    return None;
                }
            }
            continue;
        }
        return cmd
            .get_subcommands()
            .find(|s| s.get_name() == a)
            .map(|s| s.get_name().to_string());
    }
    None
}

/// A root option that only sets or counts (not `--help`/`--version`, which print and exit).
fn flag_only(arg: &clap::Arg) -> bool {
    matches!(
        arg.get_action(),
        clap::ArgAction::SetTrue | clap::ArgAction::SetFalse | clap::ArgAction::Count
    )
}

/// `full`'s root with only the subcommand `name`.
fn only(mut full: Command, name: &str) -> Command {
    let Some(sub) = full.get_subcommands_mut().find(|s| s.get_name() == name) else {
        return full;
    };
    let sub = std::mem::take(sub);
    let mut root = Command::new(full.get_name().to_string())
        .subcommand_required(full.is_subcommand_required_set())
        .arg_required_else_help(full.is_arg_required_else_help_set())
        .dont_collapse_args_in_usage(full.is_dont_collapse_args_in_usage_set());
    if let Some(v) = full.get_version() {
        root = root.version(v.to_string());
    }
    if let Some(a) = full.get_about() {
        root = root.about(a.clone());
    }
    if let Some(a) = full.get_after_help() {
        root = root.after_help(a.clone());
    }
    if full.is_disable_colored_help_set() {
        root = root.disable_colored_help(true);
    }
    root = root.color(full.get_color());
    for g in full.get_groups() {
        root = root.group(g.clone());
    }
    for a in full.get_arguments() {
        root = root.arg(a.clone());
    }
    root.subcommand(sub)
}

/// What `cmd`'s root sets that [`only`] does not copy: a guard for a later
/// `#[command(...)]` on the root (the test names what to add to [`only`]).
#[cfg(test)]
fn uncopied(cmd: &Command) -> Vec<&'static str> {
    let set = [
        ("long_about", cmd.get_long_about().is_some()),
        ("before_help", cmd.get_before_help().is_some()),
        ("before_long_help", cmd.get_before_long_help().is_some()),
        ("after_long_help", cmd.get_after_long_help().is_some()),
        ("long_version", cmd.get_long_version().is_some()),
        ("aliases", cmd.get_all_aliases().next().is_some()),
        ("author", cmd.get_author().is_some()),
        ("propagate_version", cmd.is_propagate_version_set()),
        ("disable_version_flag", cmd.is_disable_version_flag_set()),
        ("disable_help_flag", cmd.is_disable_help_flag_set()),
        (
            "disable_help_subcommand",
            cmd.is_disable_help_subcommand_set(),
        ),
        (
            "allow_external_subcommands",
            cmd.is_allow_external_subcommands_set(),
        ),
        (
            "args_conflicts_with_subcommands",
            cmd.is_args_conflicts_with_subcommands_set(),
        ),
        (
            "subcommand_precedence_over_arg",
            cmd.is_subcommand_precedence_over_arg_set(),
        ),
        (
            "subcommand_negates_reqs",
            cmd.is_subcommand_negates_reqs_set(),
        ),
        ("multicall", cmd.is_multicall_set()),
        ("next_line_help", cmd.is_next_line_help_set()),
        ("hide", cmd.is_hide_set()),
        ("flatten_help", cmd.is_flatten_help_set()),
        (
            "allow_missing_positional",
            cmd.is_allow_missing_positional_set(),
        ),
        ("trailing_var_arg", cmd.is_trailing_var_arg_set()),
        (
            "allow_negative_numbers",
            cmd.is_allow_negative_numbers_set(),
        ),
        (
            "dont_delimit_trailing_values",
            cmd.is_dont_delimit_trailing_values_set(),
        ),
        ("no_binary_name", cmd.is_no_binary_name_set()),
        ("positionals", cmd.get_positionals().next().is_some()),
    ];
    set.iter().filter(|(_, on)| *on).map(|(n, _)| *n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Cli;
    use clap::CommandFactory;

    fn os(words: &[&str]) -> Vec<OsString> {
        std::iter::once("capi-render")
            .chain(words.iter().copied())
            .map(OsString::from)
            .collect()
    }

    /// What clap makes of `args` with `cmd`: the matches, or the rendered error (help and
    /// version are errors of their own kind).
    fn outcome(cmd: Command, args: &[OsString]) -> String {
        match cmd.try_get_matches_from(args) {
            Ok(m) => matched(&m),
            Err(e) => format!("{:?}\n{}", e.kind(), e.render().ansi()),
        }
    }

    /// The matches, level by level: each argument's source, indices and raw values, then
    /// the subcommand. Not `{:?}`: a debug build's `ArgMatches` also lists the command's
    /// valid subcommands, which is the one thing the rebuild changes on purpose.
    fn matched(m: &clap::ArgMatches) -> String {
        let mut out = String::new();
        let mut level = Some(("", m));
        while let Some((name, m)) = level {
            out.push_str(&format!("[{name}]\n"));
            for id in m.ids() {
                let id = id.as_str();
                let raw: Vec<_> = m.get_raw(id).into_iter().flatten().collect();
                let at: Vec<_> = m.indices_of(id).into_iter().flatten().collect();
                out.push_str(&format!("{id} {:?} {at:?} {raw:?}\n", m.value_source(id)));
            }
            level = m.subcommand();
        }
        out
    }

    /// Every subcommand path of the tree, as words.
    fn paths(cmd: &Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for s in cmd.get_subcommands() {
            let mut p = prefix.to_vec();
            p.push(s.get_name().to_string());
            out.push(p.clone());
            paths(s, &p, out);
        }
    }

    #[test]
    fn the_root_sets_only_what_the_rebuild_copies() {
        assert_eq!(uncopied(&Cli::command()), Vec::<&str>::new());
    }

    #[test]
    fn names_the_first_word_that_is_not_a_root_option() {
        let cmd = Cli::command();
        let got = |w: &[&str]| invoked(&cmd, &os(w));
        for (words, name) in [
            (&["topology", "plan"][..], "topology"),
            (&["--config", "render", "lint"], "lint"),
            (&["--config=x", "-qv", "render"], "render"),
            (&["--max-file-bytes", "5", "diff"], "diff"),
            (&["--color", "never", "render"], "render"),
        ] {
            assert_eq!(got(words).as_deref(), Some(name), "{words:?}");
        }
        for whole in [
            &[][..],
            &["--help", "render"],
            &["-h", "render"],
            &["-V"],
            &["help", "render"],
            &["rendr"],
            &["--bogus", "render"],
            &["--quiet=true", "render"],
            &["--", "render"],
            &["--config"],
        ] {
            assert_eq!(got(whole), None, "{whole:?}");
        }
    }

    #[test]
    fn every_subcommand_parses_as_with_the_whole_tree() {
        let mut all = Vec::new();
        paths(&Cli::command(), &[], &mut all);
        let mut runs: Vec<Vec<String>> = Vec::new();
        for p in &all {
            for tail in [
                &["--help"][..],
                &["-h"],
                &["--bogus"],
                &["-q", "-v"],
                &["--version"],
            ] {
                runs.push(
                    p.iter()
                        .map(String::as_str)
                        .chain(tail.iter().copied())
                        .map(str::to_string)
                        .collect(),
                );
            }
            runs.push(p.clone());
        }
        for w in [
            &["topology", "plan", "-f", "a.yaml", "-o", "out"][..],
            &[
                "--config",
                "c.yaml",
                "generate",
                "provider",
                "--core",
                "cluster-api:v1.10.10",
            ],
            &[
                "render",
                "-f",
                "x",
                "--check",
                "out",
                "--max-file-bytes",
                "5",
            ],
            &["-q", "render", "-f", "x", "--stdout", "--color", "never"],
            &["render", "--max-file-bytes", "x"],
            &["topology", "plna"],
            &["generate", "provider", "--core"],
            &["completion", "fish"],
            &["completion", "tcsh"],
            &["merge-locks", "--help"],
        ] {
            runs.push(w.iter().map(|s| s.to_string()).collect());
        }
        assert!(runs.len() > 100, "{} runs", runs.len());
        for w in runs {
            let words: Vec<&str> = w.iter().map(String::as_str).collect();
            let args = os(&words);
            let full = Cli::command();
            assert!(
                invoked(&full, &args).is_some(),
                "{w:?} keeps the whole tree"
            );
            let cut = for_args(Cli::command(), &args);
            assert_eq!(cut.get_subcommands().count(), 1, "{w:?}");
            assert_eq!(outcome(cut, &args), outcome(full, &args), "{w:?}");
        }
    }
}
