//! Bad input never panics: thousands of corrupted variants of our fixture
//! components and templates go through the pipeline; each must give Ok or Err.

use std::collections::BTreeMap;
use std::path::PathBuf;

use capi_render::components::{self, ComponentsOptions};
use capi_render::config::Config;
use capi_render::provider::{Provider, ProviderType};
use capi_render::template;

/// A small deterministic generator (no dependency, same sequence on every machine).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SNIPPETS: &[&str] = &[
    "${",
    "}",
    "${A:",
    "$$",
    ":",
    "- ",
    "\n---\n",
    "\n--- x\n",
    "&a ",
    "*a",
    "<<: ",
    "{",
    "[",
    "]",
    "'",
    "\"",
    "\t",
    "\n  ",
    "kind: Namespace\n",
    "kind: Deployment\n",
    "apiVersion: apps/v1\n",
    "image: x\n",
    "!!binary ",
    "? ",
    "|",
    ">",
    "#",
    "\u{0}",
    "é",
    "😀",
    ".inf",
    "0x",
    "~",
];

fn mutate(text: &str, rng: &mut Lcg) -> String {
    let mut b: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len() + 1);
        match rng.below(4) {
            0 => b.truncate(at),
            1 if at < b.len() => {
                b.remove(at);
            }
            2 => {
                let s = SNIPPETS[rng.below(SNIPPETS.len())];
                for (i, c) in s.chars().enumerate() {
                    b.insert((at + i).min(b.len()), c);
                }
            }
            _ => {
                if at < b.len() {
                    b[at] = char::from_u32(32 + rng.below(95) as u32).unwrap_or(' ');
                }
            }
        }
    }
    b.into_iter().collect()
}

#[test]
fn corrupted_inputs_never_panic() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/repository");
    let sources = [
        root.join("cluster-api/v1.0.0/core-components.yaml"),
        root.join("bootstrap-synth/v1.0.0/bootstrap-components.yaml"),
        root.join("infrastructure-synth/v1.2.3/cluster-template.yaml"),
        root.join("infrastructure-synth/v1.2.3/clusterclass-synth-class.yaml"),
    ];
    let mut env = BTreeMap::new();
    for k in [
        "SYNTH_REQUIRED",
        "SYNTH_CASE",
        "SYNTH_REGION",
        "CLUSTER_NAME",
        "NAMESPACE",
        "KUBERNETES_VERSION",
    ] {
        env.insert(k.to_string(), "v1.30.0".to_string());
    }
    let config = Config::new(env);
    let p = Provider {
        name: "cluster-api".into(),
        ptype: ProviderType::Core,
        url: String::new(),
    };
    let mut rng = Lcg(42);
    let (mut ok, mut err) = (0, 0);
    for src in &sources {
        let text = std::fs::read_to_string(src).expect("fixture");
        for i in 0..600 {
            let bad = mutate(&text, &mut rng);
            let opts = ComponentsOptions {
                skip_template_process: i % 3 == 0,
                ..Default::default()
            };
            let r = std::panic::catch_unwind(|| {
                let a = components::render(&p, &bad, &opts, &config).map(|c| c.yaml());
                let b = template::new_template(&bad, "ns", false, &config).map(|t| t.yaml());
                (a.is_ok(), b.is_ok())
            });
            match r {
                Ok((a, b)) => {
                    ok += a as usize + b as usize;
                    err += (!a) as usize + (!b) as usize;
                }
                Err(_) => panic!("panic on a corrupted variant of {}:\n{bad}", src.display()),
            }
        }
    }
    // Both outcomes must occur, or the mutations are not reaching the parser.
    assert!(ok > 100 && err > 100, "ok={ok} err={err}");
}
