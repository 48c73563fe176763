//! Where a field path (Go's `field.Path` form: `spec.workers.machineDeployments[0].class`,
//! a map key as `[key]`) sits in one YAML document's text: the line and column of its
//! key (or list item), or of its deepest ancestor the document has. Errors that name a
//! field (admission, schema checks) point at the line with it. Read with the event
//! parser under our YAML reader, so flow style, quoting and comments are all found.

use granit_parser::{Event, Parser, Span};

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// `spec.a[0].b[key]` → `[spec, a, 0, b, key]`; a bracket holding digits is an index.
fn segments(path: &str) -> Vec<Seg> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']').unwrap_or(r.len());
            let inner = &r[..end];
            out.push(match inner.parse::<usize>() {
                Ok(i) => Seg::Index(i),
                Err(_) => Seg::Key(inner.to_string()),
            });
            rest = r.get(end + 1..).unwrap_or("");
        } else {
            let r = rest.strip_prefix('.').unwrap_or(rest);
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end > 0 {
                out.push(Seg::Key(r[..end].to_string()));
            }
            rest = &r[end..];
        }
    }
    out
}

/// The events of one document, each with its span; a parse error ends them.
struct Events<'a> {
    parser: Parser<'a, granit_parser::StrInput<'a>>,
}

impl<'a> Events<'a> {
    /// The next event that is part of the document's content (comments are skipped).
    fn next(&mut self) -> Option<(Event<'a>, Span)> {
        loop {
            let (e, span) = self.parser.next_event()?.ok()?;
            if !matches!(e, Event::Comment(..)) {
                return Some((e, span));
            }
        }
    }
}

/// The deepest match so far: how many segments, and where.
struct Best {
    depth: usize,
    line: usize,
    col: usize,
}

/// Walks the node whose first event is `first`, at path `target[..depth]` when
/// `matched`; records every deeper match in `best`. Returns false when the events end
/// early (a parse error).
fn node(
    ev: &mut Events,
    first: Event,
    target: &[Seg],
    depth: usize,
    matched: bool,
    best: &mut Best,
) -> bool {
    match first {
        Event::MappingStart(..) => loop {
            let Some((key, span)) = ev.next() else {
                return false;
            };
            if matches!(key, Event::MappingEnd) {
                return true;
            }
            let name = match &key {
                Event::Scalar(s, ..) => Some(s.to_string()),
                _ => None,
            };
            if name.is_none() && !node(ev, key, target, depth, false, best) {
                return false;
            }
            let Some((value, _)) = ev.next() else {
                return false;
            };
            let hit = matched
                && depth < target.len()
                && name
                    .as_deref()
                    .is_some_and(|n| target[depth] == Seg::Key(n.to_string()));
            if hit && depth + 1 > best.depth {
                *best = Best {
                    depth: depth + 1,
                    line: span.start.line(),
                    col: span.start.col() + 1,
                };
            }
            if !node(ev, value, target, depth + 1, hit, best) {
                return false;
            }
        },
        Event::SequenceStart(..) => {
            let mut i = 0;
            loop {
                let Some((item, span)) = ev.next() else {
                    return false;
                };
                if matches!(item, Event::SequenceEnd) {
                    return true;
                }
                let hit = matched && depth < target.len() && target[depth] == Seg::Index(i);
                if hit && depth + 1 > best.depth {
                    *best = Best {
                        depth: depth + 1,
                        line: span.start.line(),
                        col: span.start.col() + 1,
                    };
                }
                if !node(ev, item, target, depth + 1, hit, best) {
                    return false;
                }
                i += 1;
            }
        }
        _ => true,
    }
}

/// The 1-based line and column, in `doc` (one YAML document's text), of the field at
/// `path`, or of its deepest ancestor present (the document's first node for none);
/// `None` when the text is no YAML document.
pub fn field_position(doc: &str, path: &str) -> Option<(usize, usize)> {
    let target = segments(path);
    let mut ev = Events {
        parser: Parser::new_from_str(doc),
    };
    loop {
        let (e, span) = ev.next()?;
        match e {
            Event::StreamStart | Event::DocumentStart(..) => continue,
            Event::StreamEnd | Event::DocumentEnd => return None,
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let mut best = Best {
                    depth: 0,
                    line: span.start.line(),
                    col: span.start.col() + 1,
                };
                node(&mut ev, e, &target, 0, true, &mut best);
                return Some((best.line, best.col));
            }
            _ => return Some((span.start.line(), span.start.col() + 1)),
        }
    }
}

