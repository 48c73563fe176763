//! `--clusters managed`: the class units, one per ClusterClass of the inputs.

use super::Namespace;
use crate::model::{unit_dir, RenderedUnit, UnitKind};

/// `--clusters managed`: one unit per ClusterClass of the inputs (namespaces in the
/// order first met, classes in input order), each with the templates it refers to
/// (first, in reference order) and then the class. A template two classes share is in
/// the first one's unit, which the other's follows.
pub(super) fn class_units(namespaces: &[Namespace]) -> crate::Result<Vec<RenderedUnit>> {
    use crate::topology::{class_unit, obj};
    let mut units = Vec::new();
    for ns in namespaces.iter().filter(|n| !n.class_origins.is_empty()) {
        let mut index: std::collections::HashMap<(&str, &str), usize> = Default::default();
        for (i, o) in ns.objects.iter().enumerate() {
            index.entry((obj::kind(o), obj::name(o))).or_insert(i);
        }
        let mut owner: std::collections::HashMap<usize, String> = Default::default();
        for (at, file, doc) in &ns.class_origins {
            let class = &ns.objects[*at];
            let name = obj::name(class).to_string();
            let dir = unit_dir(&UnitKind::Class, &ns.name, &name);
            let mut unit = RenderedUnit::new(UnitKind::Class, ns.name.clone(), name, Vec::new());
            for r in class_unit::template_refs(class) {
                let Some(&i) = index.get(&(r.kind.as_str(), r.name.as_str())) else {
                    return Err(crate::Error::new(format!(
                        "ClusterClass {}/{} ({file}, document {}): {}: {} {}/{} is not in the inputs",
                        ns.name, unit.name, doc + 1, r.path, r.kind, ns.name, r.name
                    ))
                    .with_hint("add the template to the inputs: the class unit applies the ClusterClass with every template it refers to (or render with --clusters flatten, which applies no class)")
                    .in_file(file));
                };
                match owner.get(&i) {
                    Some(d) if *d != dir => {
                        if !unit.after.contains(d) {
                            unit.after.push(d.clone());
                        }
                    }
                    Some(_) => {}
                    None => {
                        owner.insert(i, dir.clone());
                        unit.objects.push(ns.objects[i].clone());
                    }
                }
            }
            unit.objects.push(class.clone());
            units.push(unit);
        }
    }
    Ok(units)
}
