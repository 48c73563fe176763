//! The `capi-render` command line: argument parsing and printing only; the work is
//! done by the `capi_render` library.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use capi_render::config::Config;
use capi_render::generate::{self, ClusterOptions, ProviderOutput};
use capi_render::provider::ProviderType;
use capi_render::Error;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

mod cli;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The bytes mimalloc has committed (its `mi_process_info`: a counter it keeps, read
/// with one `getrusage` beside it): the memory the run has in use, for `--max-memory`.
fn committed_bytes() -> u64 {
    let mut commit = 0usize;
    // SAFETY: every out-parameter but `current_commit` is null, which mimalloc allows.
    unsafe {
        libmimalloc_sys::mi_process_info(
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut commit,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    commit as u64
}

#[derive(Parser)]
#[command(
    name = "capi-render",
    version,
    about = "Offline, deterministic rendering of Cluster API manifests",
    after_help = cli::help::ROOT
)]
struct Cli {
    /// clusterctl configuration file (providers, images, variables). Relative
    /// provider URLs resolve against the file's directory.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Local provider repository: every provider resolves to DIR/<manifest-label>/<version>/
    /// unless the config file names it.
    #[arg(long, global = true, value_name = "DIR")]
    repository: Option<PathBuf>,
    /// The clusterctl release `generate` and `init` follow: v1.14 (clusterctl v1.14.2:
    /// v1beta2 and v1beta1 providers, "latest" = the newest v1beta2 release) or v1.10
    /// (clusterctl v1.10.10: v1beta1 providers only).
    #[arg(
        long = "clusterctl-version",
        global = true,
        value_name = "VERSION",
        default_value = "v1.14"
    )]
    clusterctl_version: String,
    /// -q / -v / --color (global).
    #[command(flatten)]
    ui: cli::ui::UiArgs,
    /// --max-* limits for untrusted inputs (global).
    #[command(flatten)]
    limits: cli::limits::LimitArgs,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Generate provider components or cluster templates (as clusterctl generate).
    #[command(after_help = cli::help::GENERATE)]
    Generate {
        #[command(subcommand)]
        what: GenerateCmd,
    },
    /// Initialisation helpers (as clusterctl init).
    #[command(after_help = cli::help::INIT)]
    Init {
        #[command(subcommand)]
        what: InitCmd,
    },
    /// Upgrade planning and in-place version moves for declarative providers (operator CRs).
    #[command(after_help = cli::help::UPGRADE)]
    Upgrade {
        #[command(subcommand)]
        what: cli::upgrade::UpgradeCmd,
    },
    /// Render provider CRs and topology Clusters: to stdout, to a GitOps tree (-o),
    /// or check a tree for drift (--check).
    #[command(after_help = cli::help::RENDER)]
    Render(cli::render::RenderArgs),
    /// Run as a KRM function (ResourceList on stdin and stdout), e.g. as a kustomize
    /// exec generator.
    #[command(after_help = cli::help::KRM)]
    Krm(cli::krm::KrmArgs),
    /// Air-gapped bundle for provider CRs (`bundle -f PATH -o DIR`, `bundle verify DIR`).
    #[command(after_help = cli::help::BUNDLE)]
    Bundle(cli::bundle::BundleArgs),
    /// Change impact: render the inputs before (-f) and after (--against) and print a
    /// unified diff per changed object of every Cluster or provider that differs.
    #[command(after_help = cli::help::DIFF)]
    Diff(cli::diff::DiffArgs),
    /// Check a provider release or ClusterClasses against the clusterctl and Cluster API
    /// provider contracts (metadata, components, CRDs, contract schemas, templates).
    #[command(after_help = cli::help::LINT)]
    Lint(cli::lint::LintArgs),
    /// Check objects against CustomResourceDefinitions as the API server checks an apply
    /// with strict field validation (unknown fields, schema, CEL rules), offline.
    #[command(after_help = cli::help::VALIDATE)]
    Validate(cli::validate::ValidateArgs),
    /// Join the shards of a CI matrix (`render -o OUT --shard I/N`) into OUT: the tree and
    /// lock one `render -o OUT` writes.
    #[command(name = "merge-locks", after_help = cli::help::MERGE_LOCKS)]
    MergeLocks(cli::merge::MergeLocksArgs),
    /// Local provider repositories: `repository fetch` downloads provider releases into
    /// one (the only command that uses the network).
    #[command(after_help = cli::help::REPOSITORY_FETCH)]
    Repository {
        #[command(subcommand)]
        what: cli::repository::RepositoryCmd,
    },
    /// Managed topologies (as clusterctl alpha topology).
    #[command(after_help = cli::help::TOPOLOGY)]
    Topology {
        #[command(subcommand)]
        what: cli::topology::TopologyCmd,
    },
    /// Print a shell completion script (bash, zsh, fish, powershell) generated from
    /// this command line's definition.
    #[command(after_help = cli::help::COMPLETION)]
    Completion {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) generated from this command line's definition.
    #[command(after_help = cli::help::MAN)]
    Man,
    /// The --max-* limit flags every command takes: defaults and what each bounds
    /// (also `capi-render help limits`).
    Limits,
}

