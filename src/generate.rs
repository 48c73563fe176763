//! The clusterctl-compatible commands: `generate provider`, `generate cluster`
//! (with `--list-variables`) and `init list-images`. Each returns the exact text
//! clusterctl v1.10.10 prints on stdout.

use crate::go::quote::quote as go_q;
use std::collections::BTreeMap;

use crate::components::{self, ComponentsOptions};
use crate::config::{Clusterctl, Config};
use crate::error::{Error, Result};
use crate::provider::{
    dns1123_label_errors, dns1123_subdomain_errors, parse_provider_arg, ProviderType,
};
use crate::repository::LocalRepository;
use crate::template;
use crate::version::Version;

/// What `generate provider` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderOutput {
    /// Substituted and transformed YAML.
    Yaml,
    /// `--raw`: transformed YAML without substitution.
    Raw,
    /// `--describe`: a text summary.
    Describe,
}

/// Resolve `name[:version]` of type `t` to its repository and version string.
fn provider_repo(config: &Config, t: ProviderType, arg: &str) -> Result<(LocalRepository, String)> {
    let (name, version) = parse_provider_arg(arg)?;
    let p = config.provider(&name, t)?;
    let repo = LocalRepository::new(&p, config)?;
    Ok((repo, version))
}

/// `clusterctl generate provider` (R7.10).
pub fn generate_provider(
    config: &Config,
    t: ProviderType,
    arg: &str,
    target_namespace: &str,
    output: ProviderOutput,
) -> Result<String> {
    let (repo, version) = provider_repo(config, t, arg)?;
    let name = repo.provider.name.clone();
    let v = if version.is_empty() {
        repo.default_version.clone()
    } else {
        version.clone()
    };
    let meta = repo.metadata(&v)?;
    let parsed =
        Version::parse(&v).map_err(|_| Error::new(format!("could not parse {v:?} as version")))?;
    let series = meta.series_for_version(&parsed).ok_or_else(|| {
        Error::new(format!(
            "invalid provider metadata: version {v} for the provider {name} does not match any release series"
        ))
    })?;
    check_contract(config.clusterctl, &series.contract, &name)?;
    let opts = ComponentsOptions {
        version,
        target_namespace: target_namespace.to_string(),
        skip_template_process: output != ProviderOutput::Yaml,
    };
    let c = components::get(&repo, &opts, config)?;
    Ok(match output {
        ProviderOutput::Describe => describe(&c),
        _ => {
            let mut text = c.yaml();
            text.push('\n');
            text
        }
    })
}

/// clusterctl's contract check of `generate provider`: v1.10 accepts its own contract
/// only, v1.14 every contract `GetCompatibleVersions` lists (each release its own text).
fn check_contract(c: Clusterctl, contract: &str, name: &str) -> Result<()> {
    if c.compatible_contracts().contains(&contract) {
        return Ok(());
    }
    Err(Error::new(match c {
        Clusterctl::V1_10 => format!(
            "current version of clusterctl is only compatible with {} providers, detected {contract} for provider {name}",
            c.contract()
        ),
        Clusterctl::V1_14 => format!(
            "current version of clusterctl is only compatible with provider implementing {} contract versions, detected {contract} for provider {name}",
            c.compatible_contracts().join(", ")
        ),
    })
    .with_hint(format!(
        "pick a release of {name} that implements {} (its metadata.yaml maps each release series to a contract){}",
        c.compatible_contracts().join(" or "),
        if c == Clusterctl::V1_10 && contract == "v1beta2" {
            ", or drop --clusterctl-version v1.10: clusterctl v1.14 generates v1beta2 providers"
        } else {
            ""
        }
    )))
}

/// The `--describe` text.
fn describe(c: &components::Components) -> String {
    let url = &c.provider.url;
    let (dir, file) = match url.rfind('/') {
        Some(i) => (&url[..=i], &url[i + 1..]),
        None => ("", url.as_str()),
    };
    let trimmed = dir.strip_suffix('/').unwrap_or(dir);
    let base = match trimmed.rfind('/') {
        Some(i) => &trimmed[..=i],
        None => "",
    };
    let mut s = String::new();
    s.push_str(&format!("Name:               {}\n", c.provider.name));
    s.push_str(&format!("Type:               {}\n", c.provider.ptype));
    s.push_str(&format!("URL:                {base}\n"));
    s.push_str(&format!("Version:            {}\n", c.version));
    s.push_str(&format!("File:               {file}\n"));
    s.push_str(&format!("TargetNamespace:    {}\n", c.target_namespace));
    if !c.variables.is_empty() {
        s.push_str("Variables:\n");
        for v in &c.variables {
            s.push_str(&format!("  - {v}\n"));
        }
    }
    if !c.images.is_empty() {
        s.push_str("Images:\n");
        for v in &c.images {
            s.push_str(&format!("  - {v}\n"));
        }
    }
    s.push('\n');
    s
}

