//! The examples and exit codes shown after each command's `--help` (clap
//! `after_help`). `tests/cli_help.rs` checks that every command has both.

macro_rules! simple_exit {
    () => {
        "Exit codes:\n  0  success\n  1  error (the message names the file, document and field)\n  2  usage error (unknown flag, missing argument)"
    };
}

pub const ROOT: &str = concat!(
    "Examples:\n",
    "  capi-render render -f capi/providers.yaml --repository capi/repository -o capi/rendered\n",
    "  capi-render --config clusterctl.yaml generate provider --core cluster-api:v1.10.10\n",
    "  capi-render diff -f base/clusters --against clusters\n",
    "  capi-render completion bash > /etc/bash_completion.d/capi-render\n\n",
    simple_exit!(),
    "\n  Some commands say more: see `capi-render render --help` and `capi-render diff --help`."
);

pub const GENERATE: &str = concat!(
    "Examples:\n",
    "  capi-render --repository repo generate provider --infrastructure docker:v1.10.10\n",
    "  capi-render --repository repo generate cluster dev -i docker:v1.10.10 -n default -f development\n\n",
    simple_exit!()
);

pub const GENERATE_PROVIDER: &str = concat!(
    "Examples:\n",
    "  capi-render --repository repo generate provider --core cluster-api:v1.10.10\n",
    "  capi-render --repository repo generate provider -i docker -n capd-system --write-to docker.yaml\n",
    "  capi-render --config clusterctl.yaml generate provider -b kubeadm --describe\n\n",
    simple_exit!()
);

pub const GENERATE_CLUSTER: &str = concat!(
    "Examples:\n",
    "  capi-render --repository repo generate cluster dev -i docker:v1.10.10 -n default -f development \\\n",
    "      --kubernetes-version v1.32.0 --worker-machine-count 3\n",
    "  capi-render generate cluster dev -n default --from cluster-template.yaml --list-variables\n",
    "  cat template.yaml | capi-render generate cluster dev -n default --from -\n\n",
    simple_exit!()
);

pub const INIT: &str = concat!(
    "Examples:\n",
    "  capi-render --repository repo init list-images\n",
    "  capi-render --repository repo init list-images -i docker --cert-manager cert-manager.yaml\n\n",
    simple_exit!()
);

pub const LIST_IMAGES: &str = INIT;

pub const UPGRADE: &str = concat!(
    "Examples:\n",
    "  capi-render --repository capi/repository upgrade plan -f capi/providers.yaml\n",
    "  capi-render --repository capi/repository upgrade plan -f capi/providers.yaml --exit-code\n",
    "  capi-render --repository capi/repository upgrade apply -f capi/providers.yaml --write\n",
    "  capi-render --repository capi/repository upgrade apply -f capi/providers.yaml --contract v1beta2\n\n",
    simple_exit!(),
    "\n  3  upgrade plan --exit-code: a move is available"
);

pub const UPGRADE_PLAN: &str = concat!(
    "Examples:\n",
    "  capi-render --repository capi/repository upgrade plan -f capi/providers.yaml\n",
    "  capi-render --repository capi/repository upgrade plan -f capi/providers.yaml --output-format yaml\n",
    "  capi-render --repository capi/repository upgrade plan -f capi/providers.yaml --output-format json | jq .upgradesWithinContract\n",
    "  capi-render --repository capi/repository upgrade plan -f capi/providers.yaml --exit-code -q > plan.txt\n\n",
    "Exit codes:\n",
    "  0  success; with --exit-code: no move is available\n",
    "  1  error (the message names the file, document and field)\n",
    "  2  usage error (unknown flag, missing argument)\n",
    "  3  with --exit-code: a move is available (within the contract, or a contract change no provider blocks)"
);

