//! `upgrade plan` for declarative providers: for each provider CR, the versions its
//! source offers (local repository, ConfigMaps, OCI tag) with each version's contract
//! read from that version's own `metadata.yaml`; then the plan that keeps every
//! provider on the core provider's contract (the proposal's golden rule): moves that
//! can be made now, one provider at a time, and the contract change that all providers
//! must make together: the *next* contract (the one of the core provider's first release
//! past its current contract), never one beyond it. [`super::apply`] edits the files
//! along this plan.
//!
//! Pre-releases are offered only to a provider whose current version is one.

use serde_json::{json, Value};

use super::api::{Origin, ProviderCr};
use super::source::{Source, SourceContext};
use crate::error::Result;
use crate::model::{InputObject, RenderOptions};
use crate::provider::ProviderType;
use crate::repository::Metadata;
use crate::version::Version;

/// One available version and its contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Available {
    pub version: String,
    pub contract: String,
}

/// The facts of one provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderRow {
    pub kind: String,
    pub ptype: ProviderType,
    /// The file and document of the CR.
    pub origin: Origin,
    /// Whether the CR sets `spec.version` (else `current` is the offline default).
    pub pinned: bool,
    pub namespace: String,
    pub name: String,
    pub current: String,
    pub contract: String,
    /// The newest version in the provider's current contract (may equal `current`).
    pub newest_same_contract: String,
    pub newest: Available,
    /// Everything available, ascending.
    pub available: Vec<Available>,
}

impl ProviderRow {
    pub fn id(&self) -> String {
        format!("{} {}/{}", self.kind, self.namespace, self.name)
    }

    /// `<Kind> <ns>/<name> (<file>, document <n>)`.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.id(), self.origin)
    }

    /// The newest available version abiding by `contract`.
    pub fn newest_in(&self, contract: &str) -> Option<&Available> {
        self.available.iter().rev().find(|a| a.contract == contract)
    }
}

/// One version move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    pub provider: String,
    pub from: String,
    pub to: String,
}

/// A contract change all providers must make together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractChange {
    pub contract: String,
    pub moves: Vec<Move>,
    /// Providers with no release for the new contract (they block the change).
    pub blocked: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub providers: Vec<ProviderRow>,
    pub core_contract: String,
    /// Moves within the core provider's contract, each possible on its own.
    pub within_contract: Vec<Move>,
    /// The next contract, when the core provider has releases for one.
    pub contract_change: Option<ContractChange>,
    pub warnings: Vec<String>,
}

fn contract_of_release(metadata: &str, version: &str) -> String {
    let (Ok(m), Ok(v)) = (Metadata::parse(metadata), Version::parse(version)) else {
        return String::new();
    };
    m.series_for_version(&v)
        .map(|s| s.contract.clone())
        .unwrap_or_default()
}

/// All versions of one provider's source with their contracts, ascending.
fn available(
    p: &ProviderCr,
    src: &Source,
    ctx: &SourceContext,
    current: &Version,
) -> Result<Vec<Available>> {
    let mut vs: Vec<(Version, String)> = Vec::new();
    for v in src.versions().map_err(|e| p.error(e))? {
        let Ok(pv) = Version::parse(&v) else { continue };
        if pv.is_prerelease() && !current.is_prerelease() {
            continue;
        }
        vs.push((pv, v));
    }
    vs.sort_by(|a, b| a.0.compare(&b.0));
    let mut out = Vec::new();
    for (_, v) in vs {
        let rel = src.read(p, &v, ctx).map_err(|e| p.error(e))?;
        out.push(Available {
            contract: contract_of_release(&rel.metadata, &v),
            version: v,
        });
    }
    Ok(out)
}

