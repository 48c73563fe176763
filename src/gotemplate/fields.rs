//! The top-level fields a template reads from its data: `.x` where dot is still the
//! data (outside `range` and `with` bodies) and `$.x` anywhere. `lint` checks them
//! against a ClusterClass's declared variables.

use std::collections::BTreeSet;

use super::parse::{Arg, Control, Node, Pipe};

/// The first field name of every root reference in the parsed trees.
pub fn root_fields(trees: &[&Vec<Node>]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for t in trees {
        nodes(t, true, &mut out);
    }
    out
}

fn nodes(list: &[Node], dot_is_root: bool, out: &mut BTreeSet<String>) {
    for n in list {
        match n {
            Node::Action { pipe, .. } => pipe_fields(pipe, dot_is_root, out),
            Node::Control {
                kind,
                pipe,
                list,
                else_list,
                ..
            } => {
                pipe_fields(pipe, dot_is_root, out);
                nodes(list, dot_is_root && *kind == Control::If, out);
                if let Some(e) = else_list {
                    nodes(e, dot_is_root, out);
                }
            }
            Node::Template { pipe: Some(p), .. } => pipe_fields(p, dot_is_root, out),
            _ => {}
        }
    }
}

fn pipe_fields(p: &Pipe, dot_is_root: bool, out: &mut BTreeSet<String>) {
    for c in &p.cmds {
        for a in &c.args {
            arg_fields(a, dot_is_root, out);
        }
    }
}

fn arg_fields(a: &Arg, dot_is_root: bool, out: &mut BTreeSet<String>) {
    match a {
        Arg::Field { idents, .. } if dot_is_root => {
            if let Some(f) = idents.first() {
                out.insert(f.clone());
            }
        }
        Arg::Variable { idents, .. } if idents.first().is_some_and(|v| v == "$") => {
            if let Some(f) = idents.get(1) {
                out.insert(f.clone());
            }
        }
        Arg::Chain { node, .. } => arg_fields(node, dot_is_root, out),
        Arg::Pipe(p) => pipe_fields(p, dot_is_root, out),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::gotemplate::{root_fields, Options};

    #[test]
    fn root_references_only() {
        let o = Options::default();
        let f = |t: &str| root_fields(t, &o).unwrap();
        assert_eq!(f("{{ .a.b }}-{{ .c | upper }}"), ["a", "c"]);
        assert_eq!(f("{{ if .a }}{{ .b }}{{ end }}"), ["a", "b"]);
        assert_eq!(
            f("{{ range .list }}{{ .name }}{{ $.top }}{{ end }}"),
            ["list", "top"]
        );
        assert_eq!(
            f("{{ with .x }}{{ .y }}{{ else }}{{ .z }}{{ end }}"),
            ["x", "z"]
        );
        assert_eq!(f("{{ printf \"%s\" (.inner) }}"), ["inner"]);
        assert!(root_fields("{{ if }}", &o).is_err());
    }
}
