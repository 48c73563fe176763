//! The `render` command a lock records (`command:`), read back by `render --from-lock`.

use std::path::Path;

use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::paths::relative_to;

/// The `render` command that made a tree, recorded in its lock (`command:`) so that
/// `render --from-lock OUT` runs it again. Paths are as given to the command; the lock
/// holds them relative to OUT, as it holds its inputs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderCommand {
    /// `-f` paths, in order.
    pub files: Vec<String>,
    /// `--config`.
    pub config: Option<String>,
    /// `--repository`.
    pub repository: Option<String>,
    /// `--oci-layout`.
    pub oci_layout: Option<String>,
    pub no_namespaces: bool,
    pub allow_empty: bool,
    /// `--cert-manager`.
    pub cert_manager: bool,
    /// `--clusters` (recorded when not the default, `managed`).
    pub clusters: crate::model::ClusterMode,
    /// `--flux`, with `--flux-source` and `--flux-path`.
    pub flux: Option<(String, String)>,
    /// `--flux-depends-on`, `--flux-interval`, `--flux-timeout` (with `flux`).
    pub flux_extras: super::flux::Extras,
    /// `--argocd` with its settings, and OUT's path inside the repository.
    pub argocd: Option<(super::argocd::Settings, String)>,
    /// `--capi-version`: the core provider version v1beta1 topologies render under.
    pub capi_version: Option<String>,
    /// `--field-validation` (recorded when not `strict`, as `fieldValidation`).
    pub field_validation: crate::model::FieldValidation,
    /// `--secrets` (recorded when not `keep`).
    pub secrets: crate::model::SecretsMode,
    /// `--secrets sops`: the `--sops-age-recipient`s (sorted) and `--sops-flux-secret`
    /// (when not the default), recorded as `sops: {ageRecipients, fluxSecret}`.
    pub sops_age: Vec<String>,
    pub sops_flux_secret: Option<String>,
    /// `--runtime-extension NAME=URL` (sorted), `--runtime-extension-ca` and
    /// `--allow-remote-extensions`, recorded as `runtimeExtensions: {extensions, ca,
    /// allowRemote}`.
    pub runtime_extensions: Vec<String>,
    pub runtime_extension_ca: Option<String>,
    pub allow_remote_extensions: bool,
}

impl RenderCommand {
    pub(super) fn to_value(&self, base: &Path) -> Value {
        let rel = |p: &str| Value::String(relative_to(p, base));
        let mut m = serde_json::Map::new();
        m.insert("files".into(), self.files.iter().map(|f| rel(f)).collect());
        for (k, v) in [
            ("config", &self.config),
            ("repository", &self.repository),
            ("ociLayout", &self.oci_layout),
        ] {
            if let Some(p) = v {
                m.insert(k.into(), rel(p));
            }
        }
        if self.no_namespaces {
            m.insert("noNamespaces".into(), Value::Bool(true));
        }
        if self.allow_empty {
            m.insert("allowEmpty".into(), Value::Bool(true));
        }
        if self.cert_manager {
            m.insert("certManager".into(), Value::Bool(true));
        }
        if self.clusters != crate::model::ClusterMode::Managed {
            m.insert("clusters".into(), Value::from(self.clusters.as_str()));
        }
        if let Some(v) = &self.capi_version {
            m.insert("capiVersion".into(), Value::from(v.as_str()));
        }
        if self.field_validation != crate::model::FieldValidation::Strict {
            m.insert(
                "fieldValidation".into(),
                Value::from(self.field_validation.as_str()),
            );
        }
        if self.secrets != crate::model::SecretsMode::Keep {
            m.insert("secrets".into(), Value::from(self.secrets.as_str()));
        }
        if !self.sops_age.is_empty() {
            let mut s = json!({ "ageRecipients": self.sops_age });
            if let Some(f) = &self.sops_flux_secret {
                s["fluxSecret"] = Value::from(f.as_str());
            }
            m.insert("sops".into(), s);
        }
        if !self.runtime_extensions.is_empty() {
            let mut r = json!({ "extensions": self.runtime_extensions });
            if let Some(ca) = &self.runtime_extension_ca {
                r["ca"] = rel(ca);
            }
            if self.allow_remote_extensions {
                r["allowRemote"] = Value::Bool(true);
            }
            m.insert("runtimeExtensions".into(), r);
        }
        if let Some((source, path)) = &self.flux {
            let mut f = json!({"source": source, "path": path});
            let x = &self.flux_extras;
            if !x.depends_on.is_empty() {
                f["dependsOn"] = json!(x.depends_on);
            }
            for (k, v) in [("interval", &x.interval), ("timeout", &x.timeout)] {
                if let Some(v) = v {
                    f[k] = Value::from(v.as_str());
                }
            }
            m.insert("flux".into(), f);
        }
        if let Some((a, path)) = &self.argocd {
            m.insert(
                "argocd".into(),
                json!({"repoURL": a.repo_url, "revision": a.revision, "project": a.project,
                       "namespace": a.namespace, "path": path}),
            );
        }
        Value::Object(m)
    }

