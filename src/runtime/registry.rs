//! Discovery and calls (`internal/runtime/client` of Cluster API v1.14.2): the handlers
//! each extension serves, registered as `<handler>.<extensionconfig>`, and one call of a
//! registered handler with its timeout, settings, namespace selector and failure policy.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::config::{selector_matches, some_of, ExtensionConfig, Unnamed};
use super::{CallError, Hook, Transport, HOOKS_API_VERSION, OTHER_CATALOG_HOOKS};
use crate::error::{Error, Result};
use crate::go::untrusted::{plain_or_quoted, quote_untrusted};

/// `defaultDiscoveryTimeout`, and a handler's timeout when discovery gives none.
pub const DEFAULT_TIMEOUT_SECONDS: i64 = 10;

/// One registered handler.
#[derive(Debug, Clone, PartialEq)]
pub struct Handler {
    /// `<handler>.<extensionconfig>`: how a ClusterClass names it.
    pub name: String,
    /// The handler's own name (the last element of its URL path).
    pub handler: String,
    pub hook: Hook,
    /// 0 to 30; 0 means the default, 10.
    pub timeout_seconds: i64,
    /// `failurePolicy: Ignore`: an unreachable handler answers success.
    pub ignore_failures: bool,
    /// The extension serving it (an index into the registry's configs).
    extension: usize,
}

/// The object a call is made for (the Cluster), for the namespace selector.
#[derive(Debug, Clone, Copy)]
pub struct ForObject<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    /// The labels of the object's Namespace, when it is among the inputs.
    pub namespace_labels: Option<&'a BTreeMap<String, String>>,
}

/// A handler's answer: the response object, and its body as received (empty when the
/// `Ignore` failure policy answered for an unreachable handler), which the render hashes.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub response: Value,
    pub body: Vec<u8>,
}

/// The handlers of every extension, by registered name.
#[derive(Debug, Default)]
pub struct Registry {
    configs: Vec<ExtensionConfig>,
    handlers: BTreeMap<String, Handler>,
    /// The ExtensionConfigs no `--runtime-extension` names: a handler of theirs is an
    /// error that says which flag to pass.
    unnamed: Vec<Unnamed>,
}

impl Registry {
    /// `client.Discover` of every extension, in name order; the first failure is the error.
    pub fn discover(configs: Vec<ExtensionConfig>, t: &dyn Transport) -> Result<Registry> {
        let mut handlers = BTreeMap::new();
        for (i, c) in configs.iter().enumerate() {
            for h in discover_one(c, i, t)? {
                handlers.insert(h.name.clone(), h);
            }
        }
        Ok(Registry {
            configs,
            handlers,
            unnamed: Vec::new(),
        })
    }

    /// The ExtensionConfigs among the inputs that are not called (no flag names them).
    pub fn with_unnamed(mut self, unnamed: Vec<Unnamed>) -> Registry {
        self.unnamed = unnamed;
        self
    }

    /// The registered handlers, by name.
    pub fn handlers(&self) -> impl Iterator<Item = &Handler> {
        self.handlers.values()
    }

    /// The ExtensionConfig serving a handler.
    pub fn extension_of(&self, h: &Handler) -> &ExtensionConfig {
        &self.configs[h.extension]
    }

