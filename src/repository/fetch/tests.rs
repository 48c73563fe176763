use super::*;
use crate::provider::ProviderType;
use std::collections::HashMap;
use std::io::Write;

/// A fake network: URL → body; everything else is a 404.
struct Fake(HashMap<String, Vec<u8>>);

impl Http for Fake {
    fn get_into(
        &self,
        url: &str,
        limit: u64,
        sink: &mut dyn Write,
    ) -> std::result::Result<u64, GetFailure> {
        let b = self
            .0
            .get(url)
            .ok_or_else(|| GetFailure::Other(Error::new(format!("GET {url}: 404 Not Found"))))?;
        if b.len() as u64 > limit {
            return Err(GetFailure::TooLarge);
        }
        sink.write_all(b)
            .map_err(|e| GetFailure::Other(Error::new(format!("GET {url}: {e}"))))?;
        Ok(b.len() as u64)
    }
}

/// A fresh repository directory with a staging area of the given limits.
fn repo(name: &str, file: u64, total: u64) -> (PathBuf, Staging) {
    let dir = std::env::temp_dir().join(format!("capi-fetch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let stage = Staging::new(&dir, file, total).unwrap();
    (dir, stage)
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
    let (dir, stage) = repo("latest", 1 << 20, 1 << 20);
    let w = core("https://github.com/k/capi/releases/latest/core-components.yaml");
    let assets = download(&w, &gh, &http, &stage).unwrap();
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
    let e = download(&w, &gh, &http, &stage).unwrap_err();
    assert!(
        e.message().contains("has no asset other-components.yaml"),
        "{}",
        e.message()
    );
    drop(stage);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_changed_asset_is_refused_and_nothing_is_written() {
    let (gh, mut http) = github();
    let w = core("https://github.com/k/capi/releases/v1.14.2/core-components.yaml");
    let (dir, stage) = repo("unit", 1 << 20, 1 << 20);
    let first = store(&dir, &download(&w, &gh, &http, &stage).unwrap()).unwrap();
    assert_eq!(first.written.len(), 2);
    let again = store(&dir, &download(&w, &gh, &http, &stage).unwrap()).unwrap();
    assert_eq!((again.written.len(), again.unchanged.len()), (0, 2));
    let lock = read_lock(&dir).unwrap();
    assert_eq!(lock.len(), 2);
    // The release is re-tagged with other bytes.
    let url = "http://w/k/capi/releases/download/v1.14.2/core-components.yaml";
    http.0.insert(url.into(), b"# tampered\n".to_vec());
    let e = store(&dir, &download(&w, &gh, &http, &stage).unwrap()).unwrap_err();
    assert!(
        e.message().contains("changed since it was fetched"),
        "{}",
        e.message()
    );
    let kept =
        std::fs::read_to_string(dir.join("cluster-api/v1.14.2/core-components.yaml")).unwrap();
    assert_eq!(kept, "# core-components.yaml\n");
    assert_eq!(read_lock(&dir).unwrap(), lock);
    // The staging area goes with the fetch: nothing of it is left in the repository.
    drop(stage);
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["cluster-api", "fetch-lock.yaml"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn assets_stream_to_disk_within_a_total_cap() {
    let (gh, mut http) = github();
    // Each asset is within the per-asset limit; together they are over the total.
    let url = "http://w/k/capi/releases/download/v1.14.2/core-components.yaml";
    http.0.insert(url.into(), vec![b'#'; 600]);
    let w = core("https://github.com/k/capi/releases/v1.14.2/core-components.yaml");
    let (dir, stage) = repo("total", 1000, 610);
    let e = download(&w, &gh, &http, &stage).unwrap_err();
    let text = e.message();
    assert!(
        text.contains("over the total input limit of 610 bytes")
            && text.contains("--max-total-bytes"),
        "{text}"
    );
    // One asset over the per-asset limit.
    let (dir2, small) = repo("file", 100, 1 << 20);
    let e = download(&w, &gh, &http, &small).unwrap_err();
    assert!(
        e.message()
            .contains("over the input file limit of 100 bytes"),
        "{}",
        e.message()
    );
    // Within both: staged on disk with its sum, nothing in the repository yet.
    let (dir3, roomy) = repo("roomy", 1000, 2000);
    let assets = download(&w, &gh, &http, &roomy).unwrap();
    assert_eq!(assets[0].size, 600);
    assert_eq!(assets[0].sha256, crate::model::sha256_hex(&[b'#'; 600]));
    assert!(!dir3.join("cluster-api").exists());
    for (d, s) in [(dir, stage), (dir2, small), (dir3, roomy)] {
        drop(s);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
