//! ClusterClass topologies: the topology controller's desired state for Clusters with
//! `spec.topology` (shared/spec/topology.md), as `clusterctl alpha topology plan`
//! v1.10.10 computes and writes it.
//!
//! Pipeline: [`input`] (validation, namespaces, webhook defaults) → [`variables`]
//! (status, defaulting, validation) → [`blueprint`] (the class and its templates) →
//! [`desired`] (objects, [`names`], [`clone`], [`builtins`]) → [`patches`] → [`dryrun`]
//! (what the dry-run client stores) → [`plan`] (files and summary).
//!
//! `cluster.x-k8s.io/v1beta2` Clusters render through [`v1beta2`] (converted to v1beta1
//! around the same pipeline, with HEAD's builtin variables); `topology plan` is
//! v1beta1-only.

pub mod blueprint;
pub mod builtins;
pub mod class_unit;
pub mod clone;
pub mod desired;
pub mod desired_view;
pub mod diff;
pub mod discover;
pub mod dryrun;
pub mod flatten;
pub mod input;
pub mod intent;
pub mod metadata_validation;
pub mod mhc_validation;
pub mod names;
pub mod obj;
pub mod patches;
pub mod plan;
pub mod v1beta2;
pub mod variables;
pub mod webhooks;

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};

/// One Cluster's plan: the objects the reconcile creates and the Cluster before and
/// after it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterPlan {
    pub created: Vec<Value>,
    pub cluster_before: Value,
    pub cluster_after: Value,
}

/// The ClusterClass a Cluster uses, among `inputs`.
pub fn find_class<'a>(cluster: &Value, inputs: &'a [Value]) -> Option<&'a Value> {
    let class = obj::str_at(cluster, &["spec", "topology", "class"]);
    let ns = obj::class_namespace(cluster);
    inputs
        .iter()
        .find(|o| input::is_cluster_class(o) && obj::name(o) == class && obj::namespace(o) == ns)
}

const WEBHOOKS: &str = "failed defaulting and validation on input objects";
const RECONCILE: &str = "failed to dry run the topology controller";

/// What every Cluster of one ClusterClass shares, computed once: the class after the
/// ClusterClass webhook and the controller's reference check, its status variables
/// and its blueprint (the templates it references). Each part keeps its error, and a
/// Cluster meets it at the point where [`plan_cluster`] computing it for that Cluster
/// alone would, so preparing a class once changes no output.
pub struct PreparedClass {
    class: Result<Value>,
    status: Result<Value>,
    /// `status.variables` indexed, with their schemas read, for every Cluster's
    /// variables.
    definitions: Option<variables::index::Definitions>,
    blueprint: Result<blueprint::Blueprint>,
    /// The class has the `cluster.x-k8s.io/paused` annotation: its controller never
    /// reconciles it, so the Cluster webhook skips it and the topology reconcile stops.
    paused: bool,
}

/// The annotation that pauses a controller's reconcile of an object.
const PAUSED: &str = "cluster.x-k8s.io/paused";

fn is_paused(o: &Value) -> bool {
    obj::get(o, &["metadata", "annotations", PAUSED]).is_some()
}

impl PreparedClass {
    /// The ClusterClass `cluster` uses among `inputs`, prepared (`None`: there is none);
    /// `head_builtins` for v1beta2 Clusters converted by [`v1beta2`]; `dry_run` for
    /// `topology plan` (clusterctl's dry-run artefacts, see [`blueprint::check_references`]).
    pub fn for_cluster(
        cluster: &Value,
        inputs: &[Value],
        head_builtins: bool,
        dry_run: bool,
    ) -> Option<Self> {
        Self::for_cluster_with(cluster, inputs, head_builtins, dry_run, None)
    }