pub const UPGRADE_APPLY: &str = concat!(
    "Examples:\n",
    "  capi-render --repository capi/repository upgrade apply -f capi/providers.yaml --write\n",
    "  capi-render --repository capi/repository upgrade apply -f capi/providers.yaml --contract v1beta2 --write\n",
    "  capi-render --repository capi/repository upgrade apply -f capi/providers.yaml \\\n",
    "      --core cluster-api:v1.10.10 --bootstrap kubeadm:v1.10.10 --write\n",
    "  capi-render --repository capi/repository upgrade apply -f capi --to docker:v1.10.10 > upgrade.patch   # a diff, nothing written\n\n",
    "Exit codes:\n",
    "  0  success: the diff is printed (nothing to change: nothing printed), or with --write the files are written\n",
    "  1  error or a refused move (the message names the file, document and spec.version); nothing is written\n",
    "  2  usage error (unknown flag, --contract with a provider flag)"
);

pub const RENDER: &str = concat!(
    "Examples:\n",
    "  capi-render render -f capi/clusters --clusters desired --stdout   # what the topology controller will create\n",
    "  capi-render render -f capi/providers.yaml -f capi/clusters --repository capi/repository -o capi/rendered \\\n",
    "      --flux --flux-depends-on cert-manager --flux-interval 5m\n",
    "  capi-render render -f capi/providers.yaml -f capi/clusters --repository capi/repository -o capi/rendered \\\n",
    "      --clusters flatten --argocd --argocd-repo https://git.example.com/platform/mgmt.git\n",
    "  capi-render render --from-lock capi/rendered --check --output-format json | jq -r '.files[].path'\n\n",
    "Cluster modes (--clusters):\n",
    "  managed  (default) apply classes/<ns>/<class>/ (ClusterClass and templates), then each Cluster as\n",
    "           written; the desired objects go to clusters/<ns>/<name>/desired/ for review only\n",
    "  flatten  no topology controller: apply the desired objects, templates named by their content\n",
    "  desired  --stdout only: the desired objects, for review\n",
    "  render -o refuses a template whose spec changed under an existing name (immutable in CAPI).\n\n",
    "Exit codes:\n",
    "  0  success; with --check: the tree is up to date\n",
    "  1  error; with --check: the tree differs (unified diffs, or a JSON CheckResult, on stdout)\n",
    "  2  with --check: an error (bad input, unreadable tree); always: usage error"
);

pub const KRM: &str = concat!(
    "Examples:\n",
    "  kustomize build --enable-alpha-plugins --enable-exec .   # capi-render.yaml names `args: [krm]`\n",
    "  capi-render krm < resource-list.yaml > rendered-list.yaml\n\n",
    "Exit codes:\n",
    "  0  success (the rendered objects are the output list's items)\n",
    "  1  error (the output list carries an error result)\n",
    "  2  usage error"
);

pub const BUNDLE: &str = concat!(
    "Examples:\n",
    "  capi-render bundle -f capi/providers.yaml --repository capi/repository -o bundle\n",
    "  capi-render bundle -f capi/providers.yaml --repository capi/repository -o bundle \\\n",
    "      --image-registry mirror.example.com/capi --oci\n",
    "  capi-render bundle verify bundle\n\n",
    simple_exit!(),
    "\n  (bundle verify: 1 also when a file or ConfigMap fails verification)"
);

pub const BUNDLE_VERIFY: &str = concat!(
    "Examples:\n",
    "  capi-render bundle verify bundle\n",
    "  capi-render bundle verify /media/usb/capi-bundle && kubectl apply --server-side -R -f /media/usb/capi-bundle/configmaps/\n",
    "  capi-render bundle verify bundle --output-format json | jq .problems\n\n",
    "Exit codes:\n",
    "  0  every sum, ConfigMap and OCI layout checks out, and rendered/ and images.txt are what the bundle renders\n",
    "  1  a problem was found (each is printed) or the bundle is unreadable\n",
    "  2  usage error"
);

