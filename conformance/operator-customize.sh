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
