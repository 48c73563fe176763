//! The topology controller's desired objects for one Cluster (topology.md §1–§4, R0.2),
//! before patches.

use serde_json::{json, Map, Value};

use super::blueprint::Blueprint;
use super::clone::{self, CloneInput, CLUSTER_NAME_LABEL, OWNED_LABEL};
use super::names::{self, Strategy};
use super::obj;
use crate::error::{Error, ErrorKind, Result};

pub const DEPLOYMENT_NAME_LABEL: &str = "topology.cluster.x-k8s.io/deployment-name";
pub const POOL_NAME_LABEL: &str = "topology.cluster.x-k8s.io/pool-name";
const HOLD_UPGRADE: &str = "topology.cluster.x-k8s.io/hold-upgrade-sequence";
const DEFER_UPGRADE: &str = "topology.cluster.x-k8s.io/defer-upgrade";

/// One MachineDeployment topology's objects.
pub struct MdState {
    pub topology: Value,
    pub class: String,
    pub bootstrap_template: Value,
    pub infra_template: Value,
    pub object: Value,
    pub mhc: Option<Value>,
}

/// One MachinePool topology's objects.
pub struct MpState {
    pub topology: Value,
    pub class: String,
    pub bootstrap_object: Value,
    pub infra_object: Value,
    pub object: Value,
}

/// The desired state (`scope.ClusterState`).
pub struct Desired {
    pub cluster: Value,
    pub infra_cluster: Value,
    pub control_plane: Value,
    pub cp_infra_template: Option<Value>,
    pub cp_mhc: Option<Value>,
    pub mds: Vec<MdState>,
    pub mps: Vec<MpState>,
}

struct Ctx<'a> {
    cluster: &'a Value,
    name: &'a str,
    ns: &'a str,
}

impl Ctx<'_> {
    fn seed(&self, role: &str) -> String {
        names::seed(self.ns, self.name, role)
    }
}

fn topo<'a>(cluster: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut p = vec!["spec", "topology"];
    p.extend_from_slice(path);
    obj::get(cluster, &p).filter(|v| !v.is_null())
}

fn naming_template(v: Option<&Value>) -> Option<&str> {
    v.and_then(|s| obj::get(s, &["template"]))
        .and_then(Value::as_str)
}

/// Compute all desired objects in R0.2's order.
pub fn compute(cluster: &Value, bp: &Blueprint) -> Result<Desired> {
    let ctx = Ctx {
        cluster,
        name: obj::name(cluster),
        ns: obj::namespace(cluster),
    };
    let infra_cluster = infrastructure_cluster(&ctx, bp)?;
    let cp_infra_template = match &bp.cp_infra_template {
        Some(t) => Some(cp_infra_template(&ctx, bp, t)?),
        None => None,
    };
    let control_plane = control_plane(&ctx, bp, cp_infra_template.as_ref())?;
    let cp_mhc = if cp_infra_template.is_some() {
        cp_mhc_class(cluster, bp).map(|check| {
            mhc(
                &control_plane,
                json!({"matchLabels": {OWNED_LABEL: "", "cluster.x-k8s.io/control-plane": ""}}),
                ctx.name,
                &check,
            )
        })
    } else {
        None
    };
    let desired_cluster = compute_cluster(cluster, &infra_cluster, &control_plane);
    let version = obj::str_at(cluster, &["spec", "topology", "version"]).to_string();
    let mut mds = Vec::new();
    if let Some(Value::Array(list)) = topo(cluster, &["workers", "machineDeployments"]) {
        for t in list {
            mds.push(machine_deployment(&ctx, bp, t, &version)?);
        }
    }
    let mut mps = Vec::new();
    if let Some(Value::Array(list)) = topo(cluster, &["workers", "machinePools"]) {
        for t in list {
            mps.push(machine_pool(&ctx, bp, t, &version)?);
        }
    }
    Ok(Desired {
        cluster: desired_cluster,
        infra_cluster,
        control_plane,
        cp_infra_template,
        cp_mhc,
        mds,
        mps,
    })
}

