//! `capi-render render`: render provider CRs (and topology Clusters) to stdout, to a
//! GitOps tree (`-o OUT`), or compare with a tree (`--check`).
//!
//! Exit codes: 0 success (in `--check`: the tree is up to date); 1 failure (in
//! `--check`: the tree differs, the diff is on stdout); 2 in `--check` only: an error
//! (bad input, unreadable tree), so hooks can tell drift from failure.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use capi_render::gitops::{self, TreeOptions};
use capi_render::model::{RenderOptions, SecretsMode};
use capi_render::render::Rendering;
use capi_render::Error;
use clap::Args;

use super::output::Format;
use super::print_error;

#[derive(Args, Debug)]
pub struct RenderArgs {
    /// Input files or directories (walked for *.yaml / *.yml): provider CRs, their
    /// Secrets and ConfigMaps, topology Clusters.
    #[arg(
        short = 'f',
        long = "filename",
        value_name = "PATH",
        required_unless_present = "from_lock",
        num_args = 1..
    )]
    pub files: Vec<PathBuf>,
    /// Write the GitOps tree to OUT.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "OUT",
        required_unless_present_any = ["stdout", "from_lock"]
    )]
    pub output: Option<PathBuf>,
    /// Run again the render that wrote OUT: its inputs and flags as OUT's lock records
    /// them (`-o OUT` implied; with --check, compare instead of writing). The recorded
    /// paths must stay inside the repository that holds OUT.
    #[arg(
        long = "from-lock",
        value_name = "OUT",
        conflicts_with_all = ["files", "output", "stdout", "flux", "flux_path", "flux_depends_on", "flux_interval", "flux_timeout", "argocd", "argocd_repo", "no_namespaces", "oci_layout", "allow_empty", "cert_manager", "clusters", "secrets", "sops_age_recipient", "sops_flux_secret"]
    )]
    pub from_lock: Option<PathBuf>,
    /// Print every rendered object as one YAML stream instead of writing a tree.
    #[arg(long, conflicts_with_all = ["output", "check", "flux"])]
    pub stdout: bool,
    /// Do not write: compare the tree OUT would get with OUT. Exit 0 when identical,
    /// 1 with a unified diff per file when not, 2 on errors.
    #[arg(long, requires = "output")]
    pub check: bool,
    /// Parse every input, render every Cluster and compare every file byte for byte
    /// (-o, --check). Without it, a file of Clusters whose sha256 OUT's lock records is
    /// not parsed, and a Cluster whose inputs hash to the fingerprint the lock records,
    /// and whose unit directory is still in OUT, is not rendered (the files in it are
    /// not looked at). Use it in CI, where a pull request may edit OUT or the lock.
    #[arg(long)]
    pub full: bool,
    /// Render only shard I of N (a CI matrix job): the units whose stable hash falls in
    /// shard I, into OUT/.capi-render.shards/I-of-N/ (their files, a fragment lock and
    /// `shard.json`). `capi-render merge-locks OUT` then joins the N shards into the tree
    /// and lock one run writes. Every job must use the same -o path.
    #[arg(long, value_name = "I/N", conflicts_with_all = ["check", "stdout"])]
    pub shard: Option<String>,
    /// Also write Flux Kustomizations (kustomize.toolkit.fluxcd.io/v1) under OUT/flux/.
    #[arg(long, requires = "output")]
    pub flux: bool,
    /// The Flux GitRepository (in flux-system) the Kustomizations read from.
    #[arg(
        long = "flux-source",
        value_name = "NAME",
        default_value = "flux-system"
    )]
    pub flux_source: String,
    /// OUT's path inside the Git repository, for the Kustomizations' `spec.path` and
    /// the Applications' `path` (default: OUT relative to the root of the Git work tree
    /// holding it, from any directory; outside one, OUT as given, which must then be
    /// relative).
    #[arg(long = "flux-path", value_name = "PATH")]
    pub flux_path: Option<String>,
    /// A Flux Kustomization outside the tree (NAME in flux-system, or NAMESPACE/NAME,
    /// e.g. one that installs cert-manager) that every unit without a dependency inside
    /// the tree depends on. Repeatable.
    #[arg(long = "flux-depends-on", value_name = "NAME", requires = "flux")]
    pub flux_depends_on: Vec<String>,
    /// The Kustomizations' `spec.interval` (default 10m).
    #[arg(long = "flux-interval", value_name = "DURATION", requires = "flux")]
    pub flux_interval: Option<String>,
    /// The Kustomizations' `spec.timeout` (default: Flux's).
    #[arg(long = "flux-timeout", value_name = "DURATION", requires = "flux")]
    pub flux_timeout: Option<String>,
    /// Also write Argo CD Applications (argoproj.io/v1alpha1) under OUT/argocd/: one per
    /// unit, sync waves in dependency order, server-side apply for objects too large for
    /// client-side apply, CRDs and Namespaces never pruned. Needs --argocd-repo.
    #[arg(long, requires_all = ["output", "argocd_repo"])]
    pub argocd: bool,
    /// The Git repository URL the Applications read from.
    #[arg(long = "argocd-repo", value_name = "URL", requires = "argocd")]
    pub argocd_repo: Option<String>,
    /// The revision (branch, tag, commit) the Applications track.
    #[arg(long = "argocd-revision", value_name = "REV", default_value = "HEAD")]
    pub argocd_revision: String,
    /// The Argo CD project of the Applications.
    #[arg(
        long = "argocd-project",
        value_name = "NAME",
        default_value = "default"
    )]
    pub argocd_project: String,
    /// The namespace of the Applications (Argo CD's).
    #[arg(long = "argocd-namespace", value_name = "NS", default_value = "argocd")]
    pub argocd_namespace: String,
    /// Do not emit Namespace objects (namespaces managed elsewhere): neither the
    /// namespaces unit (`namespaces/`) nor the providers' own. A Namespace among the
    /// inputs is then an error.
    #[arg(long = "no-namespaces")]
    pub no_namespaces: bool,
    /// Do not check the input objects against the CRDs of the provider components the
    /// tree installs (unknown fields, types, enums, required, min/max, patterns, CEL
    /// rules: what the API server's strict field validation refuses on apply).
    #[arg(long = "no-validate")]
    pub no_validate: bool,
    /// An OCI image layout holding the artifacts that `fetchConfig.oci` names.
    #[arg(long = "oci-layout", value_name = "DIR")]
    pub oci_layout: Option<PathBuf>,
    /// Accept inputs that yield no provider and no topology Cluster (with -o: remove
    /// every unit of the tree). Without it that is an error.
    #[arg(long = "allow-empty")]
    pub allow_empty: bool,
    /// Let -o remove what OUT's lock records and these flags no longer ask for: the
    /// Flux or Argo CD files, cert-manager, the class units or Clusters of another
    /// --clusters mode, the providers' Namespaces. Without it such a run is refused
    /// and writes nothing.
    #[arg(long = "allow-prune")]
    pub allow_prune: bool,
    /// Also render cert-manager, as clusterctl installs it, as the first unit
    /// (`cert-manager/`): the release the config's `cert-manager:` section or
    /// `--repository DIR/cert-manager/<version>/` holds.
    #[arg(long = "cert-manager")]
    pub cert_manager: bool,
    #[command(flatten)]
    pub clusters: super::ClustersArg,
    /// What becomes of the values a provider's config Secret gives its components:
    /// `keep` writes them (a warning names each file, unless given explicitly);
    /// `flux-substitute` (needs --flux) writes `${VAR}` placeholders that the unit's
    /// Flux Kustomization restores from a copy of the Secret in flux-system; `sops`
    /// writes each Secret holding one SOPS-encrypted for --sops-age-recipient.
    #[arg(long = "secrets", value_name = "MODE", value_parser = ["keep", "flux-substitute", "sops"])]
    pub secrets: Option<String>,
    /// With --secrets sops: an age public key (age1…) to encrypt for; repeat it for
    /// several. Recorded in the lock.
    #[arg(long = "sops-age-recipient", value_name = "AGE1...")]
    pub sops_age_recipient: Vec<String>,
    /// With --secrets sops --flux: the Secret in flux-system holding the age identity
    /// the units' Flux Kustomizations decrypt with (default sops-age).
    #[arg(long = "sops-flux-secret", value_name = "NAME")]
    pub sops_flux_secret: Option<String>,
    /// `json`: print the result as one JSON object on stdout instead of text — with
    /// --check a CheckResult (the files that differ), else a RenderResult (the files
    /// written, unchanged, removed). The exit codes stay as they are.
    #[arg(
        long = "output-format",
        value_name = "FORMAT",
        default_value = "text",
        conflicts_with = "stdout"
    )]
    pub output_format: super::output::Format,
    /// Set by `--from-lock` (never a flag): the repository root the clusterctl config's
    /// local paths must lie inside.
    #[arg(skip)]
    pub reads_inside: Option<PathBuf>,
    #[command(flatten)]
    pub extensions: super::runtime::ExtensionArgs,
}