    /// [`PreparedClass::for_cluster`]; with `runtime`, the class's external patches
    /// discover their variables ([`discover`]) and its Clusters call them.
    pub fn for_cluster_with(
        cluster: &Value,
        inputs: &[Value],
        head_builtins: bool,
        dry_run: bool,
        runtime: Option<&std::sync::Arc<crate::runtime::Session>>,
    ) -> Option<Self> {
        let mut cc = find_class(cluster, inputs)?.clone();
        let paused = is_paused(&cc);
        let class = default_and_validate_class_with(
            &mut cc,
            inputs,
            head_builtins,
            dry_run,
            runtime.is_some(),
        )
        .map(|()| cc);
        let mut discovered = std::collections::BTreeMap::new();
        let status = class.as_ref().map_err(Error::clone).and_then(|cc| {
            let status = variables::status_variables(cc).map_err(|e| cc_reconcile_error(cc, e))?;
            match runtime {
                Some(rt) => {
                    let (status, d) = discover::discover_variables(cc, status, rt)
                        .map_err(|e| cc_reconcile_error(cc, e))?;
                    discovered = d;
                    Ok(status)
                }
                None => Ok(status),
            }
        });
        let blueprint = class.as_ref().map_err(Error::clone).and_then(|cc| {
            let mut bp = blueprint::Blueprint::load(cc, inputs)
                .map_err(|e| e.wrap("error reading the ClusterClass"))?;
            bp.head_builtins = head_builtins;
            bp.runtime = runtime.cloned();
            bp.discovered = discovered;
            Ok(bp)
        });
        let definitions = status.as_ref().ok().map(variables::definitions_of);
        Some(PreparedClass {
            paused,
            class,
            status,
            definitions,
            blueprint,
        })
    }
}

/// clusterctl's dry-run client decodes each object of a kind in its scheme into the Go
/// struct as it is added (int32 ranges, JSON types) and panics on failure; we return
/// its message as an error.
fn add_to_fake_client(o: &Value) -> Result<()> {
    crate::typed::json_decode_check(o).map_err(|e| {
        e.wrap(format!(
            "failed to unmarshal the content of *unstructured.Unstructured into *v1beta1.{}",
            obj::kind(o)
        ))
        .wrap(format!(
            "failed to add object {} {}/{} to fake client",
            obj::kind(o),
            obj::namespace(o),
            obj::name(o)
        ))
    })
}

/// The webhooks' defaulting and validation of the ClusterClass and the Cluster
/// (clusterctl's `runDefaultAndValidationWebhooks`): the Cluster, defaulted.
fn default_and_validate(cluster: &Value, class: Option<&PreparedClass>) -> Result<Value> {
    let cc = match class {
        Some(p) => Some(p.class.as_ref().map_err(Error::clone)?),
        None => None,
    };
    if cc.is_some() {
        // The ClusterClass controller's dry-run client holds every input object; adding
        // the Cluster decodes it into the Go struct (int32 ranges, JSON types).
        // clusterctl panics here; we return its message as an error.
        add_to_fake_client(cluster)?;
    }
    let on_clusters = |e: Error| {
        e.wrap("failed to run defaulting and validation on Clusters")
            .wrap(WEBHOOKS)
    };
    let mut c = cluster.clone();
    input::default_cluster(&mut c).map_err(on_clusters)?;
    // The webhook uses only a reconciled ClusterClass (a paused one never is).
    let reconciled = class.is_some_and(|p| !p.paused);
    if let Some(p) = class.filter(|_| reconciled) {
        p.status.as_ref().map_err(Error::clone)?;
        if let Some(defs) = &p.definitions {
            variables::default_and_validate_cluster_variables(&mut c, defs).map_err(on_clusters)?;
        }
    }
    webhooks::validate_cluster(&c, cc.filter(|_| reconciled)).map_err(on_clusters)?;
    Ok(c)
}

/// The ClusterClass webhook (defaulting, validation) and the ClusterClass controller's
/// reference check on one input ClusterClass, as clusterctl runs them on every
/// ClusterClass of the input, with or without a Cluster.
pub fn default_and_validate_class(cc: &mut Value, inputs: &[Value]) -> Result<()> {
    default_and_validate_class_with(cc, inputs, false, true, false)
}

