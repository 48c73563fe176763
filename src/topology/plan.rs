//! `clusterctl alpha topology plan`'s output: the summary on stdout and the files in
//! the output directory (`created/`, `modified/`; cmd/clusterctl/cmd/topology_plan.go).

use serde_json::Value;

use super::{diff, input, obj, plan_cluster};
use crate::error::{Error, Result};
use crate::go::json::marshal;
use crate::go::mergepatch;

/// One output file (path relative to the output directory) and its bytes.
pub struct PlanFile {
    pub path: String,
    pub content: String,
}

/// The whole plan: what stdout shows and the files.
pub struct PlanOutput {
    pub stdout: String,
    pub files: Vec<PlanFile>,
    /// What the summary on stdout says, as data (`topology plan --output-format json`).
    pub summary: PlanSummary,
}

/// The summary table's content: the affected ClusterClasses and Clusters
/// (`<namespace>/<name>`), the Cluster planned, and one row per created or modified object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanSummary {
    pub cluster_classes: Vec<String>,
    pub clusters: Vec<String>,
    /// The Cluster whose changes are planned (the first one), if any.
    pub target: Option<String>,
    pub changes: Vec<PlanChange>,
}

/// One row of the summary table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanChange {
    pub namespace: String,
    pub kind: String,
    pub name: String,
    /// `created` or `modified`.
    pub action: String,
}

fn table(rows: &[[String; 4]], colors: &[&str]) -> String {
    let header = ["NAMESPACE", "KIND", "NAME", "ACTION"];
    let mut w = header.map(str::len);
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: [&str; 4], color: Option<&str>| {
        out.push(' ');
        for (i, c) in cells.iter().enumerate() {
            out.push(' ');
            match (i, color) {
                (3, Some(code)) => out.push_str(&format!("\x1b[{code}m{c}\x1b[0m")),
                _ => out.push_str(c),
            }
            out.push_str(&" ".repeat(w[i] - c.chars().count()));
            out.push(' ');
        }
        out.push_str(" \n");
    };
    line(header, None);
    for (r, col) in rows.iter().zip(colors) {
        line([&r[0], &r[1], &r[2], &r[3]], Some(col));
    }
    out
}

/// An output file name built from an object's kind, namespace and name must be one
/// plain file name: a kind or name with `/`, `\\` or NUL would write elsewhere.
fn check_file_name(f: &str, o: &Value) -> Result<()> {
    if crate::paths::is_safe_segment(f) {
        return Ok(());
    }
    Err(Error::new(format!(
        "{} {:?} in namespace {:?}: its kind and name cannot form an output file name ({f:?}); a kind or name may not contain '/', '\\' or NUL characters",
        obj::kind(o),
        obj::name(o),
        obj::namespace(o)
    )))
}

/// `spec.paused`, or the `cluster.x-k8s.io/paused` annotation.
fn is_paused_cluster(c: &Value) -> bool {
    obj::get(c, &["spec", "paused"]) == Some(&Value::Bool(true)) || super::is_paused(c)
}