/// The tree options the flags ask for.
pub fn tree_options(a: &RenderArgs) -> Result<TreeOptions, Error> {
    let flux_path = match (&a.flux_path, &a.output) {
        (Some(p), _) => p.clone(),
        (None, Some(out)) if a.flux || a.argocd => path_in_repository(out)?,
        _ => String::new(),
    };
    Ok(TreeOptions {
        flux: a.flux,
        flux_source: Some(a.flux_source.clone()),
        flux_path: flux_path.clone(),
        flux_extras: flux_extras(a),
        argocd: argocd_settings(a),
        command: None,
    })
}

/// OUT's path for the Flux and Argo CD objects without `--flux-path`: relative to the
/// root of the Git work tree holding OUT; outside one, OUT as given, which must then be
/// relative.
fn path_in_repository(out: &Path) -> Result<String, Error> {
    if let Some(p) = gitops::repo::path_in_repository(out)? {
        return Ok(p);
    }
    if out.is_absolute() {
        return Err(Error::new(format!(
            "--flux and --argocd need --flux-path: OUT ({}) is absolute and in no Git work tree (no `.git` above it), and the paths they apply are relative to the Git repository; pass --flux-path PATH, OUT's path inside the repository Flux or Argo CD reads",
            out.display()
        )));
    }
    Ok(out.to_string_lossy().replace('\\', "/"))
}

