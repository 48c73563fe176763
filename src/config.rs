//! clusterctl configuration: the config file, variable lookup, image overrides
//! (R1.3, R2.1–R2.3) and our `--repository` shortcut.
//!
//! Everything is an explicit input: the environment is passed in as a map (the
//! CLI snapshots the process environment), and the config file is read only when
//! named. clusterctl's implicit `$XDG_CONFIG_HOME`/`$HOME` config discovery and its
//! implicit overrides folder are not used: capi-render never reads undeclared files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::provider::{
    builtin_providers, dns1123_subdomain_errors, manifest_label, Provider, ProviderType,
};

/// An image override entry (`images:` in the config file).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageMeta {
    pub repository: String,
    /// `name` (clusterctl v1.11 and later): the image's name replaced; clusterctl v1.10
    /// has no such field ([`Config::set_clusterctl`] drops it).
    pub name: String,
    pub tag: String,
}

pub use crate::model::clusterctl::Clusterctl;
pub use crate::model::k8s::K8s;

/// The clusterctl configuration as capi-render sees it.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Path of the config file, if any (relative provider URLs resolve against its directory).
    pub file: Option<PathBuf>,
    /// Top-level keys of the config file, lower-cased as viper does, values stringified.
    values: BTreeMap<String, Option<String>>,
    /// The environment (a snapshot; tests pass their own).
    env: BTreeMap<String, String>,
    /// Values set by the program with top precedence (`generate cluster` common variables).
    overrides: BTreeMap<String, String>,
    /// User `providers:` entries, in file order.
    user_providers: Vec<Provider>,
    /// `images:` entries keyed by lower-cased component key.
    pub images: Option<BTreeMap<String, ImageMeta>>,
    /// `--repository DIR`: every provider without a config entry resolves under DIR.
    pub repository: Option<PathBuf>,
    /// The `cert-manager:` section.
    cert_manager: CertManagerSettings,
    /// The clusterctl release followed (`--clusterctl-version`; [`Config::set_clusterctl`]).
    pub clusterctl: Clusterctl,
    /// The k8s.io release of the typed round trips when it is not `clusterctl`'s
    /// ([`Config::k8s`]): cluster-api-operator v0.29.0's clusterctl library is built on
    /// v0.35.8 (`operator::release`).
    pub k8s_override: Option<K8s>,
    /// `images:` as the file has them, with every field any release reads.
    images_as_written: Option<BTreeMap<String, ImageMeta>>,
}

/// clusterctl's `cert-manager:` config section (`configCertManager`); the URL with
/// environment variables expanded, as clusterctl does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CertManagerSettings {
    pub url: Option<String>,
    /// The URL as the file writes it (before expansion), for messages.
    pub url_as_written: Option<String>,
    pub version: Option<String>,
    pub timeout: Option<String>,
    /// `externallyProvisioned` (clusterctl v1.11 and later), as written.
    pub externally_provisioned: Option<String>,
}

/// viper's `cast.ToString` on a YAML value.
fn stringify(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        // Integers print as such; floats as strconv.FormatFloat(f, 'f', -1, 64), which
        // is what Rust's Display gives (shortest digits, never an exponent).
        Value::Number(n) => Some(match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, f) => format!("{}", f.unwrap_or(0.0)),
        }),
        // viper returns "" for maps and lists asked as strings; the variable is still set.
        Value::Array(_) | Value::Object(_) => Some(String::new()),
    }
}

fn parse_config_yaml(text: &str, file: &Path) -> Result<Value> {
    let mut o = serde_saphyr::Options::default();
    // viper reads YAML with yaml.v3: YAML 1.2 booleans only.
    o.strict_booleans = true;
    o.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::LastWins;
    let v: Option<Value> = serde_saphyr::from_str_with_options(text, o).map_err(|e| {
        Error::new(format!(
            "failed to read clusterctl config file {}: {}",
            file.display(),
            e.to_string().lines().next().unwrap_or("")
        ))
    })?;
    match v {
        None => Ok(Value::Object(Default::default())),
        Some(Value::Object(m)) => Ok(Value::Object(m)),
        Some(_) => Err(Error::new(format!(
            "failed to read clusterctl config file {}: the top level must be a mapping",
            file.display()
        ))),
    }
}

