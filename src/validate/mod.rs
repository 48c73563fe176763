//! Every input object checked against the CRD of its kind and apiVersion, offline, as
//! the API server checks an apply with strict field validation (issue 42): unknown
//! fields (pruning, `x-kubernetes-preserve-unknown-fields` respected), the structural
//! schema (types, enums, formats, required, min/max, patterns) and the CRD's
//! `x-kubernetes-validations` CEL rules. Defaults are not applied to the output.
//!
//! The schema checks are those of ClusterClass variables (`crate::topology::variables`),
//! run on the whole object. `metadata` is not part of a CRD's schema: the API server
//! decodes it as ObjectMeta, so an unknown `metadata` field is reported here by name.

pub mod apply;
pub mod crds;
pub mod objectmeta;
pub mod stored;

use serde_json::Value;

use crate::model::InputObject;
use crate::topology::variables::field_error::FieldError;
use crate::topology::variables::{cel, openapi, unknown_fields::unknown_fields};
pub use apply::{check_applied, validate_paths};
pub use crds::CrdIndex;

/// One problem of one object: its field path, the kind of error and the detail.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    pub path: String,
    /// `unknown field`, or the API server's error type (`Invalid value`, `Unsupported
    /// value`, `Required value`, `Too long`, ...).
    pub kind: String,
    pub message: String,
}

/// What checking one object found: errors, or a warning when no CRD is known.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub problems: Vec<Problem>,
    pub warnings: Vec<String>,
}

/// The problems of `v` against the schema of its CRD in `index`; a kind with no CRD is a
/// warning naming it.
pub fn check_value(v: &Value, index: &CrdIndex) -> Outcome {
    check_parts(v, v, index)
}

/// The unknown fields of `raw` (as written: strict decoding comes first) and the schema
/// and CEL problems of `validated` (what the API server validates, e.g. after a
/// webhook's round trip; see [`apply`]).
pub(crate) fn check_parts(raw: &Value, validated: &Value, index: &CrdIndex) -> Outcome {
    let v = raw;
    let mut out = Outcome::default();
    let api = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    let (group, version) = api.split_once('/').unwrap_or(("", api));
    if builtin_group(group) {
        return out;
    }
    let Some(schema) = index.schema(group, version, kind) else {
        if index.served_kind(group, kind) {
            out.warnings.push(format!(
                "{kind}: apiVersion {api:?} is not a version its CRD serves; not validated"
            ));
        } else {
            out.warnings.push(format!(
                "{kind} ({api}): no CRD for it among the providers the tree installs or in --repository; not validated against a schema"
            ));
        }
        return out;
    };
    out.problems
        .extend(objectmeta::metadata_problems(v.get("metadata"), "metadata"));
    objectmeta::embedded_problems(raw, schema, "", &mut out.problems);
    let strip = |v: &Value| {
        let mut body = v.clone();
        if let Some(m) = body.as_object_mut() {
            m.remove("metadata");
        }
        body
    };
    for p in unknown_fields(&strip(raw), schema) {
        out.problems.push(Problem {
            path: p,
            kind: "unknown field".into(),
            message: "unknown field".into(),
        });
    }
    // The schema and the rules see the whole object, metadata included (a CRD may
    // require it; its fields were checked above).
    let body = &stored::as_stored(validated, schema);
    let oa = openapi::validate(schema, body, "", &mut out.warnings);
    out.problems
        .extend(openapi::to_field_errors(&oa, "", None).iter().map(problem));
    let mut c = cel::Outcome::default();
    cel::validate(schema, body, "", None, &mut c);
    out.problems.extend(c.errors.iter().map(problem));
    out.warnings.extend(c.warnings);
    out.problems.sort();
    out.problems.dedup();
    out
}

/// Kubernetes' own groups (`""`, `apps`, `rbac.authorization.k8s.io`, ...): no CRD.
fn builtin_group(group: &str) -> bool {
    !group.contains('.') || (group.ends_with(".k8s.io") && !group.ends_with(".x-k8s.io"))
}

fn problem(e: &FieldError) -> Problem {
    let path = e.field.trim_start_matches('.').to_string();
    let body = e.body();
    Problem {
        path,
        kind: e.kind.text().to_string(),
        message: body,
    }
}