fn argocd_settings(a: &RenderArgs) -> Option<gitops::argocd::Settings> {
    a.argocd.then(|| gitops::argocd::Settings {
        repo_url: a.argocd_repo.clone().unwrap_or_default(),
        revision: a.argocd_revision.clone(),
        project: a.argocd_project.clone(),
        namespace: a.argocd_namespace.clone(),
    })
}

fn flux_extras(a: &RenderArgs) -> gitops::flux::Extras {
    gitops::flux::Extras {
        depends_on: a.flux_depends_on.clone(),
        interval: a.flux_interval.clone(),
        timeout: a.flux_timeout.clone(),
    }
}

/// The command to record in OUT's lock for these arguments.
fn command_of(
    a: &RenderArgs,
    topts: &TreeOptions,
    config: Option<&Path>,
    repository: Option<&Path>,
) -> gitops::lock::RenderCommand {
    let s = |p: &Path| p.to_string_lossy().into_owned();
    gitops::lock::RenderCommand {
        files: a.files.iter().map(|f| s(f)).collect(),
        config: config.map(s),
        repository: repository.map(s),
        oci_layout: a.oci_layout.as_deref().map(s),
        no_namespaces: a.no_namespaces,
        allow_empty: a.allow_empty,
        cert_manager: a.cert_manager,
        clusters: a.clusters.mode(),
        flux: a
            .flux
            .then(|| (a.flux_source.clone(), topts.flux_path.clone())),
        flux_extras: topts.flux_extras.clone(),
        argocd: topts.argocd.clone().map(|s| (s, topts.flux_path.clone())),
        capi_version: a.clusters.capi_version.clone(),
        field_validation: a.clusters.field_validation(),
        secrets: secrets_mode(a).unwrap_or_default(),
        sops_age: {
            let mut r: Vec<String> = a
                .sops_age_recipient
                .iter()
                .map(|r| r.trim().to_string())
                .collect();
            r.sort();
            r.dedup();
            r
        },
        sops_flux_secret: a.sops_flux_secret.clone(),
        runtime_extensions: {
            let mut r = a.extensions.runtime_extension.clone();
            r.sort();
            r
        },
        runtime_extension_ca: a.extensions.runtime_extension_ca.as_deref().map(s),
        allow_remote_extensions: a.extensions.allow_remote_extensions,
    }
}

