//! `upgrade apply`: the version moves the [`super::upgrade`] plan allows, decided all
//! together before any file is touched ([`decide`]), then made as in-place edits of
//! `spec.version` in the provider CR files ([`files`]).
//!
//! The rules are clusterctl's `upgrade apply` over a management group (the provider CRs
//! of the inputs, with one CoreProvider):
//! * `--contract C`: every provider moves to its newest release abiding by C; C is the
//!   core provider's contract or the next one (never an older one, never one beyond the
//!   next), and a provider without a release for C refuses the whole move.
//! * `--to [NAMESPACE/]NAME:VERSION` (or clusterctl's typed `--core`, `--bootstrap`, ...):
//!   those providers move to those versions; the target contract is the one of the core
//!   provider's target (or current) version, and every provider, moved or not, must
//!   abide by it afterwards ("include it in the upgrade").
//! * neither: `--contract` with the core provider's current contract (the moves the plan
//!   lists under "Upgrades within").
//!
//! A version must be one the provider's source offers, and never older than the current
//! one. A provider CR without `spec.version` (the offline default) that moves gets the
//! key inserted, so the version is pinned in Git from then on.

pub mod files;

use super::api::Origin;
use super::upgrade::{next_contract, Plan, ProviderRow};
use crate::error::{Error, Result};
use crate::provider::ProviderType;
use crate::version::Version;

/// What to move to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Every provider to the newest release of the core provider's current contract.
    WithinContract,
    /// Every provider to its newest release of this contract.
    Contract(String),
    /// These providers to these versions.
    Pins(Vec<Pin>),
}

/// One `--to` (or `--core`, `--bootstrap`, ...) value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// Set by a typed flag (`--core`, ...); `--to` matches any type.
    pub ptype: Option<ProviderType>,
    pub namespace: Option<String>,
    pub name: String,
    pub version: String,
    /// The value as given, for messages.
    pub arg: String,
}

/// The flag of a provider type, as clusterctl names it.
pub fn type_flag(t: ProviderType) -> &'static str {
    match t {
        ProviderType::Core => "--core",
        ProviderType::Bootstrap => "--bootstrap",
        ProviderType::ControlPlane => "--control-plane",
        ProviderType::Infrastructure => "--infrastructure",
        ProviderType::Ipam => "--ipam",
        ProviderType::RuntimeExtension => "--runtime-extension",
        ProviderType::Addon => "--addon",
    }
}

/// Parse `[NAMESPACE/]NAME:VERSION` (clusterctl's upgrade item format).
pub fn parse_pin(arg: &str, ptype: Option<ProviderType>) -> Result<Pin> {
    let flag = ptype.map_or("--to", type_flag);
    let bad = |why: &str| {
        Error::new(format!("{flag} {arg:?}: {why}"))
            .with_hint("write [NAMESPACE/]NAME:VERSION, e.g. capi-system/cluster-api:v1.10.10")
    };
    let Some((who, version)) = arg.rsplit_once(':') else {
        return Err(bad("no version (NAME:VERSION)"));
    };
    let (namespace, name) = match who.split_once('/') {
        Some((ns, n)) => (Some(ns.to_string()), n),
        None => (None, who),
    };
    if name.is_empty() || name.contains('/') || namespace.as_deref() == Some("") {
        return Err(bad("the provider name is empty or has more than one '/'"));
    }
    Version::parse(version).map_err(|e| bad(&format!("invalid version: {}", e.message())))?;
    Ok(Pin {
        ptype,
        namespace,
        name: name.to_string(),
        version: version.to_string(),
        arg: arg.to_string(),
    })
}

/// One `spec.version` to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// `<Kind> <ns>/<name>`.
    pub provider: String,
    pub origin: Origin,
    pub from: String,
    pub to: String,
    /// The CR sets `spec.version` (else the key is inserted).
    pub pinned: bool,
}

impl Edit {
    fn of(r: &ProviderRow, to: &str) -> Edit {
        Edit {
            provider: r.id(),
            origin: r.origin.clone(),
            from: r.current.clone(),
            to: to.to_string(),
            pinned: r.pinned,
        }
    }
}

