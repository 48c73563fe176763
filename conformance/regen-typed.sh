#!/usr/bin/env bash
# Regenerate the typed round-trip reference data from the real Go code, once per k8s.io
# release a reference tool is built on:
#   v0.32.3  clusterctl v1.10.10 (oracle/go.mod; the model also has Cluster API's v1beta1 kinds)
#   v0.35.8  cluster-api-operator v0.29.0   (oracle/typed-k8s/v0.35.8/go.mod)
#   v0.36.3  clusterctl v1.14.2             (oracle/typed-k8s/v0.36.3/go.mod)
# The later two build the same typegen and typedref sources (k8s_roots.go.in in place of
# capi_roots.go) in a copy made outside the checkout, with that release's go.mod and go.sum.
#
#   conformance/regen-typed.sh golden     update in place: src/typed/model*.json and
#                                         golden/typed*/*.json
#   conformance/regen-typed.sh OUTDIR     write OUTDIR/typed-model*.json and OUTDIR/typed*/*.json
#   conformance/regen-typed.sh --check    regenerate into a temporary directory and diff it
#                                         against the tracked files (exit 1 on any difference)
#
# The corpus digests (golden/typed/corpus.json) need the release corpus: $CAPI_CORPUS,
# default ../shared/corpus relative to the crate root. Without it that file is left out.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
[ $# -eq 1 ] || { echo "usage: $0 golden|OUTDIR|--check" >&2; exit 2; }

releases="v0.32.3 v0.35.8 v0.36.3"
# suffix RELEASE: "" for v0.32.3 (the original file names), "-<release>" for the others
suffix() { [ "$1" = v0.32.3 ] && echo "" || echo "-$1"; }

if [ "$1" = "--check" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  "$0" "$tmp"
  status=0
  for r in $releases; do
    s="$(suffix "$r")"
    diff -u "$root/src/typed/model$s.json" "$tmp/typed-model$s.json" || status=1
    for f in "$tmp/typed$s"/*.json; do
      diff -u "$root/golden/typed$s/$(basename "$f")" "$f" || status=1
    done
  done
  [ $status -eq 0 ] && echo "typed goldens and models are up to date"
  exit $status
fi

if [ "$1" = "golden" ]; then
  model_dir="$root/src/typed"; model_prefix=model
  golden_dir="$root/golden"
else
  mkdir -p "$1"
  out="$(cd "$1" && pwd)"
  model_dir="$out"; model_prefix=typed-model
  golden_dir="$out"
fi

bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
corpus="${CAPI_CORPUS:-$root/../shared/corpus}"
for r in $releases; do
  s="$(suffix "$r")"
  mkdir -p "$bin/$r"
  if [ "$r" = v0.32.3 ]; then
    (cd "$here/oracle" && go build -o "$bin/$r/typegen" ./cmd/typegen && go build -o "$bin/$r/typedref" ./cmd/typedref)
  else
    src="$bin/$r/src"
    mkdir -p "$src/cmd/typegen" "$src/cmd/typedref"
    cp "$here/oracle/typed-k8s/$r/go.mod" "$here/oracle/typed-k8s/$r/go.sum" "$src/"
    cp "$here/oracle/cmd/typedref"/*.go "$src/cmd/typedref/"
    for f in "$here/oracle/cmd/typegen"/*.go; do
      [ "$(basename "$f")" = capi_roots.go ] || cp "$f" "$src/cmd/typegen/"
    done
    cp "$here/oracle/cmd/typegen/k8s_roots.go.in" "$src/cmd/typegen/k8s_roots.go"
    # No build tags: the k8s.io packages' compiled forms are shared with the clusterctl
    # v1.14.2 and operator builds of the same releases (Go's build cache).
    (cd "$src" && go build -o "$bin/$r/typegen" ./cmd/typegen && go build -o "$bin/$r/typedref" ./cmd/typedref)
  fi
  golden_out="$golden_dir/typed$s"
  mkdir -p "$golden_out"
  "$bin/$r/typegen" > "$model_dir/$model_prefix$s.json"
  for f in "$root"/fixtures/typed/*.yaml; do
    "$bin/$r/typedref" objects "$f" "$golden_out/$(basename "$f" .yaml).json"
  done
  "$bin/$r/typedref" quantity "$root/fixtures/typed/quantities.json" "$golden_out/quantities.json"
  if [ -d "$corpus" ]; then
    "$bin/$r/typedref" corpus "$corpus" "$golden_out/corpus.json"
  else
    echo "note: corpus $corpus absent; typed$s/corpus.json not regenerated" >&2
  fi
done