/// `--from-lock OUT`: the arguments the lock records (paths resolved against OUT).
fn from_lock(
    a: &RenderArgs,
    out: &Path,
    config: Option<&Path>,
    repository: Option<&Path>,
) -> Result<(RenderArgs, Option<PathBuf>, Option<PathBuf>), Error> {
    if config.is_some() || repository.is_some() || a.clusters.capi_version.is_some() {
        return Err(Error::new(
            "--from-lock takes --config, --repository and --capi-version from the lock; drop them (or render with -f ... -o OUT to change the recorded command)",
        ));
    }
    let c = gitops::recorded_command(out)?;
    // The recorded paths resolve at the repository root: messages show them from here.
    if let Ok(root) = gitops::repository_root(out) {
        super::shown::add_root(&root);
    }
    let (flux_source, mut flux_path) = match &c.flux {
        Some((s, p)) => (s.clone(), Some(p.clone())),
        None => ("flux-system".to_string(), None),
    };
    if let (None, Some((_, p))) = (&flux_path, &c.argocd) {
        flux_path = Some(p.clone());
    }
    let argo = c.argocd.as_ref().map(|(s, _)| s.clone());
    let extensions = super::runtime::recorded_or_given(&a.extensions, &c);
    let args = RenderArgs {
        files: c.files.iter().map(PathBuf::from).collect(),
        output: Some(out.to_path_buf()),
        from_lock: None,
        stdout: false,
        check: a.check,
        full: a.full,
        shard: a.shard.clone(),
        flux: c.flux.is_some(),
        flux_source,
        flux_path,
        flux_depends_on: c.flux_extras.depends_on.clone(),
        flux_interval: c.flux_extras.interval.clone(),
        flux_timeout: c.flux_extras.timeout.clone(),
        argocd: argo.is_some(),
        argocd_repo: argo.as_ref().map(|s| s.repo_url.clone()),
        argocd_revision: argo.as_ref().map_or("HEAD".into(), |s| s.revision.clone()),
        argocd_project: argo
            .as_ref()
            .map_or("default".into(), |s| s.project.clone()),
        argocd_namespace: argo
            .as_ref()
            .map_or("argocd".into(), |s| s.namespace.clone()),
        no_namespaces: c.no_namespaces,
        no_validate: false,
        oci_layout: c.oci_layout.map(PathBuf::from),
        allow_empty: c.allow_empty,
        allow_prune: a.allow_prune,
        cert_manager: c.cert_manager,
        clusters: super::ClustersArg {
            clusters: c.clusters.as_str().to_string(),
            capi_version: c.capi_version.clone(),
            field_validation: c.field_validation.as_str().to_string(),
        },
        output_format: a.output_format,
        reads_inside: Some(gitops::repository_root(out)?),
        secrets: (c.secrets != SecretsMode::Keep).then(|| c.secrets.as_str().to_string()),
        sops_age_recipient: c.sops_age.clone(),
        sops_flux_secret: c.sops_flux_secret.clone(),
        extensions,
    };
    Ok((
        args,
        c.config.map(PathBuf::from),
        c.repository.map(PathBuf::from),
    ))
}