fn cc_ref<'a>(bp: &'a Blueprint, path: &[&str]) -> (&'a str, &'a str, &'a str) {
    let r = obj::get(&bp.cc, path).unwrap_or(&Value::Null);
    (
        obj::str_at(r, &["apiVersion"]),
        obj::str_at(r, &["kind"]),
        obj::str_at(r, &["name"]),
    )
}

/// The name of an object the Cluster already references (R1.6).
fn current_ref_name<'a>(cluster: &'a Value, field: &str) -> Option<&'a str> {
    Some(obj::str_at(cluster, &["spec", field, "name"])).filter(|n| !n.is_empty())
}

fn infrastructure_cluster(ctx: &Ctx, bp: &Blueprint) -> Result<Value> {
    let t = &bp.infra_cluster_template;
    let tmpl = naming_template(obj::get(&bp.cc, &["spec", "infrastructureNamingStrategy"]));
    let mut name = names::from_template(
        tmpl,
        ctx.name,
        Strategy::Cluster,
        &ctx.seed("infrastructure-cluster"),
    )
    .map_err(|e| {
        e.wrap(format!("failed to generate name for {}", object_kind(t)))
            .wrap(format!(
                "failed to generate the InfrastructureCluster object from the {}",
                obj::kind(t)
            ))
    })?;
    if let Some(n) = current_ref_name(ctx.cluster, "infrastructureRef") {
        name = n.to_string();
    }
    clone::template_to_object(CloneInput {
        template: t,
        cloned_from: cc_ref(bp, &["spec", "infrastructure", "ref"]),
        cluster_name: ctx.name,
        namespace: ctx.ns,
        name,
        labels: Map::new(),
        annotations: Map::new(),
        owner_ref: None,
    })
    .map_err(|e| {
        e.wrap(format!(
            "failed to generate the InfrastructureCluster object from the {}",
            obj::kind(t)
        ))
    })
}

fn cp_infra_template(ctx: &Ctx, bp: &Blueprint, t: &Value) -> Result<Value> {
    let name = names::simple(
        &format!("{}-", ctx.name),
        &ctx.seed("control-plane-infrastructure-machine-template"),
    );
    Ok(clone::template_to_template(CloneInput {
        template: t,
        cloned_from: cc_ref(
            bp,
            &["spec", "controlPlane", "machineInfrastructure", "ref"],
        ),
        cluster_name: ctx.name,
        namespace: ctx.ns,
        name,
        labels: Map::new(),
        annotations: Map::new(),
        owner_ref: Some(obj::owner_ref_to_cluster(ctx.name)),
    }))
}

