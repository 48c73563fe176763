#!/usr/bin/env bash
# Regenerate golden/operator-customize/*.json with cluster-api-operator v0.29.0's own
# customisation code (customizeObjectsFn → applyPatches → imageOverrides) run over
# fixtures/operator-customize/*.yaml, and golden/operator-fetch/*.json with its whole
# Fetch phase (clusterctl's NewComponents from the Cluster API it builds on, then the
# same three steps) run over the raw components texts of fixtures/operator-fetch/*.yaml.
#
#   conformance/operator-customize.sh golden    update both golden directories in place
#   conformance/operator-customize.sh OUTDIR    write OUTDIR/operator-{customize,fetch}/*.json
#   conformance/operator-customize.sh --check   regenerate into a temporary directory and
#                                               diff against the tracked goldens
#
# OPERATOR_VERSION (default v0.29.0, the release capi-render follows) picks another
# release for the oracle; only the default's goldens are tracked.
#
# The operator's internal/ packages can only be imported from inside its module, so
# the module (from the Go module proxy) is copied to a scratch directory and our two
# files from conformance/oracle-operator/ are dropped into it before building.
# Fixtures whose header has `"oracle": "skip"` (our extensions, e.g. `paused`) get no golden.
#
# Except in `golden` mode, when the release corpus is present ($CAPI_CORPUS, default
# ../shared/corpus) every provider components file in it is also run, with one rich
# ProviderSpec, through the operator and through capi-render, once as the customisation
# steps' input and once as the Fetch phase's raw text (cargo test
# operator::customize::golden_tests::corpus_cases_match_the_operator and
# operator::fetch_golden_tests::corpus_fetch_cases_match_the_operator); those cases live
# in a scratch directory only.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
OPERATOR_VERSION=${OPERATOR_VERSION:-v0.29.0}
[ $# -eq 1 ] || { echo "usage: $0 golden|OUTDIR|--check" >&2; exit 2; }

if [ "$1" = "--check" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  "$0" "$tmp"
  if diff -ru "$root/golden/operator-customize" "$tmp/operator-customize" \
    && diff -ru "$root/golden/operator-fetch" "$tmp/operator-fetch"; then
    echo "operator-customize goldens are up to date"
  else
    exit 1
  fi
  exit 0
fi

if [ "$1" = "golden" ]; then
  base="$root/golden"
else
  mkdir -p "$1"
  base="$(cd "$1" && pwd)"
fi
out="$base/operator-customize"
outf="$base/operator-fetch"
mkdir -p "$out" "$outf"

scratch="$(mktemp -d)"
trap 'chmod -R u+w "$scratch" 2>/dev/null || true; rm -rf "$scratch"' EXIT
# The oracle binary is cached outside the checkout, keyed by the operator version and
# our two files (CAPI_OPERATOR_ORACLE names a prebuilt one).
oracle_hash=$( (echo "$OPERATOR_VERSION"; cat "$here/oracle-operator/main.go" "$here/oracle-operator/controller_export.go") \
  | sha256sum | cut -c1-16)
oracle_cache=${XDG_CACHE_HOME:-$HOME/.cache}/capi-render/operator-oracle
oracle=${CAPI_OPERATOR_ORACLE:-$oracle_cache/oracle-$OPERATOR_VERSION-$oracle_hash}
if [ ! -x "$oracle" ]; then
  src="$(cd "$scratch" && go mod download -json "sigs.k8s.io/cluster-api-operator@$OPERATOR_VERSION" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [ -d "$src" ] || { echo "could not download sigs.k8s.io/cluster-api-operator@$OPERATOR_VERSION" >&2; exit 1; }
  mod="$scratch/cluster-api-operator"
  cp -r "$src" "$mod"
  chmod -R u+w "$mod"
  cp "$here/oracle-operator/controller_export.go" "$mod/internal/controller/zz_capi_render_oracle.go"
  mkdir -p "$mod/cmd/capi-render-oracle"
  cp "$here/oracle-operator/main.go" "$mod/cmd/capi-render-oracle/main.go"
  echo "building the cluster-api-operator $OPERATOR_VERSION oracle into $oracle_cache" >&2
  mkdir -p "$oracle_cache"
  (cd "$mod" && go build -o "$oracle.tmp" ./cmd/capi-render-oracle) && mv "$oracle.tmp" "$oracle"
fi

rm -f "$out"/*.json
n=0
for f in "$root"/fixtures/operator-customize/*.yaml; do
  if grep -q '"oracle": *"skip"' "$f"; then continue; fi
  "$oracle" "$f" "$out/$(basename "$f" .yaml).json"
  n=$((n + 1))
done
echo "operator-customize: $n goldens from cluster-api-operator $OPERATOR_VERSION" >&2
rm -f "$outf"/*.json
n=0
for f in "$root"/fixtures/operator-fetch/*.yaml; do
  "$oracle" "$f" "$outf/$(basename "$f" .yaml).json"
  n=$((n + 1))
done
echo "operator-fetch: $n goldens from cluster-api-operator $OPERATOR_VERSION" >&2

[ "$1" = "golden" ] && exit 0
corpus="${CAPI_CORPUS:-$root/../shared/corpus}"
if [ ! -d "$corpus" ]; then
  echo "note: corpus $corpus absent; operator corpus cases skipped" >&2
  exit 0
fi
cases="$scratch/corpus-cases"
fcases="$scratch/corpus-fetch-cases"
mkdir -p "$cases" "$fcases"
spec='"manager": {"verbosity": 3, "maxConcurrentReconciles": 4, "syncPeriod": "5m",
    "featureGates": {"MachinePool": true, "NewGate": false},
    "metrics": {"bindAddress": ":8080", "insecureDiagnostics": true},
    "health": {"healthProbeBindAddress": ":9441", "livenessEndpointName": "alive"},
    "leaderElection": {"leaderElect": true, "resourceName": "lock", "resourceNamespace": "ns", "leaseDuration": "20s"},
    "webhook": {"port": 9444}},
  "deployment": {"replicas": 2, "nodeSelector": {"role": "infra"},
    "tolerations": [{"key": "k", "operator": "Exists"}], "imagePullSecrets": [{"name": "reg"}]},
  "patches": [
    {"target": {"kind": "Deployment"}, "patch": "- op: add\n  path: /metadata/annotations\n  value: {patched: \"1\"}\n"},
    {"target": {"kind": "Service"}, "patch": "metadata:\n  labels:\n    svc: patched\n"}]'
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
  printf '{"provider": {"kind": "%s", "name": "%s", "namespace": "ns-%s", "manifestLabel": "%s", "uid": "u"},\n "images": {"all": {"repository": "mirror.example.com/capi"}},\n "spec": {%s}}\n---\n' \
    "$kind" "$name" "$name" "$label" "$spec" >"$f"
  cat "$comp" >>"$f"
  "$oracle" "$f" "${f%.yaml}.json"
  ff="$fcases/$repo-$label-$ver.yaml"
  printf '{"provider": {"kind": "%s", "name": "%s", "namespace": "ns-%s", "uid": "u"},\n "images": {"all": {"repository": "mirror.example.com/capi"}},\n "spec": {"version": "%s", %s},\n "fetch": {"version": "%s", "variables": {"EXP_MACHINE_POOL": "true", "images": "all:\\n  tag: v0.0.1-mirror\\n"}}}\n---\n' \
    "$kind" "$name" "$name" "$ver" "$spec" "$ver" >"$ff"
  cat "$comp" >>"$ff"
  "$oracle" "$ff" "${ff%.yaml}.json"
  nc=$((nc + 1))
done
echo "operator-customize: $nc corpus cases (customisation and Fetch phase each)" >&2
(cd "$root" && CAPI_OPERATOR_CORPUS_CASES="$cases" CAPI_OPERATOR_FETCH_CASES="$fcases" cargo test --quiet --lib -- \
  --nocapture corpus_cases_match_the_operator corpus_fetch_cases_match_the_operator 2>&1 \
  | grep -E "corpus( fetch)?:|differ|panicked|FAILED|^test result" >&2) \
  || { echo "FAIL: operator corpus cases" >&2; exit 1; }
