//! The `render` orchestrator: gathers the loaded objects ([`Inputs`]), indexes the
//! topology Clusters once by namespace, resolves the providers (`operator`) and streams
//! the units (providers, then Clusters through `topology`) to a sink ([`Rendering`]):
//! `render --stdout`, the GitOps writer and checker (`gitops`), the bundle and `diff`.

use crate::model::{
    unit_dir, ClusterMode, InputFile, InputObject, RenderOptions, RenderSet, RenderedUnit, UnitKind,
};
use serde_json::Value;

mod admission;
mod class_units;
pub mod core_version;
mod crd_check;
mod extensions;
mod inputs;
pub mod namespaces;
use class_units::class_units;

/// Read every input path (files, or directories walked recursively for `*.yaml` /
/// `*.yml`, sorted) and render everything in them.
pub fn render_paths(
    paths: &[std::path::PathBuf],
    opts: &RenderOptions,
) -> crate::Result<RenderSet> {
    let loaded = crate::load::load_paths(paths)?;
    render_objects(loaded.objects, loaded.files, opts)
}

/// Render already-loaded objects (the KRM function's `items`); `files` are the lock's
/// inputs, then the repository / OCI files the providers came from. Every unit is kept
/// in memory: [`prepare`] and [`Rendering::stream`] are the streaming form.
pub fn render_objects(
    objects: Vec<InputObject>,
    files: Vec<InputFile>,
    opts: &RenderOptions,
) -> crate::Result<RenderSet> {
    prepare(Inputs::from_objects(objects), files, opts)?.into_set()
}

pub use inputs::{Admitted, Inputs, RecordedCluster};
use inputs::{DeferredFile, PendingCluster};
type Arc<T> = std::sync::Arc<T>;

/// A render run whose providers are rendered and whose Clusters are indexed, ready to
/// produce its units one by one ([`Rendering::stream`]).
pub struct Rendering {
    /// The input files, then the repository / OCI files the providers were read from.
    pub inputs: Vec<InputFile>,
    /// Non-fatal findings to print on stderr (never secret values).
    pub warnings: Vec<String>,
    /// The namespaces unit, the providers, then (`--clusters managed`) the class units.
    providers: Vec<RenderedUnit>,
    clusters: Vec<ClusterJob>,
    namespaces: Vec<Namespace>,
    mode: ClusterMode,
    /// The core provider reads Clusters as v1beta2 ([`core_version`]).
    v1beta2_core: bool,
    /// External patches are left out of the desired objects, not refused
    /// ([`Rendering::defer_external_patches`]).
    defer_external: bool,
    /// The input files that hold topology Clusters and nothing else, with how many
    /// (the lock records them: [`crate::load::Item::Deferred`] next time).
    pub clusters_only: std::collections::BTreeMap<String, usize>,
    /// The Runtime SDK, when the run calls extensions ([`Rendering::call_extensions`]).
    runtime: Option<Arc<crate::runtime::Session>>,
}

/// One topology Cluster to render (compact, namespace set), where it came from, and
/// the index of its namespace in [`Rendering::namespaces`].
struct ClusterJob {
    name: String,
    value: Option<crate::model::compact::Compact>,
    hash: String,
    file: Arc<str>,
    doc: usize,
    deferred: Option<(Arc<DeferredFile>, usize)>,
    namespace: usize,
    /// The namespace its ClusterClass is in, when another one and known before the
    /// Cluster is parsed (not for a deferred file's: [`render_cluster`] finds it).
    class_namespace: Option<usize>,
}

impl ClusterJob {
    /// The Cluster's compact form and document: its own, or its deferred file's
    /// (parsed now, once per file; the recorded name and sum must still hold).
    fn cluster(&self, ns: &str) -> crate::Result<(&crate::model::compact::Compact, usize)> {
        if let Some(v) = &self.value {
            return Ok((v, self.doc));
        }
        let (d, k) = self
            .deferred
            .as_ref()
            .ok_or_else(|| crate::Error::new("internal error: a Cluster without its value"))?;
        let p = d
            .parsed()?
            .get(*k)
            .filter(|p| p.namespace == ns && p.name == self.name && p.hash == self.hash);
        match p.and_then(|p| Some((p.value.as_ref()?, p.doc))) {
            Some(v) => Ok(v),
            None => Err(crate::Error::new(format!(
                "{}: Cluster {ns}/{} is not where OUT's lock records it (the lock was edited, or the file changed during the run)",
                self.file, self.name
            ))
            .with_hint("run again with --full: it parses every input and rewrites the lock")
            .in_file(&self.file)),
        }
    }
}

