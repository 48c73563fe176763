//! A run's Runtime SDK session: the discovered handlers, the transport, the labels of the
//! Namespaces among the inputs, and a digest of every answer, which the render keeps for
//! each unit's fingerprint.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Condvar, Mutex};

use serde_json::{Map, Value};

use super::registry::{ForObject, Reply};
use super::{Hook, Registry, Transport};
use crate::error::Result;

/// The Runtime SDK as a render reaches it (`topology::patches::external` calls through
/// it): the discovered handlers, the transport, the labels of the Namespaces among the
/// inputs (for namespace selectors), at most how many calls are in flight at once, and a
/// digest of every answer, which the render keeps for the unit's fingerprint.
pub struct Session {
    pub registry: Registry,
    pub transport: Box<dyn Transport>,
    pub namespace_labels: BTreeMap<String, BTreeMap<String, String>>,
    /// By the object they were given for (`namespace/name`): a fleet's Cluster reads
    /// its own without going through the others'.
    answers: Mutex<HashMap<String, Vec<Answer>>>,
    /// Calls in flight, and the bound (`--runtime-concurrency`; none: the render's
    /// workers, one call each).
    in_flight: Mutex<usize>,
    freed: Condvar,
    max_in_flight: Option<usize>,
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
            answers: Mutex::new(HashMap::new()),
            in_flight: Mutex::new(0),
            freed: Condvar::new(),
            max_in_flight: None,
        }
    }

    /// At most `n` calls in flight at once (a fleet's Clusters render in parallel).
    pub fn with_max_in_flight(mut self, n: usize) -> Session {
        self.max_in_flight = Some(n.max(1));
        self
    }

    /// Wait for a free slot; the slot is given back when the guard drops.
    fn slot(&self) -> Slot<'_> {
        let mut n = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(max) = self.max_in_flight {
            while *n >= max {
                n = self.freed.wait(n).unwrap_or_else(|p| p.into_inner());
            }
        }
        *n += 1;
        Slot(self)
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
        let slot = self.slot();
        let reply = self
            .registry
            .call(self.transport.as_ref(), hook, handler, for_object, request);
        drop(slot);
        let reply = reply?;
        let sha256 = if reply.body.is_empty() {
            String::new()
        } else {
            crate::model::sha256_hex(&reply.body)
        };
        let for_object = format!("{namespace}/{name}");
        self.answers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(for_object.clone())
            .or_default()
            .push(Answer {
                handler: handler.to_string(),
                for_object,
                sha256,
            });
        Ok(reply)
    }

    /// Every handler called so far, by name.
    pub fn handlers_called(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .answers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .flatten()
            .map(|a| a.handler.clone())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The answers recorded for one object, in handler order.
    pub fn answers_for(&self, namespace: &str, name: &str) -> Vec<Answer> {
        let mut out: Vec<Answer> = self
            .answers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&format!("{namespace}/{name}"))
            .cloned()
            .unwrap_or_default();
        out.sort();
        out
    }
}

/// A call's place among those in flight ([`Session::slot`]).
struct Slot<'a>(&'a Session);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut n = self.0.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        *n -= 1;
        self.0.freed.notify_one();
    }
}
