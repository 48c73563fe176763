//! Operator customisation of one provider's rendered components (operator.md §6–§8):
//! Deployment and manager overrides, `additionalDeployments`, patches, legacy
//! `manifestPatches`, image overrides, and the proposal's `paused` extension.
//!
//! The input is what clusterctl's components pipeline produced for the provider
//! (Namespace included); the output is the object list cluster-api-operator v0.29.0
//! would apply (`Fetch` phase: `customizeObjectsFn`, `applyPatches`, `imageOverrides`,
//! in that order). One filter per file:
//!
//! | step | file | rule |
//! |---|---|---|
//! | decode the spec | [`spec`] | §1.2–§1.4 |
//! | drop Namespace objects | [`namespaces`] | R6.1.1 |
//! | owner references (only with a UID) | [`owner_refs`] | R6.1.2 |
//! | which Deployment gets what | [`select`] | R6.2 |
//! | Deployment fields, then containers, then manager | [`deployment`], [`containers`], [`manager`], [`set_arg`] | R6.3–R6.5 |
//! | `paused` | [`paused`] | proposal (below) |
//! | `patches` / `manifestPatches` | [`patches`] ([`crate::go::jsonpatch`], [`crate::go::mergepatch`], [`label_selector`]), [`manifest_patches`] | R7 |
//! | image overrides | [`images`] | R8 |
//!
//! **Typed round trip (R6.2.4).** `customizeObjectsFn` converts *every* object of kind
//! `Deployment` (any apiVersion) to the typed apps/v1 struct before deciding what it
//! gets, so a Deployment that cannot be converted fails the stage even when it would be
//! left alone. A Deployment that gets a customisation — the only Deployment, a
//! `ca*-controller-manager` one, or one named in `additionalDeployments` — is converted
//! back from the struct, *even when the provider has no `deployment`/`manager` at all*,
//! so `strategy: {}`, `resources: {}`, `status: {}`
//! appear and unknown fields vanish. A Deployment left untouched (several
//! Deployments, no matching name) is emitted as it came, not round-tripped. We
//! reproduce this with [`typed::round_trip`]: once before customising (the check
//! and the typed starting point), and once after assigning the spec's values as JSON,
//! which normalises them as the typed assignment would (quantities, empty lists
//! dropped…). The image step round-trips every Deployment and DaemonSet again when it
//! runs. The operator builds with k8s.io v0.35.8, and [`typed`] round-trips through
//! that release's types (a zero `creationTimestamp` omitted, the pod-spec fields v0.35
//! has kept).
//!
//! **Map order (R6.4.13).** Go iterates `controller.groupKindConcurrency`,
//! `additionalArgs` and `deployment.containers[].args` in random order. We take keys
//! in byte order, so the flags one map appends come out sorted by key, and when
//! several `additionalArgs` keys conflict the first in byte order is reported.
//!
//! **`paused` (our extension, the proposal's semantics).** Every Deployment that gets
//! the provider's main spec (R6.2: the only one, or each `ca*-controller-manager`) is
//! scaled to 0 replicas after its customisation, and its previous count — the
//! manifest's `spec.replicas`, or what `deployment.replicas` set, or Go's default 1 —
//! is kept as a string in the annotation
//! `management.cluster.x-k8s.io/original-controller-replicas` on the Deployment.
//! `additionalDeployments` Deployments are not paused; patches, which run later, may
//! still set `replicas` explicitly.
//!
//! **Errors** are the operator's texts; [`customize`] prefixes them with the provider
//! (`<Kind> <namespace>/<name>: `).

pub mod containers;
pub mod deployment;
pub mod images;
pub mod label_selector;
pub mod manager;
pub mod manifest_patches;
pub mod namespaces;
pub mod owner_refs;
pub mod patches;
pub mod paused;
mod podspec;
pub mod select;
pub mod set_arg;
pub mod spec;
pub mod typed;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::components::filters::kind;
use crate::config::ImageMeta;
use crate::error::{Error, Result};

