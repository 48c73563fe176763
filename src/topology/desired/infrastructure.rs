//! The InfrastructureCluster a Cluster's topology asks for (topology.md §2).

use super::*;

pub(super) fn infrastructure_cluster(ctx: &Ctx, bp: &Blueprint) -> Result<Value> {
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
        tolerate_missing_template: bp.head_builtins,
    })
    .map_err(|e| {
        e.wrap(format!(
            "failed to generate the InfrastructureCluster object from the {}",
            obj::kind(t)
        ))
    })
}
