//! The block-subset YAML reader (`src/yaml/read/block.rs`) against serde-saphyr on every
//! YAML file there is to read: the release corpus (provider components, ClusterClasses,
//! clusterctl's templates), our fixtures and our goldens (files we write must read back
//! the same way). Wherever the block reader takes a document, serde-saphyr reads the same
//! value with the same node and scalar-byte counts (`block_reader_agrees`).

mod common;

use std::path::Path;

use capi_render::yaml::read::block_reader_agrees;
use capi_render::yaml::split::split_documents;

/// (documents, bytes) seen and (documents, bytes) the block reader took.
#[derive(Default)]
struct Tally {
    docs: usize,
    bytes: usize,
    took_docs: usize,
    took_bytes: usize,
}

fn check_tree(dir: &Path, tally: &mut Tally, failures: &mut Vec<String>) {
    let mut files: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_type().is_file()
                && matches!(
                    e.path().extension().and_then(|x| x.to_str()),
                    Some("yaml" | "yml")
                )
        })
        .map(|e| e.into_path())
        .collect();
    files.sort();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let Ok(docs) = split_documents(&text) else {
            continue;
        };
        for (i, doc) in docs.iter().enumerate() {
            tally.docs += 1;
            tally.bytes += doc.len();
            match block_reader_agrees(doc) {
                Ok(true) => {
                    tally.took_docs += 1;
                    tally.took_bytes += doc.len();
                }
                Ok(false) => {}
                Err(e) => failures.push(format!("{} document {}: {e}", f.display(), i + 1)),
            }
        }
    }
}

#[test]
fn the_block_reader_agrees_with_serde_saphyr_on_every_file_we_read_or_write() {
    let root = common::root();
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for dir in ["fixtures", "golden", "deploy"] {
        check_tree(&root.join(dir), &mut tally, &mut failures);
    }
    if let Some(corpus) = common::corpus() {
        check_tree(&corpus, &mut tally, &mut failures);
    }
    eprintln!(
        "block reader: {} of {} documents, {} of {} bytes",
        tally.took_docs, tally.docs, tally.took_bytes, tally.bytes
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(tally.took_docs > 0);
}

/// The components `generate provider` reads most: every document of them is in the
/// block reader's subset (a change that drops one is a slowdown this test names).
#[test]
fn provider_components_are_read_by_the_block_reader() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let mut left = Vec::new();
    for rel in [
        "repository/cluster-api/v1.10.10/core-components.yaml",
        "repository/bootstrap-kubeadm/v1.10.10/bootstrap-components.yaml",
        "repository/control-plane-kubeadm/v1.10.10/control-plane-components.yaml",
        "repository/infrastructure-docker/v1.10.10/infrastructure-components.yaml",
        "stress/repository/infrastructure-aws/v2.10.3/infrastructure-components.yaml",
    ] {
        let text = std::fs::read_to_string(corpus.join(rel)).unwrap();
        for (i, doc) in split_documents(&text).unwrap().iter().enumerate() {
            if !block_reader_agrees(doc).unwrap() {
                left.push(format!("{rel} document {}", i + 1));
            }
        }
    }
    assert!(
        left.is_empty(),
        "read by serde-saphyr:\n{}",
        left.join("\n")
    );
}