pub const DIFF: &str = concat!(
    "Examples:\n",
    "  capi-render diff -f base/clusters --against clusters\n",
    "  capi-render diff -f base/clusters --against clusters --output-format json | jq -r '.units[].unit'\n",
    "  capi-render diff --base origin/main -f capi --output-format markdown > comment.md   # a PR comment\n",
    "  capi-render diff --base origin/main -f capi --output-format html > report.html\n\n",
    "The text output starts with the rollout impact: a headline, warnings, and per changed\n",
    "Cluster its control plane and MachineDeployments: rollout, in-place, none or unknown.\n",
    "As a pull-request comment (--output-format markdown; the quick-start Clusters moved\n",
    "from Kubernetes v1.31.2 to v1.32.0, --comment-budget 1400):\n\n",
    "  <!-- capi-render diff -->\n",
    "  ### capi-render diff\n",
    "\n",
    "  **2 Clusters changed · 2 control planes roll (4 machines) · 3 MachineDeployments roll (6 machines)**\n",
    "\n",
    "  <details><summary><b>Cluster default/dev</b>: update · 2 machines replaced</summary>\n",
    "\n",
    "  | part | action | machines | reasons |\n",
    "  |---|---|---|---|\n",
    "  | control plane `dev-2wtpr` | rollout | 1 | spec.version: v1.31.2 → v1.32.0<br>from Cluster spec.topology.version |\n",
    "  | MachineDeployment `md-0` | rollout | 1 | spec.template.spec.version: v1.31.2 → v1.32.0<br>from Cluster spec.topology.version |\n",
    "\n",
    "  </details>\n",
    "\n",
    "  _Cut to fit 1400 characters: 1 Cluster section, 2 unit diffs not shown. The full report: https://ci.example/report.html._\n\n",
    "CI recipes (a GitHub composite action, a GitLab job): docs/src/guide/review.md.\n\n",
    "Exit codes (as diff(1)):\n",
    "  0  no difference\n",
    "  1  differences (printed on stdout: diffs, names, or a JSON DiffResult)\n",
    "  2  error, or usage error\n",
    "With --exit-code: 0 no difference, 2 differences, 1 error"
);

pub const TOPOLOGY: &str = concat!(
    "Examples:\n",
    "  mkdir -p plan && capi-render topology plan -f cluster.yaml -f clusterclass.yaml -o plan\n",
    "  capi-render topology plan -f fleet.yaml -f classes.yaml -o plan -n prod -c web-1\n",
    "  capi-render topology plan -f cluster.yaml -f clusterclass.yaml -o plan --output-format json | jq .changes\n\n",
    simple_exit!()
);

pub const TOPOLOGY_PLAN: &str = TOPOLOGY;

pub const COMPLETION: &str = concat!(
    "Examples:\n",
    "  source <(capi-render completion bash)\n",
    "  capi-render completion zsh > \"${fpath[1]}/_capi-render\"\n",
    "  capi-render completion fish > ~/.config/fish/completions/capi-render.fish\n",
    "  capi-render completion powershell | Out-String | Invoke-Expression\n\n",
    simple_exit!()
);

pub const MAN: &str = concat!(
    "Examples:\n",
    "  capi-render man > capi-render.1 && man ./capi-render.1\n",
    "  capi-render man | gzip > /usr/local/share/man/man1/capi-render.1.gz\n\n",
    simple_exit!()
);

pub const MERGE_LOCKS: &str = concat!(
    "Examples:\n",
    "  capi-render render --from-lock capi/rendered --shard \"$I/$N\"   # CI job I of N, same -o everywhere\n",
    "  capi-render merge-locks capi/rendered   # after copying every job's capi/rendered/.capi-render.shards/ in\n\n",
    "Exit codes:\n",
    "  0  the shards were merged into OUT (and removed)\n",
    "  1  a shard is missing, stale or changed, or OUT cannot be written (nothing was changed)"
);

