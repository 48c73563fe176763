use super::*;
use crate::provider::ProviderType;
use std::collections::HashMap;

/// A fake network: URL → body; everything else is a 404.
struct Fake(HashMap<String, Vec<u8>>);

impl Http for Fake {
    fn get(&self, url: &str, limit: u64) -> Result<Vec<u8>> {
        let b = self
            .0
            .get(url)
            .ok_or_else(|| Error::new(format!("GET {url}: 404 Not Found")))?;
        if b.len() as u64 > limit {
            return Err(Error::new(format!("GET {url}: over {limit} bytes")));
        }
        Ok(b.clone())
    }
}

fn core(url: &str) -> Wanted {
    Wanted {
        provider: Provider {
            name: "cluster-api".into(),
            ptype: ProviderType::Core,
            url: url.into(),
        },
        version: None,
    }
}

fn github() -> (GitHub, Fake) {
    let gh = GitHub {
        web: "http://w".into(),
        api: "http://a".into(),
    };
    let mut m = HashMap::new();
    let rel = "http://a/repos/k/capi/releases";
    m.insert(
        format!("{rel}?per_page=100"),
        br#"[{"tag_name":"v1.15.0-rc.0","prerelease":true},{"tag_name":"v1.14.2"},{"tag_name":"v1.9.11"},{"tag_name":"v2.0.0","draft":true}]"#.to_vec(),
    );
    m.insert(
        format!("{rel}/tags/v1.14.2"),
        br#"{"assets":[{"name":"core-components.yaml"},{"name":"metadata.yaml"},{"name":"clusterctl-linux-amd64"},{"name":"../evil.yaml"}]}"#.to_vec(),
    );
    for n in ["core-components.yaml", "metadata.yaml"] {
        m.insert(
            format!("http://w/k/capi/releases/download/v1.14.2/{n}"),
            format!("# {n}\n").into_bytes(),
        );
    }
    (gh, Fake(m))
}

#[test]
fn urls_read_as_clusterctl_reads_them() {
    assert_eq!(
        origin(
            "https://github.com/k/capi/releases/latest/core-components.yaml",
            None
        )
        .unwrap(),
        Origin::GitHub {
            owner: "k".into(),
            repo: "capi".into(),
            version: "latest".into(),
            file: "core-components.yaml".into()
        }
    );
    assert_eq!(
        origin(
            "https://example.com/r/v1.2.3/infrastructure-components.yaml",
            Some("v1.2.4")
        )
        .unwrap(),
        Origin::Url {
            dir: "https://example.com/r/v1.2.4".into(),
            version: "v1.2.4".into(),
            file: "infrastructure-components.yaml".into()
        }
    );
    for bad in [
        "/local/path/core-components.yaml",
        "https://github.com/k/capi/tags/x.yaml",
        "https://example.com/../v1.2.3/c.yaml",
        "https://example.com/latest/c.yaml",
    ] {
        assert!(origin(bad, None).is_err(), "{bad}");
    }
}

#[test]
fn latest_is_the_newest_stable_release_and_only_yaml_assets_come() {
    let (gh, http) = github();
    let w = core("https://github.com/k/capi/releases/latest/core-components.yaml");
    let assets = download(&w, &gh, &http, 1 << 20).unwrap();
    let paths: Vec<&str> = assets.iter().map(|a| a.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "cluster-api/v1.14.2/core-components.yaml",
            "cluster-api/v1.14.2/metadata.yaml"
        ]
    );
    // A release without the components file the URL names.
    let w = core("https://github.com/k/capi/releases/latest/other-components.yaml");
    let e = download(&w, &gh, &http, 1 << 20).unwrap_err();
    assert!(
        e.message().contains("has no asset other-components.yaml"),
        "{}",
        e.message()
    );
}

#[test]
fn a_changed_asset_is_refused_and_nothing_is_written() {
    let (gh, mut http) = github();
    let w = core("https://github.com/k/capi/releases/v1.14.2/core-components.yaml");
    let dir = std::env::temp_dir().join(format!("capi-fetch-unit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let first = store(&dir, &download(&w, &gh, &http, 1 << 20).unwrap()).unwrap();
    assert_eq!(first.written.len(), 2);
    let again = store(&dir, &download(&w, &gh, &http, 1 << 20).unwrap()).unwrap();
    assert_eq!((again.written.len(), again.unchanged.len()), (0, 2));
    let lock = read_lock(&dir).unwrap();
    assert_eq!(lock.len(), 2);
    // The release is re-tagged with other bytes.
    let url = "http://w/k/capi/releases/download/v1.14.2/core-components.yaml";
    http.0.insert(url.into(), b"# tampered\n".to_vec());
    let e = store(&dir, &download(&w, &gh, &http, 1 << 20).unwrap()).unwrap_err();
    assert!(
        e.message().contains("changed since it was fetched"),
        "{}",
        e.message()
    );
    let kept =
        std::fs::read_to_string(dir.join("cluster-api/v1.14.2/core-components.yaml")).unwrap();
    assert_eq!(kept, "# core-components.yaml\n");
    assert_eq!(read_lock(&dir).unwrap(), lock);
    std::fs::remove_dir_all(&dir).unwrap();
}
