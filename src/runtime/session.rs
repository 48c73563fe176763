//! A run's Runtime SDK session: the discovered handlers, the transport, the labels of the
//! Namespaces among the inputs, and a digest of every answer, which the render keeps for
//! each unit's fingerprint.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde_json::{Map, Value};

use super::registry::{ForObject, Reply};
use super::{Hook, Registry, Transport};
use crate::error::Result;

/// The Runtime SDK as a render reaches it (`topology::patches::external` calls through it): the discovered handlers, the transport, the
/// labels of the Namespaces among the inputs (for namespace selectors), and a digest of
/// every answer, which the render keeps for the unit's fingerprint.
pub struct Session {
    pub registry: Registry,
    pub transport: Box<dyn Transport>,
    pub namespace_labels: BTreeMap<String, BTreeMap<String, String>>,
    answers: Mutex<Vec<Answer>>,
}

/// One answer of a handler: the handler, the object it was called for, and the sha256
/// of the response body as received (empty for an ignored failure).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Answer {
    pub handler: String,
    pub for_object: String,
    pub sha256: String,
}

impl Session {
    pub fn new(
        registry: Registry,
        transport: Box<dyn Transport>,
        namespace_labels: BTreeMap<String, BTreeMap<String, String>>,
    ) -> Session {
        Session {
            registry,
            transport,
            namespace_labels,
            answers: Mutex::new(Vec::new()),
        }
    }

    /// Call a handler for the object `namespace/name`, recording its answer.
    pub fn call(
        &self,
        hook: Hook,
        handler: &str,
        namespace: &str,
        name: &str,
        request: Map<String, Value>,
    ) -> Result<Reply> {
        let for_object = ForObject {
            namespace,
            name,
            namespace_labels: self.namespace_labels.get(namespace),
        };
        let reply =
            self.registry
                .call(self.transport.as_ref(), hook, handler, for_object, request)?;
        let sha256 = if reply.body.is_empty() {
            String::new()
        } else {
            crate::model::sha256_hex(&reply.body)
        };
        self.answers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Answer {
                handler: handler.to_string(),
                for_object: format!("{namespace}/{name}"),
                sha256,
            });
        Ok(reply)
    }

    /// The answers recorded for one object, in handler order.
    pub fn answers_for(&self, namespace: &str, name: &str) -> Vec<Answer> {
        let key = format!("{namespace}/{name}");
        let mut out: Vec<Answer> = self
            .answers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|a| a.for_object == key)
            .cloned()
            .collect();
        out.sort();
        out
    }
}