    /// `client.CallExtension`: `request` (without apiVersion and kind, which are set
    /// here) to the handler registered as `name`, for `hook`.
    pub fn call(
        &self,
        t: &dyn Transport,
        hook: Hook,
        name: &str,
        for_object: ForObject,
        mut request: Map<String, Value>,
    ) -> Result<Reply> {
        let fail = |msg: String| {
            Error::new(format!(
                "failed to call extension handler {}{msg}",
                quote_untrusted(name)
            ))
        };
        let unnamed = name
            .split_once('.')
            .and_then(|(_, ext)| self.unnamed.iter().find(|u| u.name == ext));
        if let (None, Some(u)) = (self.handlers.get(name), unnamed) {
            return Err(fail(format!(
                ": ExtensionConfig {:?} ({}) is not named by --runtime-extension: pass --runtime-extension {}=URL (capi-render calls an extension only at the URL the command line gives)",
                u.name, u.source, u.name
            ))
            .with_hint(format!(
                "run the extension locally and pass --runtime-extension {}=http://127.0.0.1:PORT (https with --runtime-extension-ca FILE); its own spec.clientConfig is never used",
                u.name
            )));
        }
        let h = self.handlers.get(name).ok_or_else(|| {
            let known: Vec<&str> = self
                .handlers
                .values()
                .filter(|h| h.hook == hook)
                .map(|h| h.name.as_str())
                .collect();
            let q = quote_untrusted(name);
            fail(format!(
                ": failed to get extension handler {q} from registry: handler with name {q} has not been registered"
            ))
            .with_hint(if known.is_empty() {
                format!(
                    "no extension among the inputs serves {}: add its ExtensionConfig and point it at the running extension with --runtime-extension NAME=URL",
                    hook.name()
                )
            } else {
                format!("{} handlers registered: {}", hook.name(), some_of(&known))
            })
        })?;
        if h.hook != hook {
            return Err(fail(format!(
                ": handler does not match GroupHook \"hooks.runtime.cluster.x-k8s.io/{}\"",
                hook.name()
            )));
        }
        let ext = &self.configs[h.extension];
        if let Some(sel) = &ext.namespace_selector {
            let labels = for_object.namespace_labels.ok_or_else(|| {
                fail(String::new()).with_hint(format!(
                    "ExtensionConfig {:?} has a namespaceSelector: add the Namespace {:?} (with its labels) to the inputs",
                    ext.name, for_object.namespace
                ))
            })?;
            if !selector_matches(sel, labels) {
                return Err(fail(format!(
                    ": namespaceSelector did not match object {}/{}",
                    for_object.namespace, for_object.name
                )));
            }
        }
        let timeout = if h.timeout_seconds == 0 {
            DEFAULT_TIMEOUT_SECONDS
        } else {
            h.timeout_seconds
        };
        let mut settings: BTreeMap<String, Value> = ext
            .settings
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        if let Some(Value::Object(own)) = request.remove("settings") {
            settings.extend(own);
        }
        request.insert("apiVersion".into(), HOOKS_API_VERSION.into());
        request.insert("kind".into(), format!("{}Request", hook.name()).into());
        if !settings.is_empty() {
            request.insert(
                "settings".into(),
                Value::Object(settings.into_iter().collect()),
            );
        }
        let url = format!("{}{}", ext.url.trim_end_matches('/'), hook.path(&h.handler));
        // Go's encoding (an integral float is written as an integer, as a decoded value is).
        let body = crate::go::json::marshal(&Value::Object(request)).into_bytes();
        let exchanged = t
            .post(&url, &body, Duration::from_secs(timeout as u64))
            .and_then(|b| decode(&b).map(|v| (v, b)));
        let (response, body) = match exchanged {
            Ok(r) => r,
            Err(CallError(e)) if h.ignore_failures => {
                let _ = e;
                return Ok(Reply {
                    response: json!({"apiVersion": HOOKS_API_VERSION,
                        "kind": format!("{}Response", hook.name()), "status": "Success"}),
                    body: Vec::new(),
                });
            }
            Err(CallError(e)) => return Err(fail(format!(": {e}"))),
        };
        check_status(&response, "call extension handler", name)?;
        Ok(Reply { response, body })
    }
}

fn decode(body: &[u8]) -> std::result::Result<Value, CallError> {
    match serde_json::from_slice::<Value>(body) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err(CallError(
            "http call failed: failed to decode response: not a JSON object".into(),
        )),
        Err(e) => Err(CallError(format!(
            "http call failed: failed to decode response: {e}"
        ))),
    }
}

/// `validateResponseStatus`.
fn check_status(response: &Value, operation: &str, target: &str) -> Result<()> {
    let status = response.get("status").and_then(Value::as_str).unwrap_or("");
    let message = response
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("");
    match status {
        "Success" => Ok(()),
        "Failure" => Err(Error::new(format!(
            "failed to {operation} {target:?}: got failure response with message: {}",
            plain_or_quoted(message)
        ))),
        other => Err(Error::new(format!(
            "failed to {operation} {target:?}: got unknown response status {} with message: {}",
            quote_untrusted(other),
            plain_or_quoted(message)
        ))),
    }
}

