//! Declarative providers: provider custom resources rendered as cluster-api-operator
//! v0.29.0 would apply them (shared/spec/operator.md; [`release`]).
//!
//! Stages (one module each): [`api`] (kinds, identifiers) → [`convert`] (v1alpha1 and
//! the proposal group to v1alpha2) → [`defaults`] (CRD/webhook defaults, CEL rules) →
//! [`preflight`] (§3) → [`source`] (ConfigMaps, local repository, OCI layout;
//! [`configmap`], [`oci`]) → variables from the config Secret ([`secret`]) →
//! substitution and clusterctl's components pipeline (`components::render`) →
//! [`customize`] (§6–§8) → a [`RenderedUnit`] per provider. [`upgrade`] plans version
//! moves over the same sources.

pub mod api;
pub mod apply;
pub mod configmap;
pub mod convert;
pub mod customize;
pub mod defaults;
#[cfg(test)]
mod fetch_golden_tests;
pub mod oci;
pub mod placeholders;
pub mod preflight;
pub mod release;
pub mod resolve;
pub mod secret;
pub mod source;
pub mod upgrade;

use crate::model::pointer::Pointer as _;
use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::components::{self, ComponentsOptions};
use crate::config::{Config, ImageMeta};
use crate::error::{Error, Result};
use crate::model::{
    InputFile, InputObject, ProviderInfo, RenderOptions, RenderedUnit, SecretsMode, UnitKind,
};
use crate::provider::Provider;
use crate::redact::Redactor;
use crate::repository::Metadata;
use crate::version::Version;

use api::ProviderCr;
use resolve::Resolution;
use source::Release;

/// The provider objects among the inputs, converted, defaulted and sorted (core
/// first, then clusterctl's type order, then namespace/name).
pub fn providers(objects: &[InputObject]) -> Result<Vec<ProviderCr>> {
    let mut out = Vec::new();
    for o in objects {
        let api = o
            .value
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !api::is_provider_group(api) {
            continue;
        }
        let mut p = convert::to_provider(o)?;
        let ns = p.namespace.clone();
        defaults::apply(&mut p.spec, &ns).map_err(|e| p.error(e))?;
        out.push(p);
    }
    out.sort_by(|a, b| {
        (a.ptype.order(), &a.namespace, &a.name).cmp(&(b.ptype.order(), &b.namespace, &b.name))
    });
    Ok(out)
}

/// The clusterctl config the operator side uses: `--config` read with an empty
/// environment (variables never come from the environment), `--repository` set; under
/// `render --from-lock`, its local paths checked to lie inside the repository.
pub fn operator_config(opts: &RenderOptions) -> Result<Config> {
    let mut cfg = match &opts.config {
        Some(p) => Config::load(p, BTreeMap::new())?,
        None => Config::new(BTreeMap::new()),
    };
    if let Some(r) = &opts.repository {
        let abs = std::path::absolute(r)
            .map_err(|e| Error::new(format!("--repository {}: {e}", r.display())))?;
        cfg.repository = Some(abs);
    }
    if let Some(root) = &opts.reads_inside {
        cfg.check_local_paths_inside(root)?;
    }
    Ok(cfg)
}

/// R9.3: the contract of `version` in `metadata`, limited to v1beta1/v1beta2.
pub fn contract_of(p: &ProviderCr, metadata: &str, version: &str) -> Result<String> {
    let meta = Metadata::parse(metadata).map_err(|e| {
        p.error(e.wrap(format!(
            "error decoding \"metadata.yaml\" for provider \"{}\"",
            p.name
        )))
    })?;
    let v = Version::parse(version).map_err(|e| p.error(e))?;
    let series = meta.series_for_version(&v).ok_or_else(|| {
        p.error(format!(
            "invalid provider metadata: version {version} for the provider {} does not match any release series",
            p.name
        ))
    })?;
    if series.contract != "v1beta1" && series.contract != "v1beta2" {
        return Err(p.error(format!(
            "CAPI operator is only compatible with v1beta2 providers, detected {} for provider {}.",
            series.contract, p.name
        )));
    }
    Ok(series.contract.clone())
}