fn field<'a>(m: &'a Value, key: &str) -> Option<&'a Value> {
    m.as_object()?
        .iter()
        .find(|(k, _)| k.to_lowercase() == key)
        .map(|(_, v)| v)
}

fn str_field(m: &Value, key: &str) -> String {
    field(m, key).and_then(stringify).unwrap_or_default()
}

impl Config {
    /// The k8s.io release whose Go types the typed round trips go through.
    pub fn k8s(&self) -> K8s {
        self.k8s_override
            .unwrap_or_else(|| K8s::for_clusterctl(self.clusterctl))
    }

    /// Follow clusterctl release `c`: its image override fields (v1.10 knows
    /// `repository` and `tag` only, v1.14 `name` too).
    pub fn set_clusterctl(&mut self, c: Clusterctl) {
        self.clusterctl = c;
        let keep_names = c == Clusterctl::V1_14;
        if let (Some(imgs), Some(all)) = (self.images.as_mut(), self.images_as_written.as_ref()) {
            for (k, m) in imgs.iter_mut() {
                m.name = if keep_names {
                    all.get(k).map(|a| a.name.clone()).unwrap_or_default()
                } else {
                    String::new()
                };
            }
        }
    }

    /// `images:` as the file has them, with every field any release reads.
    pub fn images_as_written(&self) -> Option<&BTreeMap<String, ImageMeta>> {
        self.images_as_written.as_ref()
    }

    /// A config with no file.
    pub fn new(env: BTreeMap<String, String>) -> Config {
        Config {
            env,
            ..Default::default()
        }
    }

    /// Load the config file at `path` (R2.1).
    pub fn load(path: &Path, env: BTreeMap<String, String>) -> Result<Config> {
        let given = path;
        let path = &std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        // clusterctl's own words: viper's reader first stats the file.
        let text = crate::limits::read_text(path, &path.display().to_string(), |e| {
            Error::new(format!(
                "failed to initialize the configuration reader: failed to check if clusterctl \
                 config file exists: {}",
                crate::go::errors::go_os_error("stat", given, &e)
            ))
        })?;
        Self::from_text(&text, path, env)
    }

    /// Parse config text that came from `path`.
    pub fn from_text(text: &str, path: &Path, env: BTreeMap<String, String>) -> Result<Config> {
        let root = parse_config_yaml(text, path)?;
        let mut cfg = Config {
            file: Some(path.to_path_buf()),
            env,
            ..Default::default()
        };
        if let Some(m) = root.as_object() {
            for (k, v) in m {
                cfg.values.insert(k.to_lowercase(), stringify(v));
            }
        }
        if let Some(list) = field(&root, "providers") {
            let items = list.as_array().ok_or_else(|| {
                Error::new(format!(
                    "{}: providers: must be a list of {{name, url, type}}",
                    path.display()
                ))
            })?;
            for (i, it) in items.iter().enumerate() {
                if !it.is_object() {
                    return Err(Error::new(format!(
                        "{}: providers[{i}]: must be a mapping",
                        path.display()
                    )));
                }
                cfg.user_providers.push(cfg.validate_user_provider(
                    &str_field(it, "name"),
                    &str_field(it, "type"),
                    &str_field(it, "url"),
                )?);
            }
        }
        if let Some(cm) = field(&root, "cert-manager") {
            if !cm.is_object() && !cm.is_null() {
                return Err(Error::new(format!(
                    "{}: cert-manager: must be a mapping of url, version and timeout",
                    path.display()
                ))
                .wrap("failed to unmarshal certManager from the clusterctl configuration file"));
            }
            let s = |k: &str| Some(str_field(cm, k)).filter(|v| !v.is_empty());
            let url_as_written = s("url");
            let url = url_as_written.clone().map(|u| {
                crate::envsubst::parse(&u)
                    .map(|t| t.execute(&|k: &str| cfg.env.get(k).cloned()))
                    .unwrap_or(u)
            });
            cfg.cert_manager = CertManagerSettings {
                url,
                url_as_written,
                version: s("version"),
                timeout: s("timeout"),
                externally_provisioned: s("externallyprovisioned"),
            };
        }
        if let Some(imgs) = field(&root, "images") {
            let m = imgs.as_object().ok_or_else(|| {
                Error::new(format!("{}: images: must be a mapping", path.display()))
            })?;
            let mut out = BTreeMap::new();
            for (k, v) in m {
                out.insert(
                    k.to_lowercase(),
                    ImageMeta {
                        repository: str_field(v, "repository"),
                        name: str_field(v, "name"),
                        tag: str_field(v, "tag"),
                    },
                );
            }
            cfg.images_as_written = Some(out.clone());
            cfg.images = Some(out);
        }
        cfg.set_clusterctl(cfg.clusterctl);
        Ok(cfg)
    }