/// The non-Cluster objects of one namespace (what its Clusters are rendered against)
/// and the ClusterClasses prepared for them, shared read-only by every Cluster there.
#[derive(Default)]
struct Namespace {
    name: String,
    objects: Vec<Value>,
    classes: crate::topology::ClassCache,
    /// sha256 over the compact form of every object, in input order: with the Cluster
    /// itself, everything a Cluster's unit is rendered from.
    fingerprint: String,
    /// Where each ClusterClass of `objects` came from: (index, file, document).
    class_origins: Vec<(usize, std::sync::Arc<str>, usize)>,
    /// Where each ExtensionConfig of `objects` came from: (index, file, document).
    extension_origins: Vec<(usize, std::sync::Arc<str>, usize)>,
}

/// The file and document an input object came from.
type Origin = (std::sync::Arc<str>, usize);

/// Clusters rendered per batch at most: the units in flight, which bound memory with
/// the inputs.
const BATCH: usize = 256;

/// Clusters per batch when `renders` are to be rendered: [`BATCH`], or a sixteenth of
/// them (16 at least): the first and last batch each leave a core idle once per run.
fn batch_size(renders: usize) -> usize {
    (renders / 16).clamp(16, BATCH)
}

impl Rendering {
    /// The namespaces unit, the providers and the class units, in order.
    pub fn provider_units(&self) -> &[RenderedUnit] {
        &self.providers
    }

    /// For `diff` without the runtime extensions: a Cluster whose ClusterClass has
    /// external patches renders (managed mode) with those patches left out and named in
    /// [`RenderedUnit::pending`], instead of failing the run; its rollout impact is then
    /// `unknown`.
    pub fn defer_external_patches(&mut self) {
        self.defer_external = self.mode == ClusterMode::Managed;
    }

    /// The same, to change (`render --secrets sops` seals their Secrets).
    pub fn provider_units_mut(&mut self) -> &mut [RenderedUnit] {
        &mut self.providers
    }
}

/// Clusters per batch at most, kept ones included (a kept Cluster is a few strings).
const KEPT_BATCH: usize = 8192;

