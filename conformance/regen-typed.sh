#!/usr/bin/env bash
# Regenerate the typed round-trip reference data from the real Go code
# (k8s.io/api, apimachinery, apiextensions-apiserver v0.32.3; see oracle/go.mod).
#
#   conformance/regen-typed.sh golden     update in place: src/typed/model.json and
#                                         golden/typed/*.json
#   conformance/regen-typed.sh OUTDIR     write OUTDIR/typed-model.json and OUTDIR/typed/*.json
#   conformance/regen-typed.sh --check    regenerate into a temporary directory and diff it
#                                         against the tracked files (exit 1 on any difference)
#
# The corpus digests (golden/typed/corpus.json) need the release corpus: $CAPI_CORPUS,
# default ../shared/corpus relative to the crate root. Without it that file is left out.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
[ $# -eq 1 ] || { echo "usage: $0 golden|OUTDIR|--check" >&2; exit 2; }

if [ "$1" = "--check" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  "$0" "$tmp"
  status=0
  diff -u "$root/src/typed/model.json" "$tmp/typed-model.json" || status=1
  for f in "$tmp"/typed/*.json; do
    diff -u "$root/golden/typed/$(basename "$f")" "$f" || status=1
  done
  [ $status -eq 0 ] && echo "typed goldens and model are up to date"
  exit $status
fi

if [ "$1" = "golden" ]; then
  model_out="$root/src/typed/model.json"
  golden_out="$root/golden/typed"
else
  mkdir -p "$1"
  out="$(cd "$1" && pwd)"
  model_out="$out/typed-model.json"
  golden_out="$out/typed"
fi
mkdir -p "$golden_out"

bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd "$here/oracle" && go build -o "$bin/typegen" ./cmd/typegen && go build -o "$bin/typedref" ./cmd/typedref)

"$bin/typegen" > "$model_out"
for f in "$root"/fixtures/typed/*.yaml; do
  name="$(basename "$f" .yaml)"
  "$bin/typedref" objects "$f" "$golden_out/$name.json"
done
"$bin/typedref" quantity "$root/fixtures/typed/quantities.json" "$golden_out/quantities.json"

corpus="${CAPI_CORPUS:-$root/../shared/corpus}"
if [ -d "$corpus" ]; then
  "$bin/typedref" corpus "$corpus" "$golden_out/corpus.json"
else
  echo "note: corpus $corpus absent; corpus.json not regenerated" >&2
fi