/// Options of `generate cluster`.
#[derive(Debug, Clone, Default)]
pub struct ClusterOptions {
    pub cluster_name: String,
    /// `-i name[:version]`; required offline (clusterctl needs a cluster to default it).
    pub infrastructure: String,
    pub flavor: String,
    pub target_namespace: String,
    pub kubernetes_version: String,
    /// `Some` only when the flag was passed explicitly.
    pub control_plane_machine_count: Option<i64>,
    pub worker_machine_count: Option<i64>,
    /// `--from FILE`: a template file instead of the repository (no ClusterClass inclusion).
    pub from: Option<(String, String)>,
    pub list_variables: bool,
}

fn count_from(config: &Config, explicit: Option<i64>, var: &str, default: i64) -> Result<i64> {
    if let Some(n) = explicit {
        return Ok(n);
    }
    match config.get(var) {
        None => Ok(default),
        Some(v) => v
            .parse::<i64>()
            .map_err(|_| Error::new(format!("invalid value for {var} set"))),
    }
}

/// `templateOptionsToVariables`: validate and set the common variables.
fn set_common_variables(config: &mut Config, o: &ClusterOptions) -> Result<()> {
    let errs = dns1123_label_errors(&o.target_namespace);
    if !errs.is_empty() {
        return Err(Error::new(format!(
            "invalid target-namespace: {}",
            errs.join("; ")
        )));
    }
    config.set("NAMESPACE", &o.target_namespace);
    let errs = dns1123_subdomain_errors(&o.cluster_name);
    if !errs.is_empty() {
        return Err(Error::new(format!(
            "invalid cluster name: {}",
            errs.join("; ")
        )));
    }
    config.set("CLUSTER_NAME", &o.cluster_name);
    if !o.kubernetes_version.is_empty() {
        Version::parse(&o.kubernetes_version).map_err(|_| {
            Error::new("invalid KubernetesVersion. Please use a semantic version number")
        })?;
        config.set("KUBERNETES_VERSION", &o.kubernetes_version);
    }
    let cp = count_from(
        config,
        o.control_plane_machine_count,
        "CONTROL_PLANE_MACHINE_COUNT",
        1,
    )?;
    if cp < 1 {
        return Err(Error::new(
            "invalid ControlPlaneMachineCount. Please use a number greater than or equal to 1",
        ));
    }
    config.set("CONTROL_PLANE_MACHINE_COUNT", &cp.to_string());
    let w = count_from(config, o.worker_machine_count, "WORKER_MACHINE_COUNT", 0)?;
    if w < 0 {
        return Err(Error::new(
            "invalid WorkerMachineCount. Please use a number greater than or equal to 0",
        ));
    }
    config.set("WORKER_MACHINE_COUNT", &w.to_string());
    Ok(())
}

/// `clusterctl generate cluster` (R8.3–R8.5), offline: `-n` and `-i name:version`
/// (or `--from`) are required.
pub fn generate_cluster(config: &Config, o: &ClusterOptions) -> Result<String> {
    let mut config = config.clone();
    if o.target_namespace.is_empty() {
        return Err(Error::new(
            "management cluster not available. Cannot auto-discover target namespace. Please specify a target namespace",
        ));
    }
    set_common_variables(&mut config, o)?;
    let t = if let Some((path, text)) = &o.from {
        template::new_template(text, &o.target_namespace, o.list_variables, &config)
            .map_err(|e| e.in_file(path))?
    } else {
        if o.infrastructure.is_empty() {
            return Err(Error::new(
                "management cluster not available. Cannot auto-discover default infrastructure provider. Please specify an infrastructure provider",
            ));
        }
        let (repo, version) =
            provider_repo(&config, ProviderType::Infrastructure, &o.infrastructure)?;
        if version.is_empty() {
            return Err(Error::new(format!(
                "management cluster not available. Cannot auto-discover version for the provider {:?} automatically. Please specify a version",
                repo.provider.name
            )));
        }
        let t = template::get(
            &repo,
            &version,
            &o.flavor,
            &o.target_namespace,
            o.list_variables,
            &config,
        )?;
        template::add_cluster_classes(t, &repo, &version, o.list_variables, &config)?
    };
    if o.list_variables {
        return Ok(list_variables(&t, o, &config));
    }
    Ok(format!("{}\n", t.yaml()))
}

