#!/usr/bin/env bash
# Golden files for the declarative-provider renderer, from the real clusterctl v1.10.10:
# `generate provider` for a corpus provider with the same version, target namespace and
# variables as the CR fixture fixtures/operator/corpus/ (docker v1.10.10 in capd-system,
# CLUSTER_TOPOLOGY=true EXP_MACHINE_POOL=false from its Secret). cargo test
# (tests/operator_render.rs) checks the rendered CR against it, minus the operator's
# documented differences (Namespace handling, typed Deployment round trip).
#
#   conformance/regen-operator.sh OUTDIR     writes OUTDIR/operator/*.yaml
#
# Needs clusterctl v1.10.10 ($CLUSTERCTL, default $(go env GOPATH)/bin/clusterctl) and
# the corpus ($CAPI_CORPUS, default ../shared/corpus next to the repository).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
mkdir -p "$1/operator"
out="$(cd "$1/operator" && pwd)"
corpus="$(cd "${CAPI_CORPUS:-$root/../shared/corpus}" && pwd)"
clusterctl="${CLUSTERCTL:-$(go env GOPATH)/bin/clusterctl}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/xdg"


# clusterctl's built-in docker entry points at GitHub; a config entry makes it local.
gen_local() { # name label type components-file flag name:version namespace env...
  local name=$1 label=$2 ptype=$3 file=$4 flag=$5 pv=$6 ns=$7; shift 7
  local pname=${pv%%:*}
  printf 'providers:\n  - name: %s\n    type: %s\n    url: %s\n' "$pname" "$ptype" \
    "$corpus/repository/$label/latest/$file" >"$work/clusterctl.yaml"
  env -i PATH="$PATH" HOME="$work/home" XDG_CONFIG_HOME="$work/xdg" CLUSTERCTL_DISABLE_VERSIONCHECK=true "$@" \
    "$clusterctl" generate provider "$flag" "$pv" -n "$ns" --config "$work/clusterctl.yaml" \
    >"$out/$name.yaml" </dev/null
}

gen_local infrastructure-docker-v1.10.10-capd-system infrastructure-docker InfrastructureProvider \
  infrastructure-components.yaml --infrastructure docker:v1.10.10 capd-system \
  CLUSTER_TOPOLOGY=true EXP_MACHINE_POOL=false
