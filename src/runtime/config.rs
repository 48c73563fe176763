//! ExtensionConfigs among the inputs (`runtime.cluster.x-k8s.io/v1alpha1` and
//! `v1beta2`), and where capi-render reaches each: the `--runtime-extension NAME=URL`
//! given for it on the command line, and nowhere else. An ExtensionConfig's own
//! `spec.clientConfig` (a URL or an in-cluster Service) is never connected to: the inputs
//! do not choose where capi-render connects. A URL must be http, or https with the CA
//! the caller trusts, on a loopback address unless remote extensions are allowed
//! ([`UrlPolicy`]: `--allow-remote-extensions` on the command line, never a lock or an
//! input).

use std::collections::BTreeMap;
use std::net::IpAddr;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::object;

/// The ExtensionConfig API versions read.
pub const API_VERSIONS: &[&str] = &[
    "runtime.cluster.x-k8s.io/v1alpha1",
    "runtime.cluster.x-k8s.io/v1beta2",
];

/// One extension as capi-render calls it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtensionConfig {
    /// `metadata.name`: the suffix of its handlers' names.
    pub name: String,
    /// Where it was read (`file`, document), for errors.
    pub source: String,
    /// The base URL calls go to (scheme, host, port, path prefix).
    pub url: String,
    /// `spec.settings`, passed to every handler under the request's own.
    pub settings: BTreeMap<String, String>,
    /// `spec.namespaceSelector`, when set and not empty.
    pub namespace_selector: Option<Value>,
}

/// Whether an object is an ExtensionConfig.
pub fn is_extension_config(o: &Value) -> bool {
    object::kind(o) == "ExtensionConfig" && API_VERSIONS.contains(&object::api_version(o))
}

/// An ExtensionConfig among the inputs that no `--runtime-extension` names: it is not
/// called, and a class that needs it is told which flag to pass.
#[derive(Debug, Clone, PartialEq)]
pub struct Unnamed {
    pub name: String,
    /// Where it was read (`file`, document), for errors.
    pub source: String,
}

/// Where capi-render may connect: a loopback address (127.0.0.0/8, ::1, `localhost`)
/// only, unless `allow_remote` (`--allow-remote-extensions` on the command line). The
/// configs are checked against it, and the transport checks it again for every URL it
/// connects to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UrlPolicy {
    pub allow_remote: bool,
}

impl UrlPolicy {
    /// [`check_url`] under this policy.
    pub fn check(&self, url: &str) -> Result<()> {
        check_url(url, self.allow_remote)
    }
}

/// The ExtensionConfigs among `objects` (each with where it was read), in name order:
/// those `urls` (`--runtime-extension NAME=URL`) name, each at its URL, checked against
/// `policy`; and the others, which are not called.
pub fn extension_configs<'a>(
    objects: impl IntoIterator<Item = (String, &'a Value)>,
    urls: &BTreeMap<String, String>,
    policy: UrlPolicy,
) -> Result<(Vec<ExtensionConfig>, Vec<Unnamed>)> {
    let objects: Vec<(String, &Value)> = objects
        .into_iter()
        .filter(|(_, o)| is_extension_config(o))
        .collect();
    // A flag naming no ExtensionConfig first: it is likely the typo behind any other error.
    if let Some(missing) = urls
        .keys()
        .find(|n| !objects.iter().any(|(_, o)| object::name(o) == n.as_str()))
    {
        let mut known: Vec<&str> = objects.iter().map(|(_, o)| object::name(o)).collect();
        known.sort_unstable();
        return Err(Error::new(format!(
            "--runtime-extension {missing}=...: no ExtensionConfig {missing:?} among the inputs"
        ))
        .with_hint(if known.is_empty() {
            "add the ExtensionConfig (runtime.cluster.x-k8s.io/v1alpha1) to the inputs".to_string()
        } else {
            format!("the inputs define: {}", some_of(&known))
        }));
    }
    let mut out: BTreeMap<String, ExtensionConfig> = BTreeMap::new();
    let mut unnamed: BTreeMap<String, Unnamed> = BTreeMap::new();
    for (source, o) in objects {
        let name = object::name(o).to_string();
        let prev = out
            .get(&name)
            .map(|c| &c.source)
            .or(unnamed.get(&name).map(|u| &u.source));
        if let Some(prev) = prev {
            return Err(Error::new(format!(
                "{source}: ExtensionConfig {} is also defined in {prev}",
                crate::go::untrusted::quote_untrusted(&name)
            ))
            .with_hint("keep one ExtensionConfig of each name among the inputs"));
        }
        let Some(url) = urls.get(&name) else {
            unnamed.insert(name.clone(), Unnamed { name, source });
            continue;
        };
        policy
            .check(url)
            .map_err(|e| e.wrap(format!("{source}: ExtensionConfig {name:?}")))?;
        let settings = string_map_at(o, "/spec/settings");
        let namespace_selector = o
            .pointer("/spec/namespaceSelector")
            .filter(|s| !selector_is_empty(s))
            .cloned();
        out.insert(
            name.clone(),
            ExtensionConfig {
                name,
                source,
                url: url.clone(),
                settings,
                namespace_selector,
            },
        );
    }
    Ok((out.into_values().collect(), unnamed.into_values().collect()))
}