    /// The recorded command with its paths relative to OUT (as the lock holds them).
    fn from_value(v: &Value) -> std::result::Result<RenderCommand, String> {
        let m = v.as_object().ok_or("not a mapping")?;
        let text = |k: &str| -> std::result::Result<Option<String>, String> {
            match m.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(format!("{k}: not a string")),
            }
        };
        let flag = |k: &str| -> std::result::Result<bool, String> {
            match m.get(k) {
                None | Some(Value::Null) => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(_) => Err(format!("{k}: not a boolean")),
            }
        };
        for k in m.keys() {
            if ![
                "files",
                "config",
                "repository",
                "ociLayout",
                "noNamespaces",
                "allowEmpty",
                "certManager",
                "clusters",
                "capiVersion",
                "flux",
                "argocd",
                "secrets",
                "sops",
                "runtimeExtensions",
            ]
            .contains(&k.as_str())
            {
                return Err(format!("{k}: unknown field"));
            }
        }
        let files = m
            .get("files")
            .and_then(Value::as_array)
            .ok_or("files: missing or not a list")?
            .iter()
            .map(|f| {
                f.as_str()
                    .map(str::to_string)
                    .ok_or("files: an item is not a string")
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        if files.is_empty() {
            return Err("files: empty".into());
        }
        let mut flux_extras = super::flux::Extras::default();
        let flux = match m.get("flux") {
            None | Some(Value::Null) => None,
            Some(f) => {
                let s = |k: &str| f.get(k).and_then(Value::as_str).map(str::to_string);
                flux_extras = flux_extras_of(f)?;
                Some((
                    s("source").ok_or("flux.source: missing or not a string")?,
                    s("path").ok_or("flux.path: missing or not a string")?,
                ))
            }
        };
        Ok(RenderCommand {
            files,
            config: text("config")?,
            repository: text("repository")?,
            oci_layout: text("ociLayout")?,
            no_namespaces: flag("noNamespaces")?,
            allow_empty: flag("allowEmpty")?,
            cert_manager: flag("certManager")?,
            clusters: match text("clusters")? {
                None => crate::model::ClusterMode::Managed,
                Some(c) => match crate::model::ClusterMode::parse(&c) {
                    Some(crate::model::ClusterMode::Desired) | None => {
                        return Err(format!("clusters: {c:?} is not managed or flatten"))
                    }
                    Some(mode) => mode,
                },
            },
            capi_version: text("capiVersion")?,
            field_validation: match text("fieldValidation")? {
                None => crate::model::FieldValidation::Strict,
                Some(f) => crate::model::FieldValidation::parse(&f)
                    .ok_or_else(|| format!("fieldValidation: {f:?} is not strict or warn"))?,
            },
            flux,
            flux_extras,
            secrets: match text("secrets")?.as_deref() {
                None => crate::model::SecretsMode::Keep,
                Some("flux-substitute") => crate::model::SecretsMode::FluxSubstitute,
                Some("sops") => crate::model::SecretsMode::Sops,
                Some(other) => {
                    return Err(format!("secrets: {other:?} is not flux-substitute or sops"))
                }
            },
            sops_age: sops_of(m.get("sops"), "ageRecipients")?
                .map(|v| {
                    v.as_array()
                        .ok_or("sops.ageRecipients: not a list")?
                        .iter()
                        .map(|r| {
                            r.as_str()
                                .map(str::to_string)
                                .ok_or("sops.ageRecipients: an item is not a string")
                        })
                        .collect::<std::result::Result<Vec<_>, _>>()
                })
                .transpose()?
                .unwrap_or_default(),
            sops_flux_secret: sops_of(m.get("sops"), "fluxSecret")?
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or("sops.fluxSecret: not a string")
                })
                .transpose()?,
            argocd: match m.get("argocd") {
                None | Some(Value::Null) => None,
                Some(a) => Some(argocd_of(a)?),
            },
            runtime_extensions: match runtime_of(m.get("runtimeExtensions"))? {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|e| {
                        e.as_str()
                            .map(str::to_string)
                            .ok_or("runtimeExtensions.extensions: an item is not a string")
                    })
                    .collect::<std::result::Result<_, _>>()?,
                Some(_) => return Err("runtimeExtensions.extensions: not a list".into()),
            },
            runtime_extension_ca: match m.get("runtimeExtensions").and_then(|r| r.get("ca")) {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => return Err("runtimeExtensions.ca: not a string".into()),
            },
            allow_remote_extensions: m
                .get("runtimeExtensions")
                .and_then(|r| r.get("allowRemote"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }
}

/// The recorded `runtimeExtensions:` mapping's `extensions` (none without one); another
/// key there is an error.
fn runtime_of(r: Option<&Value>) -> std::result::Result<Option<&Value>, String> {
    let Some(r) = r.filter(|r| !r.is_null()) else {
        return Ok(None);
    };
    let m = r.as_object().ok_or("runtimeExtensions: not a mapping")?;
    if let Some(u) = m
        .keys()
        .find(|k| !["extensions", "ca", "allowRemote"].contains(&k.as_str()))
    {
        return Err(format!("runtimeExtensions.{u}: unknown field"));
    }
    Ok(m.get("extensions"))
}

/// A field of the recorded `sops:` mapping (none without one).
fn sops_of<'a>(s: Option<&'a Value>, k: &str) -> std::result::Result<Option<&'a Value>, String> {
    match s {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => {
            if let Some(u) = m
                .keys()
                .find(|u| *u != "ageRecipients" && *u != "fluxSecret")
            {
                return Err(format!("sops.{u}: unknown field"));
            }
            Ok(m.get(k))
        }
        Some(_) => Err("sops: not a mapping".into()),
    }
}

