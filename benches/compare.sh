#!/usr/bin/env bash
# Whole-process timing: capi-render vs clusterctl v1.10.10 on the corpus.
# Prints one line per workload with the mean wall time of each tool and the ratio.
# Needs clusterctl (conformance/run.sh installs it). No target yet: this is a measurement.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/.." && pwd)
CAPI_CORPUS=$(cd "${CAPI_CORPUS:-$root/../shared/corpus}" && pwd)
clusterctl=${CLUSTERCTL:-$(go env GOPATH)/bin/clusterctl}
runs=${RUNS:-5}
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
time_cmd() { # tool args... -> mean seconds over $runs
  local start end
  start=$(date +%s.%N)
  for _ in $(seq "$runs"); do
    env -i PATH="$PATH" HOME="$work/home" XDG_CONFIG_HOME="$work/home" CLUSTERCTL_DISABLE_VERSIONCHECK=true "$@" --config "$work/cfg.yaml" >/dev/null 2>&1 || true
  done
  end=$(date +%s.%N)
  echo "($end - $start) / $runs" | bc -l
}
printf '%-44s %12s %12s %8s\n' workload clusterctl capi-render ratio
for w in "generate provider --core cluster-api:v1.10.10" \
         "generate provider -c kubeadm:v1.10.10" \
         "generate provider -i aws:v2.10.3" \
         "generate cluster c1 -i docker:v1.10.10 -f development -n ns --kubernetes-version v1.32.0"; do
  read -r -a a <<<"$w"
  tc=$(time_cmd "$clusterctl" "${a[@]}"); tr=$(time_cmd "$capi" "${a[@]}")
  printf '%-44s %11.3fs %11.3fs %7.1fx\n' "${w:0:44}" "$tc" "$tr" "$(echo "$tc / $tr" | bc -l)"
done