/// `client.Discover` of one extension: its handlers, defaulted and validated.
fn discover_one(c: &ExtensionConfig, index: usize, t: &dyn Transport) -> Result<Vec<Handler>> {
    let fail =
        |msg: String| Error::new(format!("failed to discover extension {:?}: {msg}", c.name));
    let url = format!(
        "{}{}",
        c.url.trim_end_matches('/'),
        Hook::Discovery.path("")
    );
    let body =
        serde_json::to_vec(&json!({"apiVersion": HOOKS_API_VERSION, "kind": "DiscoveryRequest"}))
            .unwrap_or_default();
    let response = t
        .post(
            &url,
            &body,
            Duration::from_secs(DEFAULT_TIMEOUT_SECONDS as u64),
        )
        .and_then(|b| decode(&b))
        .map_err(|CallError(e)| {
            fail(e).with_hint(format!(
                "start the extension and check that ExtensionConfig {:?} ({}) points at it: {}",
                c.name, c.source, c.url
            ))
        })?;
    check_status(&response, "discover extension", &c.name)?;
    let list: &[Value] = response
        .get("handlers")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let mut errs = Faults::default();
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for h in list {
        let raw_name = h.get("name").and_then(Value::as_str).unwrap_or("");
        let name = plain_or_quoted(raw_name);
        if !seen.insert(raw_name) {
            errs.push(format!("duplicate name for handler {name} found"));
        }
        if let Some(why) = dns1123_label_error(raw_name) {
            errs.push(format!("handler name {name} is not valid: [{why}]"));
        }
        let timeout = h
            .get("timeoutSeconds")
            .and_then(Value::as_i64)
            .unwrap_or(DEFAULT_TIMEOUT_SECONDS);
        if !(0..=30).contains(&timeout) {
            errs.push(format!(
                "handler {name} timeoutSeconds {timeout} must be between 0 and 30"
            ));
        }
        let policy = h
            .get("failurePolicy")
            .and_then(Value::as_str)
            .unwrap_or("Fail");
        if policy != "Fail" && policy != "Ignore" {
            errs.push(format!(
                "handler {name} failurePolicy {} must equal \"Ignore\" or \"Fail\"",
                plain_or_quoted(policy)
            ));
        }
        let api = h
            .pointer("/requestHook/apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let hook_name = h
            .pointer("/requestHook/hook")
            .and_then(Value::as_str)
            .unwrap_or("");
        let hook = Hook::parse(api, hook_name);
        let in_catalog =
            hook.is_some() || api == HOOKS_API_VERSION && OTHER_CATALOG_HOOKS.contains(&hook_name);
        if !in_catalog {
            errs.push(format!(
                "handler {name} requestHook {} is not in the Runtime SDK catalog",
                plain_or_quoted(&format!("{api}/{hook_name}"))
            ));
        }
        if let Some(hook) = hook.filter(|h| *h != Hook::Discovery) {
            out.push(Handler {
                name: format!("{raw_name}.{}", c.name),
                handler: raw_name.to_string(),
                hook,
                timeout_seconds: timeout,
                ignore_failures: policy == "Ignore",
                extension: index,
            });
        }
    }
    if !errs.is_empty() {
        return Err(fail(format!(
            "failed to validate discovery response: {}",
            errs.text()
        )));
    }
    Ok(out)
}

/// A discovery answer's faults: the first [`LISTED_ERRORS`] distinct ones kept, the
/// others counted, so an answer of 150,000 bad handlers gives an error of a few lines.
#[derive(Default)]
struct Faults {
    listed: Vec<String>,
    more: usize,
}

impl Faults {
    fn push(&mut self, fault: String) {
        if self.listed.contains(&fault) {
        } else if self.listed.len() < LISTED_ERRORS {
            self.listed.push(fault);
        } else {
            self.more += 1;
        }
    }

    fn is_empty(&self) -> bool {
        self.listed.is_empty()
    }

    /// As Cluster API's aggregate (`[a, b]`), and how many more there are.
    fn text(self) -> String {
        let shown = crate::go::errors::aggregate(self.listed);
        match self.more {
            0 => shown,
            n => format!("{shown} (and {n} more)"),
        }
    }
}

/// At most this many of a discovery answer's faults are listed in its error.
pub const LISTED_ERRORS: usize = 5;

/// `validation.IsDNS1123Label`'s first complaint, if any.
fn dns1123_label_error(s: &str) -> Option<&'static str> {
    if s.len() > 63 {
        return Some("must be no more than 63 characters");
    }
    let ok = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-');
    (!ok).then_some(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    )
}
