//! The CEL declaration of a variable schema as apiextensions derives it for the cost
//! estimator (apiserver `common.SchemaDeclType`, k8s.io/apiserver v0.32.3): the type of
//! every node, the largest size a string, list or map can have (`MaxElements`: from
//! `maxLength`/`maxItems`/`maxProperties`, else what fits in the 3 MiB request limit)
//! and the smallest serialized size of a value (`MinSerializedSize`), which bounds how
//! many times a rule can run under unbounded lists and maps.

use std::collections::BTreeMap;

use crate::topology::variables::schema::Schema;

/// `celconfig.MaxRequestSizeBytes`.
pub const MAX_REQUEST_SIZE_BYTES: i64 = 3 * 1024 * 1024;

/// The kind of a declared CEL type.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Bool,
    Int,
    Double,
    String,
    /// `format: byte`.
    Bytes,
    /// `format: duration`.
    Duration,
    /// `format: date` or `date-time`.
    Timestamp,
    /// `x-kubernetes-int-or-string`.
    Dyn,
    List(Box<Decl>),
    /// A map from strings (`additionalProperties`).
    Map(Box<Decl>),
    /// An object with the fields CEL can name (see [`Decl::escaped_fields`]).
    Object(BTreeMap<String, Decl>),
}

/// `apiservercel.DeclType`: the fields the cost estimator reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Decl {
    pub kind: Kind,
    pub max_elements: i64,
    pub min_serialized_size: i64,
    /// An object with properties CEL names only in an escaped form (`__dash__`, a
    /// keyword as `__in__`), which are left out of its fields here.
    pub escaped_fields: bool,
}

impl Decl {
    fn simple(kind: Kind, min: i64) -> Decl {
        Decl {
            kind,
            max_elements: 0,
            min_serialized_size: min,
            escaped_fields: false,
        }
    }

    /// The global `StringType` (map keys): no `MaxElements`.
    pub fn key_string() -> Decl {
        Decl::simple(Kind::String, 2)
    }
}

fn zero_if_negative(v: i64) -> i64 {
    v.max(0)
}

/// CEL keywords that property names are escaped from (`apiservercel.Escape`); such
/// fields (and names with other characters) are left out here: rules naming them are
/// not costed.
const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

fn plain_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !RESERVED.contains(&name)
        && !(name.starts_with("__") && name.ends_with("__"))
}

/// `SchemaDeclType(s, isResourceRoot)`; `None` where apiextensions has no declaration.
pub fn decl_of(s: &Schema, resource_root: bool) -> Option<Decl> {
    if s.int_or_string {
        return Some(Decl {
            kind: Kind::Dyn,
            max_elements: MAX_REQUEST_SIZE_BYTES - 2,
            min_serialized_size: 1,
            escaped_fields: false,
        });
    }
    match s.type_.as_str() {
        "array" => {
            // At a resource root the schema is copied without its items.
            let items = s.items.as_deref().filter(|_| !resource_root)?;
            let it = decl_of(items, false)?;
            let max = match s.max_items {
                Some(m) => zero_if_negative(m),
                None => (MAX_REQUEST_SIZE_BYTES - 2) / (it.min_serialized_size + 1),
            };
            Some(Decl {
                kind: Kind::List(Box::new(it)),
                max_elements: max,
                min_serialized_size: 2,
                escaped_fields: false,
            })
        }
        "object" => {
            if let Some(ap) = &s.additional_properties {
                let v = decl_of(ap, false)?;
                let max = match s.max_properties {
                    Some(m) => zero_if_negative(m),
                    None => (MAX_REQUEST_SIZE_BYTES - 2) / (v.min_serialized_size + 6),
                };
                return Some(Decl {
                    kind: Kind::Map(Box::new(v)),
                    max_elements: max,
                    min_serialized_size: 2,
                    escaped_fields: false,
                });
            }
            let mut fields = BTreeMap::new();
            let mut escaped_fields = false;
            let mut min = 2i64;
            for (name, p) in &s.properties {
                if let Some(d) = decl_of(p, false) {
                    if s.required.contains(name) && p.default.is_none() {
                        min = min.saturating_add(name.len() as i64 + d.min_serialized_size + 4);
                    }
                    if plain_name(name) {
                        fields.insert(name.clone(), d);
                    } else {
                        escaped_fields = true;
                    }
                }
            }
            if resource_root {
                with_type_and_object_meta(s, &mut fields);
            }
            Some(Decl {
                kind: Kind::Object(fields),
                max_elements: 0,
                min_serialized_size: min,
                escaped_fields,
            })
        }
        "string" => Some(string_decl(s)),
        "boolean" => Some(Decl::simple(Kind::Bool, 4)),
        "number" => Some(Decl::simple(Kind::Double, 1)),
        "integer" => Some(Decl::simple(Kind::Int, 1)),
        _ => None,
    }
}