/// The recorded `argocd:` settings and path.
fn argocd_of(a: &Value) -> std::result::Result<(super::argocd::Settings, String), String> {
    let s = |k: &str| {
        a.get(k)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or(format!("argocd.{k}: missing or not a string"))
    };
    let settings = super::argocd::Settings {
        repo_url: s("repoURL")?,
        revision: s("revision")?,
        project: s("project")?,
        namespace: s("namespace")?,
    };
    settings
        .validate()
        .map_err(|e| format!("argocd: {}", e.message()))?;
    Ok((settings, s("path")?))
}

/// The recorded `flux:` options beyond source and path (absent in older locks).
fn flux_extras_of(f: &Value) -> std::result::Result<super::flux::Extras, String> {
    let text = |k: &str| match f.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("flux.{k}: not a string")),
    };
    let depends_on = match f.get("dependsOn") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|d| d.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or("flux.dependsOn: an item is not a string")?,
        Some(_) => return Err("flux.dependsOn: not a list".into()),
    };
    let x = super::flux::Extras {
        depends_on,
        interval: text("interval")?,
        timeout: text("timeout")?,
    };
    x.validate().map_err(|e| format!("flux: {}", e.message()))?;
    Ok(x)
}

/// The `command:` a lock records, looked for only before its `outputs:` (the writer
/// puts it first); `None` when there is none or it does not read back (a run that
/// rewrites the lock replaces it).
pub fn in_head(text: &str) -> Option<RenderCommand> {
    let end = memchr::memmem::find(text.as_bytes(), b"\noutputs:").unwrap_or(text.len());
    read_command(text.get(..end)?, "").ok().flatten()
}

/// The `command:` a lock records (paths relative to the lock's directory), `None` when
/// it records none (a tree written by a library caller or an older capi-render).
pub fn read_command(text: &str, shown: &str) -> Result<Option<RenderCommand>> {
    let mut lines = text.lines().skip_while(|l| *l != "command:");
    let Some(first) = lines.next() else {
        return Ok(None);
    };
    let mut block = format!("{first}\n");
    for l in lines.take_while(|l| l.starts_with(' ')) {
        block.push_str(l);
        block.push('\n');
    }
    let v = crate::yaml::parse_value(&block)
        .map_err(|e| Error::new(format!("{shown}: command: {e}")).in_file(shown))?;
    RenderCommand::from_value(&v["command"])
        .map(Some)
        .map_err(|e| {
            Error::new(format!(
                "{shown}: command.{e}; fix it or render once with -f ... -o"
            ))
            .in_file(shown)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_head_reads_the_command_before_the_outputs_only() {
        let lock = "# c\ncommand:\n  certManager: true\n  files:\n  - ../p.yaml\ninputs: []\nlockVersion: 1\noutputs: []\n";
        let c = in_head(lock).unwrap();
        assert!(c.cert_manager && c.files == ["../p.yaml"]);
        assert_eq!(
            in_head("lockVersion: 1\noutputs:\ncommand:\n  files:\n  - a\n"),
            None
        );
        // One that does not read back is none: the run rewrites it.
        assert_eq!(in_head("command:\n  files: 3\noutputs: []\n"), None);
    }
}