/// Check the inputs, render every provider and index every topology Cluster by its
/// namespace (each object is read once; no Cluster scans its namespace).
pub fn prepare(
    mut inputs: Inputs,
    files: Vec<InputFile>,
    opts: &RenderOptions,
) -> crate::Result<Rendering> {
    if let Some(e) = inputs.refused {
        return Err(e);
    }
    let kept = namespaces::take_inputs(&mut inputs.objects, opts.no_namespaces)?;
    let core = core_version::core_version(&inputs.objects, opts.capi_version.as_deref())?;
    let v1beta2_core = core.as_deref().is_some_and(core_version::is_v1beta2_core);
    let (mut providers, mut extra, mut warnings) =
        crate::operator::render_providers(&inputs.objects, opts)?;
    warnings.extend(admission::admit(
        &mut inputs.objects,
        &mut inputs.clusters,
        &providers,
        opts.repository.as_deref(),
        opts.field_validation,
        v1beta2_core,
    )?);
    let off = opts.no_validate;
    warnings.extend(crd_check::validate_inputs(
        &inputs,
        &providers,
        opts.repository.as_deref(),
        off,
        v1beta2_core,
    )?);
    if opts.cert_manager {
        let (unit, file) = cert_manager_unit(opts)?;
        providers.insert(0, unit);
        extra.insert(0, file);
    }
    if !inputs.clusters.is_empty() {
        warnings.extend(crate::operator::cluster_topology_gate_warning(&providers));
    }
    let clusters_only = inputs
        .counts
        .into_iter()
        .filter(|(_, (n, other))| *n > 0 && !other)
        .map(|(f, (n, _))| (f, n))
        .collect();
    crate::admit::unique_clusters(inputs.clusters.iter().map(PendingCluster::origin))?;
    let (clusters, namespaces) = index_clusters(inputs.objects, inputs.clusters, v1beta2_core);
    if opts.clusters == ClusterMode::Managed {
        providers.extend(class_units(&namespaces)?);
    }
    // `--clusters desired` is the topology controller's objects only (review, never
    // applied): no namespaces unit.
    if !opts.no_namespaces && opts.clusters != ClusterMode::Desired {
        let used = clusters
            .iter()
            .map(|j| namespaces[j.namespace].name.as_str());
        if let Some(u) = namespaces::unit(kept, &mut providers, used) {
            providers.insert(0, u);
        }
    }
    if providers.is_empty() && clusters.is_empty() && !opts.allow_empty {
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
    Ok(Rendering {
        inputs,
        warnings,
        providers,
        clusters,
        namespaces,
        mode: opts.clusters,
        v1beta2_core,
        defer_external: false,
        clusters_only,
        runtime: None,
    })
}

/// `--cert-manager`: the unit of the release [`crate::certmanager::read`] finds, with
/// clusterctl's image overrides, and the file it came from (under `--repository` as
/// given, so that the lock stays portable).
fn cert_manager_unit(opts: &RenderOptions) -> crate::Result<(RenderedUnit, InputFile)> {
    let config = crate::operator::operator_config(opts)?;
    let release = crate::certmanager::read(&config)?.ok_or_else(|| {
        crate::Error::new("--cert-manager: no local cert-manager release").with_hint(format!(
            "pass --repository DIR with DIR/cert-manager/{}/{}, or set cert-manager.url (a local path) in --config",
            crate::certmanager::DEFAULT_VERSION,
            crate::certmanager::FILE
        ))
    })?;
    let k8s = config.k8s();
    let objects = crate::certmanager::objects(&release, config.images.as_ref(), k8s)
        .map_err(|e| release.error(e))?;
    let under_repository = match (&opts.repository, &config.repository) {
        (Some(given), Some(abs)) => release
            .path
            .strip_prefix(abs)
            .ok()
            .map(|rest| (given.clone(), given.join(rest))),
        _ => None,
    };
    let (source, shown) = match under_repository {
        Some((repo, path)) => (format!("repository:{}", repo.display()), path),
        None => ("config:cert-manager.url".to_string(), release.path.clone()),
    };
    let file = InputFile {
        path: shown.display().to_string(),
        sha256: crate::model::sha256_hex(release.text.as_bytes()),
    };
    let unit = RenderedUnit {
        kind: UnitKind::CertManager(crate::model::ProviderInfo {
            provider_type: "cert-manager".to_string(),
            kind: "CertManager".to_string(),
            version: release.version.clone(),
            contract: String::new(),
            source,
            ..Default::default()
        }),
        namespace: "cert-manager".to_string(),
        name: "cert-manager".to_string(),
        objects,
        review: Vec::new(),
        after: Vec::new(),
        pending: Vec::new(),
        answers: Vec::new(),
    };
    Ok((unit, file))
}

/// Every object goes to its namespace (objects without a namespace are in `default`),
/// every Cluster becomes a job (input order) that points at its namespace. Each
/// Cluster sees only its own namespace's non-Cluster objects, so adding a Cluster
/// never changes another's output.
fn index_clusters(
    objects: Vec<InputObject>,
    pending: Vec<PendingCluster>,
    v1beta2_core: bool,
) -> (Vec<ClusterJob>, Vec<Namespace>) {
    use crate::topology::{input, obj, v1beta2};
    let mut by_name: std::collections::HashMap<String, usize> = Default::default();
    let mut namespaces: Vec<Namespace> = Vec::new();
    let mut ns_of = |name: &str| -> usize {
        *by_name.entry(name.to_string()).or_insert_with(|| {
            namespaces.push(Namespace {
                name: name.to_string(),
                objects: Vec::new(),
                classes: crate::topology::ClassCache::for_core(v1beta2_core),
                fingerprint: String::new(),
                class_origins: Vec::new(),
                extension_origins: Vec::new(),
            });
            namespaces.len() - 1
        })
    };
    let mut placed: Vec<(usize, Value, Option<Origin>)> = Vec::with_capacity(objects.len());
    for o in objects {
        let mut value = o.value;
        // A Cluster without spec.topology (refused by `admit`) is no input of others.
        if input::is_cluster(&value) || v1beta2::is_cluster(&value) {
            continue;
        }
        input::set_missing_namespaces(std::slice::from_mut(&mut value), "");
        let origin = (crate::topology::class_unit::is_class(&value)
            || crate::runtime::config::is_extension_config(&value))
        .then(|| (std::sync::Arc::from(o.file.as_str()), o.doc));
        placed.push((ns_of(obj::namespace(&value)), value, origin));
    }
    let clusters = pending
        .into_iter()
        .map(|p| ClusterJob {
            namespace: ns_of(&p.namespace),
            class_namespace: p.class_namespace.as_deref().map(&mut ns_of),
            name: p.name,
            value: p.value,
            hash: p.hash,
            file: p.file,
            doc: p.doc,
            deferred: p.deferred,
        })
        .collect();
    for (ns, value, origin) in placed {
        let space = &mut namespaces[ns];
        if let Some((file, doc)) = origin {
            let at = space.objects.len();
            if crate::topology::class_unit::is_class(&value) {
                space.class_origins.push((at, file, doc));
            } else {
                space.extension_origins.push((at, file, doc));
            }
        }
        space.objects.push(value);
    }
    for ns in &mut namespaces {
        let mut bytes = Vec::new();
        for o in &ns.objects {
            let c = crate::model::compact::Compact::encode(o);
            bytes.extend_from_slice(&(c.len() as u64).to_le_bytes());
            bytes.extend_from_slice(c.as_bytes());
        }
        ns.fingerprint = crate::model::sha256_hex(&bytes);
    }
    (clusters, namespaces)
}

/// What a Cluster's unit is rendered from, as one sha256: the tool's version, the
/// cluster mode, the limits in force (they decide whether a render fails), the objects
/// of its namespace and the Cluster (the sha256 of its compact form). Equal
/// fingerprints give equal units. `prefix` is [`fingerprint_prefix`] of its namespace.
fn fingerprint(prefix: &crate::model::hash::Sha256Prefix, job: &ClusterJob) -> String {
    prefix.hex_with(job.hash.as_bytes())
}

/// A Cluster's fingerprint; with a class of another namespace (`class_ns`), that
/// namespace's prefix covers it too.
fn job_fingerprint(
    prefixes: &[crate::model::hash::Sha256Prefix],
    job: &ClusterJob,
    class_ns: Option<usize>,
) -> String {
    let own = fingerprint(&prefixes[job.namespace], job);
    match class_ns {
        None => own,
        Some(k) => prefixes[k].hex_with(own.as_bytes()),
    }
}

/// Everything of a fingerprint but the Cluster: one per namespace and run, absorbed
/// into the sha256 once (the Cluster's sum is all each fingerprint then hashes).
fn fingerprint_prefix(
    ns: &Namespace,
    mode: ClusterMode,
    v1beta2_core: bool,
) -> crate::model::hash::Sha256Prefix {
    // A v1.11+ core changes v1beta1 Clusters' output; without one the text is as before.
    let core = if v1beta2_core { "core v1beta2\n" } else { "" };
    let text = format!(
        "capi-render {} cluster unit {}\n{:?}\n{}\n{core}",
        env!("CARGO_PKG_VERSION"),
        mode.as_str(),
        crate::limits::Limits::current(),
        ns.fingerprint
    );
    crate::model::hash::Sha256Prefix::new(text.as_bytes())
}

/// What a rendered Cluster's unit carries for the lock ([`Produced::Made`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterFacts {
    pub fingerprint: String,
    /// sha256 of the Cluster's compact form.
    pub cluster: String,
    /// The input file it came from, as loaded.
    pub source: Arc<str>,
}