fn control_plane(ctx: &Ctx, bp: &Blueprint, infra_tpl: Option<&Value>) -> Result<Value> {
    let cluster = ctx.cluster;
    let t = &bp.cp_template;
    let tl = obj::string_map(
        cluster,
        &["spec", "topology", "controlPlane", "metadata", "labels"],
    );
    let cl = obj::string_map(&bp.cc, &["spec", "controlPlane", "metadata", "labels"]);
    let mut labels = obj::merge_maps(&[&tl, &cl]);
    labels.insert(CLUSTER_NAME_LABEL.into(), Value::from(ctx.name));
    labels.insert(OWNED_LABEL.into(), Value::from(""));
    let ta = obj::string_map(
        cluster,
        &[
            "spec",
            "topology",
            "controlPlane",
            "metadata",
            "annotations",
        ],
    );
    let ca = obj::string_map(&bp.cc, &["spec", "controlPlane", "metadata", "annotations"]);
    let annotations = obj::merge_maps(&[&ta, &ca]);
    let tmpl = naming_template(obj::get(
        &bp.cc,
        &["spec", "controlPlane", "namingStrategy"],
    ));
    let mut name = names::from_template(
        tmpl,
        ctx.name,
        Strategy::Cluster,
        &ctx.seed("control-plane"),
    )
    .map_err(|e| {
        e.wrap(format!("failed to generate name for {}", object_kind(t)))
            .wrap(format!(
                "failed to generate the ControlPlane object from the {}",
                obj::kind(t)
            ))
    })?;
    if let Some(n) = current_ref_name(cluster, "controlPlaneRef") {
        name = n.to_string();
    }
    let mut cp = clone::template_to_object(CloneInput {
        template: t,
        cloned_from: cc_ref(bp, &["spec", "controlPlane", "ref"]),
        cluster_name: ctx.name,
        namespace: ctx.ns,
        name,
        labels: labels.clone(),
        annotations: annotations.clone(),
        owner_ref: None,
    })
    .map_err(|e| {
        e.wrap(format!(
            "failed to generate the ControlPlane object from the {}",
            obj::kind(t)
        ))
    })?;
    if let Some(it) = infra_tpl {
        obj::set(
            &mut cp,
            &["spec", "machineTemplate", "infrastructureRef"],
            obj::ref_to(it),
        );
        let ml = obj::string_map(&cp, &["spec", "machineTemplate", "metadata", "labels"]);
        let ma = obj::string_map(&cp, &["spec", "machineTemplate", "metadata", "annotations"]);
        let mut md = Map::new();
        let l = obj::merge_maps(&[&labels, &ml]);
        if !l.is_empty() {
            md.insert("labels".into(), Value::Object(l));
        }
        let a = obj::merge_maps(&[&annotations, &ma]);
        if !a.is_empty() {
            md.insert("annotations".into(), Value::Object(a));
        }
        obj::set(
            &mut cp,
            &["spec", "machineTemplate", "metadata"],
            Value::Object(md),
        );
    }
    if let Some(r) = topo(cluster, &["controlPlane", "replicas"]) {
        obj::set(&mut cp, &["spec", "replicas"], int_value(r));
    }
    let gates = topo(cluster, &["controlPlane", "readinessGates"]).or_else(|| {
        obj::get(&bp.cc, &["spec", "controlPlane", "readinessGates"]).filter(|v| !v.is_null())
    });
    if let Some(g) = gates {
        obj::set(
            &mut cp,
            &["spec", "machineTemplate", "readinessGates"],
            g.clone(),
        );
    }
    for f in [
        "nodeDrainTimeout",
        "nodeVolumeDetachTimeout",
        "nodeDeletionTimeout",
    ] {
        let v = topo(cluster, &["controlPlane", f])
            .or_else(|| obj::get(&bp.cc, &["spec", "controlPlane", f]).filter(|v| !v.is_null()));
        if let Some(d) = v {
            obj::set(
                &mut cp,
                &["spec", "machineTemplate", f],
                Value::from(duration_text(d)?),
            );
        }
    }
    let version = obj::str_at(cluster, &["spec", "topology", "version"]);
    obj::set(&mut cp, &["spec", "version"], Value::from(version));
    Ok(cp)
}

/// The kind `templateToObject` gives the object cloned from `t`.
fn object_kind(t: &Value) -> String {
    match obj::str_at(t, &["spec", "template", "kind"]) {
        "" => {
            let k = obj::kind(t);
            k.strip_suffix("Template").unwrap_or(k).to_string()
        }
        k => k.to_string(),
    }
}

/// `spec.template` of a MachineDeployment or MachinePool: the Machine spec (cluster,
/// version, bootstrap and infrastructure refs, then the topology-over-class `fields`)
/// and the worker labels/annotations as its metadata.
fn machine_template(
    cluster: &str,
    version: &str,
    (bootstrap, infra): (&Value, &Value),
    (t, c): (&Value, &Value),
    fields: &[&str],
    (labels, ann): (&Map<String, Value>, &Map<String, Value>),
) -> Value {
    let mut mspec = Map::new();
    mspec.insert("clusterName".into(), Value::from(cluster));
    mspec.insert("version".into(), Value::from(version));
    mspec.insert(
        "bootstrap".into(),
        json!({"configRef": obj::ref_to(bootstrap)}),
    );
    mspec.insert("infrastructureRef".into(), obj::ref_to(infra));
    for f in fields {
        override_field(&mut mspec, t, c, f, f);
    }
    let mut tmeta = Map::new();
    tmeta.insert("labels".into(), Value::Object(labels.clone()));
    if !ann.is_empty() {
        tmeta.insert("annotations".into(), Value::Object(ann.clone()));
    }
    json!({"metadata": tmeta, "spec": mspec})
}