#[derive(Subcommand)]
enum GenerateCmd {
    /// Provider components, as `clusterctl generate provider`.
    #[command(after_help = cli::help::GENERATE_PROVIDER)]
    Provider(ProviderArgs),
    /// A workload cluster from a template, as `clusterctl generate cluster`.
    #[command(after_help = cli::help::GENERATE_CLUSTER)]
    Cluster(ClusterArgs),
}

#[derive(Subcommand)]
enum InitCmd {
    /// The images the given providers run, as `clusterctl init list-images`.
    #[command(after_help = cli::help::LIST_IMAGES)]
    ListImages(ListImagesArgs),
}

#[derive(Args)]
struct ProviderArgs {
    /// Core provider NAME[:VERSION].
    #[arg(long)]
    core: Option<String>,
    /// Bootstrap provider NAME[:VERSION].
    #[arg(short = 'b', long)]
    bootstrap: Option<String>,
    /// Control plane provider NAME[:VERSION].
    #[arg(short = 'c', long = "control-plane")]
    control_plane: Option<String>,
    /// Infrastructure provider NAME[:VERSION].
    #[arg(short = 'i', long)]
    infrastructure: Option<String>,
    /// IPAM provider NAME[:VERSION].
    #[arg(long)]
    ipam: Option<String>,
    /// Runtime extension provider NAME[:VERSION].
    #[arg(long = "runtime-extension")]
    runtime_extension: Option<String>,
    /// Add-on provider NAME[:VERSION].
    #[arg(long)]
    addon: Option<String>,
    /// The namespace the provider is installed in (default: its own Namespace).
    #[arg(
        short = 'n',
        long = "target-namespace",
        default_value = "",
        hide_default_value = true
    )]
    target_namespace: String,
    /// Skip variable substitution; the YAML is still transformed.
    #[arg(long)]
    raw: bool,
    /// Print a summary (variables, images) instead of YAML.
    #[arg(long)]
    describe: bool,
    /// Write to FILE instead of stdout.
    #[arg(long = "write-to", value_name = "FILE")]
    write_to: Option<String>,
}

#[derive(Args)]
struct ClusterArgs {
    /// The cluster name.
    name: Option<String>,
    /// Infrastructure provider NAME:VERSION (VERSION may be `latest`).
    #[arg(short = 'i', long, default_value = "", hide_default_value = true)]
    infrastructure: String,
    /// Template flavor (cluster-template-<flavor>.yaml).
    #[arg(short = 'f', long, default_value = "", hide_default_value = true)]
    flavor: String,
    /// Kubernetes version (sets KUBERNETES_VERSION).
    #[arg(
        long = "kubernetes-version",
        default_value = "",
        hide_default_value = true
    )]
    kubernetes_version: String,
    /// Control plane machine count (CONTROL_PLANE_MACHINE_COUNT), default 1.
    #[arg(long = "control-plane-machine-count")]
    control_plane_machine_count: Option<i64>,
    /// Worker machine count (WORKER_MACHINE_COUNT), default 0.
    #[arg(long = "worker-machine-count")]
    worker_machine_count: Option<i64>,
    /// Target namespace (NAMESPACE). Required offline.
    #[arg(
        short = 'n',
        long = "target-namespace",
        default_value = "",
        hide_default_value = true
    )]
    target_namespace: String,
    /// Read the template from FILE (`-` for stdin) instead of the repository.
    #[arg(long, value_name = "FILE")]
    from: Option<String>,
    /// List the template's variables instead of rendering it.
    #[arg(long = "list-variables")]
    list_variables: bool,
    /// Write to FILE instead of stdout.
    #[arg(long = "write-to", value_name = "FILE")]
    write_to: Option<String>,
}