/// The absolute, symlink-resolved form of `p` (of its nearest existing ancestor, for a
/// path that does not exist yet).
fn resolved(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut tail = Vec::new();
    let mut cur = abs.as_path();
    loop {
        if let Ok(c) = cur.canonicalize() {
            return tail.iter().rev().fold(c, |acc, t| acc.join(t));
        }
        match (cur.parent(), cur.file_name()) {
            (Some(parent), Some(name)) => {
                tail.push(name.to_os_string());
                cur = parent;
            }
            _ => return abs,
        }
    }
}

/// OUT must not lie inside an input directory: the next run would read the tree's own
/// files as inputs.
pub fn check_out_outside_inputs(files: &[PathBuf], out: &Path) -> Result<(), Error> {
    let o = resolved(out);
    for f in files {
        if f.is_dir() && o.starts_with(resolved(f)) {
            return Err(Error::new(format!(
                "the output directory {} is inside the input directory {}: its files would be read as inputs by the next run; name the input files, or move the output",
                out.display(),
                f.display()
            )));
        }
    }
    Ok(())
}

fn prepare(
    a: &RenderArgs,
    config: Option<&Path>,
    repository: Option<&Path>,
) -> Result<Rendering, Error> {
    prepare_deferring(a, config, repository, &Default::default())
}

fn prepare_deferring(
    a: &RenderArgs,
    config: Option<&Path>,
    repository: Option<&Path>,
    deferral: &gitops::Deferral,
) -> Result<Rendering, Error> {
    if let Some(out) = &a.output {
        check_out_outside_inputs(&a.files, out)?;
    }
    // `..default()`: RenderOptions gains fields on other branches.
    #[allow(clippy::needless_update)]
    let opts = RenderOptions {
        repository: repository.map(Path::to_path_buf),
        config: config.map(Path::to_path_buf),
        no_namespaces: a.no_namespaces,
        oci_layout: a.oci_layout.clone(),
        allow_empty: a.allow_empty,
        cert_manager: a.cert_manager,
        clusters: a.clusters.mode(),
        capi_version: a.clusters.capi_version.clone(),
        reads_inside: a.reads_inside.clone(),
        secrets: secrets_mode(a)?,
        no_validate: a.no_validate,
        field_validation: a.clusters.field_validation(),
        ..RenderOptions::default()
    };
    let mut r = super::prepare_deferring(&a.files, &opts, deferral)?;
    if !a.extensions.runtime_extension.is_empty() {
        super::runtime::call_extensions(&mut r, &a.extensions)?;
    }
    // Writes warn (--check compares, and says nothing new).
    if a.secrets.is_none() && !a.check {
        for w in keep_warnings(&r, a.output.as_deref()) {
            super::ui::warn(&w);
        }
    }
    Ok(r)
}

/// `--secrets`; flux-substitute needs the Flux Kustomizations that restore the values.
fn secrets_mode(a: &RenderArgs) -> Result<SecretsMode, Error> {
    let sops = a.secrets.as_deref() == Some("sops");
    if !sops && (!a.sops_age_recipient.is_empty() || a.sops_flux_secret.is_some()) {
        return Err(Error::new(
            "--sops-age-recipient and --sops-flux-secret go with --secrets sops; add it",
        ));
    }
    match a.secrets.as_deref() {
        None | Some("keep") => Ok(SecretsMode::Keep),
        Some("sops") if a.stdout || a.shard.is_some() => Err(Error::new(
            "--secrets sops keeps each encrypted file while its plaintext is unchanged, which needs the tree and its lock: render with -o OUT (without --shard), or use --secrets keep",
        )),
        Some("sops") => {
            if let Some(n) = &a.sops_flux_secret {
                if !capi_render::provider::dns1123_subdomain_errors(n).is_empty() {
                    return Err(Error::new(format!(
                        "--sops-flux-secret {n:?}: not a valid Secret name"
                    )));
                }
            }
            capi_render::sops::parse_recipients(&a.sops_age_recipient)?;
            Ok(SecretsMode::Sops)
        }
        Some(_) if !a.flux => Err(Error::new(
            "--secrets flux-substitute writes ${VAR} placeholders that only the units' Flux Kustomizations restore (postBuild.substituteFrom); add --flux (and -o OUT), or use --secrets keep",
        )),
        Some(_) => Ok(SecretsMode::FluxSubstitute),
    }
}