/// A number read from YAML (f64) as the integer Go stored it.
pub fn int_value(v: &Value) -> Value {
    match v.as_f64() {
        Some(f) if f.fract() == 0.0 => Value::from(f as i64),
        _ => v.clone(),
    }
}

/// A `metav1.Duration` printed as Go's `time.Duration.String()`.
fn duration_text(v: &Value) -> Result<String> {
    let s = v.as_str().ok_or_else(|| Error::new("invalid duration"))?;
    let d = crate::typed::duration::parse(s).map_err(Error::new)?;
    Ok(crate::typed::duration::format(d))
}

fn compute_cluster(cluster: &Value, infra: &Value, cp: &Value) -> Value {
    let mut c = cluster.clone();
    let name = obj::name(cluster).to_string();
    let mut labels = obj::string_map(cluster, &["metadata", "labels"]);
    labels.insert(CLUSTER_NAME_LABEL.into(), Value::from(name));
    labels.insert(OWNED_LABEL.into(), Value::from(""));
    obj::set(&mut c, &["metadata", "labels"], Value::Object(labels));
    obj::set(
        &mut c,
        &["spec", "infrastructureRef"],
        desired_ref(cluster, "infrastructureRef", infra),
    );
    obj::set(
        &mut c,
        &["spec", "controlPlaneRef"],
        desired_ref(cluster, "controlPlaneRef", cp),
    );
    c
}

/// `calculateRefDesiredAPIVersion`: keep the current ref's apiVersion when the group
/// and kind are unchanged.
fn desired_ref(cluster: &Value, field: &str, target: &Value) -> Value {
    let mut r = obj::ref_to(target);
    if let Some(cur) = obj::get(cluster, &["spec", field]) {
        let cav = obj::str_at(cur, &["apiVersion"]);
        if obj::group_of(cav) == obj::group_of(obj::api_version(target))
            && obj::str_at(cur, &["kind"]) == obj::kind(target)
            && !cav.is_empty()
        {
            r["apiVersion"] = Value::from(cav);
        }
    }
    r
}

fn is_zero(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::Object(m)) => m.iter().all(|(k, v)| k == "enable" || is_zero(Some(v))),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::String(s)) => s.is_empty(),
        _ => false,
    }
}

/// The MHC class part of a topology `machineHealthCheck` (everything but `enable`).
fn topology_check(mhc: Option<&Value>) -> Option<Value> {
    let m = mhc?.as_object()?;
    let mut c = m.clone();
    c.remove("enable");
    if is_zero(Some(&Value::Object(c.clone()))) {
        None
    } else {
        Some(Value::Object(c))
    }
}

fn enabled(mhc: Option<&Value>) -> bool {
    !matches!(mhc.and_then(|m| m.get("enable")), Some(Value::Bool(false)))
}

/// R3.7.1/R3.7.3: the check definition to use for the control plane, if enabled.
fn cp_mhc_class(cluster: &Value, bp: &Blueprint) -> Option<Value> {
    let tm = topo(cluster, &["controlPlane", "machineHealthCheck"]);
    let cm =
        obj::get(&bp.cc, &["spec", "controlPlane", "machineHealthCheck"]).filter(|v| !v.is_null());
    check_for(tm, cm)
}

fn check_for(tm: Option<&Value>, cm: Option<&Value>) -> Option<Value> {
    let tcheck = topology_check(tm);
    if (cm.is_none() && tcheck.is_none()) || !enabled(tm) {
        return None;
    }
    tcheck.or_else(|| cm.cloned())
}