/// A unit as [`Rendering::stream_keeping`] hands it on.
pub enum Produced<T> {
    /// Rendered and mapped; a Cluster's unit carries its fingerprint.
    Made {
        unit: T,
        fingerprint: Option<ClusterFacts>,
    },
    /// A Cluster not rendered because the caller's `keep` said its output still is
    /// what the fingerprint gave before.
    Kept(KeptUnit),
}

/// A Cluster's unit that was not rendered ([`Produced::Kept`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptUnit {
    pub namespace: String,
    pub name: String,
    /// Its directory in the tree ([`RenderedUnit::dir`]).
    pub dir: String,
    pub facts: ClusterFacts,
}

impl Rendering {
    /// Each namespace's [`fingerprint_prefix`].
    fn prefixes(&self) -> Vec<crate::model::hash::Sha256Prefix> {
        self.namespaces
            .iter()
            .map(|ns| fingerprint_prefix(ns, self.mode, self.v1beta2_core))
            .collect()
    }

    /// Every topology Cluster's unit directory and fingerprint, computed on all cores
    /// without rendering (what [`Rendering::stream_keeping`] decides on): `diff` skips
    /// the Clusters both sides give the same fingerprint, whose units are equal.
    pub fn cluster_fingerprints(&self) -> Vec<(String, String)> {
        use rayon::prelude::*;
        let prefixes = self.prefixes();
        self.clusters
            .par_iter()
            .map(|job| {
                let ns = &self.namespaces[job.namespace].name;
                (
                    unit_dir(&UnitKind::Cluster, ns, &job.name),
                    job_fingerprint(&prefixes, job, job.class_namespace),
                )
            })
            .collect()
    }

