//! `capi-render bundle verify BUNDLE`: every file against `SHA256SUMS` (changed,
//! missing and unlisted files), then every provider ConfigMap decoded (gzip
//! included) against the repository files it was made from, every OCI layout
//! against its ConfigMap, and `rendered/` and `images.txt` against what the bundle's
//! own content renders ([`super::rederive`]).

use crate::model::pointer::Pointer as _;
use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::stage::Tree;
use super::sums;
use crate::error::{Error, Result};
use crate::limits::Limit;
use crate::operator::configmap::{
    configmap_version, read_configmap_within, LABEL_NAME, LABEL_TYPE,
};
use crate::provider::{manifest_label, ProviderType};

/// The outcome of a verification: problems (empty when the bundle is sound) and
/// what was checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub problems: Vec<String>,
    pub files: usize,
    pub configmaps: usize,
    pub oci_layouts: usize,
}

fn provider_type(operator_type: &str) -> Option<ProviderType> {
    Some(match operator_type {
        "core" => ProviderType::Core,
        "bootstrap" => ProviderType::Bootstrap,
        "control-plane" => ProviderType::ControlPlane,
        "infrastructure" => ProviderType::Infrastructure,
        "addon" => ProviderType::Addon,
        "ipam" => ProviderType::Ipam,
        "runtimeextension" => ProviderType::RuntimeExtension,
        _ => return None,
    })
}

/// Read every regular file of the bundle.
pub fn read_tree(root: &Path) -> Result<Tree> {
    let mut t = Tree::new();
    for rel in sums::list_files(root)? {
        let p = root.join(&rel);
        let shown = p.display().to_string();
        let b = crate::limits::read_file(&p, &shown, |e| {
            Error::new(format!("cannot read {shown}: {e}"))
        })?;
        t.insert(rel, b);
    }
    Ok(t)
}

/// The components file of a repository version folder: the one file that is not
/// `metadata.yaml`, a cluster template or a ClusterClass.
fn components_of<'a>(tree: &'a Tree, dir: &str) -> Vec<(&'a String, &'a Vec<u8>)> {
    tree.range(dir.to_string()..)
        .take_while(|(k, _)| k.starts_with(dir))
        .filter(|(k, _)| {
            let n = &k[dir.len()..];
            !n.contains('/')
                && n != "metadata.yaml"
                && !n.starts_with("cluster-template")
                && !n.starts_with("clusterclass")
        })
        .collect()
}