pub const LINT: &str = concat!(
    "Examples:\n",
    "  capi-render lint --provider repository/infrastructure-foo/v1.2.0\n",
    "  capi-render lint --provider repository            # every provider and release\n",
    "  capi-render lint -f clusterclass-quick-start.yaml -f infrastructure-components.yaml\n",
    "  capi-render lint --provider repository --output-format sarif > lint.sarif   # CI code scanning\n\n",
    "Rules: see the book, docs/src/reference/lint.md (id, meaning, source).\n\n",
    "Exit codes:\n",
    "  0  no error finding (warnings and notes may be printed)\n",
    "  1  at least one error finding\n",
    "  2  the inputs cannot be read (missing folder), or usage error"
);

pub const VALIDATE: &str = concat!(
    "Examples:\n",
    "  capi-render validate --crds repository/cluster-api/v1.14.2/core-components.yaml -f clusters/\n",
    "  capi-render validate --crds repository -f clusters/team-a.yaml   # every CRD of a repository\n\n",
    "One line per problem: FILE: document N: Kind namespace/name: field.path: what is wrong.\n",
    "A kind no CRD defines is a warning (stderr) naming it. `render` runs the same check\n",
    "on its inputs against the CRDs of the providers the tree installs (--no-validate).\n\n",
    "Exit codes:\n",
    "  0  every object valid (warnings may be printed)\n",
    "  1  at least one problem\n",
    "  2  the inputs cannot be read, no CRD among --crds, or usage error"
);

/// The completion script for `shell`, generated by clap_complete from `cmd`.
///
/// clap_complete 4.6's bash script spells a subcommand's state two ways when the binary
/// name holds a hyphen (clap-rs/clap#6421): the dispatch loop sets
/// `cmd="capi__render__subcmd__render"` (the bin name's `-` as `__`), but the case arms
/// are labelled `capi__subcmd__render__subcmd__render)` (the `-` as `__subcmd__`), so no
/// arm matches and `capi-render render --fl<TAB>` completed nothing. The arms are
/// relabelled the loop's way; a clap_complete that spells both alike leaves nothing to
/// replace. `tests/cli_help.rs` drives the script in bash.
pub fn completion(shell: clap_complete::Shell, cmd: &mut clap::Command, bin: &str) -> String {
    let mut out = Vec::new();
    clap_complete::generate(shell, cmd, bin, &mut out);
    let script = String::from_utf8_lossy(&out).into_owned();
    if shell != clap_complete::Shell::Bash || !bin.contains('-') {
        return script;
    }
    const SEP: &str = "__subcmd__";
    let loop_spelling = format!("{}{SEP}", bin.replace('-', "__"));
    let arm_spelling = format!("{}{SEP}", bin.replace('-', SEP));
    let mut fixed = String::with_capacity(script.len());
    for line in script.split_inclusive('\n') {
        let body = line.trim_start();
        match body.strip_prefix(arm_spelling.as_str()) {
            Some(rest) if rest.trim_end().ends_with(')') => {
                fixed.push_str(&line[..line.len() - body.len()]);
                fixed.push_str(&loop_spelling);
                fixed.push_str(rest);
            }
            _ => fixed.push_str(line),
        }
    }
    fixed
}

pub const REPOSITORY_FETCH: &str = concat!(
    "Examples:\n",
    "  capi-render --repository capi/repository repository fetch -f capi/providers.yaml\n",
    "  capi-render --repository capi/repository repository fetch --core cluster-api:v1.14.2 \\\n",
    "      -b kubeadm:v1.14.2 -c kubeadm:v1.14.2 -i docker:v1.14.2\n",
    "  GITHUB_TOKEN=... capi-render --repository repo repository fetch -i aws   # latest release\n\n",
    "It writes DIR/<manifest-label>/<version>/<asset> and DIR/fetch-lock.yaml (the sha256 of\n",
    "every asset); a later fetch refuses an asset whose bytes changed. Nothing else uses the\n",
    "network: render, generate and the rest read the repository.\n\n",
    simple_exit!()
);