#[derive(Args)]
struct ListImagesArgs {
    /// Core provider NAME[:VERSION] (default cluster-api).
    #[arg(long)]
    core: Option<String>,
    /// Bootstrap providers (default kubeadm).
    #[arg(short = 'b', long, value_delimiter = ',')]
    bootstrap: Vec<String>,
    /// Control plane providers (default kubeadm).
    #[arg(short = 'c', long = "control-plane", value_delimiter = ',')]
    control_plane: Vec<String>,
    /// Infrastructure providers.
    #[arg(short = 'i', long, value_delimiter = ',')]
    infrastructure: Vec<String>,
    /// IPAM providers.
    #[arg(long, value_delimiter = ',')]
    ipam: Vec<String>,
    /// Runtime extension providers.
    #[arg(long = "runtime-extension", value_delimiter = ',')]
    runtime_extension: Vec<String>,
    /// Add-on providers.
    #[arg(long, value_delimiter = ',')]
    addon: Vec<String>,
    /// A cert-manager release manifest whose images are listed (default: the release
    /// the config's `cert-manager:` section or `--repository` locates).
    #[arg(long = "cert-manager", value_name = "FILE")]
    cert_manager: Option<PathBuf>,
}

fn load_config(cli: &Cli) -> Result<Config, Error> {
    let env: BTreeMap<String, String> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    let mut cfg = match &cli.config {
        Some(p) => Config::load(p, env)?,
        None => Config::new(env),
    };
    if let Some(r) = &cli.repository {
        let abs = std::path::absolute(r)
            .map_err(|e| Error::new(format!("--repository {}: {e}", r.display())))?;
        cfg.repository = Some(abs);
    }
    cfg.set_clusterctl(
        capi_render::config::Clusterctl::parse(&cli.clusterctl_version).map_err(|e| {
            e.with_hint("--clusterctl-version v1.14 (the default) or --clusterctl-version v1.10")
        })?,
    );
    Ok(cfg)
}

fn provider_flag(a: &ProviderArgs) -> Result<(ProviderType, String), Error> {
    let set: Vec<(ProviderType, &String)> = [
        (ProviderType::Core, &a.core),
        (ProviderType::Bootstrap, &a.bootstrap),
        (ProviderType::ControlPlane, &a.control_plane),
        (ProviderType::Infrastructure, &a.infrastructure),
        (ProviderType::Ipam, &a.ipam),
        (ProviderType::RuntimeExtension, &a.runtime_extension),
        (ProviderType::Addon, &a.addon),
    ]
    .into_iter()
    .filter_map(|(t, v)| v.as_ref().filter(|s| !s.is_empty()).map(|s| (t, s)))
    .collect();
    const ALL: &str =
        "--core, --bootstrap, --control-plane, --infrastructure, --ipam, --extension, --addon";
    match set.as_slice() {
        [] => Err(Error::new(format!("at least one of {ALL} should be set"))),
        [(t, v)] => Ok((*t, v.to_string())),
        _ => Err(Error::new(format!("only one of {ALL} should be set"))),
    }
}

/// `printYamlOutput`: stdout unless `--write-to` names a file (mode 0600).
fn emit(text: &str, write_to: Option<&str>) -> Result<(), Error> {
    match write_to.map(str::trim) {
        None | Some("") | Some("-") => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|_| out.flush())
                .map_err(|e| Error::new(format!("failed to write to stdout: {e}")))
        }
        Some(path) => write_private(path, text),
    }
}