/// Plan upgrades for the provider CRs among `objects`.
pub fn plan(objects: &[InputObject], opts: &RenderOptions) -> Result<Plan> {
    let provs = super::providers(objects)?;
    if let Some(first) = provs.first() {
        if !provs.iter().any(|p| p.ptype == ProviderType::Core) {
            return Err(first.error(
                "no CoreProvider among the inputs: the plan keeps every provider on the core provider's contract",
            ));
        }
    }
    let cfg = super::operator_config(opts)?;
    // The checks `render` makes first (two CoreProviders, a missing config Secret, ...).
    super::preflight::check_all(&provs, objects, &cfg)?;
    let ctx = SourceContext::new(objects, &cfg, opts);
    let mut warnings = Vec::new();
    let mut rows = Vec::new();
    for p in &provs {
        let (src, current) = super::resolve::resolve_one(p, &ctx, false, &mut warnings)?;
        let cur = super::preflight::parse_semantic(&current).map_err(|e| p.error(e))?;
        let avail = available(p, &src, &ctx, &cur)?;
        let rel = src.read(p, &current, &ctx).map_err(|e| p.error(e))?;
        let contract = contract_of_release(&rel.metadata, &current);
        let newest_same_contract = avail
            .iter()
            .rev()
            .find(|a| a.contract == contract)
            .map(|a| a.version.clone())
            .unwrap_or_else(|| current.clone());
        let newest = avail.last().cloned().unwrap_or(Available {
            version: current.clone(),
            contract: contract.clone(),
        });
        rows.push(ProviderRow {
            kind: p.kind.clone(),
            ptype: p.ptype,
            origin: p.origin.clone(),
            pinned: !p.version().is_empty(),
            namespace: p.namespace.clone(),
            name: p.name.clone(),
            current,
            contract,
            newest_same_contract,
            newest,
            available: avail,
        });
    }
    let core = provs
        .iter()
        .zip(&rows)
        .find(|(p, _)| p.ptype == ProviderType::Core)
        .map(|(_, r)| r.clone());
    let core_contract = core
        .as_ref()
        .map(|c| c.contract.clone())
        .unwrap_or_default();
    let newer = |a: &str, b: &str| match (Version::parse(a), Version::parse(b)) {
        (Ok(x), Ok(y)) => x.compare(&y).is_gt(),
        _ => false,
    };
    let mut within = Vec::new();
    for r in &rows {
        if r.contract != core_contract {
            warnings.push(format!(
                "{} is on contract {} but the core provider is on {core_contract}",
                r.id(),
                r.contract
            ));
        }
        if let Some(a) = r.newest_in(&core_contract) {
            if newer(&a.version, &r.current) {
                within.push(Move {
                    provider: r.id(),
                    from: r.current.clone(),
                    to: a.version.clone(),
                });
            }
        }
    }
    // The next contract: the one of the core provider's first release past its current
    // contract (a later contract is reached through this one, as clusterctl upgrades).
    let contract_change = core
        .as_ref()
        .and_then(|c| next_contract(c).map(|n| (c, n)))
        .map(|(_, target)| {
            let mut moves = Vec::new();
            let mut blocked = Vec::new();
            for r in &rows {
                match r.newest_in(&target) {
                    Some(a) => moves.push(Move {
                        provider: r.id(),
                        from: r.current.clone(),
                        to: a.version.clone(),
                    }),
                    None => blocked.push(r.id()),
                }
            }
            ContractChange {
                contract: target,
                moves,
                blocked,
            }
        });
    Ok(Plan {
        providers: rows,
        core_contract,
        within_contract: within,
        contract_change,
        warnings,
    })
}

/// The contract of `row`'s first release newer than its current version that abides by
/// another (non-empty) contract than its current one.
pub fn next_contract(row: &ProviderRow) -> Option<String> {
    let cur = Version::parse(&row.current).ok()?;
    row.available
        .iter()
        .filter(|a| !a.contract.is_empty() && a.contract != row.contract)
        .find(|a| Version::parse(&a.version).is_ok_and(|v| v.compare(&cur).is_gt()))
        .map(|a| a.contract.clone())
}

fn moves_json(ms: &[Move]) -> Value {
    Value::Array(
        ms.iter()
            .map(|m| json!({"provider": m.provider, "from": m.from, "to": m.to}))
            .collect(),
    )
}

impl Plan {
    /// Whether any move can be made: one within the core provider's contract, or a
    /// contract change no provider blocks (`upgrade plan --exit-code` exits 3).
    pub fn upgrades_available(&self) -> bool {
        !self.within_contract.is_empty()
            || self
                .contract_change
                .as_ref()
                .is_some_and(|c| c.blocked.is_empty() && !c.moves.is_empty())
    }