    /// R1.3 validation of one `providers:` entry. The URL is expanded against the
    /// environment first; a relative path is resolved against the config file's
    /// directory (our extension: clusterctl requires absolute paths).
    fn validate_user_provider(&self, name: &str, ptype: &str, url: &str) -> Result<Provider> {
        let url = crate::envsubst::parse(url)
            .map(|t| t.execute(&|k: &str| self.env.get(k).cloned()))
            .map_err(|e| Error::new(format!("unable to evaluate url: \"{url}\": {e}")))?;
        let wrap = |msg: String| {
            Error::new(format!(
                "error validating configuration for the {ptype} with name {name}. Please fix the providers value in clusterctl configuration file: {msg}"
            ))
        };
        if name.is_empty() {
            return Err(wrap("name value cannot be empty".into()));
        }
        if name.to_lowercase() != name {
            return Err(wrap(format!("provider name {name} must be in lower case")));
        }
        if (name == "cluster-api") != (ptype == "CoreProvider") {
            return Err(wrap(format!(
                "name cluster-api must be used with the CoreProvider type (name: {name}, type: {ptype})"
            )));
        }
        let errs = dns1123_subdomain_errors(name);
        if !errs.is_empty() {
            return Err(wrap(format!("invalid provider name: {}", errs.join("; "))));
        }
        if url.is_empty() {
            return Err(wrap("provider URL value cannot be empty".into()));
        }
        let t = ProviderType::parse(ptype).ok_or_else(|| {
            wrap("invalid provider type. Allowed values are [CoreProvider, BootstrapProvider, InfrastructureProvider, ControlPlaneProvider, IPAMProvider, RuntimeExtensionProvider, AddonProvider]".into())
        })?;
        Ok(Provider {
            name: name.to_string(),
            ptype: t,
            url: self.resolve_relative(&url),
        })
    }

    fn resolve_relative(&self, url: &str) -> String {
        if url.contains("://") || url.starts_with('/') {
            return url.to_string();
        }
        match self.file.as_ref().and_then(|f| f.parent()) {
            Some(dir) => dir.join(url).to_string_lossy().into_owned(),
            None => url.to_string(),
        }
    }

    /// Set a variable with top precedence (R2.2 step 1).
    pub fn set(&mut self, key: &str, value: &str) {
        self.overrides.insert(key.to_lowercase(), value.to_string());
    }

    /// R2.2: programmatic values, then the environment (key upper-cased, `-` → `_`;
    /// empty values count as set), then the config file. Case-insensitive.
    pub fn get(&self, key: &str) -> Option<String> {
        let lk = key.to_lowercase();
        if let Some(v) = self.overrides.get(&lk) {
            return Some(v.clone());
        }
        let ek = key.to_uppercase().replace('-', "_");
        if let Some(v) = self.env.get(&ek) {
            return Some(v.clone());
        }
        self.values.get(&lk).cloned().flatten()
    }

