//! The command line's feedback: `-q` (errors only), `-v`, `--color` / NO_COLOR and the
//! progress bar (on a pseudo-terminal only), run against the built binary on the
//! bundled quick-start fixtures (no corpus needed).

use std::path::Path;
use std::process::{Command, Output, Stdio};

mod common;
use common::{bin, bin_path, root, Scratch};

/// `capi-render ARGS` in the crate root, stdin closed, NO_COLOR and friends cleared
/// unless `env` sets them.
fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = bin();
    c.args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn has_escape(o: &Output) -> bool {
    o.stdout.contains(&0x1b) || o.stderr.contains(&0x1b)
}

const QS: [&str; 6] = [
    "--config",
    "fixtures/quickstart/clusterctl.yaml",
    "render",
    "-f",
    "fixtures/quickstart/providers",
    "-f",
];

/// `render` of the quick start (two topology Clusters) into `out`, plus `extra` flags.
fn quickstart(out: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut a: Vec<&str> = QS.to_vec();
    a.push("fixtures/quickstart/clusters");
    a.push("-o");
    let o = out.to_str().unwrap().to_string();
    let mut args: Vec<String> = a.iter().map(|s| s.to_string()).collect();
    args.push(o);
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&refs, env)
}

/// `topology plan` of a fixture case with a coloured summary table.
fn plan(out: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let dir = root().join("fixtures/topology/value-variable");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut args = vec!["topology".to_string(), "plan".to_string()];
    for f in files {
        args.push("-f".into());
        args.push(f);
    }
    args.push("-o".into());
    args.push(out.to_string_lossy().into_owned());
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&refs, env)
}

#[test]
fn quiet_prints_nothing_on_success() {
    let d = Scratch::new("quiet");
    let out = d.0.join("tree");
    let loud = quickstart(&out, &[], &[]);
    assert!(loud.status.success(), "{}", text(&loud.stderr));
    assert!(text(&loud.stderr).contains("written"), "the summary line");
    for args in [&["-q"][..], &["--quiet"], &["-q", "--check"]] {
        let o = quickstart(&out, args, &[]);
        assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
        assert!(
            o.stdout.is_empty() && o.stderr.is_empty(),
            "{args:?} printed {o:?}"
        );
    }
    std::fs::create_dir_all(d.0.join("plan")).unwrap();
    let o = plan(&d.0.join("plan"), &["-q"], &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{o:?}");
    // Errors still show.
    let o = plan(&d.0.join("missing"), &["-q"], &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("does not exist"), "{o:?}");
    // -q and -v together are a usage error.
    assert_eq!(quickstart(&out, &["-q", "-v"], &[]).status.code(), Some(2));
}

#[test]
fn verbose_tells_what_was_read_and_resolved() {
    let d = Scratch::new("verbose");
    let o = quickstart(&d.0.join("tree"), &["-v"], &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(
        e.contains("read fixtures/quickstart/providers/providers.yaml (sha256 "),
        "{e}"
    );
    assert!(e.contains("CoreProvider capi-system/cluster-api: version v1.0.0, contract v1beta1, from repository:"), "{e}");
    assert!(e.contains("Cluster default/dev: "), "{e}");
    // A Cluster without spec.topology is an error (admit), verbose or not.
    let input = d.0.join("classic.yaml");
    std::fs::write(
        &input,
        "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata: {name: classic, namespace: ns}\nspec: {}\n",
    )
    .unwrap();
    let o = run(
        &["render", "-v", "-f", input.to_str().unwrap(), "--stdout"],
        &[],
    );
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("has no spec.topology"), "{o:?}");
    // Not without -v.
    let o = quickstart(&d.0.join("tree2"), &[], &[]);
    assert!(!text(&o.stderr).contains("read fixtures"), "{o:?}");
}

#[test]
fn no_color_and_color_never_give_no_escape_codes() {
    let d = Scratch::new("color");
    let out = d.0.join("plan");
    std::fs::create_dir_all(&out).unwrap();
    // clusterctl colours the ACTION column; --color always keeps it, so the check
    // below can fail.
    let always = plan(&out, &["--color", "always"], &[]);
    assert!(always.status.success(), "{}", text(&always.stderr));
    assert!(text(&always.stdout).contains("\x1b[32mcreated\x1b[0m"));
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);
    let cases: [Case; 5] = [
        (&["--color", "never"], &[]),
        (&["--color=never"], &[("CLICOLOR_FORCE", "1")]),
        (&[], &[("NO_COLOR", "1")]),
        (
            &["--color", "auto"],
            &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")],
        ),
        // Not a terminal (a pipe): no colour by default.
        (&[], &[]),
    ];
    for (args, env) in cases {
        let o = plan(&out, args, env);
        assert!(o.status.success(), "{args:?} {env:?}: {}", text(&o.stderr));
        assert!(!has_escape(&o), "{args:?} {env:?}: {o:?}");
        assert!(text(&o.stdout).contains("created"), "same table, no colour");
        // The table is the coloured one with the escape codes removed.
        assert_eq!(
            text(&o.stdout),
            text(&always.stdout)
                .replace("\x1b[32m", "")
                .replace("\x1b[33m", "")
                .replace("\x1b[0m", "")
        );
    }
    // Everything else: help, usage errors, render errors, warnings.
    for env in [&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")][..], &[]] {
        for args in [
            &["--color", "never", "render", "--help"][..],
            &["--color", "never", "render", "--bogus"],
            &[
                "--color",
                "never",
                "render",
                "-f",
                "/nonexistent",
                "--stdout",
            ],
            &["--color", "never", "-v"],
        ] {
            let o = run(args, env);
            assert!(!has_escape(&o), "{args:?} {env:?}: {o:?}");
        }
    }
    let o = quickstart(
        &d.0.join("tree"),
        &["-v", "--color", "never"],
        &[("CLICOLOR_FORCE", "1")],
    );
    assert!(o.status.success() && !has_escape(&o), "{o:?}");
}

