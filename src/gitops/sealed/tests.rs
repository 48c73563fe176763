use super::*;
use serde_json::json;

fn unit(value: &str) -> RenderedUnit {
    RenderedUnit {
        kind: UnitKind::Provider(crate::model::ProviderInfo {
            provider_type: "infrastructure".into(),
            kind: "InfrastructureProvider".into(),
            secret_objects: vec![1],
            ..Default::default()
        }),
        namespace: "capa-system".into(),
        name: "aws".into(),
        objects: vec![
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "capa-system"}}),
            json!({"apiVersion": "v1", "kind": "Secret",
                   "metadata": {"name": "capa-manager-bootstrap-credentials", "namespace": "capa-system"},
                   "data": {"credentials": value}}),
        ],
        review: Vec::new(),
        after: Vec::new(),
        pending: Vec::new(),
        answers: Vec::new(),
    }
}

fn recipients() -> Vec<Recipient> {
    let id = age::x25519::Identity::generate();
    crate::sops::parse_recipients(&[id.to_public().to_string()]).unwrap()
}

/// Seal `u` against what `out` holds from a previous seal (`prev`), then write the
/// sealed file there as the tree writer would, and return the new Previous.
fn round(u: &mut RenderedUnit, out: &Path, prev: &Previous, r: &[Recipient]) -> Previous {
    assert!(seal(std::slice::from_mut(u), out, prev, r, FLUX_SECRET)
        .unwrap()
        .is_empty());
    let UnitKind::Provider(info) = &u.kind else {
        unreachable!()
    };
    assert_eq!(info.decryption.as_deref(), Some(FLUX_SECRET));
    let rec = info.sealed[0].clone();
    let text = crate::yaml::to_yaml(&u.objects[1]);
    let p = out.join(&rec.path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, &text).unwrap();
    Previous {
        sums: [(rec.path.clone(), crate::model::sha256_hex(text.as_bytes()))].into(),
        sealed: [(rec.path.clone(), rec)].into(),
    }
}

#[test]
fn an_unchanged_secret_keeps_its_file_and_a_changed_one_is_sealed_anew() {
    let out = std::env::temp_dir().join(format!("capi-sealed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let r = recipients();
    let mut u = unit("c2VjcmV0");
    let prev = round(&mut u, &out, &Previous::default(), &r);
    let path =
        "providers/capa-system/infrastructure-aws/secret-capa-manager-bootstrap-credentials.yaml";
    assert!(prev.sealed.contains_key(path), "{:?}", prev.sealed.keys());
    let first = std::fs::read_to_string(out.join(path)).unwrap();
    assert!(!first.contains("c2VjcmV0") && first.contains("ENC[AES256_GCM,"));

    // Same plaintext: the same bytes, the same record.
    let mut again = unit("c2VjcmV0");
    let prev2 = round(&mut again, &out, &prev, &r);
    assert_eq!(std::fs::read_to_string(out.join(path)).unwrap(), first);
    assert_eq!(prev2.sealed, prev.sealed);

    // A changed value, another recipient, or a file edited by hand: sealed anew.
    let mut changed = unit("b3RoZXI=");
    round(&mut changed, &out, &prev2, &r);
    assert_ne!(std::fs::read_to_string(out.join(path)).unwrap(), first);
    std::fs::write(out.join(path), &first).unwrap();
    let mut other = unit("c2VjcmV0");
    round(&mut other, &out, &prev2, &recipients());
    assert_ne!(std::fs::read_to_string(out.join(path)).unwrap(), first);
    std::fs::write(out.join(path), format!("{first}\n")).unwrap();
    let mut edited = unit("c2VjcmV0");
    round(&mut edited, &out, &prev2, &r);
    assert_ne!(
        std::fs::read_to_string(out.join(path)).unwrap(),
        format!("{first}\n")
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_value_outside_a_secret_stays_and_is_named_in_a_warning() {
    let mut u = unit("x");
    u.objects[1]["kind"] = json!("ConfigMap");
    let before = u.objects.clone();
    let w = seal(
        std::slice::from_mut(&mut u),
        Path::new("/nonexistent"),
        &Previous::default(),
        &recipients(),
        FLUX_SECRET,
    )
    .unwrap();
    assert_eq!(w.len(), 1);
    assert!(
        w[0].contains("configmap-capa-manager-bootstrap-credentials.yaml: ConfigMap capa-system/capa-manager-bootstrap-credentials holds a value"),
        "{w:?}"
    );
    assert_eq!(u.objects, before);
    let UnitKind::Provider(info) = &u.kind else {
        unreachable!()
    };
    assert!(info.sealed.is_empty() && info.decryption.is_none());
}

#[test]
fn sealed_records_read_back_from_the_providers_section() {
    let lock = "lockVersion: 1\noutputs:\n- path: a\n  sha256: b\nproviders:\n- contract: v1beta1\n  name: aws\n  sealed:\n  - path: providers/x/y/secret-s.yaml\n    plainSha256: abc\n    salt: \"0011\"\n  source: repository:r\n- name: core\ntool: capi-render 0\nunits: []\n";
    let r = read_records(lock).unwrap();
    assert_eq!(
        r,
        vec![SealedFile {
            path: "providers/x/y/secret-s.yaml".into(),
            salt: "0011".into(),
            plain_sha256: "abc".into()
        }]
    );
    assert!(
        read_records("lockVersion: 1\nproviders:\n- name: a\ntool: x\n")
            .unwrap()
            .is_empty()
    );
    assert!(read_records(&lock.replace("    salt: \"0011\"\n", "")).is_err());
}