/// The line that names one problem: `file: document N: Kind ns/name: path: detail`.
pub fn describe(o: &InputObject, p: &Problem) -> String {
    let v = &o.value;
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    let s = |k: &str| {
        v.get("metadata")
            .and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let who = match s("namespace") {
        "" => s("name").to_string(),
        ns => format!("{ns}/{}", s("name")),
    };
    let detail = if p.kind == "unknown field" {
        "unknown field (the API server's strict field validation refuses it; remove it or move it where the CRD declares it)".to_string()
    } else {
        p.message.clone()
    };
    format!(
        "{}: document {}: {kind} {who}: {}: {detail}",
        o.file,
        o.doc + 1,
        if p.path.is_empty() { "<root>" } else { &p.path }
    )
}

/// Checks every object: the error lines (all of them, in input order) and the warnings
/// (one per kind with no CRD).
pub fn check_objects<O: std::borrow::Borrow<InputObject>>(
    objects: impl IntoIterator<Item = O>,
    index: &CrdIndex,
) -> (Vec<String>, Vec<String>) {
    check_objects_with(objects, index, check_applied)
}

/// [`check_objects`] with `check` for each object ([`check_value`], [`check_applied`]).
pub fn check_objects_with<O: std::borrow::Borrow<InputObject>>(
    objects: impl IntoIterator<Item = O>,
    index: &CrdIndex,
    check: fn(&Value, &CrdIndex) -> Outcome,
) -> (Vec<String>, Vec<String>) {
    let mut errors = Vec::new();
    let mut warnings = std::collections::BTreeSet::new();
    for o in objects {
        let o = o.borrow();
        let out = check(&o.value, index);
        errors.extend(out.problems.iter().map(|p| describe(o, p)));
        warnings.extend(out.warnings);
    }
    (errors, warnings.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd() -> Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "spec": {"group": "ex.io", "names": {"kind": "Thing"}, "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                    "metadata": {"type": "object"},
                    "spec": {"type": "object", "required": ["mode"], "properties": {
                        "mode": {"type": "string", "enum": ["A", "B"]},
                        "version": {"type": "string"},
                        "n": {"type": "integer", "maximum": 3},
                        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                        "maybe": {"type": "string", "nullable": true},
                        "never": {"type": "string"}
                    }, "x-kubernetes-validations": [{"rule": "!has(self.n) || self.n != 2", "message": "n must not be 2"}]}
                }}}
            }]}
        })
    }

    fn check(spec: Value) -> Vec<(String, String)> {
        let idx = CrdIndex::from_objects([&crd()]);
        let v = json!({"apiVersion": "ex.io/v1", "kind": "Thing", "metadata": {"name": "a"}, "spec": spec});
        check_value(&v, &idx)
            .problems
            .into_iter()
            .map(|p| (p.path, p.kind))
            .collect()
    }

    #[test]
    fn valid_object_has_no_problem() {
        assert!(check(json!({"mode": "A", "free": {"x": 1}})).is_empty());
        // A null is kept and accepted where `nullable`, pruned (as the API server
        // does) where not.
        assert!(check(json!({"mode": "A", "maybe": null, "never": null})).is_empty());
    }

    #[test]
    fn unknown_enum_type_required_max_and_cel() {
        let u = |p: &str, k: &str| (p.to_string(), k.to_string());
        assert_eq!(
            check(json!({"mode": "A", "extra": 1})),
            vec![u("spec.extra", "unknown field")]
        );
        assert_eq!(
            check(json!({"mode": "C"})),
            vec![u("spec.mode", "Unsupported value")]
        );
        assert_eq!(
            check(json!({"mode": "A", "version": 1.32})),
            vec![u("spec.version", "Invalid value")]
        );
        assert_eq!(check(json!({})), vec![u("spec.mode", "Required value")]);
        assert_eq!(
            check(json!({"mode": "A", "n": 4})),
            vec![u("spec.n", "Invalid value")]
        );
        assert_eq!(
            check(json!({"mode": "A", "n": 2})),
            vec![u("spec", "Invalid value")]
        );
    }

    #[test]
    fn unknown_metadata_field_and_missing_crd() {
        let idx = CrdIndex::from_objects([&crd()]);
        let v = json!({"apiVersion": "ex.io/v1", "kind": "Thing", "metadata": {"name": "a", "lables": {}}, "spec": {"mode": "A"}});
        let out = check_value(&v, &idx);
        assert_eq!(out.problems[0].path, "metadata.lables");
        let v = json!({"apiVersion": "other.io/v1", "kind": "Other"});
        let out = check_value(&v, &idx);
        assert!(out.problems.is_empty());
        assert!(out.warnings[0].starts_with("Other (other.io/v1): no CRD"));
    }
}