/// `--secrets sops`: the providers' Secrets that carry a config-Secret value,
/// encrypted (or kept from OUT while their plaintext is unchanged).
fn seal(
    a: &RenderArgs,
    r: &mut Rendering,
    out: &Path,
    opened: &gitops::Opened,
) -> Result<(), Error> {
    if secrets_mode(a)? != SecretsMode::Sops {
        return Ok(());
    }
    let recipients = capi_render::sops::parse_recipients(&a.sops_age_recipient)?;
    let flux_secret = a
        .sops_flux_secret
        .as_deref()
        .unwrap_or(gitops::sealed::FLUX_SECRET);
    let warnings = gitops::sealed::seal(
        r.provider_units_mut(),
        out,
        &opened.sealed_previous(),
        &recipients,
        flux_secret,
    )?;
    if !a.check {
        for w in &warnings {
            super::ui::warn(&format!("{}/{w}", out.display()));
        }
        if a.argocd {
            super::ui::warn(
                "--argocd with --secrets sops: Argo CD applies the encrypted Secrets as they are (it has no SOPS decryption of its own); give its repo server a SOPS plugin (KSOPS, helm-secrets), or use --flux",
            );
        }
    }
    Ok(())
}

/// `--secrets keep` left implicit: one warning per file that carries a value of a
/// provider's config Secret (the file under OUT, or the object on stdout).
fn keep_warnings(r: &Rendering, out: Option<&Path>) -> Vec<String> {
    let mut w = Vec::new();
    for u in r.provider_units() {
        let capi_render::model::UnitKind::Provider(p) = &u.kind else {
            continue;
        };
        if p.secret_objects.is_empty() {
            continue;
        }
        let names = gitops::names::object_file_names(&u.objects);
        for &i in &p.secret_objects {
            let at = match out {
                Some(o) => format!("{}/{}/{}", o.display(), u.dir(), names[i]),
                None => format!("{} (stdout, unit {})", names[i], u.dir()),
            };
            w.push(format!(
                "{at}: holds a value of the provider's config Secret in plain text; keep credentials out of Git with --secrets sops (encrypted for --sops-age-recipient) or --secrets flux-substitute, or pass --secrets keep to write them knowingly"
            ));
        }
    }
    w
}

pub fn run(a: &RenderArgs, config: Option<&Path>, repository: Option<&Path>) -> ExitCode {
    if let Some(out) = &a.from_lock {
        return match from_lock(a, out, config, repository) {
            Ok((args, config, repository)) => run(&args, config.as_deref(), repository.as_deref()),
            Err(e) => {
                print_error(&e);
                ExitCode::from(if a.check { 2 } else { 1 })
            }
        };
    }
    if !a.stdout && a.clusters.mode() == capi_render::model::ClusterMode::Desired {
        print_error(&Error::new(
            "--clusters desired prints the topology controller's desired objects for review (with --stdout); a tree applies --clusters managed (the default: the Cluster and its class, the desired objects beside them for review) or --clusters flatten (no topology controller)",
        ));
        return ExitCode::from(if a.check { 2 } else { 1 });
    }
    if a.check {
        return run_check(a, config, repository);
    }
    match run_write(a, config, repository) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            print_error(&e);
            ExitCode::FAILURE
        }
    }
}

