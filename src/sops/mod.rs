//! SOPS-encrypted Secrets (`render --secrets sops`): a Secret object encrypted as the
//! `sops` command encrypts a YAML file with `--encrypted-regex '^(data|stringData)$'`
//! (the Flux convention) for age recipients, so that `sops -d` and Flux's
//! kustomize-controller decrypt it.
//!
//! The format (getsops/sops v3.13, `sops.go` `Tree.Encrypt`, `aes/cipher.go`):
//! - a random 32-byte data key;
//! - every leaf under a key matching the regex is replaced by
//!   `ENC[AES256_GCM,data:…,iv:…,tag:…,type:str]`: AES-256-GCM with a random 32-byte
//!   nonce, the additional data being the leaf's keys joined by `:` plus a final `:`
//!   (`data:password:`); an empty string stays empty;
//! - the MAC: SHA-512 over every leaf's text (encrypted or not, in document order:
//!   here the YAML writer's key order), as uppercase hex, itself encrypted with the
//!   data key, its additional data the `lastmodified` time;
//! - the data key encrypted for each age recipient (an armored age file per
//!   recipient), under the top-level `sops` key with the regex, the time and the
//!   format version.
//!
//! Ciphertexts are random by design: the tree keeps an unchanged Secret's file
//! through a salted sum of its plaintext ([`plain_sum`], recorded in the lock), see
//! `gitops::sealed`.

use serde_json::{Map, Value};
use sha2::Digest as _;

use crate::error::{Error, Result};

/// The keys whose values are encrypted (Flux's documented `--encrypted-regex`).
pub const ENCRYPTED_REGEX: &str = "^(data|stringData)$";
/// The sops release whose format is written (and whose `sops -d` proves it,
/// `conformance/sops.sh`).
pub const FORMAT_VERSION: &str = "3.13.3";
/// The top-level key sops keeps its metadata under.
pub const KEY: &str = "sops";

/// A parsed age recipient (`age1…`).
#[derive(Clone)]
pub struct Recipient {
    key: age::x25519::Recipient,
    text: String,
}

impl Recipient {
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// The `--sops-age-recipient` values, each an age X25519 recipient; sorted and
/// deduplicated (the order given does not change the tree).
pub fn parse_recipients(list: &[String]) -> Result<Vec<Recipient>> {
    let mut out: Vec<Recipient> = Vec::new();
    for t in list {
        let key = t.trim().parse::<age::x25519::Recipient>().map_err(|e| {
            Error::new(format!(
                "--sops-age-recipient {t:?}: not an age recipient ({e}); give the public key `age-keygen -y KEYFILE` prints (age1…)"
            ))
        })?;
        out.push(Recipient {
            key,
            text: t.trim().to_string(),
        });
    }
    out.sort_by(|a, b| a.text.cmp(&b.text));
    out.dedup_by(|a, b| a.text == b.text);
    if out.is_empty() {
        return Err(Error::new(
            "--secrets sops needs at least one --sops-age-recipient age1… (the public key Flux's decryption Secret holds the identity of)",
        ));
    }
    Ok(out)
}

/// A key matches [`ENCRYPTED_REGEX`].
fn encrypted_key(k: &str) -> bool {
    k == "data" || k == "stringData"
}

/// The salted sum a lock records of a Secret's plaintext: sha256 over the salt (hex),
/// the recipients and the object's YAML, so that a value guessed from the lock needs
/// the salt, and a new recipient list re-encrypts.
pub fn plain_sum(salt: &str, recipients: &[Recipient], plain: &Value) -> String {
    let mut h = sha2::Sha256::new();
    h.update(salt.as_bytes());
    h.update(b"\n");
    for r in recipients {
        h.update(r.text.as_bytes());
        h.update(b"\n");
    }
    h.update(crate::yaml::to_yaml(plain).as_bytes());
    crate::model::hex(&h.finalize())
}

/// A fresh random salt for [`plain_sum`] (16 bytes, hex).
pub fn new_salt() -> Result<String> {
    let mut b = [0u8; 16];
    random(&mut b)?;
    Ok(crate::model::hex(&b))
}

fn random(buf: &mut [u8]) -> Result<()> {
    getrandom::fill(buf)
        .map_err(|e| Error::new(format!("cannot read random bytes for SOPS encryption: {e}")))
}

/// The text sops hashes of a leaf (`sops.ToBytes`), `None` for a null (sops skips
/// it); an error for what sops cannot hold.
fn leaf_bytes(v: &Value, at: &str) -> Result<Option<(String, &'static str)>> {
    Ok(Some(match v {
        Value::Null => return Ok(None),
        Value::String(s) => (s.clone(), "str"),
        Value::Bool(b) => ((if *b { "True" } else { "False" }).to_string(), "bool"),
        Value::Number(n) if n.is_i64() => (n.to_string(), "int"),
        Value::Number(n) if n.is_f64() => (format!("{}", n.as_f64().unwrap_or(0.0)), "float"),
        _ => {
            return Err(Error::new(format!(
                "{at}: a number sops cannot hold (an integer over 2^63); render with --secrets keep or flux-substitute"
            )))
        }
    }))
}

/// Plain scalars the YAML writer leaves unquoted that sops (yaml.v3) reads as numbers:
/// octal `0o…`. An unencrypted one would be hashed as its number by sops.
fn read_otherwise_by_sops(s: &str) -> bool {
    let t = s.strip_prefix(['-', '+']).unwrap_or(s);
    t.strip_prefix("0o")
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| matches!(b, b'0'..=b'7' | b'_')))
}