    /// How many units the run produces (providers, then Clusters).
    pub fn unit_count(&self) -> usize {
        self.providers.len() + self.clusters.len()
    }

    /// For a consumer that takes units in directory order (`diff`): the providers
    /// (rendered already), with the Clusters left to stream sorted by directory (input
    /// order among equal ones).
    pub fn take_providers_sort_clusters(&mut self) -> Vec<RenderedUnit> {
        let namespaces = &self.namespaces;
        self.clusters.sort_by_cached_key(|j| {
            unit_dir(&UnitKind::Cluster, &namespaces[j.namespace].name, &j.name)
        });
        std::mem::take(&mut self.providers)
    }

    /// Keep only the units whose directory `holds` accepts (a shard, `render --shard`):
    /// their positions in the whole run's unit order, and how many units the whole run
    /// has. Providers are rendered already; a Cluster left out is never rendered.
    pub fn retain_units(&mut self, holds: impl Fn(&str) -> bool) -> (Vec<usize>, usize) {
        let total = self.unit_count();
        let mut positions = Vec::new();
        let mut at = 0;
        self.providers.retain(|u| {
            let keep = holds(&u.dir());
            if keep {
                positions.push(at);
            }
            at += 1;
            keep
        });
        let namespaces = &self.namespaces;
        self.clusters.retain(|job| {
            let ns = &namespaces[job.namespace].name;
            let keep = holds(&unit_dir(&UnitKind::Cluster, ns, &job.name));
            if keep {
                positions.push(at);
            }
            at += 1;
            keep
        });
        (positions, total)
    }

    /// Produce every unit in order (providers, core first, then Clusters in input
    /// order) and hand it to `map` and then `sink`. Clusters render in parallel in
    /// batches ([`batch_size`]), and `map` (e.g. writing a unit's YAML) runs on the same
    /// workers; `sink` sees the results one at a time, in order, on the calling thread.
    /// The first error in unit order stops the run, as a sequential run would report it;
    /// the units before it have been given to `sink`.
    pub fn stream<T: Send>(
        self,
        map: impl Fn(RenderedUnit) -> crate::Result<T> + Sync,
        mut sink: impl FnMut(T) -> crate::Result<()>,
    ) -> crate::Result<()> {
        self.stream_keeping(&|_, _| false, map, |p| match p {
            Produced::Made { unit, .. } => sink(unit),
            Produced::Kept(_) => Ok(()),
        })
    }

