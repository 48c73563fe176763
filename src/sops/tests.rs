use super::*;
use serde_json::json;

/// A test identity and its recipient.
fn identity() -> (age::x25519::Identity, Vec<Recipient>) {
    let id = age::x25519::Identity::generate();
    let r = parse_recipients(&[id.to_public().to_string()]).unwrap();
    (id, r)
}

/// sops' decryption, written from its format (the real `sops -d` is the oracle in
/// conformance/sops.sh): the data key from the age stanza, each value, the MAC.
fn decrypt(sealed: &Value, id: &age::x25519::Identity) -> Value {
    use aes_gcm::aead::{Aead, KeyInit, Payload};
    let enc = sealed.pointer("/sops/age/0/enc").unwrap().as_str().unwrap();
    let key = age::decrypt(id, &armored_bytes(enc)).unwrap();
    let key: [u8; 32] = key.try_into().unwrap();
    let open = |text: &str, aad: &str| -> String {
        let inner = text
            .strip_prefix("ENC[AES256_GCM,")
            .unwrap()
            .strip_suffix(']')
            .unwrap();
        let field = |k: &str| {
            inner
                .split(',')
                .find_map(|f| f.strip_prefix(&format!("{k}:")))
                .unwrap()
                .to_string()
        };
        let d = |k: &str| crate::go::base64::decode(field(k).as_bytes()).unwrap();
        let mut msg = d("data");
        msg.extend(d("tag"));
        let iv = d("iv");
        assert_eq!(iv.len(), 32);
        let c = Cipher::new((&key).into());
        let plain = c
            .decrypt(
                iv.as_slice().into(),
                Payload {
                    msg: &msg,
                    aad: aad.as_bytes(),
                },
            )
            .expect("decrypts with its path as additional data");
        String::from_utf8(plain).unwrap()
    };
    let mut plain = sealed.clone();
    let mut mac = sha2::Sha512::new();
    fn walk(
        v: &mut Value,
        path: &mut Vec<String>,
        under: bool,
        mac: &mut sha2::Sha512,
        open: &dyn Fn(&str, &str) -> String,
    ) {
        match v {
            Value::Object(m) => {
                let keys: Vec<String> = written_order(m).into_iter().cloned().collect();
                for k in keys {
                    if path.is_empty() && k == KEY {
                        continue;
                    }
                    let enc = under || encrypted_key(&k);
                    path.push(k.clone());
                    walk(m.get_mut(&k).unwrap(), path, enc, mac, open);
                    path.pop();
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|i| walk(i, path, under, mac, open)),
            Value::String(s) if under && !s.is_empty() => {
                let p = open(s, &format!("{}:", path.join(":")));
                mac.update(p.as_bytes());
                *s = p;
            }
            leaf => {
                if let Some((t, _)) = leaf_bytes(leaf, "").unwrap() {
                    mac.update(t.as_bytes());
                }
            }
        }
    }
    walk(&mut plain, &mut Vec::new(), false, &mut mac, &open);
    let want = crate::model::hex(&mac.finalize()).to_ascii_uppercase();
    let at = sealed
        .pointer("/sops/lastmodified")
        .unwrap()
        .as_str()
        .unwrap();
    let got = open(sealed.pointer("/sops/mac").unwrap().as_str().unwrap(), at);
    assert_eq!(got, want, "the MAC is over every value in written order");
    plain.as_object_mut().unwrap().remove(KEY);
    plain
}

fn armored_bytes(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

fn secret() -> Value {
    json!({"apiVersion": "v1", "kind": "Secret",
           "metadata": {"name": "capa-manager-bootstrap-credentials", "namespace": "capa-system",
                        "labels": {"cluster.x-k8s.io/provider": "infrastructure-aws", "n10": "x", "n9": "y"},
                        "creationTimestamp": null},
           "type": "Opaque",
           "immutable": false,
           "data": {"credentials": "W2RlZmF1bHRdCmF3c19hY2Nlc3Nfa2V5X2lkID0gQUtJQQ==", "empty": ""},
           "stringData": {"region": "eu-west-1"}})
}

#[test]
fn a_sealed_secret_decrypts_to_the_secret_and_its_mac_holds() {
    let (id, r) = identity();
    let s = secret();
    let sealed = encrypt_secret(&s, &r, "2026-11-28T17:00:00Z").unwrap();
    // Only data and stringData are encrypted; an empty value stays empty.
    assert_eq!(sealed["metadata"], s["metadata"]);
    assert_eq!(sealed["data"]["empty"], "");
    let c = sealed["data"]["credentials"].as_str().unwrap();
    assert!(
        c.starts_with("ENC[AES256_GCM,data:") && c.ends_with(",type:str]"),
        "{c}"
    );
    assert!(!crate::yaml::to_yaml(&sealed).contains("W2RlZmF1bHRd"));
    assert!(!crate::yaml::to_yaml(&sealed).contains("eu-west-1"));
    assert_eq!(sealed["sops"]["encrypted_regex"], ENCRYPTED_REGEX);
    assert_eq!(sealed["sops"]["lastmodified"], "2026-11-28T17:00:00Z");
    assert_eq!(decrypt(&sealed, &id), s);
    // Random nonces and data keys: two sealings differ, both decrypt.
    let again = encrypt_secret(&s, &r, "2026-11-28T17:00:00Z").unwrap();
    assert_ne!(again["data"]["credentials"], sealed["data"]["credentials"]);
    assert_eq!(decrypt(&again, &id), s);
}

#[test]
fn every_recipient_gets_the_data_key() {
    let a = age::x25519::Identity::generate();
    let b = age::x25519::Identity::generate();
    let r = parse_recipients(&[
        b.to_public().to_string(),
        a.to_public().to_string(),
        b.to_public().to_string(),
    ])
    .unwrap();
    assert_eq!(r.len(), 2, "deduplicated");
    let sealed = encrypt_secret(&secret(), &r, "2026-01-01T00:00:00Z").unwrap();
    let mut want = vec![a.to_public().to_string(), b.to_public().to_string()];
    want.sort();
    assert_eq!(recipients_of(&sealed), want);
    for (i, k) in sealed["sops"]["age"].as_array().unwrap().iter().enumerate() {
        let id = if k["recipient"] == a.to_public().to_string() {
            &a
        } else {
            &b
        };
        let enc = k["enc"].as_str().unwrap();
        assert!(enc.starts_with("-----BEGIN AGE ENCRYPTED FILE-----"), "{i}");
        assert_eq!(age::decrypt(id, enc.as_bytes()).unwrap().len(), 32);
    }
}

#[test]
fn bad_recipients_and_values_sops_cannot_hold_are_errors() {
    let e = parse_recipients(&["age1nope".into()]).err().unwrap();
    assert!(
        e.message().contains("--sops-age-recipient \"age1nope\""),
        "{e}"
    );
    assert!(parse_recipients(&[]).err().is_some());
    let (_, r) = identity();
    let mut s = secret();
    s["metadata"]["labels"]["mode"] = json!("0o17");
    let e = encrypt_secret(&s, &r, "2026-01-01T00:00:00Z").unwrap_err();
    assert!(e.message().contains("metadata.labels.mode"), "{e}");
    let mut s = secret();
    s["sops"] = json!({});
    assert!(encrypt_secret(&s, &r, "2026-01-01T00:00:00Z").is_err());
}

#[test]
fn the_plain_sum_depends_on_salt_recipients_and_every_value() {
    let (_, r) = identity();
    let (_, r2) = identity();
    let s = secret();
    let base = plain_sum("aa", &r, &s);
    assert_eq!(base, plain_sum("aa", &r, &s));
    assert_ne!(base, plain_sum("ab", &r, &s));
    assert_ne!(base, plain_sum("aa", &r2, &s));
    let mut t = s.clone();
    t["stringData"]["region"] = json!("eu-west-2");
    assert_ne!(base, plain_sum("aa", &r, &t));
    assert_eq!(new_salt().unwrap().len(), 32);
    assert_ne!(new_salt().unwrap(), new_salt().unwrap());
}

#[test]
fn rfc3339_is_utc_civil_time() {
    assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
    assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(rfc3339(1_795_884_461), "2026-11-28T16:47:41Z");
    assert_eq!(rfc3339(4_107_542_399), "2100-02-28T23:59:59Z");
}