/// A refusal about one provider CR: its file and document, the field, what to do.
fn refuse(r: &ProviderRow, msg: impl std::fmt::Display, hint: impl Into<String>) -> Error {
    Error::new(format!("{}: spec.version: {msg}", r.describe()))
        .in_file(&r.origin.file)
        .with_hint(hint)
}

fn newer(a: &str, b: &str) -> bool {
    matches!((Version::parse(a), Version::parse(b)), (Ok(x), Ok(y)) if x.compare(&y).is_gt())
}

/// How `row` is named on the command line: the typed flag and `namespace/name`.
fn pin_text(r: &ProviderRow, version: &str) -> String {
    format!(
        "{} {}/{}:{version}",
        type_flag(r.ptype),
        r.namespace,
        r.name
    )
}

/// The moves to make for `target`, every rule checked for every provider first: an
/// error names the provider CR (file, document), `spec.version` and what to do.
/// Providers already at their target are left out.
pub fn decide(plan: &Plan, target: &Target) -> Result<Vec<Edit>> {
    let core = plan
        .providers
        .iter()
        .find(|r| r.ptype == ProviderType::Core)
        .ok_or_else(|| Error::new("no CoreProvider among the inputs"))?;
    match target {
        Target::WithinContract => by_contract(plan, core, &plan.core_contract.clone()),
        Target::Contract(c) => by_contract(plan, core, c),
        Target::Pins(pins) => by_pins(plan, core, pins),
    }
}

/// The contracts a management group may move to: its own and the next one.
fn check_contract(plan: &Plan, core: &ProviderRow, c: &str, how: &str) -> Result<()> {
    let next = next_contract(core);
    if c == plan.core_contract || next.as_deref() == Some(c) {
        return Ok(());
    }
    let offered = std::iter::once(plan.core_contract.clone())
        .chain(next.clone())
        .collect::<Vec<_>>()
        .join(", ");
    let first = core.available.iter().find(|a| a.contract == c);
    let (msg, hint) = match (first, &next) {
        (Some(a), Some(n)) if newer(&a.version, &core.current) => (
            format!("{how} contract {c}, which skips contract {n}: contracts change one at a time"),
            format!("move to {n} first (capi-render upgrade apply --contract {n}), then to {c}"),
        ),
        (Some(_), _) => (
            format!(
                "{how} contract {c}, older than the core provider's contract {} (a downgrade)",
                plan.core_contract
            ),
            format!("contracts this management group can move to: {offered}"),
        ),
        (None, _) => (
            format!("{how} contract {c}, but no release of the core provider abides by it"),
            format!("contracts this management group can move to: {offered}"),
        ),
    };
    Err(refuse(core, msg, hint))
}

fn by_contract(plan: &Plan, core: &ProviderRow, c: &str) -> Result<Vec<Edit>> {
    check_contract(plan, core, c, "the move is to")?;
    let mut edits = Vec::new();
    for r in &plan.providers {
        let Some(a) = r.newest_in(c) else {
            return Err(refuse(
                r,
                format!("no release of this provider abides by contract {c}, and all providers of a management group must move together"),
                "add a release for it to the provider's source, or remove this provider from the inputs",
            ));
        };
        if newer(&r.current, &a.version) {
            return Err(refuse(
                r,
                format!(
                    "{} is newer than {}, its newest {c} release: that would be a downgrade",
                    r.current, a.version
                ),
                format!(
                    "move the core provider to this provider's contract {} instead",
                    r.contract
                ),
            ));
        }
        if newer(&a.version, &r.current) {
            edits.push(Edit::of(r, &a.version));
        }
    }
    Ok(edits)
}