    /// [`Rendering::stream`], incrementally: a Cluster whose unit directory and
    /// fingerprint `keep` accepts (called on the workers) is not rendered and reaches
    /// `sink` as [`Produced::Kept`].
    pub fn stream_keeping<T: Send>(
        mut self,
        keep: &(dyn Fn(&str, &str) -> bool + Sync),
        map: impl Fn(RenderedUnit) -> crate::Result<T> + Sync,
        mut sink: impl FnMut(Produced<T>) -> crate::Result<()>,
    ) -> crate::Result<()> {
        use rayon::prelude::*;
        for u in std::mem::take(&mut self.providers) {
            sink(Produced::Made {
                unit: map(u)?,
                fingerprint: None,
            })?;
        }
        if self.clusters.is_empty() {
            return Ok(());
        }
        crate::progress::start("clusters", self.clusters.len());
        let namespaces = &self.namespaces;
        let (mode, defer) = (self.mode, self.defer_external);
        let prefixes = self.prefixes();
        let calls = self.runtime.clone();
        let facts_of = |job: &ClusterJob, class_ns: Option<usize>| ClusterFacts {
            fingerprint: job_fingerprint(&prefixes, job, class_ns),
            cluster: job.hash.clone(),
            source: job.file.clone(),
        };
        let by_name: std::collections::HashMap<&str, usize> = namespaces
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.as_str(), i))
            .collect();
        // Which Clusters are kept, decided first on all cores (a fingerprint and
        // `keep` each), so that a batch counts only the Clusters it renders: a run that
        // keeps most of a fleet hands them on in a few large batches, not in hundreds
        // of small ones, while the units rendered in flight stay two batches.
        let kept: Vec<Option<Box<KeptUnit>>> = self
            .clusters
            .par_iter()
            .map(|job| {
                let ns = &namespaces[job.namespace];
                let facts = facts_of(job, job.class_namespace);
                let dir = unit_dir(&UnitKind::Cluster, &ns.name, &job.name);
                // A run that calls extensions renders every Cluster: what an extension
                // answers is only known by asking it.
                (calls.is_none() && keep(&dir, &facts.fingerprint)).then(|| {
                    crate::progress::step();
                    Box::new(KeptUnit {
                        namespace: ns.name.clone(),
                        name: job.name.clone(),
                        dir,
                        facts,
                    })
                })
            })
            .collect();
        let one =
            |(job, kept): (&ClusterJob, Option<Box<KeptUnit>>)| -> crate::Result<Produced<T>> {
                match kept {
                    Some(k) => Ok(Produced::Kept(*k)),
                    None => {
                        let at =
                            || format!("Cluster {}/{}", namespaces[job.namespace].name, job.name);
                        crate::limits::memory::check(&job.file, at)?;
                        let (unit, class_ns) =
                            render_cluster(job, namespaces, &by_name, mode, defer)?;
                        let mut facts = facts_of(job, class_ns);
                        if let Some(rt) = &calls {
                            facts.fingerprint = extensions::with_answers(
                                &facts.fingerprint,
                                rt,
                                &unit.namespace,
                                &unit.name,
                            );
                        }
                        let unit = map(unit)?;
                        crate::limits::memory::check(&job.file, at)?;
                        Ok(Produced::Made {
                            unit,
                            fingerprint: Some(facts),
                        })
                    }
                }
            };
        let batch_len = batch_size(kept.iter().filter(|k| k.is_none()).count());
        let mut jobs = self.clusters.iter().zip(kept);
        // Two batches in flight: the workers render the next batch while this thread
        // hands the previous one to `sink` (which may write files).
        let res = std::thread::scope(|s| {
            let one = &one;
            let mut pending: Option<std::thread::ScopedJoinHandle<Vec<_>>> = None;
            let mut drain = |h: std::thread::ScopedJoinHandle<Vec<crate::Result<Produced<T>>>>| {
                let done = h
                    .join()
                    .map_err(|_| crate::Error::new("internal error: a render worker panicked"))?;
                done.into_iter().try_for_each(|r| sink(r?))
            };
            loop {
                // Up to `batch_len` Clusters to render, with the kept ones between them
                // (at most KEPT_BATCH in all).
                let mut batch = Vec::new();
                let mut renders = 0;
                while renders < batch_len && batch.len() < KEPT_BATCH {
                    let Some((job, kept)) = jobs.next() else {
                        break;
                    };
                    renders += usize::from(kept.is_none());
                    batch.push((job, kept));
                }
                if batch.is_empty() {
                    break;
                }
                let next = s.spawn(move || batch.into_par_iter().map(one).collect::<Vec<_>>());
                if let Some(h) = pending.replace(next) {
                    drain(h)?;
                }
            }
            pending.map_or(Ok(()), drain)
        });
        crate::progress::finish();
        res
    }

    /// Every unit, kept in memory.
    pub fn into_set(self) -> crate::Result<RenderSet> {
        let mut units = Vec::with_capacity(self.unit_count());
        let (inputs, warnings) = (self.inputs.clone(), self.warnings.clone());
        self.stream(Ok, |u| {
            units.push(u);
            Ok(())
        })?;
        Ok(RenderSet {
            inputs,
            units,
            warnings,
        })
    }
}

