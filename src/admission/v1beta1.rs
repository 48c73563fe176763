//! v1beta1 Clusters and ClusterClasses under a v1.11+ core, which the API server checks
//! against the v1beta1 schema of the same CRDs and converts to v1beta2 for the webhooks.

use serde_json::Value;

use super::{
    cluster, crds, default_refusal, name_of, schema, webhook_refusal, Admitted, CoreCrds,
    FieldValidation, Refusal,
};

/// A `cluster.x-k8s.io/v1beta1` ClusterClass under a v1.11+ core: decoded and validated
/// against the v1beta1 schema of the core CRD (the API server converts it to v1beta2
/// for the controllers; the ClusterClass webhook's v1.14.2 rules on the converted class
/// are not run here: the v1beta1 rules of [`crate::topology`] apply when it renders).
pub fn admit_v1beta1_class(
    raw: &Value,
    crds: Option<&CoreCrds>,
    mode: FieldValidation,
) -> Result<Admitted, Refusal> {
    schema_v1beta1(raw, "ClusterClass", crds, mode)
}

/// `raw` of `kind` decoded and validated against the v1beta1 schema, the validation on
/// the defaulting webhook's typed re-encoding (`omitempty` fields such as
/// `classNamespace: ""` dropped), as the API server sees it.
fn schema_v1beta1(
    raw: &Value,
    kind: &str,
    crds: Option<&CoreCrds>,
    mode: FieldValidation,
) -> Result<Admitted, Refusal> {
    let Some(vs) = crds::for_version(crds, "v1beta1").get("v1beta1", kind) else {
        return Ok(Admitted::unchecked(raw));
    };
    let schema::Decoded { value, warnings } = schema::decode(raw, vs, mode)?;
    let typed = crate::validate::apply::webhook_round_trip(&value);
    schema::validate(typed.as_ref().unwrap_or(&value), vs, kind, name_of(raw))?;
    Ok(Admitted { value, warnings })
}

/// A `cluster.x-k8s.io/v1beta1` topology Cluster under a v1.11+ core: decoded and
/// validated against the v1beta1 schema, then converted to v1beta2 as the conversion
/// webhook does and checked by the Cluster webhook's rules that need no class (the
/// class-dependent ones run when it renders). The admitted value is the v1beta1 object
/// as stored.
pub fn admit_v1beta1_cluster(
    raw: &Value,
    crds: Option<&CoreCrds>,
    mode: FieldValidation,
) -> Result<Admitted, Refusal> {
    let Admitted { value, warnings } = schema_v1beta1(raw, "Cluster", crds, mode)?;
    let Ok(mut hub) = crate::topology::v1beta2::hub::cluster(&value) else {
        // The conversion's own error is the render's (with its field).
        return Ok(Admitted { value, warnings });
    };
    let (defaulted, _) = cluster::default_with(&mut hub, None);
    defaulted.map_err(default_refusal)?;
    let (errs, _) = cluster::validate_create_with(&hub, None);
    if !errs.is_empty() {
        return Err(webhook_refusal(
            "validation.cluster.cluster.x-k8s.io",
            "Cluster",
            name_of(raw),
            &errs,
        ));
    }
    Ok(Admitted { value, warnings })
}
