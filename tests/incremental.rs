//! Incremental `render -o` / `--check` (the fleet-scale issue): a Cluster whose
//! fingerprint the lock records is not rendered again, and the tree is still exactly
//! the one a full render writes. A fleet of our own quickstart fixture over three
//! namespaces goes through a seeded sequence of random edits; after each one the
//! incremental tree (carried from edit to edit) must equal, byte for byte and lock
//! included, a full render into an empty directory.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use capi_render::gitops::{self, TreeOptions, WriteReport};
use capi_render::limits::Meter;
use capi_render::model::{ClusterMode, RenderOptions};
use capi_render::render::prepare;

mod common;

fn root() -> PathBuf {
    common::root()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("capi-render-incr-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

thread_local! {
    // libtest runs each test on its own thread: the cluster mode of this test's renders.
    static MODE: std::cell::Cell<ClusterMode> = const { std::cell::Cell::new(ClusterMode::Managed) };
}

thread_local! {
    // How many input files the last rendering left unparsed (its lock's deferral).
    static DEFERRED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The inputs loaded as `render -o` / `--check` load them: the files of Clusters the
/// lock records unchanged are left unparsed (unless `full`).
fn rendering(input: &Path, deferral: &gitops::Deferral) -> capi_render::render::Rendering {
    let (inputs, files, deferred) = deferral
        .load(&[input.to_path_buf()], &Meter::current())
        .unwrap();
    DEFERRED.set(deferred);
    let opts = RenderOptions {
        clusters: MODE.get(),
        ..RenderOptions::default()
    };
    prepare(inputs, files, &opts).unwrap()
}

fn write(input: &Path, out: &Path, full: bool) -> WriteReport {
    try_write(input, out, full).unwrap()
}

fn try_write(input: &Path, out: &Path, full: bool) -> capi_render::Result<WriteReport> {
    let opened = gitops::Opened::for_write(out)?;
    let opts = TreeOptions::default();
    let deferral = opened.deferral(out, &opts, full);
    gitops::write_opened(
        opened,
        rendering(input, &deferral),
        out,
        &opts,
        full,
        &mut |_| {},
        &mut |_| Ok(()),
    )
}

fn up_to_date(input: &Path, out: &Path, full: bool) -> bool {
    let opened = gitops::Opened::for_check(out).unwrap();
    let opts = TreeOptions::default();
    let deferral = opened.deferral(out, &opts, full);
    gitops::check_opened(
        opened,
        rendering(input, &deferral),
        out,
        &opts,
        full,
        &mut |_| {},
    )
    .unwrap()
    .changed
    .is_empty()
}

/// Every entry below `dir` (directories included: none may be left behind).
fn tree(dir: &Path) -> BTreeMap<String, common::Node> {
    common::snapshot(dir)
}

/// The fleet's inputs: the quickstart class in every namespace, and the Clusters.
struct Fleet {
    class: String,
    /// Per namespace: the label value the class's DockerClusterTemplate carries.
    labels: Vec<usize>,
    /// (namespace index, name, control plane replicas, worker replicas, machine image tag)
    clusters: Vec<(usize, String, u32, u32, u32)>,
    next: usize,
}

impl Fleet {
    fn new() -> Fleet {
        let class =
            fs::read_to_string(root().join("fixtures/quickstart/clusters/class.yaml")).unwrap();
        assert!(class.contains("tmpl-label: from-template\n"));
        let mut f = Fleet {
            class,
            labels: vec![0; 3],
            clusters: Vec::new(),
            next: 0,
        };
        for i in 0..9 {
            f.add(i % 3, (i % 3 + 1) as u32);
        }
        f
    }

    fn add(&mut self, ns: usize, replicas: u32) {
        self.clusters
            .push((ns, format!("c{}", self.next), replicas, replicas, 2));
        self.next += 1;
    }

    fn write(&self, dir: &Path) {
        let _ = fs::remove_dir_all(dir);
        fs::create_dir_all(dir).unwrap();
        for (i, label) in self.labels.iter().enumerate() {
            // A template's spec may not change under its name in a managed tree (its class
            // unit applies it): there the edit changes the ClusterClass.
            let (from, to) = match MODE.get() {
                ClusterMode::Managed => (
                    "class-cp-label: from-class\n",
                    format!("class-cp-label: from-class-{label}\n"),
                ),
                _ => (
                    "tmpl-label: from-template\n",
                    format!("tmpl-label: from-template-{label}\n"),
                ),
            };
            let text = self
                .class
                .replace(
                    "metadata:\n  name:",
                    &format!("metadata:\n  namespace: ns{i}\n  name:"),
                )
                .replace(from, &to);
            fs::write(dir.join(format!("class-ns{i}.yaml")), text).unwrap();
        }
        // Three files of Clusters, each Cluster always in the same one (by its number),
        // namespaces mixed: an edit leaves the other files unchanged (left unparsed by
        // the next incremental run), and a removal or addition changes only its file.
        let mut clusters = vec![String::new(); 3];
        for (ns, name, cp, md, tag) in &self.clusters {
            let file = name[1..].parse::<usize>().unwrap() % 3;
            clusters[file].push_str(&format!(
                "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: {name}\n  namespace: ns{ns}\nspec:\n  clusterNetwork:\n    pods:\n      cidrBlocks: [\"192.168.0.0/16\"]\n  topology:\n    class: quickstart\n    version: v1.31.2\n    controlPlane:\n      replicas: {cp}\n    variables:\n    - name: registry\n      value: registry.example.com\n    - name: machine\n      value:\n        image: kindest/node:v1.31.{tag}\n        mounts:\n        - path: /data\n    workers:\n      machineDeployments:\n      - class: default-worker\n        name: md-0\n        replicas: {md}\n---\n"
            ));
        }
        for (i, text) in clusters.iter().enumerate() {
            if !text.is_empty() {
                fs::write(dir.join(format!("clusters-{i}.yaml")), text).unwrap();
            }
        }
    }
}

/// A small deterministic generator (the sequence is the same on every run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// The property in both modes a tree can have: managed (class units, review files) and
/// flatten (templates named by content: a changed machine image renames them).
#[test]
fn incremental_output_equals_full_output_through_random_edits() {
    incremental_equals_full(ClusterMode::Managed, "random");
}

#[test]
fn incremental_output_equals_full_output_through_random_edits_flattened() {
    incremental_equals_full(ClusterMode::Flatten, "random-flat");
}

fn incremental_equals_full(mode: ClusterMode, name: &str) {
    MODE.set(mode);
    let d = scratch(name);
    let (input, inc) = (d.join("in"), d.join("inc"));
    let mut fleet = Fleet::new();
    let mut rng = Lcg(0x5eed);
    fleet.write(&input);
    write(&input, &inc, false);
    let (mut kept_some, mut deferred_some, mut edited) = (false, false, BTreeMap::new());
    for step in 0..24 {
        let what = rng.below(5);
        match what {
            0 => {
                let i = rng.below(fleet.clusters.len());
                fleet.clusters[i].2 += 1;
            }
            1 => fleet.add(rng.below(3), 1 + rng.below(3) as u32),
            2 if fleet.clusters.len() > 2 => {
                let i = rng.below(fleet.clusters.len());
                fleet.clusters.remove(i);
            }
            3 => {
                let ns = rng.below(3);
                fleet.labels[ns] += 1;
            }
            _ => {
                let i = rng.below(fleet.clusters.len());
                fleet.clusters[i].4 += 1;
            }
        }
        *edited.entry(what).or_insert(0) += 1;
        fleet.write(&input);
        let rep = write(&input, &inc, false);
        deferred_some |= DEFERRED.get() > 0;
        let full = d.join(format!("full-{step}"));
        write(&input, &full, true);
        assert_eq!(tree(&inc), tree(&full), "step {step}: edit {what}");
        kept_some |= !rep.unchanged.is_empty();
        // The incremental tree is up to date, whether checked incrementally or fully.
        assert!(up_to_date(&input, &inc, false), "step {step}");
        assert!(up_to_date(&input, &inc, true), "step {step}");
        fs::remove_dir_all(&full).unwrap();
    }
    assert!(kept_some && deferred_some);
    assert!(edited.len() >= 4, "{edited:?}");
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn only_the_changed_cluster_is_rendered_and_written() {
    let d = scratch("one");
    let (input, out) = (d.join("in"), d.join("out"));
    let mut fleet = Fleet::new();
    fleet.write(&input);
    write(&input, &out, false);
    fleet.clusters[4].2 = 7;
    fleet.write(&input);
    let rep = write(&input, &out, false);
    let dir = format!(
        "clusters/ns{}/{}/",
        fleet.clusters[4].0, fleet.clusters[4].1
    );
    assert!(!rep.written.is_empty());
    for p in &rep.written {
        assert!(
            p.starts_with(&dir) || p == "capi-render.lock",
            "{p} written, only {dir} changed"
        );
    }
    // Nothing changed: nothing written.
    let rep = write(&input, &out, false);
    assert!(rep.written.is_empty() && rep.removed.is_empty(), "{rep:?}");
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn a_kept_units_directory_is_looked_at_and_its_files_by_full() {
    let d = scratch("touched");
    let (input, out) = (d.join("in"), d.join("out"));
    let fleet = Fleet::new();
    fleet.write(&input);
    write(&input, &out, false);
    let want = tree(&out);
    let unit = out.join("clusters/ns0/c0");
    let file = fs::read_dir(&unit)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap() != "kustomization.yaml")
        .unwrap();
    let original = fs::read_to_string(&file).unwrap();
    // The unit's directory deleted: seen without --full, the unit renders again.
    fs::remove_dir_all(&unit).unwrap();
    assert!(!up_to_date(&input, &out, false));
    let rep = write(&input, &out, false);
    assert!(
        rep.written
            .iter()
            .all(|p| p.starts_with("clusters/ns0/c0/")),
        "{rep:?}"
    );
    assert_eq!(tree(&out), want);
    // Its review directory deleted: the same.
    let review = unit.join("desired");
    assert!(review.is_dir());
    fs::remove_dir_all(&review).unwrap();
    assert!(!up_to_date(&input, &out, false));
    write(&input, &out, false);
    assert_eq!(tree(&out), want);
    // The unit's directory replaced by a link to a copy: not in place, and the writer
    // refuses to write through the link.
    let copy = d.join("copy");
    fs::rename(&unit, &copy).unwrap();
    std::os::unix::fs::symlink(&copy, &unit).unwrap();
    let before = tree(&copy);
    let err = try_write(&input, &out, false).unwrap_err();
    assert!(err.to_string().contains("is a symbolic link"), "{err}");
    assert_eq!(tree(&copy), before);
    fs::remove_file(&unit).unwrap();
    fs::rename(&copy, &unit).unwrap();
    assert!(up_to_date(&input, &out, false));
    // A file inside edited (whatever its size) or deleted is not looked at without
    // --full (a no-change run over 100,000 Clusters must not look at 1.5 million
    // files); --full compares every byte and restores it.
    let same_size = original.replacen("kind", "KIND", 1);
    for edit in [Some(format!("{original}# edited\n")), Some(same_size), None] {
        match &edit {
            Some(text) => fs::write(&file, text).unwrap(),
            None => fs::remove_file(&file).unwrap(),
        }
        assert!(up_to_date(&input, &out, false), "{edit:?}");
        assert!(!up_to_date(&input, &out, true), "{edit:?}");
        write(&input, &out, true);
        assert_eq!(tree(&out), want);
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn the_lock_records_each_clusters_fingerprint_and_size() {
    let d = scratch("lock");
    let (input, out) = (d.join("in"), d.join("out"));
    let fleet = Fleet::new();
    fleet.write(&input);
    write(&input, &out, false);
    let text = fs::read_to_string(out.join("capi-render.lock")).unwrap();
    let lock = gitops::lock::read_lock(&text, "lock").unwrap();
    assert_eq!(lock.units.len(), fleet.clusters.len());
    for (ns, name, _, _, _) in &fleet.clusters {
        let dir = format!("clusters/ns{ns}/{name}");
        let r = lock.units.iter().find(|r| r.dir == dir).unwrap();
        // Its file, relative to OUT, and the sum of the Cluster (what the next run
        // knows of it without parsing that file).
        let file = name[1..].parse::<usize>().unwrap() % 3;
        assert_eq!(r.source, format!("../in/clusters-{file}.yaml"));
        assert!(r.cluster.len() == 64 && r.cluster != r.inputs);
        let input = lock.inputs.iter().find(|i| i.path == r.source).unwrap();
        assert_eq!(input.clusters, Some(3));
        let size: u64 = tree(&out.join(&r.dir))
            .values()
            .map(|n| match n {
                common::Node::File(b) => b.len() as u64,
                _ => 0,
            })
            .sum();
        assert_eq!(r.bytes, size);
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn unchanged_files_of_clusters_are_not_parsed_and_render_when_their_class_changes() {
    MODE.set(ClusterMode::Managed);
    let d = scratch("deferred");
    let (input, out) = (d.join("in"), d.join("out"));
    let mut fleet = Fleet::new();
    fleet.write(&input);
    write(&input, &out, false);
    // The first run had no lock: every file parsed.
    assert_eq!(DEFERRED.get(), 0);
    // Nothing changed: the three files of Clusters are left unparsed.
    let rep = write(&input, &out, false);
    assert_eq!(DEFERRED.get(), 3);
    assert!(rep.written.is_empty(), "{rep:?}");
    assert!(up_to_date(&input, &out, false));
    assert_eq!(DEFERRED.get(), 3);
    // The class of ns1 changes: its Clusters render again from the unparsed files,
    // and the tree is the one a full render writes.
    fleet.labels[1] += 1;
    fleet.write(&input);
    let rep = write(&input, &out, false);
    assert_eq!(DEFERRED.get(), 3);
    assert!(
        rep.written.iter().any(|p| p.starts_with("clusters/ns1/")),
        "{rep:?}"
    );
    let full = d.join("full");
    write(&input, &full, true);
    assert_eq!(DEFERRED.get(), 0);
    assert_eq!(tree(&out), tree(&full));
    // --full parses every file and finds the tree up to date.
    assert!(up_to_date(&input, &out, true));
    assert_eq!(DEFERRED.get(), 0);
    // One Cluster edited: only its file is parsed.
    fleet.clusters[4].2 += 1;
    fleet.write(&input);
    write(&input, &out, false);
    assert_eq!(DEFERRED.get(), 2);
    fs::remove_dir_all(&full).unwrap();
    write(&input, &full, true);
    assert_eq!(tree(&out), tree(&full));
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn a_lock_that_misdescribes_an_unparsed_file_is_an_error_naming_full() {
    MODE.set(ClusterMode::Managed);
    let d = scratch("misdescribed");
    let (input, out) = (d.join("in"), d.join("out"));
    let fleet = Fleet::new();
    fleet.write(&input);
    write(&input, &out, false);
    // Two Clusters of one file swap their recorded sums in the lock.
    let lock_path = out.join("capi-render.lock");
    let text = fs::read_to_string(&lock_path).unwrap();
    let lock = gitops::lock::read_lock(&text, "lock").unwrap();
    let (a, b) = {
        let mut same = lock
            .units
            .iter()
            .filter(|u| u.source == "../in/clusters-0.yaml");
        (same.next().unwrap(), same.next().unwrap())
    };
    let edited = text
        .replace(&a.cluster, "SWAP")
        .replace(&b.cluster, &a.cluster)
        .replace("SWAP", &b.cluster);
    assert_ne!(edited, text);
    fs::write(&lock_path, edited).unwrap();
    let e = try_write(&input, &out, false).unwrap_err();
    assert!(
        e.to_string().contains("is not where OUT's lock records it")
            && e.hint().is_some_and(|h| h.contains("--full")),
        "{e}"
    );
    // --full parses the file and rewrites the lock; the next run is incremental again.
    write(&input, &out, true);
    let rep = write(&input, &out, false);
    assert_eq!(DEFERRED.get(), 3);
    assert!(rep.written.is_empty(), "{rep:?}");
    let _ = fs::remove_dir_all(&d);
}