/// One Cluster's unit, rendered against its namespace's objects and classes (its class's
/// namespace's, when another), as `mode` says; and that other namespace, if any.
fn render_cluster(
    job: &ClusterJob,
    namespaces: &[Namespace],
    by_name: &std::collections::HashMap<&str, usize>,
    mode: ClusterMode,
    defer: bool,
) -> crate::Result<(RenderedUnit, Option<usize>)> {
    use crate::topology::{class_unit, obj};
    let own = &namespaces[job.namespace];
    let (value, doc) = job.cluster(&own.name)?;
    let c = &value.decode();
    let (ns, name) = (obj::namespace(c).to_string(), obj::name(c).to_string());
    let wrap = |e: crate::Error| {
        let e = match e.kind() {
            crate::error::ErrorKind::ClassNotFound => {
                let spaces = namespaces
                    .iter()
                    .map(|n| (n.name.as_str(), n.objects.as_slice()));
                e.with_hint(class_unit::classes_hint(c, spaces))
            }
            _ => e,
        };
        let at = format!("Cluster {ns}/{name} ({}, document {})", job.file, doc + 1);
        e.wrap(at).in_file(&job.file)
    };
    // Some(None): another namespace's class, and that namespace has no input object.
    let class_ns = match job.class_namespace {
        Some(k) => Some(Some(k)),
        None => class_unit::foreign_class_namespace(c).map(|n| by_name.get(n.as_str()).copied()),
    };
    let (empty, pick) = (Namespace::default(), |k: Option<usize>| {
        k.map(|k| &namespaces[k])
    });
    let space = class_ns.map_or(own, |k| pick(k).unwrap_or(&empty));
    let mut pending = Vec::new();
    let objs = crate::topology::render_cluster_deferring(
        c,
        &space.objects,
        &space.classes,
        defer.then_some(&mut pending),
    )
    .map_err(wrap)?;
    crate::progress::step();
    let mut unit = RenderedUnit::new(UnitKind::Cluster, ns, name, Vec::new());
    match mode {
        ClusterMode::Desired => unit.objects = objs,
        ClusterMode::Flatten => unit.objects = crate::topology::flatten::flatten(objs),
        ClusterMode::Managed => {
            unit.after = class_unit::class_of(c)
                .map(|(cns, cn)| unit_dir(&UnitKind::Class, &cns, &cn))
                .into_iter()
                .collect();
            unit.objects = vec![c.clone()];
            unit.review = objs;
            unit.pending = pending;
            if let Some(rt) = space.classes.runtime() {
                unit.answers = rt
                    .answers_for(&unit.namespace, &unit.name)
                    .into_iter()
                    .map(|a| format!("{} {}", a.handler, a.sha256))
                    .collect();
            }
        }
    }
    Ok((unit, class_ns.flatten()))
}