/// AES-256-GCM with sops' 32-byte nonce.
type Cipher = aes_gcm::AesGcm<aes_gcm::aes::Aes256, aes_gcm::aead::consts::U32>;

/// One value as sops writes it: `ENC[AES256_GCM,data:…,iv:…,tag:…,type:…]`.
fn encrypt_value(key: &[u8; 32], plain: &str, kind: &str, aad: &str) -> Result<String> {
    use crate::go::base64::encode;
    use aes_gcm::aead::{Aead, KeyInit, Payload};
    let mut iv = [0u8; 32];
    random(&mut iv)?;
    let c = Cipher::new(key.into());
    let out = c
        .encrypt(
            (&iv).into(),
            Payload {
                msg: plain.as_bytes(),
                aad: aad.as_bytes(),
            },
        )
        .map_err(|_| Error::new("AES-256-GCM encryption failed"))?;
    let (data, tag) = out.split_at(out.len() - 16);
    Ok(format!(
        "ENC[AES256_GCM,data:{},iv:{},tag:{},type:{kind}]",
        encode(data),
        encode(&iv),
        encode(tag)
    ))
}

/// The keys of a mapping in the order the YAML writer writes them (the order sops
/// reads them in, and so hashes them in).
fn written_order(m: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = m.keys().collect();
    crate::yaml::keysort::sort_by_key_str(&mut keys, |k| k.as_str());
    keys
}

/// Walk `v` as sops does: every leaf hashed, leaves under an encrypted key replaced.
fn seal_walk(
    v: &mut Value,
    path: &mut Vec<String>,
    under: bool,
    key: &[u8; 32],
    mac: &mut sha2::Sha512,
) -> Result<()> {
    match v {
        Value::Object(m) => {
            let keys: Vec<String> = written_order(m).into_iter().cloned().collect();
            for k in keys {
                if path.is_empty() && k == KEY {
                    continue;
                }
                let enc = under || encrypted_key(&k);
                path.push(k.clone());
                if let Some(child) = m.get_mut(&k) {
                    seal_walk(child, path, enc, key, mac)?;
                }
                path.pop();
            }
        }
        Value::Array(a) => {
            for item in a {
                seal_walk(item, path, under, key, mac)?;
            }
        }
        leaf => {
            let at = path.join(".");
            let Some((text, kind)) = leaf_bytes(leaf, &at)? else {
                return Ok(());
            };
            mac.update(text.as_bytes());
            if under {
                if !text.is_empty() {
                    let aad = format!("{}:", path.join(":"));
                    *leaf = Value::String(encrypt_value(key, &text, kind, &aad)?);
                }
            } else if kind == "str" && read_otherwise_by_sops(&text) {
                return Err(Error::new(format!(
                    "{at}: {text:?} is read by sops as a number, so its MAC would not match; render with --secrets keep or flux-substitute"
                )));
            }
        }
    }
    Ok(())
}

/// `secret` encrypted for `recipients`, `lastmodified` being `now` (RFC 3339, UTC).
pub fn encrypt_secret(secret: &Value, recipients: &[Recipient], now: &str) -> Result<Value> {
    let mut out = secret.clone();
    if out.get(KEY).is_some() {
        return Err(Error::new(format!(
            "the object already has a top-level `{KEY}` key; render with --secrets keep"
        )));
    }
    let mut data_key = [0u8; 32];
    random(&mut data_key)?;
    let mut mac = sha2::Sha512::new();
    seal_walk(&mut out, &mut Vec::new(), false, &data_key, &mut mac)?;
    let mac_hex: String = crate::model::hex(&mac.finalize()).to_ascii_uppercase();
    let mac_enc = encrypt_value(&data_key, &mac_hex, "str", now)?;
    let mut age_keys = Vec::new();
    for r in recipients {
        let enc = age::encrypt_and_armor(&r.key, &data_key)
            .map_err(|e| Error::new(format!("age encryption for {}: {e}", r.text)))?;
        let mut k = Map::new();
        k.insert("recipient".into(), Value::from(r.text.as_str()));
        k.insert("enc".into(), Value::from(enc));
        age_keys.push(Value::Object(k));
    }
    let mut meta = Map::new();
    meta.insert("age".into(), Value::Array(age_keys));
    meta.insert("lastmodified".into(), Value::from(now));
    meta.insert("mac".into(), Value::from(mac_enc));
    meta.insert("encrypted_regex".into(), Value::from(ENCRYPTED_REGEX));
    meta.insert("version".into(), Value::from(FORMAT_VERSION));
    if let Some(m) = out.as_object_mut() {
        m.insert(KEY.into(), Value::Object(meta));
    }
    Ok(out)
}

/// The age recipients a sealed object's metadata names, sorted.
pub fn recipients_of(sealed: &Value) -> Vec<String> {
    let mut r: Vec<String> = sealed
        .pointer("/sops/age")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|k| k.get("recipient").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    r.sort();
    r
}

/// The current time as sops writes `lastmodified` (RFC 3339, seconds, UTC).
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    rfc3339(secs)
}

/// `secs` since the Unix epoch as Go's `t.UTC().Format(time.RFC3339)` writes it.
pub fn rfc3339(secs: u64) -> String {
    crate::typed::gotime::Instant::from_unix(i64::try_from(secs).unwrap_or(0)).format_rfc3339_utc()
}

#[cfg(test)]
mod tests;
