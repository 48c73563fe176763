//! Secret values never reach a diff: in both sides of a file that holds a `Secret`,
//! every value under `data` and `stringData` is replaced by a marker: `<masked>` on
//! the old side, and on the new side `<masked>` when the value is the same and
//! `<masked: changed>` when it differs, so the diff still shows *that* a value
//! changed. Every other line stays as written, so a changed comment, label or any
//! other field diffs as text ([`mask_lines`]); where a line of those blocks is not
//! understood (flow style, an odd indentation), the Secret is shown re-serialized with
//! its values masked instead. A side that cannot be parsed is not shown.

use crate::model::pointer::Pointer as _;
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
        v.ptr("/metadata/namespace").and_then(Value::as_str),
        v.ptr("/metadata/name").and_then(Value::as_str),
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

/// The marker line for `key` at `indent`, as the YAML writer writes `key: marker`.
fn marker_line(indent: &str, key: &str, same: bool) -> String {
    let mut m = Map::new();
    m.insert(
        key.to_string(),
        Value::String(if same { SAME } else { CHANGED }.into()),
    );
    let one = crate::yaml::to_yaml(&Value::Object(m));
    format!("{indent}{}", one.trim_end())
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// One Secret document's lines with only the values under `data` / `stringData`
/// masked and every other line as written; `None` when a line of those blocks is not
/// understood (the caller then masks the re-serialized document).
fn mask_lines(
    lines: &[&str],
    doc: &Value,
    twin: Option<&Value>,
    is_new: bool,
) -> Option<Vec<String>> {
    let same = |field: &str, key: Option<&str>| -> bool {
        let pick = |v: Option<&Value>| -> Option<Value> {
            let f = v?.get(field)?;
            match key {
                Some(k) => f.get(k).cloned(),
                None => Some(f.clone()),
            }
        };
        let theirs = pick(twin);
        !is_new || theirs.is_none() || theirs == pick(Some(doc))
    };
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let field = ["data", "stringData"].into_iter().find(|f| {
            line.strip_prefix(f)
                .and_then(|r| r.strip_prefix(':'))
                .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
        });
        let Some(field) = field else {
            out.push(line.to_string());
            i += 1;
            continue;
        };
        let rest = line[field.len() + 1..].trim();
        i += 1;
        if !(rest.is_empty() || rest.starts_with('#')) {
            // `data: {a: b}`, `data: null`: the whole value on one line.
            out.push(marker_line("", field, same(field, None)));
            continue;
        }
        out.push(line.to_string());
        // The block: the indented lines (and blank lines) that follow.
        let mut key_indent: Option<usize> = None;
        let mut in_value = false;
        while i < lines.len() {
            let l = lines[i];
            let t = l.trim();
            if !t.is_empty() && indent_of(l) == 0 {
                break;
            }
            i += 1;
            if t.is_empty() {
                if !in_value {
                    out.push(l.to_string());
                }
                continue;
            }
            let ind = indent_of(l);
            let ki = *key_indent.get_or_insert(ind);
            if ind > ki && in_value {
                continue; // a multi-line value, masked with its key
            }
            if ind != ki {
                return None;
            }
            in_value = false;
            if t.starts_with('#') {
                out.push(format!("{}# <masked comment>", &l[..ind]));
                continue;
            }
            // One `key: value` entry: read the line on its own to find the key.
            let one = crate::yaml::read::parse_value_lenient(t).ok()?;
            let m = one.as_object().filter(|m| m.len() == 1)?;
            let key = m.keys().next()?;
            // The value continues on deeper lines after `key:` or a block scalar's
            // `key: |` / `key: >` header.
            let after = t.rsplit_once(": ").map_or("", |(_, v)| v.trim_start());
            in_value = t.ends_with(':') || after.starts_with(['|', '>']);
            out.push(marker_line(&l[..ind], key, same(field, Some(key))));
        }
    }
    Some(out)
}

/// The masked text of one Secret holds no value under `data` / `stringData` but the
/// markers (a spelling the line masking does not see, e.g. a quoted `"data":` key,
/// fails this and falls back to the re-serialized document).
fn only_markers(text: &str) -> bool {
    let Ok(v) = crate::yaml::read::parse_value_lenient(text) else {
        return false;
    };
    let marker = |x: &Value| matches!(x.as_str(), Some(SAME | CHANGED));
    ["data", "stringData"].iter().all(|f| match v.get(*f) {
        None | Some(Value::Null) => true,
        Some(Value::Object(m)) => m.values().all(marker),
        Some(x) => marker(x),
    })
}