    /// The OS environment value of a variable (used where clusterctl reads env only).
    pub fn env_var(&self, key: &str) -> Option<&String> {
        self.env.get(key)
    }

    /// The provider list: built-ins, replaced/extended by user entries, then sorted (R1.3).
    /// With `--repository DIR`, every provider that has no user entry resolves to
    /// `DIR/<manifest-label>/latest/<type's components file>`.
    pub fn providers(&self) -> Vec<Provider> {
        let mut list = builtin_providers(self.clusterctl);
        if let Some(dir) = &self.repository {
            for p in list.iter_mut() {
                p.url = repo_url(dir, &p.name, p.ptype);
            }
        }
        for u in &self.user_providers {
            match list.iter_mut().find(|p| p.same_as(u)) {
                Some(p) => *p = u.clone(),
                None => list.push(u.clone()),
            }
        }
        list.sort_by(|a, b| a.cmp_order(b));
        list
    }

    /// R1.3 `Get(name, type)`. With `--repository`, an unknown provider resolves there too.
    pub fn provider(&self, name: &str, t: ProviderType) -> Result<Provider> {
        if let Some(p) = self
            .providers()
            .into_iter()
            .find(|p| p.name == name && p.ptype == t)
        {
            return Ok(p);
        }
        if let Some(dir) = &self.repository {
            return Ok(Provider {
                name: name.to_string(),
                ptype: t,
                url: repo_url(dir, name, t),
            });
        }
        let known: Vec<String> = self
            .providers()
            .into_iter()
            .filter(|p| p.ptype == t)
            .map(|p| p.name)
            .collect();
        Err(Error::new(format!(
            "failed to get configuration for the {t} with name {name}. Please check the provider name and/or add configuration for new providers using the .clusterctl config file"
        ))
        .with_hint(crate::suggest::did_you_mean(
            name,
            &format!("{t}s known"),
            &known,
        )))
    }

    /// `cert-manager.externallyProvisioned` as clusterctl v1.14 reads it when it reads
    /// the section (`strconv.ParseBool`); v1.10 has no such field. It changes nothing
    /// offline: `init list-images` lists cert-manager's images either way, as v1.14 does.
    pub fn cert_manager_externally_provisioned(&self) -> Result<bool> {
        let Some(v) = self.cert_manager.externally_provisioned.as_deref() else {
            return Ok(false);
        };
        if self.clusterctl == Clusterctl::V1_10 {
            return Ok(false);
        }
        match v {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(true),
            "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(false),
            _ => Err(Error::new(format!(
                "strconv.ParseBool: parsing {}: invalid syntax",
                crate::go::quote::quote(v)
            ))
            .with_hint(format!(
                "set cert-manager.externallyProvisioned in {} to true or false",
                self.file
                    .as_deref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "the clusterctl config".into())
            ))),
        }
    }

    /// The `cert-manager:` section (empty when the file has none).
    pub fn cert_manager(&self) -> &CertManagerSettings {
        &self.cert_manager
    }

    /// `render --from-lock` and `krm` (SECURITY.md): every local path this config names
    /// — each `providers:` URL, a local `cert-manager.url` and `overridesFolder` — must
    /// lie, normalised lexically, inside `root` (the repository holding OUT, the
    /// kustomization's directory). Checked before anything is read; the error names the
    /// file and the field.
    pub fn check_local_paths_inside(&self, root: &Path) -> Result<()> {
        let file = self
            .file
            .as_ref()
            .map(|f| f.display().to_string())
            .unwrap_or_else(|| "the clusterctl config".to_string());
        // `value` as the config gives it (after resolution), `path` the file path it reads.
        let refuse = |field: String, value: &str, path: &str| -> Result<()> {
            if crate::paths::lexically_inside(path, root) {
                return Ok(());
            }
            Err(Error::new(format!(
                "{file}: {field} {value:?} leads outside {}; a config that the lock (render --from-lock) or a KRM functionConfig names may only name paths inside it",
                root.display()
            ))
            .in_file(&file)
            .with_hint(format!(
                "point it at a folder inside {} (a relative provider URL is relative to the config's folder), or run the render with flags you trust: `capi-render render -f ... --config {file} -o OUT`",
                root.display()
            )))
        };
        for (i, p) in self.user_providers.iter().enumerate() {
            if let Some(path) = local_path_of(&p.url) {
                let field = format!("providers[{i}].url (the {} {})", p.ptype, p.name);
                refuse(field, &p.url, path)?;
            }
        }
        if let Some(url) = &self.cert_manager.url {
            if url.starts_with('/') || url.starts_with("file://") {
                if let Some(path) = local_path_of(url) {
                    refuse("cert-manager.url".to_string(), url, path)?;
                }
            }
        }
        if let Some(dir) = self.overrides_folder() {
            let dir = dir.to_string_lossy();
            refuse("overridesFolder".to_string(), &dir, &dir)?;
        }
        Ok(())
    }

    /// The `overridesFolder` variable, if set and non-blank.
    pub fn overrides_folder(&self) -> Option<PathBuf> {
        let v = self.get("overridesFolder")?;
        if v.trim().is_empty() {
            return None;
        }
        let v = crate::envsubst::parse(&v)
            .map(|t| t.execute(&|k: &str| self.env.get(k).cloned()))
            .unwrap_or(v);
        Some(PathBuf::from(v))
    }
}

