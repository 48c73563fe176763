//! `upgrade plan` over declarative providers: the corpus providers at v1.9.11 can move to
//! v1.10.10 within v1beta1, and to v1.14.2 (v1beta2, the newest release in the corpus) only all together; a provider
//! with no release for the next contract blocks the change. Through the library and
//! through the binary.

use std::path::PathBuf;
use std::process::Command;

use capi_render::model::{InputObject, RenderOptions};
use capi_render::operator::configmap::provider_configmap;
use capi_render::operator::upgrade::{plan, Move};
use capi_render::provider::ProviderType;
use serde_json::json;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

mod common;
use common::corpus;

const IDS: [&str; 4] = [
    "CoreProvider capi-system/cluster-api",
    "BootstrapProvider capi-kubeadm-bootstrap-system/kubeadm",
    "ControlPlaneProvider capi-kubeadm-control-plane-system/kubeadm",
    "InfrastructureProvider capd-system/docker",
];

fn moves(to: &str) -> Vec<Move> {
    IDS.iter()
        .map(|p| Move {
            provider: p.to_string(),
            from: "v1.9.11".into(),
            to: to.into(),
        })
        .collect()
}

#[test]
fn corpus_providers_at_v1_9_11() {
    let Some(c) = corpus() else { return };
    let loaded =
        capi_render::load::load_paths(&[root().join("fixtures/operator/upgrade")]).unwrap();
    let opts = RenderOptions {
        repository: Some(c.join("repository")),
        ..Default::default()
    };
    let p = plan(&loaded.objects, &opts).unwrap();
    assert_eq!(p.core_contract, "v1beta1");
    for r in &p.providers {
        assert_eq!(
            (r.current.as_str(), r.contract.as_str()),
            ("v1.9.11", "v1beta1")
        );
        assert_eq!(r.newest_same_contract, "v1.10.10");
        assert_eq!(
            (r.newest.version.as_str(), r.newest.contract.as_str()),
            ("v1.14.2", "v1beta2")
        );
    }
    assert_eq!(p.within_contract, moves("v1.10.10"));
    let cc = p.contract_change.expect("a contract change");
    assert_eq!(cc.contract, "v1beta2");
    assert_eq!(cc.moves, moves("v1.14.2"));
    assert!(cc.blocked.is_empty());
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
}

#[test]
fn a_provider_without_a_release_for_the_next_contract_blocks_it() {
    let Some(c) = corpus() else { return };
    let meta = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta1\n- major: 1\n  minor: 1\n  contract: v1beta1\n";
    let comp = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: m\n  namespace: x\n";
    let mut objs = vec![
        json!({"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": "CoreProvider",
        "metadata": {"name": "cluster-api", "namespace": "capi-system"}, "spec": {"version": "v1.10.10"}}),
        json!({"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": "IPAMProvider",
        "metadata": {"name": "synth", "namespace": "ipam"}, "spec": {"version": "v1.0.0",
        "fetchConfig": {"selector": {"matchLabels": {"p": "synth"}}}}}),
    ];
    for v in ["v1.0.0", "v1.1.0", "v1.2.0-rc.0"] {
        let mut cm = provider_configmap(ProviderType::Ipam, "synth", "ipam", v, meta, comp, None);
        cm["metadata"]["labels"]["p"] = json!("synth");
        objs.push(cm);
    }
    let inputs: Vec<InputObject> = objs
        .into_iter()
        .enumerate()
        .map(|(i, value)| InputObject {
            file: "in.yaml".into(),
            doc: i,
            value,
        })
        .collect();
    let opts = RenderOptions {
        repository: Some(c.join("repository")),
        ..Default::default()
    };
    let p = plan(&inputs, &opts).unwrap();
    let ipam = &p.providers[1];
    // The pre-release is not offered to a provider on a release.
    assert_eq!(ipam.newest.version, "v1.1.0");
    assert_eq!(
        p.within_contract,
        vec![Move {
            provider: "IPAMProvider ipam/synth".into(),
            from: "v1.0.0".into(),
            to: "v1.1.0".into()
        }]
    );
    let cc = p.contract_change.clone().unwrap();
    assert_eq!(cc.contract, "v1beta2");
    assert_eq!(cc.blocked, vec!["IPAMProvider ipam/synth".to_string()]);
    assert!(p
        .to_table()
        .contains("IPAMProvider ipam/synth: no release for v1beta2 (blocks the change)"));
}

#[test]
fn binary_prints_table_and_yaml() {
    let Some(c) = corpus() else { return };
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_capi-render"))
            .current_dir(root())
            .arg("--repository")
            .arg(c.join("repository"))
            .args(["upgrade", "plan", "-f", "fixtures/operator/upgrade"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let table = run(&[]);
    assert!(table.contains("Contract change to v1beta2 (all providers must move together"));
    assert!(table.contains("  InfrastructureProvider capd-system/docker: v1.9.11 -> v1.10.10\n"));
    let yaml = capi_render::yaml::parse_value(&run(&["--output-format", "yaml"])).unwrap();
    assert_eq!(yaml["apiVersion"], "capi-render.io/v1alpha1");
    assert_eq!(yaml["kind"], "UpgradePlan");
    assert_eq!(yaml["coreContract"], "v1beta1");
    assert_eq!(
        yaml["contractChange"]["together"].as_array().unwrap().len(),
        4
    );
    assert_eq!(yaml["providers"][3]["newestInContract"], "v1.10.10");
}

#[test]
fn a_plan_needs_the_core_provider() {
    let objs = vec![InputObject {
        file: "in.yaml".into(),
        doc: 0,
        value: json!({"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": "InfrastructureProvider",
                      "metadata": {"name": "docker", "namespace": "capd-system"}, "spec": {"version": "v1.9.11"}}),
    }];
    let e = plan(&objs, &RenderOptions::default()).unwrap_err();
    assert_eq!(
        e.message(),
        "InfrastructureProvider capd-system/docker (in.yaml, document 1): no CoreProvider among the inputs: the plan keeps every provider on the core provider's contract"
    );
}

#[test]
fn a_plan_makes_the_preflight_checks_render_makes() {
    let core = |ns: &str, doc: usize| InputObject {
        file: "in.yaml".into(),
        doc,
        value: json!({"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": "CoreProvider",
                      "metadata": {"name": "cluster-api", "namespace": ns}, "spec": {"version": "v1.9.11"}}),
    };
    let objs = vec![core("capi-system", 0), core("other", 1)];
    let e = plan(&objs, &RenderOptions::default()).unwrap_err();
    let r =
        capi_render::render::render_objects(objs.clone(), Vec::new(), &RenderOptions::default())
            .unwrap_err();
    assert_eq!(e.message(), r.message());
    assert!(e.message().contains("CoreProvider"), "{e}");
}