/// [`default_and_validate_class`], validating patches against CAPI v1.14's builtin
/// variables when `head_builtins` (v1beta2 ClusterClasses, rendered as HEAD's controller
/// does: no clusterctl dry run, so no check of its mock CRDs).
fn default_and_validate_class_with(
    cc: &mut Value,
    inputs: &[Value],
    head_builtins: bool,
    dry_run: bool,
    runtime_sdk: bool,
) -> Result<()> {
    input::default_cluster_class(cc);
    webhooks::validate_cluster_class_sdk(cc, head_builtins, runtime_sdk).map_err(|e| {
        e.wrap("failed to run defaulting and validation on ClusterClasses")
            .wrap(WEBHOOKS)
    })?;
    if is_paused(cc) {
        // The ClusterClass controller returns before it looks at the references.
        return Ok(());
    }
    blueprint::check_references(cc, inputs, dry_run).map_err(|e| {
        cc_reconcile_error(cc, e.wrap("failed to dry run the ClusterClass controller"))
    })
}

fn cc_reconcile_error(cc: &Value, e: Error) -> Error {
    e.wrap(format!(
        "ClusterClass {} could not be reconciled for dry run",
        obj::name(cc)
    ))
    .wrap("failed to reconcile ClusterClasses for defaulting and validating")
    .wrap(WEBHOOKS)
}

/// Plan one Cluster (namespaces already set) against the ClusterClasses and templates
/// in `inputs`: webhooks, then the topology reconcile.
pub fn plan_cluster(cluster: &Value, inputs: &[Value]) -> Result<ClusterPlan> {
    let class = PreparedClass::for_cluster(cluster, inputs, false, true);
    plan_prepared(cluster, inputs, class.as_ref())
}

/// The webhooks [`plan_cluster`] runs, without the topology reconcile (a paused Cluster).
pub fn validate_cluster_and_class(cluster: &Value, inputs: &[Value]) -> Result<()> {
    let class = PreparedClass::for_cluster(cluster, inputs, false, true);
    default_and_validate(cluster, class.as_ref()).map(drop)
}

/// [`plan_cluster`] with the Cluster's ClusterClass already prepared
/// ([`PreparedClass::for_cluster`] on the same `inputs`).
fn plan_prepared(
    cluster: &Value,
    inputs: &[Value],
    class: Option<&PreparedClass>,
) -> Result<ClusterPlan> {
    let (c, d) = desired_state(cluster, inputs, class)?;
    let created = dryrun::created(&d, &c).map_err(|e| e.wrap(RECONCILE))?;
    let before = dryrun::cluster_before(&c).map_err(|e| e.wrap(RECONCILE))?;
    let after = dryrun::cluster_after(&before, &d.cluster).map_err(|e| e.wrap(RECONCILE))?;
    Ok(ClusterPlan {
        created,
        cluster_before: before,
        cluster_after: after,
    })
}

/// What `render` writes for one Cluster: [`desired_state`] in the Git form
/// ([`desired_view`]), the objects sorted by kind and name (the plan's order), then the
/// reconciled Cluster.
fn render_prepared(
    cluster: &Value,
    inputs: &[Value],
    class: Option<&PreparedClass>,
) -> Result<Vec<Value>> {
    let (c, d) = desired_state(cluster, inputs, class)?;
    let head = class
        .and_then(|c| c.blueprint.as_ref().ok())
        .is_some_and(|b| b.head_builtins);
    let mut out = desired_view::objects(&d, head).map_err(|e| e.wrap(RECONCILE))?;
    obj::sort_by_kind_and_name(&mut out);
    out.push(desired_view::cluster(&c, &d.cluster).map_err(|e| e.wrap(RECONCILE))?);
    Ok(out)
}

/// The webhooks, then the topology reconcile up to the desired state: the defaulted
/// Cluster and what it should own. Both `topology plan` and `render` start here.
fn desired_state(
    cluster: &Value,
    inputs: &[Value],
    class: Option<&PreparedClass>,
) -> Result<(Value, desired::Desired)> {
    let c = default_and_validate(cluster, class)?;
    let class = class.ok_or_else(|| {
        let name = obj::str_at(&c, &["spec", "topology", "class"]);
        Error::new(format!(
            "failed to retrieve ClusterClass {}/{name}: clusterclasses.cluster.x-k8s.io {name:?} not found",
            obj::class_namespace(&c)
        ))
        .of_kind(ErrorKind::ClassNotFound)
        .wrap(RECONCILE)
    })?;
    let d = reconcile(&c, class, inputs).map_err(|e| e.wrap(RECONCILE))?;
    Ok((c, d))
}

