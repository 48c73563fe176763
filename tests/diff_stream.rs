//! `diff` streams (the fleet-scale issue): both sides render unit by unit in directory
//! order and only changed units' diffs are kept. The streamed impact must equal the
//! in-memory one (`diff::impact` of two full render sets) on a fleet with providers,
//! under seeded random edits: Clusters changed, added, removed, renamed, and the class
//! changed.

use std::fs;
use std::path::{Path, PathBuf};

use capi_render::diff::{impact, impact_streaming};
use capi_render::limits::Meter;
use capi_render::model::RenderOptions;
use capi_render::render::{prepare, Inputs, Rendering};

mod common;

fn rendering(paths: &[PathBuf], config: &Path) -> capi_render::Result<Rendering> {
    let mut inputs = Inputs::default();
    let files = capi_render::load::load_paths_with(paths, &Meter::current(), &mut |o| {
        inputs.push(o);
        Ok(())
    })
    .unwrap();
    let opts = RenderOptions {
        config: Some(config.to_path_buf()),
        allow_empty: true,
        ..RenderOptions::default()
    };
    prepare(inputs, files, &opts)
}

/// xorshift: the edits are the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[test]
fn streamed_impact_equals_the_in_memory_one() {
    let s = common::Scratch::new("diff-stream");
    let root = common::root();
    let config = root.join("fixtures/quickstart/clusterctl.yaml");
    let providers = root.join("fixtures/quickstart/providers");
    let (a, b) = (s.path().join("a"), s.path().join("b"));
    common::fleet(&a, 30, 0, |c| c.to_string());
    let mut rng = Rng(0x5eed_0fd1_ff00);
    let mut compared_changes = 0;
    for round in 0..12 {
        common::fleet(&b, 30, 0, |c| c.to_string());
        let f = b.join("clusters.yaml");
        let mut text = fs::read_to_string(&f).unwrap();
        for _ in 0..=rng.next(4) {
            let i = rng.next(30);
            text = match rng.next(5) {
                0 => text.replace(&format!("name: bare-{i}\n"), &format!("name: bare-{i}x\n")),
                1 => text.replacen("replicas: 1", "replicas: 4", 1 + i as usize % 3),
                2 => format!(
                    "{text}{}",
                    text.split("---\n")
                        .next()
                        .unwrap()
                        .replace("name: bare-0\n", &format!("name: extra-{i}\n"))
                        + "---\n"
                ),
                3 => text.replace(&format!("name: bare-{i}\n"), "name: bare-0\n"),
                _ => text,
            };
        }
        fs::write(&f, &text).unwrap();
        if round % 4 == 3 {
            let c = fs::read_to_string(b.join("class.yaml")).unwrap();
            fs::write(
                b.join("class.yaml"),
                c.replace("nodeDrainTimeout: 90s", "nodeDrainTimeout: 95s"),
            )
            .unwrap();
        }
        let before = [providers.clone(), a.clone()];
        let after = [providers.clone(), b.clone()];
        let streamed = rendering(&before, &config)
            .and_then(|x| impact_streaming(x, rendering(&after, &config)?, ["before", "after"]));
        let in_memory = rendering(&before, &config)
            .unwrap()
            .into_set()
            .and_then(|x| impact(&x, &rendering(&after, &config)?.into_set()?));
        match (streamed, in_memory) {
            (Ok(s), Ok(m)) => {
                assert_eq!(s, m, "round {round}");
                compared_changes += s.changed_units.len();
            }
            // Two Clusters with one name: both fail the same way.
            (Err(s), Err(m)) => {
                assert!(
                    s.message().contains(m.message().lines().next().unwrap()),
                    "round {round}: {s} / {m}"
                )
            }
            (s, m) => panic!("round {round}: streamed {s:?} vs in memory {m:?}"),
        }
    }
    assert!(compared_changes > 10, "{compared_changes}");
}

/// A Cluster both sides give the same fingerprint is rendered on neither: here one that
/// cannot render at all (its MachineDeployment class does not exist) sits unchanged
/// beside the Cluster the change is about, and `diff` reports that change alone.
#[test]
fn clusters_unchanged_on_both_sides_are_not_rendered() {
    let s = common::Scratch::new("diff-skip");
    let root = common::root();
    let class =
        std::fs::read_to_string(root.join("fixtures/quickstart/clusters/class.yaml")).unwrap();
    let clusters =
        std::fs::read_to_string(root.join("fixtures/quickstart/clusters/clusters.yaml")).unwrap();
    let broken = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: broken\nspec:\n  topology:\n    class: quickstart\n    version: v1.31.2\n    controlPlane: {replicas: 1}\n    workers:\n      machineDeployments:\n      - {class: no-such-class, name: md-0, replicas: 1}\n";
    for (side, version) in [("before", "v1.31.2"), ("after", "v1.31.3")] {
        let d = s.path().join(side);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("class.yaml"), &class).unwrap();
        let changed = clusters.replacen("version: v1.31.2", &format!("version: {version}"), 1);
        std::fs::write(d.join("clusters.yaml"), format!("{changed}---\n{broken}")).unwrap();
    }
    let o = common::run(
        common::bin().current_dir(s.path()).args([
            "diff",
            "-f",
            "before",
            "--against",
            "after",
            "--name-only",
        ]),
        None,
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(out.trim(), "clusters/default/dev", "{out}");
    // Changed, the broken Cluster renders on both sides, and fails the run naming it.
    let after = s.path().join("after/clusters.yaml");
    let t = std::fs::read_to_string(&after)
        .unwrap()
        .replace("  name: broken\n", "  name: broken\n  labels: {a: b}\n");
    std::fs::write(&after, t).unwrap();
    let o = common::run(
        common::bin().current_dir(s.path()).args([
            "diff",
            "-f",
            "before",
            "--against",
            "after",
            "--name-only",
        ]),
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("Cluster default/broken"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