fn write_private(path: &str, text: &str) -> Result<(), Error> {
    use std::fs::OpenOptions;
    #[cfg(unix)]
    use std::os::unix::fs::OpenOptionsExt;
    let mut o = OpenOptions::new();
    o.write(true).create(true).truncate(true);
    #[cfg(unix)]
    o.mode(0o600);
    let mut f = o
        .open(path)
        .map_err(|e| Error::new(format!("failed to write {path}: {e}")))?;
    f.write_all(text.as_bytes())
        .map_err(|e| Error::new(format!("failed to write {path}: {e}")))
}

fn run(cli: Cli) -> Result<(), Error> {
    let cfg = load_config(&cli)?;
    match &cli.cmd {
        Cmd::Topology { what } => cli::topology::run(what),
        Cmd::Generate {
            what: GenerateCmd::Provider(a),
        } => {
            let (t, arg) = provider_flag(a)?;
            let out = if a.describe {
                ProviderOutput::Describe
            } else if a.raw {
                ProviderOutput::Raw
            } else {
                ProviderOutput::Yaml
            };
            let text = generate::generate_provider(&cfg, t, &arg, &a.target_namespace, out)?;
            if out == ProviderOutput::Describe {
                emit(&text, None)
            } else {
                emit(&text, a.write_to.as_deref())
            }
        }
        Cmd::Generate {
            what: GenerateCmd::Cluster(a),
        } => {
            let name = a
                .name
                .clone()
                .ok_or_else(|| Error::new("please specify a cluster name"))?;
            let from = match a.from.as_deref() {
                None => None,
                Some("-") => Some((
                    "-".to_string(),
                    capi_render::limits::read_stdin_text("the template on stdin", |e| {
                        Error::new(format!("failed to read template from stdin: {e}"))
                    })?,
                )),
                Some(p) => Some((
                    p.to_string(),
                    capi_render::limits::read_text(p.as_ref(), p, |e| {
                        Error::new(format!("failed to read template {p}: {e}"))
                    })?,
                )),
            };
            let o = ClusterOptions {
                cluster_name: name,
                infrastructure: a.infrastructure.clone(),
                flavor: a.flavor.clone(),
                target_namespace: a.target_namespace.clone(),
                kubernetes_version: a.kubernetes_version.clone(),
                control_plane_machine_count: a.control_plane_machine_count,
                worker_machine_count: a.worker_machine_count,
                from,
                list_variables: a.list_variables,
            };
            let text = generate::generate_cluster(&cfg, &o)?;
            if a.list_variables {
                emit(&text, None)
            } else {
                emit(&text, a.write_to.as_deref())
            }
        }
        Cmd::Init {
            what: InitCmd::ListImages(a),
        } => {
            let mut ps: Vec<(ProviderType, String)> = Vec::new();
            ps.push((
                ProviderType::Core,
                a.core.clone().unwrap_or_else(|| "cluster-api".into()),
            ));
            let defaults = |v: &Vec<String>| {
                if v.is_empty() {
                    vec!["kubeadm".to_string()]
                } else {
                    v.clone()
                }
            };
            ps.extend(
                defaults(&a.bootstrap)
                    .into_iter()
                    .map(|s| (ProviderType::Bootstrap, s)),
            );
            ps.extend(
                defaults(&a.control_plane)
                    .into_iter()
                    .map(|s| (ProviderType::ControlPlane, s)),
            );
            for (t, list) in [
                (ProviderType::Infrastructure, &a.infrastructure),
                (ProviderType::Ipam, &a.ipam),
                (ProviderType::RuntimeExtension, &a.runtime_extension),
                (ProviderType::Addon, &a.addon),
            ] {
                ps.extend(list.iter().map(|s| (t, s.clone())));
            }
            let cm = match &a.cert_manager {
                Some(p) => Some(capi_render::limits::read_text(
                    p,
                    &p.display().to_string(),
                    |e| Error::new(format!("failed to read {}: {e}", p.display())),
                )?),
                None => None,
            };
            let (text, cert_manager) = generate::list_images(&cfg, &ps, cm.as_deref())?;
            if !cert_manager {
                cli::ui::warn("cert-manager's images are not listed: no local cert-manager release (set --repository DIR with DIR/cert-manager/<version>/cert-manager.yaml, cert-manager.url in --config, or --cert-manager FILE)");
            }
            emit(&text, None)
        }
        Cmd::Render(_)
        | Cmd::Krm(_)
        | Cmd::Diff(_)
        | Cmd::Lint(_)
        | Cmd::Validate(_)
        | Cmd::MergeLocks(_)
        | Cmd::Upgrade { .. } => Err(Error::new("internal: dispatched in main")),
        Cmd::Bundle(a) => cli::bundle::run(a, cli.config.as_deref(), cli.repository.as_deref()),
        Cmd::Completion { shell } => {
            let script = cli::help::completion(*shell, &mut Cli::command(), "capi-render");
            emit(&script, None)
        }
        Cmd::Repository { what } => {
            let cfg = load_config(&cli)?;
            cli::repository::run(what, cfg, cli.repository.as_deref())
        }
        Cmd::Limits => emit(&cli::limits::topic(&Cli::command()), None),
        Cmd::Man => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cli::limits::with_topic(Cli::command()))
                .render(&mut out)
                .map_err(|e| Error::new(format!("failed to render the man page: {e}")))?;
            emit(&String::from_utf8_lossy(&out), None)
        }
    }
}