fn string_decl(s: &Schema) -> Decl {
    let per_request = MAX_REQUEST_SIZE_BYTES - 2;
    let (kind, min, max) = match s.format.as_str() {
        "byte" => (
            Kind::Bytes,
            2,
            s.max_length.map(zero_if_negative).unwrap_or(per_request),
        ),
        "duration" => (Kind::Duration, 3, 32),
        "date" => (Kind::Timestamp, 12, 12),
        "date-time" => (Kind::Timestamp, 21, 32),
        _ => {
            let max = match s.max_length {
                // maxLength counts code points; up to 4 bytes each.
                Some(m) => zero_if_negative(m).saturating_mul(4),
                None if !s.enum_.is_empty() => s
                    .enum_
                    .iter()
                    .filter_map(|v| v.as_str())
                    .map(|v| v.len() as i64)
                    .max()
                    .unwrap_or(0),
                None => per_request,
            };
            (Kind::String, 2, max)
        }
    };
    Decl {
        kind,
        max_elements: max,
        min_serialized_size: min,
        escaped_fields: false,
    }
}

/// `WithTypeAndObjectMeta`: `kind`, `apiVersion` and `metadata.name`/`generateName` are
/// always there at a resource root (declared as plain strings unless the schema already
/// declares all of them as such).
fn with_type_and_object_meta(s: &Schema, fields: &mut BTreeMap<String, Decl>) {
    let is = |p: Option<&Schema>, t: &str| p.is_some_and(|p| p.type_ == t);
    let md = s.properties.get("metadata");
    let declared = is(s.properties.get("kind"), "string")
        && is(s.properties.get("apiVersion"), "string")
        && is(md, "object")
        && md.is_some_and(|m| {
            is(m.properties.get("name"), "string") && is(m.properties.get("generateName"), "string")
        });
    if declared {
        return;
    }
    let string = || Decl {
        kind: Kind::String,
        max_elements: MAX_REQUEST_SIZE_BYTES - 2,
        min_serialized_size: 2,
        escaped_fields: false,
    };
    fields.insert("kind".into(), string());
    fields.insert("apiVersion".into(), string());
    let meta: BTreeMap<String, Decl> = [
        ("name".to_string(), string()),
        ("generateName".to_string(), string()),
    ]
    .into();
    fields.insert(
        "metadata".into(),
        Decl {
            kind: Kind::Object(meta),
            max_elements: 0,
            min_serialized_size: 2,
            escaped_fields: false,
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decl(v: serde_json::Value) -> Decl {
        decl_of(&Schema::from_value(&v, "s").unwrap(), false).unwrap()
    }

    #[test]
    fn sizes_follow_the_request_limit() {
        let d = decl(json!({"type": "array", "items": {"type": "string"}}));
        assert_eq!(d.max_elements, (MAX_REQUEST_SIZE_BYTES - 2) / 3);
        let Kind::List(it) = &d.kind else { panic!() };
        assert_eq!(it.max_elements, MAX_REQUEST_SIZE_BYTES - 2);
        let d = decl(json!({"type": "string", "maxLength": 10}));
        assert_eq!(d.max_elements, 40);
        let d = decl(json!({"type": "string", "enum": ["a", "abc"]}));
        assert_eq!(d.max_elements, 3);
        let d = decl(json!({"type": "object", "additionalProperties": {"type": "integer"}}));
        assert_eq!(d.max_elements, (MAX_REQUEST_SIZE_BYTES - 2) / 7);
    }

    #[test]
    fn required_fields_without_default_add_to_the_minimum_size() {
        let d = decl(json!({"type": "object", "required": ["ab", "c"],
            "properties": {"ab": {"type": "boolean"}, "c": {"type": "integer", "default": 1}, "d": {"type": "string"}}}));
        assert_eq!(d.min_serialized_size, 2 + 2 + 4 + 4);
    }

    #[test]
    fn resource_root_objects_get_metadata() {
        let s = Schema::from_value(&json!({"type": "object"}), "s").unwrap();
        let Kind::Object(f) = decl_of(&s, true).unwrap().kind else {
            panic!()
        };
        assert!(f.contains_key("metadata") && f.contains_key("kind"));
        let s = Schema::from_value(&json!({"type": "array", "items": {"type": "string"}}), "s")
            .unwrap();
        assert!(decl_of(&s, true).is_none());
    }
}
