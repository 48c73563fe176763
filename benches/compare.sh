#!/usr/bin/env bash
# Whole-process timing: capi-render vs clusterctl v1.10.10 on the corpus.
# Prints one line per workload with the median wall time of each tool (RUNS runs, default
# 9; timed by hyperfine when it is installed, see time_cmd) and the ratio. The issue's targets: >= 20x for `generate provider`, >= 30x for
# `topology plan` of one Cluster. The last row starts and stops each tool with no work
# (`version`): the part of every row no rendering can remove. `cargo bench --bench
# reader_floor` times, in process, how much of `generate provider` is reading the YAML.
# Needs clusterctl (conformance/run.sh installs it). Each command runs once untimed first
# and must succeed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/.." && pwd)
CAPI_CORPUS=$(cd "${CAPI_CORPUS:-$root/../shared/corpus}" && pwd)
clusterctl=${CLUSTERCTL:-$(go env GOPATH)/bin/clusterctl}
runs=${RUNS:-9}
(cd "$root" && cargo build --release --quiet)
capi="$root/target/release/capi-render"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"
R="$CAPI_CORPUS/repository"
cat >"$work/cfg.yaml" <<CFG
providers:
  - {name: cluster-api, type: CoreProvider, url: $R/cluster-api/latest/core-components.yaml}
  - {name: kubeadm, type: BootstrapProvider, url: $R/bootstrap-kubeadm/latest/bootstrap-components.yaml}
  - {name: kubeadm, type: ControlPlaneProvider, url: $R/control-plane-kubeadm/latest/control-plane-components.yaml}
  - {name: docker, type: InfrastructureProvider, url: $R/infrastructure-docker/latest/infrastructure-components.yaml}
  - {name: aws, type: InfrastructureProvider, url: $CAPI_CORPUS/stress/repository/infrastructure-aws/v2.10.3/infrastructure-components.yaml}
AWS_B64ENCODED_CREDENTIALS: Cg==
CFG
# Each tool runs in a fresh, empty working directory (`-o .` output goes there) with a
# clean environment. With hyperfine (Debian's package) the clock is hyperfine's own
# around the process, started without a shell (-N): what is timed is the tool from exec
# to exit, with nothing of this script's around it (a subshell, `cd` and `env` cost
# about 1-2 ms a run here: half of capi-render's `topology plan`). The directory is
# emptied before each run. Without hyperfine, `date` around a subshell.
hyperfine_bin=$(command -v hyperfine || true)
time_cmd() { # tool args... -> median wall seconds over $runs
  local t=() i start end dir=$work/run
  mkdir -p "$dir"
  if [ -n "$hyperfine_bin" ]; then
    (cd "$dir" && env -i PATH="$PATH" HOME="$work/home" XDG_CONFIG_HOME="$work/home" CLUSTERCTL_DISABLE_VERSIONCHECK=true \
      "$hyperfine_bin" -N --style none --warmup 1 --runs "$runs" --ignore-failure \
      --prepare "find $dir -mindepth 1 -delete" --export-json "$work/h.json" -- "$*" >/dev/null 2>&1)
    python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$work/h.json"
    rm -rf "$dir"
    return
  fi
  for i in $(seq "$runs"); do
    mkdir "$work/run.$i"
    start=$(date +%s%N)
    (cd "$work/run.$i" && env -i PATH="$PATH" HOME="$work/home" XDG_CONFIG_HOME="$work/home" CLUSTERCTL_DISABLE_VERSIONCHECK=true "$@" >/dev/null 2>&1) || true
    end=$(date +%s%N)
    rm -rf "$work/run.$i"
    t+=("$(( end - start ))")
  done
  printf '%s\n' "${t[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p" | awk '{printf "%.4f", $1 / 1e9}'
}
qs="$R/infrastructure-docker/v1.10.10/clusterclass-quick-start.yaml"
plan_cluster="$root/fixtures/topology/corpus-quick-start/cluster.yaml"
if [ -n "$hyperfine_bin" ]; then echo "# timer: hyperfine -N, median of $runs runs"; else echo "# timer: date around a subshell, median of $runs runs"; fi
printf '%-44s %12s %12s %8s\n' workload clusterctl capi-render ratio
compare() { # label, clusterctl's args, capi-render's args (one string each)
  local a b tc tr
  read -r -a a <<<"$2"; read -r -a b <<<"$3"
  for cmd in "$clusterctl ${a[*]}" "$capi ${b[*]}"; do
    mkdir "$work/check"
    (cd "$work/check" && env -i PATH="$PATH" HOME="$work/home" CLUSTERCTL_DISABLE_VERSIONCHECK=true $cmd >/dev/null 2>"$work/err") ||
      { echo "failed: $cmd" >&2; cat "$work/err" >&2; exit 1; }
    rm -rf "$work/check"
  done
  tc=$(time_cmd "$clusterctl" "${a[@]}"); tr=$(time_cmd "$capi" "${b[@]}")
  printf '%-44s %11.4fs %11.4fs %7.1fx\n' "${1:0:44}" "$tc" "$tr" "$(echo "$tc / $tr" | bc -l)"
}
for w in "generate provider --core cluster-api:v1.10.10" \
         "generate provider -b kubeadm:v1.10.10" \
         "generate provider -c kubeadm:v1.10.10" \
         "generate provider -i docker:v1.10.10" \
         "generate provider -i aws:v2.10.3" \
         "generate cluster c1 -i docker:v1.10.10 -f development -n ns --kubernetes-version v1.32.0"; do
  compare "$w" "$w --config $work/cfg.yaml" "$w --config $work/cfg.yaml"
done
# One Cluster of the quick-start ClusterClass (the conformance case corpus-quick-start).
compare "topology plan (one Cluster)" \
  "alpha topology plan -f $qs -f $plan_cluster -o ." "topology plan -f $qs -f $plan_cluster -o ."
# The floor of every row above: starting and stopping each process with no work.
compare "process start and exit (version)" "version" "--version"