/// R4.6: the additional manifests of a provider (`""` when none).
fn additional_manifests(p: &ProviderCr, objects: &[InputObject]) -> Result<String> {
    let Some(am) = p.spec.get("additionalManifests").and_then(Value::as_object) else {
        return Ok(String::new());
    };
    let name = am.get("name").and_then(Value::as_str).unwrap_or("");
    let ns = am.get("namespace").and_then(Value::as_str).unwrap_or("");
    let cm = source::configmaps_in(objects, ns)
        .into_iter()
        .find(|o| o.value.ptr("/metadata/name").and_then(Value::as_str) == Some(name));
    let Some(cm) = cm else {
        return Err(p.error(format!(
            "failed to get ConfigMap {ns}/{name}: configmaps {name:?} not found (spec.additionalManifests; no such ConfigMap among the inputs)"
        )));
    };
    match cm.value.ptr("/data/manifests") {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(p.error(format!(
            "{}: data.manifests: must be a string",
            api::describe_object(cm)
        ))),
    }
}

/// The Secret variables of a provider (empty without `configSecret`).
fn provider_variables(p: &ProviderCr, objects: &[InputObject]) -> Result<BTreeMap<String, String>> {
    let Some(cs) = p.spec.get("configSecret").and_then(Value::as_object) else {
        return Ok(BTreeMap::new());
    };
    let name = cs.get("name").and_then(Value::as_str).unwrap_or("");
    let ns = cs.get("namespace").and_then(Value::as_str).unwrap_or("");
    let s = secret::find_secret(objects, ns, name).ok_or_else(|| {
        p.error(format!(
            "failed to get providers secret: secrets {name:?} not found (no Secret {ns}/{name} among the inputs)"
        ))
    })?;
    secret::variables(&s.value).map_err(|e| p.error(e.wrap(api::describe_object(s))))
}

/// R5.1.2: the `images` variable is clusterctl image-override YAML; parse it through
/// the clusterctl config reader so the override rules stay in one place.
fn images_config(images_yaml: Option<&String>, p: &ProviderCr) -> Result<Config> {
    let Some(text) = images_yaml else {
        return Ok(release::components_config(Config::new(BTreeMap::new())));
    };
    let parsed = crate::yaml::read::parse_value_lenient(text)
        .map_err(|e| p.error(e.wrap("configSecret key images: not valid YAML")))?;
    if parsed.is_null() {
        return Ok(release::components_config(Config::new(BTreeMap::new())));
    }
    let doc = crate::yaml::to_yaml(&json!({ "images": parsed }));
    Config::from_text(
        &doc,
        std::path::Path::new("configSecret:images"),
        BTreeMap::new(),
    )
    .map(release::components_config)
    .map_err(|e| p.error(e))
}

/// A provider's components after §4.6 and §5.1–§5.2.
pub struct Substituted {
    /// The substituted components text (additional manifests appended).
    pub text: String,
    /// The clusterctl config carrying the Secret's `images`.
    pub config: Config,
    /// Hides the config Secret's values in every later error and warning.
    pub redactor: Redactor,
}

/// §4.6 and §5.1–§5.2 for one release: the substituted components text (additional
/// manifests appended first) and the clusterctl config carrying the Secret's `images`.
/// Every error from here on is redacted: it may quote Secret-derived text.
pub fn substitute(
    p: &ProviderCr,
    release: &Release,
    objects: &[InputObject],
) -> Result<Substituted> {
    let text = components_text(p, release, objects)?;
    let vars = provider_variables(p, objects)?;
    substitute_with(p, text, &vars)
}

/// The components text with the additional manifests appended (§4.6).
fn components_text(p: &ProviderCr, release: &Release, objects: &[InputObject]) -> Result<String> {
    let mut text = release.components.clone();
    let extra = additional_manifests(p, objects)?;
    if !extra.is_empty() {
        text = format!("{text}\n---\n{extra}");
    }
    Ok(text)
}

