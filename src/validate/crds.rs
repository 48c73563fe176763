//! The schemas of the CRDs the tree installs, by group, version and kind.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::topology::variables::schema::Schema;

/// CRD schemas by `(group, version, kind)`; the kinds by `(group, kind)`.
#[derive(Debug, Default)]
pub struct CrdIndex {
    schemas: BTreeMap<(String, String, String), Schema>,
    kinds: BTreeSet<(String, String)>,
}

fn s<'a>(v: &'a Value, p: &str) -> &'a str {
    v.pointer(p).and_then(Value::as_str).unwrap_or("")
}

impl CrdIndex {
    /// Indexes every `CustomResourceDefinition` among `objects` (other objects are
    /// skipped; a version whose schema cannot be read is left out, so objects of it get
    /// the no-CRD warning).
    pub fn from_objects<'a>(objects: impl IntoIterator<Item = &'a Value>) -> CrdIndex {
        let mut idx = CrdIndex::default();
        for o in objects {
            idx.add(o);
        }
        idx
    }

    /// Adds one object if it is a CRD.
    pub fn add(&mut self, o: &Value) {
        if s(o, "/kind") != "CustomResourceDefinition"
            || !s(o, "/apiVersion").starts_with("apiextensions.k8s.io/")
        {
            return;
        }
        let (group, kind) = (s(o, "/spec/group"), s(o, "/spec/names/kind"));
        self.kinds.insert((group.to_string(), kind.to_string()));
        let versions = o.pointer("/spec/versions").and_then(Value::as_array);
        for v in versions.into_iter().flatten() {
            if v.get("served").and_then(Value::as_bool) == Some(false) {
                continue;
            }
            let Some(raw) = v.pointer("/schema/openAPIV3Schema") else {
                continue;
            };
            if let Ok(schema) = Schema::from_crd_value(raw, "openAPIV3Schema") {
                self.schemas.insert(
                    (
                        group.to_string(),
                        s(v, "/name").to_string(),
                        kind.to_string(),
                    ),
                    schema,
                );
            }
        }
    }

    /// The schema of `kind` at `group`/`version`.
    pub fn schema(&self, group: &str, version: &str, kind: &str) -> Option<&Schema> {
        self.schemas
            .get(&(group.to_string(), version.to_string(), kind.to_string()))
    }

    /// Whether some CRD defines `kind` in `group` (at any version).
    pub fn served_kind(&self, group: &str, kind: &str) -> bool {
        self.kinds.contains(&(group.to_string(), kind.to_string()))
    }

    /// Number of indexed schemas.
    pub fn len(&self) -> usize {
        self.schemas.len()
    }

    /// Whether no schema is indexed.
    pub fn is_empty(&self) -> bool {
        self.schemas.is_empty()
    }
}