/// A side masked line by line ([`mask_lines`]), `None` when a Secret of it is not
/// understood line by line (or its documents do not split as its parse does).
fn mask_side_lines(text: &str, docs: &[Value], other: &[Value], is_new: bool) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut segments: Vec<&[&str]> = Vec::new();
    let mut start = 0;
    for (n, l) in lines.iter().enumerate() {
        if *l == "---" {
            segments.push(&lines[start..n]);
            start = n + 1;
        }
    }
    segments.push(&lines[start..]);
    let mut out: Vec<String> = Vec::new();
    let mut parsed = docs.iter();
    for (n, seg) in segments.iter().enumerate() {
        if n > 0 {
            out.push("---".to_string());
        }
        let body = seg.join("\n");
        let v = crate::yaml::read::parse_value_lenient(&body).ok()?;
        if v.is_null() {
            out.extend(seg.iter().map(|l| l.to_string()));
            continue;
        }
        if parsed.next() != Some(&v) {
            return None;
        }
        if !is_secret(&v) {
            out.extend(seg.iter().map(|l| l.to_string()));
            continue;
        }
        let twin = other
            .iter()
            .find(|o| is_secret(o) && identity(o) == identity(&v));
        let masked = mask_lines(seg, &v, twin, is_new)?;
        if !only_markers(&masked.join("\n")) {
            return None;
        }
        out.extend(masked);
    }
    if parsed.next().is_some() {
        return None;
    }
    let mut s = out.join("\n");
    if text.ends_with('\n') {
        s.push('\n');
    }
    Some(s)
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
    // Line by line when both sides allow it (every other line then diffs as written).
    let parsed = |p: &Option<Option<Vec<Value>>>| !matches!(p, Some(None));
    if parsed(&po) && parsed(&pn) {
        let ol = old.map(|t| mask_side_lines(t, &od, &nd, false));
        let nl = new.map(|t| mask_side_lines(t, &nd, &od, true));
        if !matches!(ol, Some(None)) && !matches!(nl, Some(None)) {
            return (ol.flatten(), nl.flatten());
        }
    }
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

    #[test]
    fn lines_outside_the_values_diff_as_written() {
        // A comment and a label changed, one value changed: the diff shows the comment
        // and the label as text, the value as a marker, and no value at all.
        let old = "# managed by team-a\napiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: ns\n  labels:\n    tier: one\ndata:\n  token: c2VjcmV0LW9sZA==\n  # old token: hunter1\n  user: YWRtaW4=\nstringData:\n  password: hunter2\n  cert: |\n    -----BEGIN hunter3-----\n    abc\ntype: Opaque\n";
        let new = old
            .replace("team-a", "team-b")
            .replace("tier: one", "tier: two")
            .replace("c2VjcmV0LW9sZA==", "c2VjcmV0LW5ldw==");
        let (o, n) = mask_pair(Some(old), Some(&new));
        let (o, n) = (o.unwrap(), n.unwrap());
        for t in [&o, &n] {
            for secret in [
                "c2VjcmV0", "YWRtaW4=", "hunter1", "hunter2", "hunter3", "abc",
            ] {
                assert!(!t.contains(secret), "{secret} in {t}");
            }
            assert!(
                t.contains("  # <masked comment>\n") && t.ends_with("type: Opaque\n"),
                "{t}"
            );
        }
        assert!(o.starts_with("# managed by team-a\n") && n.starts_with("# managed by team-b\n"));
        assert!(
            n.contains("    tier: two\n") && n.contains("  token: '<masked: changed>'\n"),
            "{n}"
        );
        assert!(
            n.contains("  user: <masked>\nstringData:\n  password: <masked>\n"),
            "{n}"
        );
        assert!(n.contains("  cert: <masked>\ntype: Opaque"), "{n}");
        let d = super::super::check::file_diff("s.yaml", Some(old), Some(&new));
        assert!(!d.contains("masked Secret values differ"), "{d}");
        assert!(
            d.contains("-# managed by team-a\n+# managed by team-b\n"),
            "{d}"
        );
        assert!(d.contains("-    tier: one\n+    tier: two\n"), "{d}");
    }

    #[test]
    fn odd_layouts_fall_back_to_the_masked_document() {
        // Flow style: the whole field is one marker.
        let flow = "kind: Secret\nmetadata: {name: x}\ndata: {k: aHVudGVyMg==}\n";
        let (o, _) = mask_pair(Some(flow), None);
        let o = o.unwrap();
        assert!(
            o.contains("data: <masked>") && !o.contains("aHVudGVy"),
            "{o}"
        );
        // A plain scalar folded over lines: not understood line by line.
        let folded = "kind: Secret\nmetadata:\n  name: x\nstringData:\n  k: hunter2\n     continued\n# tail\n";
        let (o, _) = mask_pair(Some(folded), None);
        let o = o.unwrap();
        assert!(!o.contains("hunter2") && !o.contains("continued"), "{o}");
        assert!(!o.contains("# tail"), "re-serialized: {o}");
        // Several documents, one of them a Secret.
        let multi = "kind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: visible\n---\nkind: Secret\nmetadata:\n  name: s\ndata:\n  k: aGlkZGVu\n";
        let (o, _) = mask_pair(Some(multi), None);
        let o = o.unwrap();
        assert!(
            o.contains("  k: visible\n---\n") && !o.contains("aGlkZGVu"),
            "{o}"
        );
    }

    #[test]
    fn a_spelling_the_line_masking_misses_is_re_serialized() {
        let quoted = "kind: Secret\nmetadata:\n  name: q\n\"stringData\":\n  password: hunter2\n";
        let (o, _) = mask_pair(Some(quoted), None);
        let o = o.unwrap();
        assert!(!o.contains("hunter2"), "{o}");
        assert!(o.contains("password: <masked>"), "{o}");
    }
}