/// `computeMachineHealthCheck` with the MHC webhook's defaults.
fn mhc(target: &Value, selector: Value, cluster_name: &str, check: &Value) -> Value {
    let ns = obj::namespace(target);
    let mut spec = Map::new();
    spec.insert("clusterName".into(), Value::from(cluster_name));
    spec.insert("selector".into(), selector);
    for f in [
        "unhealthyConditions",
        "maxUnhealthy",
        "unhealthyRange",
        "nodeStartupTimeout",
        "remediationTemplate",
    ] {
        if let Some(v) = check.get(f).filter(|v| !v.is_null()) {
            spec.insert(f.into(), v.clone());
        }
    }
    spec.entry("maxUnhealthy")
        .or_insert_with(|| Value::from("100%"));
    spec.entry("nodeStartupTimeout")
        .or_insert_with(|| Value::from("10m0s"));
    if let Some(Value::Object(rt)) = spec.get_mut("remediationTemplate") {
        if rt
            .get("namespace")
            .and_then(Value::as_str)
            .unwrap_or("")
            .is_empty()
        {
            rt.insert("namespace".into(), Value::from(ns));
        }
    }
    json!({
        "apiVersion": "cluster.x-k8s.io/v1beta1",
        "kind": "MachineHealthCheck",
        "metadata": {
            "name": obj::name(target),
            "namespace": ns,
            "labels": {OWNED_LABEL: "", CLUSTER_NAME_LABEL: cluster_name},
            "ownerReferences": [obj::owner_ref_to_cluster(cluster_name)],
        },
        "spec": Value::Object(spec),
    })
}

fn worker_meta(
    t: &Value,
    class: &Value,
    name_label: &str,
    topology_name: &str,
    cluster: &str,
) -> (Map<String, Value>, Map<String, Value>) {
    let tl = obj::string_map(t, &["metadata", "labels"]);
    let cl = obj::string_map(class, &["template", "metadata", "labels"]);
    let mut labels = obj::merge_maps(&[&tl, &cl]);
    labels.insert(CLUSTER_NAME_LABEL.into(), Value::from(cluster));
    labels.insert(OWNED_LABEL.into(), Value::from(""));
    labels.insert(name_label.into(), Value::from(topology_name));
    let ta = obj::string_map(t, &["metadata", "annotations"]);
    let ca = obj::string_map(class, &["template", "metadata", "annotations"]);
    let mut ann = obj::merge_maps(&[&ta, &ca]);
    ann.remove(HOLD_UPGRADE);
    ann.remove(DEFER_UPGRADE);
    (labels, ann)
}

fn override_field(spec: &mut Map<String, Value>, t: &Value, class: &Value, f: &str, out: &str) {
    let v = t
        .get(f)
        .filter(|v| !v.is_null())
        .or_else(|| class.get(f).filter(|v| !v.is_null()));
    if let Some(v) = v {
        spec.insert(out.into(), v.clone());
    }
}