/// `--secrets`: a provider's config Secret variables, and its components substituted
/// with every Secret key standing for its own `${KEY}` ([`placeholders`]); `None`
/// without config Secret variables.
fn held_text(
    p: &ProviderCr,
    release: &Release,
    objects: &[InputObject],
    redactor: &Redactor,
) -> Result<Option<(BTreeMap<String, String>, String)>> {
    let vars = provider_variables(p, objects)?;
    if vars.is_empty() {
        return Ok(None);
    }
    let text = components_text(p, release, objects)?;
    let held = placeholders::placeholder_vars(&vars);
    let lookup = |k: &str| held.get(k).cloned();
    let text = crate::envsubst::processor::process(&text, &lookup)
        .map_err(|e| redactor.error(p.error(e.wrap("failed to perform variable substitution"))))?;
    Ok(Some((vars, text)))
}

/// The config Secret `namespace/name` of a provider, if it has one.
fn config_secret(p: &ProviderCr) -> Option<(String, String)> {
    let cs = p.spec.get("configSecret").and_then(Value::as_object)?;
    let s = |k: &str| cs.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    Some((s("namespace"), s("name")))
}

/// §5.1–§5.2 on a components text with the config Secret's variables `vars`.
pub fn substitute_with(
    p: &ProviderCr,
    text: String,
    vars: &BTreeMap<String, String>,
) -> Result<Substituted> {
    let redactor = if vars.is_empty() {
        Redactor::default()
    } else {
        Redactor::new(vars.values().map(String::as_str))
    };
    let lookup = |k: &str| vars.get(k).cloned();
    let substituted = crate::envsubst::processor::process(&text, &lookup).map_err(|e| {
        let e = p.error(e.wrap("failed to perform variable substitution"));
        let e = match missing_variables_hint(p, &text, vars) {
            Some(h) => e.with_hint(h),
            None => e,
        };
        redactor.error(e)
    })?;
    let config = images_config(vars.get("images"), p).map_err(|e| redactor.error(e))?;
    Ok(Substituted {
        text: substituted,
        config,
        redactor,
    })
}

/// What to do about variables the components need and nobody set: `render` reads them
/// from the provider's config Secret (never from the environment or a clusterctl
/// config), so name that Secret and the keys to add.
fn missing_variables_hint(
    p: &ProviderCr,
    text: &str,
    vars: &BTreeMap<String, String>,
) -> Option<String> {
    let map = crate::envsubst::processor::get_variable_map(text).ok()?;
    let missing: Vec<&str> = map
        .iter()
        .filter(|(k, default)| default.is_none() && !vars.contains_key(k.as_str()))
        .map(|(k, _)| k.as_str())
        .collect();
    if missing.is_empty() {
        return None;
    }
    let keys = missing.join(", ");
    let cs = p.spec.get("configSecret").and_then(Value::as_object);
    let name = cs.and_then(|c| c.get("name")).and_then(Value::as_str);
    Some(match name {
        Some(n) => {
            let ns = cs
                .and_then(|c| c.get("namespace"))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .unwrap_or(&p.namespace);
            format!("render reads provider variables from the provider's config Secret, not from the environment or a clusterctl config: add the key(s) {keys} to Secret {ns}/{n} (spec.configSecret)")
        }
        None => format!("render reads provider variables from the provider's config Secret, not from the environment or a clusterctl config: set spec.configSecret to a Secret (among the inputs) with the key(s) {keys}"),
    })
}