/// `getCurrentState` for the objects a Cluster already references. capi-render plans
/// new Clusters only: an existing, topology-owned object is reported as unsupported.
fn current_state(c: &Value, inputs: &[Value]) -> Result<()> {
    for field in ["infrastructureRef", "controlPlaneRef"] {
        let Some(r) =
            obj::get(c, &["spec", field]).filter(|r| !obj::str_at(r, &["name"]).is_empty())
        else {
            continue;
        };
        let kind = obj::str_at(r, &["kind"]);
        let key = format!(
            "{}/{}",
            obj::str_at(r, &["namespace"]),
            obj::str_at(r, &["name"])
        );
        let found = blueprint::resolve(inputs, r, obj::namespace(c)).map_err(|e| {
            let inner = e.message().split_once(": ").map(|x| x.1).unwrap_or("").to_string();
            Error::new(format!(
                "failed to read {kind} {key}: failed to retrieve {kind} {key}: failed to retrieve {kind} {key}: {inner}"
            ))
        })?;
        if obj::get(&found, &["metadata", "labels", clone::OWNED_LABEL]).is_none() {
            return Err(Error::new(format!(
                "{kind} {key} referenced from Cluster {}/{} is not topology owned",
                obj::namespace(c),
                obj::name(c)
            )));
        }
        return Err(Error::new(format!(
            "{kind} {key} already exists: capi-render plans new Clusters only (changes to existing topology objects are not supported)"
        )));
    }
    Ok(())
}

fn reconcile(c: &Value, class: &PreparedClass, inputs: &[Value]) -> Result<desired::Desired> {
    if class.paused {
        return Err(Error::new(
            "ClusterClass is not successfully reconciled: status of VariablesReconciled condition on ClusterClass must be \"True\"",
        ));
    }
    current_state(c, inputs)
        .map_err(|e| e.wrap("error reading current state of the Cluster topology"))?;
    let desired_err =
        |e: Error| e.wrap("error computing the desired state of the Cluster topology");
    let bp = class.blueprint.as_ref().map_err(Error::clone)?;
    let mut d = desired::compute(c, bp).map_err(desired_err)?;
    patches::apply(&mut d, bp, c).map_err(|e| desired_err(e.wrap("failed to apply patches")))?;
    if obj::name(c).is_empty() {
        // The dry-run client's object tracker refuses to patch a Cluster without a name
        // (twice: the patch helper retries).
        let one = format!(
            "failed to patch Cluster {}/: Cluster.cluster.x-k8s.io \"\" is invalid: metadata.name: Required value: name is required",
            obj::namespace(c)
        );
        let first = one.replacen(
            ": Cluster.cluster.x-k8s.io",
            ": failed to ensure object is available in fake object tracker: failed to add object to fake object tracker: Cluster.cluster.x-k8s.io",
            1,
        );
        return Err(Error::new(format!(
            "[error reconciling the Cluster topology: {first}, {one}]"
        )));
    }
    Ok(d)
}

/// The desired objects of one Cluster in the Git form, in a stable order: the objects
/// sorted by kind and name (the plan's order), then the reconciled Cluster.
/// A `cluster.x-k8s.io/v1beta2` Cluster renders with HEAD semantics ([`v1beta2`]).
pub fn render_cluster(cluster: &Value, inputs: &[Value]) -> Result<Vec<Value>> {
    render_cluster_with(cluster, inputs, &ClassCache::default())
}