/// `path` with each `[key]` that names an item of a list in `v` (Go prints a list-map
/// item by its `name`, e.g. `machineDeployments[md-0]`) written as that item's index.
pub fn resolve_list_keys(v: &serde_json::Value, path: &str) -> String {
    use serde_json::Value;
    let mut out = String::new();
    let mut at = Some(v);
    for seg in segments(path) {
        match seg {
            Seg::Key(k) => match at {
                Some(Value::Array(items)) => {
                    let i = items
                        .iter()
                        .position(|x| x.get("name").and_then(Value::as_str) == Some(&k));
                    match i {
                        Some(i) => {
                            out.push_str(&format!("[{i}]"));
                            at = items.get(i);
                        }
                        None => {
                            out.push_str(&format!("[{k}]"));
                            at = None;
                        }
                    }
                }
                Some(Value::Object(m)) if !out.is_empty() && k.contains(['/', '.']) => {
                    out.push_str(&format!("[{k}]"));
                    at = m.get(&k);
                }
                other => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(&k);
                    at = other.and_then(|o| o.get(&k));
                }
            },
            Seg::Index(i) => {
                out.push_str(&format!("[{i}]"));
                at = at.and_then(|o| o.get(i));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# a comment\napiVersion: cluster.x-k8s.io/v1beta2\nkind: ClusterClass\nspec:\n  controlPlane:\n    machineHealthCheck:\n      maxUnhealthy: 40%\n  workers:\n    machineDeployments:\n    - class: a\n    - class: b\n      template: {bootstrap: {ref: {name: x}}}\n  variables: [{name: v, \"required\": true}]\n";

    #[test]
    fn finds_keys_items_and_flow_style() {
        assert_eq!(
            field_position(DOC, "spec.controlPlane.machineHealthCheck"),
            Some((6, 5))
        );
        assert_eq!(
            field_position(DOC, "spec.workers.machineDeployments[1]"),
            Some((11, 7))
        );
        assert_eq!(
            field_position(
                DOC,
                "spec.workers.machineDeployments[1].template.bootstrap.ref"
            ),
            Some((12, 30))
        );
        assert_eq!(
            field_position(DOC, "spec.variables[0].required"),
            Some((13, 25))
        );
    }

    #[test]
    fn a_missing_field_names_its_deepest_ancestor() {
        // A required field that is absent: its parent's line.
        assert_eq!(
            field_position(DOC, "spec.controlPlane.healthCheck"),
            Some((5, 3))
        );
        assert_eq!(
            field_position(DOC, "spec.workers.machineDeployments[7].class"),
            Some((9, 5))
        );
        assert_eq!(field_position(DOC, "metadata.name"), Some((2, 1)));
    }

    #[test]
    fn list_items_named_by_key_become_indexes() {
        let v = serde_json::json!({"spec": {"workers": {"machineDeployments": [{"name": "a"}, {"name": "md-0", "taints": [{"key": "k"}]}]}}});
        assert_eq!(
            resolve_list_keys(&v, "spec.workers.machineDeployments[md-0].taints[0].key"),
            "spec.workers.machineDeployments[1].taints[0].key"
        );
        assert_eq!(
            resolve_list_keys(&v, "spec.workers.machineDeployments[zz]"),
            "spec.workers.machineDeployments[zz]"
        );
    }

    #[test]
    fn paths_split_as_go_prints_them() {
        use Seg::*;
        assert_eq!(
            segments("metadata.annotations[cluster.x-k8s.io/x].a[3]"),
            vec![
                Key("metadata".into()),
                Key("annotations".into()),
                Key("cluster.x-k8s.io/x".into()),
                Key("a".into()),
                Index(3)
            ]
        );
        // No document at all: nothing to point at.
        assert_eq!(field_position("", "a"), None);
    }
}