/// The one provider a pin names.
fn find<'a>(plan: &'a Plan, pin: &Pin) -> Result<&'a ProviderRow> {
    let hits: Vec<&ProviderRow> = plan
        .providers
        .iter()
        .filter(|r| {
            r.name == pin.name
                && pin.ptype.is_none_or(|t| t == r.ptype)
                && pin.namespace.as_ref().is_none_or(|ns| *ns == r.namespace)
        })
        .collect();
    let flag = pin.ptype.map_or("--to", type_flag);
    let all = || {
        plan.providers
            .iter()
            .map(|r| pin_text(r, &pin.version))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match hits.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::new(format!(
            "{flag} {}: no provider CR among the inputs is named so",
            pin.arg
        ))
        .with_hint(format!("the providers are: {}", all()))),
        many => Err(Error::new(format!(
            "{flag} {}: {} provider CRs match ({})",
            pin.arg,
            many.len(),
            many.iter().map(|r| r.id()).collect::<Vec<_>>().join(", ")
        ))
        .with_hint(format!(
            "name one by type and namespace: {}",
            many.iter()
                .map(|r| pin_text(r, &pin.version))
                .collect::<Vec<_>>()
                .join(" or ")
        ))),
    }
}

fn by_pins(plan: &Plan, core: &ProviderRow, pins: &[Pin]) -> Result<Vec<Edit>> {
    if pins.is_empty() {
        return Err(Error::new("no provider to move").with_hint(
            "name one with --to NAME:VERSION, or move them all with --contract CONTRACT",
        ));
    }
    // Each pin to its provider (index in the plan), every version checked.
    let mut chosen: Vec<(usize, &Pin, String)> = Vec::new();
    for pin in pins {
        let r = find(plan, pin)?;
        let i = plan
            .providers
            .iter()
            .position(|x| std::ptr::eq(x, r))
            .unwrap_or(0);
        if let Some((_, other, _)) = chosen.iter().find(|(j, _, _)| *j == i) {
            return Err(refuse(
                r,
                format!("named twice ({} and {})", other.arg, pin.arg),
                "give one version per provider",
            ));
        }
        let Some(a) = r.available.iter().find(|a| a.version == pin.version) else {
            let offered: Vec<&str> = r
                .available
                .iter()
                .rev()
                .take(8)
                .map(|a| a.version.as_str())
                .collect();
            return Err(refuse(
                r,
                format!("version {} is not in the provider's source", pin.version),
                format!("versions offered (newest first): {}", offered.join(", ")),
            ));
        };
        if newer(&r.current, &a.version) {
            return Err(refuse(
                r,
                format!("{} -> {} is a downgrade", r.current, a.version),
                format!(
                    "the newest {} release is {}",
                    r.contract,
                    r.newest_in(&r.contract)
                        .map_or(r.current.as_str(), |a| a.version.as_str())
                ),
            ));
        }
        chosen.push((i, pin, a.contract.clone()));
    }
    // The target contract: the core provider's target (or current) version's.
    let core_i = plan
        .providers
        .iter()
        .position(|x| std::ptr::eq(x, core))
        .unwrap_or(0);
    let target = chosen
        .iter()
        .find(|(i, _, _)| *i == core_i)
        .map_or(plan.core_contract.clone(), |(_, _, c)| c.clone());
    check_contract(
        plan,
        core,
        &target,
        "the core provider's target version abides by",
    )?;
    let mut edits = Vec::new();
    for (i, r) in plan.providers.iter().enumerate() {
        match chosen.iter().find(|(j, _, _)| *j == i) {
            Some((_, pin, c)) if *c != target => {
                let hint = match r.newest_in(&target) {
                    Some(a) => format!(
                        "move it to a {target} release, e.g. {}",
                        pin_text(r, &a.version)
                    ),
                    None => format!("this provider has no {target} release"),
                };
                return Err(refuse(
                    r,
                    format!(
                        "{} abides by contract {c}, but the management group moves to {target}: all providers must abide by one contract",
                        pin.version
                    ),
                    hint,
                ));
            }
            // A pin to the current version is no edit, unless it pins a default.
            Some((_, pin, _)) if pin.version != r.current || !r.pinned => {
                edits.push(Edit::of(r, &pin.version));
            }
            Some(_) => {}
            None if r.contract != target => {
                let hint = match r.newest_in(&target) {
                    Some(a) => format!("include it in the upgrade: {}", pin_text(r, &a.version)),
                    None => {
                        format!("this provider has no {target} release, which blocks the change")
                    }
                };
                return Err(refuse(
                    r,
                    format!(
                        "{} abides by contract {}, but the management group moves to {target}: all providers must move together",
                        r.current, r.contract
                    ),
                    hint,
                ));
            }
            None => {}
        }
    }
    Ok(edits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operator::upgrade::{Available, ProviderRow};

    fn row(kind: &str, ptype: ProviderType, name: &str, current: &str, doc: usize) -> ProviderRow {
        let available: Vec<Available> = [
            ("v1.9.11", "v1beta1"),
            ("v1.10.10", "v1beta1"),
            ("v1.11.11", "v1beta2"),
            ("v1.12.0", "v1beta3"),
        ]
        .iter()
        .map(|(v, c)| Available {
            version: v.to_string(),
            contract: c.to_string(),
        })
        .collect();
        let contract = available
            .iter()
            .find(|a| a.version == current)
            .map(|a| a.contract.clone())
            .unwrap();
        ProviderRow {
            kind: kind.into(),
            ptype,
            origin: Origin {
                file: "p.yaml".into(),
                doc,
            },
            pinned: true,
            namespace: "ns".into(),
            name: name.into(),
            current: current.into(),
            newest_same_contract: String::new(),
            newest: available.last().unwrap().clone(),
            contract,
            available,
        }
    }

    fn plan(versions: [&str; 3]) -> Plan {
        let providers = vec![
            row(
                "CoreProvider",
                ProviderType::Core,
                "cluster-api",
                versions[0],
                0,
            ),
            row(
                "BootstrapProvider",
                ProviderType::Bootstrap,
                "kubeadm",
                versions[1],
                1,
            ),
            row(
                "ControlPlaneProvider",
                ProviderType::ControlPlane,
                "kubeadm",
                versions[2],
                2,
            ),
        ];
        Plan {
            core_contract: providers[0].contract.clone(),
            providers,
            within_contract: Vec::new(),
            contract_change: None,
            warnings: Vec::new(),
        }
    }

    fn to(s: &str) -> Pin {
        parse_pin(s, None).unwrap()
    }

    fn err(p: &Plan, t: Target) -> Error {
        decide(p, &t).unwrap_err()
    }

    #[test]
    fn contract_moves_everyone_to_its_newest_release_of_it() {
        let p = plan(["v1.9.11", "v1.9.11", "v1.10.10"]);
        let e = decide(&p, &Target::WithinContract).unwrap();
        let got: Vec<(&str, usize)> = e.iter().map(|e| (e.to.as_str(), e.origin.doc)).collect();
        assert_eq!(got, vec![("v1.10.10", 0), ("v1.10.10", 1)]);
        let e = decide(&p, &Target::Contract("v1beta2".into())).unwrap();
        assert_eq!(e.len(), 3);
        assert!(e.iter().all(|e| e.to == "v1.11.11"));
    }

    #[test]
    fn contracts_other_than_current_and_next_are_refused() {
        let p = plan(["v1.9.11", "v1.9.11", "v1.9.11"]);
        let e = err(&p, Target::Contract("v1beta3".into()));
        assert!(
            e.message()
                .contains("the move is to contract v1beta3, which skips contract v1beta2"),
            "{e}"
        );
        assert!(
            e.message()
                .starts_with("CoreProvider ns/cluster-api (p.yaml, document 1): spec.version:"),
            "{e}"
        );
        assert!(e.hint().unwrap().contains("--contract v1beta2"), "{e:?}");
        let p2 = plan(["v1.11.11", "v1.11.11", "v1.11.11"]);
        let e = err(&p2, Target::Contract("v1beta1".into()));
        assert!(e.message().contains("a downgrade"), "{e}");
        let e = err(&p, Target::Contract("v9".into()));
        assert!(
            e.message().contains("no release of the core provider"),
            "{e}"
        );
        assert_eq!(
            e.hint(),
            Some("contracts this management group can move to: v1beta1, v1beta2")
        );
    }

    #[test]
    fn pins_follow_clusterctls_custom_plan_rules() {
        let p = plan(["v1.9.11", "v1.9.11", "v1.9.11"]);
        // One provider within the contract.
        let e = decide(&p, &Target::Pins(vec![to("ns/cluster-api:v1.10.10")])).unwrap();
        assert_eq!((e.len(), e[0].to.as_str()), (1, "v1.10.10"));
        // `kubeadm` names two providers: refused, with the typed flags as the way out.
        let e = err(&p, Target::Pins(vec![to("kubeadm:v1.10.10")]));
        assert!(e.message().contains("2 provider CRs match"), "{e}");
        assert!(e
            .hint()
            .unwrap()
            .contains("--bootstrap ns/kubeadm:v1.10.10 or --control-plane ns/kubeadm:v1.10.10"));
        let b = parse_pin("kubeadm:v1.10.10", Some(ProviderType::Bootstrap)).unwrap();
        assert_eq!(decide(&p, &Target::Pins(vec![b])).unwrap()[0].origin.doc, 1);
        // The core alone to the next contract leaves the others behind.
        let e = err(&p, Target::Pins(vec![to("cluster-api:v1.11.11")]));
        assert!(e.message().starts_with("BootstrapProvider ns/kubeadm (p.yaml, document 2): spec.version: v1.9.11 abides by contract v1beta1, but the management group moves to v1beta2"), "{e}");
        assert_eq!(
            e.hint(),
            Some("include it in the upgrade: --bootstrap ns/kubeadm:v1.11.11")
        );
        // A provider to the next contract while the core stays: mixed contracts.
        let e = err(
            &p,
            Target::Pins(vec![
                to("ns/cluster-api:v1.10.10"),
                parse_pin("kubeadm:v1.11.11", Some(ProviderType::ControlPlane)).unwrap(),
            ]),
        );
        assert!(
            e.message().contains(
                "v1.11.11 abides by contract v1beta2, but the management group moves to v1beta1"
            ),
            "{e}"
        );
        // Downgrades, unknown versions and unknown providers.
        let p2 = plan(["v1.10.10", "v1.10.10", "v1.10.10"]);
        let e = err(&p2, Target::Pins(vec![to("cluster-api:v1.9.11")]));
        assert!(
            e.message()
                .ends_with("spec.version: v1.10.10 -> v1.9.11 is a downgrade"),
            "{e}"
        );
        let e = err(&p, Target::Pins(vec![to("cluster-api:v1.10.11")]));
        assert!(
            e.message()
                .contains("version v1.10.11 is not in the provider's source"),
            "{e}"
        );
        assert_eq!(
            e.hint(),
            Some("versions offered (newest first): v1.12.0, v1.11.11, v1.10.10, v1.9.11")
        );
        let e = err(&p, Target::Pins(vec![to("docker:v1.10.10")]));
        assert!(
            e.message()
                .starts_with("--to docker:v1.10.10: no provider CR"),
            "{e}"
        );
        // Everyone together to the next contract is fine; the same version is no edit.
        let all = vec![
            to("cluster-api:v1.11.11"),
            parse_pin("ns/kubeadm:v1.11.11", Some(ProviderType::Bootstrap)).unwrap(),
            parse_pin("kubeadm:v1.11.11", Some(ProviderType::ControlPlane)).unwrap(),
        ];
        assert_eq!(decide(&p, &Target::Pins(all)).unwrap().len(), 3);
        assert!(decide(&p, &Target::Pins(vec![to("cluster-api:v1.9.11")]))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn pins_parse_as_clusterctl_upgrade_items() {
        let p = to("capi-system/cluster-api:v1.10.10");
        assert_eq!(
            (p.namespace.as_deref(), p.name.as_str(), p.version.as_str()),
            (Some("capi-system"), "cluster-api", "v1.10.10")
        );
        for bad in [
            "cluster-api",
            "cluster-api:",
            ":v1.0.0",
            "a/b/c:v1.0.0",
            "/x:v1.0.0",
            "x:latest",
        ] {
            assert!(parse_pin(bad, None).is_err(), "{bad}");
        }
        let e = parse_pin("x", Some(ProviderType::Core)).unwrap_err();
        assert!(e.message().starts_with("--core \"x\""), "{e}");
    }
}