/// The file path a provider URL reads (as `repository::local_path` finds it: `file://`
/// stripped, its host ignored); `None` for a URL of another scheme (never read: remote
/// releases and unknown schemes are errors).
fn local_path_of(url: &str) -> Option<&str> {
    if let Some(rest) = url.strip_prefix("file://") {
        return Some(rest.find('/').map_or("", |i| &rest[i..]));
    }
    (!url.contains("://")).then_some(url)
}

fn repo_url(dir: &Path, name: &str, t: ProviderType) -> String {
    dir.join(manifest_label(name, t))
        .join("latest")
        .join(t.default_components_file())
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn lookup_precedence_and_case() {
        let mut c = Config::from_text(
            "FOO: fromfile\nbar: 3\nflag: yes\nEMPTY: x\n",
            Path::new("/cfg/clusterctl.yaml"),
            env(&[("FOO", "fromenv"), ("EMPTY", ""), ("A_B", "dash")]),
        )
        .unwrap();
        assert_eq!(c.get("foo").as_deref(), Some("fromenv"));
        assert_eq!(c.get("BAR").as_deref(), Some("3"));
        assert_eq!(c.get("flag").as_deref(), Some("yes"));
        assert_eq!(c.get("EMPTY").as_deref(), Some(""));
        assert_eq!(c.get("a-b").as_deref(), Some("dash"));
        assert_eq!(c.get("missing"), None);
        c.set("FOO", "set");
        assert_eq!(c.get("FOO").as_deref(), Some("set"));
    }

    #[test]
    fn user_providers_replace_builtins_and_resolve_relative_urls() {
        let c = Config::from_text(
            "providers:\n- name: docker\n  type: InfrastructureProvider\n  url: repo/infrastructure-docker/latest/infrastructure-components.yaml\n- name: mine\n  type: AddonProvider\n  url: file:///r/addon-mine/v1.0.0/addon-components.yaml\n",
            Path::new("/cfg/clusterctl.yaml"),
            BTreeMap::new(),
        )
        .unwrap();
        let d = c.provider("docker", ProviderType::Infrastructure).unwrap();
        assert_eq!(
            d.url,
            "/cfg/repo/infrastructure-docker/latest/infrastructure-components.yaml"
        );
        assert!(c.provider("mine", ProviderType::Addon).is_ok());
        let e = c.provider("nope", ProviderType::Addon).unwrap_err();
        assert!(e
            .message()
            .starts_with("failed to get configuration for the AddonProvider with name nope."));
    }

    #[test]
    fn user_provider_validation_messages() {
        let bad = |y: &str| {
            Config::from_text(y, Path::new("/c.yaml"), BTreeMap::new())
                .unwrap_err()
                .to_string()
        };
        assert!(
            bad("providers:\n- name: Foo\n  type: AddonProvider\n  url: /x\n")
                .ends_with("provider name Foo must be in lower case")
        );
        assert!(bad("providers:\n- name: cluster-api\n  type: AddonProvider\n  url: /x\n")
            .ends_with("name cluster-api must be used with the CoreProvider type (name: cluster-api, type: AddonProvider)"));
        assert!(bad("providers:\n- name: x\n  type: Bogus\n  url: /x\n")
            .contains("invalid provider type"));
        assert!(bad("providers:\n- name: x\n  type: AddonProvider\n")
            .ends_with("provider URL value cannot be empty"));
    }

    #[test]
    fn config_numbers_stringify_as_viper_does() {
        let c = Config::from_text(
            "A: 3\nB: 3.0\nC: 1.5\nD: 1e21\nE: 0.0000001\n",
            Path::new("/c.yaml"),
            BTreeMap::new(),
        )
        .unwrap();
        let got: Vec<String> = ["A", "B", "C", "D", "E"]
            .iter()
            .map(|k| c.get(k).unwrap())
            .collect();
        assert_eq!(
            got,
            ["3", "3", "1.5", "1000000000000000000000", "0.0000001"]
        );
    }

    #[test]
    fn local_paths_must_stay_inside_a_root() {
        let cfg =
            |y: &str| Config::from_text(y, Path::new("/r/cfg/c.yaml"), BTreeMap::new()).unwrap();
        let root = Path::new("/r");
        let ok = cfg("providers:\n- {name: cluster-api, type: CoreProvider, url: ../repo/cluster-api/v1.0.0/core-components.yaml}\n- {name: x, type: AddonProvider, url: https://github.com/o/x/releases/v1.0.0/addon-components.yaml}\ncert-manager:\n  url: file:///r/repo/cert-manager/v1.0.0/cert-manager.yaml\noverridesFolder: /r/overrides\n");
        assert!(ok.check_local_paths_inside(root).is_ok());
        for (y, field) in [
            ("providers:\n- {name: cluster-api, type: CoreProvider, url: ../../etc/cluster-api/v1.0.0/core-components.yaml}\n", "providers[0].url"),
            ("providers:\n- {name: cluster-api, type: CoreProvider, url: /etc/cluster-api/v1.0.0/core-components.yaml}\n", "providers[0].url"),
            ("providers:\n- {name: cluster-api, type: CoreProvider, url: file:///etc/cluster-api/v1.0.0/core-components.yaml}\n", "providers[0].url"),
            ("cert-manager:\n  url: file:///r/../etc/cert-manager/v1.0.0/cert-manager.yaml\n", "cert-manager.url"),
            ("overridesFolder: /tmp/o\n", "overridesFolder"),
        ] {
            let e = cfg(y).check_local_paths_inside(root).unwrap_err();
            assert!(e.message().starts_with(&format!("/r/cfg/c.yaml: {field}")), "{e}");
        }
    }

    #[test]
    fn images_are_read() {
        let c = Config::from_text(
            "images:\n  all:\n    repository: myreg.io/mirror\n  cluster-api:\n    tag: v9\n",
            Path::new("/c.yaml"),
            BTreeMap::new(),
        )
        .unwrap();
        let i = c.images.unwrap();
        assert_eq!(i["all"].repository, "myreg.io/mirror");
        assert_eq!(i["cluster-api"].tag, "v9");
    }
}
