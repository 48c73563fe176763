//! `render --runtime-extension NAME=URL` (and `diff`'s): the ExtensionConfigs among the
//! inputs discovered through a transport the caller gives (the CLI's HTTP(S) one), so
//! the Clusters of a ClusterClass with external patches call their extensions
//! ([`crate::topology::patches::external`]) instead of being refused.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::Rendering;
use crate::error::Result;
use crate::runtime::Session as Runtime;
use crate::runtime::{config, Registry, Transport};

impl Rendering {
    /// The run's Runtime SDK session, when it calls extensions: what they answered.
    pub fn runtime_session(&self) -> Option<Arc<Runtime>> {
        self.runtime.clone()
    }

    /// Discover the extensions of the ExtensionConfigs among the inputs that `urls`
    /// (`--runtime-extension NAME=URL`) names, each at its URL, which `policy` allows
    /// (loopback only unless remote extensions are allowed on the command line), and let
    /// every Cluster call them, at most `max_in_flight` calls at once when given. The
    /// other ExtensionConfigs are never called (their own `spec.clientConfig` is not
    /// used): a class that needs one fails, naming the flag to pass. Nothing happens
    /// when the inputs have no ExtensionConfig and `urls` is empty.
    pub fn call_extensions(
        &mut self,
        urls: &BTreeMap<String, String>,
        policy: config::UrlPolicy,
        max_in_flight: Option<usize>,
        transport: Box<dyn Transport>,
    ) -> Result<()> {
        let mut objects: Vec<(String, &Value)> = Vec::new();
        let mut namespace_labels: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for ns in &self.namespaces {
            for (at, file, doc) in &ns.extension_origins {
                objects.push((format!("{file}, document {}", doc + 1), &ns.objects[*at]));
            }
            for o in &ns.objects {
                if crate::model::object::kind(o) == "Namespace"
                    && crate::model::object::api_version(o) == "v1"
                {
                    let labels = config::string_map_at(o, "/metadata/labels");
                    namespace_labels.insert(crate::model::object::name(o).to_string(), labels);
                }
            }
        }
        if objects.is_empty() && urls.is_empty() {
            return Ok(());
        }
        let (configs, unnamed) = config::extension_configs(objects, urls, policy)?;
        let registry = Registry::discover(configs, transport.as_ref())?.with_unnamed(unnamed);
        let mut session = Runtime::new(registry, transport, namespace_labels);
        if let Some(n) = max_in_flight {
            session = session.with_max_in_flight(n);
        }
        let runtime = Arc::new(session);
        for ns in &mut self.namespaces {
            let cache = std::mem::take(&mut ns.classes);
            ns.classes = cache.with_runtime(runtime.clone());
        }
        self.runtime = Some(runtime);
        Ok(())
    }
}

/// A Cluster's fingerprint with the answers its extensions gave it (handler and sha256
/// of each response body): an extension that answers differently changes it.
pub(super) fn with_answers(fingerprint: &str, rt: &Runtime, namespace: &str, name: &str) -> String {
    let answers = rt.answers_for(namespace, name);
    if answers.is_empty() {
        return fingerprint.to_string();
    }
    let mut text = format!("{fingerprint}\n");
    for a in answers {
        text.push_str(&format!("{} {}\n", a.handler, a.sha256));
    }
    crate::model::sha256_hex(text.as_bytes())
}
