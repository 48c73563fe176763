//! Secret values never reach a diff: in both sides of a file that holds a `Secret`,
//! every value under `data` and `stringData` is replaced by a marker: `<masked>` on
//! the old side, and on the new side `<masked>` when the value is the same and
//! `<masked: changed>` when it differs, so the diff still shows *that* a value
//! changed. A side that cannot be parsed is not shown.

use serde_json::{Map, Value};

pub const SAME: &str = "<masked>";
pub const CHANGED: &str = "<masked: changed>";
pub const HIDDEN: &str =
    "# capi-render: content not shown (it may hold Secret values and it cannot be parsed)\n";

fn is_secret(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str) == Some("Secret")
}

fn identity(v: &Value) -> (Option<&str>, Option<&str>) {
    (
        v.pointer("/metadata/namespace").and_then(Value::as_str),
        v.pointer("/metadata/name").and_then(Value::as_str),
    )
}

/// Mask one Secret against its counterpart (the same Secret on the other side).
fn mask_secret(v: &Value, other: Option<&Value>, is_new: bool) -> Value {
    let mut v = v.clone();
    for field in ["data", "stringData"] {
        let theirs = other.and_then(|o| o.get(field));
        let Some(x) = v.get_mut(field) else { continue };
        match x {
            Value::Object(m) => {
                let masked: Map<String, Value> = m
                    .iter()
                    .map(|(k, val)| {
                        let same =
                            !is_new || theirs.and_then(|t| t.get(k)).is_none_or(|t| t == val);
                        (
                            k.clone(),
                            Value::String(if same { SAME } else { CHANGED }.into()),
                        )
                    })
                    .collect();
                *m = masked;
            }
            Value::Null => {}
            other_shape => {
                let same = !is_new || theirs.is_none_or(|t| t == other_shape);
                *other_shape = Value::String(if same { SAME } else { CHANGED }.into());
            }
        }
    }
    v
}

fn mask_side(docs: &[Value], other: &[Value], is_new: bool) -> String {
    let masked: Vec<Value> = docs
        .iter()
        .map(|d| {
            if !is_secret(d) {
                return d.clone();
            }
            let twin = other
                .iter()
                .find(|o| is_secret(o) && identity(o) == identity(d));
            mask_secret(d, twin, is_new)
        })
        .collect();
    let mut s = crate::yaml::from_objects(&masked);
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

fn parse(text: &str) -> Option<Vec<Value>> {
    crate::yaml::parse_documents(text).ok()
}

/// The two texts to diff for one file (`None` = the file does not exist on that side).
/// Files that cannot hold a Secret are returned unchanged.
pub fn mask_pair(old: Option<&str>, new: Option<&str>) -> (Option<String>, Option<String>) {
    let might = |t: Option<&str>| t.is_some_and(|t| t.contains("Secret"));
    if !might(old) && !might(new) {
        return (old.map(str::to_string), new.map(str::to_string));
    }
    let po = old.map(parse);
    let pn = new.map(parse);
    let has_secret =
        |p: &Option<Option<Vec<Value>>>| matches!(p, Some(Some(d)) if d.iter().any(is_secret));
    // A side that mentions Secret but cannot be parsed may hold secret values.
    let unparsable =
        |t: Option<&str>, p: &Option<Option<Vec<Value>>>| might(t) && matches!(p, Some(None));
    if !has_secret(&po) && !has_secret(&pn) && !unparsable(old, &po) && !unparsable(new, &pn) {
        return (old.map(str::to_string), new.map(str::to_string));
    }
    let empty = Vec::new();
    let docs = |p: &Option<Option<Vec<Value>>>| -> Vec<Value> {
        match p {
            Some(Some(d)) => d.clone(),
            _ => empty.clone(),
        }
    };
    let (od, nd) = (docs(&po), docs(&pn));
    let side = |t: Option<&str>,
                p: &Option<Option<Vec<Value>>>,
                mine: &[Value],
                theirs: &[Value],
                is_new: bool| match (t, p) {
        (None, _) => None,
        (Some(_), Some(None)) => Some(HIDDEN.to_string()),
        (Some(t), Some(Some(_))) if !mine.iter().any(is_secret) => Some(t.to_string()),
        _ => Some(mask_side(mine, theirs, is_new)),
    };
    (
        side(old, &po, &od, &nd, false),
        side(new, &pn, &nd, &od, true),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: ns\ndata:\n  token: c2VjcmV0LW9sZA==\n  user: YWRtaW4=\nstringData:\n  password: hunter2\n";

    #[test]
    fn values_are_masked_and_changes_flagged() {
        let new = OLD.replace("c2VjcmV0LW9sZA==", "c2VjcmV0LW5ldw==");
        let (o, n) = mask_pair(Some(OLD), Some(&new));
        let (o, n) = (o.unwrap(), n.unwrap());
        for t in [&o, &n] {
            for secret in ["c2VjcmV0", "YWRtaW4=", "hunter2"] {
                assert!(!t.contains(secret), "{t}");
            }
        }
        let nv = crate::yaml::parse_value(&n).unwrap();
        assert_eq!(nv["data"]["token"], CHANGED);
        assert_eq!(nv["data"]["user"], SAME);
        assert_eq!(nv["stringData"]["password"], SAME);
        let ov = crate::yaml::parse_value(&o).unwrap();
        assert_eq!(ov["data"]["token"], SAME);
        assert_eq!(nv["metadata"]["name"], "creds");
    }

    #[test]
    fn added_and_removed_secrets_and_odd_shapes() {
        let (o, n) = mask_pair(None, Some(OLD));
        assert!(o.is_none());
        assert!(!n.unwrap().contains("hunter2"));
        let odd = "kind: Secret\nmetadata: {name: x}\ndata: notamap\n";
        let (o, _) = mask_pair(Some(odd), None);
        assert!(!o.unwrap().contains("notamap"));
    }

    #[test]
    fn unparsable_secret_sides_are_hidden_and_others_untouched() {
        let broken = "kind: Secret\ndata:\n  k: hunter2\n bad: [\n";
        let (o, n) = mask_pair(Some(broken), Some(OLD));
        assert_eq!(o.unwrap(), HIDDEN);
        assert!(!n.unwrap().contains("hunter2"));
        let cm = "kind: ConfigMap\ndata:\n  k: v\n";
        assert_eq!(
            mask_pair(Some(cm), Some("x: 1\n")),
            (Some(cm.into()), Some("x: 1\n".into()))
        );
    }
}