fn machine_deployment(ctx: &Ctx, bp: &Blueprint, t: &Value, version: &str) -> Result<MdState> {
    let class_name = obj::str_at(t, &["class"]).to_string();
    let tname = obj::str_at(t, &["name"]).to_string();
    let wc = bp.md_class(&class_name).ok_or_else(|| {
        Error::new(format!(
            "MachineDeployment class {class_name} not found in ClusterClass {}/{}",
            obj::namespace(&bp.cc),
            obj::name(&bp.cc)
        ))
        .of_kind(ErrorKind::ClassNotFound)
    })?;
    let prefix = format!("{}-{}-", ctx.name, tname);
    let tpl_clone = |src: &Value, role: &str| {
        let mut c = clone::template_to_template(CloneInput {
            template: src,
            cloned_from: (obj::api_version(src), obj::kind(src), obj::name(src)),
            cluster_name: ctx.name,
            namespace: ctx.ns,
            name: names::simple(&prefix, &ctx.seed(&format!("md/{tname}/{role}"))),
            labels: Map::new(),
            annotations: Map::new(),
            owner_ref: Some(obj::owner_ref_to_cluster(ctx.name)),
        });
        obj::set(
            &mut c,
            &["metadata", "labels", DEPLOYMENT_NAME_LABEL],
            Value::from(tname.as_str()),
        );
        c
    };
    let bootstrap = tpl_clone(&wc.bootstrap, "bootstrap");
    let infra = tpl_clone(&wc.infrastructure, "infrastructure");
    let c = &wc.class;
    let name = names::from_template(
        naming_template(c.get("namingStrategy")),
        ctx.name,
        Strategy::MachineDeployment(&tname),
        &ctx.seed(&format!("md/{tname}")),
    )
    .map_err(|e| e.wrap("failed to generate name for MachineDeployment"))?;
    let (labels, ann) = worker_meta(t, c, DEPLOYMENT_NAME_LABEL, &tname, ctx.name);
    let mut spec = Map::new();
    spec.insert("clusterName".into(), Value::from(ctx.name));
    override_field(&mut spec, t, c, "minReadySeconds", "minReadySeconds");
    override_field(&mut spec, t, c, "strategy", "strategy");
    let template = machine_template(
        ctx.name,
        version,
        (&bootstrap, &infra),
        (t, c),
        &[
            "failureDomain",
            "nodeDrainTimeout",
            "nodeVolumeDetachTimeout",
            "nodeDeletionTimeout",
            "readinessGates",
        ],
        (&labels, &ann),
    );
    spec.insert("template".into(), template);
    spec.insert(
        "selector".into(),
        json!({"matchLabels": {CLUSTER_NAME_LABEL: ctx.name, OWNED_LABEL: "", DEPLOYMENT_NAME_LABEL: tname}}),
    );
    if let Some(r) = t.get("replicas").filter(|v| !v.is_null()) {
        spec.insert("replicas".into(), int_value(r));
    }
    let mut meta = Map::new();
    meta.insert("name".into(), Value::from(name));
    meta.insert("namespace".into(), Value::from(ctx.ns));
    meta.insert("labels".into(), Value::Object(labels));
    if !ann.is_empty() {
        meta.insert("annotations".into(), Value::Object(ann));
    }
    let object = json!({
        "apiVersion": "cluster.x-k8s.io/v1beta1",
        "kind": "MachineDeployment",
        "metadata": meta,
        "spec": spec,
    });
    let check = check_for(
        t.get("machineHealthCheck").filter(|v| !v.is_null()),
        c.get("machineHealthCheck").filter(|v| !v.is_null()),
    );
    let mhc = check.map(|check| {
        mhc(
            &object,
            json!({"matchLabels": {OWNED_LABEL: "", DEPLOYMENT_NAME_LABEL: tname}}),
            ctx.name,
            &check,
        )
    });
    Ok(MdState {
        topology: t.clone(),
        class: class_name,
        bootstrap_template: bootstrap,
        infra_template: infra,
        object,
        mhc,
    })
}