use self::select::Selection;
use self::spec::ProviderSpec;

/// The provider a set of objects belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderIdentity {
    /// CR kind, e.g. `CoreProvider`.
    pub kind: String,
    /// `metadata.name` of the CR.
    pub name: String,
    /// `metadata.namespace` of the CR (the target namespace).
    pub namespace: String,
    /// The manifest label (`cluster.x-k8s.io/provider` value), e.g. `infrastructure-docker`.
    pub manifest_label: String,
}

/// Inputs of the customisation stage.
#[derive(Debug, Clone)]
pub struct CustomizeInput<'a> {
    pub provider: &'a ProviderIdentity,
    /// The v1alpha2 `ProviderSpec` (JSON), after conversion and CRD/webhook defaults.
    pub spec: &'a Value,
    /// Proposal extension: scale the Deployments that get the main spec to 0 and keep
    /// the original count in `management.cluster.x-k8s.io/original-controller-replicas`.
    pub paused: bool,
    /// `images:` of the operator's own clusterctl config (R8.1), if one was given.
    pub operator_images: Option<&'a BTreeMap<String, ImageMeta>>,
    /// Owner reference UID for R6.1.2; `None` (the default) omits owner references.
    pub owner_uid: Option<&'a str>,
}

/// `customizeObjectsFn` (§6) plus `paused`.
pub fn customize_objects(
    objs: Vec<Value>,
    spec: &ProviderSpec,
    provider: &ProviderIdentity,
    paused: bool,
    owner_uid: Option<&str>,
) -> Result<Vec<Value>> {
    let multiple = select::is_multiple_deployments(&objs);
    let mut out = Vec::with_capacity(objs.len());
    for mut o in objs {
        if namespaces::is_namespace(&o) {
            continue;
        }
        if let Some(uid) = owner_uid {
            owner_refs::ensure_owner_ref(&mut o, &provider.kind, &provider.name, uid);
        }
        if kind(&o) != "Deployment" {
            out.push(o);
            continue;
        }
        let mut d = typed::round_trip(&o)?;
        let (ds, ms, main) = match select::select(&o, multiple, spec) {
            Selection::Untouched => {
                out.push(o);
                continue;
            }
            Selection::Main {
                deployment,
                manager,
            } => (deployment, manager, true),
            Selection::Additional {
                deployment,
                manager,
            } => (deployment, manager, false),
        };
        deployment::customize_deployment(ds, ms, &mut d)?;
        if main && paused {
            paused::pause(&mut d);
        }
        out.push(typed::round_trip(&d)?);
    }
    Ok(out)
}

/// `applyPatches` (§7).
pub fn apply_patches(objs: Vec<Value>, spec: &ProviderSpec) -> Result<Vec<Value>> {
    match (spec.patches.is_empty(), spec.manifest_patches.is_empty()) {
        (false, false) => Err(Error::new(
            "cannot use both 'patches' and 'manifestPatches'; please choose one",
        )),
        (false, true) => patches::apply_patches(objs, &spec.patches),
        (true, false) => manifest_patches::apply_manifest_patches(objs, &spec.manifest_patches),
        (true, true) => Ok(objs),
    }
}

/// Apply §6 (customisation), §7 (patches) and §8 (image overrides), in that order, to
/// the objects clusterctl's components pipeline produced for one provider.
pub fn customize(objs: Vec<Value>, input: &CustomizeInput) -> Result<Vec<Value>> {
    let p = input.provider;
    let run = || -> Result<Vec<Value>> {
        let spec = ProviderSpec::from_json(input.spec)?;
        let objs = customize_objects(objs, &spec, p, input.paused, input.owner_uid)?;
        let objs = apply_patches(objs, &spec)?;
        images::apply_image_overrides(objs, input.operator_images, &p.manifest_label)
    };
    run().map_err(|e: Error| e.wrap(format!("{} {}/{}", p.kind, p.namespace, p.name)))
}

#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod tests;