/// Check one ConfigMap against `repository/`; returns the repository's
/// `(metadata, components)` it should hold, found through its labels.
fn check_configmap(
    tree: &Tree,
    file: &str,
    cm: &Value,
    problems: &mut Vec<String>,
    inflated: &mut u64,
) -> Option<(Vec<u8>, Vec<u8>)> {
    let name = cm
        .ptr("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let at = format!("{file}: ConfigMap {name}");
    let label = |k: &str| {
        cm.ptr("/metadata/labels")
            .and_then(|l| l.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let Some(t) = provider_type(&label(LABEL_TYPE)) else {
        problems.push(format!(
            "{at}: unknown provider type label {:?}",
            label(LABEL_TYPE)
        ));
        return None;
    };
    let version = match configmap_version(cm) {
        Ok(v) => v,
        Err(e) => {
            problems.push(format!("{at}: {e}"));
            return None;
        }
    };
    let dir = format!(
        "repository/{}/{version}/",
        manifest_label(&label(LABEL_NAME), t)
    );
    let want_meta = tree.get(&format!("{dir}metadata.yaml"));
    if want_meta.is_none() {
        problems.push(format!("{at}: {dir}metadata.yaml is missing"));
    }
    let want_comp = match components_of(tree, &dir).as_slice() {
        [(p, b)] => Some(((*p).clone(), (*b).clone())),
        [] => {
            problems.push(format!("{at}: no components file in {dir}"));
            None
        }
        more => {
            problems.push(format!(
                "{at}: {} candidate components files in {dir}",
                more.len()
            ));
            None
        }
    };
    // gzip is inflated within the per-ConfigMap limit and what is left of the
    // bundle's (`--max-gzip-bytes`, `--max-bundle-gzip-bytes`).
    let l = crate::limits::Limits::current();
    let left = l.bundle_gzip_bytes.saturating_sub(*inflated);
    let (limit, which) = if left < l.gzip_bytes {
        (left, Limit::BundleGzipBytes)
    } else {
        (l.gzip_bytes, Limit::GzipBytes)
    };
    match read_configmap_within(cm, limit, which) {
        Ok((metadata, components)) => {
            *inflated += components.len() as u64;
            if want_meta.is_some_and(|b| b != metadata.as_bytes()) {
                problems.push(format!("{at}: metadata differs from {dir}metadata.yaml"));
            }
            if let Some((p, b)) = &want_comp {
                if b != components.as_bytes() {
                    problems.push(format!("{at}: components differ from {p}"));
                }
            }
        }
        Err(e) => problems.push(format!("{at}: {e}")),
    }
    Some((want_meta?.clone(), want_comp?.1))
}

/// Check one OCI layout against the repository files of the ConfigMap of the same name.
fn check_oci(
    tree: &Tree,
    dir: &str,
    cms: &BTreeMap<String, (Vec<u8>, Vec<u8>)>,
    problems: &mut Vec<String>,
) {
    let prefix = format!("oci/{dir}/");
    let layout: BTreeMap<String, Vec<u8>> = tree
        .range(prefix.clone()..)
        .take_while(|(k, _)| k.starts_with(&prefix))
        .map(|(k, v)| (k[prefix.len()..].to_string(), v.clone()))
        .collect();
    let at = format!("oci/{dir}");
    let Some((meta, comp)) = cms.get(dir) else {
        problems.push(format!("{at}: no ConfigMap {dir} to compare with"));
        return;
    };
    let tag =
        serde_json::from_slice::<Value>(layout.get("index.json").map(Vec::as_slice).unwrap_or(b""))
            .ok()
            .and_then(|i| {
                i.ptr("/manifests/0/annotations/org.opencontainers.image.ref.name")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .unwrap_or_default();
    match super::oci::read_layout(&layout, &tag) {
        Ok(files) => {
            for (suffix, want) in [("metadata.yaml", meta), ("components.yaml", comp)] {
                let title = format!("{dir}-{suffix}");
                match files.get(&title) {
                    Some(b) if b == want => {}
                    Some(_) => problems.push(format!(
                        "{at}: {title} differs from the repository files of ConfigMap {dir}"
                    )),
                    None => problems.push(format!("{at}: no layer titled {title}")),
                }
            }
        }
        Err(e) => problems.push(format!("{at}: {e}")),
    }
}

/// Verify the bundle at `root`: [`verify_stored`], then `rendered/` and `images.txt`
/// against what the bundle's own content renders ([`super::rederive`]) — once the
/// ConfigMaps and layouts it renders from check out.
pub fn verify(root: &Path) -> Result<Report> {
    let (mut report, tree, sound) = verify_stored(root)?;
    if sound {
        super::rederive::check(&tree, &mut report.problems);
    } else {
        report.problems.push(format!(
            "{}: not re-derived: the ConfigMap and OCI layout problems above come first",
            super::rederive::RENDERED
        ));
    }
    Ok(report)
}

/// Every sum, every ConfigMap against `repository/` and every OCI layout against its
/// ConfigMap; the bundle's files, and whether the ConfigMaps and layouts checked out.
fn verify_stored(root: &Path) -> Result<(Report, Tree, bool)> {
    let mut report = Report {
        problems: sums::check_tree(root)?,
        ..Default::default()
    };
    let from_sums = report.problems.len();
    let tree = read_tree(root)?;
    report.files = tree.len();
    let mut cms: BTreeMap<String, (Vec<u8>, Vec<u8>)> = BTreeMap::new();
    let mut inflated = 0u64;
    for (path, bytes) in tree.range("configmaps/".to_string()..) {
        if !path.starts_with("configmaps/") {
            break;
        }
        let docs = std::str::from_utf8(bytes)
            .map_err(|_| Error::new("not UTF-8"))
            .and_then(crate::yaml::parse_documents);
        let docs = match docs {
            Ok(d) => d,
            Err(e) => {
                report.problems.push(format!("{path}: {e}"));
                continue;
            }
        };
        for cm in docs
            .iter()
            .filter(|d| d.get("kind") == Some(&Value::from("ConfigMap")))
        {
            report.configmaps += 1;
            if let Some(files) =
                check_configmap(&tree, path, cm, &mut report.problems, &mut inflated)
            {
                let name = cm
                    .ptr("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                cms.insert(name.to_string(), files);
            }
        }
    }
    let oci_dirs: std::collections::BTreeSet<String> = tree
        .keys()
        .filter_map(|k| k.strip_prefix("oci/"))
        .filter_map(|k| k.split_once('/').map(|(d, _)| d.to_string()))
        .collect();
    for d in &oci_dirs {
        report.oci_layouts += 1;
        check_oci(&tree, d, &cms, &mut report.problems);
    }
    let sound = report.problems.len() == from_sums;
    Ok((report, tree, sound))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operator::configmap::provider_configmap;

    const META: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\n";

    fn tree(components: &str) -> Tree {
        let mut t = Tree::new();
        let dir = "repository/infrastructure-docker/v1.0.0";
        t.insert(format!("{dir}/metadata.yaml"), META.as_bytes().to_vec());
        t.insert(
            format!("{dir}/infrastructure-components.yaml"),
            components.as_bytes().to_vec(),
        );
        t.insert(
            format!("{dir}/cluster-template.yaml"),
            b"kind: Cluster\n".to_vec(),
        );
        let cm = provider_configmap(
            ProviderType::Infrastructure,
            "docker",
            "capd-system",
            "v1.0.0",
            META,
            components,
            None,
        );
        t.insert(
            "configmaps/capd-system/infrastructure-docker-v1.0.0.yaml".into(),
            crate::yaml::to_yaml(&cm).into_bytes(),
        );
        let (mt, ct) = super::super::oci::file_titles("infrastructure", "docker", "v1.0.0");
        let layout = super::super::oci::write_layout(
            "v1.0.0",
            &[
                (mt, META.as_bytes().to_vec()),
                (ct, components.as_bytes().to_vec()),
            ],
        );
        for (k, v) in layout {
            t.insert(format!("oci/infrastructure-docker-v1.0.0/{k}"), v);
        }
        t
    }

    fn written(name: &str, t: Tree) -> std::path::PathBuf {
        let d =
            std::env::temp_dir().join(format!("capi-bundle-verify-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        super::super::stage::write_bundle(&d.join("b"), t).unwrap();
        d
    }

    #[test]
    fn compressed_configmap_and_layout_verify_against_the_repository() {
        // Over 1 MiB with the metadata: the ConfigMap holds gzip binaryData. Files:
        // 3 repository, 1 ConfigMap, oci-layout + index.json + 4 blobs, SHA256SUMS.
        let big = format!(
            "kind: ConfigMap\ndata:\n  x: \"{}\"\n",
            "y".repeat(1_048_576)
        );
        let d = written("big", tree(&big));
        let cm = std::fs::read_to_string(
            d.join("b/configmaps/capd-system/infrastructure-docker-v1.0.0.yaml"),
        )
        .unwrap();
        assert!(cm.contains("binaryData:"), "not compressed");
        let r = verify_stored(&d.join("b")).unwrap().0;
        assert_eq!(r.problems, Vec::<String>::new());
        assert_eq!((r.configmaps, r.oci_layouts, r.files), (1, 1, 11));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn configmap_and_layout_disagreeing_with_the_repository_are_reported() {
        let mut t = tree("kind: Namespace\n");
        // The repository file changes after the ConfigMap and layout were made; the
        // sums are recomputed, so only the decoding checks can notice.
        t.insert(
            "repository/infrastructure-docker/v1.0.0/infrastructure-components.yaml".into(),
            b"kind: Namespacf\n".to_vec(),
        );
        let d = written("mismatch", t);
        let r = verify_stored(&d.join("b")).unwrap().0;
        assert_eq!(
            r.problems,
            [
                "configmaps/capd-system/infrastructure-docker-v1.0.0.yaml: ConfigMap infrastructure-docker-v1.0.0: components differ from repository/infrastructure-docker/v1.0.0/infrastructure-components.yaml",
                "oci/infrastructure-docker-v1.0.0: infrastructure-docker-v1.0.0-components.yaml differs from the repository files of ConfigMap infrastructure-docker-v1.0.0",
            ]
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn missing_and_flipped_files_are_reported() {
        let d = written("flip", tree("kind: Namespace\n"));
        let b = d.join("b");
        let f = b.join("repository/infrastructure-docker/v1.0.0/cluster-template.yaml");
        let mut bytes = std::fs::read(&f).unwrap();
        bytes[3] ^= 0x20;
        std::fs::write(&f, &bytes).unwrap();
        assert_eq!(
            verify_stored(&b).unwrap().0.problems,
            ["repository/infrastructure-docker/v1.0.0/cluster-template.yaml: checksum mismatch"]
        );
        std::fs::remove_file(&f).unwrap();
        assert_eq!(
            verify_stored(&b).unwrap().0.problems,
            ["repository/infrastructure-docker/v1.0.0/cluster-template.yaml: missing"]
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}

#[cfg(test)]
mod robustness {
    use super::*;

    #[test]
    fn malformed_bundle_files_are_problems_not_panics() {
        let mut t = Tree::new();
        t.insert("configmaps/a.yaml".into(), vec![0xff, 0xfe, 0x00]);
        t.insert("configmaps/b.yaml".into(), b"- a\n- b\n".to_vec());
        t.insert("configmaps/c.yaml".into(), b"kind: ConfigMap\n".to_vec());
        t.insert("configmaps/d.yaml".into(), b"a: [\n".to_vec());
        t.insert("oci/x/index.json".into(), b"{not json".to_vec());
        t.insert("oci/y/oci-layout".into(), b"[]".to_vec());
        let d = std::env::temp_dir().join(format!("capi-bundle-robust-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        super::super::stage::write_bundle(&d.join("b"), t).unwrap();
        let r = verify(&d.join("b")).unwrap();
        let on = |f: &str| r.problems.iter().filter(|p| p.starts_with(f)).count();
        assert_eq!(on("configmaps/a.yaml: "), 1, "{:?}", r.problems);
        assert_eq!(on("configmaps/b.yaml: "), 1, "{:?}", r.problems);
        assert_eq!(on("configmaps/c.yaml: "), 1, "{:?}", r.problems);
        assert_eq!(on("configmaps/d.yaml: "), 1, "{:?}", r.problems);
        assert_eq!(on("oci/x: "), 1, "{:?}", r.problems);
        assert_eq!(on("oci/y: "), 1, "{:?}", r.problems);
        std::fs::write(d.join("b/SHA256SUMS"), "garbage\n").unwrap();
        assert!(verify(&d.join("b"))
            .unwrap_err()
            .message()
            .starts_with("SHA256SUMS line 1"));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
