//! A static look at a rule before it runs: field selections on `self` (and on macro
//! variables ranging over its lists and maps) that the schema does not declare. Go's CEL
//! type checker rejects such rules when the ClusterClass is validated ("undefined
//! field"); capi-render has no type checker, so it reports them as warnings.

use super::parser::Expr;
use crate::topology::variables::schema::Schema;

/// The undeclared field names a rule selects, in order of appearance.
pub fn undefined_fields(e: &Expr, self_schema: &Schema) -> Vec<String> {
    let mut out = Vec::new();
    let mut scope: Vec<(String, Option<&Schema>)> = vec![("self".to_string(), Some(self_schema))];
    walk(e, &mut scope, &mut out);
    out
}

/// Whether selecting `field` on a value of schema `s` is known to be undefined: `s` is an
/// object with declared properties only.
fn is_closed_object(s: &Schema) -> bool {
    s.type_ == "object" && s.additional_properties.is_none() && !s.preserve_unknown_fields
}

/// The static schema of an expression, when known.
fn schema_of<'a>(e: &Expr, scope: &[(String, Option<&'a Schema>)]) -> Option<&'a Schema> {
    match e {
        Expr::Ident(n) => scope
            .iter()
            .rev()
            .find(|(name, _)| name == n)
            .and_then(|(_, s)| *s),
        Expr::Select(t, f) => {
            let s = schema_of(t, scope)?;
            s.properties.get(f).or(s.additional_properties.as_deref())
        }
        Expr::Index(t, _) => {
            let s = schema_of(t, scope)?;
            s.items.as_deref().or(s.additional_properties.as_deref())
        }
        _ => None,
    }
}

fn walk(e: &Expr, scope: &mut Vec<(String, Option<&Schema>)>, out: &mut Vec<String>) {
    match e {
        Expr::Lit(_) | Expr::Ident(_) => {}
        Expr::Select(t, f) => {
            if let Some(s) = schema_of(t, scope) {
                if is_closed_object(s) && !s.properties.contains_key(f) && !out.contains(f) {
                    out.push(f.clone());
                }
            }
            walk(t, scope, out);
        }
        Expr::Index(a, b) | Expr::Binary(_, a, b) => {
            walk(a, scope, out);
            walk(b, scope, out);
        }
        Expr::Unary(_, a) => walk(a, scope, out),
        Expr::Cond(a, b, c) => {
            walk(a, scope, out);
            walk(b, scope, out);
            walk(c, scope, out);
        }
        Expr::List(items) => items.iter().for_each(|i| walk(i, scope, out)),
        Expr::Map(entries) => entries.iter().for_each(|(k, v)| {
            walk(k, scope, out);
            walk(v, scope, out);
        }),
        Expr::Call(target, name, args) => {
            let is_macro = matches!(
                name.as_str(),
                "all" | "exists" | "exists_one" | "filter" | "map"
            ) && args.len() >= 2;
            match (target, args.first()) {
                (Some(t), Some(Expr::Ident(var))) if is_macro => {
                    walk(t, scope, out);
                    // The macro variable ranges over list items or map keys.
                    let elem = schema_of(t, scope).and_then(|s| {
                        if s.type_ == "array" {
                            s.items.as_deref()
                        } else {
                            None
                        }
                    });
                    scope.push((var.clone(), elem));
                    args[1..].iter().for_each(|a| walk(a, scope, out));
                    scope.pop();
                }
                _ => {
                    if let Some(t) = target {
                        walk(t, scope, out);
                    }
                    args.iter().for_each(|a| walk(a, scope, out));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parser::parse;
    use super::*;
    use serde_json::json;

    fn check(rule: &str) -> Vec<String> {
        let s = Schema::from_value(
            &json!({"type": "object", "properties": {
                "a": {"type": "object", "properties": {"b": {"type": "string"}}},
                "l": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "string"}}}},
                "m": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
            }}),
            "s",
        )
        .unwrap();
        undefined_fields(&parse(rule).unwrap(), &s)
    }

    #[test]
    fn finds_undeclared_fields() {
        assert_eq!(check("has(self.x) && self.a.c == ''"), vec!["x", "c"]);
        assert_eq!(check("self.l.all(i, i.n != '' && i.q != '')"), vec!["q"]);
        assert_eq!(check("self.l[0].z == ''"), vec!["z"]);
    }

    #[test]
    fn open_maps_and_declared_fields_are_fine() {
        assert!(check("self.a.b == '' && self.m.anything == '' && self.free.x == 1").is_empty());
        assert!(check("[1].all(x, x > 0)").is_empty());
    }
}