fn run_write(
    a: &RenderArgs,
    config: Option<&Path>,
    repository: Option<&Path>,
) -> Result<(), Error> {
    let mut topts = tree_options(a)?;
    if a.stdout {
        return print_stream(prepare(a, config, repository)?);
    }
    let command = command_of(a, &topts, config, repository);
    topts.command = Some(command.clone());
    let out = a
        .output
        .as_deref()
        .expect("clap requires -o without --stdout");
    let shard = a
        .shard
        .as_deref()
        .map(gitops::shard::Shard::parse)
        .transpose()?;
    let rep = match shard {
        None => {
            check_out_outside_inputs(&a.files, out)?;
            let opened =
                gitops::Opened::for_write(out)?.listing_unchanged(a.output_format == Format::Json);
            opened.refuse_losses(out, &command, a.allow_prune)?;
            let deferral = opened.deferral(out, &topts, a.full);
            let mut r = prepare_deferring(a, config, repository, &deferral)?;
            seal(a, &mut r, out, &opened)?;
            gitops::write_opened(
                opened,
                r,
                out,
                &topts,
                a.full,
                &mut super::report_summary,
                &mut |_| Ok(()),
            )?
        }
        Some(s) => {
            gitops::refuse_losses_at(out, &command, a.allow_prune)?;
            let r = prepare(a, config, repository)?;
            let rep =
                gitops::shard::write(r, out, &topts, s, &mut super::report_summary, &mut |_| {
                    Ok(())
                })?;
            super::ui::info(&format!(
                "shard {}/{} written to {}/{}/{}; join all {} with `capi-render merge-locks {}`",
                s.index,
                s.count,
                out.display(),
                gitops::shard::SHARDS,
                s.dir(),
                s.count,
                out.display()
            ));
            rep
        }
    };
    if a.output_format == Format::Json {
        super::output::print_json(
            "RenderResult",
            serde_json::json!({
                "output": out.to_string_lossy(),
                "written": rep.written,
                "unchanged": rep.unchanged,
                "removed": rep.removed,
            }),
        )?;
    }
    super::ui::info(&format!(
        "{}: {} written, {} unchanged, {} removed",
        out.display(),
        rep.written.len(),
        rep.unchanged_count(),
        rep.removed.len()
    ));
    Ok(())
}

/// `render --stdout`: every unit's YAML as it comes (written by the render workers),
/// so memory is bounded by the inputs and the units in flight, not by the output.
/// A failure after output began ends the stream with [`BROKEN_STREAM`], so that a
/// reader of the stream (`kubectl apply -f -` decodes every document before applying)
/// refuses the partial output as well as the exit status does.
fn print_stream(r: Rendering) -> Result<(), Error> {
    use capi_render::yaml::{to_yaml, StreamJoin};
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let (mut join, mut text, mut began) = (StreamJoin::default(), String::new(), false);
    let write_err = |e: std::io::Error| Error::new(format!("failed to write to stdout: {e}"));
    let res = r.stream(
        |u| {
            let docs: Vec<String> = u.objects.iter().map(to_yaml).collect();
            Ok((u, docs))
        },
        |(u, docs)| {
            super::report_unit(&u);
            text.clear();
            for d in &docs {
                join.push(d, &mut text);
            }
            began |= !text.is_empty();
            out.write_all(text.as_bytes()).map_err(write_err)
        },
    );
    let end = match &res {
        Ok(()) => {
            text.clear();
            join.finish(&mut text);
            text.as_str()
        }
        Err(_) if began => BROKEN_STREAM,
        Err(_) => "",
    };
    let flushed = out
        .write_all(end.as_bytes())
        .and_then(|_| out.flush())
        .map_err(write_err);
    res.and(flushed)
}

/// What ends a `--stdout` stream cut short by an error: a document no YAML or JSON
/// reader accepts (an unclosed flow mapping), naming the cause's place (stderr).
pub const BROKEN_STREAM: &str =
    "\n---\n{\"capi-render\": \"render failed: the output above is incomplete, see the error on stderr\"\n";

