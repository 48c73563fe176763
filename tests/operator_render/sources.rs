//! The operator's component sources against the local repository: ConfigMaps (plain and
//! compressed) and OCI layouts must give the repository's bytes.

use super::*;

#[test]
fn configmap_sources_match_the_repository() {
    let Some(c) = corpus() else { return };
    let core = cr(
        "CoreProvider",
        "cluster-api",
        "capi-system",
        json!({"version": "v1.10.10"}),
    );
    let by_repo = render_objects(
        objects_of(
            "in.yaml",
            vec![
                core.clone(),
                cr(
                    "InfrastructureProvider",
                    "docker",
                    "capd-system",
                    json!({"version": "v1.10.10"}),
                ),
            ],
        ),
        vec![],
        &repo_opts(&c),
    )
    .unwrap();
    let (meta, comp) = corpus_release(
        &c,
        "infrastructure-docker",
        "v1.10.10",
        "infrastructure-components.yaml",
    );
    let mut plain = provider_configmap(
        ProviderType::Infrastructure,
        "docker",
        "capd-system",
        "v1.10.10",
        &meta,
        &comp,
        None,
    );
    plain["metadata"]["labels"]["provider-components"] = json!("docker");
    assert!(plain["data"].get("components").is_some());
    // The same release compressed by hand, as air-gapped users write it (R4.3.4).
    let mut compressed = plain.clone();
    compressed["data"]
        .as_object_mut()
        .unwrap()
        .remove("components");
    compressed["metadata"]["annotations"] = json!({ANNOTATION_COMPRESSED: "true"});
    compressed["binaryData"] = json!({"components": capi_render::go::base64::encode(
        &capi_render::operator::configmap::gzip(&comp))});
    let selector = json!({"version": "v1.10.10",
        "fetchConfig": {"selector": {"matchLabels": {"provider-components": "docker"}}}});
    for (what, cm) in [("plain", &plain), ("compressed", &compressed)] {
        let set = render_objects(
            objects_of(
                "in.yaml",
                vec![
                    core.clone(),
                    cr(
                        "InfrastructureProvider",
                        "docker",
                        "capd-system",
                        selector.clone(),
                    ),
                    cm.clone(),
                ],
            ),
            vec![],
            &repo_opts(&c),
        )
        .unwrap();
        assert_eq!(set.units[1].objects, by_repo.units[1].objects, "{what}");
        assert_eq!(
            info(&set.units[1]).source,
            "configmap:capd-system/infrastructure-docker-v1.10.10"
        );
    }
    // R4.1.2: without fetchConfig, a stored operator ConfigMap is used — no repository
    // needed at all when the core provider has one too.
    let (cmeta, ccomp) = corpus_release(&c, "cluster-api", "v1.10.10", "core-components.yaml");
    let stored_core = provider_configmap(
        ProviderType::Core,
        "cluster-api",
        "capi-system",
        "v1.10.10",
        &cmeta,
        &ccomp,
        None,
    );
    let stored_docker = provider_configmap(
        ProviderType::Infrastructure,
        "docker",
        "capd-system",
        "v1.10.10",
        &meta,
        &comp,
        None,
    );
    let set = render_objects(
        objects_of(
            "in.yaml",
            vec![
                core.clone(),
                cr(
                    "InfrastructureProvider",
                    "docker",
                    "capd-system",
                    json!({"version": "v1.10.10"}),
                ),
                stored_core,
                stored_docker,
            ],
        ),
        vec![],
        &RenderOptions::default(),
    )
    .unwrap();
    assert_eq!(
        set.units,
        by_repo
            .units
            .iter()
            .cloned()
            .zip(&set.units)
            .map(|(mut u, s)| {
                if let (UnitKind::Provider(a), UnitKind::Provider(b)) = (&mut u.kind, &s.kind) {
                    a.source = b.source.clone();
                }
                u
            })
            .collect::<Vec<_>>()
    );
}