/// At most five names, and how many more there are.
pub fn some_of(names: &[&str]) -> String {
    const SHOWN: usize = 5;
    let shown: Vec<String> = names
        .iter()
        .take(SHOWN)
        .map(|n| crate::go::untrusted::plain_or_quoted(n).into_owned())
        .collect();
    match names.len().saturating_sub(SHOWN) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// The string map at `pointer` (a value that is not a string reads as ""), empty when
/// there is none: an ExtensionConfig's settings, a Namespace's labels.
pub fn string_map_at(o: &Value, pointer: &str) -> BTreeMap<String, String> {
    o.pointer(pointer)
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// `--runtime-extension NAME=URL` split.
pub fn parse_flag(s: &str) -> Result<(String, String)> {
    match s.split_once('=') {
        Some((n, u)) if !n.is_empty() && !u.is_empty() => Ok((n.to_string(), u.to_string())),
        _ => Err(Error::new(format!(
            "--runtime-extension {s:?}: expected NAME=URL, e.g. my-extension=https://127.0.0.1:9443"
        ))),
    }
}

/// The URL's scheme is http or https, and its host a loopback address unless
/// `allow_remote`.
pub fn check_url(url: &str, allow_remote: bool) -> Result<()> {
    let shown = || crate::go::untrusted::quote_untrusted(url);
    let host = host_of(url).ok_or_else(|| {
        Error::new(format!(
            "URL {} is not http://HOST[:PORT][/PATH] or https://HOST[:PORT][/PATH]",
            shown()
        ))
    })?;
    if !allow_remote && !is_loopback(host) {
        return Err(Error::new(format!(
            "URL {} is not a loopback address: capi-render calls extensions on this machine only",
            shown()
        ))
        .with_hint(
            "run the extension locally (127.0.0.1, ::1 or localhost), or pass --allow-remote-extensions to call it where it is",
        ));
    }
    Ok(())
}

/// Whether `url` is http(s) on a loopback address (calls to it never go through a proxy).
pub fn is_loopback_url(url: &str) -> bool {
    host_of(url).is_some_and(is_loopback)
}

/// The host of an http(s) URL (brackets of an IPv6 address removed).
fn host_of(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return None;
    }
    let host = if let Some(v6) = authority.strip_prefix('[') {
        let (h, after) = v6.split_once(']')?;
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(is_port)) {
            return None;
        }
        h
    } else {
        match authority.split_once(':') {
            Some((h, p)) if is_port(p) => h,
            Some(_) => return None,
            None => authority,
        }
    };
    (!host.is_empty()).then_some(host)
}

fn is_port(p: &str) -> bool {
    !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn selector_is_empty(s: &Value) -> bool {
    let empty = |k: &str| match s.get(k) {
        None | Some(Value::Null) => true,
        Some(Value::Object(m)) => m.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        _ => false,
    };
    empty("matchLabels") && empty("matchExpressions")
}

/// `metav1.LabelSelector` against a Namespace's labels: every `matchLabels` pair, and
/// every `matchExpressions` requirement (In, NotIn, Exists, DoesNotExist).
pub fn selector_matches(selector: &Value, labels: &BTreeMap<String, String>) -> bool {
    let pairs_match = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .is_none_or(|m| {
            m.iter()
                .all(|(k, v)| labels.get(k).map(String::as_str) == v.as_str())
        });
    let exprs_match = selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .is_none_or(|a| {
            a.iter().all(|e| {
                let key = e.get("key").and_then(Value::as_str).unwrap_or("");
                let values: Vec<&str> = e
                    .get("values")
                    .and_then(Value::as_array)
                    .map(|v| v.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let have = labels.get(key).map(String::as_str);
                match e.get("operator").and_then(Value::as_str).unwrap_or("") {
                    "In" => have.is_some_and(|h| values.contains(&h)),
                    "NotIn" => have.is_none_or(|h| !values.contains(&h)),
                    "Exists" => have.is_some(),
                    "DoesNotExist" => have.is_none(),
                    _ => false,
                }
            })
        });
    pairs_match && exprs_match
}