fn machine_pool(ctx: &Ctx, bp: &Blueprint, t: &Value, version: &str) -> Result<MpState> {
    let class_name = obj::str_at(t, &["class"]).to_string();
    let tname = obj::str_at(t, &["name"]).to_string();
    let wc = bp.mp_class(&class_name).ok_or_else(|| {
        Error::new(format!(
            "MachinePool class {class_name} not found in ClusterClass {}/{}",
            obj::namespace(&bp.cc),
            obj::name(&bp.cc)
        ))
        .of_kind(ErrorKind::ClassNotFound)
    })?;
    let prefix = format!("{}-{}-", ctx.name, tname);
    let mut pool_label = Map::new();
    pool_label.insert(POOL_NAME_LABEL.into(), Value::from(tname.as_str()));
    let obj_clone = |src: &Value, role: &str| {
        clone::template_to_object(CloneInput {
            template: src,
            cloned_from: (obj::api_version(src), obj::kind(src), obj::name(src)),
            cluster_name: ctx.name,
            namespace: ctx.ns,
            name: names::simple(&prefix, &ctx.seed(&format!("mp/{tname}/{role}"))),
            labels: pool_label.clone(),
            annotations: Map::new(),
            owner_ref: Some(obj::owner_ref_to_cluster(ctx.name)),
        })
    };
    let bootstrap = obj_clone(&wc.bootstrap, "bootstrap")
        .map_err(|e| e.wrap("failed to compute bootstrap object"))?;
    let infra = obj_clone(&wc.infrastructure, "infrastructure")
        .map_err(|e| e.wrap("failed to compute infrastructure object"))?;
    let c = &wc.class;
    let name = names::from_template(
        naming_template(c.get("namingStrategy")),
        ctx.name,
        Strategy::MachinePool(&tname),
        &ctx.seed(&format!("mp/{tname}")),
    )
    .map_err(|e| e.wrap("failed to generate name for MachinePool"))?;
    let (labels, ann) = worker_meta(t, c, POOL_NAME_LABEL, &tname, ctx.name);
    let mut spec = Map::new();
    spec.insert("clusterName".into(), Value::from(ctx.name));
    override_field(&mut spec, t, c, "minReadySeconds", "minReadySeconds");
    override_field(&mut spec, t, c, "failureDomains", "failureDomains");
    let template = machine_template(
        ctx.name,
        version,
        (&bootstrap, &infra),
        (t, c),
        &[
            "nodeDrainTimeout",
            "nodeVolumeDetachTimeout",
            "nodeDeletionTimeout",
        ],
        (&labels, &ann),
    );
    spec.insert("template".into(), template);
    if let Some(r) = t.get("replicas").filter(|v| !v.is_null()) {
        spec.insert("replicas".into(), int_value(r));
    }
    let mut meta = Map::new();
    meta.insert("name".into(), Value::from(name));
    meta.insert("namespace".into(), Value::from(ctx.ns));
    meta.insert("labels".into(), Value::Object(labels));
    if !ann.is_empty() {
        meta.insert("annotations".into(), Value::Object(ann));
    }
    Ok(MpState {
        topology: t.clone(),
        class: class_name,
        bootstrap_object: bootstrap,
        infra_object: infra,
        object: json!({
            "apiVersion": "cluster.x-k8s.io/v1beta1",
            "kind": "MachinePool",
            "metadata": meta,
            "spec": spec,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mhc_check_selection() {
        let class = json!({"unhealthyConditions": [{"type": "Ready"}]});
        assert!(check_for(None, Some(&class)).is_some());
        assert!(check_for(Some(&json!({"enable": false})), Some(&class)).is_none());
        assert!(check_for(Some(&json!({"enable": true})), None).is_none());
        let t = json!({"maxUnhealthy": "40%"});
        assert_eq!(check_for(Some(&t), Some(&class)), Some(t.clone()));
    }

    #[test]
    fn mhc_gets_webhook_defaults() {
        let target = json!({"metadata": {"name": "c-x", "namespace": "ns"}});
        let m = mhc(
            &target,
            json!({}),
            "c",
            &json!({"remediationTemplate": {"name": "r"}}),
        );
        assert_eq!(m["spec"]["maxUnhealthy"], "100%");
        assert_eq!(m["spec"]["nodeStartupTimeout"], "10m0s");
        assert_eq!(m["spec"]["remediationTemplate"]["namespace"], "ns");
        assert_eq!(m["metadata"]["labels"][CLUSTER_NAME_LABEL], "c");
    }

    #[test]
    fn int_value_turns_integral_floats_into_integers() {
        assert_eq!(int_value(&json!(3.0)), json!(3));
        assert_eq!(int_value(&json!(1.5)), json!(1.5));
    }
}