#[test]
fn large_provider_through_a_compressed_configmap_matches_its_repository() {
    let Some(c) = corpus() else { return };
    let Some(aws) = common::corpus_path("stress/repository/infrastructure-aws/v2.10.3") else {
        return;
    };
    let meta = std::fs::read_to_string(aws.join("metadata.yaml")).unwrap();
    let comp = std::fs::read_to_string(aws.join("infrastructure-components.yaml")).unwrap();
    let cm = provider_configmap(
        ProviderType::Infrastructure,
        "aws",
        "capa-system",
        "v2.10.3",
        &meta,
        &comp,
        None,
    );
    // Over 1 MiB: the writer compresses (R4.2.4).
    assert_eq!(cm["metadata"]["annotations"][ANNOTATION_COMPRESSED], "true");
    let secret = json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "aws-variables", "namespace": "capa-system"},
        "data": {"AWS_B64ENCODED_CREDENTIALS": "Q2c9PQ=="}});
    let core = cr(
        "CoreProvider",
        "cluster-api",
        "capi-system",
        json!({"version": "v1.10.10"}),
    );
    let aws_cr = cr(
        "InfrastructureProvider",
        "aws",
        "capa-system",
        json!({"version": "v2.10.3", "configSecret": {"name": "aws-variables"}}),
    );
    let from_cm = render_objects(
        objects_of(
            "in.yaml",
            vec![core.clone(), aws_cr.clone(), secret.clone(), cm],
        ),
        vec![],
        &repo_opts(&c),
    )
    .unwrap();
    // The repository route: a clusterctl config naming the stress folder for aws.
    let tmp = std::env::temp_dir().join(format!("capi-render-op-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let cfg = tmp.join("clusterctl.yaml");
    std::fs::write(
        &cfg,
        format!(
            "providers:\n- name: aws\n  type: InfrastructureProvider\n  url: {}\n",
            aws.join("infrastructure-components.yaml").display()
        ),
    )
    .unwrap();
    let from_repo = render_objects(
        objects_of("in.yaml", vec![core, aws_cr, secret]),
        vec![],
        &RenderOptions {
            config: Some(cfg),
            ..repo_opts(&c)
        },
    )
    .unwrap();
    std::fs::remove_dir_all(&tmp).ok();
    assert_eq!(from_cm.units[1].objects, from_repo.units[1].objects);
    assert!(from_cm.units[1].objects.len() > 10);
}

/// Write a minimal OCI image layout holding `files` (title → text) tagged `tag`.
fn write_layout(dir: &Path, tag: &str, files: &[(&str, &str)]) {
    let blobs = dir.join("blobs/sha256");
    std::fs::create_dir_all(&blobs).unwrap();
    let put = |bytes: &[u8]| {
        let d = capi_render::model::sha256_hex(bytes);
        std::fs::write(blobs.join(&d), bytes).unwrap();
        (format!("sha256:{d}"), bytes.len())
    };
    let (cfg_d, cfg_n) = put(b"{}");
    let layers: Vec<Value> = files
        .iter()
        .map(|(title, text)| {
            let (d, n) = put(text.as_bytes());
            json!({"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": d, "size": n,
                   "annotations": {"org.opencontainers.image.title": title}})
        })
        .collect();
    let manifest = json!({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.empty.v1+json", "digest": cfg_d, "size": cfg_n},
        "layers": layers});
    let (md, mn) = put(serde_json::to_string(&manifest).unwrap().as_bytes());
    std::fs::write(dir.join("oci-layout"), r#"{"imageLayoutVersion":"1.0.0"}"#).unwrap();
    let index = json!({"schemaVersion": 2, "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
        "digest": md, "size": mn, "annotations": {"org.opencontainers.image.ref.name": tag}}]});
    std::fs::write(
        dir.join("index.json"),
        serde_json::to_string(&index).unwrap(),
    )
    .unwrap();
}

#[test]
fn oci_layout_source_matches_the_repository() {
    let Some(c) = corpus() else { return };
    let (meta, comp) = corpus_release(
        &c,
        "infrastructure-docker",
        "v1.10.10",
        "infrastructure-components.yaml",
    );
    let tmp = std::env::temp_dir().join(format!("capi-render-oci-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    write_layout(
        &tmp,
        "v1.10.10",
        &[
            ("metadata.yaml", &meta),
            ("infrastructure-docker-v1.10.10-components.yaml", &comp),
        ],
    );
    let core = cr(
        "CoreProvider",
        "cluster-api",
        "capi-system",
        json!({"version": "v1.10.10"}),
    );
    let oci = cr(
        "InfrastructureProvider",
        "docker",
        "capd-system",
        json!({"version": "v1.10.10", "fetchConfig": {"oci": "ghcr.io/example/capd:v1.10.10"}}),
    );
    let plain = cr(
        "InfrastructureProvider",
        "docker",
        "capd-system",
        json!({"version": "v1.10.10"}),
    );
    let got = render_objects(
        objects_of("in.yaml", vec![core.clone(), oci.clone()]),
        vec![],
        &RenderOptions {
            oci_layout: Some(tmp.clone()),
            ..repo_opts(&c)
        },
    );
    let missing_tag = render_objects(
        objects_of(
            "in.yaml",
            vec![
                core.clone(),
                cr(
                    "InfrastructureProvider",
                    "docker",
                    "capd-system",
                    json!({"version": "v1.10.9", "fetchConfig": {"oci": "ghcr.io/example/capd"}}),
                ),
            ],
        ),
        vec![],
        &RenderOptions {
            oci_layout: Some(tmp.clone()),
            ..repo_opts(&c)
        },
    );
    std::fs::remove_dir_all(&tmp).ok();
    let got = got.unwrap();
    let want = render_objects(
        objects_of("in.yaml", vec![core, plain]),
        vec![],
        &repo_opts(&c),
    )
    .unwrap();
    assert_eq!(got.units[1].objects, want.units[1].objects);
    assert_eq!(
        info(&got.units[1]).source,
        "oci:ghcr.io/example/capd:v1.10.10"
    );
    let e = missing_tag.unwrap_err();
    assert!(
        e.message().contains("has no manifest tagged \"v1.10.9\""),
        "{e}"
    );
}