/// `printVariablesOutput` (R8.5).
pub fn list_variables(t: &template::Template, o: &ClusterOptions, config: &Config) -> String {
    let mut values: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (name, def) in &t.variable_map {
        let mut v = def.clone().map(|d| {
            if !d.is_empty() && !d.starts_with('"') {
                go_q(&d)
            } else {
                d
            }
        });
        match name.as_str() {
            "CLUSTER_NAME" => v = Some(o.cluster_name.clone()),
            "NAMESPACE" => {
                v = Some(if o.target_namespace.is_empty() {
                    "current Namespace in the KubeConfig file".to_string()
                } else {
                    o.target_namespace.clone()
                })
            }
            "CONTROL_PLANE_MACHINE_COUNT" => {
                v = Some(match o.control_plane_machine_count {
                    Some(n) => n.to_string(),
                    None => config.env_var(name).cloned().unwrap_or_else(|| "1".into()),
                })
            }
            "WORKER_MACHINE_COUNT" => {
                v = Some(match o.worker_machine_count {
                    Some(n) => n.to_string(),
                    None => config.env_var(name).cloned().unwrap_or_else(|| "0".into()),
                })
            }
            "KUBERNETES_VERSION" => {
                if !o.kubernetes_version.is_empty() {
                    v = Some(o.kubernetes_version.clone());
                } else if let Some(e) = config.env_var(name) {
                    v = Some(e.clone());
                }
            }
            _ => {}
        }
        values.insert(name.clone(), v);
    }
    let required: Vec<&String> = values
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(k, _)| k)
        .collect();
    let optional: Vec<(&String, &String)> = values
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k, v)))
        .collect();
    let mut out = String::new();
    if !required.is_empty() {
        out.push_str("Required Variables:\n");
        for k in &required {
            out.push_str(&format!("  - {k}\n"));
        }
    }
    if !optional.is_empty() {
        out.push_str("\nOptional Variables:\n");
        let width = optional
            .iter()
            .map(|(k, _)| k.chars().count() + 4)
            .max()
            .unwrap_or(0)
            + 2;
        for (k, v) in &optional {
            let cell = format!("  - {k}");
            let pad = width - cell.chars().count();
            out.push_str(&format!("{cell}{}(defaults to {v})\n", " ".repeat(pad)));
        }
    }
    out.push('\n');
    out
}

/// `clusterctl init list-images` computed offline, for a management cluster without
/// cert-manager: the de-duplicated images of the given providers' components
/// (rendered without substitution, overrides applied), plus cert-manager's
/// ([`crate::certmanager`]): from `cert_manager` (a manifest's text) when given, else
/// the release the config and `--repository` locate. `Ok((text, false))` when no local
/// cert-manager release is configured (clusterctl would download it).
pub fn list_images(
    config: &Config,
    providers: &[(ProviderType, String)],
    cert_manager: Option<&str>,
) -> Result<(String, bool)> {
    let mut provider_images = std::collections::BTreeSet::new();
    for (t, arg) in providers {
        // `-b -` / `-c -` opt out of a default provider (clusterctl's NoopProvider).
        if arg == "-" {
            if *t == ProviderType::Core {
                return Err(Error::new(
                    "the '-' value can not be used for the core provider",
                ));
            }
            continue;
        }
        let images = || -> Result<Vec<String>> {
            let (repo, version) = provider_repo(config, *t, arg)?;
            let opts = ComponentsOptions {
                version,
                skip_template_process: true,
                ..Default::default()
            };
            Ok(components::get(&repo, &opts, config)?.images)
        };
        // clusterctl's installer names the provider as given on the command line.
        provider_images.extend(images().map_err(|e| {
            e.wrap(format!(
                "failed to get provider components for the {} provider",
                crate::go::quote::quote(arg)
            ))
        })?);
    }
    let release = match cert_manager {
        Some(text) => Some(crate::certmanager::Release {
            version: crate::certmanager::DEFAULT_VERSION.to_string(),
            text: text.to_string(),
            path: Default::default(),
            shown: String::new(),
        }),
        None => crate::certmanager::read(config)?,
    };
    let mut images: Vec<String> = Vec::new();
    let found = release.is_some();
    if let Some(r) = release {
        images.extend(
            crate::certmanager::images(&r, config.images.as_ref(), config.k8s())
                .map_err(|e| r.error(e))?,
        );
    }
    images.extend(provider_images);
    images.sort();
    Ok((images.iter().map(|i| format!("{i}\n")).collect(), found))
}
