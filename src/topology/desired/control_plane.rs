//! The control plane object and its machine infrastructure template (topology.md §3).

use super::*;

pub(super) fn cp_infra_template(ctx: &Ctx, bp: &Blueprint, t: &Value) -> Result<Value> {
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
        tolerate_missing_template: false,
    }))
}

pub(super) fn control_plane(ctx: &Ctx, bp: &Blueprint, infra_tpl: Option<&Value>) -> Result<Value> {
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
        tolerate_missing_template: bp.head_builtins,
    })
    .map_err(|e| {
        e.wrap(format!(
            "failed to generate the ControlPlane object from the {}",
            obj::kind(t)
        ))
    })?;
    // CAPI v1.14 (v1beta2 Clusters, `head_builtins`) writes a v1beta2-contract
    // ControlPlane's machine fields under `spec.machineTemplate.spec`; v1.10 and the
    // v1beta1 contract one level up. A template's own fields at the other contract's
    // paths stay as the template has them.
    let v1beta2 =
        bp.head_builtins && crate::topology::v1beta2::contract::is_v1beta2(obj::api_version(&cp));
    let machine = |field: &str| -> Vec<String> {
        let mut p = vec!["spec".to_string(), "machineTemplate".to_string()];
        if v1beta2 {
            p.push("spec".into());
        }
        p.push(field.into());
        p
    };
    let set = |cp: &mut Value, path: Vec<String>, v: Value| {
        let p: Vec<&str> = path.iter().map(String::as_str).collect();
        obj::set(cp, &p, v);
    };
    if let Some(it) = infra_tpl {
        if bp.head_builtins {
            not_a_map(&cp, &machine("infrastructureRef"))?;
        }
        let r = if v1beta2 {
            crate::topology::v1beta2::refs::contract_ref(&obj::ref_to(it))
        } else {
            obj::ref_to(it)
        };
        set(&mut cp, machine("infrastructureRef"), r);
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
        set(&mut cp, machine("readinessGates"), g.clone());
    }
    for f in [
        "nodeDrainTimeout",
        "nodeVolumeDetachTimeout",
        "nodeDeletionTimeout",
    ] {
        let v = topo(cluster, &["controlPlane", f])
            .or_else(|| obj::get(&bp.cc, &["spec", "controlPlane", f]).filter(|v| !v.is_null()));
        if let Some(d) = v {
            if v1beta2 {
                let secs = crate::topology::v1beta2::seconds::from_duration(d, f)?;
                let mut p = machine("deletion");
                p.push(format!("{f}Seconds"));
                set(&mut cp, p, secs);
            } else {
                set(&mut cp, machine(f), Value::from(duration_text(d)?));
            }
        }
    }
    let version = obj::str_at(cluster, &["spec", "topology", "version"]);
    obj::set(&mut cp, &["spec", "version"], Value::from(version));
    Ok(cp)
}

/// CAPI v1.14 sets the machine template reference on the unstructured ControlPlane with
/// `unstructured.SetNestedField`, which refuses to replace a value on the way that is no map
/// (a template's `machineTemplate: null` or a scalar); v1.10's typed round trip had made it
/// a map. The error is v1.14's.
fn not_a_map(cp: &Value, path: &[String]) -> Result<()> {
    let mut at = cp;
    for (i, f) in path[..path.len() - 1].iter().enumerate() {
        match at.get(f) {
            None => return Ok(()),
            Some(Value::Object(_)) => at = &at[f.as_str()],
            Some(_) => {
                return Err(Error::new(format!(
                    "failed to compute ControlPlane: failed to set {} in the ControlPlane object: failed to set object reference on object {} {}/{}: value cannot be set because .{} is not a map[string]interface{{}}",
                    path.join("."),
                    clone::gvk_string(cp),
                    obj::namespace(cp),
                    obj::name(cp),
                    path[..=i].join(".")
                )))
            }
        }
    }
    Ok(())
}

/// A `metav1.Duration` printed as Go's `time.Duration.String()`.
pub(super) fn duration_text(v: &Value) -> Result<String> {
    let s = v.as_str().ok_or_else(|| Error::new("invalid duration"))?;
    let d = crate::typed::duration::parse(s).map_err(Error::new)?;
    Ok(crate::typed::duration::format(d))
}
