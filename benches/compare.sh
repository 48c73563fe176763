#!/usr/bin/env bash
# Whole-process timing: capi-render vs clusterctl v1.10.10 on the corpus.
# Prints one line per workload with the median wall time of each tool (RUNS runs, default
# 9, the two tools taking turns; timed by hyperfine when it is installed, see time_runs)
# and the ratio. The issue's targets: >= 20x for `generate provider`, >= 30x for
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
# The release binary (static glibc on Linux; scripts/build-release.sh).
capi=$("$root/scripts/build-release.sh")
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
# emptied before each run. Without hyperfine, python3 does the same: the directory
# emptied, then the clock read around posix_spawn and wait4 of the tool alone.
# The two tools take turns: rounds of up to 5 runs of one, then of the other, until
# each has had $runs. This machine's speed drifts by a fifth from minute to minute;
# all of one tool's runs and then all of the other's put that drift into the ratio
# (a row once read 18x in one run and 24x in the next). Each median is over all of a
# tool's runs.
# HYPERFINE= (empty) times with python3 even where hyperfine is installed.
hyperfine_bin=${HYPERFINE-$(command -v hyperfine || true)}
round=${ROUND:-5}
time_runs() { # n tool args... -> n wall times in seconds, one a line
  local n=$1; shift
  local dir=$work/run
  if [ -n "$hyperfine_bin" ]; then
    mkdir -p "$dir"
    (cd "$dir" && env -i PATH="$PATH" HOME="$work/home" XDG_CONFIG_HOME="$work/home" CLUSTERCTL_DISABLE_VERSIONCHECK=true \
      "$hyperfine_bin" -N --style none --warmup 1 --runs "$n" --ignore-failure \
      --prepare "find $dir -mindepth 1 -delete" --export-json "$work/h.json" -- "$*" >/dev/null 2>&1)
    python3 -c 'import json,sys; print("\n".join("%.6f" % t for t in json.load(open(sys.argv[1]))["results"][0]["times"]))' "$work/h.json"
    rm -rf "$dir"
    return
  fi
  mkdir -p "$dir"
  python3 - "$n" "$dir" "$work/home" "$@" <<'PY'
import os, shutil, sys, time
n, run, home, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
env = {"PATH": os.environ["PATH"], "HOME": home, "XDG_CONFIG_HOME": home,
       "CLUSTERCTL_DISABLE_VERSIONCHECK": "true"}
null = os.open(os.devnull, os.O_WRONLY)
quiet = [(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
os.chdir(run)
for i in range(n + 1):  # the first run untimed, as hyperfine's --warmup 1
    for e in os.listdir("."):
        if os.path.isdir(e) and not os.path.islink(e):
            shutil.rmtree(e)
        else:
            os.remove(e)
    start = time.perf_counter()
    os.waitpid(os.posix_spawn(argv[0], argv, env, file_actions=quiet), 0)
    took = time.perf_counter() - start
    if i > 0:
        print("%.6f" % took)
PY
  rm -rf "$dir"
}
median() { sort -n | awk '{v[NR] = $1} END {printf "%.4f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
time_pair() { # "clusterctl args" "capi-render args" -> "median median" over $runs runs each
  local a b done=0 n
  read -r -a a <<<"$1"; read -r -a b <<<"$2"
  : >"$work/ta"; : >"$work/tb"
  while [ "$done" -lt "$runs" ]; do
    n=$(( runs - done < round ? runs - done : round ))
    time_runs "$n" "$clusterctl" "${a[@]}" >>"$work/ta"
    time_runs "$n" "$capi" "${b[@]}" >>"$work/tb"
    done=$(( done + n ))
  done
  echo "$(median <"$work/ta") $(median <"$work/tb")"
}
qs="$R/infrastructure-docker/v1.10.10/clusterclass-quick-start.yaml"
plan_cluster="$root/fixtures/topology/corpus-quick-start/cluster.yaml"
if [ -n "$hyperfine_bin" ]; then timer="hyperfine -N"; else timer="python3 posix_spawn"; fi
echo "# timer: $timer, median of $runs runs each, the tools taking turns $round runs at a time"
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
  read -r tc tr < <(time_pair "$2" "$3")
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