/// A warning when Clusters with `spec.topology` are rendered next to a core provider
/// whose manager runs with the `ClusterTopology` feature gate off (a `--feature-gates`
/// argument that does not set `ClusterTopology=true`): that management cluster's
/// topology controller would ignore them. Set the gate on the CoreProvider
/// (`spec.manager.featureGates.ClusterTopology: true`, or `CLUSTER_TOPOLOGY: "true"` in
/// its config Secret).
pub fn cluster_topology_gate_warning(units: &[RenderedUnit]) -> Option<String> {
    let core = units
        .iter()
        .find(|u| matches!(&u.kind, UnitKind::Provider(i) if i.provider_type == "core"))?;
    for o in &core.objects {
        if o.get("kind").and_then(Value::as_str) != Some("Deployment") {
            continue;
        }
        let containers = o
            .ptr("/spec/template/spec/containers")
            .and_then(Value::as_array);
        for c in containers.into_iter().flatten() {
            let args = c.get("args").and_then(Value::as_array);
            for a in args.into_iter().flatten().filter_map(Value::as_str) {
                let Some(gates) = a.strip_prefix("--feature-gates=") else {
                    continue;
                };
                let on = gates.split(',').any(|g| g.trim() == "ClusterTopology=true");
                if !on {
                    return Some(format!(
                        "{}: the core provider's manager (Deployment {}) runs with the ClusterTopology feature gate off ({a}), so its topology controller would ignore the Clusters with spec.topology rendered here; set spec.manager.featureGates.ClusterTopology: true on the CoreProvider (or CLUSTER_TOPOLOGY: \"true\" in its config Secret)",
                        core.dir(),
                        o.ptr("/metadata/name").and_then(Value::as_str).unwrap_or("")
                    ));
                }
            }
        }
    }
    None
}

/// One provider's objects, and what clusterctl's image overrides did
/// ([`crate::components::Components::image_moves`]).
pub struct Processed {
    pub objects: Vec<Value>,
    pub image_moves: Vec<(String, String)>,
}

/// §5.3 and §6–§8 on substituted text: clusterctl's components processing, then the
/// operator's customisation.
pub fn process(
    p: &ProviderCr,
    version: &str,
    substituted: &str,
    cfg: &Config,
    operator_images: Option<&BTreeMap<String, ImageMeta>>,
) -> Result<Processed> {
    process_owned(p, version, substituted, cfg, operator_images, None)
}

/// [`process`], with the owner references the operator adds when the provider's UID
/// is known (R6.1.2; `render` never knows it).
pub fn process_owned(
    p: &ProviderCr,
    version: &str,
    substituted: &str,
    cfg: &Config,
    operator_images: Option<&BTreeMap<String, ImageMeta>>,
    owner_uid: Option<&str>,
) -> Result<Processed> {
    let provider = Provider {
        name: p.name.clone(),
        ptype: p.ptype,
        url: String::new(),
    };
    let opts = ComponentsOptions {
        version: version.to_string(),
        target_namespace: p.namespace.clone(),
        skip_template_process: true,
    };
    let c = components::render(&provider, substituted, &opts, cfg).map_err(|e| p.error(e))?;
    let identity = customize::ProviderIdentity {
        kind: p.kind.clone(),
        name: p.name.clone(),
        namespace: p.namespace.clone(),
        manifest_label: p.manifest_label(),
    };
    let input = customize::CustomizeInput {
        provider: &identity,
        spec: &p.spec,
        paused: p.paused,
        operator_images,
        owner_uid,
    };
    let objects = customize::customize(c.objs, &input).map_err(|e| p.error(e))?;
    Ok(Processed {
        objects,
        image_moves: c.image_moves,
    })
}

/// The Namespace object emitted first in each provider unit (the operator appends the
/// same plain object to its cache, R9.2).
pub fn namespace_object(ns: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
}

/// Everything `render` does for the provider objects among `objects`: the units (in
/// order), the extra files read (repository / OCI), and warnings.
pub fn render_providers(
    objects: &[InputObject],
    opts: &RenderOptions,
) -> Result<(Vec<RenderedUnit>, Vec<InputFile>, Vec<String>)> {
    let res = resolve::resolve(objects, opts)?;
    let units = render_resolved(&res, objects, opts)?;
    let files = res
        .providers
        .iter()
        .flat_map(|r| r.release.files.iter().cloned())
        .collect();
    Ok((units, files, res.warnings))
}

