//! MachineDeployments and MachinePools with their bootstrap and infrastructure templates (topology.md §3).

use super::*;

/// `spec.template` of a MachineDeployment or MachinePool: the Machine spec (cluster,
/// version, bootstrap and infrastructure refs, then the topology-over-class `fields`)
/// and the worker labels/annotations as its metadata.
pub(super) fn machine_template(
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

pub(super) fn worker_meta(
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

pub(super) fn override_field(
    spec: &mut Map<String, Value>,
    t: &Value,
    class: &Value,
    f: &str,
    out: &str,
) {
    let v = t
        .get(f)
        .filter(|v| !v.is_null())
        .or_else(|| class.get(f).filter(|v| !v.is_null()));
    if let Some(v) = v {
        spec.insert(out.into(), v.clone());
    }
}

pub(super) fn machine_deployment(
    ctx: &Ctx,
    bp: &Blueprint,
    t: &Value,
    version: &str,
) -> Result<MdState> {
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
            tolerate_missing_template: false,
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

pub(super) fn machine_pool(ctx: &Ctx, bp: &Blueprint, t: &Value, version: &str) -> Result<MpState> {
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
            tolerate_missing_template: bp.head_builtins,
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