    /// The machine-readable form (`-o yaml`).
    pub fn to_value(&self) -> Value {
        let providers: Vec<Value> = self
            .providers
            .iter()
            .map(|r| {
                json!({
                    "kind": r.kind, "namespace": r.namespace, "name": r.name,
                    "currentVersion": r.current, "contract": r.contract,
                    "newestInContract": r.newest_same_contract,
                    "newestVersion": r.newest.version, "newestContract": r.newest.contract,
                })
            })
            .collect();
        let mut v = json!({
            "coreContract": self.core_contract,
            "providers": providers,
            "upgradesWithinContract": moves_json(&self.within_contract),
        });
        if let Some(c) = &self.contract_change {
            v["contractChange"] = json!({
                "contract": c.contract,
                "together": moves_json(&c.moves),
                "blockedBy": c.blocked,
            });
        }
        v
    }

    /// The table form.
    pub fn to_table(&self) -> String {
        let head = [
            "KIND",
            "NAMESPACE",
            "NAME",
            "CURRENT",
            "CONTRACT",
            "NEXT IN CONTRACT",
            "NEWEST",
            "NEWEST CONTRACT",
        ];
        let mut rows: Vec<Vec<String>> = vec![head.iter().map(|s| s.to_string()).collect()];
        for r in &self.providers {
            let next = if r.newest_same_contract == r.current {
                "Already up to date".to_string()
            } else {
                r.newest_same_contract.clone()
            };
            rows.push(vec![
                r.kind.clone(),
                r.namespace.clone(),
                r.name.clone(),
                r.current.clone(),
                r.contract.clone(),
                next,
                r.newest.version.clone(),
                r.newest.contract.clone(),
            ]);
        }
        let widths: Vec<usize> = (0..head.len())
            .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        let mut out = String::new();
        for r in &rows {
            let line: Vec<String> = r
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:<w$}"))
                .collect();
            out.push_str(line.join("   ").trim_end());
            out.push('\n');
        }
        out.push_str(&format!(
            "\nCore provider contract: {}\n",
            self.core_contract
        ));
        if self.within_contract.is_empty() {
            out.push_str(&format!(
                "\nNo upgrades within {}: every provider is on its newest {} release.\n",
                self.core_contract, self.core_contract
            ));
        } else {
            out.push_str(&format!(
                "\nUpgrades within {} (each provider can move on its own, set spec.version):\n",
                self.core_contract
            ));
            for m in &self.within_contract {
                out.push_str(&format!("  {}: {} -> {}\n", m.provider, m.from, m.to));
            }
        }
        if let Some(c) = &self.contract_change {
            out.push_str(&format!(
                "\nContract change to {} (all providers must move together, in one change):\n",
                c.contract
            ));
            for m in &c.moves {
                out.push_str(&format!("  {}: {} -> {}\n", m.provider, m.from, m.to));
            }
            for b in &c.blocked {
                out.push_str(&format!(
                    "  {b}: no release for {} (blocks the change)\n",
                    c.contract
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_lookup_is_per_release() {
        let m = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nreleaseSeries:\n- major: 1\n  minor: 2\n  contract: v1beta1\n";
        assert_eq!(contract_of_release(m, "v1.2.9"), "v1beta1");
        assert_eq!(contract_of_release(m, "v1.3.0"), "");
        assert_eq!(contract_of_release("bad", "v1.2.0"), "");
    }

    #[test]
    fn the_next_contract_is_the_first_one_past_the_current() {
        let a = |v: &str, c: &str| Available {
            version: v.into(),
            contract: c.into(),
        };
        let mut row = ProviderRow {
            kind: "CoreProvider".into(),
            ptype: ProviderType::Core,
            origin: Origin {
                file: "p.yaml".into(),
                doc: 0,
            },
            pinned: true,
            namespace: "capi-system".into(),
            name: "cluster-api".into(),
            current: "v0.4.8".into(),
            contract: "v1alpha4".into(),
            newest_same_contract: "v0.4.8".into(),
            newest: a("v1.11.11", "v1beta2"),
            available: vec![
                a("v0.3.25", "v1alpha3"),
                a("v0.4.8", "v1alpha4"),
                a("v1.9.11", "v1beta1"),
                a("v1.10.10", "v1beta1"),
                a("v1.11.11", "v1beta2"),
            ],
        };
        assert_eq!(next_contract(&row).as_deref(), Some("v1beta1"));
        row.current = "v1.10.10".into();
        row.contract = "v1beta1".into();
        assert_eq!(next_contract(&row).as_deref(), Some("v1beta2"));
        row.current = "v1.11.11".into();
        row.contract = "v1beta2".into();
        assert_eq!(next_contract(&row), None);
    }
}