/// The units of resolved providers, in their order: substitution (§4.6, §5.1–§5.2) per
/// provider, then each provider's components pipeline on its own worker (rayon);
/// results are taken in provider order, so the first error in that order is the one
/// reported.
pub fn render_resolved(
    res: &Resolution,
    objects: &[InputObject],
    opts: &RenderOptions,
) -> Result<Vec<RenderedUnit>> {
    Ok(render_resolved_with(res, objects, opts, None)?
        .into_iter()
        .map(|p| p.unit)
        .collect())
}

/// One provider rendered by [`render_resolved_with`].
pub struct ProviderRender {
    pub unit: RenderedUnit,
    /// clusterctl's image overrides, image by image ([`Processed::image_moves`]).
    pub image_moves: Vec<(String, String)>,
    /// The provider's config Secret had an `images` key that `images` replaced.
    pub replaced_images: bool,
}

/// [`render_resolved`], and with `images` the clusterctl image override every
/// provider's config Secret carries instead of its own `images` key (the bundle's
/// mirror Secret: applied, it replaces that key).
pub fn render_resolved_with(
    res: &Resolution,
    objects: &[InputObject],
    opts: &RenderOptions,
    images: Option<&BTreeMap<String, ImageMeta>>,
) -> Result<Vec<ProviderRender>> {
    let mut subs = res
        .providers
        .iter()
        .map(|r| substitute(&r.cr, &r.release, objects))
        .collect::<Result<Vec<_>>>()?;
    let mut replaced = vec![false; subs.len()];
    if let Some(images) = images {
        for (sub, replaced) in subs.iter_mut().zip(replaced.iter_mut()) {
            *replaced = sub.config.images.replace(images.clone()).is_some();
        }
    }
    let helds = res
        .providers
        .iter()
        .zip(&subs)
        .map(|(r, sub)| held_text(&r.cr, &r.release, objects, &sub.redactor))
        .collect::<Result<Vec<_>>>()?;
    let operator_images = release::operator_images(&res.config);
    use rayon::prelude::*;
    let processed: Vec<Result<(Processed, Option<Option<Processed>>)>> = res
        .providers
        .par_iter()
        .zip(subs.par_iter())
        .zip(helds.par_iter())
        .map(|((r, sub), held)| {
            let run = |text: &str| {
                process(
                    &r.cr,
                    &r.release.version,
                    text,
                    &sub.config,
                    operator_images.as_ref(),
                )
                .map_err(|e| sub.redactor.error(e))
            };
            let at = || format!("{} {}/{}", r.cr.kind, r.cr.namespace, r.cr.name);
            crate::limits::memory::check(&r.cr.origin.file, at)?;
            let real = run(&sub.text)?;
            crate::limits::memory::check(&r.cr.origin.file, at)?;
            let held = match held {
                // `keep` only warns: components that do not render with placeholders
                // count every object as carrying a value.
                Some((_, t)) if opts.secrets != SecretsMode::FluxSubstitute => Some(run(t).ok()),
                Some((_, t)) => Some(Some(run(t).map_err(|e| {
                    e.with_hint("the components do not render with the config Secret's values as ${VAR} placeholders (--secrets); render with --secrets keep")
                })?)),
                None => None,
            };
            Ok((real, held))
        })
        .collect();
    let mut out = Vec::new();
    for (((r, p), replaced_images), held) in
        res.providers.iter().zip(processed).zip(replaced).zip(helds)
    {
        let (mut p, held_objects) = p?;
        let (mut secret_objects, mut substitute_from) = (Vec::new(), None);
        if let (Some((vars, _)), Some(h)) = (held, held_objects) {
            let redactor = Redactor::new(vars.values().map(String::as_str));
            let fail = |e: Error| redactor.error(r.cr.error(e.wrap("--secrets")));
            // `keep` where the placeholders do not render: the objects holding a value.
            let carriers = h
                .as_ref()
                .map(|h| placeholders::carriers(&p.objects, &h.objects));
            let flux = opts.secrets == SecretsMode::FluxSubstitute;
            let (h, ok) = match carriers {
                Some(Ok(c)) => (h, c),
                Some(Err(e)) if flux => return Err(fail(e)),
                _ => (None, placeholders::containing(&p.objects, &vars)),
            };
            secret_objects = ok;
            match h {
                Some(h) if opts.secrets == SecretsMode::Placeholders => p.objects = h.objects,
                Some(h) if flux && !secret_objects.is_empty() => {
                    placeholders::check_names(&vars).map_err(fail)?;
                    p.objects =
                        placeholders::flux_objects(p.objects, h.objects, &secret_objects, &vars)
                            .map_err(fail)?;
                    let (ns, name) = config_secret(&r.cr).unwrap_or_default();
                    substitute_from = Some(placeholders::flux_secret_name(&ns, &name));
                }
                _ => {}
            }
        }
        let mut all = Vec::new();
        if !opts.no_namespaces {
            all.push(namespace_object(&r.cr.namespace));
            secret_objects.iter_mut().for_each(|i| *i += 1);
        }
        all.extend(p.objects);
        out.push(ProviderRender {
            unit: RenderedUnit {
                kind: UnitKind::Provider(ProviderInfo {
                    provider_type: r.cr.operator_type().to_string(),
                    kind: r.cr.kind.clone(),
                    version: r.release.version.clone(),
                    contract: r.contract.clone(),
                    source: r.release.source.clone(),
                    substitute_from,
                    secret_objects,
                    ..ProviderInfo::default()
                }),
                namespace: r.cr.namespace.clone(),
                name: r.cr.name.clone(),
                objects: all,
                review: Vec::new(),
                after: Vec::new(),
                pending: Vec::new(),
                answers: Vec::new(),
            },
            image_moves: p.image_moves,
            replaced_images,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cr(kind: &str, name: &str, spec: Value) -> InputObject {
        InputObject {
            file: "f.yaml".into(),
            doc: 0,
            value: json!({"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": kind,
                          "metadata": {"name": name, "namespace": "ns"}, "spec": spec}),
        }
    }

    const META: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nreleaseSeries:\n- major: 0\n  minor: 4\n  contract: v1alpha4\n- major: 1\n  minor: 11\n  contract: v1beta2\n";

    #[test]
    fn contract_messages() {
        let p = &providers(&[cr("InfrastructureProvider", "docker", json!({}))]).unwrap()[0];
        assert_eq!(contract_of(p, META, "v1.11.0").unwrap(), "v1beta2");
        assert_eq!(
            contract_of(p, META, "v0.4.8").unwrap_err().message(),
            "InfrastructureProvider ns/docker (f.yaml, document 1): CAPI operator is only compatible with v1beta2 providers, detected v1alpha4 for provider docker."
        );
        assert_eq!(
            contract_of(p, META, "v1.9.0").unwrap_err().message(),
            "InfrastructureProvider ns/docker (f.yaml, document 1): invalid provider metadata: version v1.9.0 for the provider docker does not match any release series"
        );
    }

    #[test]
    fn providers_are_sorted_core_first_then_type_then_namespace_name() {
        let ps = providers(&[
            cr("AddonProvider", "a", json!({})),
            cr("InfrastructureProvider", "b", json!({})),
            cr("BootstrapProvider", "c", json!({})),
            cr("CoreProvider", "cluster-api", json!({})),
            cr("IPAMProvider", "d", json!({})),
            cr("RuntimeExtensionProvider", "e", json!({})),
            cr("ControlPlaneProvider", "f", json!({})),
        ])
        .unwrap();
        let kinds: Vec<&str> = ps.iter().map(|p| p.kind.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "CoreProvider",
                "BootstrapProvider",
                "ControlPlaneProvider",
                "InfrastructureProvider",
                "IPAMProvider",
                "RuntimeExtensionProvider",
                "AddonProvider"
            ]
        );
    }

    #[test]
    fn non_provider_objects_are_ignored_and_defaults_applied() {
        let mut objs = vec![cr("CoreProvider", "cluster-api", json!({"manager": {}}))];
        objs.push(InputObject {
            file: "f.yaml".into(),
            doc: 1,
            value: json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}),
        });
        let ps = providers(&objs).unwrap();
        assert_eq!(ps.len(), 1);
        assert_eq!(ps[0].spec["manager"]["verbosity"], 1);
    }

    fn core_unit(gates: &str) -> RenderedUnit {
        RenderedUnit {
            kind: UnitKind::Provider(ProviderInfo {
                provider_type: "core".into(),
                kind: "CoreProvider".into(),
                version: "v1.10.10".into(),
                contract: "v1beta1".into(),
                source: String::new(),
                ..Default::default()
            }),
            namespace: "capi-system".into(),
            name: "cluster-api".into(),
            objects: vec![
                json!({"kind": "Deployment", "metadata": {"name": "capi-controller-manager"},
                "spec": {"template": {"spec": {"containers": [{"name": "manager",
                    "args": ["--leader-elect", format!("--feature-gates={gates}")]}]}}}}),
            ],
            review: Vec::new(),
            after: Vec::new(),
            pending: Vec::new(),
            answers: Vec::new(),
        }
    }

    #[test]
    fn the_cluster_topology_gate_of_the_core_provider_is_checked() {
        let w =
            cluster_topology_gate_warning(&[core_unit("MachinePool=true,ClusterTopology=false")])
                .unwrap();
        assert!(w.starts_with("providers/capi-system/core-cluster-api: the core provider's manager (Deployment capi-controller-manager) runs with the ClusterTopology feature gate off (--feature-gates=MachinePool=true,ClusterTopology=false)"), "{w}");
        assert!(
            w.contains("spec.manager.featureGates.ClusterTopology: true"),
            "{w}"
        );
        assert!(cluster_topology_gate_warning(&[core_unit("MachinePool=true")]).is_some());
        assert_eq!(
            cluster_topology_gate_warning(&[core_unit("ClusterTopology=true,MachinePool=false")]),
            None
        );
        // No core provider among the inputs: nothing to say.
        assert_eq!(cluster_topology_gate_warning(&[]), None);
    }

    #[test]
    fn a_missing_variable_names_the_config_secret_to_set() {
        let release = Release {
            version: "v1.10.10".into(),
            metadata: String::new(),
            components:
                "kind: ConfigMap\ndata:\n  a: ${NEEDED}\n  b: ${OPTIONAL:=x}\n  c: ${GIVEN}\n"
                    .into(),
            source: String::new(),
            files: Vec::new(),
        };
        let secret = InputObject {
            file: "f.yaml".into(),
            doc: 1,
            value: json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "vars", "namespace": "ns"},
                          "stringData": {"GIVEN": "s3cr3t"}}),
        };
        let with = cr(
            "InfrastructureProvider",
            "docker",
            json!({"configSecret": {"name": "vars"}}),
        );
        let objs = vec![with, secret];
        let p = &providers(&objs).unwrap()[0];
        let e = substitute(p, &release, &objs).err().unwrap();
        assert!(
            e.message()
                .contains("value for variables [NEEDED] is not set"),
            "{e}"
        );
        assert_eq!(
            e.hint(),
            Some("render reads provider variables from the provider's config Secret, not from the environment or a clusterctl config: add the key(s) NEEDED to Secret ns/vars (spec.configSecret)")
        );
        let without = vec![cr("InfrastructureProvider", "docker", json!({}))];
        let p = &providers(&without).unwrap()[0];
        let e = substitute(p, &release, &without).err().unwrap();
        assert!(e.hint().unwrap().ends_with("set spec.configSecret to a Secret (among the inputs) with the key(s) GIVEN, NEEDED"), "{e:?}");
    }
}
