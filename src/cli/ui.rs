//! How the binary talks to people: `-q/--quiet`, `-v/--verbose` and `--color`, set once
//! from the global flags, and the progress bar on stderr.
//!
//! * Data a command was asked for (YAML, diffs, plans, JSON) always goes to stdout.
//! * Status lines, summaries and warnings go through [`info`] / [`warn`]: `-q` drops
//!   them (errors only). [`verbose`] lines show with `-v` only.
//! * Colour: `--color always|never`, or `auto` (the default): colour only when the
//!   stream is a terminal and neither `NO_COLOR` nor `TERM=dumb` says otherwise
//!   (anstream's rules). Escape codes are stripped from colour-less output.
//! * Progress: a bar on stderr while topology Clusters render, only when stderr is a
//!   terminal and not with `-q`; it is cleared when the stage ends.

use std::io::{IsTerminal, Write};
use std::sync::{Mutex, OnceLock};

use clap::ValueEnum;

/// `--color`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// Colour on a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// The global output flags (flattened into the top-level command).
#[derive(clap::Args, Debug, Clone)]
pub struct UiArgs {
    /// Print errors only: no status lines, summaries, warnings or progress (the data a
    /// command was asked for still goes to stdout).
    #[arg(short = 'q', long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Also print what was read, which version and contract each provider resolved to,
    /// and why an input produced no unit (on stderr).
    #[arg(short = 'v', long, global = true)]
    pub verbose: bool,
    /// Colour: auto (on a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    pub color: ColorWhen,
}

impl UiArgs {
    pub fn ui(&self) -> Ui {
        Ui {
            quiet: self.quiet,
            verbose: self.verbose,
            color: self.color,
        }
    }
}

/// `--color` as given on the command line, read before clap parses it so that clap's
/// own help and usage errors follow it too (the last occurrence wins).
pub fn color_from_args(args: &[std::ffi::OsString]) -> ColorWhen {
    let mut c = ColorWhen::Auto;
    let mut it = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(a) = it.next() {
        if a == "--" {
            break;
        }
        let v = if a == "--color" {
            it.next().map(|v| v.into_owned())
        } else {
            a.strip_prefix("--color=").map(str::to_string)
        };
        if let Some(v) = v.and_then(|v| ColorWhen::from_str(&v, false).ok()) {
            c = v;
        }
    }
    c
}

/// The output policy of this run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ui {
    pub quiet: bool,
    pub verbose: bool,
    pub color: ColorWhen,
}

static UI: OnceLock<Ui> = OnceLock::new();

/// Set the policy (once, from `main`) and install the progress bar.
pub fn init(ui: Ui) {
    let _ = UI.set(ui);
    if !ui.quiet && std::io::stderr().is_terminal() {
        capi_render::progress::set_listener(Box::new(Bar::default()));
    }
}

pub fn get() -> Ui {
    UI.get().copied().unwrap_or_default()
}

/// anstream's choice for `--color`.
pub fn color_choice() -> anstream::ColorChoice {
    match get().color {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    }
}

/// clap's colour setting for help and usage errors.
pub fn clap_color(c: ColorWhen) -> clap::ColorChoice {
    match c {
        ColorWhen::Auto => clap::ColorChoice::Auto,
        ColorWhen::Always => clap::ColorChoice::Always,
        ColorWhen::Never => clap::ColorChoice::Never,
    }
}

/// Write `text` to stdout, escape codes kept or stripped by the colour policy.
pub fn print_stdout(text: &str) -> std::io::Result<()> {
    let mut so = anstream::AutoStream::new(std::io::stdout().lock(), color_choice());
    so.write_all(text.as_bytes())?;
    so.flush()
}

/// A status line or summary on stderr (not with `-q`).
pub fn info(msg: &str) {
    if !get().quiet {
        eprintln!("{msg}");
    }
}

/// A warning on stderr (not with `-q`).
pub fn warn(msg: &str) {
    if !get().quiet {
        eprintln!("Warning: {}", super::shown::shown(msg));
    }
}

/// Whether `-v` lines are shown.
pub fn is_verbose() -> bool {
    let u = get();
    u.verbose && !u.quiet
}

/// A `-v` line on stderr.
pub fn verbose(msg: &str) {
    if is_verbose() {
        eprintln!("{msg}");
    }
}

/// The progress bar: `rendering clusters [=====>    ] 412/1000`.
#[derive(Default)]
struct Bar(Mutex<Option<indicatif::ProgressBar>>);

impl capi_render::progress::Listener for Bar {
    fn start(&self, what: &str, total: usize) {
        let pb = indicatif::ProgressBar::with_draw_target(
            Some(total as u64),
            indicatif::ProgressDrawTarget::stderr(),
        );
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "rendering {msg} [{bar:30}] {pos}/{len} ({elapsed})",
        ) {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_message(what.to_string());
        pb.tick();
        if let Ok(mut g) = self.0.lock() {
            *g = Some(pb);
        }
    }

    fn step(&self) {
        if let Ok(g) = self.0.lock() {
            if let Some(pb) = g.as_ref() {
                pb.inc(1);
            }
        }
    }

    fn finish(&self) {
        if let Ok(mut g) = self.0.lock() {
            if let Some(pb) = g.take() {
                pb.finish_and_clear();
            }
        }
    }
}
