//! Preflight checks (operator.md §3), in the operator's order, with its reasons and
//! exact messages; every failure names the provider object (and the other object for
//! duplicates). Offline additions: exactly one CoreProvider (R3.8 offline note).

use serde_json::Value;

use super::api::ProviderCr;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::model::InputObject;
use crate::provider::ProviderType;
use crate::version::Version;

fn fail(p: &ProviderCr, reason: &str, msg: impl std::fmt::Display) -> Error {
    p.error(format!("preflight check failed ({reason}): {msg}"))
}

/// apimachinery `ParseSemantic`'s error texts: the regexp mismatch first
/// (`could not parse "x" as version`), then the component errors.
pub fn parse_semantic(v: &str) -> Result<Version> {
    let t = v.trim_start();
    let t = t.strip_prefix('v').unwrap_or(t);
    if !t.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(Error::new(format!("could not parse {v:?} as version")));
    }
    Version::parse(v)
}

/// R3.2: a minor or major downgrade from `installed` to `target`.
fn downgrade(p: &ProviderCr, installed: &str) -> Result<()> {
    let Ok(iv) = Version::parse(installed) else {
        return Err(p.error(format!(
            "installed version contains invalid value for provider {:?}",
            p.name
        )));
    };
    let Ok(tv) = Version::parse(p.version()) else {
        return Ok(());
    };
    if tv.major < iv.major || (tv.major == iv.major && tv.minor < iv.minor) {
        return Err(fail(
            p,
            "UnsupportedProviderDowngradeReason",
            "Downgrade is not supported for provider %s",
        ));
    }
    Ok(())
}

/// Run §3 on every provider (sorted as rendered); the first failure wins.
pub fn check_all(providers: &[ProviderCr], objects: &[InputObject], config: &Config) -> Result<()> {
    let predefined = config.providers();
    for p in providers {
        // R3.1
        if !p.version().is_empty() {
            parse_semantic(p.version())
                .map_err(|e| fail(p, "IncorrectVersionFormat", e.message()))?;
        }
        // R3.2
        if let Some(iv) = &p.installed_version {
            downgrade(p, iv)?;
        }
        // R3.3
        if p.ptype == ProviderType::Core && p.name != "cluster-api" {
            return Err(fail(
                p,
                "IncorrectCoreProviderNameReason",
                format!(
                    "Incorrect CoreProvider name: {}. It should be cluster-api",
                    p.name
                ),
            ));
        }
        // R3.4, R3.5
        let fc = p.fetch_config();
        let set = |k: &str| {
            fc.and_then(|f| f.get(k)).is_some_and(|v| match v {
                Value::Null => false,
                Value::String(s) => !s.is_empty(),
                _ => true,
            })
        };
        let known = predefined
            .iter()
            .any(|k| k.name == p.name && k.ptype == p.ptype);
        if !known && !set("selector") && !set("url") && !set("oci") {
            let names: Vec<String> = predefined
                .iter()
                .filter(|k| k.ptype == p.ptype)
                .map(|k| k.name.clone())
                .collect();
            let mut hint =
                crate::suggest::did_you_mean(&p.name, &format!("predefined {}s", p.ptype), &names);
            hint.push_str(
                "; or set spec.fetchConfig (url, selector or oci) for a provider of your own",
            );
            return Err(fail(
                p,
                "FetchConfigValidationError",
                "Either Selector, OCI URL or provider URL must be provided for a not predefined provider",
            )
            .with_hint(hint));
        }
        if set("selector") && set("url") {
            return Err(fail(
                p,
                "FetchConfigValidationError",
                "Only one of Selector and URL must be provided, not both",
            ));
        }
        // R3.6
        if let Some(cs) = p.spec.get("configSecret").and_then(Value::as_object) {
            let name = cs.get("name").and_then(Value::as_str).unwrap_or("");
            let ns = cs.get("namespace").and_then(Value::as_str).unwrap_or("");
            if super::secret::find_secret(objects, ns, name).is_none() {
                return Err(p.error(format!(
                    "failed to get providers secret: secrets {name:?} not found (no Secret {ns}/{name} among the inputs)"
                )));
            }
        }
        // R3.7
        for o in providers {
            if o.kind != p.kind
                || (o.namespace == p.namespace && o.name == p.name && o.origin == p.origin)
            {
                continue;
            }
            if p.ptype == ProviderType::Core {
                return Err(fail(
                    p,
                    "MoreThanOneExists",
                    format!(
                        "CoreProvider already exists in the cluster. Only one is allowed. (other: {})",
                        o.describe()
                    ),
                ));
            }
            if o.name == p.name {
                return Err(fail(
                    p,
                    "MoreThanOneExists",
                    format!(
                        "There is already a {} with name {} in the cluster. Only one is allowed. (other: {})",
                        o.name,
                        o.namespace,
                        o.describe()
                    ),
                ));
            }
        }
    }
    // R3.8 offline: the core provider must be rendered with the others.
    if !providers.is_empty() && !providers.iter().any(|p| p.ptype == ProviderType::Core) {
        let first = &providers[0];
        return Err(first.error(
            "no CoreProvider among the inputs: the operator installs other providers only once a CoreProvider is Ready (preflight WaitingForCoreProviderReady); add the CoreProvider cluster-api",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_messages() {
        assert_eq!(
            parse_semantic("one").unwrap_err().message(),
            "could not parse \"one\" as version"
        );
        assert_eq!(
            parse_semantic("v1.2").unwrap_err().message(),
            "illegal version string \"v1.2\""
        );
        assert!(parse_semantic("v1.2.3").is_ok());
    }
}