/// Run the plan over the objects of the input files.
pub fn plan(
    mut objs: Vec<Value>,
    target_ns: &str,
    cluster_name: &str,
    out_dir: &str,
) -> Result<PlanOutput> {
    if let Some(o) = objs
        .iter()
        .find(|o| super::v1beta2::is_v1beta2_topology_object(o))
    {
        return Err(Error::new(format!(
            "{} {}: topology plan is clusterctl v1.10.10's; v1beta2 objects render with `capi-render render`",
            obj::kind(o),
            obj::name(o)
        )));
    }
    // clusterctl replaces the target namespace with the objects' namespace, "" when
    // they have none: `-n` only checks, objects without a namespace go to "default",
    // and `--cluster` then looks for "/NAME".
    let ns = input::validate(&objs, target_ns).map_err(|e| e.wrap("input failed validation"))?;
    input::set_missing_namespaces(&mut objs, &ns);
    // The Clusters and every other object (the webhooks' and the reconcile's inputs),
    // each in input order: moved apart, not copied.
    let (cluster_objs, inputs): (Vec<Value>, Vec<Value>) =
        objs.into_iter().partition(input::is_cluster);
    // The webhooks' dry-run client holds every object but the Clusters and ClusterClasses.
    for o in inputs.iter().filter(|o| !input::is_cluster_class(o)) {
        super::add_to_fake_client(o)?;
    }
    let mut stdout = String::new();
    let key_of = |o: &Value| format!("{}/{}", obj::namespace(o), obj::name(o));
    let classes: Vec<&Value> = inputs
        .iter()
        .filter(|o| input::is_cluster_class(o))
        .collect();
    if classes.is_empty() {
        stdout.push_str("No ClusterClasses will be affected by the changes.\n");
    } else {
        stdout.push_str("The following ClusterClasses will be affected by the changes:\n");
        for c in &classes {
            stdout.push_str(&format!(" ＊ {}/{}\n", obj::namespace(c), obj::name(c)));
        }
        stdout.push('\n');
    }
    let clusters: Vec<&Value> = cluster_objs.iter().collect();
    let mut summary = PlanSummary {
        cluster_classes: classes.iter().map(|c| key_of(c)).collect(),
        clusters: clusters.iter().map(|c| key_of(c)).collect(),
        ..Default::default()
    };
    if clusters.is_empty() {
        // Without a Cluster, clusterctl still runs the ClusterClass webhook and controller.
        for c in &classes {
            super::default_and_validate_class(&mut (*c).clone(), &inputs)?;
        }
        stdout.push_str("No Clusters will be affected by the changes.\n");
        return Ok(PlanOutput {
            stdout,
            files: vec![],
            summary,
        });
    }
    stdout.push_str("The following Clusters will be affected by the changes:\n");
    for c in &clusters {
        stdout.push_str(&format!(" ＊ {}/{}\n", obj::namespace(c), obj::name(c)));
    }
    stdout.push('\n');
    let cluster = clusters[0];
    if !cluster_name.is_empty()
        && (cluster_name != obj::name(cluster) || ns != obj::namespace(cluster))
    {
        return Err(Error::new(format!(
            "target cluster \"{ns}/{cluster_name}\" is not among the list of affected clusters"
        )));
    }
    let key = key_of(cluster);
    let has_topology = obj::get(cluster, &["spec", "topology"]).is_some_and(|t| !t.is_null());
    // clusterctl runs the ClusterClass webhook and controller on the input ClusterClass
    // and the Cluster webhook on the Cluster even when the Cluster does not use that
    // class, or no class at all (planning the Cluster checks its own class).
    if !has_topology || super::find_class(cluster, &inputs).is_none() {
        for c in &classes {
            super::default_and_validate_class(&mut (*c).clone(), &inputs)?;
        }
    }
    let mut p = if !has_topology {
        super::default_and_validate(cluster, None)?;
        None
    } else if is_paused_cluster(cluster) {
        // The topology controller returns before it computes anything; the webhooks
        // still run.
        super::validate_cluster_and_class(cluster, &inputs)?;
        None
    } else {
        Some(plan_cluster(cluster, &inputs)?)
    };
    let Some(p) = p.as_mut() else {
        stdout.push_str(&format!("No changes detected for Cluster {key:?}.\n\n"));
        summary.target = Some(key);
        return Ok(PlanOutput {
            stdout,
            files: vec![],
            summary,
        });
    };
    obj::sort_by_kind_and_name(&mut p.created);
    let mut rows = Vec::new();
    let mut colors = Vec::new();
    for c in &p.created {
        rows.push([
            obj::namespace(c).to_string(),
            obj::kind(c).to_string(),
            obj::name(c).to_string(),
            "created".into(),
        ]);
        colors.push("32");
    }
    let modified = p.cluster_before != p.cluster_after;
    if modified {
        let a = &p.cluster_after;
        rows.push([
            obj::namespace(a).to_string(),
            obj::kind(a).to_string(),
            obj::name(a).to_string(),
            "modified".into(),
        ]);
        colors.push("33");
    }
    stdout.push_str(&format!("Changes for Cluster {key:?}: \n\n"));
    stdout.push_str(&table(&rows, &colors));
    summary.changes = rows
        .iter()
        .map(|[namespace, kind, name, action]| PlanChange {
            namespace: namespace.clone(),
            kind: kind.clone(),
            name: name.clone(),
            action: action.clone(),
        })
        .collect();
    summary.target = Some(key);
    stdout.push('\n');
    let mut files = Vec::new();
    let join = |d: &str, f: &str| join_dir(&join_dir(out_dir, d), f);
    for c in &p.created {
        let f = format!(
            "{}_{}_{}.yaml",
            obj::kind(c),
            obj::namespace(c),
            obj::name(c)
        );
        check_file_name(&f, c)?;
        files.push(PlanFile {
            path: format!("created/{f}"),
            content: crate::yaml::from_objects(std::slice::from_ref(c)),
        });
    }
    if !p.created.is_empty() {
        stdout.push_str(&format!(
            "Created objects are written to directory {:?}\n",
            join_dir(out_dir, "created")
        ));
    }
    if modified {
        let a = &p.cluster_after;
        let base = format!("{}_{}_{}", obj::kind(a), obj::namespace(a), obj::name(a));
        check_file_name(&base, a)?;
        let before = crate::yaml::from_objects(std::slice::from_ref(&p.cluster_before));
        let after = crate::yaml::from_objects(std::slice::from_ref(a));
        let patch = marshal(&mergepatch::create(&p.cluster_before, a));
        let d = diff::unified(
            &join("modified", &format!("{base}.original.yaml")),
            &join("modified", &format!("{base}.modified.yaml")),
            &before,
            &after,
        );
        files.push(PlanFile {
            path: format!("modified/{base}.modified.yaml"),
            content: after,
        });
        files.push(PlanFile {
            path: format!("modified/{base}.original.yaml"),
            content: before,
        });
        files.push(PlanFile {
            path: format!("modified/{base}.jsonpatch"),
            content: patch,
        });
        files.push(PlanFile {
            path: format!("modified/{base}.diff"),
            content: d,
        });
        stdout.push_str(&format!(
            "Modified objects are written to directory {:?}\n",
            join_dir(out_dir, "modified")
        ));
    }
    stdout.push('\n');
    Ok(PlanOutput {
        stdout,
        files,
        summary,
    })
}

/// Go's `path.Join(dir, sub)`.
fn join_dir(dir: &str, sub: &str) -> String {
    if dir.is_empty() || dir == "." {
        return sub.to_string();
    }
    format!("{}/{sub}", dir.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_pads_like_tablewriter() {
        let t = table(
            &[[
                "default".into(),
                "Secret".into(),
                "c-shim".into(),
                "created".into(),
            ]],
            &["32"],
        );
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "  NAMESPACE  KIND    NAME    ACTION   ");
        assert_eq!(
            lines[1],
            "  default    Secret  c-shim  \x1b[32mcreated\x1b[0m  "
        );
    }

    #[test]
    fn join_dir_is_go_path_join() {
        assert_eq!(join_dir(".", "created"), "created");
        assert_eq!(join_dir("out/", "created"), "out/created");
    }
}
