//! `render --secrets sops`: every provider object that carries a value of its config
//! Secret is written SOPS-encrypted ([`crate::sops`]) for the age recipients given.
//!
//! Encryption is random, so a re-render would change every such file although
//! nothing changed. The lock records, per encrypted file, a salted sum of the
//! plaintext object (and the recipients: [`crate::sops::plain_sum`]); a run whose
//! plaintext gives the same sum keeps the file OUT holds, when that file still has the
//! bytes the lock lists and names the same recipients. `--check` and `diff` then see
//! an unchanged Secret as unchanged, and a changed value (or recipient) as a changed
//! file, without any key to decrypt with.
//!
//! Only Secrets are encrypted: Flux's kustomize-controller decrypts Secrets only. A
//! value that lands in another kind (a feature gate or region in a Deployment's
//! arguments, as most providers take them) stays as rendered, and [`seal`] returns a
//! warning naming each such file.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::{RenderedUnit, SealedFile, UnitKind};
use crate::sops::Recipient;

/// The Secret in flux-system that Flux decrypts with by default (Flux's guide names it
/// `sops-age`): `--sops-flux-secret`.
pub const FLUX_SECRET: &str = "sops-age";

/// What a run knows of the previous tree: the lock's sealed records and its outputs'
/// sums, by path.
#[derive(Default)]
pub struct Previous {
    pub sealed: BTreeMap<String, SealedFile>,
    pub sums: HashMap<String, String>,
}

impl Previous {
    /// From OUT's lock: only the sums of the files it sealed are kept.
    pub fn of(lock: &super::lock::Lock) -> Previous {
        let sealed: BTreeMap<String, SealedFile> = lock
            .sealed
            .iter()
            .map(|s| (s.path.clone(), s.clone()))
            .collect();
        let sums = if sealed.is_empty() {
            HashMap::new()
        } else {
            lock.outputs
                .iter()
                .filter(|o| sealed.contains_key(o.path))
                .map(|o| (o.path.to_string(), o.sha256.to_string()))
                .collect()
        };
        Previous { sealed, sums }
    }
}

/// Seal the provider units' config-Secret carriers. `out`: OUT, where kept files are
/// read from (each checked against the lock's sum); `flux_secret`: the decryption
/// Secret the units' Flux Kustomizations name. Returns one warning per other object
/// that carries a value (left as rendered).
pub fn seal(
    units: &mut [RenderedUnit],
    out: &Path,
    prev: &Previous,
    recipients: &[Recipient],
    flux_secret: &str,
) -> Result<Vec<String>> {
    let now = crate::sops::now_rfc3339();
    let mut warnings = Vec::new();
    for u in units.iter_mut() {
        let dir = u.dir();
        let names = super::names::object_file_names(&u.objects);
        let UnitKind::Provider(info) = &mut u.kind else {
            continue;
        };
        info.sealed.clear();
        for &i in &info.secret_objects {
            let (Some(obj), Some(name)) = (u.objects.get_mut(i), names.get(i)) else {
                continue;
            };
            let path = format!("{dir}/{name}");
            if !is_secret(obj) {
                warnings.push(format!(
                    "{path}: {} holds a value of the provider's config Secret in plain text: --secrets sops encrypts Secrets only (what Flux decrypts); if the value is a credential, render with --secrets flux-substitute --flux",
                    crate::model::object::describe(obj)
                ));
                continue;
            }
            let (sealed, record) = seal_one(obj, &path, out, prev, recipients, &now)
                .map_err(|e| e.wrap(format!("{path}: --secrets sops")))?;
            *obj = sealed;
            info.sealed.push(record);
        }
        if !info.sealed.is_empty() {
            info.decryption = Some(flux_secret.to_string());
        }
    }
    Ok(warnings)
}

/// One Secret: OUT's file again when its plaintext and recipients did not change,
/// else a new encryption (with a new salt).
fn seal_one(
    plain: &Value,
    path: &str,
    out: &Path,
    prev: &Previous,
    recipients: &[Recipient],
    now: &str,
) -> Result<(Value, SealedFile)> {
    if let Some(rec) = prev.sealed.get(path) {
        if crate::sops::plain_sum(&rec.salt, recipients, plain) == rec.plain_sha256 {
            if let Some(v) = kept(path, out, prev, recipients)? {
                return Ok((v, rec.clone()));
            }
        }
    }
    let salt = crate::sops::new_salt()?;
    let record = SealedFile {
        path: path.to_string(),
        plain_sha256: crate::sops::plain_sum(&salt, recipients, plain),
        salt,
    };
    Ok((crate::sops::encrypt_secret(plain, recipients, now)?, record))
}

/// OUT's sealed file at `path`, when it has the bytes the lock lists, names exactly
/// `recipients` and writes back as the same bytes; `None` otherwise (it is sealed
/// anew).
fn kept(
    path: &str,
    out: &Path,
    prev: &Previous,
    recipients: &[Recipient],
) -> Result<Option<Value>> {
    let Some(sum) = prev.sums.get(path) else {
        return Ok(None);
    };
    crate::paths::check_no_symlink(out, path)?;
    let p = out.join(path);
    if std::fs::symlink_metadata(&p).is_err() {
        return Ok(None);
    }
    let shown = p.display().to_string();
    let limit = crate::limits::Limits::current().file_bytes;
    let Some(text) = crate::limits::read_text_within(&p, &shown, limit, |e| {
        Error::new(format!("failed to read {shown}: {e}"))
    })?
    else {
        return Ok(None);
    };
    if &crate::model::sha256_hex(text.as_bytes()) != sum {
        return Ok(None);
    }
    let Ok(v) = crate::yaml::read::parse_value_lenient(&text) else {
        return Ok(None);
    };
    let want: Vec<&str> = recipients.iter().map(Recipient::as_str).collect();
    if crate::sops::recipients_of(&v) != want || crate::yaml::to_yaml(&v) != text {
        return Ok(None);
    }
    Ok(Some(v))
}

fn is_secret(o: &Value) -> bool {
    o.get("apiVersion").and_then(Value::as_str) == Some("v1")
        && o.get("kind").and_then(Value::as_str) == Some("Secret")
}

/// The lock's `sealed` records, read from its `providers` entries (a few, so the
/// section is read with the YAML reader; the rest of the lock is not parsed again). The
/// section is found from the end, as the lock reader finds it (`rfind_providers`): the
/// `outputs` before it are most of a large fleet's lock.
pub fn read_records(text: &str) -> std::result::Result<Vec<SealedFile>, String> {
    let Some(start) = super::lock::rfind_providers(text.as_bytes())
        .map(|i| i + 1)
        .filter(|&i| text[i..].starts_with("providers:\n"))
    else {
        return Ok(Vec::new());
    };
    let rest = &text[start + "providers:\n".len()..];
    // The section ends at the next top-level key.
    let end = rest
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .find(|&i| {
            rest.as_bytes()
                .get(i)
                .is_some_and(|b| !matches!(b, b' ' | b'-' | b'#' | b'\n'))
        })
        .unwrap_or(rest.len());
    if !rest[..end].contains("sealed:") {
        return Ok(Vec::new());
    }
    let section = &text[start..start + "providers:\n".len() + end];
    let v = crate::yaml::parse_value(section).map_err(|e| e.message().to_string())?;
    let mut out = Vec::new();
    for p in v
        .get("providers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for s in p
            .get("sealed")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let f = |k: &str| {
                s.get(k)
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| format!("providers[].sealed[].{k}: missing or not a string"))
            };
            out.push(SealedFile {
                path: f("path")?,
                salt: f("salt")?,
                plain_sha256: f("plainSha256")?,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