fn main() -> ! {
    exit_now(command())
}

/// Ends the process once `main`'s work is done and its values are dropped: standard
/// output and error flushed, then `_exit(2)`, without the C runtime's exit handlers.
/// The one handler there is mimalloc's, which walks its whole heap to give every page
/// back to the kernel (`madvise` on each) just before the kernel frees them all anyway:
/// 0.1–0.4 ms of a 10 ms `generate provider` (see README "Performance"). Nothing of
/// ours is left for the handlers: files are closed by their owners when dropped, and a
/// pool thread still running is ended by the exit as it would be on return from `main`.
fn exit_now(code: ExitCode) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    let status = (0..=u8::MAX)
        .find(|n| ExitCode::from(*n) == code)
        .unwrap_or(1);
    // SAFETY: `_exit` only ends the process; it touches no memory of this one.
    unsafe { libc::_exit(i32::from(status)) }
}

/// clap's `Error::exit` (help, version or a usage error printed, then its status),
/// ending through [`exit_now`].
fn exit_clap(e: clap::Error) -> ! {
    let _ = e.print();
    exit_now(ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2)))
}

/// The command the arguments name, run to its exit status.
fn command() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let color = cli::ui::color_from_args(&args);
    cli::shown::init(&args);
    let full = cli::limits::with_topic(Cli::command()).color(cli::ui::clap_color(color));
    let matches = match cli::prune::for_args(full, &args).try_get_matches_from(&args) {
        Ok(m) => m,
        Err(e) => exit_clap(e),
    };
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| exit_clap(e));
    cli::ui::init(cli.ui.ui());
    cli.limits.install();
    // The allocator's committed bytes are the run's memory in use (--max-memory).
    capi_render::limits::memory::install_probe(committed_bytes);
    // Pool threads with the main thread's stack, not rayon's 2 MiB; as many as the
    // memory ceiling plans.
    capi_render::model::par::init_pool(capi_render::limits::memory::pool_threads());
    match &cli.cmd {
        Cmd::Render(a) => {
            return cli::render::run(a, cli.config.as_deref(), cli.repository.as_deref())
        }
        Cmd::Krm(a) => return cli::krm::run(a, cli.config.as_deref(), cli.repository.as_deref()),
        Cmd::Diff(a) => return cli::diff::run(a, cli.config.as_deref(), cli.repository.as_deref()),
        Cmd::Lint(a) => return cli::lint::run(a),
        Cmd::Validate(a) => return cli::validate::run(a),
        Cmd::MergeLocks(a) => return cli::merge::run(a),
        Cmd::Upgrade { what } => {
            // The config file is checked as for the clusterctl-compatible commands.
            if let Err(e) = load_config(&cli) {
                cli::print_error(&e);
                return ExitCode::FAILURE;
            }
            return cli::upgrade::run(what, cli.config.as_deref(), cli.repository.as_deref());
        }
        _ => {}
    }
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            cli::print_error(&e);
            ExitCode::FAILURE
        }
    }
}
