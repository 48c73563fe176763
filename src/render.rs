//! The `render` data model shared by the stages after resolution: what the operator
//! pipeline (providers) and the topology engine (clusters) produce, and what the
//! GitOps writer (`gitops`), the bundle writer and `render --stdout` consume.

use serde_json::Value;

/// One input file as read: its path as given (relative paths stay relative) and the
/// sha256 (lower-case hex) of its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputFile {
    pub path: String,
    pub sha256: String,
}

/// What a rendered unit is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnitKind {
    /// A provider CR: `providers/<namespace>/<type>-<name>/`.
    Provider(ProviderInfo),
    /// A Cluster with `spec.topology`: `clusters/<namespace>/<name>/`.
    Cluster,
}

/// Resolution facts of one provider, recorded in the lock file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderInfo {
    /// The operator type string (`GetType()`): core, bootstrap, control-plane,
    /// infrastructure, addon, ipam, runtimeextension.
    pub provider_type: String,
    /// The CR kind, e.g. `InfrastructureProvider`.
    pub kind: String,
    pub version: String,
    pub contract: String,
    /// Where the components came from, e.g. `repository:<dir>/<label>/<version>`,
    /// `configmap:<ns>/<name>`, `oci:<ref>`.
    pub source: String,
}

/// The objects of one provider or one cluster, in apply order.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedUnit {
    pub kind: UnitKind,
    pub namespace: String,
    pub name: String,
    pub objects: Vec<Value>,
}

impl RenderedUnit {
    /// The unit's directory inside the GitOps tree.
    pub fn dir(&self) -> String {
        match &self.kind {
            UnitKind::Provider(p) => {
                format!(
                    "providers/{}/{}-{}",
                    self.namespace, p.provider_type, self.name
                )
            }
            UnitKind::Cluster => format!("clusters/{}/{}", self.namespace, self.name),
        }
    }
}

/// Everything one `render` run produced: providers first (core first), then clusters.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RenderSet {
    pub inputs: Vec<InputFile>,
    pub units: Vec<RenderedUnit>,
    /// Non-fatal findings to print on stderr (never secret values).
    pub warnings: Vec<String>,
}

impl RenderSet {
    /// `render --stdout`: every object of every unit, in order, as one YAML stream.
    pub fn to_yaml_stream(&self) -> String {
        let objs: Vec<Value> = self
            .units
            .iter()
            .flat_map(|u| u.objects.iter().cloned())
            .collect();
        let mut s = crate::yaml::from_objects(&objs);
        if !s.is_empty() && !s.ends_with('\n') {
            s.push('\n');
        }
        s
    }
}

/// One object of the inputs: the file it came from, its document index (0-based) and
/// the parsed object.
#[derive(Debug, Clone, PartialEq)]
pub struct InputObject {
    pub file: String,
    pub doc: usize,
    pub value: Value,
}

/// Options of a render run.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// `--repository DIR`: local clusterctl repository for URL/default sources.
    pub repository: Option<std::path::PathBuf>,
    /// `--config FILE`: clusterctl config file (its `providers:` URLs map to folders).
    pub config: Option<std::path::PathBuf>,
    /// Do not emit the provider Namespace objects.
    pub no_namespaces: bool,
    /// `--oci-layout DIR`: an OCI image layout holding the artifacts `fetchConfig.oci`
    /// names (found by tag, files by their title annotations).
    pub oci_layout: Option<std::path::PathBuf>,
    /// Accept inputs that yield no unit (`--allow-empty`); without it that is an error,
    /// so that a wrong input never empties a tree.
    pub allow_empty: bool,
}

/// Read every input path (files, or directories walked recursively for `*.yaml` /
/// `*.yml`, sorted) and render everything in them.
pub fn render_paths(
    paths: &[std::path::PathBuf],
    opts: &RenderOptions,
) -> crate::Result<RenderSet> {
    let loaded = crate::load::load_paths(paths)?;
    render_objects(loaded.objects, loaded.files, opts)
}

/// Render already-loaded objects (the KRM function's `items`); `files` are recorded in
/// the lock as inputs, followed by the repository / OCI files the providers were read
/// from.
pub fn render_objects(
    objects: Vec<InputObject>,
    files: Vec<InputFile>,
    opts: &RenderOptions,
) -> crate::Result<RenderSet> {
    crate::admit::check(&objects)?;
    let (mut units, extra, warnings) = crate::operator::render_providers(&objects, opts)?;
    units.extend(render_clusters(&objects)?);
    if units.is_empty() && !opts.allow_empty {
        return Err(crate::Error::new(
            "the inputs yield nothing to render: no provider CR and no Cluster with spec.topology. With -o this would remove every unit of the tree; check the input paths, or pass --allow-empty if an empty output is what you want",
        ));
    }
    let mut inputs = files;
    for f in extra {
        if !inputs.contains(&f) {
            inputs.push(f);
        }
    }
    Ok(RenderSet {
        inputs,
        units,
        warnings,
    })
}

/// Every Cluster with `spec.topology` in the inputs, rendered against the ClusterClasses
/// and templates of its namespace (objects without a namespace are in `default`), in
/// parallel; units in input order. Each Cluster sees only its own namespace's
/// non-Cluster objects, so adding a Cluster never changes another's output.
fn render_clusters(objects: &[InputObject]) -> crate::Result<Vec<RenderedUnit>> {
    use crate::topology::{desired_view, input, obj, v1beta2};
    let is_cluster = |o: &Value| input::is_cluster(o) || v1beta2::is_cluster(o);
    let mut values: Vec<Value> = objects.iter().map(|o| o.value.clone()).collect();
    input::set_missing_namespaces(&mut values, "");
    let jobs: Vec<usize> = (0..values.len())
        .filter(|&i| {
            is_cluster(&values[i])
                && obj::get(&values[i], &["spec", "topology"]).is_some_and(|t| !t.is_null())
        })
        .collect();
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    let render_one = |i: usize| -> crate::Result<RenderedUnit> {
        let c = &values[i];
        let (ns, name) = (obj::namespace(c).to_string(), obj::name(c).to_string());
        let same_ns: Vec<Value> = values
            .iter()
            .filter(|o| obj::namespace(o) == ns && !is_cluster(o))
            .cloned()
            .collect();
        let objs = crate::topology::render_cluster(c, &same_ns).map_err(|e| {
            e.wrap(format!(
                "Cluster {ns}/{name} ({}, document {})",
                objects[i].file,
                objects[i].doc + 1
            ))
            .in_file(&objects[i].file)
        })?;
        crate::progress::step();
        Ok(RenderedUnit {
            kind: UnitKind::Cluster,
            objects: desired_view::without_dry_run_artefacts(objs, &name),
            namespace: ns,
            name,
        })
    };
    // Contiguous chunks, one thread each; joining them in order keeps input order, so
    // the first error in input order wins, as a sequential run would report it.
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(jobs.len());
    let per = jobs.len().div_ceil(workers);
    crate::progress::start("clusters", jobs.len());
    let res = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .chunks(per)
            .map(|chunk| {
                let render_one = &render_one;
                s.spawn(move || chunk.iter().map(|&i| render_one(i)).collect::<Vec<_>>())
            })
            .collect();
        let mut units = Vec::with_capacity(jobs.len());
        for h in handles {
            let rs = h
                .join()
                .map_err(|_| crate::Error::new("internal error: a topology worker panicked"))?;
            for r in rs {
                units.push(r?);
            }
        }
        Ok(units)
    });
    crate::progress::finish();
    res
}
