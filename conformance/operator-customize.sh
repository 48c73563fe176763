#!/usr/bin/env bash
# Regenerate golden/operator-customize/*.json with cluster-api-operator v0.28.0's own
# customisation code (customizeObjectsFn → applyPatches → imageOverrides) run over
# fixtures/operator-customize/*.yaml.
#
#   conformance/operator-customize.sh golden    update golden/operator-customize in place
#   conformance/operator-customize.sh OUTDIR    write OUTDIR/operator-customize/*.json
#   conformance/operator-customize.sh --check   regenerate into a temporary directory and
#                                               diff against the tracked goldens
#
# The operator's internal/ packages can only be imported from inside its module, so
# the module (from the Go module proxy) is copied to a scratch directory and our two
# files from conformance/oracle-operator/ are dropped into it before building.
# Fixtures whose header has `"oracle": "skip"` (our extensions, e.g. `paused`) get no golden.
#
# Except in `golden` mode, when the release corpus is present ($CAPI_CORPUS, default
# ../shared/corpus) every provider components file in it is also run, with one rich
# ProviderSpec, through the operator and through capi-render (cargo test
# operator::customize::golden_tests::corpus_cases_match_the_operator); those cases live in
# a scratch directory only.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
OPERATOR_VERSION=v0.28.0
[ $# -eq 1 ] || { echo "usage: $0 golden|OUTDIR|--check" >&2; exit 2; }

if [ "$1" = "--check" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  "$0" "$tmp"
  if diff -ru "$root/golden/operator-customize" "$tmp/operator-customize"; then
    echo "operator-customize goldens are up to date"
  else
    exit 1
  fi
  exit 0
fi

if [ "$1" = "golden" ]; then
  out="$root/golden/operator-customize"
else
  mkdir -p "$1"
  out="$(cd "$1" && pwd)/operator-customize"
fi
mkdir -p "$out"

scratch="$(mktemp -d)"
trap 'chmod -R u+w "$scratch" 2>/dev/null || true; rm -rf "$scratch"' EXIT
src="$(cd "$scratch" && go mod download -json "sigs.k8s.io/cluster-api-operator@$OPERATOR_VERSION" \
  | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
[ -d "$src" ] || { echo "could not download sigs.k8s.io/cluster-api-operator@$OPERATOR_VERSION" >&2; exit 1; }
mod="$scratch/cluster-api-operator"
cp -r "$src" "$mod"
chmod -R u+w "$mod"
cp "$here/oracle-operator/controller_export.go" "$mod/internal/controller/zz_capi_render_oracle.go"
mkdir -p "$mod/cmd/capi-render-oracle"
cp "$here/oracle-operator/main.go" "$mod/cmd/capi-render-oracle/main.go"
(cd "$mod" && go build -o "$scratch/oracle" ./cmd/capi-render-oracle)

rm -f "$out"/*.json
n=0
for f in "$root"/fixtures/operator-customize/*.yaml; do
  if grep -q '"oracle": *"skip"' "$f"; then continue; fi
  "$scratch/oracle" "$f" "$out/$(basename "$f" .yaml).json"
  n=$((n + 1))
done
echo "operator-customize: $n goldens from cluster-api-operator $OPERATOR_VERSION" >&2

[ "$1" = "golden" ] && exit 0
corpus="${CAPI_CORPUS:-$root/../shared/corpus}"
if [ ! -d "$corpus" ]; then
  echo "note: corpus $corpus absent; operator corpus cases skipped" >&2
  exit 0
fi
cases="$scratch/corpus-cases"
mkdir -p "$cases"
spec='{"manager": {"verbosity": 3, "maxConcurrentReconciles": 4, "syncPeriod": "5m",
    "featureGates": {"MachinePool": true, "NewGate": false},
    "metrics": {"bindAddress": ":8080", "insecureDiagnostics": true},
    "health": {"healthProbeBindAddress": ":9441", "livenessEndpointName": "alive"},
    "leaderElection": {"leaderElect": true, "resourceName": "lock", "resourceNamespace": "ns", "leaseDuration": "20s"},
    "webhook": {"port": 9444}},
  "deployment": {"replicas": 2, "nodeSelector": {"role": "infra"},
    "tolerations": [{"key": "k", "operator": "Exists"}], "imagePullSecrets": [{"name": "reg"}]},
  "patches": [
    {"target": {"kind": "Deployment"}, "patch": "- op: add\n  path: /metadata/annotations\n  value: {patched: \"1\"}\n"},
    {"target": {"kind": "Service"}, "patch": "metadata:\n  labels:\n    svc: patched\n"}]}'
nc=0
for comp in "$corpus"/*repository/*/*/*components*.yaml "$corpus"/stress/repository/*/*/*components*.yaml; do
  [ -e "$comp" ] || continue
  vdir=$(dirname "$comp"); label=$(basename "$(dirname "$vdir")"); ver=$(basename "$vdir")
  repo=$(basename "$(dirname "$(dirname "$vdir")")")
  case "$label" in
    cluster-api) kind=CoreProvider; name=cluster-api;;
    bootstrap-*) kind=BootstrapProvider; name=${label#bootstrap-};;
    control-plane-*) kind=ControlPlaneProvider; name=${label#control-plane-};;
    infrastructure-*) kind=InfrastructureProvider; name=${label#infrastructure-};;
    *) continue;;
  esac
  f="$cases/$repo-$label-$ver.yaml"
  printf '{"provider": {"kind": "%s", "name": "%s", "namespace": "ns-%s", "manifestLabel": "%s", "uid": "u"},\n "images": {"all": {"repository": "mirror.example.com/capi"}},\n "spec": %s}\n---\n' \
    "$kind" "$name" "$name" "$label" "$spec" >"$f"
  cat "$comp" >>"$f"
  "$scratch/oracle" "$f" "${f%.yaml}.json"
  nc=$((nc + 1))
done
echo "operator-customize: $nc corpus cases" >&2
(cd "$root" && CAPI_OPERATOR_CORPUS_CASES="$cases" cargo test --quiet --lib \
  operator::customize::golden_tests::corpus_cases_match_the_operator -- --nocapture 2>&1 | grep -E "corpus:|differ|panicked|FAILED|^test result" >&2) \
  || { echo "FAIL: operator corpus cases" >&2; exit 1; }