/// `script` (util-linux) runs the command on a pseudo-terminal; its output is what the
/// terminal showed.
fn on_a_terminal(cmd: &str) -> String {
    let o = Command::new("script")
        .args(["-q", "-e", "-c", cmd, "/dev/null"])
        .current_dir(root())
        .stdin(Stdio::null())
        .env_remove("NO_COLOR")
        .output()
        .expect("script (util-linux) runs commands on a pseudo-terminal");
    assert!(o.status.success(), "{o:?}");
    text(&o.stdout)
}

#[test]
fn progress_shows_on_a_terminal_only() {
    let d = Scratch::new("progress");
    let base = format!(
        "{} --config fixtures/quickstart/clusterctl.yaml render -f fixtures/quickstart/providers -f fixtures/quickstart/clusters -o {}",
        bin_path(),
        d.0.join("tree").display()
    );
    let tty = on_a_terminal(&base);
    assert!(tty.contains("rendering clusters ["), "{tty:?}");
    assert!(tty.contains("2/2"), "{tty:?}");
    // stderr a pipe (stdout still the terminal): no progress, only the summary line.
    let piped = on_a_terminal(&format!("{base} 2>{}", d.0.join("err").display()));
    assert!(!piped.contains("rendering"), "{piped:?}");
    let err = std::fs::read_to_string(d.0.join("err")).unwrap();
    assert!(
        !err.contains("rendering") && err.contains("unchanged"),
        "{err:?}"
    );
    // Plain pipes, and -q on a terminal: none either.
    let o = quickstart(&d.0.join("tree"), &[], &[]);
    assert!(!text(&o.stderr).contains("rendering"), "{o:?}");
    let quiet = on_a_terminal(&format!("{base} -q"));
    assert!(!quiet.contains("rendering"), "{quiet:?}");
}

#[test]
fn topology_plan_checks_the_output_directory_first() {
    let d = Scratch::new("plan-dir");
    let o = plan(&d.0.join("missing"), &[], &[]);
    assert_eq!(o.status.code(), Some(1));
    // Nothing printed before the error (clusterctl prints the table first).
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("output directory") && text(&o.stderr).contains("mkdir -p"),
        "{o:?}"
    );
    assert!(!d.0.join("missing").exists());
}

#[test]
fn topology_plan_walks_a_directory_as_every_other_command() {
    // The same case given file by file and as its directory: the same plan.
    let (a, b) = (Scratch::new("plan-files"), Scratch::new("plan-dir-walk"));
    let files = plan(&a.0, &["--output-format", "json"], &[]);
    assert!(files.status.success(), "{files:?}");
    let dir = root().join("fixtures/topology/value-variable");
    let walked = run(
        &[
            "--color",
            "never",
            "topology",
            "plan",
            "-f",
            dir.to_str().unwrap(),
            "-o",
            b.0.to_str().unwrap(),
            "--output-format",
            "json",
        ],
        &[],
    );
    assert!(walked.status.success(), "{walked:?}");
    let strip = |o: &Output, d: &Path| text(&o.stdout).replace(d.to_str().unwrap(), "OUT");
    assert_eq!(strip(&files, &a.0), strip(&walked, &b.0));
    assert!(text(&walked.stdout).contains("\"changes\""), "{walked:?}");
}