fn run_check(a: &RenderArgs, config: Option<&Path>, repository: Option<&Path>) -> ExitCode {
    let out = a.output.as_deref().expect("clap requires -o with --check");
    // The Runtime SDK session, to name the extensions the Clusters were patched by.
    let session = std::cell::RefCell::new(None);
    let res = tree_options(a).and_then(|mut topts| {
        topts.command = Some(command_of(a, &topts, config, repository));
        check_out_outside_inputs(&a.files, out)?;
        let opened = gitops::Opened::for_check(out)?;
        let deferral = opened.deferral(out, &topts, a.full);
        let mut r = prepare_deferring(a, config, repository, &deferral)?;
        seal(a, &mut r, out, &opened)?;
        *session.borrow_mut() = r.runtime_session();
        gitops::check_opened(opened, r, out, &topts, a.full, &mut super::report_summary)
    });
    let res = res.and_then(|rep| {
        if a.output_format == Format::Json {
            super::output::print_json(
                "CheckResult",
                serde_json::json!({
                    "output": out.to_string_lossy(),
                    "upToDate": rep.changed.is_empty(),
                    "files": super::output::file_changes(&rep.files),
                    "refused": rep.refused,
                }),
            )?;
        }
        Ok(rep)
    });
    match res {
        Ok(rep) if rep.changed.is_empty() => ExitCode::SUCCESS,
        Ok(rep) => {
            if a.output_format == Format::Text {
                let mut so = std::io::stdout().lock();
                let _ = so.write_all(rep.diff.as_bytes()).and_then(|_| so.flush());
            }
            super::ui::info(&format!(
                "{}: {} file(s) out of date; bring it up to date with `{}`",
                out.display(),
                rep.changed.len(),
                fix_command(std::env::args_os().skip(1))
            ));
            for r in &rep.refused {
                super::ui::warn(&format!("render -o would refuse {r}"));
            }
            super::runtime::note_handlers(session.borrow().as_deref());
            ExitCode::from(1)
        }
        Err(e) => {
            print_error(&e);
            ExitCode::from(2)
        }
    }
}

/// The command that writes what `--check` found out of date: this run's own arguments
/// without `--check`, shell-quoted (`render --from-lock OUT`, or `render -f … -o OUT`).
fn fix_command(args: impl Iterator<Item = std::ffi::OsString>) -> String {
    let words: Vec<String> = args
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| a != "--check")
        .collect();
    let joined =
        shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "));
    format!("capi-render {joined}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fix_is_the_same_run_without_check_quoted_for_a_shell() {
        let args = [
            "--config",
            "c.yaml",
            "render",
            "--check",
            "-f",
            "my inputs",
            "-o",
            "out",
        ];
        assert_eq!(
            fix_command(args.iter().map(std::ffi::OsString::from)),
            "capi-render --config c.yaml render -f 'my inputs' -o out"
        );
        let args = ["render", "--from-lock", "capi/rendered", "--check"];
        assert_eq!(
            fix_command(args.iter().map(std::ffi::OsString::from)),
            "capi-render render --from-lock capi/rendered"
        );
    }

    #[test]
    fn output_inside_an_input_directory_is_refused() {
        let base = std::env::temp_dir().join(format!("capi-render-cli-{}", std::process::id()));
        let inputs = base.join("capi");
        std::fs::create_dir_all(&inputs).unwrap();
        let e = check_out_outside_inputs(std::slice::from_ref(&inputs), &inputs.join("rendered"))
            .unwrap_err();
        assert!(e.message().contains("inside the input directory"), "{e}");
        assert!(check_out_outside_inputs(std::slice::from_ref(&inputs), &inputs).is_err());
        assert!(
            check_out_outside_inputs(std::slice::from_ref(&inputs), &base.join("rendered")).is_ok()
        );
        // A file input next to OUT is fine.
        std::fs::write(inputs.join("p.yaml"), "").unwrap();
        assert!(
            check_out_outside_inputs(&[inputs.join("p.yaml")], &inputs.join("rendered")).is_ok()
        );
        let _ = std::fs::remove_dir_all(&base);
    }
}