/// The ClusterClasses prepared so far, shared read-only by the Clusters rendered against
/// one `inputs` slice (render's fleet path: one namespace's objects): one
/// [`PreparedClass`] per class name and namespace, built by the first Cluster that needs
/// it, whichever thread that is.
#[derive(Default)]
pub struct ClassCache {
    classes:
        std::sync::Mutex<std::collections::HashMap<(String, String), std::sync::Arc<ClassEntry>>>,
    /// The tree installs a core provider of v1.11 or later: v1beta1 Clusters render as
    /// its controller computes them ([`v1beta2::render_v1beta1_cluster`]).
    v1beta2_core: bool,
    /// The Runtime SDK, when the render calls extensions (external patches).
    runtime: Option<v1beta2::Runtime>,
}

struct ClassEntry {
    /// Only a v1beta2 ClusterClass has the name (a v1beta1 Cluster's error).
    only_v1beta2: bool,
    prepared: std::sync::OnceLock<Option<PreparedClass>>,
}

impl ClassCache {
    /// An empty cache for Clusters rendered under a core provider of v1.11 or later
    /// (`v1beta2_core`) or an older or no core (clusterctl v1.10.10's semantics).
    pub fn for_core(v1beta2_core: bool) -> Self {
        ClassCache {
            v1beta2_core,
            ..ClassCache::default()
        }
    }

    /// The Runtime SDK session this cache's Clusters call, if any.
    pub fn runtime(&self) -> Option<&v1beta2::Runtime> {
        self.runtime.as_ref()
    }

    /// Clusters of this cache call runtime extensions through `runtime`.
    pub fn with_runtime(mut self, runtime: v1beta2::Runtime) -> Self {
        self.runtime = Some(runtime);
        self
    }

    fn entry(&self, cluster: &Value, inputs: &[Value]) -> std::sync::Arc<ClassEntry> {
        let key = (
            obj::class_namespace(cluster).to_string(),
            obj::str_at(cluster, &["spec", "topology", "class"]).to_string(),
        );
        let mut map = self.classes.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(key)
            .or_insert_with(|| {
                std::sync::Arc::new(ClassEntry {
                    only_v1beta2: v1beta2::only_v1beta2_class(cluster, inputs),
                    prepared: std::sync::OnceLock::new(),
                })
            })
            .clone()
    }
}

/// [`render_cluster`] with the ClusterClasses of `inputs` prepared once in `cache`;
/// every call sharing a cache must pass the same `inputs`.
pub fn render_cluster_with(
    cluster: &Value,
    inputs: &[Value],
    cache: &ClassCache,
) -> Result<Vec<Value>> {
    render_cluster_deferring(cluster, inputs, cache, None)
}

/// [`render_cluster_with`]; with `pending`, the external patches of a class the
/// current controller renders (a v1beta2 Cluster, or any under a v1.11+ core) are left
/// out rather than refused, and described there
/// ([`v1beta2::strip_external_patches`]). clusterctl v1.10.10's semantics refuse them
/// either way (the RuntimeSDK gate is off there).
pub fn render_cluster_deferring(
    cluster: &Value,
    inputs: &[Value],
    cache: &ClassCache,
    pending: Option<&mut Vec<String>>,
) -> Result<Vec<Value>> {
    if v1beta2::is_cluster(cluster) {
        return v1beta2::render_cluster_deferring(cluster, inputs, pending, cache.runtime.as_ref());
    }
    if cache.v1beta2_core {
        return v1beta2::render_v1beta1_cluster(cluster, inputs, pending, cache.runtime.as_ref());
    }
    let entry = cache.entry(cluster, inputs);
    if entry.only_v1beta2 {
        return Err(v1beta2::v1beta1_cluster_error(cluster));
    }
    let class = entry
        .prepared
        .get_or_init(|| PreparedClass::for_cluster(cluster, inputs, false, false));
    render_prepared(cluster, inputs, class.as_ref())
}

/// [`render_cluster`] for a Cluster converted from v1beta2 ([`v1beta2`]): HEAD's builtin
/// variables when `head_builtins`.
pub(crate) fn render_cluster_head(
    cluster: &Value,
    inputs: &[Value],
    head_builtins: bool,
    runtime: Option<&std::sync::Arc<crate::runtime::Session>>,
) -> Result<Vec<Value>> {
    let class = PreparedClass::for_cluster_with(cluster, inputs, head_builtins, false, runtime);
    render_prepared(cluster, inputs, class.as_ref())
}
