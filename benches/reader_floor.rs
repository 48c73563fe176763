//! How much of `generate provider` is reading its YAML: the floor under the
//! clusterctl comparison (`benches/compare.sh`).
//!
//! For each workload of compare.sh this prints, in process (no process start or exit):
//! - `read 1 core`: CPU time of reading the workload's YAML into objects
//!   (`yaml::parse_documents`, serde-saphyr underneath) on one thread;
//! - `read all cores`: the same read on the default thread pool (wall time);
//! - `generate`: the whole `generate_provider` call on the default pool (wall time),
//!   which reads the same text once and does everything else too.
//!
//! Median of RUNS runs (default 15) after one untimed run. The reader's time on all
//! cores is a floor for `generate provider`'s wall time: the 20x target of the
//! fleet-scale issue needs the whole process under clusterctl's time / 20.
//!
//! Run: `cargo bench --bench reader_floor` (needs the corpus, `CAPI_CORPUS`, default
//! `../shared/corpus`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use capi_render::config::Config;
use capi_render::generate::{self, ProviderOutput};
use capi_render::provider::ProviderType;

fn median(mut t: Vec<Duration>) -> Duration {
    t.sort();
    t[t.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    std::hint::black_box(f());
    median(
        (0..runs)
            .map(|_| {
                let s = Instant::now();
                std::hint::black_box(f());
                s.elapsed()
            })
            .collect(),
    )
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("CAPI_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(15)
        .max(1);
    let repo = corpus.join("repository");
    if !repo.is_dir() {
        eprintln!(
            "reader_floor: no corpus at {} (set CAPI_CORPUS)",
            corpus.display()
        );
        std::process::exit(1);
    }
    let aws =
        corpus.join("stress/repository/infrastructure-aws/v2.10.3/infrastructure-components.yaml");
    let cfg_text = format!(
        "providers:\n\
         - {{name: cluster-api, type: CoreProvider, url: {r}/cluster-api/latest/core-components.yaml}}\n\
         - {{name: kubeadm, type: BootstrapProvider, url: {r}/bootstrap-kubeadm/latest/bootstrap-components.yaml}}\n\
         - {{name: kubeadm, type: ControlPlaneProvider, url: {r}/control-plane-kubeadm/latest/control-plane-components.yaml}}\n\
         - {{name: docker, type: InfrastructureProvider, url: {r}/infrastructure-docker/latest/infrastructure-components.yaml}}\n\
         - {{name: aws, type: InfrastructureProvider, url: {a}}}\n\
         AWS_B64ENCODED_CREDENTIALS: Cg==\n",
        r = repo.display(),
        a = aws.display()
    );
    let dir = std::env::temp_dir().join(format!("capi-render-reader-floor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let cfg_path = dir.join("cfg.yaml");
    std::fs::write(&cfg_path, cfg_text).expect("config file");
    let cfg = Config::load(&cfg_path, Default::default()).expect("config");
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("one-thread pool");
    let workloads: [(&str, ProviderType, &str, PathBuf); 5] = [
        (
            "--core cluster-api:v1.10.10",
            ProviderType::Core,
            "cluster-api:v1.10.10",
            repo.join("cluster-api/v1.10.10/core-components.yaml"),
        ),
        (
            "-b kubeadm:v1.10.10",
            ProviderType::Bootstrap,
            "kubeadm:v1.10.10",
            repo.join("bootstrap-kubeadm/v1.10.10/bootstrap-components.yaml"),
        ),
        (
            "-c kubeadm:v1.10.10",
            ProviderType::ControlPlane,
            "kubeadm:v1.10.10",
            repo.join("control-plane-kubeadm/v1.10.10/control-plane-components.yaml"),
        ),
        (
            "-i docker:v1.10.10",
            ProviderType::Infrastructure,
            "docker:v1.10.10",
            repo.join("infrastructure-docker/v1.10.10/infrastructure-components.yaml"),
        ),
        (
            "-i aws:v2.10.3",
            ProviderType::Infrastructure,
            "aws:v2.10.3",
            aws.clone(),
        ),
    ];
    println!(
        "# median of {runs} runs, in process; cores: {}",
        rayon::current_num_threads()
    );
    println!(
        "{:<30} {:>9} {:>13} {:>15} {:>12}",
        "generate provider", "KiB", "read 1 core", "read all cores", "generate"
    );
    for (label, t, arg, file) in workloads {
        let text = std::fs::read_to_string(&file).expect("components file");
        let parse = || capi_render::yaml::parse_documents(&text).expect("components parse");
        let single = one.install(|| time(runs, parse));
        let all = time(runs, parse);
        let whole = time(runs, || {
            generate::generate_provider(&cfg, t, arg, "", ProviderOutput::Yaml)
                .expect("generate provider")
        });
        println!(
            "{:<30} {:>9} {:>13} {:>15} {:>12}",
            label,
            text.len() / 1024,
            ms(single),
            ms(all),
            ms(whole)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