#[test]
fn the_check_hint_is_a_command_that_brings_the_tree_up_to_date() {
    let d = Scratch::new("check-hint");
    let out = d.0.join("tree");
    assert!(quickstart(&out, &[], &[]).status.success());
    // A file of the tree edited by hand: out of date.
    let k = out.join("kustomization.yaml");
    std::fs::write(&k, std::fs::read_to_string(&k).unwrap() + "# edited\n").unwrap();
    let check = quickstart(&out, &["--check"], &[]);
    assert_eq!(check.status.code(), Some(1), "{check:?}");
    let err = text(&check.stderr);
    let hint = err
        .split("bring it up to date with `")
        .nth(1)
        .and_then(|h| h.split('`').next())
        .unwrap_or_else(|| panic!("no hint in {err}"));
    let words = shlex::split(hint).unwrap();
    assert_eq!(words[0], "capi-render", "{hint}");
    assert!(!words.iter().any(|w| w == "--check"), "{hint}");
    let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    let fixed = run(&args, &[]);
    assert!(fixed.status.success(), "{hint}: {fixed:?}");
    assert!(quickstart(&out, &["--check"], &[]).status.success());
    // The same from the lock: the hint is `render --from-lock OUT`.
    std::fs::write(&k, std::fs::read_to_string(&k).unwrap() + "# edited\n").unwrap();
    let o = out.to_str().unwrap();
    let check = run(&["render", "--from-lock", o, "--check"], &[]);
    assert_eq!(check.status.code(), Some(1), "{check:?}");
    assert!(
        text(&check.stderr).contains(&format!("`capi-render render --from-lock {o}`")),
        "{check:?}"
    );
}

/// A name that is not there gets a "did you mean" and the list of what is: a CR
/// version that is not in the repository, a ClusterClass name, and a class namespace
/// that holds no ClusterClass (`classNamespace` / `classRef.namespace`).
#[test]
fn what_is_not_there_gets_did_you_mean_and_what_is() {
    let d = Scratch::new("did-you-mean");
    let render = |providers: &str, clusters: &str| {
        std::fs::write(d.0.join("providers.yaml"), providers).unwrap();
        std::fs::write(d.0.join("clusters.yaml"), clusters).unwrap();
        let p = d.0.join("providers.yaml");
        let c = d.0.join("clusters.yaml");
        let class = root().join("fixtures/quickstart/clusters/class.yaml");
        let o = run(
            &[
                "--config",
                "fixtures/quickstart/clusterctl.yaml",
                "render",
                "--stdout",
                "-f",
                p.to_str().unwrap(),
                "-f",
                class.to_str().unwrap(),
                "-f",
                c.to_str().unwrap(),
            ],
            &[],
        );
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        text(&o.stderr)
    };
    let providers =
        std::fs::read_to_string(root().join("fixtures/quickstart/providers/providers.yaml"))
            .unwrap();
    let clusters =
        std::fs::read_to_string(root().join("fixtures/quickstart/clusters/clusters.yaml")).unwrap();
    // A CR version the repository does not have.
    let err = render(
        &providers.replace("version: v1.2.3", "version: v1.2.4"),
        &clusters,
    );
    assert!(
        err.contains("did you mean \"v1.2.3\"?") && err.contains("versions there: v1.2.3"),
        "{err}"
    );
    // A class name with a typo.
    let err = render(
        &providers,
        &clusters.replace("class: quickstart", "class: quikstart"),
    );
    assert!(
        err.contains("did you mean \"default/quickstart\"? ClusterClasses among the inputs there: default/quickstart"),
        "{err}"
    );
    // A class namespace that holds no ClusterClass.
    let err = render(
        &providers,
        &clusters.replace(
            "class: quickstart",
            "class: quickstart\n    classNamespace: defualt",
        ),
    );
    assert!(
        err.contains("namespace \"defualt\" holds no ClusterClass; did you mean \"default\"? namespaces with a ClusterClass there: default;"),
        "{err}"
    );
}
